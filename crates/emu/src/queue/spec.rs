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
    fn name(self) -> &'static str {
        match self {
            QueueKind::Infinite => "infinite",
            QueueKind::DropTail => "droptail",
            QueueKind::DropHead => "drophead",
            QueueKind::CoDel => "codel",
            QueueKind::Pie => "pie",
        }
    }

    /// The ms-valued arguments this kind takes, with their defaults.
    fn timing_args(self) -> &'static [(&'static str, f64)] {
        match self {
            QueueKind::CoDel => &[("target", 5.0), ("interval", 100.0)],
            QueueKind::Pie => &[("qdelay_ref", 15.0), ("max_burst", 150.0)],
            _ => &[],
        }
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

impl QueueSpec {
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
        let mut limit = Limit::default();
        let mut timing: Vec<(&'static str, Option<Micros>)> =
            kind.timing_args().iter().map(|(k, _)| (*k, None)).collect();
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
                        limit.bytes = Some(n);
                    } else {
                        limit.packets = Some(n);
                    }
                }
                _ => {
                    let Some(slot) = timing.iter_mut().find(|(k, _)| *k == key) else {
                        let mut known: Vec<&str> =
                            kind.timing_args().iter().map(|(k, _)| *k).collect();
                        if kind != QueueKind::Infinite {
                            known.extend(["bytes", "packets"]);
                        }
                        bail!(
                            "{} takes no argument `{key}` (it takes: {})",
                            kind.name(),
                            if known.is_empty() {
                                "none".to_string()
                            } else {
                                known.join(", ")
                            }
                        );
                    };
                    let ms: f64 = value
                        .parse()
                        .ok()
                        .filter(|v: &f64| v.is_finite() && *v > 0.0)
                        .with_context(|| {
                            format!(
                                "queue argument {key}=`{value}` must be a positive number of ms"
                            )
                        })?;
                    slot.1 = Some((ms * 1000.0).round() as Micros);
                }
            }
        }
        if matches!(kind, QueueKind::DropTail | QueueKind::DropHead) && limit == Limit::default() {
            bail!(
                "{} needs a size limit: packets=N or bytes=N (e.g. {}:packets=100)",
                kind.name(),
                kind.name()
            );
        }
        let timing = timing
            .into_iter()
            .zip(kind.timing_args())
            .map(|((k, v), (_, default))| (k, v.unwrap_or((default * 1000.0) as Micros)))
            .collect();
        Ok(QueueSpec {
            kind,
            limit,
            timing,
        })
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
