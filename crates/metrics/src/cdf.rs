// SPDX-License-Identifier: GPL-2.0-only
//! The distribution of per-packet queueing delay, for CDF plots.
//!
//! Kept as the delay at fixed quantiles (every 0.5%, plus 99.9%) rather than
//! every sample: small on disk, and repetitions average quantile by quantile
//! (Vincentizing), which keeps the averaged curve a distribution.
use std::path::Path;

use hdrhistogram::Histogram;
use serde::{Deserialize, Serialize};

use crate::delay::quantile_ms;
use crate::Error;

#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct CdfPoint {
    pub quantile: f64,
    pub queue_delay_ms: f64,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct DelayCdf {
    pub points: Vec<CdfPoint>,
}

/// 0, 0.005, …, 0.995, 0.999, 1.
pub fn cdf_quantiles() -> Vec<f64> {
    let mut q: Vec<f64> = (0..200).map(|i| i as f64 / 200.0).collect();
    q.extend([0.999, 1.0]);
    q
}

impl DelayCdf {
    pub(crate) fn from_histogram(h: &Histogram<u64>) -> DelayCdf {
        let points = cdf_quantiles()
            .into_iter()
            .filter_map(|quantile| {
                quantile_ms(h, quantile).map(|queue_delay_ms| CdfPoint {
                    quantile,
                    queue_delay_ms,
                })
            })
            .collect();
        DelayCdf { points }
    }

    pub fn write_csv(&self, path: &Path) -> Result<(), Error> {
        wholefile::write_with(path, |f| -> Result<(), csv::Error> {
            let mut w = csv::Writer::from_writer(f);
            for p in &self.points {
                w.serialize(p)?;
            }
            if self.points.is_empty() {
                w.write_record(["quantile", "queue_delay_ms"])?;
            }
            Ok(w.flush()?)
        })
        .map_err(|e| Error::io(path, e.into()))
    }

    pub fn read_csv(path: &Path) -> Result<DelayCdf, Error> {
        let file = std::fs::File::open(path).map_err(|e| Error::io(path, e))?;
        DelayCdf::read_csv_from(file, path)
    }

    /// [`DelayCdf::read_csv`] from any reader (`path` names it in errors).
    pub fn read_csv_from(input: impl std::io::Read, path: &Path) -> Result<DelayCdf, Error> {
        let mut r = csv::Reader::from_reader(input);
        let points = r
            .deserialize()
            .enumerate()
            .map(|(i, p)| p.map_err(|e| Error::parse(path, i as u64 + 2, e.to_string())))
            .collect::<Result<_, _>>()?;
        Ok(DelayCdf { points })
    }
}
