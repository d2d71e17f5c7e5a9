// SPDX-License-Identifier: GPL-2.0-only
//! `sprout-recv` and `sprout-send`: Sprout / Sprout-EWMA over UDP, one flow
//! each. Hidden from `--help`: the experiment runner starts them (receiver in
//! the UE namespace, sender in the server namespace) and reads `--stats`.
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::{bail, Context, Result};
use sprout::model::{Params, DEFAULT_MAX_RATE_PPS};
use sprout::net::{self, ReceiverOpts, SenderOpts};
use sprout::receiver::ReceiverConfig;
use sprout::sender::SenderConfig;
use sprout::{Variant, DEFAULT_PACKET_SIZE, IP_UDP_OVERHEAD};

#[derive(clap::Args)]
pub struct RecvArgs {
    /// Address and UDP port to receive on
    #[arg(long, value_name = "ADDR:PORT")]
    listen: SocketAddr,
    /// sprout | ewma
    #[arg(long, default_value = "sprout")]
    variant: Variant,
    /// Forecast confidence parameter, percent (paper Fig. 9: 5, 25, 50, 75)
    #[arg(long, default_value_t = 5.0)]
    confidence: f64,
    /// Highest link rate the model represents, Mbit/s of full packets
    /// [default: 2500 packets/s, 30 Mbit/s]
    #[arg(long, value_name = "MBIT/S")]
    max_rate_mbps: Option<f64>,
    /// Number of rate bins [default: 512 at the default maximum, scaled with
    /// --max-rate-mbps to keep bins 4.9 packets/s wide]
    #[arg(long)]
    bins: Option<usize>,
    /// UDP payload bytes of a full data packet (one model packet)
    #[arg(long, default_value_t = DEFAULT_PACKET_SIZE)]
    packet_size: usize,
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
    /// sprout | ewma (a label: the estimator runs at the receiver)
    #[arg(long, default_value = "sprout")]
    variant: Variant,
    /// Seconds to send for
    #[arg(long, value_name = "S", default_value_t = 10.0)]
    duration: f64,
    /// Wait this long before the first datagram (a signal meanwhile ends it)
    #[arg(long, value_name = "S", default_value_t = 0.0)]
    start_in: f64,
    /// UDP payload bytes of a full data packet
    #[arg(long, default_value_t = DEFAULT_PACKET_SIZE)]
    packet_size: usize,
    /// The paper's window: 100 ms of forecast minus the queue estimate, without
    /// looking one minimum RTT further (docs/sprout.md, "the RTT look-ahead")
    #[arg(long)]
    paper_window: bool,
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
    if !(a.confidence > 0.0 && a.confidence < 100.0) {
        bail!(
            "--confidence must be a percentage in (0, 100), got {}",
            a.confidence
        );
    }
    let max_rate_pps = match a.max_rate_mbps {
        Some(m) if m.is_finite() && m > 0.0 => {
            m * 1e6 / 8.0 / (a.packet_size + IP_UDP_OVERHEAD) as f64
        }
        Some(m) => bail!("--max-rate-mbps must be positive, got {m}"),
        None => DEFAULT_MAX_RATE_PPS,
    };
    let mut params = Params::with_max_rate(max_rate_pps);
    if let Some(b) = a.bins {
        params.bins = b;
    }
    let config = ReceiverConfig {
        variant: a.variant,
        params,
        confidence: a.confidence / 100.0,
        packet_size: a.packet_size,
        ..ReceiverConfig::default()
    };
    let duration = a.duration.map(|d| seconds("duration", d)).transpose()?;
    let idle_timeout = seconds("idle-timeout", a.idle_timeout)?;
    let stop = net::install_stop_signals()?;
    let r = net::run_receiver(
        ReceiverOpts {
            listen: a.listen,
            config,
            duration,
            idle_timeout,
        },
        stop,
    )?;
    report(&serde_json::to_value(&r)?, a.stats.as_ref())?;
    Ok(ExitCode::SUCCESS)
}

pub fn send(a: SendArgs) -> Result<ExitCode> {
    if a.packet_size < sprout::wire::DATA_HEADER || a.packet_size > 65507 {
        bail!(
            "--packet-size must be in {}..=65507, got {}",
            sprout::wire::DATA_HEADER,
            a.packet_size
        );
    }
    let config = SenderConfig {
        packet_size: a.packet_size,
        rtt_lookahead: !a.paper_window,
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
            variant: a.variant,
            duration,
        },
        stop,
    )?;
    report(&serde_json::to_value(&r)?, a.stats.as_ref())?;
    Ok(ExitCode::SUCCESS)
}
