// SPDX-License-Identifier: GPL-2.0-only
//! Helpers shared by the project's tests.
//!
//! Privileged tests (root, BPF, netns, TUN) call [`require_root`]: outside CI
//! they skip with the reason when the capability is missing; with `CI=true`
//! the missing capability is a failure, so CI can never pass by skipping.
//!
//! Tests that load congestion controls compare the kernel's registrations
//! with what they were before the test ([`Registrations`]), so that the suite
//! holds, and leaves them alone, on a host where a user has loaded some.
#![forbid(unsafe_code)]
pub mod modules;

use std::collections::BTreeSet;
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

/// The kernel's congestion-control registrations as a test found them.
///
/// Registrations are kernel-global, and a test may not be the first to make
/// them: a user may have run `c2tcp load` (all of ours, or some) before `make
/// test`, and a bench may be running beside the tests. A test leaves them as
/// it found them: what it (or a run it started) registered is gone
/// afterwards, and what was registered before is still there, neither
/// unloaded nor reconfigured by the test. So a test takes a snapshot before
/// it loads anything and compares with it after, rather than asserting that
/// nothing is registered.
#[derive(Debug, Clone)]
pub struct Registrations {
    /// `tcp_available_congestion_control`.
    registered: BTreeSet<String>,
    /// `tcp_allowed_congestion_control` (selectable without privileges).
    allowed: BTreeSet<String>,
    /// The pin directories under `/sys/fs/bpf/c2tcp` (`c2tcp load`'s).
    pinned: BTreeSet<String>,
}

const AVAILABLE: &str = "/proc/sys/net/ipv4/tcp_available_congestion_control";
const ALLOWED: &str = "/proc/sys/net/ipv4/tcp_allowed_congestion_control";
const PIN_ROOT: &str = "/sys/fs/bpf/c2tcp";

fn words(file: &str) -> BTreeSet<String> {
    std::fs::read_to_string(file)
        .unwrap_or_else(|e| panic!("reading {file}: {e}"))
        .split_whitespace()
        .map(str::to_string)
        .collect()
}

impl Registrations {
    /// What is registered, selectable and pinned now.
    pub fn now() -> Registrations {
        let pinned = std::fs::read_dir(PIN_ROOT)
            .map(|rd| {
                rd.flatten()
                    .map(|e| e.file_name().to_string_lossy().into_owned())
                    .collect()
            })
            .unwrap_or_default();
        Registrations {
            registered: words(AVAILABLE),
            allowed: words(ALLOWED),
            pinned,
        }
    }

    /// Whether `cc` was registered when the snapshot was taken.
    pub fn has(&self, cc: &str) -> bool {
        self.registered.contains(cc)
    }

    /// True (after printing why) when one of `ccs` was registered before
    /// `test` ran: a test that must load its own instance of them (from
    /// nothing, in a form of its own, or reconfigured) and unload it cannot
    /// run without taking them from whoever registered them, so it does not
    /// run. Not a missing capability: it holds with `CI=true` too, and the
    /// kernel matrix's guests, where nothing is registered, run it whole.
    pub fn held_by_someone_else(&self, test: &str, ccs: &[&str]) -> bool {
        let held: Vec<&str> = ccs.iter().copied().filter(|cc| self.has(cc)).collect();
        if held.is_empty() {
            return false;
        }
        eprintln!(
            "skipped {test}: {} registered before it ran (a user's `c2tcp load`, or a bench \
             beside the tests); it needs its own and would have to unload theirs",
            held.join(", ")
        );
        true
    }

    /// Panics naming each of `ccs` that was not registered before and is
    /// now (registered, selectable or pinned): the test, or a run it
    /// started, left it behind, or loaded more than it was asked to.
    pub fn assert_none_new(&self, ccs: &[&str]) {
        let now = Registrations::now();
        let new: Vec<String> = ccs
            .iter()
            .filter(|cc| !self.has(cc))
            .filter_map(|cc| {
                let what: Vec<&str> = [
                    (now.registered.contains(*cc), "registered"),
                    (now.allowed.contains(*cc) && !self.allowed.contains(*cc), "allowed"),
                    (now.pinned.contains(*cc) && !self.pinned.contains(*cc), "pinned"),
                ]
                .into_iter()
                .filter_map(|(is, word)| is.then_some(word))
                .collect();
                (!what.is_empty()).then(|| format!("{cc} ({})", what.join(", ")))
            })
            .collect();
        assert!(
            new.is_empty(),
            "left behind, though not registered before the test: {}",
            new.join("; ")
        );
    }

    /// Panics naming each of `ccs` not as it was before: one that was not
    /// registered and now is (as [`assert_none_new`](Self::assert_none_new)),
    /// or one that was registered (by a user) and no longer is, or lost its
    /// pins or its place in the allowed list: the test took it from them.
    pub fn assert_left_as_found(&self, ccs: &[&str]) {
        self.assert_none_new(ccs);
        let now = Registrations::now();
        let taken: Vec<String> = ccs
            .iter()
            .filter(|cc| self.has(cc))
            .filter_map(|cc| {
                let what: Vec<&str> = [
                    (!now.registered.contains(*cc), "unregistered"),
                    (self.allowed.contains(*cc) && !now.allowed.contains(*cc), "no longer allowed"),
                    (self.pinned.contains(*cc) && !now.pinned.contains(*cc), "unpinned"),
                ]
                .into_iter()
                .filter_map(|(is, word)| is.then_some(word))
                .collect();
                (!what.is_empty()).then(|| format!("{cc} ({})", what.join(", ")))
            })
            .collect();
        assert!(
            taken.is_empty(),
            "registered before the test, and taken away by it: {}",
            taken.join("; ")
        );
    }
}
