// SPDX-License-Identifier: GPL-2.0-only
//! A run's analysis on disk: `metrics.json` and the CSVs beside it.
use std::path::Path;

use crate::{DELAY_CDF_CSV, METRICS_JSON, TIMESERIES_CSV};

/// Writes an analysis into a run directory: metrics.json, timeseries.csv
/// and delay_cdf.csv, each whole or not at all (`wholefile`).
pub fn write_analysis(dir: &Path, a: &metrics::Analysis) -> Result<(), metrics::Error> {
    std::fs::create_dir_all(dir).map_err(|e| metrics::Error::io(dir, e))?;
    let path = dir.join(METRICS_JSON);
    let json = serde_json::to_string_pretty(a).expect("metrics serialize");
    wholefile::write(&path, (json + "\n").as_bytes()).map_err(|e| metrics::Error::io(&path, e))?;
    a.timeseries.write_csv(&dir.join(TIMESERIES_CSV))?;
    a.delay_cdf.write_csv(&dir.join(DELAY_CDF_CSV))
}

/// Reads a run directory's analysis: metrics.json, and the CSVs when present.
pub fn read_analysis(dir: &Path) -> Result<metrics::Analysis, metrics::Error> {
    let mut analysis = metrics::Analysis::read_json(&dir.join(METRICS_JSON))?;
    let series = dir.join(TIMESERIES_CSV);
    if series.exists() {
        analysis.timeseries = metrics::TimeSeries::read_csv(&series)?;
    }
    let cdf = dir.join(DELAY_CDF_CSV);
    if cdf.exists() {
        analysis.delay_cdf = metrics::DelayCdf::read_csv(&cdf)?;
    }
    Ok(analysis)
}
