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
mod document;
mod figures;
pub use results as layout;
pub mod claims;
mod plot;
pub mod summary;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use serde::Serialize;

use document::{Block, Document};
use figures::{Colors, DelayStat};
pub use layout::{
    discover, left_out_note, run_dir, Run, RunId, RunInfo, RunStatus, SkipKind, Skipped, Timings,
};
pub use plot::FONT_PATHS;
use summary::{metric, ConfigSummary, Normalised, METRICS, NORMALISED};

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
    // Only `done` runs count; the reader is told how many others there were.
    let mut warnings: Vec<String> = left_out_note(&skipped).into_iter().collect();
    let figures = if options.plots {
        match plot::ensure_font() {
            Ok(()) => draw_figures(&runs, &summaries, &out_dir, options)?,
            Err(e) => {
                warnings.push(format!("plots skipped: {e}"));
                Figures::default()
            }
        }
    } else {
        Figures::default()
    };
    let table = normalised_table(&normalised);
    let document = compose(
        bench_dir,
        &runs,
        &skipped,
        &summaries,
        &normalised,
        &figures,
        &warnings,
    );
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

fn write(path: &Path, text: &str) -> Result<()> {
    wholefile::write(path, text.as_bytes()).with_context(|| format!("writing {}", path.display()))
}

/// Pantheon's per-run summary: throughput (Mbit/s), 95th-percentile one-way
/// delay (ms) and loss rate, keyed by scheme.
fn write_perf_json(run: &Run) -> Result<PathBuf> {
    let m = &run.analysis.aggregate;
    let perf = serde_json::json!({
        run.info.id.scheme.clone(): { "tput": m.throughput_mbps, "delay": m.p95_delay_ms, "loss": m.loss_rate }
    });
    let path = run.dir.join(layout::PERF_JSON);
    write(&path, &(serde_json::to_string_pretty(&perf)? + "\n"))?;
    Ok(path)
}

#[derive(Serialize)]
struct SummaryJson<'a> {
    reference_scheme: &'a str,
    runs: Vec<RunSummary<'a>>,
    configs: &'a [ConfigSummary],
    normalised: &'a Normalised,
    skipped: &'a [Skipped],
}

#[derive(Serialize)]
struct RunSummary<'a> {
    trace: &'a str,
    scheme: &'a str,
    label: &'a str,
    params: &'a BTreeMap<String, serde_json::Value>,
    rep: u32,
    dir: String,
    aggregate: &'a metrics::Metrics,
    flows: &'a [metrics::FlowMetrics],
}

impl<'a> RunSummary<'a> {
    fn of(run: &'a Run, bench_dir: &Path) -> Self {
        RunSummary {
            trace: &run.info.id.trace,
            scheme: &run.info.id.scheme,
            label: &run.info.label,
            params: &run.info.id.params,
            rep: run.info.id.rep,
            dir: relative(&run.dir, bench_dir),
            aggregate: &run.analysis.aggregate,
            flows: &run.analysis.flows,
        }
    }
}

fn relative(path: &Path, base: &Path) -> String {
    let rel = path.strip_prefix(base).unwrap_or(path);
    if rel.as_os_str().is_empty() {
        ".".into()
    } else {
        rel.display().to_string()
    }
}

/// One row per configuration and trace: repetitions' means, then the mean
/// flow completion time of each sized flow.
fn write_summary_csv(path: &Path, summaries: &[ConfigSummary]) -> Result<()> {
    wholefile::write_with(path, |f| {
        summary_rows(csv::Writer::from_writer(f), summaries)
    })
    .with_context(|| format!("writing {}", path.display()))
}

fn summary_rows<W: std::io::Write>(
    mut w: csv::Writer<W>,
    summaries: &[ConfigSummary],
) -> Result<(), csv::Error> {
    let fct_flows: BTreeSet<&String> = summaries.iter().flat_map(|s| s.fct_s.keys()).collect();
    let header = ["trace", "scheme", "label", "reps"]
        .map(String::from)
        .into_iter();
    let header = header
        .chain(METRICS.iter().map(|m| m.key.to_owned()))
        .chain(fct_flows.iter().map(|f| format!("fct_s:{f}")));
    w.write_record(header)?;
    for s in summaries {
        let fixed = [
            s.trace.clone(),
            s.config.scheme.clone(),
            s.config.label.clone(),
            s.reps.to_string(),
        ];
        let values = METRICS.iter().map(|m| {
            s.means
                .get(m.key)
                .copied()
                .flatten()
                .map_or(String::new(), |v| v.to_string())
        });
        let fcts = fct_flows
            .iter()
            .map(|f| s.fct_s.get(*f).map_or(String::new(), |v| v.to_string()));
        w.write_record(fixed.into_iter().chain(values).chain(fcts))?;
    }
    w.flush()?;
    Ok(())
}

/// A number for tables and labels: 3 significant digits, no exponent.
pub(crate) fn number(v: f64) -> String {
    if !v.is_finite() {
        return v.to_string();
    }
    if v == v.round() && v.abs() < 1e9 {
        return format!("{v:.0}");
    }
    let a = v.abs();
    let decimals = if a >= 100.0 {
        1
    } else if a >= 1.0 {
        2
    } else if a == 0.0 {
        0
    } else {
        (2 - a.log10().floor() as i32).max(0) as usize
    };
    format!("{v:.decimals$}")
}

/// A metric in a table: a fixed number of decimals per unit, so that a
/// column reads evenly.
fn cell(key: &str, v: Option<f64>) -> String {
    let decimals = match metric(key).unit {
        "ms" => 1,
        "Mbit/s" => 2,
        "" => 3,
        _ => 4,
    };
    v.map_or("–".into(), |v| format!("{v:.decimals$}"))
}

fn normalised_table(n: &Normalised) -> Block {
    let mut header = vec!["Scheme".to_string()];
    header.extend(NORMALISED.iter().map(|k| metric(k).title.to_string()));
    header.push("Traces".into());
    let rows = n
        .rows
        .iter()
        .map(|r| {
            let mut row = vec![r.config.name()];
            row.extend(NORMALISED.iter().map(|k| {
                r.ratios
                    .get(*k)
                    .copied()
                    .flatten()
                    .map_or("–".into(), |v| format!("{v:.2}"))
            }));
            row.push(r.traces.to_string());
            row
        })
        .collect();
    Block::Table { header, rows }
}

/// Columns of the per-trace tables.
const TRACE_COLUMNS: &[&str] = &[
    "throughput_mbps",
    "utilization",
    "avg_queue_delay_ms",
    "p95_queue_delay_ms",
    "jitter_ms",
    "avg_delay_ms",
    "avg_rtt_ms",
    "power",
    "loss_rate",
    "retransmits",
    "self_inflicted_delay_ms",
];

#[derive(Default)]
struct Figures {
    files: Vec<PathBuf>,
    /// Trace → relative SVG paths (scatter mean, scatter p95, CDF).
    per_trace: BTreeMap<String, Vec<String>>,
    /// (trace, param) → relative SVG paths.
    sweeps: Vec<((String, String), String)>,
    /// Run dir → relative SVG path.
    timeseries: BTreeMap<PathBuf, String>,
}

fn draw_figures(
    runs: &[Run],
    summaries: &[ConfigSummary],
    out_dir: &Path,
    options: &ReportOptions,
) -> Result<Figures> {
    let plots = out_dir.join("plots");
    std::fs::create_dir_all(&plots).with_context(|| format!("creating {}", plots.display()))?;
    let colors = Colors::new(runs);
    let mut f = Figures::default();
    let emit = |panels: &[plot::Panel],
                stem: String,
                size: (u32, u32),
                files: &mut Vec<PathBuf>|
     -> Result<String> {
        files.extend(
            plot::render(panels, &plots, &stem, size)
                .with_context(|| format!("plotting {stem}"))?,
        );
        Ok(format!("plots/{stem}.svg"))
    };
    let traces: BTreeSet<&str> = runs.iter().map(|r| r.info.id.trace.as_str()).collect();
    for trace in traces {
        let name = layout::component(trace);
        let mut paths = Vec::new();
        for stat in [DelayStat::Mean, DelayStat::P95] {
            let panel = figures::throughput_delay(trace, summaries, runs, stat, &colors);
            paths.push(emit(
                &[panel],
                format!("scatter-{name}-{}", stat.name()),
                (900, 560),
                &mut f.files,
            )?);
        }
        let cdf = figures::delay_cdf(trace, runs, &colors);
        paths.push(emit(
            &[cdf],
            format!("cdf-{name}"),
            (900, 560),
            &mut f.files,
        )?);
        f.per_trace.insert(trace.to_owned(), paths);
    }
    for sweep in figures::sweeps(runs, &colors) {
        let stem = format!(
            "sweep-{}-{}",
            layout::component(&sweep.trace),
            layout::component(&sweep.param)
        );
        let height = 420 * sweep.panels.len() as u32;
        let path = emit(&sweep.panels, stem, (900, height), &mut f.files)?;
        f.sweeps.push(((sweep.trace, sweep.param), path));
    }
    if options.timeseries_plots {
        for run in runs {
            let title = format!(
                "{} on {} rep{}",
                summary::Config::of(run).name(),
                run.info.id.trace,
                run.info.id.rep
            );
            let stem = format!(
                "timeseries-{}-{}-{}-rep{}",
                layout::component(&run.info.id.trace),
                layout::component(&run.info.id.scheme),
                layout::component(if run.info.label.is_empty() {
                    "default"
                } else {
                    &run.info.label
                }),
                run.info.id.rep
            );
            let path = emit(
                &figures::timeseries(&title, run),
                stem,
                (1000, 640),
                &mut f.files,
            )?;
            f.timeseries.insert(run.dir.clone(), path);
        }
    }
    Ok(f)
}

fn compose(
    bench_dir: &Path,
    runs: &[Run],
    skipped: &[Skipped],
    summaries: &[ConfigSummary],
    normalised: &Normalised,
    figures: &Figures,
    warnings: &[String],
) -> Document {
    let mut doc = Document::default();
    let traces: BTreeSet<&str> = runs.iter().map(|r| r.info.id.trace.as_str()).collect();
    let schemes: BTreeSet<&str> = runs.iter().map(|r| r.info.id.scheme.as_str()).collect();
    // A report of one run is titled by that run, not by its directory.
    let title = match runs {
        [one] if skipped.is_empty() => format!("c2tcp run: {}", one.info.id.describe()),
        _ => "c2tcp results".into(),
    };
    doc.push(Block::Heading(1, title));
    doc.push(Block::Paragraph(format!(
        "{} finished runs of {} schemes over {} traces in {}; {} not done and left out. Delays are queueing delays at the bottleneck \
         unless marked one-way; definitions in docs/metrics.md.",
        runs.len(),
        schemes.len(),
        traces.len(),
        bench_dir.display(),
        skipped.len()
    )));
    if !warnings.is_empty() {
        doc.push(Block::List(warnings.to_vec()));
    }

    doc.push(Block::Heading(
        2,
        format!(
            "Normalised to {} (C2TCP paper Table I)",
            normalised.reference_scheme
        ),
    ));
    doc.push(Block::Paragraph(format!(
        "Each metric of each configuration divided by {}'s on the same trace, then averaged over traces. \
         Power = throughput ÷ mean queueing delay, power95 = throughput ÷ p95 queueing delay (NATCP).",
        normalised.reference_scheme
    )));
    doc.push(normalised_table(normalised));
    if !normalised.notes.is_empty() {
        doc.push(Block::List(normalised.notes.clone()));
    }

    doc.push(Block::Heading(2, "Per trace".into()));
    for trace in &traces {
        doc.push(Block::Heading(3, trace.to_string()));
        let mut header = vec!["Scheme".to_string(), "Reps".to_string()];
        header.extend(TRACE_COLUMNS.iter().map(|k| {
            let m = metric(k);
            if m.unit.is_empty() {
                m.title.to_string()
            } else {
                format!("{} ({})", m.title, m.unit)
            }
        }));
        let rows = summaries
            .iter()
            .filter(|s| s.trace == *trace)
            .map(|s| {
                let mut row = vec![s.config.name(), s.reps.to_string()];
                row.extend(
                    TRACE_COLUMNS
                        .iter()
                        .map(|k| cell(k, s.means.get(*k).copied().flatten())),
                );
                row
            })
            .collect();
        doc.push(Block::Table { header, rows });
        for path in figures.per_trace.get(*trace).into_iter().flatten() {
            doc.push(Block::Image(
                path.clone(),
                path.trim_start_matches("plots/")
                    .trim_end_matches(".svg")
                    .into(),
            ));
        }
    }

    let fct_rows: Vec<Vec<String>> = summaries
        .iter()
        .flat_map(|s| {
            s.fct_s.iter().map(move |(flow, fct)| {
                vec![s.trace.clone(), s.config.name(), flow.clone(), number(*fct)]
            })
        })
        .collect();
    if !fct_rows.is_empty() {
        doc.push(Block::Heading(2, "Flow completion times".into()));
        let header = ["Trace", "Scheme", "Flow", "Mean FCT (s)"]
            .map(String::from)
            .to_vec();
        doc.push(Block::Table {
            header,
            rows: fct_rows,
        });
    }

    if !figures.sweeps.is_empty() {
        doc.push(Block::Heading(2, "Parameter sweeps".into()));
        for ((trace, param), path) in &figures.sweeps {
            doc.push(Block::Heading(3, format!("{param} on {trace}")));
            doc.push(Block::Image(
                path.clone(),
                format!("{param} sweep on {trace}"),
            ));
        }
    }

    doc.push(Block::Heading(2, "Runs".into()));
    let header = [
        "Trace",
        "Scheme",
        "Rep",
        "Throughput (Mbit/s)",
        "Avg. delay (ms)",
        "95th %ile delay (ms)",
        "Directory",
    ]
    .map(String::from)
    .to_vec();
    let rows = runs
        .iter()
        .map(|r| {
            let m = &r.analysis.aggregate;
            vec![
                r.info.id.trace.clone(),
                summary::Config::of(r).name(),
                r.info.id.rep.to_string(),
                cell("throughput_mbps", Some(m.throughput_mbps)),
                cell("avg_queue_delay_ms", m.avg_queue_delay_ms),
                cell("p95_queue_delay_ms", m.p95_queue_delay_ms),
                relative(&r.dir, bench_dir),
            ]
        })
        .collect();
    doc.push(Block::Table { header, rows });
    for run in runs {
        if let Some(path) = figures.timeseries.get(&run.dir) {
            doc.push(Block::Image(
                path.clone(),
                format!("time series of {}", relative(&run.dir, bench_dir)),
            ));
        }
    }
    if !skipped.is_empty() {
        doc.push(Block::Heading(2, "Skipped runs".into()));
        doc.push(Block::List(
            skipped
                .iter()
                .map(|s| format!("{}: {}", relative(&s.dir, bench_dir), s.reason))
                .collect(),
        ));
    }
    doc
}
