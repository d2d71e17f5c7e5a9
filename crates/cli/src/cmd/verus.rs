// SPDX-License-Identifier: GPL-2.0-only
//! `verus-recv` and `verus-send`: Verus over UDP, one flow each. Hidden from
//! `--help`: the experiment runner starts them (receiver in the UE
//! namespace, sender in the server namespace) and reads `--stats`. The
//! options every UDP transport's endpoints share are `udp_endpoint`'s.
use std::process::ExitCode;

use anyhow::Result;
use verus::net::{self, ReceiverOpts, SenderOpts};
use verus::sender::SenderConfig;
use verus::DEFAULT_PACKET_SIZE;

use super::udp_endpoint::{check_packet_size, report, RecvCommon, SendCommon};

#[derive(clap::Args)]
pub struct RecvArgs {
    #[command(flatten)]
    common: RecvCommon,
}

#[derive(clap::Args)]
pub struct SendArgs {
    #[command(flatten)]
    common: SendCommon,
    /// UDP payload bytes of a data packet
    #[arg(long, default_value_t = DEFAULT_PACKET_SIZE)]
    packet_size: usize,
}

pub fn recv(a: RecvArgs) -> Result<ExitCode> {
    let (duration, idle_timeout) = a.common.times()?;
    let stop = net::install_stop_signals()?;
    let r = net::run_receiver(
        ReceiverOpts {
            listen: a.common.listen,
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
        verus::wire::DATA_HEADER,
        verus::wire::MAX_DATAGRAM,
    )?;
    let config = SenderConfig {
        packet_size: a.packet_size,
        ..SenderConfig::new(net::new_session())
    };
    let duration = a.common.duration()?;
    let stop = net::install_stop_signals()?;
    a.common.wait_start(stop);
    let r = net::run_sender(
        SenderOpts {
            connect: a.common.connect,
            bind: a.common.bind,
            config,
            duration,
        },
        stop,
    )?;
    report(&r, a.common.stats.as_ref())?;
    Ok(ExitCode::SUCCESS)
}
