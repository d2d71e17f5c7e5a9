// SPDX-License-Identifier: GPL-2.0-only
//! `verus` flows: `c2tcp verus-recv` in the receiver's namespace and a
//! saturating `c2tcp verus-send` in the sender's, as child processes of this
//! binary, run as the `sprout` driver runs Sprout's (its process helpers).
//! Both use the flow's port (the sender through `--bind`), so the analysis
//! finds its data and its acks; each writes a JSON report into the run
//! directory, read back into the types that wrote it
//! (`verus::net::{SenderReport, ReceiverReport}`).
use std::path::PathBuf;
use std::process::Child;
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use serde::Serialize;
use verus::net::{ReceiverReport, SenderReport};

use super::sprout::{end_of, spawn, terminate, wait_bound};
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
    sender: Child,
    receiver: Child,
    send_stats: PathBuf,
    recv_stats: PathBuf,
    stop_at: Instant,
}

pub fn start(ctx: &RunCtx<'_>, plan: FlowPlan<'_>) -> Result<Box<dyn RunningFlow>> {
    let exe = std::env::current_exe().context("finding the c2tcp binary for verus-recv/-send")?;
    let exe = exe.to_str().context("non-UTF-8 path of the c2tcp binary")?;
    let rx = format!("{}:{}", plan.receiver_addr, plan.port);
    let tx = format!("{}:{}", plan.sender_addr, plan.port);
    let recv_stats = ctx
        .out
        .join(format!("verus-flow{}-receiver.json", plan.index));
    let send_stats = ctx
        .out
        .join(format!("verus-flow{}-sender.json", plan.index));
    let start_in = plan
        .start_at
        .saturating_duration_since(Instant::now())
        .as_secs_f64();
    let duration = plan
        .stop_at
        .saturating_duration_since(plan.start_at)
        .as_secs_f64()
        .max(0.001);

    let mut recv = plan.receiver_ns.command(exe);
    recv.args(["verus-recv", "--listen", &rx])
        // Outages can silence the link for seconds: only the runner ends it.
        .args(["--idle-timeout", &format!("{}", start_in + duration + 30.0)])
        .arg("--stats")
        .arg(&recv_stats);
    let mut receiver = spawn(&mut recv, "verus-recv")?;
    if let Err(e) = wait_bound(&mut receiver, plan.port) {
        let _ = receiver.kill();
        let _ = receiver.wait();
        return Err(e.context(format!("flow {}: verus-recv on {rx}", plan.index)));
    }

    let mut send = plan.sender_ns.command(exe);
    send.args(["verus-send", "--connect", &rx, "--bind", &tx])
        .args([
            "--duration",
            &format!("{duration:.3}"),
            "--start-in",
            &format!("{start_in:.3}"),
        ])
        .arg("--stats")
        .arg(&send_stats);
    let sender = match spawn(&mut send, "verus-send") {
        Ok(s) => s,
        Err(e) => {
            terminate(&receiver);
            let _ = receiver.wait();
            return Err(e);
        }
    };
    Ok(Box::new(Verus {
        outcome: plan.outcome,
        sender,
        receiver,
        send_stats,
        recv_stats,
        stop_at: plan.stop_at,
    }))
}

impl RunningFlow for Verus {
    fn finish(self: Box<Self>) -> FlowOutcome {
        let Verus {
            mut outcome,
            mut sender,
            mut receiver,
            send_stats,
            recv_stats,
            stop_at,
        } = *self;
        // The sender stops itself at stop_at; called earlier, the run was
        // interrupted (or another flow failed to start).
        let now = Instant::now();
        if now + Duration::from_millis(100) < stop_at {
            terminate(&sender);
        }
        let tx = end_of::<SenderReport>(
            "verus-send",
            &mut sender,
            stop_at.max(now) + Duration::from_secs(2),
            &send_stats,
        );
        // The receiver ends on the sender's bye, which crosses the emulated
        // queue; if the bye was lost it is asked to stop.
        let rx = end_of::<ReceiverReport>(
            "verus-recv",
            &mut receiver,
            Instant::now() + Duration::from_secs(3),
            &recv_stats,
        );
        let mut v = VerusOutcome::default();
        match &tx {
            Ok(tx) => {
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
            Err(e) => outcome.error = Some(format!("{e:#}")),
        }
        match &rx {
            Ok(rx) => {
                outcome.bytes_received = rx.bytes_received;
                v.packets_received = rx.packets_received;
                v.malformed_dropped += rx.malformed_dropped;
                v.one_way_delay_p95_ms = rx.one_way_delay_ms.p95;
                v.receiver_ended_by = rx.ended_by.name().to_string();
            }
            Err(e) if outcome.error.is_none() => outcome.error = Some(format!("{e:#}")),
            Err(_) => {}
        }
        outcome.verus = Some(v);
        outcome
    }

    fn abort(&mut self) {
        terminate(&self.sender);
        terminate(&self.receiver);
    }
}
