// SPDX-License-Identifier: GPL-2.0-only
//! The experiment side of c2tcp: what an experiment is (`scenario`, its
//! `sweep`s), which congestion-control schemes can run in it (`scheme`), a
//! scenario resolved once before anything runs (`plan`), the traffic that
//! drives the schemes (`traffic`, `flows`), and the runner that puts a
//! server namespace, the emulator and a UE namespace together and measures
//! the result.
#![forbid(unsafe_code)]
pub mod analysis;
pub mod bench;
pub mod data;
pub mod ect1;
pub mod flows;
pub mod identity;
pub mod measured;
pub mod ownership;
pub mod plan;
mod run_files;
pub mod runner;
pub mod scenario;
pub mod scheme;
pub mod sweep;
pub mod trace_ref;
pub mod traffic;
pub mod tunnel;
