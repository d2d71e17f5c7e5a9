// SPDX-License-Identifier: GPL-2.0-only
//! One owner per bench directory and per run directory: an advisory lock
//! (flock) on `<dir>/.lock`, which the kernel releases when the last process
//! holding it dies, however it dies. The owner writes its pid, command and
//! start time into the file, so a process that is refused can name it.
//!
//! A bench hands a run directory's lock to the `c2tcp run` child that does
//! the run, as the child's stdin: both then hold the same open file, so the
//! lock lasts until both are gone and an orphaned run still owns its
//! directory. flock is taken through libc rather than `nix::fcntl::Flock`,
//! whose drop unlocks explicitly and would take the lock from under a child
//! that shares it; here closing the file is the only release.
use std::fmt;
use std::fs::{File, OpenOptions};
use std::io::{Seek, SeekFrom, Write};
use std::os::fd::{AsFd, AsRawFd};
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

/// The lock file inside an owned directory.
pub const LOCK_FILE: &str = results::LOCK;

/// The lock file of `dir`.
pub fn lock_path(dir: &Path) -> PathBuf {
    dir.join(LOCK_FILE)
}

/// A held directory; dropping it (closing the file) lets go, unless a child
/// still holds the same open file.
#[derive(Debug)]
pub struct Ownership {
    file: File,
    dir: PathBuf,
}

/// Who holds a directory, as its lock file says.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Holder {
    pub pid: Option<u32>,
    pub command: String,
    /// Local time, `YYYY-MM-DD HH:MM:SS`.
    pub started: String,
}

impl fmt::Display for Holder {
    /// `pid 123 (c2tcp bench, started 12:34:56)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let Some(pid) = self.pid else {
            // Taken a moment ago, its owner not yet written in.
            return write!(f, "another process");
        };
        let time = self.started.rsplit(' ').next().unwrap_or(&self.started);
        write!(f, "pid {pid} ({}, started {time})", self.command)
    }
}

/// What asking for a directory gives.
#[derive(Debug)]
pub enum Claim {
    Owned(Ownership),
    Busy(Holder),
}

/// `<what>: <dir> is in use by pid N (<command>, started HH:MM:SS); wait
/// for it or choose another --out`: the refusal every command prints.
pub fn in_use_message(what: &str, dir: &Path, holder: &Holder) -> String {
    format!(
        "{what}: {} is in use by {holder}; wait for it or choose another --out",
        dir.display()
    )
}

fn open_lock(dir: &Path) -> Result<File> {
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    let path = lock_path(dir);
    OpenOptions::new()
        .create(true)
        .truncate(false)
        .read(true)
        .write(true)
        .open(&path)
        .with_context(|| format!("opening {}", path.display()))
}

/// flock without waiting; false when another open file holds it.
fn try_lock(file: &File) -> Result<bool> {
    plumbing::lock::try_exclusive(file).context("flock")
}

/// Takes `dir` (created if missing) for `command` (`c2tcp bench`,
/// `c2tcp run`) if no live process holds it; never waits.
pub fn try_claim(dir: &Path, command: &str) -> Result<Claim> {
    let file = open_lock(dir)?;
    if !try_lock(&file)? {
        return Ok(Claim::Busy(holder_of(dir)));
    }
    let own = Ownership {
        file,
        dir: dir.to_path_buf(),
    };
    own.sign(command)?;
    Ok(Claim::Owned(own))
}

/// Who holds `dir`, as far as its lock file says.
pub fn holder_of(dir: &Path) -> Holder {
    let text = std::fs::read_to_string(lock_path(dir)).unwrap_or_default();
    let mut h = Holder::default();
    for line in text.lines() {
        match line.split_once('=') {
            Some(("pid", v)) => h.pid = v.trim().parse().ok(),
            Some(("command", v)) => h.command = v.to_string(),
            Some(("started", v)) => h.started = v.to_string(),
            _ => {}
        }
    }
    h
}

impl Ownership {
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Writes this process in as the holder.
    pub fn sign(&self, command: &str) -> Result<()> {
        let text = format!(
            "pid={}\ncommand={command}\nstarted={}\n",
            std::process::id(),
            local_time_now()
        );
        let mut f = &self.file;
        f.set_len(0)
            .and_then(|()| f.seek(SeekFrom::Start(0)).map(drop))
            .and_then(|()| f.write_all(text.as_bytes()))
            .with_context(|| format!("writing {}", lock_path(&self.dir).display()))
    }

    /// Another handle on the same open file, to give a child (as its stdin):
    /// the child then shares the lock.
    pub fn share(&self) -> Result<File> {
        self.file
            .try_clone()
            .context("sharing a run directory's lock")
    }

    /// The lock a parent bench handed this process as its stdin, if stdin
    /// is `<dir>/.lock` (same device and inode); else None and stdin is left
    /// alone. The lock moves to a close-on-exec descriptor and stdin becomes
    /// /dev/null, so programs this run starts do not hold it too.
    pub fn inherited(dir: &Path, command: &str) -> Result<Option<Ownership>> {
        let Ok(on_disk) = std::fs::metadata(lock_path(dir)) else {
            return Ok(None);
        };
        let stdin = std::io::stdin();
        let Ok(st) = nix::sys::stat::fstat(stdin.as_raw_fd()) else {
            return Ok(None);
        };
        if st.st_dev != on_disk.dev() || st.st_ino != on_disk.ino() {
            return Ok(None);
        }
        // A close-on-exec duplicate (F_DUPFD_CLOEXEC, at 3 or above).
        let file = File::from(
            stdin
                .as_fd()
                .try_clone_to_owned()
                .context("keeping the inherited lock")?,
        );
        let null = File::open("/dev/null").context("opening /dev/null")?;
        nix::unistd::dup2(null.as_raw_fd(), stdin.as_raw_fd()).context("replacing stdin")?;
        // Same open file: succeeds when the parent locked it, locks it if not.
        if !try_lock(&file)? {
            return Ok(None);
        }
        let own = Ownership {
            file,
            dir: dir.to_path_buf(),
        };
        own.sign(command)?;
        Ok(Some(own))
    }

    /// Empties the directory but for its lock (which must stay: another
    /// process may be waiting on that very file).
    pub fn clear(&self) -> Result<()> {
        for entry in std::fs::read_dir(&self.dir)
            .with_context(|| format!("reading {}", self.dir.display()))?
        {
            let entry = entry?;
            if entry.file_name() == LOCK_FILE {
                continue;
            }
            let path = entry.path();
            let removed = if entry.file_type()?.is_dir() {
                std::fs::remove_dir_all(&path)
            } else {
                std::fs::remove_file(&path)
            };
            removed.with_context(|| format!("clearing {}", path.display()))?;
        }
        Ok(())
    }
}

/// Local wall-clock time, `YYYY-MM-DD HH:MM:SS`.
fn local_time_now() -> String {
    plumbing::clock::local_time_now()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_claim_is_refused_and_names_the_holder() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("bench");
        let Claim::Owned(own) = try_claim(&dir, "c2tcp bench").unwrap() else {
            panic!("a fresh directory is free");
        };
        // A second open file is refused, even in the same process.
        let Claim::Busy(h) = try_claim(&dir, "c2tcp bench").unwrap() else {
            panic!("a held directory was claimed twice");
        };
        assert_eq!(h.pid, Some(std::process::id()));
        assert_eq!(h.command, "c2tcp bench");
        let msg = in_use_message("c2tcp bench", &dir, &h);
        assert!(
            msg.contains(&format!(
                "is in use by pid {} (c2tcp bench, started ",
                std::process::id()
            )) && msg.ends_with("); wait for it or choose another --out"),
            "{msg}"
        );
        // A share is the same open file: closing the original keeps it held.
        let shared = own.share().unwrap();
        drop(own);
        assert!(matches!(try_claim(&dir, "x").unwrap(), Claim::Busy(_)));
        drop(shared);
        assert!(matches!(try_claim(&dir, "x").unwrap(), Claim::Owned(_)));
    }

    #[test]
    fn clearing_keeps_the_lock_file() {
        let tmp = tempfile::tempdir().unwrap();
        let Claim::Owned(own) = try_claim(tmp.path(), "c2tcp bench").unwrap() else {
            panic!()
        };
        std::fs::create_dir_all(tmp.path().join("uplink")).unwrap();
        std::fs::write(tmp.path().join("uplink/metrics.json"), "{").unwrap();
        std::fs::write(tmp.path().join("metrics.json"), "{\"aggr").unwrap();
        own.clear().unwrap();
        let left: Vec<_> = std::fs::read_dir(tmp.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(left, [LOCK_FILE]);
        assert!(matches!(
            try_claim(tmp.path(), "x").unwrap(),
            Claim::Busy(_)
        ));
    }
}
