// SPDX-License-Identifier: GPL-2.0-only
//! The metrics of the papers, defined once, computed from the emulator's log.
//!
//! `analyze(log, &config)` reads one direction's packet log (ours, or a plain
//! Mahimahi mm-link log) in one streaming pass and returns, over the
//! measurement window, per flow and for all flows together: throughput,
//! capacity, utilization, queueing and one-way delay (mean, 95th percentile),
//! jitter, power and power95 (NATCP), loss, Jain's fairness, Sprout's 95%
//! end-to-end delay with its self-inflicted part against the omniscient
//! sender; plus a binned time series and the delay distribution for CDFs.
//! Where an analysis is kept (`metrics.json`, `timeseries.csv`,
//! `delay_cdf.csv`) is the `results` crate's business
//! (`results::write_analysis`); `docs/metrics.md` states each definition
//! and its paper.
//!
//! ```no_run
//! let config = metrics::AnalysisConfig { warmup_s: 5.0, ..Default::default() };
//! let mut analysis = metrics::analyze("out/downlink.log".as_ref(), &config)?;
//! if let Some(short) = analysis.flow_mut("short") {
//!     short.metrics.fct_s = Some(1.25); // measured by the application
//! }
//! println!("{}", serde_json::to_string_pretty(&analysis).unwrap());
//! # Ok::<(), metrics::Error>(())
//! ```
#![forbid(unsafe_code)]
mod analysis;
mod cdf;
mod config;
mod delay;
mod e2e_delay;
pub mod log;
mod timeseries;

use std::path::{Path, PathBuf};

pub use analysis::{
    analyze, analyze_reader, jain_fairness, Analysis, FlowMetrics, Metrics, QueueSojourn, Window,
    FORMAT,
};
pub use cdf::{cdf_quantiles, CdfPoint, DelayCdf};
pub use config::{AnalysisConfig, FlowGroup, FlowMatch};
pub use log::{DropReason, FlowInfo, LogHeader, MarkCause, Protocol};
pub use timeseries::{TimeSeries, TimeSeriesRow};

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("{}: {source}", path.display())]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    /// Line 0: the file as a whole.
    #[error("{}:{line}: {message}", path.display())]
    Parse {
        path: PathBuf,
        line: u64,
        message: String,
    },
    #[error("analysis config: {0}")]
    Config(String),
}

impl Error {
    pub fn io(path: &Path, source: std::io::Error) -> Error {
        Error::Io {
            path: path.to_owned(),
            source,
        }
    }

    pub(crate) fn parse(path: &Path, line: u64, message: impl Into<String>) -> Error {
        Error::Parse {
            path: path.to_owned(),
            line,
            message: message.into(),
        }
    }
}
