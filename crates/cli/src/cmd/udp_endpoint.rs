// SPDX-License-Identifier: GPL-2.0-only
//! What the UDP transports' endpoint commands (`sprout-recv`/`-send`,
//! `verus-recv`/`-send`) take and do alike: the addresses, the times and
//! the report file; checking them; the sender's wait for its start time;
//! and printing the JSON report (and writing it to `--stats`). Each
//! protocol's own options and its run stay in its own module.
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use serde::Serialize;

/// A receiver's options every protocol has.
#[derive(clap::Args)]
pub struct RecvCommon {
    /// Address and UDP port to receive on
    #[arg(long, value_name = "ADDR:PORT")]
    pub listen: SocketAddr,
    /// Stop after this many seconds (default: when the sender says bye)
    #[arg(long, value_name = "S")]
    duration: Option<f64>,
    /// Stop when nothing arrived for this many seconds after the flow started
    #[arg(long, value_name = "S", default_value_t = 5.0)]
    idle_timeout: f64,
    /// Also write the JSON summary to this file
    #[arg(long, value_name = "FILE")]
    pub stats: Option<PathBuf>,
}

impl RecvCommon {
    /// `--duration` (None: until bye) and `--idle-timeout`, checked.
    pub fn times(&self) -> Result<(Option<Duration>, Duration)> {
        let duration = self.duration.map(|d| seconds("duration", d)).transpose()?;
        Ok((duration, seconds("idle-timeout", self.idle_timeout)?))
    }
}

/// A sender's options every protocol has.
#[derive(clap::Args)]
pub struct SendCommon {
    /// The receiver's address and UDP port
    #[arg(long, value_name = "ADDR:PORT")]
    pub connect: SocketAddr,
    /// Local address and port to send from (default: any)
    #[arg(long, value_name = "ADDR:PORT")]
    pub bind: Option<SocketAddr>,
    /// Seconds to send for
    #[arg(long, value_name = "S", default_value_t = 10.0)]
    duration: f64,
    /// Wait this long before the first datagram (a signal meanwhile ends it)
    #[arg(long, value_name = "S", default_value_t = 0.0)]
    start_in: f64,
    /// Also write the JSON summary to this file
    #[arg(long, value_name = "FILE")]
    pub stats: Option<PathBuf>,
}

impl SendCommon {
    /// `--duration`, with `--start-in` checked too.
    pub fn duration(&self) -> Result<Duration> {
        let duration = seconds("duration", self.duration)?;
        if !(self.start_in.is_finite() && (0.0..1e7).contains(&self.start_in)) {
            bail!(
                "--start-in must be a number of seconds >= 0, got {}",
                self.start_in
            );
        }
        Ok(duration)
    }

    /// Waits `--start-in` (checked by [`SendCommon::duration`]), or until
    /// `stop`. The runner spawns its flows' processes at once; this one
    /// waits for its start time here, where the stop signal still reaches it.
    pub fn wait_start(&self, stop: &AtomicBool) {
        let start = Instant::now() + Duration::from_secs_f64(self.start_in);
        while !stop.load(Ordering::SeqCst) && Instant::now() < start {
            std::thread::sleep(
                start
                    .saturating_duration_since(Instant::now())
                    .min(Duration::from_millis(20)),
            );
        }
    }
}

/// `--packet-size` within `lo..=hi`.
pub fn check_packet_size(size: usize, lo: usize, hi: usize) -> Result<()> {
    if size < lo || size > hi {
        bail!("--packet-size must be in {lo}..={hi}, got {size}");
    }
    Ok(())
}

fn seconds(name: &str, s: f64) -> Result<Duration> {
    if !(s.is_finite() && s > 0.0 && s < 1e7) {
        bail!("--{name} must be a positive number of seconds, got {s}");
    }
    Ok(Duration::from_secs_f64(s))
}

/// Prints an endpoint's report as pretty JSON, and writes it to `stats`.
pub fn report(r: &impl Serialize, stats: Option<&PathBuf>) -> Result<()> {
    let text = serde_json::to_string_pretty(&serde_json::to_value(r)?)?;
    println!("{text}");
    if let Some(path) = stats {
        std::fs::write(path, text + "\n").with_context(|| format!("writing {}", path.display()))?;
    }
    Ok(())
}
