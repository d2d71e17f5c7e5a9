// SPDX-License-Identifier: GPL-2.0-only
//! `c2tcp doctor`: can this machine run c2tcp? A line per capability of the
//! host, per kernel feature (`features.rs`), per congestion control (loaded
//! into the kernel in the form `load` would use and released, or refused by
//! name) and per command that depends on an optional feature. Every failure
//! names the kernel's own error (`explain.rs`).
use std::fs;
use std::path::Path;
use std::process::Command;

use serde::Serialize;

use crate::cc::CCS;
use crate::features::{self, probe, Feature, Presence, Release};
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

/// A kernel feature as `doctor` reports it.
#[derive(Debug, Serialize)]
pub struct FeatureReport {
    pub name: &'static str,
    pub present: bool,
    /// `present`, `missing`, `refused` or `unknown`.
    pub state: &'static str,
    pub first_kernel: Release,
    pub what: &'static str,
    pub detail: String,
    /// Whether anything is lost without it (else an older form does the same).
    pub degrades: bool,
    /// What c2tcp does without it.
    pub without: &'static str,
}

/// A congestion control's verdict on this kernel.
#[derive(Debug, Serialize)]
pub struct CcReport {
    pub name: &'static str,
    /// Loaded into this kernel (and released) in the form `load` uses; with
    /// a required feature missing, false without trying.
    pub loadable: bool,
    pub detail: String,
    /// Required features this kernel lacks or refuses.
    pub missing: Vec<&'static str>,
    /// Features it works without here, losing something: each with what.
    pub degraded: Vec<String>,
    /// Features this kernel lacks that it replaces with an older form that
    /// does the same.
    pub older_forms: Vec<&'static str>,
    /// For a congestion control that reads CE counts (Prague), which
    /// feedback its connections get on this host ([`ecn_feedback`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ecn_feedback: Option<String>,
}

/// A command that needs an optional feature.
#[derive(Debug, Serialize)]
pub struct CommandReport {
    pub command: &'static str,
    pub ok: bool,
    pub detail: String,
}

#[derive(Debug, Serialize)]
pub struct Report {
    pub kernel: String,
    pub checks: Vec<Check>,
    pub features: Vec<FeatureReport>,
    pub ccs: Vec<CcReport>,
    pub commands: Vec<CommandReport>,
}

impl Report {
    /// Whether anything failed (a degraded feature is a warning, not a failure).
    pub fn ok(&self) -> bool {
        self.checks.iter().all(|c| c.ok) && self.ccs.iter().all(|c| c.loadable)
    }
}

/// Everything `c2tcp doctor` says.
pub fn report() -> Report {
    let p = probe();
    let features = features::FEATURES
        .iter()
        .map(|fi| {
            let (state, detail) = match p.presence(fi.feature) {
                Presence::Present => ("present", String::new()),
                Presence::Missing(d) => ("missing", d.clone()),
                Presence::Refused(d) => ("refused", d.clone()),
                Presence::Unknown(d) => ("unknown", d.clone()),
            };
            FeatureReport {
                name: fi.feature.key(),
                present: state == "present",
                state,
                first_kernel: fi.first_kernel,
                what: fi.what,
                detail,
                degrades: fi.degrades,
                without: fi.without,
            }
        })
        .collect();
    let ccs: Vec<CcReport> = CCS.iter().map(cc_report).collect();
    let commands = command_reports(&ccs);
    Report {
        kernel: p.kernel.clone(),
        checks: checks(),
        features,
        ccs,
        commands,
    }
}

fn cc_report(cc: &crate::cc::CcSpec) -> CcReport {
    let missing = cc.missing();
    let degraded = cc
        .degraded()
        .into_iter()
        .map(|f| format!("{}: {}", f.key(), features::info(f).without))
        .collect();
    let (loadable, detail) = if !missing.is_empty() {
        (false, crate::cc::describe_missing(&missing))
    } else if !sys::is_root() {
        (false, "needs root to try: run `sudo c2tcp doctor`".into())
    } else {
        match cc.trial_load() {
            Ok(()) => (true, "loads (loaded and released, nothing attached)".into()),
            Err(e) => (false, format!("{e:#}")),
        }
    };
    CcReport {
        name: cc.name,
        loadable,
        detail,
        missing: missing.iter().map(|f| f.key()).collect(),
        degraded,
        older_forms: cc
            .older_forms()
            .into_iter()
            .filter(|f| !features::info(*f).degrades)
            .map(|f| f.key())
            .collect(),
        ecn_feedback: cc
            .adapts
            .contains(&Feature::CongNeedsAccecn)
            .then(|| ecn_feedback(p_accecn())),
    }
}

fn p_accecn() -> &'static Presence {
    probe().presence(Feature::CongNeedsAccecn)
}

/// The CE feedback Prague's connections get where the kernel's presence of
/// `TCP_CONG_NEEDS_ACCECN` is `p` (docs/l4s.md, "AccECN").
pub fn ecn_feedback(p: &Presence) -> String {
    let first = features::info(Feature::CongNeedsAccecn).first_kernel;
    match p {
        Presence::Present => format!(
            "AccECN (kernel >= {first}, or 6.18.y with the backport: TCP_CONG_NEEDS_ACCECN taken; exact CE counts from the kernel)"
        ),
        Presence::Missing(_) | Presence::Refused(_) => {
            "classic ECE echo (kernel has no TCP_CONG_NEEDS_ACCECN; Prague's receiver echoes CE per packet)".into()
        }
        Presence::Unknown(d) => format!(
            "classic ECE echo unless the kernel has TCP_CONG_NEEDS_ACCECN, which could not be probed: {d}"
        ),
    }
}

/// The commands whose working depends on the kernel, and whether they work.
fn command_reports(ccs: &[CcReport]) -> Vec<CommandReport> {
    let p = probe();
    let c2tcp_ok = ccs.iter().any(|c| c.name == "c2tcp" && c.loadable);
    let needs_c2tcp = |cmd: &'static str| CommandReport {
        command: cmd,
        ok: c2tcp_ok,
        detail: if c2tcp_ok {
            "works (c2tcp loads)".into()
        } else {
            "needs c2tcp, which does not load here".into()
        },
    };
    let with_feature = |cmd: &'static str, f: Feature| -> CommandReport {
        if !c2tcp_ok {
            return needs_c2tcp(cmd);
        }
        match p.presence(f) {
            Presence::Present => CommandReport {
                command: cmd,
                ok: true,
                detail: format!("works ({} present)", f.key()),
            },
            Presence::Missing(d) | Presence::Refused(d) | Presence::Unknown(d) => CommandReport {
                command: cmd,
                ok: false,
                detail: format!("unavailable: {d}; {}", features::info(f).without),
            },
        }
    };
    vec![
        needs_c2tcp("socket option"),
        needs_c2tcp("target"),
        with_feature("top", Feature::SkStorageIterator),
        with_feature("cost", Feature::BpfStats),
    ]
}

/// The host's capabilities, one check each.
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

fn try_netns() -> Result<String, String> {
    std::thread::spawn(|| nix::sched::unshare(nix::sched::CloneFlags::CLONE_NEWNET))
        .join()
        .map_err(|_| "the probe thread panicked".to_string())?
        .map(|_| "a new network namespace can be created".to_string())
        .map_err(|e| format!("unshare(CLONE_NEWNET): {e}: needs root (CAP_SYS_ADMIN)"))
}
