// SPDX-License-Identifier: GPL-2.0-only
//! `sprout` / `sprout-ewma` flows: `c2tcp sprout-recv` in the receiver's
//! namespace and a saturating `c2tcp sprout-send` in the sender's, as child
//! processes of this binary. Both use the flow's port (the sender through
//! `--bind`), so the analysis finds its data and its feedback; each writes
//! a JSON report into the run directory, read back when the flow ends into
//! the same types that wrote it (`sprout::net::{SenderReport,
//! ReceiverReport}`), so a renamed field is a compile error here.
//!
//! The pair of processes — started, waited for, stopped, their reports
//! read — is `udp_endpoints`'s, shared with the `verus` driver; here are
//! Sprout's own options and what its reports add to the flow's outcome.
use anyhow::{bail, Result};

use crate::scheme::params::FlowParams;
use serde::Serialize;
use sprout::net::{ReceiverReport, SenderReport};
use sprout::Variant;

use super::udp_endpoints::{self, note_error, Pair};
use super::{FlowOutcome, FlowPlan, RunCtx, RunningFlow};

/// What the Sprout endpoints reported beyond bytes (`flows.json`).
#[derive(Debug, Clone, Default, Serialize)]
pub struct SproutOutcome {
    /// sprout | sprout-ewma
    pub variant: String,
    /// The forecast's percentile (Sprout only).
    pub confidence_percent: Option<f64>,
    pub max_rate_pps: Option<f64>,
    pub packets_sent: u64,
    pub packets_received: u64,
    /// Written off by the receiver (throwaway numbers); Sprout never retransmits.
    pub packets_lost: u64,
    pub malformed_dropped: u64,
    pub feedback_sent: u64,
    /// Receiver thread CPU time of evolve + observe + forecast, per 20-ms tick.
    pub inference_ticks: u64,
    pub inference_cpu_mean_us: f64,
    pub inference_cpu_p99_us: f64,
    /// Send-to-receive delay the receiver measured (propagation included).
    pub one_way_delay_p95_ms: f64,
    pub sender_ended_by: String,
    pub receiver_ended_by: String,
}

struct Sprout {
    outcome: FlowOutcome,
    pair: Pair,
}

pub fn start(ctx: &RunCtx<'_>, plan: FlowPlan<'_>, variant: &str) -> Result<Box<dyn RunningFlow>> {
    let FlowParams::Sprout(p) = plan.params else {
        bail!("flow {}: not a Sprout scheme", plan.index);
    };
    let mut c = udp_endpoints::commands(ctx, &plan, "sprout")?;
    c.recv.args(["--variant", variant]);
    if let Some(conf) = p.confidence {
        c.recv.args(["--confidence", &conf.to_string()]);
    }
    if let Some(m) = p.max_rate_mbps {
        c.recv.args(["--max-rate-mbps", &m.to_string()]);
    }
    c.send.args(["--variant", variant]);
    if p.authors_sender {
        c.send.arg("--authors-sender");
    } else if p.paper_window {
        c.send.arg("--paper-window");
    }
    let pair = Pair::start(c, &plan)?;
    Ok(Box::new(Sprout {
        outcome: plan.outcome,
        pair,
    }))
}

impl RunningFlow for Sprout {
    fn finish(self: Box<Self>) -> FlowOutcome {
        let Sprout { mut outcome, pair } = *self;
        let (tx, rx) = pair.finish::<SenderReport, ReceiverReport>();
        note_error(&mut outcome, &tx, &rx);
        let mut s = SproutOutcome::default();
        if let Ok(tx) = &tx {
            outcome.bytes_sent = tx.bytes_sent;
            s.packets_sent = tx.packets_sent;
            s.sender_ended_by = tx.ended_by.name().to_string();
        }
        if let Ok(rx) = &rx {
            outcome.bytes_received = rx.bytes_received;
            s.variant = rx.variant.name().to_string();
            if rx.variant == Variant::Sprout {
                s.confidence_percent = Some(rx.confidence_percent);
                s.max_rate_pps = Some(rx.max_rate_pps);
            }
            s.packets_received = rx.packets_received;
            s.packets_lost = rx.packets_lost;
            s.malformed_dropped = rx.malformed_dropped;
            s.feedback_sent = rx.feedback_sent;
            let cpu = &rx.inference_cpu_per_tick;
            s.inference_ticks = cpu.ticks;
            s.inference_cpu_mean_us = cpu.mean_ns / 1e3;
            s.inference_cpu_p99_us = cpu.p99_ns as f64 / 1e3;
            s.one_way_delay_p95_ms = rx.one_way_delay_ms.p95;
            s.receiver_ended_by = rx.ended_by.name().to_string();
        }
        outcome.sprout = Some(s);
        outcome
    }

    fn abort(&mut self) {
        self.pair.abort();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::flows::udp_endpoints::read_report;

    /// A report as `c2tcp sprout-send --stats` writes it (sprout::net's
    /// type, through serde_json::Value, pretty) reads back whole; one whose
    /// field went missing is an error naming the file, not a silent 0.
    #[test]
    fn reports_read_back_through_the_types_that_wrote_them() {
        use sprout::net::{EndedBy, Role};
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("sprout-flow0-sender.json");
        let report = SenderReport {
            role: Role::Sender,
            variant: Variant::SproutEwma,
            connect: "100.64.0.2:6000".into(),
            local: "100.64.0.1:6000".into(),
            session: 7,
            packet_size: 1472,
            rtt_lookahead: true,
            drain: sprout::sender::Drain::Paper,
            min_rtt_ms: 20.5,
            duration_s: 10.0,
            ended_by: EndedBy::Duration,
            bytes_sent: 123_456,
            packets_sent: 84,
            bytes_delivered: 120_000,
            throughput_mbps: 0.1,
            malformed_dropped: 0,
            dropped: Default::default(),
            unexpected_kind: 0,
            send_errors: 0,
            counters: Default::default(),
        };
        let value = serde_json::to_value(&report).unwrap();
        assert_eq!(value["ended_by"], "duration");
        assert_eq!(value["role"], "sender");
        assert_eq!(value["variant"], "sprout-ewma");
        std::fs::write(&path, serde_json::to_string_pretty(&value).unwrap()).unwrap();
        let back: SenderReport = read_report("sprout-send", &path).unwrap();
        assert_eq!(serde_json::to_value(&back).unwrap(), value);

        let mut renamed = value.clone();
        let bytes = renamed
            .as_object_mut()
            .unwrap()
            .remove("bytes_sent")
            .unwrap();
        renamed["bytes_out"] = bytes;
        std::fs::write(&path, renamed.to_string()).unwrap();
        let e = read_report::<SenderReport>("sprout-send", &path).unwrap_err();
        let e = format!("{e:#}");
        assert!(
            e.contains("sprout-flow0-sender.json") && e.contains("bytes_sent"),
            "{e}"
        );
    }
}
