// SPDX-License-Identifier: GPL-2.0-only
//! Sprout (Winstein, Sivaraman, Balakrishnan, NSDI 2013) and Sprout-EWMA as
//! real UDP transports.
//!
//! The protocol logic is pure and takes the time as an argument, so it is
//! tested deterministically; [`net`] puts it on real UDP sockets.
//!
//! - [`model`]: the link model's parameters and start-up tables;
//! - [`inference`]: the per-tick Bayesian update of the rate distribution;
//! - [`forecast`]: the cautious cumulative-delivery forecast;
//! - [`ewma`]: Sprout-EWMA's estimator;
//! - [`wire`]: the versioned datagram format;
//! - [`sender`], [`receiver`]: the two ends' protocol logic;
//! - [`net`]: the socket programs behind `c2tcp sprout-send` / `sprout-recv`;
//! - [`sim`]: a trace-driven link model to exercise the logic without sockets;
//! - [`tunnel`]: SproutTunnel's per-flow queues (§4.3), pure;
//! - [`tunnel_log`]: a tunnel end's per-packet records, written and read;
//! - [`tunnel_net`]: one SproutTunnel end on a TUN device (`c2tcp sprout-tunnel`).
#![forbid(unsafe_code)]
pub mod ewma;
pub mod forecast;
pub mod inference;
pub mod model;
pub mod net;
pub mod receiver;
pub mod sender;
pub mod sim;
pub mod tunnel;
pub mod tunnel_log;
pub mod tunnel_net;
pub mod wire;

/// Most forecast ticks the wire format carries.
pub const MAX_HORIZON: usize = 16;

/// Which rate estimator the receiver runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Variant {
    /// Bayesian inference with a cautious forecast (§3).
    Sprout,
    /// EWMA rate, forecast = rate × time (§5.3).
    SproutEwma,
}

impl Variant {
    pub fn name(self) -> &'static str {
        match self {
            Variant::Sprout => "sprout",
            Variant::SproutEwma => "sprout-ewma",
        }
    }
}

impl std::str::FromStr for Variant {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "sprout" => Ok(Variant::Sprout),
            "ewma" | "sprout-ewma" => Ok(Variant::SproutEwma),
            _ => Err(format!("unknown Sprout variant {s:?} (sprout | ewma)")),
        }
    }
}

/// UDP payload of a full data packet: with the 20-byte IPv4 and 8-byte UDP
/// headers it makes a 1500-byte IP packet, one Mahimahi delivery opportunity.
pub const DEFAULT_PACKET_SIZE: usize = 1472;
/// IPv4 + UDP header bytes around each datagram.
pub const IP_UDP_OVERHEAD: usize = 28;
