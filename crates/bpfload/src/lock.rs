// SPDX-License-Identifier: GPL-2.0-only
//! Registered congestion controls and cgroup hooks are kernel-global, so every
//! process that loads, unloads or relies on them takes this lock: exclusive to
//! change the registrations, shared to use them. A run that loaded c2tcp for
//! itself unloads it only when no other user holds the lock. The flock itself
//! is `plumbing::lock`'s.
use std::fs::{self, File, OpenOptions};

use anyhow::{Context, Result};
use plumbing::lock;

const LOCK_DIR: &str = "/run/c2tcp";
const LOCK_FILE: &str = "/run/c2tcp/bpf.lock";

pub struct BpfLock {
    file: File,
}

fn open() -> Result<File> {
    fs::create_dir_all(LOCK_DIR).with_context(|| format!("creating {LOCK_DIR}"))?;
    OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(LOCK_FILE)
        .with_context(|| format!("opening {LOCK_FILE}"))
}

impl BpfLock {
    /// Waits for sole ownership (load, unload). Polled rather than blocked
    /// in flock, so that a stop signal (Ctrl-C: `plumbing::signals`) ends
    /// the wait, and so that a wait of more than a second is said: another
    /// bench holds the shared side for its whole life, and this one can
    /// only load what it lacks once that one is done.
    pub fn exclusive() -> Result<Self> {
        use std::sync::atomic::Ordering;
        let file = open()?;
        let started = std::time::Instant::now();
        let mut said = false;
        loop {
            if lock::try_exclusive(&file).with_context(|| format!("locking {LOCK_FILE}"))? {
                return Ok(Self { file });
            }
            if plumbing::signals::flag().load(Ordering::SeqCst) {
                anyhow::bail!("stopped while waiting for {LOCK_FILE}");
            }
            if !said && started.elapsed() > std::time::Duration::from_secs(1) {
                eprintln!(
                    "c2tcp: waiting for {LOCK_FILE}: other experiments on this machine are using the loaded congestion controls, and this one must load or unload one; it goes on when they end (Ctrl-C to give up)"
                );
                said = true;
            }
            std::thread::sleep(std::time::Duration::from_millis(100));
        }
    }

    /// Waits for shared use (a run that needs the programs to stay loaded).
    pub fn shared() -> Result<Self> {
        let file = open()?;
        lock::shared(&file).with_context(|| format!("locking {LOCK_FILE}"))?;
        Ok(Self { file })
    }

    /// Tries to turn a shared hold into sole ownership without waiting; true
    /// when no other process uses the registrations. flock converts by
    /// dropping the old lock first, so after `false` the caller holds nothing
    /// and must only be on its way out.
    pub fn try_upgrade(&self) -> bool {
        matches!(lock::try_exclusive(&self.file), Ok(true))
    }

    pub fn downgrade(&self) -> Result<()> {
        lock::shared(&self.file).with_context(|| format!("downgrading {LOCK_FILE}"))
    }
}
