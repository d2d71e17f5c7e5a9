// SPDX-License-Identifier: GPL-2.0-only
//! Numbers as the report's tables print them, and the tables themselves.
use crate::document::Block;
use crate::summary::{metric, Normalised, NORMALISED};

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

/// A metric in a table, in its unit (`MetricDef::cell`).
pub(crate) fn cell(key: &str, v: Option<f64>) -> String {
    metric(key).cell(v)
}

pub(crate) fn normalised_table(n: &Normalised) -> Block {
    // Each column is a ratio to the reference scheme's: that is its unit.
    let mut header = vec!["Scheme".to_string()];
    header.extend(
        NORMALISED
            .iter()
            .map(|k| format!("{} (× {})", metric(k).title, n.reference_scheme)),
    );
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
pub(crate) const TRACE_COLUMNS: &[&str] = &[
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
