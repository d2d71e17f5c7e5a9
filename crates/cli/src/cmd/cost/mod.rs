// SPDX-License-Identifier: GPL-2.0-only
//! `c2tcp cost`: what C2TCP costs beside the kernel's own Cubic, in one run.
//!
//! Two namespaces joined by a veth pair; three groups of N connections from
//! one to the other, one per congestion control: the kernel's `cubic`,
//! `cost_cubic` (the kernel's Cubic behind BPF programs that only call it)
//! and `cost_c2tcp` (C2TCP's object under a name of its own), every group
//! sending at the same capped rate (the application writes 64 KiB chunks on
//! a token bucket, so the kernel does the work in our threads).
//!
//! 1. ns per ACK: `cost_cubic` and `cost_c2tcp` send side by side; each
//!    side's programs are timed by bpf_stats (bpfload::cost), the same
//!    timer for both, with the same empty per-ACK hook measuring what the
//!    timer adds (reported, and subtracted in the "net" figures).
//! 2. CPU per GB: each group alone in turn (`--rounds` times, the order
//!    rotated), CPU time of this process's threads (sender and receiver,
//!    and the softirq work done in their context: this kernel has no
//!    separate IRQ time accounting) plus the ksoftirqd threads', divided by
//!    the bytes sent.
mod cpu;
mod traffic;

use std::net::Ipv4Addr;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use bpfload::cost::{Side, Snapshot, Totals, C2TCP_CC, CUBIC_CC, EMPTY_HOOK};
use netns::Netns;
use serde::Serialize;

use cpu::{loadavg, read_cpu};
use traffic::{raise_nofile, Group};

#[derive(clap::Args)]
pub struct Args {
    /// Seconds of the ns-per-ACK phase, and of each CPU segment
    #[arg(long, default_value_t = 10.0)]
    seconds: f64,
    /// Each group's sending rate, Mbit/s (all groups the same, so the CPU
    /// figures compare at equal throughput)
    #[arg(long, default_value_t = 1000.0)]
    rate_mbit: f64,
    /// Connections per congestion control (the rate is shared among them)
    #[arg(long, default_value_t = 1)]
    connections: usize,
    /// C2TCP's Target, ms
    #[arg(long, default_value_t = 50.0)]
    target_ms: f64,
    /// CPU segments per congestion control
    #[arg(long, default_value_t = 2)]
    rounds: u32,
    /// Also write the results as JSON to this file
    #[arg(long)]
    json: Option<std::path::PathBuf>,
}

const SERVER: Ipv4Addr = Ipv4Addr::new(10, 201, 0, 1);
pub(super) const UE: Ipv4Addr = Ipv4Addr::new(10, 201, 0, 2);

#[derive(Debug, Serialize)]
struct HookRow {
    hook: String,
    calls: u64,
    ns_per_call: Option<f64>,
}

#[derive(Debug, Serialize)]
struct SideReport {
    cc: &'static str,
    hooks: Vec<HookRow>,
    /// pkts_acked calls: the ACKs that acknowledged data.
    acks: u64,
    /// The empty hook's ns per call: what the timing adds to each call.
    empty_ns: Option<f64>,
    /// Every hook but the empty one, ns per ACK.
    ns_per_ack: Option<f64>,
    /// The same less the empty hook's figure for each call.
    net_ns_per_ack: Option<f64>,
    /// Bytes sent during the phase.
    bytes: u64,
}

fn side_report(cc: &'static str, s: &Side, bytes: u64) -> SideReport {
    let acks = s.get("pkts_acked").calls;
    let empty = s.get(EMPTY_HOOK).ns_per_call();
    let work: Vec<&(String, Totals)> = s.hooks.iter().filter(|(h, _)| h != EMPTY_HOOK).collect();
    let ns: u64 = work.iter().map(|(_, t)| t.ns).sum();
    let calls: u64 = work.iter().map(|(_, t)| t.calls).sum();
    let per_ack = (acks > 0).then(|| ns as f64 / acks as f64);
    SideReport {
        cc,
        hooks: s
            .hooks
            .iter()
            .map(|(h, t)| HookRow {
                hook: h.clone(),
                calls: t.calls,
                ns_per_call: t.ns_per_call(),
            })
            .collect(),
        acks,
        empty_ns: empty,
        ns_per_ack: per_ack,
        net_ns_per_ack: per_ack
            .zip(empty)
            .map(|(p, e)| p - e * calls as f64 / acks as f64),
        bytes,
    }
}

#[derive(Debug, Serialize)]
struct CpuSegment {
    cc: String,
    round: u32,
    seconds: f64,
    bytes: u64,
    mbit_s: f64,
    process_ns: u64,
    ksoftirqd_ns: u64,
    machine_busy_ns: u64,
    /// (process + ksoftirqd) CPU seconds per GB (10^9 bytes) sent.
    cpu_s_per_gb: f64,
}

#[derive(Debug, Serialize)]
struct CpuSummary {
    cc: String,
    bytes: u64,
    mbit_s: f64,
    cpu_s_per_gb: f64,
    /// Spread over the segments.
    min_cpu_s_per_gb: f64,
    max_cpu_s_per_gb: f64,
}

#[derive(Debug, Serialize)]
struct Report {
    connections: usize,
    rate_mbit: f64,
    seconds: f64,
    target_ms: f64,
    loadavg_before: String,
    loadavg_after: String,
    cubic: SideReport,
    c2tcp: SideReport,
    /// C2TCP's ns per ACK over the kernel's Cubic's, as timed and net.
    ratio: Option<f64>,
    net_ratio: Option<f64>,
    cpu_segments: Vec<CpuSegment>,
    cpu: Vec<CpuSummary>,
    /// cost_c2tcp's and cost_cubic's CPU per GB over the kernel cubic's.
    cpu_ratio_c2tcp_to_cubic: Option<f64>,
    cpu_ratio_bpf_cubic_to_cubic: Option<f64>,
}

pub fn run(args: Args) -> Result<ExitCode> {
    bpfload::sys::require_root("c2tcp cost (BPF congestion controls, network namespaces)")?;
    if !(args.rate_mbit > 0.0 && args.seconds > 0.0 && args.connections > 0 && args.rounds > 0) {
        bail!("--rate-mbit, --seconds, --connections and --rounds must be positive");
    }
    raise_nofile(args.connections as u64 * 6 + 256)?;
    let target_us = sockopt::target_us_from_ms(args.target_ms).map_err(anyhow::Error::msg)?;

    let server = Netns::new("cost-server")?;
    let ue = Netns::new("cost-ue")?;
    netns::veth_pair(&server, "cost0", &ue, "cost1")?;
    server.ip(&["addr", "add", &format!("{SERVER}/24"), "dev", "cost0"])?;
    ue.ip(&["addr", "add", &format!("{UE}/24"), "dev", "cost1"])?;

    let opts = bpfload::cost::SessionOptions {
        c2tcp_target_us: target_us,
        c2tcp_variant: 0,
    };
    let load_before = loadavg();
    let rate_bps = args.rate_mbit * 1e6;
    let secs = Duration::from_secs_f64(args.seconds);
    let report = bpfload::cost::session(opts, |session| {
        let groups = [
            Group::open("cubic", args.connections, 5001, &server, &ue, rate_bps)?,
            Group::open(CUBIC_CC, args.connections, 5002, &server, &ue, rate_bps)?,
            Group::open(C2TCP_CC, args.connections, 5003, &server, &ue, rate_bps)?,
        ];
        // 1. ns per ACK, the two BPF sides together, after a second to ramp up.
        groups[1].set_active(true);
        groups[2].set_active(true);
        std::thread::sleep(Duration::from_secs(1));
        let (b1, b2) = (groups[1].sent(), groups[2].sent());
        let before: Snapshot = session.snapshot()?;
        std::thread::sleep(secs);
        let after = session.snapshot()?;
        let (bytes_cubic, bytes_c2) = (groups[1].sent() - b1, groups[2].sent() - b2);
        groups[1].set_active(false);
        groups[2].set_active(false);
        let d = after.since(&before);
        let cubic = side_report(CUBIC_CC, &d.cubic, bytes_cubic);
        let c2tcp = side_report(C2TCP_CC, &d.c2tcp, bytes_c2);
        std::thread::sleep(Duration::from_millis(500));

        // 2. CPU per GB, one group at a time.
        let mut segments = Vec::new();
        for round in 0..args.rounds {
            for k in 0..groups.len() {
                let g = &groups[(k + round as usize) % groups.len()];
                g.set_active(true);
                std::thread::sleep(Duration::from_millis(500));
                let (c0, s0, t0) = (read_cpu(), g.sent(), Instant::now());
                std::thread::sleep(secs);
                let (c1, s1, dt) = (read_cpu(), g.sent(), t0.elapsed().as_secs_f64());
                g.set_active(false);
                let bytes = s1 - s0;
                let used = (c1.process - c0.process) + (c1.ksoftirqd - c0.ksoftirqd);
                segments.push(CpuSegment {
                    cc: g.cc.clone(),
                    round,
                    seconds: dt,
                    bytes,
                    mbit_s: bytes as f64 * 8.0 / dt / 1e6,
                    process_ns: c1.process - c0.process,
                    ksoftirqd_ns: c1.ksoftirqd - c0.ksoftirqd,
                    machine_busy_ns: c1.machine_busy.saturating_sub(c0.machine_busy),
                    cpu_s_per_gb: if bytes > 0 {
                        used as f64 / 1e9 / (bytes as f64 / 1e9)
                    } else {
                        f64::NAN
                    },
                });
                std::thread::sleep(Duration::from_millis(300));
            }
        }
        for g in groups {
            g.close()?;
        }
        let cpu: Vec<CpuSummary> = ["cubic", CUBIC_CC, C2TCP_CC]
            .iter()
            .map(|cc| {
                let segs: Vec<&CpuSegment> = segments.iter().filter(|s| s.cc == *cc).collect();
                let bytes: u64 = segs.iter().map(|s| s.bytes).sum();
                let used: u64 = segs.iter().map(|s| s.process_ns + s.ksoftirqd_ns).sum();
                let secs: f64 = segs.iter().map(|s| s.seconds).sum();
                let per: Vec<f64> = segs.iter().map(|s| s.cpu_s_per_gb).collect();
                CpuSummary {
                    cc: cc.to_string(),
                    bytes,
                    mbit_s: bytes as f64 * 8.0 / secs / 1e6,
                    cpu_s_per_gb: used as f64 / bytes.max(1) as f64,
                    min_cpu_s_per_gb: per.iter().cloned().fold(f64::INFINITY, f64::min),
                    max_cpu_s_per_gb: per.iter().cloned().fold(0.0, f64::max),
                }
            })
            .collect();
        let per_gb = |cc: &str| cpu.iter().find(|c| c.cc == cc).map(|c| c.cpu_s_per_gb);
        let ratio_of =
            |a: Option<f64>, b: Option<f64>| a.zip(b).filter(|(_, b)| *b > 0.0).map(|(a, b)| a / b);
        Ok(Report {
            connections: args.connections,
            rate_mbit: args.rate_mbit,
            seconds: args.seconds,
            target_ms: args.target_ms,
            loadavg_before: load_before.clone(),
            loadavg_after: loadavg(),
            ratio: ratio_of(c2tcp.ns_per_ack, cubic.ns_per_ack),
            net_ratio: ratio_of(c2tcp.net_ns_per_ack, cubic.net_ns_per_ack),
            cubic,
            c2tcp,
            cpu_ratio_c2tcp_to_cubic: ratio_of(per_gb(C2TCP_CC), per_gb("cubic")),
            cpu_ratio_bpf_cubic_to_cubic: ratio_of(per_gb(CUBIC_CC), per_gb("cubic")),
            cpu_segments: segments,
            cpu,
        })
    })?;
    print_report(&report);
    if let Some(path) = &args.json {
        let text = serde_json::to_string_pretty(&report)?;
        std::fs::write(path, text + "\n").with_context(|| format!("writing {}", path.display()))?;
    }
    Ok(ExitCode::SUCCESS)
}

fn f1(v: Option<f64>) -> String {
    v.map(|v| format!("{v:.1}")).unwrap_or_else(|| "-".into())
}

fn print_report(r: &Report) {
    println!(
        "c2tcp cost: {} connection(s) per congestion control, {} Mbit/s each, {} s per phase; load average {} -> {}",
        r.connections, r.rate_mbit, r.seconds, r.loadavg_before, r.loadavg_after
    );
    println!();
    println!("| hook | {CUBIC_CC}: calls | ns per call | {C2TCP_CC}: calls | ns per call |");
    println!("| --- | --- | --- | --- | --- |");
    for h in &r.c2tcp.hooks {
        let cu = r.cubic.hooks.iter().find(|x| x.hook == h.hook);
        println!(
            "| `{}` | {} | {} | {} | {} |",
            h.hook,
            cu.map(|c| c.calls.to_string())
                .unwrap_or_else(|| "-".into()),
            f1(cu.and_then(|c| c.ns_per_call)),
            h.calls,
            f1(h.ns_per_call)
        );
    }
    println!();
    println!("| per ACK | kernel's Cubic ({CUBIC_CC}) | C2TCP ({C2TCP_CC}) | ratio |");
    println!("| --- | --- | --- | --- |");
    println!(
        "| ns, as timed | {} | {} | {} |",
        f1(r.cubic.ns_per_ack),
        f1(r.c2tcp.ns_per_ack),
        r.ratio.map(|v| format!("{v:.2}")).unwrap_or("-".into())
    );
    println!(
        "| ns, less the empty hook ({} / {} ns per call) | {} | {} | {} |",
        f1(r.cubic.empty_ns),
        f1(r.c2tcp.empty_ns),
        f1(r.cubic.net_ns_per_ack),
        f1(r.c2tcp.net_ns_per_ack),
        r.net_ratio.map(|v| format!("{v:.2}")).unwrap_or("-".into())
    );
    println!(
        "| Mbit/s sent | {:.0} | {:.0} | |",
        r.cubic.bytes as f64 * 8.0 / r.seconds / 1e6,
        r.c2tcp.bytes as f64 * 8.0 / r.seconds / 1e6
    );
    println!();
    println!("| congestion control | Mbit/s | CPU s per GB (min-max over segments) |");
    println!("| --- | --- | --- |");
    for c in &r.cpu {
        println!(
            "| {} | {:.0} | {:.3} ({:.3}-{:.3}) |",
            c.cc, c.mbit_s, c.cpu_s_per_gb, c.min_cpu_s_per_gb, c.max_cpu_s_per_gb
        );
    }
    println!();
    println!(
        "CPU per GB over the kernel's cubic: {C2TCP_CC} {}, {CUBIC_CC} {}",
        r.cpu_ratio_c2tcp_to_cubic
            .map(|v| format!("{v:.3}"))
            .unwrap_or("-".into()),
        r.cpu_ratio_bpf_cubic_to_cubic
            .map(|v| format!("{v:.3}"))
            .unwrap_or("-".into())
    );
}
