// SPDX-License-Identifier: GPL-2.0-only
//! Helpers shared by the project's tests.
//!
//! Privileged tests (root, BPF, netns, TUN) call [`require_root`]: outside CI
//! they skip with the reason when the capability is missing; with `CI=true`
//! the missing capability is a failure, so CI can never pass by skipping.
#![forbid(unsafe_code)]
pub mod modules;

use std::fs::{File, OpenOptions};
use std::path::PathBuf;

/// True when the test may go on; false (after printing why) when it must skip.
/// Panics under `CI=true` instead of skipping.
pub fn require_root(test: &str) -> bool {
    if nix::unistd::geteuid().is_root() {
        return true;
    }
    skip_or_fail(test, "needs root (BPF, network namespaces, TUN)")
}

/// Skips (returns false) or, under CI=true, fails with the reason.
pub fn skip_or_fail(test: &str, reason: &str) -> bool {
    if std::env::var("CI").as_deref() == Ok("true") {
        panic!("{test}: {reason}, and CI=true requires it");
    }
    eprintln!("skipped {test}: {reason}");
    false
}

/// The real traces (`C2TCP_TRACES`, default the repository's `traces/`), or
/// None after skip_or_fail when they are absent.
pub fn traces_dir(test: &str) -> Option<PathBuf> {
    let dir = std::env::var_os("C2TCP_TRACES")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../traces")));
    if dir.join("mahimahi").is_dir() {
        Some(dir)
    } else if skip_or_fail(test, &format!("the traces are not at {} (make traces)", dir.display())) {
        unreachable!()
    } else {
        None
    }
}

/// Held by every test that loads, unloads or relies on BPF registrations
/// (they are kernel-global): serialises such tests across threads *and*
/// processes, so two test binaries, or two checkouts, never pull the
/// congestion controls from under each other.
pub struct KernelLock {
    _file: File,
}

pub fn kernel_lock() -> KernelLock {
    std::fs::create_dir_all("/run/c2tcp").expect("creating /run/c2tcp");
    let file = OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open("/run/c2tcp/tests.lock")
        .expect("opening /run/c2tcp/tests.lock");
    // The lock goes with the file.
    plumbing::lock::exclusive(&file).expect("locking /run/c2tcp/tests.lock");
    KernelLock { _file: file }
}
