// SPDX-License-Identifier: GPL-2.0-only
//! Ctrl-C, SIGTERM and SIGHUP ask a run or a bench to stop: the handler only
//! raises a flag; the code polls it, tears everything down and keeps what it
//! measured, marked as interrupted.
use std::sync::atomic::{AtomicBool, Ordering};

static STOP: AtomicBool = AtomicBool::new(false);

extern "C" fn on_signal(_sig: libc::c_int) {
    STOP.store(true, Ordering::SeqCst);
}

/// Installs the handlers and returns the flag they raise.
pub fn install() -> &'static AtomicBool {
    for sig in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP] {
        // SAFETY: the handler only stores into an atomic (async-signal-safe).
        unsafe { libc::signal(sig, on_signal as *const () as libc::sighandler_t) };
    }
    &STOP
}
