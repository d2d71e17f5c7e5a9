// SPDX-License-Identifier: GPL-2.0-only
//! `c2tcp sprout-tunnel`: one end of SproutTunnel (Sprout paper §4.3), any
//! IP traffic over Sprout through a TUN device. The work is
//! `sprout::tunnel_net`'s; this is its command line.
use std::net::{Ipv4Addr, SocketAddr};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::{bail, Result};
use sprout::model::{Params, DEFAULT_MAX_RATE_PPS};
use sprout::net;
use sprout::receiver::ReceiverConfig;
use sprout::sender::SenderConfig;
use sprout::tunnel_net::{self, TunnelOpts};
use sprout::{DEFAULT_PACKET_SIZE, IP_UDP_OVERHEAD};

use super::udp_endpoint::report;

#[derive(clap::Args)]
#[command(
    after_help = "Each end creates a TUN device with a point-to-point address, sends what is routed \
into it to the other end inside Sprout data packets (one queue per flow, served round-robin into \
Sprout's window, the total limited to the receiver's forecast, drops from the head of the longest \
queue), and writes what the other end sends out of it. Both ends are Sprout senders and receivers \
on one UDP socket.\n\n\
Example, through the emulator (the server side in the caller's namespace, the UE behind the link):\n  \
c2tcp emulate --downlink traces/mahimahi/Verizon-LTE-short.down --uplink traces/mahimahi/Verizon-LTE-short.up \
--delay 20 -- \\\n    sh -c 'c2tcp sprout-tunnel --listen $C2TCP_UE:7000 --peer $C2TCP_BASE:7000 \
--address 100.127.0.2 --peer-address 100.127.0.1 & exec $SHELL'\n  \
# then, in the caller's namespace (learns the UE end's address from its first datagram):\n  \
c2tcp sprout-tunnel --listen <C2TCP_BASE>:7000 --address 100.127.0.1 --peer-address 100.127.0.2\n  \
# and anything sent to 100.127.0.2 crosses the link over Sprout.\n\n\
The device and its routes disappear when the process ends (Ctrl-C, SIGTERM, --duration, or a crash). \
Only the peer's device address and the --route prefixes are routed into the device (100.127.0.0/30 \
above: shared address space, never routed on the Internet). A JSON report \
(packets each way, queue drops, Sprout's counters) is printed on exit and written to --stats."
)]
pub struct Args {
    /// UDP address this end listens on and sends from
    #[arg(long, value_name = "ADDR:PORT")]
    listen: SocketAddr,
    /// The other end's UDP address [default: learnt from its first datagram]
    #[arg(long, value_name = "ADDR:PORT")]
    peer: Option<SocketAddr>,
    /// This end's address on the TUN device
    #[arg(long, value_name = "IPV4")]
    address: Ipv4Addr,
    /// The other end's address on its TUN device (the point-to-point peer)
    #[arg(long, value_name = "IPV4")]
    peer_address: Ipv4Addr,
    /// TUN device name
    #[arg(long, default_value = "sprt0")]
    device: String,
    /// Also route this prefix into the tunnel (repeatable), e.g. 10.1.0.0/16
    #[arg(long, value_name = "CIDR")]
    route: Vec<String>,
    /// Stop after this many seconds [default: until Ctrl-C / SIGTERM]
    #[arg(long, value_name = "S")]
    duration: Option<f64>,
    /// Write the JSON report here too
    #[arg(long, value_name = "FILE")]
    stats: Option<PathBuf>,
    /// Write one line per packet carried (entered and sent or dropped, received) here, for
    /// measuring the flows inside (format: crates/sprout/src/tunnel_log.rs)
    #[arg(long, value_name = "FILE")]
    records: Option<PathBuf>,
    /// Forecast confidence parameter of this end's receiver, percent
    #[arg(long, default_value_t = 5.0)]
    confidence: f64,
    /// Highest link rate the receiver's model represents, Mbit/s [default: 30]
    #[arg(long, value_name = "MBIT/S")]
    max_rate_mbps: Option<f64>,
    /// UDP payload bytes of a full Sprout packet; the device's MTU is this minus Sprout's 48-byte header
    #[arg(long, default_value_t = DEFAULT_PACKET_SIZE)]
    packet_size: usize,
}

pub fn run(a: Args) -> Result<ExitCode> {
    if !(a.confidence > 0.0 && a.confidence < 100.0) {
        bail!(
            "--confidence must be a percentage in (0, 100), got {}",
            a.confidence
        );
    }
    if a.packet_size > sprout::wire::MAX_DATAGRAM || a.packet_size <= sprout::wire::DATA_HEADER {
        bail!(
            "--packet-size {} is not a Sprout packet size",
            a.packet_size
        );
    }
    let duration = match a.duration {
        Some(s) if s.is_finite() && s > 0.0 => Some(Duration::from_secs_f64(s)),
        Some(s) => bail!("--duration must be positive seconds, got {s}"),
        None => None,
    };
    let max_rate_pps = match a.max_rate_mbps {
        Some(m) if m.is_finite() && m > 0.0 => {
            m * 1e6 / 8.0 / (a.packet_size + IP_UDP_OVERHEAD) as f64
        }
        Some(m) => bail!("--max-rate-mbps must be positive, got {m}"),
        None => DEFAULT_MAX_RATE_PPS,
    };
    let receiver = ReceiverConfig {
        params: Params::with_max_rate(max_rate_pps),
        confidence: a.confidence / 100.0,
        packet_size: a.packet_size,
        ..ReceiverConfig::default()
    };
    let sender = SenderConfig {
        packet_size: a.packet_size,
        ..SenderConfig::new(net::new_session())
    };
    let stop = net::install_stop_signals()?;
    let r = tunnel_net::run_tunnel(
        TunnelOpts {
            device: a.device,
            address: a.address,
            peer_address: a.peer_address,
            routes: a.route,
            listen: a.listen,
            peer: a.peer,
            sender,
            receiver,
            duration,
            records: a.records,
        },
        stop,
    )?;
    report(&r, a.stats.as_ref())?;
    Ok(ExitCode::SUCCESS)
}
