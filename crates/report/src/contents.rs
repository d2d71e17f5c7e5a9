// SPDX-License-Identifier: GPL-2.0-only
//! What report.md and report.html say, in order: the title and counts, the
//! normalised table, per trace its table and figures, completion times,
//! sweeps, flows' shares, the runs with their time series, and the runs
//! left out.
use std::collections::BTreeSet;
use std::path::Path;

use crate::document::{Block, Document};
use crate::draw::Figures;
use crate::figures::{Shares, SHARE_BIN_S};
use crate::files::relative;
use crate::layout::{Run, Skipped};
use crate::summary::{self, metric, ConfigSummary, Normalised};
use crate::tables::{
    cell, cell_with_spread, normalised_table, number, shares_table, TRACE_COLUMNS,
};

/// Everything the document shows.
pub(crate) struct Contents<'a> {
    pub bench_dir: &'a Path,
    pub runs: &'a [Run],
    pub skipped: &'a [Skipped],
    pub summaries: &'a [ConfigSummary],
    pub normalised: &'a Normalised,
    pub shares: Option<&'a Shares>,
    pub figures: &'a Figures,
    pub warnings: &'a [String],
}

pub(crate) fn compose(c: &Contents) -> Document {
    let Contents {
        bench_dir,
        runs,
        skipped,
        summaries,
        normalised,
        shares,
        figures,
        warnings,
    } = *c;
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
    if summaries.iter().any(|s| s.reps > 1) {
        doc.push(Block::Paragraph(
            "Each value is the mean of the repetitions; where there are several, their smallest and largest follow in brackets."
                .into(),
        ));
    }
    for trace in &traces {
        doc.push(Block::Heading(3, trace.to_string()));
        let mut header = vec!["Scheme".to_string(), "Reps".to_string()];
        header.extend(TRACE_COLUMNS.iter().map(|k| metric(k).header()));
        let rows = summaries
            .iter()
            .filter(|s| s.trace == *trace)
            .map(|s| {
                let mut row = vec![s.config.name(), s.reps.to_string()];
                row.extend(TRACE_COLUMNS.iter().map(|k| cell_with_spread(k, s)));
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
        for (param, drawn) in &figures.sweeps {
            doc.push(Block::Heading(3, param.clone()));
            for (caption, path) in drawn {
                doc.push(Block::Paragraph(format!("{caption}:")));
                doc.push(Block::Image(path.clone(), caption.clone()));
            }
        }
    }

    if let Some(shares) = shares {
        doc.push(Block::Heading(2, "Flows sharing the link".into()));
        doc.push(Block::Paragraph(format!(
            "Each flow's throughput over the measurement window and its share of the flows' total, \
             with Jain's index of those throughputs (C2TCP paper Fig. 18-19: from the second flow's start); \
             the figure shows each flow's throughput in {SHARE_BIN_S:.0} s bins over the whole run, \
             the window starting at the grey line. Flows are told apart by the runner's flow records \
             in the emulator's log."
        )));
        doc.push(shares_table(&shares.rows));
        if let Some(path) = &figures.shares {
            doc.push(Block::Image(path.clone(), shares.figure.caption.clone()));
        }
    }

    doc.push(Block::Heading(2, "Runs".into()));
    let header = ["Trace", "Scheme", "Rep"]
        .map(String::from)
        .into_iter()
        .chain(
            [
                "throughput_mbps",
                "avg_queue_delay_ms",
                "p95_queue_delay_ms",
            ]
            .map(|k| metric(k).header()),
        )
        .chain(["Directory".to_string()])
        .collect();
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
