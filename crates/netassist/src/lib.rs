// SPDX-License-Identifier: GPL-2.0-only
//! NetAssist (Abbasloo et al., HotEdge 2019), live: per UE, every period, the
//! cellular link's bottleneck bandwidth and minimum RTT, sent out of band to
//! the server, where an agent writes them into the BPF map that the `natcp`
//! and `nacubic` congestion controls read (`docs/netassist.md`).
//!
//! - [`wire`]: the versioned datagram, with optional HMAC-SHA-256;
//! - [`guard`]: freshness and replay checks, and drop counts by reason;
//! - [`meter`]: the figures of a period, from the emulator's traces;
//! - [`service`]: the NetAssist sender (its own one-way delay included);
//! - [`agent`]: the server-side receiver that writes the BPF map;
//! - [`ue`]: the UE's flow-count (beta) reporter;
//! - [`deploy`]: all of it wired into a run's namespaces.
#![forbid(unsafe_code)]
pub mod agent;
pub mod deploy;
pub mod guard;
pub mod meter;
pub mod service;
pub mod ue;
pub mod wire;

pub use deploy::{Deployment, LinkModel, Options, Stats};
