// SPDX-License-Identifier: GPL-2.0-only
//! Ctrl-C, SIGTERM and SIGHUP ask a run or a bench to stop: the handler only
//! raises a flag; the code polls it, tears everything down and keeps what it
//! measured, marked as interrupted.
use std::sync::atomic::AtomicBool;

use plumbing::signals::{self, Restart};
use plumbing::Signal;

/// The signals that ask a run, a bench or an emulation to stop.
pub const STOP_SIGNALS: [Signal; 3] = [Signal::SIGINT, Signal::SIGTERM, Signal::SIGHUP];

/// Installs the handlers and returns the flag they raise (system calls
/// restart, as with glibc's `signal()`).
pub fn install() -> &'static AtomicBool {
    signals::catch(&STOP_SIGNALS, Restart::Yes).expect("installing the stop-signal handlers")
}
