// SPDX-License-Identifier: GPL-2.0-only
//! Keeps the BPF congestion controls a run needs loaded for as long as the
//! run lasts, without pulling them from under anyone else.
//!
//! Registrations are kernel-global and shared by every run on the machine.
//! A run takes the shared side of `/run/c2tcp/bpf.lock`; what it had to load
//! itself is marked "auto-loaded" (`/run/c2tcp/autoload/<cc>`). When a run
//! ends and no other run holds the lock, it unloads what was auto-loaded, so
//! a run leaves the kernel as it found it. An explicit `c2tcp load` clears
//! the marks: what the user loaded stays loaded.
use std::fs;
use std::path::PathBuf;

use crate::lock::BpfLock;
use crate::{LoadOptions, LoadOutcome};
use anyhow::Result;

const AUTOLOAD_DIR: &str = "/run/c2tcp/autoload";

fn mark(cc: &str) -> PathBuf {
    PathBuf::from(AUTOLOAD_DIR).join(cc)
}

/// The congestion controls marked auto-loaded.
fn marked() -> Vec<String> {
    fs::read_dir(AUTOLOAD_DIR)
        .map(|rd| {
            rd.flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default()
}

/// Forgets the auto-load marks of these congestion controls (all when empty):
/// called by an explicit `c2tcp load` / `unload`.
pub fn clear_marks(ccs: &[&str]) {
    if ccs.is_empty() {
        let _ = fs::remove_dir_all(AUTOLOAD_DIR);
    } else {
        for cc in ccs {
            let _ = fs::remove_file(mark(cc));
        }
    }
}

/// Held for the duration of a run.
pub struct BpfUse {
    lock: Option<BpfLock>,
}

impl BpfUse {
    /// Makes sure `ccs` are loaded (loading and marking those that are not)
    /// and holds them loaded until dropped. No-op for an empty list.
    pub fn acquire(ccs: &[&str]) -> Result<BpfUse> {
        if ccs.is_empty() {
            return Ok(BpfUse { lock: None });
        }
        let missing = |ccs: &[&str]| -> Vec<String> {
            ccs.iter()
                .filter(|cc| {
                    crate::cc::spec(cc)
                        .map(|s| !crate::cc::is_loaded(s))
                        .unwrap_or(true)
                })
                .map(|cc| cc.to_string())
                .collect()
        };
        // Usually everything is loaded already (by `c2tcp load`, or by the
        // bench this run is a child of, which holds the shared side): then
        // sharing is all we need, and asking for sole ownership would wait
        // for that parent forever.
        let shared = BpfLock::shared()?;
        if missing(ccs).is_empty() {
            return Ok(BpfUse { lock: Some(shared) });
        }
        drop(shared);
        let lock = BpfLock::exclusive()?;
        let todo = missing(ccs);
        if !todo.is_empty() {
            for (cc, outcome) in crate::load(&todo, &LoadOptions::default())? {
                debug(&format!("loaded {cc}: {outcome:?}"));
                if outcome == LoadOutcome::Loaded {
                    fs::create_dir_all(AUTOLOAD_DIR)?;
                    fs::write(mark(cc), std::process::id().to_string())?;
                }
            }
        }
        lock.downgrade()?;
        Ok(BpfUse { lock: Some(lock) })
    }
}

impl Drop for BpfUse {
    fn drop(&mut self) {
        let Some(lock) = self.lock.take() else { return };
        if !lock.try_upgrade() {
            debug("another user holds the lock: leaving the auto-loaded programs to it");
            return; // someone else still uses them; the last one out unloads
        }
        let marked = marked();
        debug(&format!("sole user; auto-loaded: {marked:?}"));
        if marked.is_empty() {
            return;
        }
        match crate::unload(&marked) {
            Ok(_) => clear_marks(&[]),
            Err(e) => eprintln!(
                "c2tcp: could not unload auto-loaded {}: {e:#}",
                marked.join(", ")
            ),
        }
    }
}

/// `C2TCP_DEBUG_BPF=1` traces the shared-use decisions on stderr.
fn debug(msg: &str) {
    if std::env::var_os("C2TCP_DEBUG_BPF").is_some() {
        eprintln!("c2tcp[{}] bpf use: {msg}", std::process::id());
    }
}

/// After a crash: unloads what a dead run auto-loaded, when no run is using
/// the registrations (the exclusive lock is free). Returns what it unloaded.
pub fn cleanup_autoloaded() -> Result<Vec<String>> {
    let marked = marked();
    if marked.is_empty() {
        return Ok(Vec::new());
    }
    let lock = BpfLock::shared()?;
    if !lock.try_upgrade() {
        anyhow::bail!(
            "auto-loaded {} still in use by a running c2tcp run or bench; not unloading",
            marked.join(", ")
        );
    }
    let done = crate::unload(&marked)?;
    clear_marks(&[]);
    Ok(done.into_iter().map(str::to_string).collect())
}
