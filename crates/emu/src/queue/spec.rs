// SPDX-License-Identifier: GPL-2.0-only
//! Queue specifications as users write them: `droptail:packets=100`,
//! `codel:target=5,interval=100,packets=1000`, or Mahimahi's split form
//! (`--downlink-queue droptail --downlink-queue-args packets=100`).
use std::fmt;
use std::str::FromStr;

use anyhow::{bail, Context, Result};

use super::{CoDel, DropHead, DropTail, Infinite, Limit, Pie, Queue};
use crate::clock::Micros;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum QueueKind {
    Infinite,
    DropTail,
    DropHead,
    CoDel,
    Pie,
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
        }
    }

    /// The ms-valued arguments this kind takes, with their defaults: the
    /// one place CoDel's and PIE's defaults live (the harness's AQM schemes
    /// start from these too).
    pub fn timing_args(self) -> &'static [(&'static str, f64)] {
        match self {
            QueueKind::CoDel => &[("target", 5.0), ("interval", 100.0)],
            QueueKind::Pie => &[("qdelay_ref", 15.0), ("max_burst", 150.0)],
            _ => &[],
        }
    }

    /// The error for an argument this kind does not take.
    fn no_such_argument(self, key: &str) -> String {
        let mut known: Vec<&str> = self.timing_args().iter().map(|(k, _)| *k).collect();
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
}

impl Default for QueueSpec {
    fn default() -> Self {
        QueueSpec {
            kind: QueueKind::Infinite,
            limit: Limit::default(),
            timing: Vec::new(),
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
        let kind = match name.trim() {
            "infinite" => QueueKind::Infinite,
            "droptail" => QueueKind::DropTail,
            "drophead" => QueueKind::DropHead,
            "codel" => QueueKind::CoDel,
            "pie" => QueueKind::Pie,
            other => bail!(
                "unknown queue `{other}` (expected infinite, droptail, drophead, codel or pie)"
            ),
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
        if matches!(kind, QueueKind::DropTail | QueueKind::DropHead) && spec.limit == Limit::default() {
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
            )),
            QueueKind::Pie => Box::new(Pie::new(
                self.limit,
                self.timing_us("qdelay_ref"),
                self.timing_us("max_burst"),
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
            .collect();
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
    fn a_queue_built_in_code_equals_the_one_parsed() {
        let limit = Limit {
            packets: Some(100),
            bytes: None,
        };
        let mut c = QueueSpec::with_defaults(QueueKind::CoDel, limit);
        assert_eq!(c, "codel:packets=100".parse().unwrap());
        c.set_timing_ms("interval", 50.0).unwrap();
        assert_eq!(c.to_string(), "codel:target=5,interval=50,packets=100");
        assert!(c.set_timing_ms("max_burst", 1.0).unwrap_err().to_string().contains("no argument `max_burst`"));
        assert!(c.set_timing_ms("target", 0.0).unwrap_err().to_string().contains("positive number"));
    }

    #[test]
    fn bad_specs_say_what_is_wrong() {
        let err = |s: &str| s.parse::<QueueSpec>().unwrap_err().to_string();
        assert!(err("red:packets=1").contains("unknown queue `red`"));
        assert!(err("droptail").contains("needs a size limit"));
        assert!(err("droptail:packets=x").contains("packets=`x`"));
        assert!(err("droptail:packets=0").contains("positive integer"));
        assert!(err("droptail:target=5,packets=3").contains("no argument `target`"));
        assert!(err("infinite:packets=3").contains("no argument `packets`"));
        assert!(err("codel:target").contains("not key=value"));
        assert!(err("pie:max_burst=-1").contains("positive number"));
    }
}
