// SPDX-License-Identifier: GPL-2.0-only
//! The files a run writes about itself beside the emulator's logs and the
//! analysis (their names are `results`'): `setup.json` (what the run
//! resolved its scenario to, and what the emulator counted), `flows.json`
//! (what each flow's endpoints saw) and `tcpinfo.csv` (the senders'
//! TCP_INFO and C2TCP_INFO samples). Each is written whole or not at all.
use std::io::Write;
use std::path::Path;

use anyhow::{Context, Result};
use serde::Serialize;

use crate::flows::FlowOutcome;
use crate::scenario::Scenario;

/// `setup.json`: what the run resolved its scenario to, and what the
/// emulator counted.
#[derive(Serialize)]
pub(crate) struct Setup<'a> {
    pub(crate) scenario: &'a Scenario,
    pub(crate) seed: u64,
    pub(crate) downlink_trace: String,
    pub(crate) uplink_trace: String,
    pub(crate) downlink_queue: String,
    pub(crate) uplink_queue: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) emulator: Option<emu::EmulatorStats>,
    /// Packets the ECT(1) tc program rewrote (runs with Prague's flows).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) ect1_rewritten: Option<u64>,
}

/// A result file, whole or not at all (`wholefile`).
pub(crate) fn write_json(path: &Path, v: &impl Serialize) -> Result<()> {
    let text = serde_json::to_string_pretty(v)? + "\n";
    wholefile::write(path, text.as_bytes()).with_context(|| format!("writing {}", path.display()))
}

/// `flows.json` (what each flow's endpoints saw) and `tcpinfo.csv`.
pub(crate) fn write_flow_files(out: &Path, outcomes: &[FlowOutcome]) -> Result<()> {
    write_json(&out.join(results::FLOWS_JSON), &outcomes)?;
    let path = out.join(results::TCPINFO_CSV);
    wholefile::write_with(&path, |f| {
        tcpinfo_rows(csv::Writer::from_writer(f), outcomes)
    })
    .with_context(|| format!("writing {}", path.display()))
}

fn tcpinfo_rows<W: Write>(
    mut w: csv::Writer<W>,
    outcomes: &[FlowOutcome],
) -> Result<(), csv::Error> {
    w.write_record([
        "flow",
        "t_s",
        "cwnd",
        "ssthresh",
        "srtt_ms",
        "min_rtt_ms",
        "retrans",
        "delivery_rate_mbps",
        "bytes_acked",
        "delivered",
        "delivered_ce",
        "accecn",
        "c2tcp_alpha",
        "c2tcp_setpoint_ms",
        "c2tcp_condition",
        "c2tcp_bad_events",
        "c2tcp_avg_rtt_ms",
        "c2tcp_skipped_samples",
    ])?;
    for o in outcomes {
        for s in &o.samples {
            let c = s.c2tcp.as_ref();
            let opt = |v: Option<String>| v.unwrap_or_default();
            w.write_record([
                o.index.to_string(),
                format!("{:.3}", s.t_s),
                s.cwnd.to_string(),
                s.ssthresh.to_string(),
                format!("{:.3}", s.srtt_us as f64 / 1000.0),
                format!("{:.3}", s.min_rtt_us as f64 / 1000.0),
                s.total_retrans.to_string(),
                format!("{:.3}", s.delivery_rate_bps as f64 / 1e6),
                s.bytes_acked.to_string(),
                s.delivered.to_string(),
                s.delivered_ce.to_string(),
                u8::from(s.accecn).to_string(),
                opt(c.map(|c| format!("{:.2}", c.alpha_pct as f64 / 100.0))),
                opt(c.map(|c| format!("{:.3}", c.setpoint_us as f64 / 1000.0))),
                opt(c.map(|c| c.condition.to_string())),
                opt(c.map(|c| c.bad_events.to_string())),
                opt(c.map(|c| format!("{:.3}", c.last_avg_rtt_us as f64 / 1000.0))),
                opt(c.map(|c| c.skipped_samples.to_string())),
            ])?;
        }
    }
    w.flush()?;
    Ok(())
}
