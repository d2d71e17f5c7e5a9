// SPDX-License-Identifier: GPL-2.0-only
//! A flow run by a pair of UDP endpoint child processes of this binary —
//! `c2tcp <proto>-recv` in the receiver's namespace and a saturating
//! `c2tcp <proto>-send` in the sender's — the way the `sprout` and `verus`
//! drivers run theirs. The protocol's driver adds its own options to the
//! two commands and reads its own fields out of the two reports; the
//! life of the pair is here:
//!
//! 1. both endpoints use the flow's port (the sender through `--bind`), so
//!    the analysis finds the data and the reverse traffic; the receiver is
//!    started first and waited for until its port shows in its namespace's
//!    UDP table, so the sender's first flight is not refused;
//! 2. the sender waits `--start-in` itself and stops itself after
//!    `--duration`; the receiver ends on the sender's bye (its idle timeout
//!    is past the run: outages can silence the link for seconds);
//! 3. at the end each is waited for until a bound, then asked to stop with
//!    SIGTERM (on which it still writes its report), then killed;
//! 4. each writes a JSON report (`--stats`) into the run directory, read
//!    back into the type that wrote it, so a renamed field is an error
//!    naming the file, not a silent 0.
//!
//! The children are spawned from the runner's thread with `Netns::command`,
//! so they die with this process. The binary is the one the runner was told
//! to use for helper endpoints (`RunOptions::helper_exe`).
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use serde::de::DeserializeOwned;

use super::{FlowOutcome, FlowPlan, RunCtx};

/// The two commands of a pair, with the options every protocol's
/// endpoints take already set; the driver adds its own.
pub(super) struct Commands {
    pub recv: Command,
    pub send: Command,
    recv_name: String,
    send_name: String,
    recv_stats: PathBuf,
    send_stats: PathBuf,
    rx: String,
}

/// `c2tcp {proto}-recv` and `c2tcp {proto}-send` for flow `plan`, reports
/// in `{proto}-flow{index}-{receiver,sender}.json`.
pub(super) fn commands(ctx: &RunCtx<'_>, plan: &FlowPlan<'_>, proto: &str) -> Result<Commands> {
    let (recv, send) = (format!("{proto}-recv"), format!("{proto}-send"));
    commands_of(ctx.helper_exe, [&recv, &send], ctx, plan, proto)
}

/// The same pair from another program `exe`, whose receiver and sender are
/// its subcommands `subs` and take the same options (`webrtc-gcc recv/send`).
pub(super) fn commands_of(
    exe: &Path,
    subs: [&str; 2],
    ctx: &RunCtx<'_>,
    plan: &FlowPlan<'_>,
    proto: &str,
) -> Result<Commands> {
    let exe = exe
        .to_str()
        .with_context(|| format!("non-UTF-8 path {}", exe.display()))?;
    let rx = format!("{}:{}", plan.receiver_addr, plan.port);
    let tx = format!("{}:{}", plan.sender_addr, plan.port);
    let recv_stats = ctx
        .out
        .join(results::endpoint_json(proto, plan.index, "receiver"));
    let send_stats = ctx
        .out
        .join(results::endpoint_json(proto, plan.index, "sender"));
    let start_in = plan
        .start_at
        .saturating_duration_since(Instant::now())
        .as_secs_f64();
    let duration = plan
        .stop_at
        .saturating_duration_since(plan.start_at)
        .as_secs_f64()
        .max(0.001);
    let [recv_sub, send_sub] = subs;
    // As errors name them: `sprout-recv`, `webrtc-gcc recv`.
    let name = |sub: &str| match sub.starts_with(proto) {
        true => sub.to_string(),
        false => format!("{proto} {sub}"),
    };
    let (recv_name, send_name) = (name(recv_sub), name(send_sub));

    let mut recv = plan.receiver_ns.command(exe);
    recv.args([recv_sub, "--listen", &rx])
        // Outages can silence the link for seconds: only the runner ends it.
        .args(["--idle-timeout", &format!("{}", start_in + duration + 30.0)])
        .arg("--stats")
        .arg(&recv_stats);
    let mut send = plan.sender_ns.command(exe);
    send.args([send_sub, "--connect", &rx, "--bind", &tx])
        .args([
            "--duration",
            &format!("{duration:.3}"),
            "--start-in",
            &format!("{start_in:.3}"),
        ])
        .arg("--stats")
        .arg(&send_stats);
    Ok(Commands {
        recv,
        send,
        recv_name,
        send_name,
        recv_stats,
        send_stats,
        rx,
    })
}

/// A running pair.
pub(super) struct Pair {
    sender: Child,
    receiver: Child,
    send_name: String,
    recv_name: String,
    send_stats: PathBuf,
    recv_stats: PathBuf,
    stop_at: Instant,
}

impl Pair {
    /// Starts the receiver, waits until it is bound, starts the sender.
    pub fn start(mut c: Commands, plan: &FlowPlan<'_>) -> Result<Pair> {
        let mut receiver = spawn(&mut c.recv, &c.recv_name)?;
        if let Err(e) = wait_bound(&mut receiver, plan.port) {
            let _ = receiver.kill();
            let _ = receiver.wait();
            return Err(e.context(format!("flow {}: {} on {}", plan.index, c.recv_name, c.rx)));
        }
        let sender = match spawn(&mut c.send, &c.send_name) {
            Ok(s) => s,
            Err(e) => {
                terminate(&receiver);
                let _ = receiver.wait();
                return Err(e);
            }
        };
        Ok(Pair {
            sender,
            receiver,
            send_name: c.send_name,
            recv_name: c.recv_name,
            send_stats: c.send_stats,
            recv_stats: c.recv_stats,
            stop_at: plan.stop_at,
        })
    }

    /// Ends both (the sender first) and reads their reports.
    pub fn finish<Tx: DeserializeOwned, Rx: DeserializeOwned>(
        mut self,
    ) -> (Result<Tx>, Result<Rx>) {
        // The sender stops itself at stop_at; called earlier, the run was
        // interrupted (or another flow failed to start).
        let now = Instant::now();
        if now + Duration::from_millis(100) < self.stop_at {
            terminate(&self.sender);
        }
        let tx = end_of::<Tx>(
            &self.send_name,
            &mut self.sender,
            self.stop_at.max(now) + Duration::from_secs(2),
            &self.send_stats,
        );
        // The receiver ends on the sender's bye, which crosses the emulated
        // queue; if the bye was lost it is asked to stop.
        let rx = end_of::<Rx>(
            &self.recv_name,
            &mut self.receiver,
            Instant::now() + Duration::from_secs(3),
            &self.recv_stats,
        );
        (tx, rx)
    }

    pub fn abort(&mut self) {
        terminate(&self.sender);
        terminate(&self.receiver);
    }
}

/// Puts the first failure of the pair (the sender's before the
/// receiver's) into the flow's outcome.
pub(super) fn note_error<Tx, Rx>(outcome: &mut FlowOutcome, tx: &Result<Tx>, rx: &Result<Rx>) {
    if let Err(e) = tx {
        outcome.error = Some(format!("{e:#}"));
    }
    if let Err(e) = rx {
        outcome.error.get_or_insert_with(|| format!("{e:#}"));
    }
}

fn spawn(cmd: &mut Command, what: &str) -> Result<Child> {
    cmd.stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .with_context(|| format!("starting {what}"))
}

/// Waits until the receiver's socket is bound, so the sender's first flight
/// is not refused: its port shows in the receiver's own namespace's UDP table.
fn wait_bound(child: &mut Child, port: u16) -> Result<()> {
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

fn terminate(child: &Child) {
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
fn end_of<R: DeserializeOwned>(
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
    parse_report(&text).with_context(|| format!("{what}: parsing {}", stats.display()))
}

/// A report's text, parsed into the type that wrote it.
pub(super) fn parse_report<R: DeserializeOwned>(text: &str) -> Result<R> {
    Ok(serde_json::from_str(text)?)
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
}
