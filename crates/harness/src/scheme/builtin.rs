// SPDX-License-Identifier: GPL-2.0-only
//! The schemes built into the binary's logic: those whose sender, receiver
//! or bottleneck needs Rust (our BPF programs and their loaders, NetAssist,
//! Sprout, Verus, the AQM schemes). Every other scheme is a file under
//! `schemes/` (see `file.rs`). One entry is a few lines: a name, a sentence,
//! its kind and its knobs (a queue's come from the queue: `queue_knobs.rs`).
//!
//! Every BPF congestion control of `bpfload::CCS` is a scheme of its name:
//! a plain `Kind::Bpf` one with no knobs and its `CcSpec`'s summary, unless
//! an entry here gives it knobs or another kind (`c2tcp`, NetAssist's, ABC's
//! and Prague's). A scheme that is one congestion control takes that
//! control's summary from its `CcSpec`, the summary's one owner.
use emu::queue::{CoDel, DualPi2, FqCodel, L4sCell, L4sRamp, Pie, QueueKind};

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

/// The summary of one of bpfload's congestion controls.
fn cc_summary(cc: &str) -> &'static str {
    bpfload::cc::spec(cc)
        .map(|s| s.summary)
        .expect("a congestion control of bpfload::CCS")
}

/// Every built-in scheme: first one per BPF congestion control, in
/// `bpfload::CCS`'s order (its own entry, or a plain `Bpf` one), then the
/// others.
pub(super) fn registry() -> Vec<Entry> {
    let mut own = entries();
    let mut all: Vec<Entry> = bpfload::CCS
        .iter()
        .map(|cc| match own.iter().position(|e| e.name == cc.name) {
            Some(i) => own.remove(i),
            None => Entry {
                name: cc.name,
                summary: cc.summary,
                kind: Kind::Bpf { cc: cc.name },
                knobs: &[],
            },
        })
        .collect();
    all.extend(own);
    all
}

/// The schemes that are not a plain BPF congestion control.
fn entries() -> Vec<Entry> {
    vec![
        Entry {
            name: "c2tcp",
            summary: cc_summary("c2tcp"),
            kind: Kind::Bpf { cc: "c2tcp" },
            knobs: C2TCP_KNOBS,
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
            summary: cc_summary("natcp"),
            kind: Kind::NetAssisted { cc: "natcp" },
            knobs: NATCP_KNOBS,
        },
        Entry {
            name: "nacubic",
            summary: cc_summary("nacubic"),
            kind: Kind::NetAssisted { cc: "nacubic" },
            knobs: NETASSISTED_KNOBS,
        },
        Entry {
            name: "tg",
            summary: cc_summary("tg"),
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
            name: "prague-l4s-cell",
            summary: "TCP Prague over a cell-aware L4S marker: one FIFO, ECT(1) marked at enqueue on queued bytes over the estimated service rate (L4Span's law)",
            kind: Kind::Prague { aqm: Some(QueueKind::of::<L4sCell>()), ecn: false },
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Every BPF congestion control is a scheme of its name, once; one that
    /// is its scheme's whole sender shows its `CcSpec`'s summary.
    #[test]
    fn every_bpf_cc_is_a_scheme_with_its_summary() {
        let all = registry();
        for cc in bpfload::CCS {
            let e: Vec<&Entry> = all.iter().filter(|e| e.name == cc.name).collect();
            assert_eq!(e.len(), 1, "{}", cc.name);
            if matches!(e[0].kind, Kind::Bpf { .. } | Kind::NetAssisted { .. }) {
                assert_eq!(e[0].summary, cc.summary, "{}", cc.name);
            }
        }
        let names: Vec<&str> = all.iter().map(|e| e.name).collect();
        for (i, n) in names.iter().enumerate() {
            assert!(!names[i + 1..].contains(n), "{n} twice");
        }
    }
}
