// SPDX-License-Identifier: GPL-2.0-only
//! Starting and finishing the flows of a run: one driver per kind of scheme,
//! each in its own module, all behind [`RunningFlow`].
//!
//! - `own`: our traffic generator, as threads that entered the sender's and
//!   the receiver's namespaces (kernel and BPF congestion controls, AQM
//!   schemes);
//! - `iperf3`: the real iperf3 as child processes inside them;
//! - `sprout`: `c2tcp sprout-recv` / `sprout-send` (UDP) as child processes.
//! - `verus`: `c2tcp verus-recv` / `verus-send` (UDP) the same way;
//! - `webrtc_gcc`: `webrtc-gcc recv` / `send` (pion's GCC over RTP/UDP,
//!   tools/webrtc-gcc) the same way;
//! - `udp_endpoints`: the pair of UDP endpoint processes all three run.
//! - `rxside`: `own` flows whose receivers the run's receiver-side
//!   controller drives (DFCSD, DRWA).
//! - `command`: a `command` scheme file's receiver and sender command
//!   lines as child processes (docs/schemes.md).
//!
//! Either way a flow ends with a [`FlowOutcome`]: what the endpoints saw
//! (bytes, completion time, retransmissions, TCP_INFO samples, Sprout's
//! reports). Packet-level
//! delays come from the emulator's logs, not from here.
use std::net::Ipv4Addr;
use std::path::Path;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::Result;
use netns::Netns;
use serde::Serialize;

use crate::plan::FlowSetup;
use crate::scenario::{Direction, Flow};
use crate::scheme::params::FlowParams;
use crate::scheme::{Kind, Scheme};
use crate::traffic;

mod command;
mod iperf3;
mod netassisted;
mod own;
mod rxside;
mod sprout;
mod udp_endpoints;
mod verus;
mod webrtc_gcc;

pub use sprout::SproutOutcome;
pub use verus::VerusOutcome;
pub use webrtc_gcc::WebrtcGccOutcome;

/// Parses the text of a UDP endpoint's JSON report as its flow reads it:
/// `program` one of `sprout`, `verus`, `webrtc-gcc`, the sender's report
/// when `sender`. The fuzz target's entry (fuzz/, docs/fuzzing.md).
pub fn parse_endpoint_report(program: &str, sender: bool, text: &str) -> anyhow::Result<()> {
    use udp_endpoints::parse_report;
    match (program, sender) {
        ("sprout", true) => parse_report::<::sprout::net::SenderReport>(text).map(drop),
        ("sprout", false) => parse_report::<::sprout::net::ReceiverReport>(text).map(drop),
        ("verus", true) => parse_report::<::verus::net::SenderReport>(text).map(drop),
        ("verus", false) => parse_report::<::verus::net::ReceiverReport>(text).map(drop),
        ("webrtc-gcc", true) => parse_report::<webrtc_gcc::SenderReport>(text).map(drop),
        ("webrtc-gcc", false) => parse_report::<webrtc_gcc::ReceiverReport>(text).map(drop),
        _ => anyhow::bail!("no endpoint report for `{program}`"),
    }
}

/// The first flow's port; flow i uses BASE_PORT + i.
pub const BASE_PORT: u16 = 6000;

/// Where and when a run's flows live.
pub struct RunCtx<'a> {
    pub server: &'a Netns,
    pub ue: &'a Netns,
    pub server_addr: Ipv4Addr,
    pub ue_addr: Ipv4Addr,
    pub run_start: Instant,
    pub run_end: Instant,
    /// Raised when the run's time is up or it was interrupted.
    pub stop: Arc<AtomicBool>,
    pub out: &'a Path,
    /// The `c2tcp` binary that runs helper endpoints (`sprout-recv`/`-send`).
    pub helper_exe: &'a Path,
    pub sample_every: Duration,
    /// The UE's receiver-side controller, when a flow's scheme uses one.
    pub rxctl: Option<Arc<rxctl::Controller>>,
}

/// What one flow's endpoints saw.
#[derive(Debug, Clone, Default, Serialize)]
pub struct FlowOutcome {
    pub index: usize,
    pub label: String,
    pub scheme: String,
    pub direction: String,
    pub port: u16,
    pub start_s: f64,
    pub size_bytes: Option<u64>,
    pub bytes_sent: u64,
    pub bytes_received: u64,
    /// Completion time of a sized flow: last byte received − start.
    pub fct_s: Option<f64>,
    pub retransmits: u32,
    pub bytes_retrans: u64,
    pub error: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sprout: Option<SproutOutcome>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub verus: Option<VerusOutcome>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub webrtc_gcc: Option<WebrtcGccOutcome>,
    #[serde(skip)]
    pub samples: Vec<traffic::Sample>,
}

/// A started flow.
pub trait RunningFlow {
    /// Waits for the flow to end (the run's stop flag is up or its time is
    /// over) and returns what its endpoints saw.
    fn finish(self: Box<Self>) -> FlowOutcome;
    /// Stops it early (a failed start of another flow): kills what the
    /// stop flag cannot reach, such as child processes.
    fn abort(&mut self) {}
}

/// One flow, resolved: who sends to whom, on which port, from when to when.
pub struct FlowPlan<'a> {
    pub index: usize,
    pub flow: &'a Flow,
    pub scheme: &'a Scheme,
    /// The flow's parameters, typed (resolved once by the plan).
    pub params: &'a FlowParams,
    pub port: u16,
    pub start_at: Instant,
    pub stop_at: Instant,
    pub sender_ns: &'a Netns,
    pub receiver_ns: &'a Netns,
    pub receiver_addr: Ipv4Addr,
    pub sender_addr: Ipv4Addr,
    /// The outcome so far (identity fields filled in).
    pub outcome: FlowOutcome,
}

/// Starts flow `index` of the scenario, with its scheme and typed
/// parameters as the plan resolved them.
pub fn start<'a>(
    ctx: &RunCtx<'a>,
    index: usize,
    flow: &'a Flow,
    setup: &'a FlowSetup,
) -> Result<Box<dyn RunningFlow>> {
    let port = BASE_PORT + index as u16;
    let start_at = ctx.run_start + Duration::from_secs_f64(flow.start_s);
    let stop_at = match flow.duration_s {
        Some(d) => (start_at + Duration::from_secs_f64(d)).min(ctx.run_end),
        None => ctx.run_end,
    };
    let (sender_ns, receiver_ns, sender_addr, receiver_addr) = match flow.direction {
        Direction::Downlink => (ctx.server, ctx.ue, ctx.server_addr, ctx.ue_addr),
        Direction::Uplink => (ctx.ue, ctx.server, ctx.ue_addr, ctx.server_addr),
    };
    let outcome = FlowOutcome {
        index,
        label: flow.label_or(index),
        scheme: flow.scheme.clone(),
        direction: flow.direction.to_string(),
        port,
        start_s: flow.start_s,
        size_bytes: flow.size_bytes,
        ..Default::default()
    };
    let plan = FlowPlan {
        index,
        flow,
        scheme: &setup.scheme,
        params: &setup.params,
        port,
        start_at,
        stop_at,
        sender_ns,
        receiver_ns,
        receiver_addr,
        sender_addr,
        outcome,
    };
    match &plan.scheme.kind {
        Kind::Iperf3 { cc } => {
            let cc = cc.clone();
            iperf3::start(ctx, plan, &cc)
        }
        Kind::Sprout { variant } => {
            let variant = *variant;
            sprout::start(ctx, plan, variant)
        }
        Kind::Verus => verus::start(ctx, plan),
        Kind::WebrtcGcc => webrtc_gcc::start(ctx, plan),
        Kind::Kernel { .. }
        | Kind::Bpf { .. }
        | Kind::BpfObject { .. }
        | Kind::CubicOverAqm { .. }
        | Kind::Abc
        | Kind::Prague { .. } => own::start(ctx, plan),
        Kind::Command(spec) => {
            let spec = spec.clone();
            command::start(ctx, plan, &spec)
        }
        Kind::ReceiverSide { .. } => rxside::start(ctx, plan),
        Kind::NetAssisted { cc } => {
            let cc = *cc;
            netassisted::start(ctx, plan, cc)
        }
    }
}
