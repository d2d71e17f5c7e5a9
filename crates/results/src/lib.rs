// SPDX-License-Identifier: GPL-2.0-only
//! The on-disk layout of results, which the runner and the bench write and
//! the report reads (`docs/results-layout.md`), and the one identity of a
//! run ([`RunId`]) that a bench's job, the runner and `run.json` share:
//!
//! ```text
//! BENCH/runs/<trace>/<scheme>/<label>/rep<N>/
//!     run.json          what ran and how it ended (RunInfo)
//!     metrics.json      metrics::Analysis (aggregate, flows[], window, config)
//!     timeseries.csv    binned capacity, throughput, queueing delay
//!     delay_cdf.csv     queueing delay at fixed quantiles
//!     perf.json         Pantheon-style summary, written by the report
//! ```
//!
//! A single `c2tcp run --out DIR` writes the same files into DIR. The report
//! finds runs by their run.json wherever they are under the directory, and
//! takes their identity from it, not from the path.
//!
//! One idea a module: `layout` (run.json's and the analysis' file names,
//! `run_dir`), `files` (every other file name of a run directory), `analysis` (a
//! run's metrics files), `run_id` (`RunId`), `run_json` (`RunInfo`),
//! `discover` (finding runs again, and those left out), `merge` (joining
//! a bench's shards). Everything is reached from the crate root.
#![forbid(unsafe_code)]

mod analysis;
mod discover;
mod files;
mod layout;
mod merge;
mod run_id;
mod run_json;

pub use analysis::{read_analysis, write_analysis};
pub(crate) use discover::find_run_dirs;
pub use discover::{discover, left_out_note, Run, SkipKind, Skipped};
pub use files::*;
pub use layout::{
    component, run_dir, DELAY_CDF_CSV, METRICS_JSON, PERF_JSON, RUN_JSON, TIMESERIES_CSV,
};
pub use merge::{merge, Merged};
pub use run_id::RunId;
pub use run_json::{RunInfo, RunStatus, Timings, RUN_JSON_VERSION};
