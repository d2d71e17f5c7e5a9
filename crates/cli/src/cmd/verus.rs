// SPDX-License-Identifier: GPL-2.0-only
//! `verus-recv` and `verus-send`: Verus over UDP, one flow each. Hidden from
//! `--help`: the experiment runner starts them (receiver in the UE
//! namespace, sender in the server namespace) and reads `--stats`.
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::{bail, Context, Result};
use verus::net::{self, ReceiverOpts, SenderOpts};
use verus::sender::SenderConfig;
use verus::DEFAULT_PACKET_SIZE;

#[derive(clap::Args)]
pub struct RecvArgs {
    /// Address and UDP port to receive on
    #[arg(long, value_name = "ADDR:PORT")]
    listen: SocketAddr,
    /// Stop after this many seconds (default: when the sender says bye)
    #[arg(long, value_name = "S")]
    duration: Option<f64>,
    /// Stop when nothing arrived for this many seconds after the flow started
    #[arg(long, value_name = "S", default_value_t = 5.0)]
    idle_timeout: f64,
    /// Also write the JSON summary to this file
    #[arg(long, value_name = "FILE")]
    stats: Option<PathBuf>,
}

#[derive(clap::Args)]
pub struct SendArgs {
    /// The receiver's address and UDP port
    #[arg(long, value_name = "ADDR:PORT")]
    connect: SocketAddr,
    /// Local address and port to send from (default: any)
    #[arg(long, value_name = "ADDR:PORT")]
    bind: Option<SocketAddr>,
    /// Seconds to send for
    #[arg(long, value_name = "S", default_value_t = 10.0)]
    duration: f64,
    /// Wait this long before the first datagram (a signal meanwhile ends it)
    #[arg(long, value_name = "S", default_value_t = 0.0)]
    start_in: f64,
    /// UDP payload bytes of a data packet
    #[arg(long, default_value_t = DEFAULT_PACKET_SIZE)]
    packet_size: usize,
    /// Also write the JSON summary to this file
    #[arg(long, value_name = "FILE")]
    stats: Option<PathBuf>,
}

fn seconds(name: &str, s: f64) -> Result<Duration> {
    if !(s.is_finite() && s > 0.0 && s < 1e7) {
        bail!("--{name} must be a positive number of seconds, got {s}");
    }
    Ok(Duration::from_secs_f64(s))
}

fn report(json: &serde_json::Value, stats: Option<&PathBuf>) -> Result<()> {
    let text = serde_json::to_string_pretty(json)?;
    println!("{text}");
    if let Some(path) = stats {
        std::fs::write(path, text + "\n").with_context(|| format!("writing {}", path.display()))?;
    }
    Ok(())
}

pub fn recv(a: RecvArgs) -> Result<ExitCode> {
    let duration = a.duration.map(|d| seconds("duration", d)).transpose()?;
    let idle_timeout = seconds("idle-timeout", a.idle_timeout)?;
    let stop = net::install_stop_signals()?;
    let r = net::run_receiver(
        ReceiverOpts {
            listen: a.listen,
            duration,
            idle_timeout,
        },
        stop,
    )?;
    report(&serde_json::to_value(&r)?, a.stats.as_ref())?;
    Ok(ExitCode::SUCCESS)
}

pub fn send(a: SendArgs) -> Result<ExitCode> {
    let (lo, hi) = (verus::wire::DATA_HEADER, verus::wire::MAX_DATAGRAM);
    if a.packet_size < lo || a.packet_size > hi {
        bail!(
            "--packet-size must be in {lo}..={hi}, got {}",
            a.packet_size
        );
    }
    let config = SenderConfig {
        packet_size: a.packet_size,
        ..SenderConfig::new(net::new_session())
    };
    let duration = seconds("duration", a.duration)?;
    if !(a.start_in.is_finite() && (0.0..1e7).contains(&a.start_in)) {
        bail!(
            "--start-in must be a number of seconds >= 0, got {}",
            a.start_in
        );
    }
    let stop = net::install_stop_signals()?;
    // The runner spawns its flows' processes at once; this one waits for its
    // start time here, where the stop signal still reaches it.
    let start = std::time::Instant::now() + Duration::from_secs_f64(a.start_in);
    while !stop.load(std::sync::atomic::Ordering::SeqCst) && std::time::Instant::now() < start {
        std::thread::sleep(
            start
                .saturating_duration_since(std::time::Instant::now())
                .min(Duration::from_millis(20)),
        );
    }
    let r = net::run_sender(
        SenderOpts {
            connect: a.connect,
            bind: a.bind,
            config,
            duration,
        },
        stop,
    )?;
    report(&serde_json::to_value(&r)?, a.stats.as_ref())?;
    Ok(ExitCode::SUCCESS)
}
