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

use crate::cc::{LoadOptions, LoadOutcome};
use crate::lock::BpfLock;
use crate::object::{self, UserObject};
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
        BpfUse::acquire_with(ccs, &[])
    }

    /// As [`acquire`](Self::acquire), with users' own objects (`bpf`
    /// schemes) too: loaded, marked and unloaded by the last user exactly
    /// as ours are.
    pub fn acquire_with(ccs: &[&str], objects: &[UserObject]) -> Result<BpfUse> {
        let (using, refused) = BpfUse::acquire_each(ccs, objects)?;
        match refused.into_iter().next() {
            None => Ok(using),
            Some((_, e)) => Err(e),
        }
    }

    /// As [`acquire_with`](Self::acquire_with), loading each congestion
    /// control on its own: one the kernel refuses does not stop the others.
    /// Returns the use of those that loaded and each refused one's name and
    /// error (a bench fails that scheme's runs with it and runs the rest).
    pub fn acquire_each(
        ccs: &[&str],
        objects: &[UserObject],
    ) -> Result<(BpfUse, Vec<(String, anyhow::Error)>)> {
        let mut refused = Vec::new();
        if ccs.is_empty() && objects.is_empty() {
            return Ok((BpfUse { lock: None }, refused));
        }
        let missing = || -> (Vec<String>, Vec<&UserObject>) {
            let ours = ccs
                .iter()
                .filter(|cc| {
                    crate::cc::spec(cc)
                        .map(|s| !crate::cc::is_loaded(s))
                        .unwrap_or(true)
                })
                .map(|cc| cc.to_string())
                .collect();
            let theirs = objects
                .iter()
                .filter(|o| !object::is_loaded(&o.cc))
                .collect();
            (ours, theirs)
        };
        // Usually everything is loaded already (by `c2tcp load`, or by the
        // bench this run is a child of, which holds the shared side): then
        // sharing is all we need, and asking for sole ownership would wait
        // for that parent forever.
        let shared = BpfLock::shared()?;
        let (ours, theirs) = missing();
        if ours.is_empty() && theirs.is_empty() {
            return Ok((BpfUse { lock: Some(shared) }, refused));
        }
        drop(shared);
        let lock = BpfLock::exclusive()?;
        let (ours, theirs) = missing();
        // Each mark is written as soon as its load succeeds, so a later
        // failure leaves nothing unmarked (`c2tcp cleanup` finds the marks).
        let marked_now = |cc: &str| -> Result<()> {
            fs::create_dir_all(AUTOLOAD_DIR)?;
            fs::write(mark(cc), std::process::id().to_string())?;
            Ok(())
        };
        for cc in &ours {
            match crate::load(std::slice::from_ref(cc), &LoadOptions::default()) {
                Ok(done) => {
                    for (cc, outcome) in done {
                        debug(&format!("loaded {cc}: {outcome:?}"));
                        if outcome == LoadOutcome::Loaded {
                            marked_now(cc)?;
                        }
                    }
                }
                Err(e) => refused.push((cc.clone(), e)),
            }
        }
        for obj in theirs {
            match object::load(obj) {
                Ok(outcome) => {
                    debug(&format!(
                        "loaded {} from {}: {outcome:?}",
                        obj.cc,
                        obj.path.display()
                    ));
                    if outcome == LoadOutcome::Loaded {
                        marked_now(&obj.cc)?;
                    }
                }
                Err(e) => refused.push((obj.cc.clone(), e)),
            }
        }
        lock.downgrade()?;
        Ok((BpfUse { lock: Some(lock) }, refused))
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
        match crate::cc::unload_any(&marked) {
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
    let done = crate::cc::unload_any(&marked)?;
    clear_marks(&[]);
    Ok(done)
}
