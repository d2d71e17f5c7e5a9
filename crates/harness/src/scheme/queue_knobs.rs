// SPDX-License-Identifier: GPL-2.0-only
//! The knobs of a scheme that puts a queue discipline at the emulated
//! bottleneck (`cubic-codel`, `abc`, `prague-dualpi2`, ...): one per
//! argument of the queue, read from the queue's own type
//! (`emu::queue::Discipline`): `<queue>_<argument>_ms` for a time,
//! `<queue>_<argument>` for a number, its range the argument's and its
//! sentence the argument's help with its default.
use std::sync::OnceLock;

use emu::queue::{Arg, QueueKind, Unit};

use super::knob::Knob;

/// The flow parameter that sets `arg` of `queue`: `codel_target_ms` for
/// CoDel's `target`, `dualpi2_alpha` for DualPI2's `alpha`.
pub fn name(queue: QueueKind, arg: &Arg) -> String {
    match arg.unit {
        Unit::Ms => format!("{}_{}_ms", queue.name(), arg.name),
        Unit::Number | Unit::Whole => format!("{}_{}", queue.name(), arg.name),
    }
}

/// The knobs of a scheme over `queue`, one per argument, in its order.
pub fn of(queue: QueueKind) -> &'static [Knob] {
    // Knobs hold static strings: each queue's are made once per process.
    static MADE: OnceLock<Vec<(QueueKind, Vec<Knob>)>> = OnceLock::new();
    let made = MADE.get_or_init(|| {
        QueueKind::all()
            .iter()
            .map(|&q| (q, q.args().iter().map(|a| knob(q, a)).collect()))
            .collect()
    });
    made.iter()
        .find(|(q, _)| *q == queue)
        .map(|(_, k)| k.as_slice())
        .expect("every queue kind is registered")
}

fn knob(queue: QueueKind, arg: &Arg) -> Knob {
    let leak = |s: String| -> &'static str { Box::leak(s.into_boxed_str()) };
    Knob {
        name: leak(name(queue, arg)),
        about: leak(format!("{} (default {})", arg.help, arg.default)),
        min: arg.min,
        max: arg.max,
        word: None,
        default: None,
        sysctl: None,
    }
}
