// SPDX-License-Identifier: GPL-2.0-only
//! Queue specifications as users write them: `droptail:packets=100`,
//! `codel:target=5,interval=100,packets=1000`, or Mahimahi's split form
//! (`--downlink-queue droptail --downlink-queue-args packets=100`).
use std::fmt;
use std::str::FromStr;

use anyhow::{bail, Context, Result};

use super::{Abc, CoDel, DropHead, DropTail, FqCodel, Infinite, Limit, Pie, Queue};
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
}

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
        }
    }

    /// Every kind, in the order `--help` lists them.
    pub const ALL: [QueueKind; 7] = [
        QueueKind::Infinite,
        QueueKind::DropTail,
        QueueKind::DropHead,
        QueueKind::CoDel,
        QueueKind::Pie,
        QueueKind::FqCodel,
        QueueKind::Abc,
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
            _ => &[],
        }
    }

    /// The error for an argument this kind does not take.
    fn no_such_argument(self, key: &str) -> String {
        let mut known: Vec<&str> = self.timing_args().iter().map(|(k, _)| *k).collect();
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
            ecn: kind.ecn_default().unwrap_or(false),
        }
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
