// SPDX-License-Identifier: GPL-2.0-only
//! The report's machine-readable files: Pantheon's `perf.json` in each run's
//! directory, `summary.csv` (one row per configuration and trace) and
//! `summary.json` (every run, configuration and the normalised table).
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use serde::Serialize;

use crate::layout::{self, Run, Skipped};
use crate::summary::{ConfigSummary, Normalised, METRICS};
use crate::write;

/// Pantheon's per-run summary: throughput (Mbit/s), 95th-percentile one-way
/// delay (ms) and loss rate, keyed by scheme.
pub(crate) fn write_perf_json(run: &Run) -> Result<PathBuf> {
    let m = &run.analysis.aggregate;
    let perf = serde_json::json!({
        run.info.id.scheme.clone(): { "tput": m.throughput_mbps, "delay": m.p95_delay_ms, "loss": m.loss_rate }
    });
    let path = run.dir.join(layout::PERF_JSON);
    write(&path, &(serde_json::to_string_pretty(&perf)? + "\n"))?;
    Ok(path)
}

#[derive(Serialize)]
pub(crate) struct SummaryJson<'a> {
    pub reference_scheme: &'a str,
    pub runs: Vec<RunSummary<'a>>,
    pub configs: &'a [ConfigSummary],
    pub normalised: &'a Normalised,
    pub skipped: &'a [Skipped],
}

#[derive(Serialize)]
pub(crate) struct RunSummary<'a> {
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
    pub(crate) fn of(run: &'a Run, bench_dir: &Path) -> Self {
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

pub(crate) fn relative(path: &Path, base: &Path) -> String {
    let rel = path.strip_prefix(base).unwrap_or(path);
    if rel.as_os_str().is_empty() {
        ".".into()
    } else {
        rel.display().to_string()
    }
}

/// One row per configuration and trace: repetitions' means, then the mean
/// flow completion time of each sized flow.
pub(crate) fn write_summary_csv(path: &Path, summaries: &[ConfigSummary]) -> Result<()> {
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
