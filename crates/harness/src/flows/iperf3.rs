// SPDX-License-Identifier: GPL-2.0-only
//! `iperf3:<cc>` flows: the real iperf3, server in the receiver's namespace,
//! client in the sender's, JSON results read back. The client must exit 0
//! and its JSON must hold no `error` (an unknown `-C` congestion control is
//! one); otherwise the flow's error says so with the tail of iperf3's
//! stderr, kept in `iperf3-flow<N>-{client,server}.stderr`, and the run fails
//! (`measured.rs`).
use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, Result};

use super::{FlowOutcome, FlowPlan, RunCtx, RunningFlow};

struct Iperf3 {
    outcome: FlowOutcome,
    server: Child,
    client: Child,
    json: PathBuf,
    client_err: PathBuf,
    server_err: PathBuf,
}

/// A file in the run directory that takes a child's stderr.
fn stderr_file(path: &Path) -> Result<Stdio> {
    let f = std::fs::File::create(path).with_context(|| format!("creating {}", path.display()))?;
    Ok(Stdio::from(f))
}

/// The last lines of a child's stderr file, for an error message.
fn tail(path: &Path) -> String {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    let tail = lines[lines.len().saturating_sub(5)..].join(" | ");
    if tail.is_empty() {
        "(nothing on stderr)".into()
    } else {
        tail
    }
}

pub fn start(ctx: &RunCtx<'_>, plan: FlowPlan<'_>, cc: &str) -> Result<Box<dyn RunningFlow>> {
    let port = plan.port.to_string();
    let rx_addr = plan.receiver_addr.to_string();
    let json = ctx.out.join(results::iperf3_json(plan.index));
    let server_err = ctx.out.join(results::iperf3_stderr(plan.index, "server"));
    let client_err = ctx.out.join(results::iperf3_stderr(plan.index, "client"));
    let server = plan
        .receiver_ns
        .command("iperf3")
        .args(["-s", "-1", "-B", &rx_addr, "-p", &port])
        .stdout(Stdio::null())
        .stderr(stderr_file(&server_err)?)
        .spawn()
        .context("starting iperf3 -s (apt-get install iperf3)")?;
    // iperf3 has no start-time option: wait here (the runner starts flows in
    // the order of their start times).
    std::thread::sleep(
        plan.start_at
            .saturating_duration_since(Instant::now())
            .max(Duration::from_millis(100)),
    );
    let secs = plan
        .stop_at
        .saturating_duration_since(Instant::now())
        .as_secs_f64()
        .max(1.0);
    let mut client = plan.sender_ns.command("iperf3");
    client
        .args(["-c", &rx_addr, "-p", &port, "-C", cc, "-J", "--logfile"])
        .arg(&json);
    match plan.flow.size_bytes {
        Some(n) => client.args(["-n", &n.to_string()]),
        None => client.args(["-t", &format!("{}", secs.floor() as u64)]),
    };
    let client = client
        .stdout(Stdio::null())
        .stderr(stderr_file(&client_err)?)
        .spawn()
        .context("starting iperf3 -c")?;
    Ok(Box::new(Iperf3 {
        outcome: plan.outcome,
        server,
        client,
        json,
        client_err,
        server_err,
    }))
}

impl RunningFlow for Iperf3 {
    fn finish(self: Box<Self>) -> FlowOutcome {
        let Iperf3 {
            mut outcome,
            mut server,
            mut client,
            json,
            client_err,
            server_err,
        } = *self;
        let client_status = client.wait();
        // A server still running is expected (we stop it); one that already
        // exited with a failure is the flow's error.
        let server_status = server.try_wait();
        let _ = server.kill();
        let _ = server.wait();
        let mut error = match read_results(&json) {
            Ok((sent, received, retrans)) => {
                outcome.bytes_sent = sent;
                outcome.bytes_received = received;
                outcome.retransmits = retrans;
                None
            }
            Err(e) => Some(format!("{e:#}")),
        };
        match client_status {
            Ok(s) if s.success() => {}
            Ok(s) => {
                let why = error.take().map(|e| format!("{e}; ")).unwrap_or_default();
                error = Some(format!(
                    "iperf3 client exited with {s}: {why}stderr: {}",
                    tail(&client_err)
                ));
            }
            Err(e) => error = Some(format!("waiting for the iperf3 client: {e}")),
        }
        if let Ok(Some(s)) = server_status {
            if !s.success() && error.is_none() {
                error = Some(format!(
                    "iperf3 server exited with {s}: stderr: {}",
                    tail(&server_err)
                ));
            }
        }
        outcome.error = error;
        outcome
    }

    fn abort(&mut self) {
        let _ = self.client.kill();
        let _ = self.server.kill();
    }
}

/// (bytes sent, bytes received, retransmits) from iperf3's JSON.
fn read_results(path: &Path) -> Result<(u64, u64, u32)> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    let v: serde_json::Value = serde_json::from_str(&text)
        .with_context(|| format!("parsing iperf3 output {}", path.display()))?;
    if let Some(e) = v.get("error").and_then(|e| e.as_str()) {
        anyhow::bail!("iperf3: {e}");
    }
    let end = &v["end"];
    let sent = end["sum_sent"]["bytes"].as_u64().unwrap_or(0);
    let received = end["sum_received"]["bytes"].as_u64().unwrap_or(0);
    let retrans = end["sum_sent"]["retransmits"].as_u64().unwrap_or(0) as u32;
    Ok((sent, received, retrans))
}
