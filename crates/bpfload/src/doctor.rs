// SPDX-License-Identifier: GPL-2.0-only
//! `c2tcp doctor`: can this machine run c2tcp? One line per capability.
use std::fs;
use std::mem::MaybeUninit;
use std::path::Path;
use std::process::Command;

use libbpf_rs::btf::Btf;
use libbpf_rs::skel::{OpenSkel, SkelBuilder};
use serde::Serialize;

use crate::skel::abc::AbcSkelBuilder;
use crate::skel::c2tcp::C2tcpSkelBuilder;
use crate::skel::compound::CompoundSkelBuilder;
use crate::skel::ledbat::LedbatSkelBuilder;
use crate::skel::vegas::VegasSkelBuilder;
use crate::skel::vivace::VivaceSkelBuilder;
use crate::skel::westwood::WestwoodSkelBuilder;
use crate::sys;

#[derive(Debug, Serialize)]
pub struct Check {
    pub name: &'static str,
    pub ok: bool,
    /// What was found, or what to do about it.
    pub detail: String,
}

fn check(name: &'static str, r: Result<String, String>) -> Check {
    match r {
        Ok(detail) => Check {
            name,
            ok: true,
            detail,
        },
        Err(detail) => Check {
            name,
            ok: false,
            detail,
        },
    }
}

const KFUNCS: &[&str] = &[
    "cubictcp_init",
    "cubictcp_recalc_ssthresh",
    "cubictcp_cong_avoid",
    "cubictcp_state",
    "cubictcp_acked",
    "tcp_reno_undo_cwnd",
];

pub fn checks() -> Vec<Check> {
    let root = sys::is_root();
    let mut out = vec![check(
        "root",
        if root {
            Ok("running as root".into())
        } else {
            Err("not root: run c2tcp with sudo".into())
        },
    )];

    let btf_path = "/sys/kernel/btf/vmlinux";
    out.push(check(
        "kernel BTF",
        if Path::new(btf_path).exists() {
            Ok(btf_path.into())
        } else {
            Err(format!(
                "{btf_path} is missing: boot a kernel built with CONFIG_DEBUG_INFO_BTF=y"
            ))
        },
    ));

    out.push(check("cubic kfuncs", kfuncs_present()));

    out.push(check(
        "BPF struct_ops + verifier",
        if !root {
            Err("needs root to try: run `sudo c2tcp doctor`".into())
        } else {
            try_load_objects()
        },
    ));

    out.push(check(
        "cgroup v2",
        sys::cgroup2_root()
            .map(|p| format!("mounted at {}", p.display()))
            .map_err(|e| e.to_string()),
    ));

    out.push(check(
        "bpffs",
        if fs::read_to_string("/proc/mounts")
            .unwrap_or_default()
            .lines()
            .any(|l| l.contains(" /sys/fs/bpf bpf "))
        {
            Ok("mounted at /sys/fs/bpf".into())
        } else if root {
            Ok("not mounted; `c2tcp load` mounts it on /sys/fs/bpf".into())
        } else {
            Err("not mounted, and mounting needs root".into())
        },
    ));

    out.push(check(
        "TUN",
        fs::OpenOptions::new()
            .read(true)
            .write(true)
            .open("/dev/net/tun")
            .map(|_| "/dev/net/tun opens".to_string())
            .map_err(|e| format!("/dev/net/tun: {e}: load the tun driver or run as root")),
    ));

    out.push(check("network namespaces", try_netns()));

    out.push(check(
        "iproute2",
        Command::new("ip")
            .arg("-V")
            .output()
            .ok()
            .filter(|o| o.status.success())
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
            .ok_or_else(|| "`ip` not found: apt-get install iproute2".to_string()),
    ));
    out
}

fn kfuncs_present() -> Result<String, String> {
    let btf = Btf::from_vmlinux().map_err(|e| format!("cannot read kernel BTF: {e}"))?;
    let missing: Vec<&str> = KFUNCS
        .iter()
        .copied()
        .filter(|name| {
            btf.type_by_name::<libbpf_rs::btf::types::Func<'_>>(name)
                .is_none()
        })
        .collect();
    if missing.is_empty() {
        Ok(format!("{} found in kernel BTF", KFUNCS.len()))
    } else {
        Err(format!(
            "missing {}: the kernel's Cubic must be built in (CONFIG_TCP_CONG_CUBIC=y) on Linux >= 6.0",
            missing.join(", ")
        ))
    }
}

/// Loads each object into the kernel (verifier, kfunc resolution, struct_ops
/// type match) and releases it at once, attaching nothing.
fn try_load_objects() -> Result<String, String> {
    macro_rules! try_load {
        ($builder:ty, $name:literal) => {{
            let mut storage = MaybeUninit::uninit();
            let open = <$builder>::default()
                .open(&mut storage)
                .map_err(|e| format!("opening {}: {e}", $name))?;
            open.load()
                .map_err(|e| format!("the verifier rejected {}: {e:#}", $name))?;
        }};
    }
    try_load!(C2tcpSkelBuilder, "c2tcp");
    try_load!(WestwoodSkelBuilder, "westwood");
    try_load!(VegasSkelBuilder, "vegas");
    try_load!(VivaceSkelBuilder, "vivace");
    try_load!(LedbatSkelBuilder, "ledbat");
    try_load!(CompoundSkelBuilder, "compound");
    try_load!(AbcSkelBuilder, "abc");
    Ok(
        "c2tcp, westwood, vegas, vivace, ledbat, compound and abc pass the verifier (loaded and released, nothing attached)"
            .into(),
    )
}

fn try_netns() -> Result<String, String> {
    std::thread::spawn(|| nix::sched::unshare(nix::sched::CloneFlags::CLONE_NEWNET))
        .join()
        .map_err(|_| "the probe thread panicked".to_string())?
        .map(|_| "a new network namespace can be created".to_string())
        .map_err(|e| format!("unshare(CLONE_NEWNET): {e}: needs root (CAP_SYS_ADMIN)"))
}
