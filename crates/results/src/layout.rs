// SPDX-License-Identifier: GPL-2.0-only
//! Where a run's files are: the names of the files in a run directory, and
//! the directory a bench keeps each run in (`docs/results-layout.md`).
use std::path::{Path, PathBuf};

pub const RUN_JSON: &str = "run.json";
pub const PERF_JSON: &str = "perf.json";
/// `metrics::Analysis`: window, config, `aggregate` and `flows[]`.
pub const METRICS_JSON: &str = "metrics.json";
/// The analysis' time series, one row per bin.
pub const TIMESERIES_CSV: &str = "timeseries.csv";
/// The analysis' aggregate queueing delay at fixed quantiles.
pub const DELAY_CDF_CSV: &str = "delay_cdf.csv";

/// Where a bench keeps one run: `BENCH/runs/<trace>/<scheme>/<label>/rep<N>`,
/// an empty label being `default`.
pub fn run_dir(bench: &Path, trace: &str, scheme: &str, label: &str, rep: u32) -> PathBuf {
    let label = if label.is_empty() { "default" } else { label };
    bench
        .join("runs")
        .join(component(trace))
        .join(component(scheme))
        .join(component(label))
        .join(format!("rep{rep}"))
}

/// A name made safe as one path component.
pub fn component(name: &str) -> String {
    let safe: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || "._=+-,:".contains(c) {
                c
            } else {
                '_'
            }
        })
        .collect();
    if safe.is_empty() || safe.starts_with('.') {
        format!("_{safe}")
    } else {
        safe
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn run_dirs_follow_the_layout_with_safe_names() {
        let d = run_dir(
            Path::new("B"),
            "TMobile-LTE-driving.down",
            "c2tcp",
            "target_ms=50",
            2,
        );
        assert_eq!(
            d,
            Path::new("B/runs/TMobile-LTE-driving.down/c2tcp/target_ms=50/rep2")
        );
        assert_eq!(
            run_dir(Path::new("B"), "../x", "a b", "", 0),
            Path::new("B/runs/_.._x/a_b/default/rep0")
        );
    }
}
