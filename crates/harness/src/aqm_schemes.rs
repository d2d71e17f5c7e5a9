// SPDX-License-Identifier: GPL-2.0-only
//! The knobs of the schemes that put a queue discipline at the emulated
//! bottleneck (`cubic-codel`, `cubic-codel-ecn`, `cubic-pie`,
//! `cubic-fq-codel`, `abc`): `<queue>_<argument>_ms`, one per timing
//! argument of emu's queue; the defaults they mention are emu's (checked
//! by a test in `scheme/tests.rs`).
use emu::queue::QueueKind;

use crate::scheme::Knob;

/// The flow parameter that sets an AQM's timing argument:
/// `codel_target_ms` for CoDel's `target`.
pub(crate) fn aqm_knob(aqm: QueueKind, arg: &str) -> String {
    format!("{}_{arg}_ms", aqm.name())
}

const fn ms_knob(name: &'static str, about: &'static str, min: f64, max: f64) -> Knob {
    Knob {
        name,
        about,
        min,
        max,
        word: None,
        default: None,
        sysctl: None,
    }
}

pub(crate) const CODEL_KNOBS: &[Knob] = &[
    ms_knob(
        "codel_target_ms",
        "CoDel target sojourn time (default 5)",
        0.1,
        10_000.0,
    ),
    ms_knob(
        "codel_interval_ms",
        "CoDel interval (default 100)",
        1.0,
        100_000.0,
    ),
];
pub(crate) const PIE_KNOBS: &[Knob] = &[
    ms_knob(
        "pie_qdelay_ref_ms",
        "PIE reference queueing delay (default 15)",
        0.1,
        10_000.0,
    ),
    ms_knob(
        "pie_max_burst_ms",
        "PIE maximum burst allowance (default 150)",
        0.0,
        100_000.0,
    ),
];
pub(crate) const FQ_CODEL_KNOBS: &[Knob] = &[
    ms_knob(
        "fq_codel_target_ms",
        "each flow queue's CoDel target (default 5)",
        0.1,
        10_000.0,
    ),
    ms_knob(
        "fq_codel_interval_ms",
        "each flow queue's CoDel interval (default 100)",
        1.0,
        100_000.0,
    ),
];
pub(crate) const ABC_KNOBS: &[Knob] = &[
    ms_knob(
        "abc_qdelay_ref_ms",
        "ABC's delay threshold dt, above which the target rate drains the queue; the authors' runs' value (default 50)",
        0.1,
        10_000.0,
    ),
    ms_knob(
        "abc_delta_ms",
        "ABC's drain time constant delta = 100 ms / beta 0.75 (default 133.333)",
        1.0,
        100_000.0,
    ),
];
