// SPDX-License-Identifier: GPL-2.0-only
//! A scenario is one experiment: the emulated link and the flows that cross it.
//!
//! Scenarios are TOML files (see `scenarios/`):
//!
//! ```toml
//! name = "c2tcp-default"
//! [link]
//! downlink = "TMobile-LTE-driving.down"  # a trace file, or "constant:48" (Mbit/s)
//! delay_ms = 10                          # one way, each way
//! queue = "droptail:packets=100"         # both directions (downlink_queue/uplink_queue override)
//! duration_s = 60
//! warmup_s = 5
//! [[flows]]
//! scheme = "c2tcp"
//! target_ms = 50                         # a parameter of the scheme
//! [bench]                                # what `c2tcp bench SCENARIO` runs (optional)
//! schemes = ["c2tcp", "cubic"]
//! traces = ["all"]
//! ```
//!
//! This module is the model: what serde reads (`Scenario::read`,
//! `from_toml`), the defaults, the checks of each field on its own. The
//! whole check (`plan::CheckedScenario::check`) and the changes of a
//! scenario (`with_scheme`, `with_value`, `set_param`, `set_knobs`) need the
//! scheme registry and the queue parser, so `plan/` defines them;
//! `sweep.rs` has the `[sweep]` table's logic. Every mistake is reported
//! with the file and the field it is in.
use std::collections::BTreeMap;
use std::fmt;
use std::path::Path;

use anyhow::{anyhow, bail, Context, Result};
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    #[serde(default)]
    pub name: String,
    #[serde(default)]
    pub description: String,
    pub link: Link,
    pub flows: Vec<Flow>,
    /// NetAssist's settings for runs with `natcp`/`nacubic` flows
    /// (docs/netassist.md); defaults when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub netassist: Option<netassist::Options>,
    /// Every flow through a tunnel over the link (`[tunnel]`, `via =
    /// "sprout"`: SproutTunnel; [`crate::tunnel`]); absent: directly.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tunnel: Option<crate::tunnel::TunnelOptions>,
    /// Values to sweep in `c2tcp bench`, a key mapped to a list of values:
    /// a flow parameter (`target_ms`), a link field (`queue`, `delay_ms`,
    /// `loss`, `downlink`), or a field of the flows with one label
    /// (`"short.size_bytes"`, `"short.count"`: quote the dotted key). See
    /// [`crate::sweep::SweepKey`].
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub sweep: BTreeMap<String, Vec<toml::Value>>,
    /// The experiment this scenario is for: what `c2tcp bench SCENARIO`
    /// runs when no flag says otherwise (Pantheon's habit).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bench: Option<BenchDefaults>,
}

/// The most repetitions a bench runs of each run.
pub const MAX_REPS: u32 = 1000;

/// Checks a repetition count, from `--reps` or `[bench] reps` alike (the
/// caller names which): the same words either way.
pub fn check_reps(reps: u32) -> Result<(), String> {
    match reps {
        1..=MAX_REPS => Ok(()),
        n => Err(format!("{n} repetitions: give 1 to {MAX_REPS}")),
    }
}

/// A scenario's `[bench]` table; each field is the default of the
/// `c2tcp bench` flag of the same name.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct BenchDefaults {
    /// Schemes to compare (`--schemes`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub schemes: Vec<String>,
    /// Downlink traces: files, directories, or `all` (`--traces`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub traces: Vec<String>,
    /// Scheme the report normalises to (`--reference`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reference: Option<String>,
    /// Label of the reference runs in a sweep (`--reference-label`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reference_label: Option<String>,
    /// Repetitions of every run (`--reps`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reps: Option<u32>,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Link {
    /// A Mahimahi trace (path; relative paths are looked up next to the
    /// scenario, then in $C2TCP_TRACES and $C2TCP_TRACES/mahimahi), or
    /// `constant:MBPS`.
    pub downlink: String,
    /// Default: the `.up` sibling of a `.down` trace, else
    /// [`DEFAULT_UPLINK`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uplink: Option<String>,
    /// One-way propagation delay, applied in each direction (mm-delay).
    #[serde(default = "default_delay_ms")]
    pub delay_ms: f64,
    /// Queue of both directions, e.g. `droptail:packets=100`.
    #[serde(default = "default_queue")]
    pub queue: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub downlink_queue: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uplink_queue: Option<String>,
    /// Bernoulli loss probability of both directions.
    #[serde(default)]
    pub loss: f64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub downlink_loss: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uplink_loss: Option<f64>,
    /// Start this far into the traces.
    #[serde(default)]
    pub trace_offset_s: f64,
    #[serde(default = "default_duration_s")]
    pub duration_s: f64,
    /// Run for the downlink trace's own length, one pass from
    /// `trace_offset_s` (the authors ran whole traces); the run sets
    /// `duration_s` from the trace (`--duration trace`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub duration_from_trace: bool,
    /// Measurements start after this.
    #[serde(default)]
    pub warmup_s: f64,
    /// Also write `downlink.pcapng` and `uplink.pcapng` (every packet's
    /// headers at arrival, departure or drop; docs/emulator.md) in the run
    /// directory.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub pcap: bool,
}

/// `--duration`: seconds, or `trace` for the downlink trace's own length.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum RunLength {
    Seconds(f64),
    Trace,
}

impl std::str::FromStr for RunLength {
    type Err = String;

    fn from_str(s: &str) -> Result<RunLength, String> {
        if s == "trace" {
            return Ok(RunLength::Trace);
        }
        match s.parse::<f64>() {
            Ok(v) if v.is_finite() && v > 0.0 => Ok(RunLength::Seconds(v)),
            _ => Err(format!(
                "`{s}`: give seconds (> 0) or `trace` (the downlink trace's own length)"
            )),
        }
    }
}

impl Link {
    pub fn set_length(&mut self, length: RunLength) {
        match length {
            RunLength::Seconds(s) => {
                self.duration_s = s;
                self.duration_from_trace = false;
            }
            RunLength::Trace => self.duration_from_trace = true,
        }
    }

    /// With `duration_from_trace`, sets `duration_s` to one pass of the
    /// downlink trace (its period, ms) from the trace offset.
    pub fn resolve_length(&mut self, downlink_period_ms: u64) -> Result<()> {
        if !self.duration_from_trace {
            return Ok(());
        }
        let left = downlink_period_ms as f64 / 1000.0 - self.trace_offset_s;
        if left <= self.warmup_s {
            bail!(
                "duration: the downlink trace lasts {:.3} s, nothing after trace_offset_s {} and warmup_s {}",
                downlink_period_ms as f64 / 1000.0,
                self.trace_offset_s,
                self.warmup_s
            );
        }
        self.duration_s = left;
        Ok(())
    }
}

/// The defaults of a scenario's link: the authors' set-up (10 ms each way,
/// 100 packets of droptail, their `wired48` uplink) and a minute.
pub const DEFAULT_DELAY_MS: f64 = 10.0;
pub const DEFAULT_QUEUE: &str = "droptail:packets=100";
pub const DEFAULT_DURATION_S: f64 = 60.0;
pub const DEFAULT_UPLINK: &str = "constant:48";

fn default_delay_ms() -> f64 {
    DEFAULT_DELAY_MS
}
fn default_queue() -> String {
    DEFAULT_QUEUE.into()
}
fn default_duration_s() -> f64 {
    DEFAULT_DURATION_S
}

#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq, Default)]
#[serde(rename_all = "lowercase")]
pub enum Direction {
    /// Server to UE, the cellular download the papers study.
    #[default]
    Downlink,
    Uplink,
}

impl fmt::Display for Direction {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Direction::Downlink => "downlink",
            Direction::Uplink => "uplink",
        })
    }
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Flow {
    pub scheme: String,
    #[serde(default)]
    pub start_s: f64,
    /// How long the flow sends (default: until the end of the run).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duration_s: Option<f64>,
    /// A sized flow: send this many bytes, then record the completion time.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size_bytes: Option<u64>,
    #[serde(default)]
    pub direction: Direction,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    /// Keep this flow's scheme when `--scheme` replaces the others (e.g. the
    /// Cubic flow a TCP-friendliness test measures the others against).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub keep_scheme: bool,
    /// Everything else is a parameter of the scheme (`target_ms`, `alpha`, ...),
    /// checked against the knobs the scheme declares.
    #[serde(flatten)]
    pub params: BTreeMap<String, toml::Value>,
}

impl Flow {
    pub fn param_f64(&self, key: &str) -> Option<f64> {
        self.params
            .get(key)
            .and_then(|v| v.as_float().or_else(|| v.as_integer().map(|i| i as f64)))
    }

    pub fn param_str(&self, key: &str) -> Option<&str> {
        self.params.get(key).and_then(|v| v.as_str())
    }

    pub fn label_or(&self, index: usize) -> String {
        self.label
            .clone()
            .unwrap_or_else(|| format!("flow{index}-{}", self.scheme))
    }
}

impl Link {
    pub fn downlink_queue(&self) -> &str {
        self.downlink_queue.as_deref().unwrap_or(&self.queue)
    }
    pub fn uplink_queue(&self) -> &str {
        self.uplink_queue.as_deref().unwrap_or(&self.queue)
    }
    pub fn downlink_loss(&self) -> f64 {
        self.downlink_loss.unwrap_or(self.loss)
    }
    pub fn uplink_loss(&self) -> f64 {
        self.uplink_loss.unwrap_or(self.loss)
    }
}

impl Scenario {
    /// Reads a scenario file as serde does (not checked: that is
    /// `plan::CheckedScenario`'s).
    pub fn read(path: &Path) -> Result<Scenario> {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("reading scenario {}", path.display()))?;
        Scenario::from_toml(&text).with_context(|| format!("in scenario {}", path.display()))
    }

    /// A scenario's TOML as serde reads it (not checked).
    pub fn from_toml(text: &str) -> Result<Scenario> {
        toml::from_str(text).map_err(|e| anyhow!("{e}"))
    }

    /// One flow of `scheme` over `downlink`, everything else at its
    /// default (`c2tcp run` without a scenario file).
    pub fn single_flow(name: &str, downlink: &str, scheme: &str) -> Scenario {
        Scenario {
            name: name.to_string(),
            description: String::new(),
            link: Link {
                downlink: downlink.to_string(),
                uplink: None,
                delay_ms: default_delay_ms(),
                queue: default_queue(),
                downlink_queue: None,
                uplink_queue: None,
                loss: 0.0,
                downlink_loss: None,
                uplink_loss: None,
                trace_offset_s: 0.0,
                duration_s: default_duration_s(),
                duration_from_trace: false,
                warmup_s: 0.0,
                pcap: false,
            },
            flows: vec![Flow {
                scheme: scheme.to_string(),
                start_s: 0.0,
                duration_s: None,
                size_bytes: None,
                direction: Direction::default(),
                label: None,
                keep_scheme: false,
                params: BTreeMap::new(),
            }],
            netassist: None,
            tunnel: None,
            sweep: BTreeMap::new(),
            bench: None,
        }
    }

    /// The checks each field allows on its own or with its neighbours:
    /// ranges, times within the run, one of size and duration.
    pub(crate) fn check_fields(&self) -> Result<()> {
        let l = &self.link;
        field_range("link.delay_ms", l.delay_ms, 0.0, 10_000.0)?;
        field_range("link.duration_s", l.duration_s, 0.001, 86_400.0)?;
        field_range("link.warmup_s", l.warmup_s, 0.0, l.duration_s)?;
        if l.warmup_s >= l.duration_s {
            bail!(
                "link.warmup_s ({}) must be shorter than link.duration_s ({})",
                l.warmup_s,
                l.duration_s
            );
        }
        field_range("link.trace_offset_s", l.trace_offset_s, 0.0, 1e9)?;
        field_range("link.loss", l.loss, 0.0, 0.999)?;
        if let Some(p) = l.downlink_loss {
            field_range("link.downlink_loss", p, 0.0, 0.999)?;
        }
        if let Some(p) = l.uplink_loss {
            field_range("link.uplink_loss", p, 0.0, 0.999)?;
        }
        if self.flows.is_empty() {
            bail!("flows: a scenario needs at least one [[flows]] entry");
        }
        if let Some(na) = &self.netassist {
            na.validate()?;
        }
        if let Some(t) = &self.tunnel {
            t.validate()?;
        }
        for (i, f) in self.flows.iter().enumerate() {
            let at = |field: &str| format!("flows[{i}].{field}");
            field_range(&at("start_s"), f.start_s, 0.0, l.duration_s)?;
            if f.start_s >= l.duration_s {
                bail!(
                    "{}: the flow starts at {} s, after the run ends ({} s)",
                    at("start_s"),
                    f.start_s,
                    l.duration_s
                );
            }
            if let Some(d) = f.duration_s {
                field_range(&at("duration_s"), d, 0.001, 86_400.0)?;
            }
            if f.duration_s.is_some() && f.size_bytes.is_some() {
                bail!(
                    "{}: give duration_s or size_bytes, not both",
                    at("size_bytes")
                );
            }
            if f.size_bytes == Some(0) {
                bail!("{}: must be at least 1 byte", at("size_bytes"));
            }
        }
        Ok(())
    }
}

fn field_range(field: &str, v: f64, lo: f64, hi: f64) -> Result<()> {
    if !v.is_finite() || v < lo || v > hi {
        bail!("{field}: {v} is out of range [{lo}, {hi}]");
    }
    Ok(())
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::plan::CheckedScenario;

    /// `text` read and checked, as a scenario file is.
    pub(crate) fn checked(text: &str) -> Scenario {
        CheckedScenario::parse(text).unwrap().into_scenario()
    }

    pub(crate) const GOOD: &str = r#"
        name = "t"
        [link]
        downlink = "constant:12"
        delay_ms = 10
        duration_s = 20
        warmup_s = 2
        [[flows]]
        scheme = "c2tcp"
        target_ms = 50
        [[flows]]
        scheme = "cubic"
        start_s = 5
        size_bytes = 1000000
    "#;

    pub(crate) const SHORT_LONG: &str = r#"
        name = "sl"
        [link]
        downlink = "constant:1"
        duration_s = 60
        [[flows]]
        scheme = "dfcsd"
        label = "long"
        size_bytes = 10000000
        [[flows]]
        scheme = "dfcsd"
        label = "short"
        start_s = 30
        size_bytes = 131072
        [[flows]]
        scheme = "cubic"
        label = "other"
        start_s = 1
    "#;

    #[test]
    fn a_good_scenario_parses_with_defaults() {
        let sc = checked(GOOD);
        assert_eq!(sc.link.queue, "droptail:packets=100");
        assert_eq!(sc.link.downlink_queue(), "droptail:packets=100");
        assert_eq!(sc.flows[0].param_f64("target_ms"), Some(50.0));
        assert_eq!(sc.flows[1].direction, Direction::Downlink);
        assert_eq!(sc.flows[1].size_bytes, Some(1_000_000));
    }

    #[test]
    fn a_single_flow_has_the_defaults_a_file_would_have() {
        let file: Scenario = toml::from_str(
            "name = \"run\"\n[link]\ndownlink = \"constant:12\"\n[[flows]]\nscheme = \"bbr\"\n",
        )
        .unwrap();
        assert_eq!(Scenario::single_flow("run", "constant:12", "bbr"), file);
    }

    /// The error `CheckedScenario::parse` gives for `text`.
    pub(crate) fn err(text: &str) -> String {
        format!("{:#}", CheckedScenario::parse(text).unwrap_err())
    }

    #[test]
    fn no_flows_is_an_error() {
        let e = err("[link]\ndownlink = \"constant:1\"\nflows = []\n");
        assert!(e.contains("flows"), "{e}");
    }

    #[test]
    fn every_shipped_scenario_is_valid() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios");
        let mut n = 0;
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_some_and(|e| e == "toml") {
                let sc = CheckedScenario::load(&path)
                    .unwrap_or_else(|e| panic!("{e:#}"))
                    .into_scenario();
                assert!(!sc.name.is_empty(), "{} has no name", path.display());
                n += 1;
            }
        }
        assert!(
            n >= 5,
            "expected the papers' scenarios in {}",
            dir.display()
        );
    }
}
