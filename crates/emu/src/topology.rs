// SPDX-License-Identifier: GPL-2.0-only
//! Addresses and names of one emulator run, and the slot that makes them
//! unique among parallel runs on this machine.
//!
//! Every run takes a slot N in 0..16384, held by an flock on
//! `/run/c2tcp/slots/N.lock` for the life of the process (the kernel drops
//! it when the process dies, however it dies). Slot N owns the /30 at
//! 100.96.0.0 + 4N inside 100.64.0.0/10 (shared address space, never
//! routed on the Internet; 100.96/16 keeps clear of Mahimahi's 100.64.0.x):
//! `+1` is the outside ("base", the server's side), `+2` the inside (the
//! UE), and the TUN devices are `c2eNo` and `c2eNi`.
use std::fs::{self, File, OpenOptions};
use std::io::Write;
use std::net::Ipv4Addr;
use std::os::unix::fs::MetadataExt;
use std::path::PathBuf;

use anyhow::{bail, Context, Result};

pub const SLOT_DIR: &str = "/run/c2tcp/slots";
pub const SLOTS: u32 = 16384;
const BLOCK: u32 = u32::from_be_bytes([100, 96, 0, 0]);
/// Device names start with this (and end with `o` or `i`).
pub const IF_PREFIX: &str = "c2e";

/// A held slot; dropping it frees the slot.
pub struct Slot {
    index: u32,
    path: PathBuf,
    _lock: File,
}

fn try_lock(file: &File) -> bool {
    plumbing::lock::try_exclusive(file).unwrap_or(false)
}

/// Locks `path` if free; None when another live process holds it. Retries
/// when the file was replaced under us (a concurrent cleanup unlinked it).
fn lock_path(path: &PathBuf) -> Result<Option<File>> {
    loop {
        let f = OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(path)
            .with_context(|| format!("opening {}", path.display()))?;
        if !try_lock(&f) {
            return Ok(None);
        }
        match fs::metadata(path) {
            Ok(m) if m.ino() == f.metadata()?.ino() => return Ok(Some(f)),
            _ => continue,
        }
    }
}

impl Slot {
    /// Takes the lowest free slot.
    pub fn acquire() -> Result<Slot> {
        fs::create_dir_all(SLOT_DIR).with_context(|| format!("creating {SLOT_DIR}"))?;
        for index in 0..SLOTS {
            let path = PathBuf::from(format!("{SLOT_DIR}/{index}.lock"));
            if let Some(mut f) = lock_path(&path)? {
                f.set_len(0)?;
                writeln!(f, "{}", std::process::id())?;
                return Ok(Slot {
                    index,
                    path,
                    _lock: f,
                });
            }
        }
        bail!("all {SLOTS} emulator slots under {SLOT_DIR} are in use");
    }

    pub fn index(&self) -> u32 {
        self.index
    }

    fn addr(&self, offset: u32) -> Ipv4Addr {
        Ipv4Addr::from(BLOCK + 4 * self.index + offset)
    }

    /// The outside (server-side, "base") address.
    pub fn outside_addr(&self) -> Ipv4Addr {
        self.addr(1)
    }

    /// The inside (UE) address.
    pub fn inside_addr(&self) -> Ipv4Addr {
        self.addr(2)
    }

    /// The run's /30, e.g. `100.96.0.4/30`.
    pub fn subnet(&self) -> String {
        subnet_of(self.index)
    }

    pub fn outside_ifname(&self) -> String {
        format!("{IF_PREFIX}{}o", self.index)
    }

    pub fn inside_ifname(&self) -> String {
        format!("{IF_PREFIX}{}i", self.index)
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        let _ = fs::remove_file(&self.path);
    }
}

fn subnet_of(index: u32) -> String {
    format!("{}/30", Ipv4Addr::from(BLOCK + 4 * index))
}

/// The slot a device name or an unreachable route belongs to.
fn slot_of_ifname(name: &str) -> Option<u32> {
    let rest = name.strip_prefix(IF_PREFIX)?;
    let digits = rest.strip_suffix('o').or_else(|| rest.strip_suffix('i'))?;
    digits.parse().ok().filter(|&n| n < SLOTS)
}

fn slot_of_subnet(prefix: &str) -> Option<u32> {
    let (addr, len) = prefix.split_once('/')?;
    let a = u32::from(addr.parse::<Ipv4Addr>().ok()?);
    (len == "30" && a >= BLOCK && (a - BLOCK).is_multiple_of(4) && (a - BLOCK) / 4 < SLOTS)
        .then(|| (a - BLOCK) / 4)
}

/// Whether a live process holds slot `index`.
fn slot_in_use(index: u32) -> bool {
    let path = PathBuf::from(format!("{SLOT_DIR}/{index}.lock"));
    match File::open(&path) {
        Ok(f) => !try_lock(&f),
        Err(_) => false,
    }
}

fn ip_lines(args: &[&str]) -> Vec<String> {
    std::process::Command::new("ip")
        .args(args)
        .output()
        .map(|o| {
            String::from_utf8_lossy(&o.stdout)
                .lines()
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default()
}

fn ip_quiet(args: &[&str]) -> bool {
    std::process::Command::new("ip")
        .args(args)
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// Processes started for a run carry this in their environment (and pass
/// it on to their children), so a run killed before it could stop them can
/// still be cleaned up.
pub const SLOT_ENV: &str = "C2TCP_SLOT";

/// Pids whose environment says they belong to a slot no live run holds.
fn orphans() -> Vec<(i32, u32)> {
    let me = std::process::id() as i32;
    let mut found = Vec::new();
    let Ok(entries) = fs::read_dir("/proc") else {
        return found;
    };
    let key = format!("{SLOT_ENV}=");
    for e in entries.flatten() {
        let Some(pid) = e.file_name().to_str().and_then(|s| s.parse::<i32>().ok()) else {
            continue;
        };
        if pid == me {
            continue;
        }
        let Ok(env) = fs::read(format!("/proc/{pid}/environ")) else {
            continue;
        };
        let slot = env
            .split(|&b| b == 0)
            .filter_map(|kv| {
                std::str::from_utf8(kv)
                    .ok()?
                    .strip_prefix(key.as_str())?
                    .parse::<u32>()
                    .ok()
            })
            .next();
        if let Some(slot) = slot.filter(|&s| !slot_in_use(s)) {
            found.push((pid, slot));
        }
    }
    found
}

/// Removes, in the calling process's network namespace, what runs that are
/// no longer alive left behind: processes they started, our TUN devices,
/// the unreachable routes that guarded their address blocks (after closing
/// sockets still aimed at them), and their slot files. Returns one line per
/// thing removed.
pub fn cleanup() -> Result<Vec<String>> {
    let mut removed = Vec::new();
    for (pid, slot) in orphans() {
        // A pid we just read from /proc.
        if plumbing::process::signal(pid, plumbing::Signal::SIGKILL) {
            let comm = fs::read_to_string(format!("/proc/{pid}/comm")).unwrap_or_default();
            removed.push(format!(
                "process {pid} ({}) left by the run in slot {slot}",
                comm.trim()
            ));
        }
    }
    for line in ip_lines(&["-o", "link", "show", "type", "tun"]) {
        // "7: c2e3o: <...>"
        let Some(name) = line
            .split(": ")
            .nth(1)
            .map(|n| n.split('@').next().unwrap_or(n))
        else {
            continue;
        };
        if let Some(slot) = slot_of_ifname(name) {
            if !slot_in_use(slot) && ip_quiet(&["link", "del", name]) {
                removed.push(format!("TUN device {name}"));
            }
        }
    }
    for line in ip_lines(&["route", "show", "type", "unreachable"]) {
        // "unreachable 100.96.0.4/30"
        let Some(prefix) = line.split_whitespace().nth(1) else {
            continue;
        };
        if let Some(slot) = slot_of_subnet(prefix) {
            if !slot_in_use(slot) {
                let _ = std::process::Command::new("ss")
                    .args(["-K", "dst", prefix])
                    .output();
                if ip_quiet(&["route", "del", "unreachable", prefix]) {
                    removed.push(format!(
                        "unreachable route {prefix} (after closing sockets to it)"
                    ));
                }
            }
        }
    }
    if let Ok(entries) = fs::read_dir(SLOT_DIR) {
        for e in entries.flatten() {
            let name = e.file_name().to_string_lossy().to_string();
            let Some(index) = name
                .strip_suffix(".lock")
                .and_then(|n| n.parse::<u32>().ok())
            else {
                continue;
            };
            if let Ok(Some(_held)) = lock_path(&e.path()) {
                let pid = fs::read_to_string(e.path()).unwrap_or_default();
                fs::remove_file(e.path()).ok();
                removed.push(format!("stale slot {index} (pid {} is gone)", pid.trim()));
            }
        }
    }
    Ok(removed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_subnets_map_back_to_slots() {
        assert_eq!(slot_of_ifname("c2e12o"), Some(12));
        assert_eq!(slot_of_ifname("c2e12i"), Some(12));
        assert_eq!(slot_of_ifname("c2ex"), None);
        assert_eq!(slot_of_ifname("eth0"), None);
        assert_eq!(subnet_of(1), "100.96.0.4/30");
        assert_eq!(slot_of_subnet("100.96.0.4/30"), Some(1));
        assert_eq!(slot_of_subnet("100.96.255.252/30"), Some(16383));
        assert_eq!(slot_of_subnet("100.64.0.4/30"), None);
        assert_eq!(slot_of_subnet("100.96.0.5/30"), None);
    }

    #[test]
    fn parallel_slots_differ_and_are_reused() {
        if !testkit::require_root("parallel_slots_differ_and_are_reused") {
            return;
        }
        let a = Slot::acquire().unwrap();
        let b = Slot::acquire().unwrap();
        assert_ne!(a.index(), b.index());
        assert_ne!(a.outside_addr(), b.outside_addr());
        assert_eq!(u32::from(a.inside_addr()) - u32::from(a.outside_addr()), 1);
        assert!(slot_in_use(a.index()));
        let ia = a.index();
        drop(a);
        assert!(!slot_in_use(ia));
    }
}
