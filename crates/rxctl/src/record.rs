// SPDX-License-Identifier: GPL-2.0-only
//! What the controller did, per flow: one row per control decision (rwnd,
//! RTTs, γ and backlog for DFCSD, cwnd_est for DRWA, backlog and mark
//! probability for RTAC), written as one CSV for
//! all flows of a run (`rxctl.csv` in a run directory).
use std::io::Write;
use std::path::Path;

use anyhow::{Context, Result};
use serde::Serialize;

use crate::flow::Decision;

/// One decision, with what the socket showed at that moment.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Row {
    /// Seconds since the config's epoch.
    pub t_s: f64,
    /// The window after the decision: what TCP_WINDOW_CLAMP is set to.
    pub rwnd_bytes: u32,
    /// The window the socket actually advertised last (`tcpi_rcv_wnd`): it
    /// trails a lowered clamp by up to one RTT, as Linux never retracts.
    pub rcv_wnd_bytes: u32,
    pub rtt_ms: f64,
    pub base_rtt_ms: f64,
    /// The kernel's timestamp-based estimate, for comparison.
    pub kernel_rcv_rtt_ms: f64,
    pub gamma_pkts: Option<f64>,
    pub backlog_pkts: Option<f64>,
    /// +1 grow, 0 hold, -1 shrink.
    pub step: i8,
    pub cwnd_est_bytes: Option<u64>,
    pub bytes_received: u64,
    /// How often Linux had written its own clamp over ours so far.
    pub kernel_overrides: u32,
    /// RTAC's mark probability (after the older columns; then the flow's RTT source).
    pub mark_p: Option<f64>,
}

impl Row {
    pub fn new(
        d: &Decision,
        t_s: f64,
        rcv_wnd: u32,
        kernel_rcv_rtt_us: u32,
        bytes: u64,
        overrides: u32,
    ) -> Row {
        Row {
            t_s,
            rwnd_bytes: d.rwnd,
            rcv_wnd_bytes: rcv_wnd,
            rtt_ms: d.rtt_us as f64 / 1e3,
            base_rtt_ms: d.base_rtt_us as f64 / 1e3,
            kernel_rcv_rtt_ms: kernel_rcv_rtt_us as f64 / 1e3,
            gamma_pkts: d.gamma,
            backlog_pkts: d.backlog,
            step: d.step,
            cwnd_est_bytes: d.cwnd_est,
            bytes_received: bytes,
            kernel_overrides: overrides,
            mark_p: d.mark_p,
        }
    }
}

/// Everything recorded for one flow.
#[derive(Debug, Clone, Serialize)]
pub struct FlowRecord {
    pub id: u64,
    pub label: String,
    pub rule: &'static str,
    pub registered_at_s: f64,
    /// When the flow was unregistered, or found closed by its peer.
    pub retired_at_s: Option<f64>,
    pub bytes_received: u64,
    pub kernel_overrides: u32,
    /// Where this flow's RTT came from ([`crate::RttSource::name`]): the
    /// timestamp echo, or the window span it falls back to.
    pub rtt_source: &'static str,
    pub rows: Vec<Row>,
}

/// The CSV's columns: the flow, then [`Row`]'s fields.
pub const CSV_HEADER: [&str; 17] = [
    "flow",
    "label",
    "rule",
    "t_s",
    "rwnd_bytes",
    "rcv_wnd_bytes",
    "rtt_ms",
    "base_rtt_ms",
    "kernel_rcv_rtt_ms",
    "gamma_pkts",
    "backlog_pkts",
    "step",
    "cwnd_est_bytes",
    "bytes_received",
    "kernel_overrides",
    "mark_p",
    "rtt_source",
];

/// Writes every flow's rows as one CSV (header always), by flow then time.
/// Empty cells: what another rule records (γ for DRWA and RTAC, backlog for
/// DRWA, cwnd_est for DFCSD and RTAC, mark_p for all but RTAC).
pub fn write_csv(records: &[FlowRecord], out: impl Write) -> Result<()> {
    let mut w = csv::WriterBuilder::new()
        .has_headers(false)
        .from_writer(out);
    w.write_record(CSV_HEADER)?;
    for r in records {
        for row in &r.rows {
            // Row's fields, in CSV_HEADER's order, between the flow's.
            w.serialize((r.id, &r.label, r.rule, row, r.rtt_source))?;
        }
    }
    w.flush()?;
    Ok(())
}

/// Writes `path` whole (`wholefile`): a run's result file or none.
pub fn write_csv_file(records: &[FlowRecord], path: &Path) -> Result<()> {
    wholefile::write_with(path, |f| write_csv(records, f))
        .with_context(|| format!("writing {}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csv_has_one_line_per_decision_and_blank_cells_for_the_other_rule() {
        let d = Decision {
            t_us: 1_500_000,
            rwnd: 14_480,
            rtt_us: 40_000,
            base_rtt_us: 20_000,
            gamma: Some(10.0),
            backlog: Some(5.0),
            step: 1,
            cwnd_est: None,
            mark_p: None,
        };
        let rec = FlowRecord {
            id: 3,
            label: "short".into(),
            rule: "dfcsd",
            registered_at_s: 1.0,
            retired_at_s: None,
            bytes_received: 9,
            kernel_overrides: 0,
            rtt_source: "timestamp_echo",
            rows: vec![Row::new(&d, 1.5, 13_000, 21_000, 9, 0); 2],
        };
        let mut out = Vec::new();
        write_csv(&[rec], &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 3, "{text}");
        assert_eq!(lines[0], CSV_HEADER.join(","));
        assert_eq!(
            lines[1],
            "3,short,dfcsd,1.5,14480,13000,40.0,20.0,21.0,10.0,5.0,1,,9,0,,timestamp_echo"
        );
        // No flows: still a header.
        let mut empty = Vec::new();
        write_csv(&[], &mut empty).unwrap();
        assert_eq!(
            String::from_utf8(empty).unwrap().trim_end(),
            CSV_HEADER.join(",")
        );
    }
}
