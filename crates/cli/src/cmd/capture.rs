// SPDX-License-Identifier: GPL-2.0-only
//! `c2tcp trace capture send|recv`: Saturator (Sprout, NSDI'13 §4.1),
//! recording a real link as a Mahimahi trace (crates/saturator, docs/capture.md).
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::{bail, Result};
use clap::Subcommand;
use saturator::socket::{self, RecvOptions, SendOptions};

#[derive(clap::Args)]
#[command(
    after_help = "Run `recv` at the far end of the link to record and `send` at the near end; \
the receiver writes the trace. For both directions at once, run one `send` and one `recv` at each end, \
and send the ACKs over another path (--feedback-to / --feedback-listen, the paper's second phone): \
feedback queued behind seconds of the other direction's backlog arrives too late to keep the link busy.\n\n\
Example (downlink of a phone tethered at 10.0.0.2, its feedback through a second link at 192.168.1.2):\n  \
phone$  c2tcp trace capture recv --listen 10.0.0.2:9000 --feedback-to 192.168.1.1:9001 --duration 600 -o link.down\n  \
server$ c2tcp trace capture send --to 10.0.0.2:9000 --feedback-listen 192.168.1.1:9001 --duration 620"
)]
pub struct Args {
    #[command(subcommand)]
    command: CaptureCommand,
}

#[derive(Subcommand)]
enum CaptureCommand {
    /// Keep the link to a receiver backlogged: N MTU packets in flight, RTT held in [750, 3000] ms
    Send(SendArgs),
    /// Acknowledge every packet and record the saturated arrivals as a Mahimahi trace
    Recv(RecvArgs),
}

#[derive(clap::Args)]
struct SendArgs {
    /// The receiver's address (its --listen)
    #[arg(long, value_name = "ADDR:PORT")]
    to: SocketAddr,
    /// Our data socket's address (default: any)
    #[arg(long, value_name = "ADDR:PORT")]
    bind: Option<SocketAddr>,
    /// Receive the ACKs here (the receiver's --feedback-to) instead of over the data path
    #[arg(long, value_name = "ADDR:PORT")]
    feedback_listen: Option<SocketAddr>,
    /// How long to send, seconds (give the receiver's --duration plus the ramp-up, a few seconds)
    #[arg(long, default_value_t = 60.0)]
    duration: f64,
    /// No progress bar; the final JSON report still goes to stdout
    #[arg(short, long)]
    quiet: bool,
}

#[derive(clap::Args)]
struct RecvArgs {
    /// Address to receive the data on
    #[arg(long, value_name = "ADDR:PORT")]
    listen: SocketAddr,
    /// Send the ACKs here (the sender's --feedback-listen) instead of back to the data's source
    #[arg(long, value_name = "ADDR:PORT")]
    feedback_to: Option<SocketAddr>,
    /// How long to record, seconds, from the first arrival that saw a full queue
    #[arg(long, default_value_t = 60.0)]
    duration: f64,
    /// Stop when nothing arrives for this long, seconds
    #[arg(long, default_value_t = 10.0)]
    idle_timeout: f64,
    /// The trace to write (Mahimahi format: one line per arrival, ms)
    #[arg(short, long)]
    output: PathBuf,
    /// Also write the summary (packets, mean rate, CLOCK_MONOTONIC start) as JSON here
    #[arg(long, value_name = "FILE")]
    summary: Option<PathBuf>,
    /// No progress bar; the final JSON report still goes to stdout
    #[arg(short, long)]
    quiet: bool,
}

pub fn run(a: Args) -> Result<ExitCode> {
    match a.command {
        CaptureCommand::Send(a) => send(a),
        CaptureCommand::Recv(a) => recv(a),
    }
}

fn seconds(flag: &str, s: f64) -> Result<Duration> {
    if !(s.is_finite() && s > 0.0) {
        bail!("--{flag} must be a positive number of seconds, got {s}");
    }
    Ok(Duration::from_secs_f64(s))
}

fn send(a: SendArgs) -> Result<ExitCode> {
    let o = SendOptions {
        to: a.to,
        bind: a.bind,
        feedback_listen: a.feedback_listen,
        duration: seconds("duration", a.duration)?,
    };
    let bar = super::run::progress_bar(a.duration, a.quiet);
    let report = socket::run_sender(&o, |p| {
        if let Some(b) = &bar {
            b.set_position((p.elapsed_s * 10.0) as u64);
            b.set_message(format!(
                "N {} in flight {} RTT {:.0} ms{}",
                p.window,
                p.in_flight,
                p.rtt_ms,
                if p.saturated {
                    " (saturated)"
                } else {
                    " (ramping up)"
                }
            ));
        }
    })?;
    if let Some(b) = bar {
        b.finish_and_clear();
    }
    println!("{}", serde_json::to_string_pretty(&report)?);
    Ok(ExitCode::SUCCESS)
}

fn recv(a: RecvArgs) -> Result<ExitCode> {
    let o = RecvOptions {
        listen: a.listen,
        feedback_to: a.feedback_to,
        duration: seconds("duration", a.duration)?,
        idle_timeout: seconds("idle-timeout", a.idle_timeout)?,
        output: a.output.clone(),
    };
    let bar = super::run::progress_bar(a.duration, a.quiet);
    let report = socket::run_receiver(&o, |p| {
        if let Some(b) = &bar {
            b.set_position((p.recorded_s * 10.0) as u64);
            b.set_message(format!("{} packets, {:.2} Mbit/s", p.packets, p.mbps));
        }
    })?;
    if let Some(b) = bar {
        b.finish_and_clear();
    }
    let json = serde_json::to_string_pretty(&report)?;
    if let Some(path) = &a.summary {
        std::fs::write(path, &json)
            .map_err(|e| anyhow::anyhow!("writing {}: {e}", path.display()))?;
    }
    println!("{json}");
    Ok(ExitCode::SUCCESS)
}
