// SPDX-License-Identifier: GPL-2.0-only
//! Small facts about the host: privileges, bpffs, the cgroup-v2 mount and the
//! kernel's congestion-control lists.
use std::fs;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};

pub const BPFFS: &str = "/sys/fs/bpf";
pub const PIN_ROOT: &str = "/sys/fs/bpf/c2tcp";
const AVAILABLE: &str = "/proc/sys/net/ipv4/tcp_available_congestion_control";
const ALLOWED: &str = "/proc/sys/net/ipv4/tcp_allowed_congestion_control";
const DEFAULT_CC: &str = "/proc/sys/net/ipv4/tcp_congestion_control";

pub fn is_root() -> bool {
    nix::unistd::geteuid().is_root()
}

/// Fails with one sentence when the caller is not root.
pub fn require_root(what: &str) -> Result<()> {
    if !is_root() {
        bail!("{what} needs root (CAP_BPF, CAP_NET_ADMIN and CAP_SYS_ADMIN): run it with sudo");
    }
    Ok(())
}

fn mount_type(target: &str) -> Option<String> {
    let mounts = fs::read_to_string("/proc/mounts").ok()?;
    mounts.lines().rev().find_map(|l| {
        let mut f = l.split_whitespace();
        let (_src, dst, ty) = (f.next()?, f.next()?, f.next()?);
        (dst == target).then(|| ty.to_string())
    })
}

/// Remembers that c2tcp mounted bpffs, so unloading the last pin unmounts it.
const MOUNTED_MARK: &str = "/run/c2tcp/bpffs-mounted";

/// Entries the kernel's bpf_preload puts in every fresh bpffs; not ours.
const PRELOAD_ENTRIES: &[&str] = &["maps.debug", "progs.debug"];

/// Mounts bpffs on /sys/fs/bpf when nothing is mounted there yet.
pub fn ensure_bpffs() -> Result<()> {
    if mount_type(BPFFS).as_deref() == Some("bpf") {
        return Ok(());
    }
    fs::create_dir_all(BPFFS).ok();
    nix::mount::mount(
        Some("bpf"),
        BPFFS,
        Some("bpf"),
        nix::mount::MsFlags::empty(),
        None::<&str>,
    )
    .with_context(|| format!("mounting bpffs on {BPFFS}"))?;
    fs::create_dir_all("/run/c2tcp").ok();
    let _ = fs::write(MOUNTED_MARK, "");
    Ok(())
}

/// Unmounts the bpffs c2tcp mounted once nothing but the kernel's preload
/// entries is left in it; a bpffs someone else mounted is never touched.
pub fn release_bpffs() {
    if !Path::new(MOUNTED_MARK).exists() || mount_type(BPFFS).as_deref() != Some("bpf") {
        return;
    }
    let others = fs::read_dir(BPFFS)
        .map(|rd| {
            rd.flatten()
                .filter(|e| !PRELOAD_ENTRIES.contains(&e.file_name().to_string_lossy().as_ref()))
                .count()
        })
        .unwrap_or(1);
    if others == 0 && nix::mount::umount(BPFFS).is_ok() {
        let _ = fs::remove_file(MOUNTED_MARK);
    }
}

/// The cgroup-v2 mount point (`/sys/fs/cgroup` on pure v2 hosts,
/// `/sys/fs/cgroup/unified` on hybrid ones such as this project's CI).
pub fn cgroup2_root() -> Result<PathBuf> {
    let mounts = fs::read_to_string("/proc/mounts").context("reading /proc/mounts")?;
    mounts
        .lines()
        .find_map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            (f.len() >= 3 && f[2] == "cgroup2").then(|| PathBuf::from(f[1]))
        })
        .context("no cgroup v2 hierarchy is mounted (the socket option needs one): mount -t cgroup2 none /sys/fs/cgroup/unified")
}

fn read_list(path: &str) -> Vec<String> {
    fs::read_to_string(path)
        .map(|s| s.split_whitespace().map(str::to_string).collect())
        .unwrap_or_default()
}

pub fn available_ccs() -> Vec<String> {
    read_list(AVAILABLE)
}

pub fn allowed_ccs() -> Vec<String> {
    read_list(ALLOWED)
}

pub fn is_registered(name: &str) -> bool {
    available_ccs().iter().any(|c| c == name)
}

pub fn default_cc() -> String {
    fs::read_to_string(DEFAULT_CC)
        .map(|s| s.trim().to_string())
        .unwrap_or_default()
}

pub fn set_default_cc(name: &str) -> Result<()> {
    fs::write(DEFAULT_CC, name).with_context(|| format!("setting {DEFAULT_CC} to {name}"))
}

pub fn pin_dir(cc: &str) -> PathBuf {
    Path::new(PIN_ROOT).join(cc)
}

/// The pin that keeps a congestion control registered, in its `pin_dir`.
pub(crate) fn ops_pin(dir: &Path) -> PathBuf {
    dir.join("ops")
}
