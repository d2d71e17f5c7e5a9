// SPDX-License-Identifier: GPL-2.0-only
//! The schemes built into the binary's logic: those whose sender, receiver
//! or bottleneck needs Rust (our BPF programs and their loaders, NetAssist,
//! Sprout, Verus, the AQM schemes). Every other scheme is a file under
//! `schemes/` (see `file.rs`). One entry is a few lines: a name, a sentence,
//! its kind and its knobs (a queue's come from the queue: `queue_knobs.rs`).
use emu::queue::{CoDel, DualPi2, FqCodel, L4sRamp, Pie, QueueKind};

use super::kind::{Kind, Scheme};
use super::knob::Knob;
use super::knobs::*;
use super::queue_knobs;

pub(super) struct Entry {
    pub name: &'static str,
    summary: &'static str,
    kind: Kind,
    /// Its own knobs; a scheme that puts a queue at the bottleneck also
    /// takes one per argument of the queue (`queue_knobs`).
    knobs: &'static [Knob],
}

pub(super) fn registry() -> Vec<Entry> {
    vec![
        Entry {
            name: "c2tcp",
            summary: "C2TCP over the kernel's Cubic (BPF)",
            kind: Kind::Bpf { cc: "c2tcp" },
            knobs: C2TCP_KNOBS,
        },
        Entry {
            name: "westwood",
            summary: "TCP Westwood+ (BPF): Reno growth, ssthresh = BWE x RTTmin after a loss",
            kind: Kind::Bpf { cc: "westwood" },
            knobs: &[],
        },
        Entry {
            name: "vegas",
            summary: "TCP Vegas (BPF): keeps 2-4 packets queued",
            kind: Kind::Bpf { cc: "vegas" },
            knobs: &[],
        },
        Entry {
            name: "vivace",
            summary: "PCC Vivace (BPF): paced rate from gradient ascent on a latency-and-loss utility",
            kind: Kind::Bpf { cc: "vivace" },
            knobs: &[],
        },
        Entry {
            name: "ledbat",
            summary: "LEDBAT (BPF, RFC 6817): scavenger holding its one-way queueing delay at 100 ms, yields to loss-based TCP",
            kind: Kind::Bpf { cc: "ledbat" },
            knobs: &[],
        },
        Entry {
            name: "compound",
            summary: "Compound TCP (BPF): Reno's loss window plus a delay window that retreats as the queue grows",
            kind: Kind::Bpf { cc: "compound" },
            knobs: &[],
        },
        Entry {
            name: "sprout",
            summary: "Sprout over UDP: cautious forecast of the inferred link rate (saturating sender)",
            kind: Kind::Sprout { variant: "sprout" },
            knobs: SPROUT_KNOBS,
        },
        Entry {
            name: "sprout-ewma",
            summary: "Sprout-EWMA over UDP: EWMA rate estimate, no caution (saturating sender)",
            kind: Kind::Sprout { variant: "ewma" },
            knobs: SPROUT_EWMA_KNOBS,
        },
        Entry {
            name: "verus",
            summary: "Verus over UDP: window from a learnt delay profile at a target delay (saturating sender)",
            kind: Kind::Verus,
            knobs: &[],
        },
        Entry {
            name: "webrtc-gcc",
            summary: "WebRTC's Google Congestion Control (pion's, with transport-wide CC feedback) \
                      pacing a synthetic 30 fps video source over RTP/UDP",
            kind: Kind::WebrtcGcc,
            knobs: WEBRTC_GCC_KNOBS,
        },
        Entry {
            name: "natcp",
            summary: "NATCP (BPF): cwnd = 2 x minRTT x bandwidth / flows with BBR's headroom, paced, from NetAssist feedback; Cubic without it",
            kind: Kind::NetAssisted { cc: "natcp" },
            knobs: NATCP_KNOBS,
        },
        Entry {
            name: "nacubic",
            summary: "NACubic (BPF): the kernel's Cubic capped at eq. 1 and paced by live NetAssist feedback; Cubic without it",
            kind: Kind::NetAssisted { cc: "nacubic" },
            knobs: NETASSISTED_KNOBS,
        },
        Entry {
            name: "tg",
            summary: "TG, throughput guidance (BPF): cwnd = NetAssist bandwidth x the sender's own smoothed RTT, paced at that bandwidth; Cubic without it",
            kind: Kind::NetAssisted { cc: "tg" },
            knobs: NETASSISTED_KNOBS,
        },
        Entry {
            name: "cubic-codel",
            summary: "Cubic over CoDel at the bottleneck (both directions)",
            kind: Kind::CubicOverAqm { aqm: QueueKind::of::<CoDel>(), ecn: false },
            knobs: &[],
        },
        Entry {
            name: "cubic-codel-ecn",
            summary: "Cubic over CoDel marking CE instead of dropping ECT packets (both directions; hosts ask for ECN)",
            kind: Kind::CubicOverAqm { aqm: QueueKind::of::<CoDel>(), ecn: true },
            knobs: &[],
        },
        Entry {
            name: "cubic-pie",
            summary: "Cubic over PIE at the bottleneck (both directions)",
            kind: Kind::CubicOverAqm { aqm: QueueKind::of::<Pie>(), ecn: false },
            knobs: &[],
        },
        Entry {
            name: "cubic-fq-codel",
            summary: "Cubic over fq_codel (RFC 8290: per-flow CoDel, DRR; ECN on, as Linux) at the bottleneck (both directions)",
            kind: Kind::CubicOverAqm { aqm: QueueKind::of::<FqCodel>(), ecn: true },
            knobs: &[],
        },
        Entry {
            name: "abc",
            summary: "ABC (NSDI'20): the downlink marks accelerate/brake from its dequeue rate and delay; BPF sender +1/-1 per mark",
            kind: Kind::Abc,
            knobs: &[],
        },
        Entry {
            name: "prague",
            summary: "TCP Prague (BPF, L4S; ECT(1) on the wire, DCTCP-style echo) over the scenario's own queue",
            kind: Kind::Prague { aqm: None, ecn: false },
            knobs: &[],
        },
        Entry {
            name: "prague-dualpi2",
            summary: "TCP Prague over DualPI2 (RFC 9332, sch_dualpi2's defaults) at the bottleneck (both directions)",
            kind: Kind::Prague { aqm: Some(QueueKind::of::<DualPi2>()), ecn: false },
            knobs: &[],
        },
        Entry {
            name: "prague-l4s-ramp",
            summary: "TCP Prague over a cell's L4S marker: one FIFO, ECT(1) marked on a sojourn ramp (sch_janz's defaults)",
            kind: Kind::Prague { aqm: Some(QueueKind::of::<L4sRamp>()), ecn: false },
            knobs: &[],
        },
        Entry {
            name: "prague-codel-ecn",
            summary: "TCP Prague over CoDel marking ECT packets: a Classic ECN AQM, what Prague meets off an L4S path (its classic-ECN fallback ships off)",
            kind: Kind::Prague { aqm: Some(QueueKind::of::<CoDel>()), ecn: true },
            knobs: &[],
        },
        Entry {
            name: "cubic-dualpi2",
            summary: "Cubic (no ECN: a Classic flow) over DualPI2 at the bottleneck (both directions)",
            kind: Kind::CubicOverAqm { aqm: QueueKind::of::<DualPi2>(), ecn: false },
            knobs: &[],
        },
        Entry {
            name: "cubic-l4s-ramp",
            summary: "Cubic (no ECN: a Classic flow) in a cell with an L4S marker: one droptail FIFO",
            kind: Kind::CubicOverAqm { aqm: QueueKind::of::<L4sRamp>(), ecn: false },
            knobs: &[],
        },
    ]
}

/// Whether `name` is one of the parametric built-in names (`iperf3:<cc>`,
/// `<rule>+<cc>`, `dfcsd`, `drwa`), which no file may declare.
pub(crate) fn is_parametric(name: &str) -> bool {
    name.starts_with("iperf3:") || rxctl::scheme(name).is_some() || name.contains('+')
}

/// The built-in scheme named `name`, if any.
pub(super) fn find(name: &str) -> Option<Scheme> {
    registry().into_iter().find(|e| e.name == name).map(|e| {
        let mut knobs = e.knobs.to_vec();
        if let Some((queue, _)) = e.kind.queue() {
            knobs.extend_from_slice(queue_knobs::of(queue));
        }
        Scheme {
            name: e.name.to_string(),
            summary: e.summary,
            kind: e.kind,
            knobs,
        }
    })
}
