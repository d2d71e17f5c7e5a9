// SPDX-License-Identifier: GPL-2.0-only
//! The experiment side of c2tcp: what an experiment is (`scenario`), which
//! congestion-control schemes can run in it (`scheme`), the traffic that
//! drives them (`traffic`), and the runner that puts a server namespace, the
//! emulator and a UE namespace together and measures the result.
#![forbid(unsafe_code)]
pub mod analysis;
pub mod bench;
pub mod data;
pub mod flows;
pub mod ownership;
pub mod plan;
pub mod runner;
pub mod scenario;
pub mod scheme;
pub mod trace_ref;
pub mod traffic;
