// SPDX-License-Identifier: GPL-2.0-only
//! What is loaded, and what it costs: `c2tcp status [--json]`.
use std::path::Path;

use libbpf_rs::query::ProgInfoIter;
use serde::Serialize;

use crate::cc::{self, CCS};
use crate::sys;

#[derive(Debug, Serialize)]
pub struct ProgStat {
    pub name: String,
    pub id: u32,
    pub run_cnt: u64,
    pub run_time_ns: u64,
    /// run_time_ns / run_cnt; needs `sysctl kernel.bpf_stats_enabled=1`.
    pub avg_ns: Option<u64>,
}

#[derive(Debug, Serialize)]
pub struct CcStatus {
    pub name: String,
    pub summary: String,
    /// Listed in tcp_available_congestion_control.
    pub registered: bool,
    /// Listed in tcp_allowed_congestion_control (selectable without privileges).
    pub selectable: bool,
    /// Held by our pins under /sys/fs/bpf/c2tcp.
    pub pinned: bool,
    pub pins: Vec<String>,
    pub programs: Vec<ProgStat>,
}

#[derive(Debug, Serialize)]
pub struct Status {
    pub default_cc: String,
    pub bpf_stats_enabled: bool,
    /// c2tcp's load-time default Target in microseconds (0: 2 x min RTT).
    pub c2tcp_default_target_us: Option<u32>,
    /// c2tcp's load-time default variant (`jsac`, `paper`, ...).
    pub c2tcp_default_variant: Option<String>,
    /// `c2tcp target set` settings (None: c2tcp not loaded, or not readable).
    pub c2tcp_cgroup_targets: Option<Vec<crate::cgroups::Entry>>,
    pub ccs: Vec<CcStatus>,
}

fn pins_of(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .map(|rd| {
            rd.flatten()
                .map(|e| e.path().display().to_string())
                .collect()
        })
        .unwrap_or_default();
    v.sort();
    v
}

pub fn status() -> Status {
    let available = sys::available_ccs();
    let allowed = sys::allowed_ccs();
    // Our programs are named <cc>_<hook>; names are cut at 15 characters.
    let progs: Vec<_> = if sys::is_root() {
        ProgInfoIter::default().collect()
    } else {
        Vec::new()
    };
    let ccs = CCS
        .iter()
        .map(|spec| {
            let prefix = format!("{}_", spec.name);
            let dir = sys::pin_dir(spec.name);
            let pins = pins_of(&dir);
            let programs = progs
                .iter()
                .filter(|p| !pins.is_empty() && p.name.to_string_lossy().starts_with(&prefix))
                .map(|p| ProgStat {
                    name: p.name.to_string_lossy().into_owned(),
                    id: p.id,
                    run_cnt: p.run_cnt,
                    run_time_ns: p.run_time_ns,
                    avg_ns: (p.run_cnt > 0).then(|| p.run_time_ns / p.run_cnt),
                })
                .collect();
            CcStatus {
                name: spec.name.to_string(),
                summary: spec.summary.to_string(),
                registered: available.iter().any(|c| c == spec.name),
                selectable: allowed.iter().any(|c| c == spec.name),
                pinned: cc::is_loaded(spec),
                pins,
                programs,
            }
        })
        .collect();
    Status {
        default_cc: sys::default_cc(),
        bpf_stats_enabled: std::fs::read_to_string("/proc/sys/kernel/bpf_stats_enabled")
            .map(|s| s.trim() == "1")
            .unwrap_or(false),
        c2tcp_default_target_us: cc::c2tcp_default_target_us(),
        c2tcp_default_variant: cc::c2tcp_load_options().map(|o| match o.default_variant.base {
            sockopt::variant::Base::Default => sockopt::Variant {
                base: sockopt::variant::Base::Jsac,
                ..o.default_variant
            }
            .to_string(),
            _ => o.default_variant.to_string(),
        }),
        c2tcp_cgroup_targets: if sys::is_root() {
            crate::cgroups::list().ok().flatten()
        } else {
            None
        },
        ccs,
    }
}
