// SPDX-License-Identifier: GPL-2.0-only
//! Turns a bench directory (or one run's directory) into what goes in a
//! paper: the Table-I-style normalised table, per-trace tables,
//! throughput-vs-delay scatters, delay CDFs, time series, sweep figures, and
//! machine-readable summaries.
//!
//! Reads the layout of `layout` (`docs/results-layout.md`); writes into the
//! output directory (default: the bench directory itself) `report.md`,
//! `report.html`, `summary.csv`, `summary.json` and `plots/*.{svg,png}`, and
//! a Pantheon-style `perf.json` into every run's directory.
//!
//! ```no_run
//! let report = report::build("bench-out".as_ref(), &report::ReportOptions::default())?;
//! println!("{}\nreport: {}", report.table_markdown, report.markdown.display());
//! # Ok::<(), anyhow::Error>(())
//! ```
#![forbid(unsafe_code)]
pub mod claims;
mod contents;
mod document;
mod draw;
mod figures;
mod files;
pub use results as layout;
mod plot;
pub mod summary;
mod tables;

use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};

use document::Document;
use files::{write_perf_json, write_summary_csv, RunSummary, SummaryJson};
pub use layout::{
    discover, left_out_note, run_dir, Run, RunId, RunInfo, RunStatus, SkipKind, Skipped, Timings,
};
pub use plot::FONT_PATHS;
use summary::{ConfigSummary, Normalised};
pub(crate) use tables::number;

#[derive(Clone, Debug)]
pub struct ReportOptions {
    /// Every metric is normalised per trace to this scheme (paper: C2TCP).
    pub reference_scheme: String,
    /// Which of the reference scheme's parameter labels to normalise to when
    /// it ran with several and the compared run has none of them.
    pub reference_label: Option<String>,
    /// Default: the bench directory.
    pub out_dir: Option<PathBuf>,
    pub plots: bool,
    /// One figure per run; a large bench may want them off.
    pub timeseries_plots: bool,
}

/// The scheme a report normalises to unless told otherwise (Table I's
/// reference): named here once, for `c2tcp report`, `c2tcp bench` and the
/// default options.
pub const DEFAULT_REFERENCE: &str = "c2tcp";

impl Default for ReportOptions {
    fn default() -> Self {
        ReportOptions {
            reference_scheme: DEFAULT_REFERENCE.into(),
            reference_label: None,
            out_dir: None,
            plots: true,
            timeseries_plots: true,
        }
    }
}

/// What `build` wrote and found.
#[derive(Clone, Debug)]
pub struct Report {
    pub out_dir: PathBuf,
    pub markdown: PathBuf,
    pub html: PathBuf,
    pub summary_csv: PathBuf,
    pub summary_json: PathBuf,
    pub perf_json: Vec<PathBuf>,
    pub plots: Vec<PathBuf>,
    pub runs: usize,
    pub skipped: Vec<Skipped>,
    pub summaries: Vec<ConfigSummary>,
    pub normalised: Normalised,
    /// Things the reader should know (e.g. plots skipped for want of a font).
    pub warnings: Vec<String>,
    /// The normalised table in Markdown, for printing at the end of a bench.
    pub table_markdown: String,
}

pub fn build(bench_dir: &Path, options: &ReportOptions) -> Result<Report> {
    let (runs, skipped) = discover(bench_dir)?;
    if runs.is_empty() && skipped.is_empty() {
        bail!(
            "no runs under {} (no {} found)",
            bench_dir.display(),
            layout::RUN_JSON
        );
    }
    let out_dir = options
        .out_dir
        .clone()
        .unwrap_or_else(|| bench_dir.to_owned());
    std::fs::create_dir_all(&out_dir).with_context(|| format!("creating {}", out_dir.display()))?;
    let perf_json = runs
        .iter()
        .map(write_perf_json)
        .collect::<Result<Vec<_>>>()?;
    let summaries = summary::summarise(&runs);
    let normalised = summary::normalise(
        &summaries,
        &options.reference_scheme,
        options.reference_label.as_deref(),
    );
    // The flows' shares are a table as well as a figure: known with or
    // without plots.
    let shares = figures::shares(&runs);
    // Only `done` runs count; the reader is told how many others there were.
    let mut warnings: Vec<String> = left_out_note(&skipped).into_iter().collect();
    let figures = if options.plots {
        match plot::ensure_font() {
            Ok(()) => draw::draw_figures(&runs, &summaries, shares.as_ref(), &out_dir, options)?,
            Err(e) => {
                warnings.push(format!("plots skipped: {e}"));
                draw::Figures::default()
            }
        }
    } else {
        draw::Figures::default()
    };
    let table = tables::normalised_table(&normalised);
    let document = contents::compose(&contents::Contents {
        bench_dir,
        runs: &runs,
        skipped: &skipped,
        summaries: &summaries,
        normalised: &normalised,
        shares: shares.as_ref(),
        figures: &figures,
        warnings: &warnings,
    });
    let markdown = out_dir.join("report.md");
    let html = out_dir.join("report.html");
    write(&markdown, &document.markdown())?;
    write(&html, &document.html("c2tcp results"))?;
    let summary_csv = out_dir.join("summary.csv");
    write_summary_csv(&summary_csv, &summaries)?;
    let summary_json = out_dir.join("summary.json");
    let json = SummaryJson {
        reference_scheme: &options.reference_scheme,
        runs: runs.iter().map(|r| RunSummary::of(r, bench_dir)).collect(),
        configs: &summaries,
        normalised: &normalised,
        skipped: &skipped,
    };
    write(
        &summary_json,
        &(serde_json::to_string_pretty(&json)? + "\n"),
    )?;
    Ok(Report {
        out_dir,
        markdown,
        html,
        summary_csv,
        summary_json,
        perf_json,
        plots: figures.files,
        runs: runs.len(),
        skipped,
        summaries,
        table_markdown: Document {
            blocks: vec![table],
        }
        .markdown(),
        normalised,
        warnings,
    })
}

pub(crate) fn write(path: &Path, text: &str) -> Result<()> {
    wholefile::write(path, text.as_bytes()).with_context(|| format!("writing {}", path.display()))
}
