// SPDX-License-Identifier: GPL-2.0-only
//! `sprout-recv` and `sprout-send`: Sprout / Sprout-EWMA over UDP, one flow
//! each. Hidden from `--help`: the experiment runner starts them (receiver in
//! the UE namespace, sender in the server namespace) and reads `--stats`.
//! The options every UDP transport's endpoints share are `udp_endpoint`'s.
use std::process::ExitCode;

use anyhow::{bail, Result};
use sprout::model::{Params, DEFAULT_MAX_RATE_PPS};
use sprout::net::{self, ReceiverOpts, SenderOpts};
use sprout::receiver::ReceiverConfig;
use sprout::sender::SenderConfig;
use sprout::{Variant, DEFAULT_PACKET_SIZE, IP_UDP_OVERHEAD};

use super::udp_endpoint::{check_packet_size, report, RecvCommon, SendCommon};

#[derive(clap::Args)]
pub struct RecvArgs {
    #[command(flatten)]
    common: RecvCommon,
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
}

#[derive(clap::Args)]
pub struct SendArgs {
    #[command(flatten)]
    common: SendCommon,
    /// sprout | ewma (a label: the estimator runs at the receiver)
    #[arg(long, default_value = "sprout")]
    variant: Variant,
    /// UDP payload bytes of a full data packet
    #[arg(long, default_value_t = DEFAULT_PACKET_SIZE)]
    packet_size: usize,
    /// The paper's window: 100 ms of forecast minus the queue estimate, without
    /// looking one minimum RTT further (docs/sprout.md, "the RTT look-ahead")
    #[arg(long, conflicts_with = "authors_sender")]
    paper_window: bool,
    /// The authors' sender (alfalfa's sproutconn.cc): the queue estimate
    /// drains by the cumulative forecast each tick, the window is the next
    /// five ticks' forecast, no look-ahead (docs/sprout.md, "the authors' sender")
    #[arg(long)]
    authors_sender: bool,
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
    let (duration, idle_timeout) = a.common.times()?;
    let stop = net::install_stop_signals()?;
    let r = net::run_receiver(
        ReceiverOpts {
            listen: a.common.listen,
            config,
            duration,
            idle_timeout,
        },
        stop,
    )?;
    report(&r, a.common.stats.as_ref())?;
    Ok(ExitCode::SUCCESS)
}

pub fn send(a: SendArgs) -> Result<ExitCode> {
    check_packet_size(
        a.packet_size,
        sprout::wire::DATA_HEADER,
        sprout::wire::MAX_DATAGRAM,
    )?;
    let base = if a.authors_sender {
        SenderConfig::authors(net::new_session())
    } else {
        SenderConfig {
            rtt_lookahead: !a.paper_window,
            ..SenderConfig::new(net::new_session())
        }
    };
    let config = SenderConfig {
        packet_size: a.packet_size,
        ..base
    };
    let duration = a.common.duration()?;
    let stop = net::install_stop_signals()?;
    a.common.wait_start(stop);
    let r = net::run_sender(
        SenderOpts {
            connect: a.common.connect,
            bind: a.common.bind,
            config,
            variant: a.variant,
            duration,
        },
        stop,
    )?;
    report(&r, a.common.stats.as_ref())?;
    Ok(ExitCode::SUCCESS)
}
