// SPDX-License-Identifier: GPL-2.0-only
//! A Mahimahi-compatible, trace-driven cellular link emulator.
//!
//! Each direction is a pipeline: TUN read → [`delay`] → [`loss`] →
//! [`queue`] (with AQM) → [`link`] (trace-driven delivery) → TUN write,
//! logged by [`log`]. [`Emulator::start`] wires two namespaces together
//! through it; see `docs/emulator.md`.
pub mod cellreplay;
pub mod clock;
pub mod delay;
pub mod emulator;
pub mod gso;
pub mod import;
pub mod link;
pub mod link_spec;
pub mod log;
pub mod loss;
pub mod packet;
pub mod pcap;
pub mod pipeline;
pub mod queue;
pub mod rate_spec;
mod forward;
pub mod restarts;
mod relay;
pub mod stats;
pub mod synth;
pub mod topology;
pub mod trace;
pub mod transform;
pub mod tso;
pub mod tun;

pub use link_spec::LinkSpec;
pub use emulator::{DirectionConfig, Emulator, EmulatorConfig, EmulatorStats, RunningEmulator};
pub use queue::QueueSpec;
pub use stats::DirectionStats;
pub use trace::Trace;
