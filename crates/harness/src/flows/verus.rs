// SPDX-License-Identifier: GPL-2.0-only
//! `verus` flows: `c2tcp verus-recv` in the receiver's namespace and a
//! saturating `c2tcp verus-send` in the sender's, as child processes of this
//! binary: the pair `udp_endpoints` runs, as for Sprout.
//! Both use the flow's port (the sender through `--bind`), so the analysis
//! finds its data and its acks; each writes a JSON report into the run
//! directory, read back into the types that wrote it
//! (`verus::net::{SenderReport, ReceiverReport}`).
use anyhow::Result;
use serde::Serialize;
use verus::net::{ReceiverReport, SenderReport};

use super::udp_endpoints::{self, note_error, Pair};
use super::{FlowOutcome, FlowPlan, RunCtx, RunningFlow};

/// What the Verus endpoints reported beyond bytes (`flows.json`).
#[derive(Debug, Clone, Default, Serialize)]
pub struct VerusOutcome {
    pub packets_sent: u64,
    pub packets_received: u64,
    /// Declared lost by the sender (missing for 150 ms); Verus never retransmits.
    pub losses: u64,
    pub loss_phases: u64,
    pub timeouts: u64,
    pub slow_start_exits: u64,
    pub slow_start_restarts: u64,
    pub epochs: u64,
    pub profile_refits: u64,
    pub malformed_dropped: u64,
    /// The sender's smallest RTT and final target delay, ms.
    pub min_rtt_ms: f64,
    pub final_target_delay_ms: f64,
    /// Send-to-receive delay the receiver measured (propagation included).
    pub one_way_delay_p95_ms: f64,
    pub sender_ended_by: String,
    pub receiver_ended_by: String,
}

struct Verus {
    outcome: FlowOutcome,
    pair: Pair,
}

pub fn start(ctx: &RunCtx<'_>, plan: FlowPlan<'_>) -> Result<Box<dyn RunningFlow>> {
    let c = udp_endpoints::commands(ctx, &plan, "verus")?;
    let pair = Pair::start(c, &plan)?;
    Ok(Box::new(Verus {
        outcome: plan.outcome,
        pair,
    }))
}

impl RunningFlow for Verus {
    fn finish(self: Box<Self>) -> FlowOutcome {
        let Verus { mut outcome, pair } = *self;
        let (tx, rx) = pair.finish::<SenderReport, ReceiverReport>();
        note_error(&mut outcome, &tx, &rx);
        let mut v = VerusOutcome::default();
        if let Ok(tx) = &tx {
            outcome.bytes_sent = tx.bytes_sent;
            let c = &tx.counters;
            v.packets_sent = tx.packets_sent;
            v.losses = c.losses;
            v.loss_phases = c.loss_phases;
            v.timeouts = c.timeouts;
            v.slow_start_exits = c.slow_start_exits;
            v.slow_start_restarts = c.slow_start_restarts;
            v.epochs = c.epochs;
            v.profile_refits = c.refits;
            v.min_rtt_ms = tx.min_rtt_ms;
            v.final_target_delay_ms = tx.final_target_delay_ms;
            v.malformed_dropped = tx.malformed_dropped;
            v.sender_ended_by = tx.ended_by.name().to_string();
        }
        if let Ok(rx) = &rx {
            outcome.bytes_received = rx.bytes_received;
            v.packets_received = rx.packets_received;
            v.malformed_dropped += rx.malformed_dropped;
            v.one_way_delay_p95_ms = rx.one_way_delay_ms.p95;
            v.receiver_ended_by = rx.ended_by.name().to_string();
        }
        outcome.verus = Some(v);
        outcome
    }

    fn abort(&mut self) {
        self.pair.abort();
    }
}
