// SPDX-License-Identifier: GPL-2.0-only
//! Queue specifications as users write them: `droptail:packets=100`,
//! `codel:target=5,interval=100,packets=1000`, or Mahimahi's split form
//! (`--downlink-queue droptail --downlink-queue-args packets=100`). What a
//! discipline takes, its defaults and ranges are its own (`kind.rs`); this
//! is only the syntax, the checks they imply and the canonical form.
use std::fmt;
use std::str::FromStr;

use anyhow::{bail, Context, Result};

use super::kind::{QueueKind, SizeLimit, Unit};
use super::{Infinite, Limit, Queue};
use crate::clock::Micros;

/// A parsed queue: discipline, size limit, and the discipline's arguments.
#[derive(Debug, Clone, PartialEq)]
pub struct QueueSpec {
    pub kind: QueueKind,
    pub limit: Limit,
    /// One per argument of the kind, in its order.
    values: Vec<Value>,
    /// Mark ECN-capable packets CE instead of dropping them (kinds with an
    /// `ecn_default` only; false for the others).
    pub ecn: bool,
}

/// An argument's value: a time in whole µs, or a number.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Value {
    Micros(Micros),
    Number(f64),
}

impl Default for QueueSpec {
    fn default() -> Self {
        QueueSpec::with_defaults(QueueKind::of::<Infinite>(), Limit::default())
    }
}

impl QueueSpec {
    /// A queue of `kind` with `limit` and the kind's defaults.
    pub fn with_defaults(kind: QueueKind, limit: Limit) -> QueueSpec {
        QueueSpec {
            kind,
            limit,
            values: kind
                .args()
                .iter()
                .map(|a| match a.unit {
                    Unit::Ms => Value::Micros((a.default * 1000.0).round() as Micros),
                    Unit::Number | Unit::Whole => Value::Number(a.default),
                })
                .collect(),
            ecn: kind.ecn_default().unwrap_or(false),
        }
    }

    /// The error for an argument this kind does not take.
    fn no_such_argument(&self, key: &str) -> anyhow::Error {
        let takes = self.kind.takes();
        anyhow::anyhow!(
            "{} takes no argument `{key}` (it takes: {})",
            self.kind.name(),
            if takes.is_empty() {
                "none".to_string()
            } else {
                takes.join(", ")
            }
        )
    }

    /// Sets the argument `key` (CoDel's `target`, DualPI2's `alpha`, ...) to
    /// `value`, in the argument's unit (ms for a time), within its range.
    pub fn set(&mut self, key: &str, value: f64) -> Result<()> {
        let Some(i) = self.kind.args().iter().position(|a| a.name == key) else {
            return Err(self.no_such_argument(key));
        };
        let arg = &self.kind.args()[i];
        if !arg.accepts(value) {
            bail!("queue argument {key}={value} must be {}", arg.expects());
        }
        self.values[i] = match arg.unit {
            Unit::Ms => Value::Micros((value * 1000.0).round() as Micros),
            Unit::Number | Unit::Whole => Value::Number(value),
        };
        Ok(())
    }

    fn value(&self, key: &str) -> Option<Value> {
        let i = self.kind.args().iter().position(|a| a.name == key)?;
        Some(self.values[i])
    }

    /// The time argument `key`, µs. Panics if the kind has no such time
    /// argument: a discipline asks only for its own.
    pub fn micros(&self, key: &str) -> Micros {
        match self.value(key) {
            Some(Value::Micros(us)) => us,
            _ => panic!("{} has no time argument `{key}`", self.kind.name()),
        }
    }

    /// The unitless argument `key`. Panics as [`QueueSpec::micros`] does.
    pub fn number(&self, key: &str) -> f64 {
        match self.value(key) {
            Some(Value::Number(v)) => v,
            _ => panic!("{} has no number argument `{key}`", self.kind.name()),
        }
    }

    /// Parses a discipline name and its comma-separated `key=value` args.
    pub fn from_parts(name: &str, args: Option<&str>) -> Result<QueueSpec> {
        let name = name.trim();
        let Some(kind) = QueueKind::named(name) else {
            let names: Vec<&str> = QueueKind::all().iter().map(|k| k.name()).collect();
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
                "bytes" | "packets" if kind.size_limit() != SizeLimit::Unbounded => {
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
                _ => {
                    let Some(a) = kind.arg(key) else {
                        return Err(spec.no_such_argument(key));
                    };
                    let v: f64 = value.parse().with_context(|| {
                        format!(
                            "queue argument {key}=`{value}` is not a number; it must be {}",
                            a.expects()
                        )
                    })?;
                    spec.set(key, v)?;
                }
            }
        }
        if kind.size_limit() == SizeLimit::Required && spec.limit == Limit::default() {
            bail!(
                "{} needs a size limit: packets=N or bytes=N (e.g. {}:packets=100)",
                kind.name(),
                kind.name()
            );
        }
        Ok(spec)
    }

    /// A fresh queue of this kind; `seed` drives its random choices (PIE's
    /// drops, DualPI2's and the L4S ramp's marks).
    pub fn build(&self, seed: u64) -> Box<dyn Queue> {
        self.kind.build(self, seed)
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
            .kind
            .args()
            .iter()
            .zip(&self.values)
            .map(|(a, v)| match v {
                Value::Micros(us) => format!("{}={}", a.name, *us as f64 / 1000.0),
                Value::Number(n) => format!("{}={n}", a.name),
            })
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
    use crate::queue::CoDel;

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
            "dualpi2:target=15,tupdate=16,step=1,step_packets=0,min_qlen_step=0,alpha=0.16,beta=3.2,coupling=2,c_protection=10,packets=100"
        );
        assert_eq!(d.to_string().parse::<QueueSpec>().unwrap(), d);
        let g: QueueSpec = "dualpi2:min_qlen_step=1,step_packets=2".parse().unwrap();
        assert_eq!(g.to_string().parse::<QueueSpec>().unwrap(), g);
        assert_eq!(
            "l4s_cell".parse::<QueueSpec>().unwrap().to_string(),
            "l4s_cell:law=0,target=10"
        );
        assert!("l4s_cell:law=2".parse::<QueueSpec>().is_err());
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
        let mut c = QueueSpec::with_defaults(QueueKind::of::<CoDel>(), limit);
        assert_eq!(c, "codel:packets=100".parse().unwrap());
        c.set("interval", 50.0).unwrap();
        assert_eq!(c.to_string(), "codel:target=5,interval=50,packets=100");
        assert_eq!(c.micros("interval"), 50_000);
        assert!(c
            .set("max_burst", 1.0)
            .unwrap_err()
            .to_string()
            .contains("no argument `max_burst`"));
        assert!(c
            .set("target", 0.0)
            .unwrap_err()
            .to_string()
            .contains("positive number"));
    }

    #[test]
    fn ranges_are_the_disciplines_own() {
        let err = |s: &str| s.parse::<QueueSpec>().unwrap_err().to_string();
        assert!(err("codel:target=0.05").contains("in [0.1, 10000]"));
        assert!(err("codel:interval=100001").contains("in [1, 100000]"));
        assert!(err("pie:max_burst=0").contains("positive number of ms"));
        assert!(err("pie:max_burst=x").contains("not a number"));
        // The bounds themselves are accepted, and print back to themselves.
        for s in [
            "codel:target=0.1,interval=100000",
            "l4s_ramp:markfree=0.001,markfull=10000,stale=1",
        ] {
            let q: QueueSpec = s.parse().unwrap();
            assert_eq!(q.to_string().parse::<QueueSpec>().unwrap(), q);
        }
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
