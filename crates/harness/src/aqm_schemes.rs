// SPDX-License-Identifier: GPL-2.0-only
//! The knobs of the schemes that put a queue discipline at the emulated
//! bottleneck (`cubic-codel`, `cubic-codel-ecn`, `cubic-pie`,
//! `cubic-fq-codel`, `abc`, the L4S ones over `dualpi2` and `l4s_ramp`):
//! `<queue>_<argument>_ms`, one per timing argument of emu's queue, and
//! `<queue>_<argument>` per unitless one (DualPI2's alpha, ...); the
//! defaults they mention are emu's (checked by a test in `scheme/tests.rs`).
use emu::queue::QueueKind;

use crate::scheme::Knob;

/// The flow parameter that sets an AQM's timing argument:
/// `codel_target_ms` for CoDel's `target`.
pub(crate) fn aqm_knob(aqm: QueueKind, arg: &str) -> String {
    format!("{}_{arg}_ms", aqm.name())
}

/// The flow parameter that sets an AQM's unitless argument:
/// `dualpi2_alpha` for DualPI2's `alpha`.
pub(crate) fn aqm_number_knob(aqm: QueueKind, arg: &str) -> String {
    format!("{}_{arg}", aqm.name())
}

const fn number_knob(name: &'static str, about: &'static str, min: f64, max: f64) -> Knob {
    ms_knob(name, about, min, max)
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
pub(crate) const DUALPI2_KNOBS: &[Knob] = &[
    ms_knob(
        "dualpi2_target_ms",
        "DualPI2's PI2 target queueing delay, sch_dualpi2's (default 15)",
        0.1,
        10_000.0,
    ),
    ms_knob(
        "dualpi2_tupdate_ms",
        "how often DualPI2's PI controller updates p' (default 16)",
        0.1,
        10_000.0,
    ),
    ms_knob(
        "dualpi2_step_ms",
        "the L queue's step threshold: an L4S packet waiting longer is marked (default 1)",
        0.01,
        10_000.0,
    ),
    number_knob(
        "dualpi2_alpha",
        "PI2's integral gain, Hz (default 0.16)",
        0.0,
        1000.0,
    ),
    number_knob(
        "dualpi2_beta",
        "PI2's proportional gain, Hz (default 3.2)",
        0.0,
        1000.0,
    ),
    number_knob(
        "dualpi2_coupling",
        "coupling factor k: L4S packets marked at k x p' (default 2)",
        0.1,
        100.0,
    ),
    number_knob(
        "dualpi2_c_protection",
        "the Classic queue's share of the scheduler while both are backlogged, percent (default 10)",
        0.0,
        100.0,
    ),
];
pub(crate) const L4S_RAMP_KNOBS: &[Knob] = &[
    ms_knob(
        "l4s_ramp_markfree_ms",
        "sojourn below which no L4S packet is marked; sch_janz's (default 4), 0.476 for DOCSIS's ramp",
        0.001,
        10_000.0,
    ),
    ms_knob(
        "l4s_ramp_markfull_ms",
        "sojourn from which every L4S packet is marked; sch_janz's (default 14), 1 for DOCSIS's ramp",
        0.001,
        10_000.0,
    ),
    number_knob(
        "l4s_ramp_stale",
        "1: sch_janz's stale-packet drops (one over 100 ms, all over 500 ms, every 200 ms) (default 0)",
        0.0,
        1.0,
    ),
];
