// SPDX-License-Identifier: GPL-2.0-only
//! CPU time for `c2tcp cost`'s CPU per GB: this process's threads (the
//! softirq work done in their context included), the ksoftirqd threads, and
//! the whole machine's busy time for reference.

/// CPU time at one moment, ns.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Cpu {
    /// This process's threads (sum_exec_runtime).
    pub(super) process: u64,
    /// Every ksoftirqd thread.
    pub(super) ksoftirqd: u64,
    /// /proc/stat, all CPUs: user+nice+system+irq+softirq (every process on
    /// the machine).
    pub(super) machine_busy: u64,
}

fn schedstat_ns(path: &str) -> u64 {
    std::fs::read_to_string(path)
        .ok()
        .and_then(|s| s.split_whitespace().next().and_then(|v| v.parse().ok()))
        .unwrap_or(0)
}

pub(super) fn read_cpu() -> Cpu {
    let mut c = Cpu::default();
    if let Ok(rd) = std::fs::read_dir("/proc/self/task") {
        for t in rd.flatten() {
            c.process += schedstat_ns(&format!("{}/schedstat", t.path().display()));
        }
    }
    if let Ok(rd) = std::fs::read_dir("/proc") {
        for p in rd.flatten() {
            let name = p.file_name();
            let Some(pid) = name
                .to_str()
                .filter(|n| n.bytes().all(|b| b.is_ascii_digit()))
            else {
                continue;
            };
            let comm = std::fs::read_to_string(format!("/proc/{pid}/comm")).unwrap_or_default();
            if comm.starts_with("ksoftirqd/") {
                c.ksoftirqd += schedstat_ns(&format!("/proc/{pid}/schedstat"));
            }
        }
    }
    if let Ok(stat) = std::fs::read_to_string("/proc/stat") {
        if let Some(line) = stat.lines().next() {
            let v: Vec<u64> = line
                .split_whitespace()
                .skip(1)
                .filter_map(|x| x.parse().ok())
                .collect();
            // user nice system idle iowait irq softirq; USER_HZ = 100
            if v.len() >= 7 {
                c.machine_busy = (v[0] + v[1] + v[2] + v[5] + v[6]) * 10_000_000;
            }
        }
    }
    c
}

pub(super) fn loadavg() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|s| s.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_default()
}
