// SPDX-License-Identifier: GPL-2.0-only
//! What the UDP transports (`sprout`, `verus`) share, written once.
//!
//! Both run one flow per process on one non-blocking UDP socket, in one
//! thread that sleeps in `ppoll` until a datagram arrives or the protocol
//! logic's next deadline, stop on SIGINT/SIGTERM and end with a JSON report;
//! both frame their datagrams with the same versioned 12-byte header. The
//! protocols' logic, their packet kinds and their reports' fields stay in
//! their own crates; this crate has only the discipline they have in common:
//!
//! - [`wire`]: the header (magic, version, kind, length, session), its
//!   checks, and the error and drop-count types, named per protocol;
//! - [`endpoint`]: socket set-up, receive-buffer sizing, send-with-retry,
//!   waiting until a deadline, stop signals, and the words a report uses;
//! - [`sender`]: the sender's loop around the protocol's logic, to its
//!   closing bye (the kind every protocol shares, `wire::Bye`).
#![forbid(unsafe_code)]

pub use plumbing::PollFlags;

pub mod endpoint;
pub mod sender;
pub mod wire;
