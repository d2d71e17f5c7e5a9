// SPDX-License-Identifier: GPL-2.0-only
//! `webrtc-gcc` flows: the videoconferencing stand-in (docs/webrtc.md).
//! `webrtc-gcc recv` in the receiver's namespace and `webrtc-gcc send` in
//! the sender's, the Go program of `tools/webrtc-gcc` in which pion's
//! Google Congestion Control paces a synthetic video source and pion's
//! transport-wide CC receiver feeds it back. The pair of processes is
//! `udp_endpoints`'s, as for Sprout and Verus; the program is found beside
//! the `c2tcp` binary that runs helper endpoints (`make build` puts it
//! there), or at `$C2TCP_WEBRTC_GCC`.
//!
//! Its reports are Go's JSON, read into the mirror types below: a field
//! renamed on either side is an error naming the file, not a silent 0.
use std::path::{Path, PathBuf};

use anyhow::{bail, Result};

use crate::scheme::params::FlowParams;
use serde::{Deserialize, Serialize};

use super::udp_endpoints::{self, note_error, Pair};
use super::{FlowOutcome, FlowPlan, RunCtx, RunningFlow};

/// The program's name beside `c2tcp`, and the variable that overrides it.
pub const PROGRAM: &str = "webrtc-gcc";
pub const PROGRAM_ENV: &str = "C2TCP_WEBRTC_GCC";

/// A summary as the Go program writes it (ms or kbit/s).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Summary {
    pub count: u64,
    pub mean: f64,
    pub min: f64,
    pub p50: f64,
    pub p95: f64,
    pub max: f64,
}

/// `webrtc-gcc send --stats` (tools/webrtc-gcc/send.go's SenderReport).
#[derive(Debug, Clone, Deserialize)]
pub struct SenderReport {
    pub ended_by: String,
    pub frames_sent: u64,
    pub packets_sent: u64,
    pub bytes_sent: u64,
    pub feedback_received: u64,
    pub malformed_dropped: u64,
    pub send_errors: u64,
    pub target_kbps: Summary,
    pub final_kbps: f64,
    /// [seconds since the first frame, GCC's target kbit/s], every 100 ms.
    pub timeline: Vec<[f64; 2]>,
}

/// `webrtc-gcc recv --stats` (tools/webrtc-gcc/recv.go's ReceiverReport).
#[derive(Debug, Clone, Deserialize)]
pub struct ReceiverReport {
    pub ended_by: String,
    pub packets_received: u64,
    pub bytes_received: u64,
    pub feedback_sent: u64,
    pub malformed_dropped: u64,
    pub packets_lost: u64,
    pub one_way_delay_ms: Summary,
}

/// What the endpoints reported beyond bytes (`flows.json`).
#[derive(Debug, Clone, Default, Serialize)]
pub struct WebrtcGccOutcome {
    pub frames_sent: u64,
    pub packets_sent: u64,
    pub packets_received: u64,
    pub packets_lost: u64,
    /// Transport-wide CC reports the receiver sent and the sender read.
    pub feedback_sent: u64,
    pub feedback_received: u64,
    pub malformed_dropped: u64,
    /// Packets the socket refused (a full buffer, the receiver not up yet).
    pub send_errors: u64,
    /// GCC's target rate, sampled every 100 ms, and at the end.
    pub target_kbps: Summary,
    pub final_target_kbps: f64,
    pub target_timeline: Vec<[f64; 2]>,
    /// A frame's capture to its packets' arrival (pacing, queueing, propagation).
    pub one_way_delay_p95_ms: f64,
    pub sender_ended_by: String,
    pub receiver_ended_by: String,
}

/// The `webrtc-gcc` program: `$C2TCP_WEBRTC_GCC`, or beside `helper`.
pub fn program(helper: &Path) -> Result<PathBuf> {
    let exe = match std::env::var_os(PROGRAM_ENV) {
        Some(p) => PathBuf::from(p),
        None => helper.with_file_name(PROGRAM),
    };
    if !exe.is_file() {
        bail!(
            "the {PROGRAM} endpoints are not at {} (`make build` builds them from tools/{PROGRAM}; \
             or set {PROGRAM_ENV})",
            exe.display()
        );
    }
    Ok(exe)
}

struct WebrtcGcc {
    outcome: FlowOutcome,
    pair: Pair,
}

pub fn start(ctx: &RunCtx<'_>, plan: FlowPlan<'_>) -> Result<Box<dyn RunningFlow>> {
    let exe = program(ctx.helper_exe)?;
    let mut c = udp_endpoints::commands_of(&exe, ["recv", "send"], ctx, &plan, PROGRAM)?;
    let FlowParams::WebrtcGcc(p) = plan.params else {
        bail!("flow {}: not a webrtc-gcc scheme", plan.index);
    };
    for (value, flag) in [
        (p.initial_kbps, "--initial-kbps"),
        (p.min_kbps, "--min-kbps"),
        (p.max_kbps, "--max-kbps"),
        (p.fps, "--fps"),
    ] {
        if let Some(v) = value {
            c.send.args([flag, &v.to_string()]);
        }
    }
    let pair = Pair::start(c, &plan)?;
    Ok(Box::new(WebrtcGcc {
        outcome: plan.outcome,
        pair,
    }))
}

impl RunningFlow for WebrtcGcc {
    fn finish(self: Box<Self>) -> FlowOutcome {
        let WebrtcGcc { mut outcome, pair } = *self;
        let (tx, rx) = pair.finish::<SenderReport, ReceiverReport>();
        note_error(&mut outcome, &tx, &rx);
        let mut w = WebrtcGccOutcome::default();
        if let Ok(tx) = tx {
            outcome.bytes_sent = tx.bytes_sent;
            w.frames_sent = tx.frames_sent;
            w.packets_sent = tx.packets_sent;
            w.feedback_received = tx.feedback_received;
            w.malformed_dropped = tx.malformed_dropped;
            w.send_errors = tx.send_errors;
            // Without feedback GCC never left its start rate: the run did
            // not measure a congestion control.
            if tx.feedback_received == 0 && tx.frames_sent > 0 {
                outcome.error.get_or_insert_with(|| {
                    "webrtc-gcc send: no transport-wide CC feedback reached the sender (GCC ran open-loop)"
                        .to_string()
                });
            }
            w.target_kbps = tx.target_kbps;
            w.final_target_kbps = tx.final_kbps;
            w.target_timeline = tx.timeline;
            w.sender_ended_by = tx.ended_by;
        }
        if let Ok(rx) = rx {
            outcome.bytes_received = rx.bytes_received;
            w.packets_received = rx.packets_received;
            w.packets_lost = rx.packets_lost;
            w.feedback_sent = rx.feedback_sent;
            w.malformed_dropped += rx.malformed_dropped;
            w.one_way_delay_p95_ms = rx.one_way_delay_ms.p95;
            w.receiver_ended_by = rx.ended_by;
        }
        outcome.webrtc_gcc = Some(w);
        outcome
    }

    fn abort(&mut self) {
        self.pair.abort();
    }
}
