// SPDX-License-Identifier: GPL-2.0-only
//! The schemes built into the binary's logic: those whose sender, receiver
//! or bottleneck needs Rust (our BPF programs and their loaders, NetAssist,
//! Sprout, Verus, the AQM schemes). Every other scheme is a file under
//! `schemes/` (see `file.rs`). One entry is a few lines: a name, a sentence,
//! its kind and its knobs.
use emu::queue::QueueKind;

use super::knobs::*;
use super::{Kind, Knob, Scheme};

pub(super) struct Entry {
    pub name: &'static str,
    summary: &'static str,
    kind: Kind,
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
            name: "natcp",
            summary: "NATCP (BPF): cwnd = 2 x minRTT x bandwidth / flows and pacing from live NetAssist feedback; Cubic without it",
            kind: Kind::NetAssisted { cc: "natcp" },
            knobs: &[],
        },
        Entry {
            name: "nacubic",
            summary: "NACubic (BPF): the kernel's Cubic capped at eq. 1 and paced by live NetAssist feedback; Cubic without it",
            kind: Kind::NetAssisted { cc: "nacubic" },
            knobs: &[],
        },
        Entry {
            name: "cubic-codel",
            summary: "Cubic over CoDel at the bottleneck (both directions)",
            kind: Kind::CubicOverAqm { aqm: QueueKind::CoDel },
            knobs: CODEL_KNOBS,
        },
        Entry {
            name: "cubic-pie",
            summary: "Cubic over PIE at the bottleneck (both directions)",
            kind: Kind::CubicOverAqm { aqm: QueueKind::Pie },
            knobs: PIE_KNOBS,
        },
    ]
}

/// The built-in scheme named `name`, if any.
pub(super) fn find(name: &str) -> Option<Scheme> {
    registry().into_iter().find(|e| e.name == name).map(|e| Scheme {
        name: e.name.to_string(),
        summary: e.summary,
        kind: e.kind,
        knobs: e.knobs.to_vec(),
    })
}
