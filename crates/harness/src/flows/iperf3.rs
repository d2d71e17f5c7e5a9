// SPDX-License-Identifier: GPL-2.0-only
//! `iperf3:<cc>` flows: the real iperf3, server in the receiver's namespace,
//! client in the sender's, JSON results read back.
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
}

pub fn start(ctx: &RunCtx<'_>, plan: FlowPlan<'_>, cc: &str) -> Result<Box<dyn RunningFlow>> {
    let port = plan.port.to_string();
    let rx_addr = plan.receiver_addr.to_string();
    let json = ctx.out.join(format!("iperf3-flow{}.json", plan.index));
    let server = plan
        .receiver_ns
        .command("iperf3")
        .args(["-s", "-1", "-B", &rx_addr, "-p", &port])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
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
        .stderr(Stdio::null())
        .spawn()
        .context("starting iperf3 -c")?;
    Ok(Box::new(Iperf3 {
        outcome: plan.outcome,
        server,
        client,
        json,
    }))
}

impl RunningFlow for Iperf3 {
    fn finish(self: Box<Self>) -> FlowOutcome {
        let Iperf3 {
            mut outcome,
            mut server,
            mut client,
            json,
        } = *self;
        let _ = client.wait();
        let _ = server.kill();
        let _ = server.wait();
        match read_results(&json) {
            Ok((sent, received, retrans)) => {
                outcome.bytes_sent = sent;
                outcome.bytes_received = received;
                outcome.retransmits = retrans;
            }
            Err(e) => outcome.error = Some(format!("{e:#}")),
        }
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
