// SPDX-License-Identifier: GPL-2.0-only
//! Numbers as the report's tables print them, and the tables themselves.
use crate::document::Block;
use crate::figures::ShareRow;
use crate::summary::{metric, ConfigSummary, Normalised, NORMALISED};

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

/// A configuration's metric in a table: the repetitions' mean, and where
/// there are several their range, `12.3 (11.8–13.0)`.
pub(crate) fn cell_with_spread(key: &str, s: &ConfigSummary) -> String {
    let mean = cell(key, s.means.get(key).copied().flatten());
    match s.spread(key) {
        Some((lo, hi)) if s.reps > 1 => {
            format!("{mean} ({}–{})", cell(key, Some(lo)), cell(key, Some(hi)))
        }
        _ => mean,
    }
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

/// Per configuration and flow: its throughput over the measurement window,
/// its share of the flows' total, and the configuration's Jain's index.
pub(crate) fn shares_table(rows: &[ShareRow]) -> Block {
    let header = vec![
        "Trace".to_string(),
        "Scheme".to_string(),
        "Flow".to_string(),
        "Window from (s)".to_string(),
        metric("throughput_mbps").header(),
        "Share (%)".to_string(),
        metric("jain_fairness").header(),
    ];
    let rows = rows
        .iter()
        .map(|r| {
            vec![
                r.trace.clone(),
                r.config.name(),
                r.flow.clone(),
                r.window_start_s.map_or("–".into(), number),
                cell("throughput_mbps", r.throughput_mbps),
                r.share.map_or("–".into(), |s| format!("{:.1}", s * 100.0)),
                cell("jain_fairness", r.jain_fairness),
            ]
        })
        .collect();
    Block::Table { header, rows }
}
