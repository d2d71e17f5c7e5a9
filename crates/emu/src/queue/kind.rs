// SPDX-License-Identifier: GPL-2.0-only
//! What a queue discipline says about itself, in one place: its own type.
//!
//! Each discipline's file implements [`Discipline`] for its queue type: the
//! name users write (`codel`), one line of help, its arguments (each with
//! its unit, default, accepted range and a sentence), whether it takes
//! `ecn=0|1` (and its default) and a size limit, and how it is built from a
//! parsed [`QueueSpec`]. Everything that offers a queue to a user reads
//! these and nothing else: the spec parser (`spec.rs`), `c2tcp run --help`
//! and `c2tcp emulate --help` ([`help`]), and the harness's schemes that put
//! a queue at the bottleneck (one knob per argument, its range and default
//! the argument's). [`QueueKind`] is the copyable handle the program passes
//! around; `queue/mod.rs` registers every discipline once, in the order
//! `--help` lists them.
use std::fmt;
use std::marker::PhantomData;

use super::{Queue, QueueSpec};

/// How an argument is written and kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unit {
    /// Milliseconds, kept as whole µs (`codel:target=5`).
    Ms,
    /// A unitless number (`dualpi2:alpha=0.16`).
    Number,
    /// A whole number (`dualpi2:c_protection=10`, `l4s_ramp:stale=1`).
    Whole,
}

/// One argument of a discipline: `name=value`, with `value` in `unit`,
/// `default` when not given, and accepted in [`min`, `max`] (for
/// [`Unit::Ms`], `min` is at least 0.001: a µs).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Arg {
    pub name: &'static str,
    pub unit: Unit,
    pub default: f64,
    pub min: f64,
    pub max: f64,
    /// What it sets, one phrase (the default is added where shown).
    pub help: &'static str,
}

impl Arg {
    /// A time in ms.
    pub const fn ms(
        name: &'static str,
        default: f64,
        (min, max): (f64, f64),
        help: &'static str,
    ) -> Arg {
        Arg {
            name,
            unit: Unit::Ms,
            default,
            min,
            max,
            help,
        }
    }

    /// A unitless number.
    pub const fn number(
        name: &'static str,
        default: f64,
        (min, max): (f64, f64),
        help: &'static str,
    ) -> Arg {
        Arg {
            name,
            unit: Unit::Number,
            default,
            min,
            max,
            help,
        }
    }

    /// A whole number.
    pub const fn whole(
        name: &'static str,
        default: f64,
        (min, max): (f64, f64),
        help: &'static str,
    ) -> Arg {
        Arg {
            name,
            unit: Unit::Whole,
            default,
            min,
            max,
            help,
        }
    }

    /// Whether `value` (in the argument's unit) is one it accepts.
    pub fn accepts(&self, value: f64) -> bool {
        value.is_finite()
            && value >= self.min
            && value <= self.max
            && (self.unit != Unit::Whole || value.fract() == 0.0)
    }

    /// What the argument takes, for an error: "a positive number of ms in
    /// [0.1, 10000]".
    pub fn expects(&self) -> String {
        let what = match self.unit {
            Unit::Ms => "a positive number of ms",
            Unit::Number => "a number",
            Unit::Whole => "a whole number",
        };
        format!("{what} in [{}, {}]", self.min, self.max)
    }
}

/// Whether a discipline takes a size limit (`packets=N`, `bytes=N`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SizeLimit {
    /// None: it never drops for size (`infinite`).
    Unbounded,
    /// Optional: without one the queue has none, or its own (fq_codel's).
    Optional,
    /// Required: the discipline is nothing but its limit (droptail).
    Required,
}

/// A queue discipline's facts, declared by its own type. `from_spec` gets
/// a spec of this kind, every argument present and checked.
pub trait Discipline: Queue + Sized + 'static {
    /// The name users write (`codel`).
    const NAME: &'static str;
    /// One line for `--help`: what it is, where it comes from.
    const ABOUT: &'static str;
    /// Its arguments, in the order the canonical form (`Display`) prints them.
    const ARGS: &'static [Arg] = &[];
    /// Some(default) if it takes `ecn=0|1` (mark ECN-capable packets CE
    /// instead of dropping them).
    const ECN: Option<bool> = None;
    const SIZE_LIMIT: SizeLimit = SizeLimit::Optional;
    /// The queue for `spec`; `seed` drives its randomness, if any.
    fn from_spec(spec: &QueueSpec, seed: u64) -> Self;
}

/// A discipline's facts as data, behind [`QueueKind`].
struct Facts {
    name: &'static str,
    about: &'static str,
    args: &'static [Arg],
    ecn: Option<bool>,
    size_limit: SizeLimit,
    build: fn(&QueueSpec, u64) -> Box<dyn Queue>,
}

/// The facts of `D`, one constant per discipline type.
struct FactsOf<D>(PhantomData<D>);

impl<D: Discipline> FactsOf<D> {
    const FACTS: Facts = Facts {
        name: D::NAME,
        about: D::ABOUT,
        args: D::ARGS,
        ecn: D::ECN,
        size_limit: D::SIZE_LIMIT,
        build: build::<D>,
    };
}

fn build<D: Discipline>(spec: &QueueSpec, seed: u64) -> Box<dyn Queue> {
    Box::new(D::from_spec(spec, seed))
}

/// A queue discipline: `QueueKind::of::<CoDel>()`, or found by name among
/// the registered ones ([`QueueKind::all`]). Two kinds are equal when they
/// are the same discipline.
#[derive(Clone, Copy)]
pub struct QueueKind(&'static Facts);

impl QueueKind {
    /// The kind of the discipline type `D`.
    pub const fn of<D: Discipline>() -> QueueKind {
        QueueKind(&FactsOf::<D>::FACTS)
    }

    /// Every registered discipline, in the order `--help` lists them.
    pub fn all() -> &'static [QueueKind] {
        super::ALL
    }

    /// The registered discipline users call `name`.
    pub fn named(name: &str) -> Option<QueueKind> {
        Self::all().iter().copied().find(|k| k.name() == name)
    }

    /// The discipline's name as users write it (`codel`).
    pub fn name(self) -> &'static str {
        self.0.name
    }

    /// One line of help.
    pub fn about(self) -> &'static str {
        self.0.about
    }

    /// The arguments it takes besides `ecn`, `packets` and `bytes`.
    pub fn args(self) -> &'static [Arg] {
        self.0.args
    }

    /// Its argument `name`, if it takes one.
    pub fn arg(self, name: &str) -> Option<&'static Arg> {
        self.0.args.iter().find(|a| a.name == name)
    }

    /// Whether the kind takes `ecn=0|1`, and its default.
    pub fn ecn_default(self) -> Option<bool> {
        self.0.ecn
    }

    pub fn size_limit(self) -> SizeLimit {
        self.0.size_limit
    }

    /// A fresh queue for `spec` (of this kind).
    pub(super) fn build(self, spec: &QueueSpec, seed: u64) -> Box<dyn Queue> {
        (self.0.build)(spec, seed)
    }

    /// Every argument name it takes, for an error.
    pub(super) fn takes(self) -> Vec<&'static str> {
        let mut known: Vec<&str> = self.args().iter().map(|a| a.name).collect();
        if self.ecn_default().is_some() {
            known.push("ecn");
        }
        if self.size_limit() != SizeLimit::Unbounded {
            known.extend(["bytes", "packets"]);
        }
        known
    }

    /// Its arguments with their defaults, as `--help` shows them:
    /// `target=5 ms, interval=100 ms, ecn=0`.
    pub fn defaults_text(self) -> String {
        let mut parts: Vec<String> = self
            .args()
            .iter()
            .map(|a| match a.unit {
                Unit::Ms => format!("{}={} ms", a.name, a.default),
                Unit::Number | Unit::Whole => format!("{}={}", a.name, a.default),
            })
            .collect();
        if let Some(ecn) = self.ecn_default() {
            parts.push(format!("ecn={}", ecn as u8));
        }
        match self.size_limit() {
            SizeLimit::Required => parts.push("packets=N or bytes=N required".into()),
            SizeLimit::Optional | SizeLimit::Unbounded => {}
        }
        parts.join(", ")
    }
}

impl PartialEq for QueueKind {
    fn eq(&self, other: &QueueKind) -> bool {
        self.name() == other.name()
    }
}

impl Eq for QueueKind {}

impl fmt::Debug for QueueKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl fmt::Display for QueueKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The queues' part of a `--help`: every registered discipline, one a
/// line, with its arguments' defaults.
pub fn help() -> String {
    let mut out = String::from(
        "Queues, QUEUE[:ARG=VALUE,...] (all but infinite take a size limit, packets=N and/or bytes=N):\n",
    );
    for k in QueueKind::all() {
        out.push_str(&format!("  {:<9} {}\n", k.name(), k.about()));
        let defaults = k.defaults_text();
        if !defaults.is_empty() {
            out.push_str(&format!("  {:<9} {defaults}\n", ""));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_discipline_is_registered_once_with_sound_arguments() {
        let all = QueueKind::all();
        for (i, k) in all.iter().enumerate() {
            assert_eq!(
                all.iter().position(|o| o == k),
                Some(i),
                "{k} registered twice"
            );
            assert_eq!(QueueKind::named(k.name()), Some(*k));
            for a in k.args() {
                assert!(a.accepts(a.default), "{k}:{}: default out of range", a.name);
                assert!(a.min <= a.max && a.max.is_finite(), "{k}:{}", a.name);
                if a.unit == Unit::Ms {
                    // At least a µs, so a time kept in µs is never 0.
                    assert!(a.min >= 0.001, "{k}:{}: min {} ms", a.name, a.min);
                }
                assert!(!a.help.is_empty(), "{k}:{}", a.name);
                assert!(
                    !["ecn", "bytes", "packets"].contains(&a.name),
                    "{k}:{} is a common argument",
                    a.name
                );
            }
        }
        assert_eq!(QueueKind::named("red"), None);
    }

    /// The log marks the departures of a queue that tells L4S packets
    /// apart (` l`), and its reader splits the sojourns by queue for the
    /// names `logformat::L4S_QUEUES` lists: a discipline that sets
    /// `Packet::l4s` must be listed there, and only those.
    #[test]
    fn l4s_queues_are_the_ones_the_log_reader_splits() {
        use crate::packet::{ecn, testpkt::ipv4};
        for k in QueueKind::all() {
            let mut spec = QueueSpec::with_defaults(*k, super::super::Limit::default());
            spec.limit.packets = Some(100);
            let mut q = spec.build(1);
            let mut drops = Vec::new();
            let mut l4s = false;
            for t in 0..50 {
                q.enqueue(ipv4(1500, ecn::ECT1, 1, t), t, &mut drops);
                q.enqueue(ipv4(1500, ecn::NOT_ECT, 2, t), t, &mut drops);
                while let Some(p) = q.dequeue(t, &mut drops) {
                    l4s |= p.l4s;
                }
            }
            assert_eq!(
                logformat::L4S_QUEUES.contains(&k.name()),
                l4s,
                "{k}: a queue that sets Packet::l4s is named in logformat::L4S_QUEUES, and only such a queue"
            );
        }
    }

    #[test]
    fn the_help_lists_every_discipline_with_its_defaults() {
        let h = help();
        for k in QueueKind::all() {
            assert!(
                h.contains(&format!("  {:<9} {}", k.name(), k.about())),
                "{h}"
            );
        }
        assert!(
            h.contains("  codel     CoDel") && h.contains("target=5 ms, interval=100 ms, ecn=0\n"),
            "{h}"
        );
        assert!(
            h.contains("alpha=0.16") && h.contains("c_protection=10"),
            "{h}"
        );
    }
}
