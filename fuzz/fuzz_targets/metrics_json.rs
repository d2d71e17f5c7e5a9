// SPDX-License-Identifier: GPL-2.0-only
//! A run's analysis files: `metrics.json` (`metrics::Analysis::parse_json`,
//! behind `Analysis::read_json` and `results::read_analysis`), and the
//! `timeseries.csv` and `delay_cdf.csv` beside it (`read_csv_from`, behind
//! `read_csv`). The first byte picks the file. What parses as
//! metrics.json writes back (as `results::write_analysis` does) to text
//! that parses to the same analysis.
#![no_main]
use std::path::Path;

use libfuzzer_sys::fuzz_target;
use metrics::{Analysis, DelayCdf, TimeSeries};

fuzz_target!(|data: &[u8]| {
    let Some((which, body)) = data.split_first() else {
        return;
    };
    match which % 4 {
        1 => {
            let _ = TimeSeries::read_csv_from(body, Path::new("timeseries.csv"));
        }
        2 => {
            let _ = DelayCdf::read_csv_from(body, Path::new("delay_cdf.csv"));
        }
        _ => {
            let Ok(text) = std::str::from_utf8(body) else {
                return;
            };
            let Ok(a) = Analysis::parse_json(text) else {
                return;
            };
            let back = serde_json::to_string_pretty(&a).expect("metrics serialize");
            let again = Analysis::parse_json(&back)
                .unwrap_or_else(|e| panic!("metrics.json written back does not parse: {e:?}\n{back}"));
            assert_eq!(again, a, "{back}");
        }
    }
});
