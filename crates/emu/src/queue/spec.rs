// SPDX-License-Identifier: GPL-2.0-only
//! Queue specifications as users write them: `droptail:packets=100`,
//! `codel:target=5,interval=100,packets=1000`, or Mahimahi's split form
//! (`--downlink-queue droptail --downlink-queue-args packets=100`).
use std::fmt;
use std::str::FromStr;

use anyhow::{bail, Context, Result};

use super::{
    Abc, CoDel, DropHead, DropTail, DualPi2, DualPi2Params, FqCodel, Infinite, L4sRamp, Limit, Pie,
    Queue,
};
use crate::clock::Micros;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum QueueKind {
    Infinite,
    DropTail,
    DropHead,
    CoDel,
    Pie,
    FqCodel,
    Abc,
    DualPi2,
    L4sRamp,
}

/// A unitless queue argument (`dualpi2:alpha=0.16`): its name, default and
/// the range it accepts; `integer` ones take whole numbers only.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct NumberArg {
    pub name: &'static str,
    pub default: f64,
    pub min: f64,
    pub max: f64,
    pub integer: bool,
}

const fn number(name: &'static str, default: f64, min: f64, max: f64, integer: bool) -> NumberArg {
    NumberArg {
        name,
        default,
        min,
        max,
        integer,
    }
}

/// DualPI2's unitless arguments: sch_dualpi2's defaults (queue/dualpi2.rs).
const DUALPI2_NUMBERS: &[NumberArg] = &[
    number("alpha", 0.16, 0.0, 1000.0, false),
    number("beta", 3.2, 0.0, 1000.0, false),
    number("coupling", 2.0, 0.1, 100.0, false),
    number("c_protection", 10.0, 0.0, 100.0, true),
];
/// The L4S ramp's: `stale=1` turns on sch_janz's stale-packet drops.
const L4S_RAMP_NUMBERS: &[NumberArg] = &[number("stale", 0.0, 0.0, 1.0, true)];

impl QueueKind {
    /// The discipline's name as users write it (`codel`).
    pub fn name(self) -> &'static str {
        match self {
            QueueKind::Infinite => "infinite",
            QueueKind::DropTail => "droptail",
            QueueKind::DropHead => "drophead",
            QueueKind::CoDel => "codel",
            QueueKind::Pie => "pie",
            QueueKind::FqCodel => "fq_codel",
            QueueKind::Abc => "abc",
            QueueKind::DualPi2 => "dualpi2",
            QueueKind::L4sRamp => "l4s_ramp",
        }
    }

    /// Every kind, in the order `--help` lists them.
    pub const ALL: [QueueKind; 9] = [
        QueueKind::Infinite,
        QueueKind::DropTail,
        QueueKind::DropHead,
        QueueKind::CoDel,
        QueueKind::Pie,
        QueueKind::FqCodel,
        QueueKind::Abc,
        QueueKind::DualPi2,
        QueueKind::L4sRamp,
    ];

    /// Whether the kind takes `ecn=0|1`, and its default: marking instead
    /// of dropping is off for codel and pie (Mahimahi's behaviour) and on
    /// for fq_codel (Linux's default). ABC always marks ECT packets.
    pub fn ecn_default(self) -> Option<bool> {
        match self {
            QueueKind::CoDel | QueueKind::Pie => Some(false),
            QueueKind::FqCodel => Some(true),
            _ => None,
        }
    }

    /// The ms-valued arguments this kind takes, with their defaults: the
    /// one place CoDel's and PIE's defaults live (the harness's AQM schemes
    /// start from these too).
    pub fn timing_args(self) -> &'static [(&'static str, f64)] {
        match self {
            QueueKind::CoDel => &[("target", 5.0), ("interval", 100.0)],
            QueueKind::Pie => &[("qdelay_ref", 15.0), ("max_burst", 150.0)],
            QueueKind::FqCodel => &[("target", 5.0), ("interval", 100.0)],
            // ABC's dt and δ (= 100 ms / β 0.75): see queue/abc.rs.
            QueueKind::Abc => &[("qdelay_ref", 50.0), ("delta", 133.333)],
            // sch_dualpi2's PI2 target, update period and L4S step.
            QueueKind::DualPi2 => &[("target", 15.0), ("tupdate", 16.0), ("step", 1.0)],
            // sch_janz's defaults (the `janz` preset; queue/l4s_ramp.rs).
            QueueKind::L4sRamp => &[("markfree", 4.0), ("markfull", 14.0)],
            _ => &[],
        }
    }

    /// The unitless arguments this kind takes, with their defaults.
    pub fn number_args(self) -> &'static [NumberArg] {
        match self {
            QueueKind::DualPi2 => DUALPI2_NUMBERS,
            QueueKind::L4sRamp => L4S_RAMP_NUMBERS,
            _ => &[],
        }
    }

    /// The error for an argument this kind does not take.
    fn no_such_argument(self, key: &str) -> String {
        let mut known: Vec<&str> = self.timing_args().iter().map(|(k, _)| *k).collect();
        known.extend(self.number_args().iter().map(|a| a.name));
        if self.ecn_default().is_some() {
            known.push("ecn");
        }
        if self != QueueKind::Infinite {
            known.extend(["bytes", "packets"]);
        }
        format!(
            "{} takes no argument `{key}` (it takes: {})",
            self.name(),
            if known.is_empty() {
                "none".to_string()
            } else {
                known.join(", ")
            }
        )
    }
}

/// A parsed queue: discipline, size limit and AQM parameters (µs).
#[derive(Debug, Clone, PartialEq)]
pub struct QueueSpec {
    pub kind: QueueKind,
    pub limit: Limit,
    /// (name, value in µs) for codel's target/interval or pie's qdelay_ref/max_burst.
    pub timing: Vec<(&'static str, Micros)>,
    /// (name, value) of the kind's unitless arguments (DualPI2's alpha, ...).
    pub numbers: Vec<(&'static str, f64)>,
    /// Mark ECN-capable packets CE instead of dropping them (kinds with an
    /// `ecn_default` only; false for the others).
    pub ecn: bool,
}

impl Default for QueueSpec {
    fn default() -> Self {
        QueueSpec {
            kind: QueueKind::Infinite,
            limit: Limit::default(),
            timing: Vec::new(),
            numbers: Vec::new(),
            ecn: false,
        }
    }
}

/// A timing argument in µs, if `ms` is a positive, finite number of ms.
fn positive_ms(ms: f64) -> Option<Micros> {
    (ms.is_finite() && ms > 0.0).then(|| (ms * 1000.0).round() as Micros)
}

impl QueueSpec {
    /// A queue of `kind` with `limit` and the kind's default timing.
    pub fn with_defaults(kind: QueueKind, limit: Limit) -> QueueSpec {
        QueueSpec {
            kind,
            limit,
            timing: kind
                .timing_args()
                .iter()
                .map(|(k, default)| (*k, (default * 1000.0) as Micros))
                .collect(),
            numbers: kind
                .number_args()
                .iter()
                .map(|a| (a.name, a.default))
                .collect(),
            ecn: kind.ecn_default().unwrap_or(false),
        }
    }

    /// Sets the unitless argument `key` (DualPI2's `alpha`, ...) to `value`,
    /// within the range the kind accepts.
    pub fn set_number(&mut self, key: &str, value: f64) -> Result<()> {
        let kind = self.kind;
        let Some(arg) = kind.number_args().iter().find(|a| a.name == key) else {
            bail!("{}", kind.no_such_argument(key));
        };
        if !(value.is_finite() && value >= arg.min && value <= arg.max)
            || (arg.integer && value.fract() != 0.0)
        {
            bail!(
                "queue argument {key}={value} must be {} in [{}, {}]",
                if arg.integer {
                    "a whole number"
                } else {
                    "a number"
                },
                arg.min,
                arg.max
            );
        }
        let slot = self
            .numbers
            .iter_mut()
            .find(|(k, _)| *k == key)
            .expect("every number argument has a slot");
        slot.1 = value;
        Ok(())
    }

    fn number(&self, key: &str) -> f64 {
        self.numbers
            .iter()
            .find(|(k, _)| *k == key)
            .map(|(_, v)| *v)
            .expect("number argument of this kind")
    }

    /// Sets the timing argument `key` (codel's `target`, pie's `max_burst`,
    /// ...) to `ms` milliseconds.
    pub fn set_timing_ms(&mut self, key: &str, ms: f64) -> Result<()> {
        let kind = self.kind;
        let Some(slot) = self.timing.iter_mut().find(|(k, _)| *k == key) else {
            bail!("{}", kind.no_such_argument(key));
        };
        slot.1 = positive_ms(ms).with_context(|| {
            format!("queue argument {key}={ms} must be a positive number of ms")
        })?;
        Ok(())
    }

    /// Parses a discipline name and its comma-separated `key=value` args.
    pub fn from_parts(name: &str, args: Option<&str>) -> Result<QueueSpec> {
        let name = name.trim();
        let Some(kind) = QueueKind::ALL.into_iter().find(|k| k.name() == name) else {
            let names: Vec<&str> = QueueKind::ALL.iter().map(|k| k.name()).collect();
            bail!(
                "unknown queue `{name}` (expected one of {})",
                names.join(", ")
            );
        };
        let mut spec = QueueSpec::with_defaults(kind, Limit::default());
        for arg in args
            .unwrap_or("")
            .split(',')
            .map(str::trim)
            .filter(|a| !a.is_empty())
        {
            let (key, value) = arg
                .split_once('=')
                .with_context(|| format!("queue argument `{arg}` is not key=value"))?;
            let (key, value) = (key.trim(), value.trim());
            match key {
                "bytes" | "packets" if kind != QueueKind::Infinite => {
                    let n: u64 = value.parse().ok().filter(|&n| n > 0).with_context(|| {
                        format!("queue argument {key}=`{value}` must be a positive integer")
                    })?;
                    if key == "bytes" {
                        spec.limit.bytes = Some(n);
                    } else {
                        spec.limit.packets = Some(n);
                    }
                }
                "ecn" if kind.ecn_default().is_some() => {
                    spec.ecn = match value {
                        "1" => true,
                        "0" => false,
                        _ => bail!("queue argument ecn=`{value}` must be 0 or 1"),
                    };
                }
                _ if kind.number_args().iter().any(|a| a.name == key) => {
                    let v: f64 = value.parse().with_context(|| {
                        format!("queue argument {key}=`{value}` is not a number")
                    })?;
                    spec.set_number(key, v)?;
                }
                _ => {
                    if !kind.timing_args().iter().any(|(k, _)| *k == key) {
                        bail!("{}", kind.no_such_argument(key));
                    }
                    let ms: f64 = value
                        .parse()
                        .ok()
                        .filter(|v: &f64| positive_ms(*v).is_some())
                        .with_context(|| {
                            format!(
                                "queue argument {key}=`{value}` must be a positive number of ms"
                            )
                        })?;
                    spec.set_timing_ms(key, ms)?;
                }
            }
        }
        if matches!(kind, QueueKind::DropTail | QueueKind::DropHead)
            && spec.limit == Limit::default()
        {
            bail!(
                "{} needs a size limit: packets=N or bytes=N (e.g. {}:packets=100)",
                kind.name(),
                kind.name()
            );
        }
        Ok(spec)
    }

    fn timing_us(&self, key: &str) -> Micros {
        self.timing
            .iter()
            .find(|(k, _)| *k == key)
            .map(|(_, v)| *v)
            .expect("timing argument of this kind")
    }

    /// A fresh queue of this kind; `seed` drives PIE's random drops.
    pub fn build(&self, seed: u64) -> Box<dyn Queue> {
        match self.kind {
            QueueKind::Infinite => Box::new(Infinite::new()),
            QueueKind::DropTail => Box::new(DropTail::new(self.limit)),
            QueueKind::DropHead => Box::new(DropHead::new(self.limit)),
            QueueKind::CoDel => Box::new(CoDel::new(
                self.limit,
                self.timing_us("target"),
                self.timing_us("interval"),
                self.ecn,
            )),
            QueueKind::Pie => Box::new(Pie::new(
                self.limit,
                self.timing_us("qdelay_ref"),
                self.timing_us("max_burst"),
                self.ecn,
                seed,
            )),
            QueueKind::FqCodel => Box::new(FqCodel::new(
                self.limit,
                self.timing_us("target"),
                self.timing_us("interval"),
                self.ecn,
            )),
            QueueKind::Abc => Box::new(Abc::new(
                self.limit,
                self.timing_us("qdelay_ref"),
                self.timing_us("delta"),
            )),
            QueueKind::DualPi2 => Box::new(DualPi2::new(
                self.limit,
                DualPi2Params {
                    target: self.timing_us("target"),
                    tupdate: self.timing_us("tupdate"),
                    step: self.timing_us("step"),
                    alpha: self.number("alpha"),
                    beta: self.number("beta"),
                    coupling: self.number("coupling"),
                    c_protection: self.number("c_protection") as u8,
                },
                seed,
            )),
            QueueKind::L4sRamp => Box::new(L4sRamp::new(
                self.limit,
                self.timing_us("markfree"),
                self.timing_us("markfull"),
                self.number("stale") != 0.0,
                seed,
            )),
        }
    }
}

impl FromStr for QueueSpec {
    type Err = anyhow::Error;
    /// `name` or `name:key=value,key=value`.
    fn from_str(s: &str) -> Result<QueueSpec> {
        match s.split_once(':') {
            Some((name, args)) => QueueSpec::from_parts(name, Some(args)),
            None => QueueSpec::from_parts(s, None),
        }
    }
}

impl fmt::Display for QueueSpec {
    /// The canonical `name:key=value,...` form (the log header's `queue=`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut args: Vec<String> = self
            .timing
            .iter()
            .map(|(k, us)| format!("{k}={}", *us as f64 / 1000.0))
            .chain(self.numbers.iter().map(|(k, v)| format!("{k}={v}")))
            .collect();
        if self.kind.ecn_default().is_some_and(|d| d != self.ecn) {
            args.push(format!("ecn={}", self.ecn as u8));
        }
        if let Some(n) = self.limit.packets {
            args.push(format!("packets={n}"));
        }
        if let Some(n) = self.limit.bytes {
            args.push(format!("bytes={n}"));
        }
        f.write_str(self.kind.name())?;
        if !args.is_empty() {
            write!(f, ":{}", args.join(","))?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_syntaxes_give_the_same_spec() {
        let a: QueueSpec = "droptail:packets=100".parse().unwrap();
        let b = QueueSpec::from_parts("droptail", Some("packets=100")).unwrap();
        assert_eq!(a, b);
        assert_eq!(
            a.limit,
            Limit {
                packets: Some(100),
                bytes: None
            }
        );
        assert_eq!(a.to_string(), "droptail:packets=100");
    }

    #[test]
    fn aqm_defaults_and_overrides() {
        let c: QueueSpec = "codel:interval=50,bytes=150000".parse().unwrap();
        assert_eq!(c.to_string(), "codel:target=5,interval=50,bytes=150000");
        let p: QueueSpec = "pie:qdelay_ref=20.5,packets=1000".parse().unwrap();
        assert_eq!(
            p.to_string(),
            "pie:qdelay_ref=20.5,max_burst=150,packets=1000"
        );
        assert_eq!(
            "infinite".parse::<QueueSpec>().unwrap(),
            QueueSpec::default()
        );
        // Round trip through the canonical form.
        assert_eq!(p.to_string().parse::<QueueSpec>().unwrap(), p);
    }

    #[test]
    fn ecn_defaults_and_canonical_forms() {
        let c: QueueSpec = "codel:ecn=1,packets=100".parse().unwrap();
        assert!(c.ecn);
        assert_eq!(
            c.to_string(),
            "codel:target=5,interval=100,ecn=1,packets=100"
        );
        let f: QueueSpec = "fq_codel".parse().unwrap();
        assert!(f.ecn, "fq_codel marks by default, as in Linux");
        assert_eq!(f.to_string(), "fq_codel:target=5,interval=100");
        let f0: QueueSpec = "fq_codel:ecn=0".parse().unwrap();
        assert_eq!(f0.to_string(), "fq_codel:target=5,interval=100,ecn=0");
        assert_eq!(f0.to_string().parse::<QueueSpec>().unwrap(), f0);
        let a: QueueSpec = "abc:packets=250".parse().unwrap();
        assert_eq!(a.to_string(), "abc:qdelay_ref=50,delta=133.333,packets=250");
        assert!(!"pie".parse::<QueueSpec>().unwrap().ecn);
    }

    #[test]
    fn l4s_queues_parse_with_sch_dualpi2s_and_sch_janzs_defaults() {
        let d: QueueSpec = "dualpi2:packets=100".parse().unwrap();
        assert_eq!(
            d.to_string(),
            "dualpi2:target=15,tupdate=16,step=1,alpha=0.16,beta=3.2,coupling=2,c_protection=10,packets=100"
        );
        assert_eq!(d.to_string().parse::<QueueSpec>().unwrap(), d);
        let r: QueueSpec = "l4s_ramp:markfree=0.476,markfull=1,stale=1,bytes=150000"
            .parse()
            .unwrap();
        assert_eq!(
            r.to_string(),
            "l4s_ramp:markfree=0.476,markfull=1,stale=1,bytes=150000"
        );
        assert_eq!(
            "l4s_ramp".parse::<QueueSpec>().unwrap().to_string(),
            "l4s_ramp:markfree=4,markfull=14,stale=0"
        );
        let err = |s: &str| s.parse::<QueueSpec>().unwrap_err().to_string();
        assert!(err("dualpi2:c_protection=10.5").contains("whole number"));
        assert!(err("dualpi2:coupling=0").contains("in [0.1, 100]"));
        assert!(err("dualpi2:alpha=x").contains("not a number"));
        assert!(err("l4s_ramp:stale=2").contains("[0, 1]"));
        assert!(err("l4s_ramp:alpha=1").contains("it takes: markfree, markfull, stale, bytes"));
        assert!(err("codel:alpha=1").contains("no argument `alpha`"));
    }

    #[test]
    fn a_queue_built_in_code_equals_the_one_parsed() {
        let limit = Limit {
            packets: Some(100),
            bytes: None,
        };
        let mut c = QueueSpec::with_defaults(QueueKind::CoDel, limit);
        assert_eq!(c, "codel:packets=100".parse().unwrap());
        c.set_timing_ms("interval", 50.0).unwrap();
        assert_eq!(c.to_string(), "codel:target=5,interval=50,packets=100");
        assert!(c
            .set_timing_ms("max_burst", 1.0)
            .unwrap_err()
            .to_string()
            .contains("no argument `max_burst`"));
        assert!(c
            .set_timing_ms("target", 0.0)
            .unwrap_err()
            .to_string()
            .contains("positive number"));
    }

    #[test]
    fn bad_specs_say_what_is_wrong() {
        let err = |s: &str| s.parse::<QueueSpec>().unwrap_err().to_string();
        assert!(err("red:packets=1").contains("unknown queue `red`"));
        assert!(err("codel:ecn=yes").contains("ecn=`yes` must be 0 or 1"));
        assert!(err("droptail:ecn=1,packets=3").contains("no argument `ecn`"));
        assert!(err("droptail").contains("needs a size limit"));
        assert!(err("droptail:packets=x").contains("packets=`x`"));
        assert!(err("droptail:packets=0").contains("positive integer"));
        assert!(err("droptail:target=5,packets=3").contains("no argument `target`"));
        assert!(err("infinite:packets=3").contains("no argument `packets`"));
        assert!(err("codel:target").contains("not key=value"));
        assert!(err("pie:max_burst=-1").contains("positive number"));
    }
}
