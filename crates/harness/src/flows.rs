//! Starting and finishing the flows of a run, one way per kind of scheme.
//!
//! Our own traffic generator runs as threads that entered the sender's and
//! the receiver's namespaces; `iperf3:<cc>` runs the real iperf3 as child
//! processes inside them. Either way a flow ends with a [`FlowOutcome`]: what
//! the endpoints saw (bytes, completion time, retransmissions, TCP_INFO
//! samples). Packet-level delays come from the emulator's logs, not from here.
use std::net::{Ipv4Addr, SocketAddrV4, TcpListener};
use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use netns::Netns;
use serde::Serialize;

use crate::scenario::{Direction, Flow};
use crate::scheme::{self, Kind};
use crate::traffic::{self, RecvReport, SendReport, SendSpec};

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
    pub stop: Arc<AtomicBool>,
    pub out: &'a Path,
    pub sample_every: Duration,
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
    #[serde(skip)]
    pub samples: Vec<traffic::Sample>,
}

pub enum RunningFlow {
    Own {
        outcome: FlowOutcome,
        sender: JoinHandle<Result<SendReport>>,
        receiver: JoinHandle<Result<RecvReport>>,
    },
    Iperf3 {
        outcome: FlowOutcome,
        server: Child,
        client: Child,
        json: PathBuf,
    },
}

fn endpoints<'a>(ctx: &'a RunCtx<'a>, dir: Direction) -> (&'a Netns, &'a Netns, Ipv4Addr) {
    match dir {
        // (sender namespace, receiver namespace, receiver address)
        Direction::Downlink => (ctx.server, ctx.ue, ctx.ue_addr),
        Direction::Uplink => (ctx.ue, ctx.server, ctx.server_addr),
    }
}

/// Starts flow `index` of the scenario.
pub fn start(ctx: &RunCtx<'_>, index: usize, flow: &Flow) -> Result<RunningFlow> {
    let sch = scheme::lookup(&flow.scheme)?;
    let port = BASE_PORT + index as u16;
    let start_at = ctx.run_start + Duration::from_secs_f64(flow.start_s);
    let stop_at = match flow.duration_s {
        Some(d) => (start_at + Duration::from_secs_f64(d)).min(ctx.run_end),
        None => ctx.run_end,
    };
    let (tx_ns, rx_ns, rx_addr) = endpoints(ctx, flow.direction);
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

    if let Kind::Iperf3 { cc } = &sch.kind {
        return start_iperf3(ctx, outcome, cc, tx_ns, rx_ns, rx_addr, start_at, stop_at, flow.size_bytes);
    }

    let listener = rx_ns
        .run(move || TcpListener::bind(SocketAddrV4::new(rx_addr, port)))?
        .with_context(|| format!("flow {index}: listening on {rx_addr}:{port}"))?;
    let spec = SendSpec {
        cc: sch.sender_cc().to_string(),
        target_us: flow.param_f64("target_ms").map(|ms| (ms * 1000.0).round() as u32),
        alpha_pct: flow.param_f64("alpha").map(|a| (a * 100.0).round() as u32),
        dst: SocketAddrV4::new(rx_addr, port),
        start_at,
        stop_at,
        size_bytes: flow.size_bytes,
        sample_every: ctx.sample_every,
    };
    let (run_start, stop_r, stop_s) = (ctx.run_start, ctx.stop.clone(), ctx.stop.clone());
    let expect = flow.size_bytes;
    let receiver = rx_ns.spawn(&format!("rx{index}"), move || {
        traffic::receive(listener, expect, stop_at, run_start, &stop_r)
    })?;
    let sender = tx_ns.spawn(&format!("tx{index}"), move || traffic::send(&spec, run_start, &stop_s))?;
    Ok(RunningFlow::Own { outcome, sender, receiver })
}

#[allow(clippy::too_many_arguments)]
fn start_iperf3(
    ctx: &RunCtx<'_>,
    outcome: FlowOutcome,
    cc: &str,
    tx_ns: &Netns,
    rx_ns: &Netns,
    rx_addr: Ipv4Addr,
    start_at: Instant,
    stop_at: Instant,
    size: Option<u64>,
) -> Result<RunningFlow> {
    let port = outcome.port.to_string();
    let json = ctx.out.join(format!("iperf3-flow{}.json", outcome.index));
    let server = rx_ns
        .command("iperf3")
        .args(["-s", "-1", "-B", &rx_addr.to_string(), "-p", &port])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .context("starting iperf3 -s (apt-get install iperf3)")?;
    // iperf3 has no start-time option: wait here (flows are started in order
    // of their start times by the runner).
    std::thread::sleep(start_at.saturating_duration_since(Instant::now()).max(Duration::from_millis(100)));
    let secs = stop_at.saturating_duration_since(Instant::now()).as_secs_f64().max(1.0);
    let mut client = tx_ns.command("iperf3");
    client.args(["-c", &rx_addr.to_string(), "-p", &port, "-C", cc, "-J", "--logfile"]).arg(&json);
    match size {
        Some(n) => client.args(["-n", &n.to_string()]),
        None => client.args(["-t", &format!("{}", secs.floor() as u64)]),
    };
    let client = client.stdout(Stdio::null()).stderr(Stdio::null()).spawn().context("starting iperf3 -c")?;
    Ok(RunningFlow::Iperf3 { outcome, server, client, json })
}

/// The moment a flow wants to start (the runner starts flows in this order).
pub fn start_time(flow: &Flow) -> f64 {
    flow.start_s
}

impl RunningFlow {
    /// Waits for the flow to end (the runner has set `stop` or its time is
    /// up) and returns what its endpoints saw.
    pub fn finish(self) -> FlowOutcome {
        match self {
            RunningFlow::Own { mut outcome, sender, receiver } => {
                let tx = sender.join().map_err(|_| anyhow::anyhow!("sender thread panicked")).and_then(|r| r);
                let rx = receiver.join().map_err(|_| anyhow::anyhow!("receiver thread panicked")).and_then(|r| r);
                match tx {
                    Ok(tx) => {
                        outcome.bytes_sent = tx.bytes_written;
                        outcome.retransmits = tx.total_retrans;
                        outcome.bytes_retrans = tx.bytes_retrans;
                        outcome.samples = tx.samples;
                        if let Some(e) = tx.error {
                            outcome.error = Some(format!("sender: {e}"));
                        }
                    }
                    Err(e) => outcome.error = Some(format!("sender: {e:#}")),
                }
                match rx {
                    Ok(rx) => {
                        outcome.bytes_received = rx.bytes;
                        outcome.fct_s = rx.completed_at_s.map(|t| t - outcome.start_s);
                        if let (Some(e), None) = (rx.error, &outcome.error) {
                            outcome.error = Some(format!("receiver: {e}"));
                        }
                    }
                    Err(e) => outcome.error = Some(format!("receiver: {e:#}")),
                }
                outcome
            }
            RunningFlow::Iperf3 { mut outcome, mut server, mut client, json } => {
                let _ = client.wait();
                let _ = server.kill();
                let _ = server.wait();
                match read_iperf3(&json) {
                    Ok((sent, received, retrans)) => {
                        outcome.bytes_sent = sent;
                        outcome.bytes_received = received;
                        outcome.retransmits = retrans;
                    }
                    Err(e) => outcome.error = Some(format!("{e:#}")),
                }
                outcome
            }
        }
    }

    /// Stops a flow early (interrupt): kills child processes; threads watch
    /// the run's stop flag themselves.
    pub fn abort(&mut self) {
        if let RunningFlow::Iperf3 { server, client, .. } = self {
            let _ = client.kill();
            let _ = server.kill();
        }
    }
}

/// (bytes sent, bytes received, retransmits) from iperf3's JSON.
fn read_iperf3(path: &Path) -> Result<(u64, u64, u32)> {
    let text = std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    let v: serde_json::Value =
        serde_json::from_str(&text).with_context(|| format!("parsing iperf3 output {}", path.display()))?;
    if let Some(e) = v.get("error").and_then(|e| e.as_str()) {
        anyhow::bail!("iperf3: {e}");
    }
    let end = &v["end"];
    let sent = end["sum_sent"]["bytes"].as_u64().unwrap_or(0);
    let received = end["sum_received"]["bytes"].as_u64().unwrap_or(0);
    let retrans = end["sum_sent"]["retransmits"].as_u64().unwrap_or(0) as u32;
    Ok((sent, received, retrans))
}
