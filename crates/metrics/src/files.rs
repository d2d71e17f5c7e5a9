// SPDX-License-Identifier: GPL-2.0-only
//! The files an analysis is kept in, in a run's directory.
use std::path::Path;

use crate::analysis::Analysis;
use crate::cdf::DelayCdf;
use crate::timeseries::TimeSeries;
use crate::Error;

/// Window, config, `aggregate` and `flows[]`.
pub const METRICS_JSON: &str = "metrics.json";
/// One row per bin.
pub const TIMESERIES_CSV: &str = "timeseries.csv";
/// Aggregate queueing delay at fixed quantiles.
pub const DELAY_CDF_CSV: &str = "delay_cdf.csv";

impl Analysis {
    /// Writes metrics.json, timeseries.csv and delay_cdf.csv into `dir`,
    /// each whole or not at all (`wholefile`).
    pub fn write_dir(&self, dir: &Path) -> Result<(), Error> {
        std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
        let path = dir.join(METRICS_JSON);
        let json = serde_json::to_string_pretty(self).expect("metrics serialize");
        wholefile::write(&path, (json + "\n").as_bytes()).map_err(|e| Error::io(&path, e))?;
        self.timeseries.write_csv(&dir.join(TIMESERIES_CSV))?;
        self.delay_cdf.write_csv(&dir.join(DELAY_CDF_CSV))
    }

    /// Reads metrics.json, and the CSVs when present.
    pub fn read_dir(dir: &Path) -> Result<Analysis, Error> {
        let mut analysis = Analysis::read_json(&dir.join(METRICS_JSON))?;
        let series = dir.join(TIMESERIES_CSV);
        if series.exists() {
            analysis.timeseries = TimeSeries::read_csv(&series)?;
        }
        let cdf = dir.join(DELAY_CDF_CSV);
        if cdf.exists() {
            analysis.delay_cdf = DelayCdf::read_csv(&cdf)?;
        }
        Ok(analysis)
    }

    pub fn read_json(path: &Path) -> Result<Analysis, Error> {
        let text = std::fs::read_to_string(path).map_err(|e| Error::io(path, e))?;
        serde_json::from_str(&text).map_err(|e| Error::parse(path, e.line() as u64, e.to_string()))
    }
}
