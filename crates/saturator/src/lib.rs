// SPDX-License-Identifier: GPL-2.0-only
//! Saturator (Winstein, Sivaraman, Balakrishnan, "Stochastic Forecasts
//! Achieve High Throughput and Low Delay over Cellular Networks", NSDI 2013,
//! §4.1): the tool that recorded the cellular traces every later paper
//! replays, as `c2tcp trace capture`.
//!
//! The idea: keep the link's queue from ever going empty with MTU-sized
//! packets, and the times packets come out of it are the times the link
//! *could* deliver a packet - a Mahimahi trace, one line per arrival (ms).
//!
//! - The sender ([`sender::Window`]) keeps N packets in flight and moves N to
//!   keep the RTT between 750 ms and 3 000 ms: below 750 ms the queue may
//!   run dry, so N grows by one per ACK (doubling per RTT); above 3 000 ms
//!   the network may start throttling or dropping, so N shrinks by one, at
//!   most once per RTT (an outage's backlog does not collapse N).
//! - The receiver ([`recorder::Recorder`]) acknowledges every packet and
//!   records the arrival of every packet sent after the sender first saw an
//!   RTT of 750 ms (the `saturated` flag): before that the queue may have
//!   been empty, and an empty queue's missed opportunities are not in the
//!   record. Time zero of the trace is the first such arrival.
//! - The feedback path is selectable ([`socket`]): the ACKs go back the way
//!   the data came, or to another address (the paper's second, unloaded
//!   "feedback phone"), so that capturing both directions at once - one
//!   sender and one receiver at each end - does not starve the sender of
//!   feedback stuck behind seconds of the other direction's backlog.
//!
//! The logic is sans-I/O ([`sender`], [`recorder`], [`wire`]); [`socket`]
//! is the pair of socket programs behind `c2tcp trace capture send/recv`.
#![forbid(unsafe_code)]

pub mod recorder;
pub mod sender;
pub mod socket;
pub mod wire;

/// Sprout §4.1: keep the RTT above this (the queue is not starving)...
pub const RTT_LOW_MS: u64 = 750;
/// ... and below this (the network may start throttling or dropping).
pub const RTT_HIGH_MS: u64 = 3_000;
