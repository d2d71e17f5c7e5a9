// SPDX-License-Identifier: GPL-2.0-only
//! `sprout` / `sprout-ewma` flows: `c2tcp sprout-recv` in the receiver's
//! namespace and a saturating `c2tcp sprout-send` in the sender's, as child
//! processes of this binary. Both use the flow's port (the sender through
//! `--bind`), so the analysis finds its data and its feedback; each writes
//! a JSON report into the run directory, read back when the flow ends into
//! the same types that wrote it (`sprout::net::{SenderReport,
//! ReceiverReport}`), so a renamed field is a compile error here.
//!
//! The process helpers (spawn, wait until bound, stop, read the report) are
//! shared with the `verus` driver.
//!
//! The children are spawned from the runner's thread with
//! `Netns::command`, so they die with this process; a normal end or an
//! interrupt stops them with SIGTERM, on which they still write their reports.
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use serde::de::DeserializeOwned;
use serde::Serialize;
use sprout::net::{ReceiverReport, SenderReport};
use sprout::Variant;

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
    sender: Child,
    receiver: Child,
    send_stats: PathBuf,
    recv_stats: PathBuf,
    stop_at: Instant,
}

pub fn start(ctx: &RunCtx<'_>, plan: FlowPlan<'_>, variant: &str) -> Result<Box<dyn RunningFlow>> {
    let exe = std::env::current_exe().context("finding the c2tcp binary for sprout-recv/-send")?;
    let exe = exe.to_str().context("non-UTF-8 path of the c2tcp binary")?;
    let rx = format!("{}:{}", plan.receiver_addr, plan.port);
    let tx = format!("{}:{}", plan.sender_addr, plan.port);
    let recv_stats = ctx
        .out
        .join(format!("sprout-flow{}-receiver.json", plan.index));
    let send_stats = ctx
        .out
        .join(format!("sprout-flow{}-sender.json", plan.index));
    let now = Instant::now();
    let start_in = plan.start_at.saturating_duration_since(now).as_secs_f64();
    let duration = plan
        .stop_at
        .saturating_duration_since(plan.start_at)
        .as_secs_f64()
        .max(0.001);

    let mut recv = plan.receiver_ns.command(exe);
    recv.args(["sprout-recv", "--listen", &rx, "--variant", variant]);
    if let Some(c) = plan.flow.param_f64("confidence") {
        recv.args(["--confidence", &c.to_string()]);
    }
    if let Some(m) = plan.flow.param_f64("max_rate_mbps") {
        recv.args(["--max-rate-mbps", &m.to_string()]);
    }
    // Outages can silence the link for seconds: only the runner ends it.
    recv.args(["--idle-timeout", &format!("{}", start_in + duration + 30.0)])
        .arg("--stats")
        .arg(&recv_stats);
    let mut receiver = spawn(&mut recv, "sprout-recv")?;
    if let Err(e) = wait_bound(&mut receiver, plan.port) {
        let _ = receiver.kill();
        let _ = receiver.wait();
        return Err(e.context(format!("flow {}: sprout-recv on {rx}", plan.index)));
    }

    let mut send = plan.sender_ns.command(exe);
    send.args([
        "sprout-send",
        "--connect",
        &rx,
        "--bind",
        &tx,
        "--variant",
        variant,
    ])
    .args([
        "--duration",
        &format!("{duration:.3}"),
        "--start-in",
        &format!("{start_in:.3}"),
    ])
    .arg("--stats")
    .arg(&send_stats);
    if plan.flow.param_f64("rtt_lookahead") == Some(0.0) {
        send.arg("--paper-window");
    }
    let sender = match spawn(&mut send, "sprout-send") {
        Ok(s) => s,
        Err(e) => {
            terminate(&receiver);
            let _ = receiver.wait();
            return Err(e);
        }
    };
    Ok(Box::new(Sprout {
        outcome: plan.outcome,
        sender,
        receiver,
        send_stats,
        recv_stats,
        stop_at: plan.stop_at,
    }))
}

pub(super) fn spawn(cmd: &mut Command, what: &str) -> Result<Child> {
    cmd.stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .with_context(|| format!("starting {what}"))
}

/// Waits until the receiver's socket is bound, so the sender's first flight
/// is not refused: its port shows in the receiver's own namespace's UDP table.
pub(super) fn wait_bound(child: &mut Child, port: u16) -> Result<()> {
    let table = format!("/proc/{}/net/udp", child.id());
    let needle = format!(":{port:04X} ");
    let t = Instant::now();
    loop {
        if let Some(status) = child.try_wait()? {
            bail!("exited with {status} before binding: {}", stderr_of(child));
        }
        if std::fs::read_to_string(&table)
            .unwrap_or_default()
            .lines()
            .any(|l| local_address(l).contains(&needle))
        {
            return Ok(());
        }
        if t.elapsed() > Duration::from_secs(20) {
            bail!("not bound after 20 s");
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// The `local_address` column of a /proc/net/udp line, with a trailing space.
fn local_address(line: &str) -> String {
    line.split_whitespace()
        .nth(1)
        .map(|a| format!("{a} "))
        .unwrap_or_default()
}

pub(super) fn terminate(child: &Child) {
    plumbing::process::terminate(child);
}

/// Waits for `child` until `deadline`, then asks it to stop (SIGTERM: it
/// writes its report), and kills it if it does not within 5 s.
fn wait_or_stop(child: &mut Child, deadline: Instant) -> Result<ExitStatus> {
    let mut asked = false;
    let mut deadline = deadline;
    loop {
        if let Some(status) = child.try_wait()? {
            return Ok(status);
        }
        if Instant::now() >= deadline {
            if asked {
                let _ = child.kill();
                bail!("did not stop on SIGTERM; killed");
            }
            terminate(child);
            asked = true;
            deadline = Instant::now() + Duration::from_secs(5);
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

fn stderr_of(child: &mut Child) -> String {
    let mut s = String::new();
    if let Some(mut e) = child.stderr.take() {
        let _ = e.read_to_string(&mut s);
    }
    s.trim().to_string()
}

/// One endpoint's end: its exit and its report.
pub(super) fn end_of<R: DeserializeOwned>(
    what: &str,
    child: &mut Child,
    deadline: Instant,
    stats: &Path,
) -> Result<R> {
    let status = wait_or_stop(child, deadline).with_context(|| what.to_string())?;
    if !status.success() {
        bail!("{what} exited with {status}: {}", stderr_of(child));
    }
    read_report(what, stats)
}

/// A report file, parsed into the type that wrote it.
pub(super) fn read_report<R: DeserializeOwned>(what: &str, stats: &Path) -> Result<R> {
    let text = std::fs::read_to_string(stats)
        .with_context(|| format!("{what}: reading {}", stats.display()))?;
    serde_json::from_str(&text).with_context(|| format!("{what}: parsing {}", stats.display()))
}

impl RunningFlow for Sprout {
    fn finish(self: Box<Self>) -> FlowOutcome {
        let Sprout {
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
            "sprout-send",
            &mut sender,
            stop_at.max(now) + Duration::from_secs(2),
            &send_stats,
        );
        // The receiver ends on the sender's bye, which crosses the emulated
        // queue; if the bye was lost it is asked to stop.
        let rx = end_of::<ReceiverReport>(
            "sprout-recv",
            &mut receiver,
            Instant::now() + Duration::from_secs(3),
            &recv_stats,
        );
        let mut s = SproutOutcome::default();
        match &tx {
            Ok(tx) => {
                outcome.bytes_sent = tx.bytes_sent;
                s.packets_sent = tx.packets_sent;
                s.sender_ended_by = tx.ended_by.name().to_string();
            }
            Err(e) => outcome.error = Some(format!("{e:#}")),
        }
        match &rx {
            Ok(rx) => {
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
            Err(e) if outcome.error.is_none() => outcome.error = Some(format!("{e:#}")),
            Err(_) => {}
        }
        outcome.sprout = Some(s);
        outcome
    }

    fn abort(&mut self) {
        terminate(&self.sender);
        terminate(&self.receiver);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_local_address_column_is_matched_not_the_remote_one() {
        let bound = "  12: 0200000A:1770 00000000:0000 07 00000000:00000000 00:00000000 00000000     0        0 1 2 0";
        let remote = "  13: 0100000A:9C40 0200000A:1770 01 00000000:00000000 00:00000000 00000000     0        0 1 2 0";
        let needle = format!(":{:04X} ", 6000);
        assert!(local_address(bound).contains(&needle));
        assert!(!local_address(remote).contains(&needle));
        assert_eq!(local_address(""), "");
    }

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
        let bytes = renamed.as_object_mut().unwrap().remove("bytes_sent").unwrap();
        renamed["bytes_out"] = bytes;
        std::fs::write(&path, renamed.to_string()).unwrap();
        let e = read_report::<SenderReport>("sprout-send", &path).unwrap_err();
        let e = format!("{e:#}");
        assert!(e.contains("sprout-flow0-sender.json") && e.contains("bytes_sent"), "{e}");
    }
}
