// SPDX-License-Identifier: GPL-2.0-only
//! Verus (Zaki, Pötsch, Chen, Subramanian, Görg, SIGCOMM 2015, "Adaptive
//! Congestion Control for Unpredictable Cellular Networks") as a real UDP
//! transport.
//!
//! Verus is a window-based, delay-based sender. Every 5-ms epoch it
//! compares the largest delay of the epoch with the previous ones and moves
//! a *target delay* down (delay rising, or the delay already `R` times the
//! minimum) or up (delay not rising); it then reads the window that should
//! give that delay off a *delay profile*, a curve from sending window to
//! delay that it learns from every acknowledged packet and refits with a
//! smoothing cubic spline once a second. A loss cuts the window by `M`.
//! docs/verus.md explains it at length, with every constant's source.
//!
//! The protocol logic is pure and takes the time as an argument, so it is
//! tested deterministically; [`net`] puts it on real UDP sockets.
//!
//! - [`pspline`]: the penalised cubic regression spline the profile is fit with;
//! - [`profile`]: the delay profile (samples, periodic refit, inverse lookup);
//! - [`estimator`]: the per-epoch target-delay update;
//! - [`wire`]: the versioned datagram format;
//! - [`sender`], [`receiver`]: the two ends' protocol logic;
//! - [`net`]: the socket programs behind `c2tcp verus-send` / `verus-recv`.
#![forbid(unsafe_code)]
pub mod estimator;
pub mod net;
pub mod profile;
pub mod pspline;
pub mod receiver;
pub mod sender;
pub mod wire;

/// UDP payload of a full data packet: with the 20-byte IPv4 and 8-byte UDP
/// headers it makes a 1500-byte IP packet, one Mahimahi delivery opportunity
/// (the authors send 1450-byte datagrams, `MTU` in verus.hpp).
pub const DEFAULT_PACKET_SIZE: usize = 1472;
/// IPv4 + UDP header bytes around each datagram.
pub const IP_UDP_OVERHEAD: usize = 28;
