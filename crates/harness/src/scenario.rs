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
//! Every mistake is reported with the file and the field it is in.
use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use serde::{Deserialize, Serialize};

use crate::scheme;

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
    /// Values to sweep in `c2tcp bench`, a key mapped to a list of values:
    /// a flow parameter (`target_ms`), a link field (`queue`, `delay_ms`,
    /// `loss`, `downlink`), or a field of the flows with one label
    /// (`"short.size_bytes"`, `"short.count"`: quote the dotted key). See
    /// [`SweepKey`].
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub sweep: BTreeMap<String, Vec<toml::Value>>,
    /// The experiment this scenario is for: what `c2tcp bench SCENARIO`
    /// runs when no flag says otherwise (Pantheon's habit).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bench: Option<BenchDefaults>,
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
    /// Default: the `.up` sibling of a `.down` trace, else a constant
    /// 48 Mbit/s link (the authors' `wired48`).
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
            _ => Err(format!("`{s}`: give seconds (> 0) or `trace` (the downlink trace's own length)")),
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

fn default_delay_ms() -> f64 {
    10.0
}
fn default_queue() -> String {
    "droptail:packets=100".into()
}
fn default_duration_s() -> f64 {
    60.0
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
    /// Reads and validates a scenario file.
    pub fn load(path: &Path) -> Result<Scenario> {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("reading scenario {}", path.display()))?;
        let sc =
            Scenario::parse(&text).with_context(|| format!("in scenario {}", path.display()))?;
        Ok(sc)
    }

    pub fn parse(text: &str) -> Result<Scenario> {
        let sc: Scenario = toml::from_str(text).map_err(|e| anyhow::anyhow!("{e}"))?;
        sc.validate()?;
        Ok(sc)
    }

    /// Checks everything serde cannot: ranges, combinations, scheme knobs.
    pub fn validate(&self) -> Result<()> {
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
        for (i, f) in self.flows.iter().enumerate() {
            let at = |field: &str| format!("flows[{i}].{field}");
            let sch = scheme::lookup(&f.scheme).with_context(|| at("scheme"))?;
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
            if f.size_bytes.is_some() && !sch.takes_size() {
                bail!(
                    "{}: `{}` flows are always backlogged; give duration_s instead",
                    at("size_bytes"),
                    f.scheme
                );
            }
            if f.size_bytes == Some(0) {
                bail!("{}: must be at least 1 byte", at("size_bytes"));
            }
            sch.check_params(&f.params)
                .map_err(|e| anyhow::anyhow!("{}: {e}", at("")))?;
            if sch
                .receiver_rule(&f.params)
                .map_err(|e| anyhow::anyhow!("{}: {e}", at("")))?
                .is_some()
                && f.direction != Direction::Downlink
            {
                bail!(
                    "{}: `{}` controls the UE's receivers, so its flows must be downlink",
                    at("direction"),
                    f.scheme
                );
            }
        }
        self.receiver_rule()?;
        for (key, values) in &self.sweep {
            if values.is_empty() {
                bail!("sweep.{key}: give at least one value");
            }
            match SweepKey::of(key) {
                SweepKey::Link(_) => {}
                SweepKey::Flows { label, field } => {
                    if !FLOW_FIELDS.contains(&field) {
                        bail!(
                            "sweep.{key}: `{field}` is not a flow field that can be swept ({})",
                            FLOW_FIELDS.join(", ")
                        );
                    }
                    if !self.flows.iter().any(|f| f.label.as_deref() == Some(label)) {
                        let labels: Vec<&str> = self
                            .flows
                            .iter()
                            .filter_map(|f| f.label.as_deref())
                            .collect();
                        bail!(
                            "sweep.{key}: no flow is labelled `{label}` (labels: {})",
                            labels.join(", ")
                        );
                    }
                }
                SweepKey::Param(_) => {
                    if !self
                        .flows
                        .iter()
                        .any(|f| scheme::lookup(&f.scheme).is_ok_and(|s| s.takes(key)))
                    {
                        bail!(
                            "sweep.{key}: neither a link field ({}), a flow field (<label>.{}) nor a parameter of \
                             these flows' schemes",
                            LINK_KEYS.join(", "),
                            FLOW_FIELDS.join(", <label>.")
                        );
                    }
                }
            }
            // Every value must make a valid scenario.
            for (i, v) in values.iter().enumerate() {
                self.with_value(key, v)
                    .with_context(|| format!("sweep.{key}[{i}] = {v}"))?;
            }
        }
        Ok(())
    }

    /// The receiver-side rule of the run (one controller per UE), if any
    /// flow's scheme has one: every such flow must give the same rule and
    /// parameters, since DFCSD's allowances compare the flows of one UE.
    pub fn receiver_rule(&self) -> Result<Option<rxctl::Rule>> {
        let mut found: Option<(usize, rxctl::Rule)> = None;
        for (i, f) in self.flows.iter().enumerate() {
            let Ok(sch) = scheme::lookup(&f.scheme) else {
                continue;
            };
            let Some(rule) = sch.receiver_rule(&f.params)? else {
                continue;
            };
            match found {
                None => found = Some((i, rule)),
                Some((j, first)) if first != rule => bail!(
                    "flows[{i}].scheme: `{}` asks for receiver-side control {rule:?}, flows[{j}] for {first:?}; \
                     one UE runs one controller, so its controlled flows must agree",
                    f.scheme
                ),
                Some(_) => {}
            }
        }
        Ok(found.map(|(_, r)| r))
    }

    /// This scenario with `value` applied to the swept `key`.
    pub fn with_value(&self, key: &str, value: &toml::Value) -> Result<Scenario> {
        let mut sc = self.clone();
        sc.sweep.clear();
        let num = || {
            value
                .as_float()
                .or_else(|| value.as_integer().map(|i| i as f64))
        };
        let string = || {
            value
                .as_str()
                .map(str::to_string)
                .with_context(|| format!("sweep.{key}: values must be strings"))
        };
        match SweepKey::of(key) {
            SweepKey::Link("queue") => sc.link.queue = string()?,
            SweepKey::Link("downlink") => sc.link.downlink = string()?,
            SweepKey::Link("delay_ms") => {
                sc.link.delay_ms = num().context("sweep.delay_ms: values must be numbers")?
            }
            SweepKey::Link(_) => {
                sc.link.loss = num().context("sweep.loss: values must be numbers")?
            }
            SweepKey::Flows { label, field } => {
                let n = value.as_integer().filter(|&n| n >= 1).with_context(|| {
                    format!("sweep.{key}: values must be whole numbers of at least 1")
                })?;
                let of_label = |f: &Flow| f.label.as_deref() == Some(label);
                match field {
                    "size_bytes" => sc
                        .flows
                        .iter_mut()
                        .filter(|f| of_label(f))
                        .for_each(|f| f.size_bytes = Some(n as u64)),
                    "count" => {
                        if n > MAX_COUNT {
                            bail!("sweep.{key}: at most {MAX_COUNT} flows");
                        }
                        // Keep the first n flows of the label; copy its last one to make up n.
                        let at: Vec<usize> = (0..sc.flows.len())
                            .filter(|&i| of_label(&sc.flows[i]))
                            .collect();
                        let Some(&last) = at.last() else {
                            bail!("sweep.{key}: no flow is labelled `{label}`")
                        };
                        let model = sc.flows[last].clone();
                        for &i in at.iter().skip(n as usize).rev() {
                            sc.flows.remove(i);
                        }
                        for _ in at.len()..n as usize {
                            sc.flows.insert(last + 1, model.clone());
                        }
                    }
                    other => bail!("sweep.{key}: `{other}` is not a flow field that can be swept"),
                }
            }
            SweepKey::Param(_) => {
                for f in &mut sc.flows {
                    if scheme::lookup(&f.scheme).is_ok_and(|s| s.takes(key)) {
                        f.params.insert(key.to_string(), value.clone());
                    }
                }
            }
        }
        sc.validate()?;
        Ok(sc)
    }

    /// Replaces every flow's scheme (`c2tcp run --scheme`), dropping
    /// parameters the new scheme does not take.
    pub fn with_scheme(&self, name: &str) -> Result<Scenario> {
        let sch = scheme::lookup(name)?;
        let mut sc = self.clone();
        for f in sc.flows.iter_mut().filter(|f| !f.keep_scheme) {
            f.scheme = name.to_string();
            f.params.retain(|k, _| sch.takes(k));
        }
        // A swept parameter none of the flows take any more is dropped.
        let flows = sc.flows.clone();
        sc.sweep.retain(|k, _| match SweepKey::of(k) {
            SweepKey::Link(_) | SweepKey::Flows { .. } => true,
            SweepKey::Param(_) => flows
                .iter()
                .any(|f| scheme::lookup(&f.scheme).is_ok_and(|s| s.takes(k))),
        });
        sc.validate()?;
        Ok(sc)
    }
}

/// Link fields a sweep can change (`downlink`: a trace or `constant:MBPS`).
pub const LINK_KEYS: &[&str] = &["queue", "delay_ms", "loss", "downlink"];
/// Fields of the flows with one label a sweep can change: their size, and
/// how many there are (the last one copied, or the first ones kept).
pub const FLOW_FIELDS: &[&str] = &["size_bytes", "count"];
/// Flows of one label a `count` sweep may ask for.
const MAX_COUNT: i64 = 64;

/// What a sweep key changes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SweepKey<'a> {
    /// One of [`LINK_KEYS`].
    Link(&'a str),
    /// `<label>.<field>`: a field of every flow labelled `label`.
    Flows { label: &'a str, field: &'a str },
    /// A parameter of the flows whose scheme takes it.
    Param(&'a str),
}

impl<'a> SweepKey<'a> {
    pub fn of(key: &'a str) -> SweepKey<'a> {
        if let Some(k) = LINK_KEYS.iter().find(|k| **k == key) {
            return SweepKey::Link(k);
        }
        match key.rsplit_once('.') {
            Some((label, field)) => SweepKey::Flows { label, field },
            None => SweepKey::Param(key),
        }
    }
}

fn field_range(field: &str, v: f64, lo: f64, hi: f64) -> Result<()> {
    if !v.is_finite() || v < lo || v > hi {
        bail!("{field}: {v} is out of range [{lo}, {hi}]");
    }
    Ok(())
}

/// Where a trace named in a scenario is found: as given (relative to the
/// scenario's directory), else in $C2TCP_TRACES or $C2TCP_TRACES/mahimahi.
pub fn resolve_trace(name: &str, scenario_dir: Option<&Path>) -> Result<PathBuf> {
    let p = Path::new(name);
    let mut tried = Vec::new();
    let mut candidates = Vec::new();
    if p.is_absolute() {
        candidates.push(p.to_path_buf());
    } else {
        if let Some(d) = scenario_dir {
            candidates.push(d.join(p));
        }
        candidates.push(p.to_path_buf());
        match traces_dir() {
            Ok(traces) => {
                candidates.push(traces.join(p));
                candidates.push(traces.join("mahimahi").join(p));
            }
            Err(e) => tried.push(format!("{e:#}")),
        }
    }
    for c in candidates {
        if c.is_file() {
            return Ok(c);
        }
        tried.push(c.display().to_string());
    }
    bail!("trace `{name}` not found (looked in: {})", tried.join(", "))
}

pub use crate::data::traces_dir;

#[cfg(test)]
mod tests {
    use super::*;

    const GOOD: &str = r#"
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

    #[test]
    fn a_good_scenario_parses_with_defaults() {
        let sc = Scenario::parse(GOOD).unwrap();
        assert_eq!(sc.link.queue, "droptail:packets=100");
        assert_eq!(sc.link.downlink_queue(), "droptail:packets=100");
        assert_eq!(sc.flows[0].param_f64("target_ms"), Some(50.0));
        assert_eq!(sc.flows[1].direction, Direction::Downlink);
        assert_eq!(sc.flows[1].size_bytes, Some(1_000_000));
    }

    fn err(text: &str) -> String {
        format!("{:#}", Scenario::parse(text).unwrap_err())
    }

    #[test]
    fn errors_name_the_field() {
        let e = err(&GOOD.replace("delay_ms = 10", "delay_ms = -1"));
        assert!(e.contains("link.delay_ms"), "{e}");
        let e = err(&GOOD.replace("warmup_s = 2", "warmup_s = 30"));
        assert!(e.contains("link.warmup_s"), "{e}");
        let e = err(&GOOD.replace("target_ms = 50", "target_ms = 50\nbogus = 1"));
        assert!(e.contains("flows[0]") && e.contains("bogus"), "{e}");
        let e = err(&GOOD.replace("start_s = 5", "start_s = 25"));
        assert!(e.contains("flows[1].start_s"), "{e}");
        let e = err(&GOOD.replace(
            "size_bytes = 1000000",
            "size_bytes = 1000000\nduration_s = 3",
        ));
        assert!(e.contains("flows[1].size_bytes"), "{e}");
        let e = err(&GOOD.replace("delay_ms = 10", "delay_ms = 10\ndelay = 3"));
        assert!(e.contains("unknown field `delay`"), "{e}");
        let e = err(&GOOD.replace("target_ms = 50", "target_ms = 0.5"));
        assert!(e.contains("flows[0]") && e.contains("target_ms"), "{e}");
    }

    #[test]
    fn unknown_scheme_lists_the_known_ones() {
        let e = err(&GOOD.replace("scheme = \"cubic\"", "scheme = \"tcp-foo\""));
        assert!(e.contains("flows[1].scheme"), "{e}");
        assert!(
            e.contains("unknown scheme `tcp-foo`") && e.contains("cubic") && e.contains("bbr"),
            "{e}"
        );
    }

    #[test]
    fn no_flows_is_an_error() {
        let e = err("[link]\ndownlink = \"constant:1\"\nflows = []\n");
        assert!(e.contains("flows"), "{e}");
    }

    #[test]
    fn sweeps_apply_to_the_flows_that_take_the_parameter() {
        let mut sc = Scenario::parse(GOOD).unwrap();
        sc.sweep
            .insert("target_ms".into(), vec![toml::Value::Integer(25)]);
        sc.validate().unwrap();
        let v = sc
            .with_value("target_ms", &toml::Value::Integer(25))
            .unwrap();
        assert_eq!(v.flows[0].param_f64("target_ms"), Some(25.0));
        assert!(!v.flows[1].params.contains_key("target_ms"));
        let q = sc
            .with_value("queue", &toml::Value::String("droptail:bytes=75000".into()))
            .unwrap();
        assert_eq!(q.link.queue, "droptail:bytes=75000");
        sc.sweep
            .insert("nonsense".into(), vec![toml::Value::Integer(1)]);
        assert!(format!("{:#}", sc.validate().unwrap_err()).contains("sweep.nonsense"));
    }

    #[test]
    fn with_scheme_replaces_every_flow_and_drops_foreign_params() {
        let sc = Scenario::parse(GOOD).unwrap().with_scheme("bbr").unwrap();
        assert!(sc
            .flows
            .iter()
            .all(|f| f.scheme == "bbr" && f.params.is_empty()));
        let kept = Scenario::parse(&GOOD.replace("start_s = 5", "start_s = 5\nkeep_scheme = true"))
            .unwrap()
            .with_scheme("bbr")
            .unwrap();
        assert_eq!(kept.flows[0].scheme, "bbr");
        assert_eq!(kept.flows[1].scheme, "cubic");
    }

    const SHORT_LONG: &str = r#"
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
    fn flow_fields_of_one_label_are_swept() {
        let sc = Scenario::parse(SHORT_LONG).unwrap();
        let v = sc
            .with_value("short.size_bytes", &toml::Value::Integer(65536))
            .unwrap();
        assert_eq!(
            v.flows.iter().map(|f| f.size_bytes).collect::<Vec<_>>(),
            [Some(10_000_000), Some(65536), None]
        );
        // count: the last flow of the label is copied, in place ...
        let three = sc
            .with_value("short.count", &toml::Value::Integer(3))
            .unwrap();
        let labels: Vec<&str> = three
            .flows
            .iter()
            .map(|f| f.label.as_deref().unwrap())
            .collect();
        assert_eq!(labels, ["long", "short", "short", "short", "other"]);
        assert!(three.flows[1..4]
            .iter()
            .all(|f| f.start_s == 30.0 && f.size_bytes == Some(131072)));
        // ... or the first ones kept.
        let one = three
            .with_value("short.count", &toml::Value::Integer(1))
            .unwrap();
        assert_eq!(one.flows, sc.flows);
        let rate = sc
            .with_value("downlink", &toml::Value::String("constant:54".into()))
            .unwrap();
        assert_eq!(rate.link.downlink, "constant:54");
    }

    #[test]
    fn sweep_errors_name_the_key() {
        let with = |sweep: &str| {
            format!(
                "{:#}",
                Scenario::parse(&format!(
                    "{SHORT_LONG}
[sweep]
{sweep}
"
                ))
                .unwrap_err()
            )
        };
        let e = with(r#""tiny.size_bytes" = [1000]"#);
        assert!(
            e.contains("sweep.tiny.size_bytes")
                && e.contains("no flow is labelled `tiny`")
                && e.contains("long, short"),
            "{e}"
        );
        let e = with(r#""short.start" = [1]"#);
        assert!(
            e.contains("sweep.short.start") && e.contains("size_bytes, count"),
            "{e}"
        );
        let e = with(r#""short.size_bytes" = [65536, 0]"#);
        assert!(
            e.contains("sweep.short.size_bytes[1]") && e.contains("at least 1"),
            "{e}"
        );
        let e = with(r#""short.count" = [2, 500]"#);
        assert!(
            e.contains("sweep.short.count[1]") && e.contains("at most 64"),
            "{e}"
        );
        let e = with(r#"downlink = [54]"#);
        assert!(e.contains("sweep.downlink") && e.contains("strings"), "{e}");
        let e = with(r#"gamma_max = [5, 0.1]"#);
        assert!(
            e.contains("sweep.gamma_max[1]") && e.contains("gamma_max"),
            "{e}"
        );
        let e = with(r#"bogus = [1]"#);
        assert!(
            e.contains("sweep.bogus") && e.contains("downlink") && e.contains("<label>.size_bytes"),
            "{e}"
        );
        // The flows' own fields are swept for every scheme: with_scheme keeps them.
        let sc = Scenario::parse(&format!(
            "{SHORT_LONG}\n[sweep]\n\"short.count\" = [1, 2]\ngamma_k = [2, 4]\n"
        ))
        .unwrap();
        let c = sc.with_scheme("cubic").unwrap();
        assert_eq!(c.sweep.keys().collect::<Vec<_>>(), ["short.count"]);
    }

    #[test]
    fn receiver_side_flows_share_one_rule_and_are_downlink() {
        let sc = Scenario::parse(SHORT_LONG).unwrap();
        assert!(matches!(
            sc.receiver_rule().unwrap(),
            Some(rxctl::Rule::Dfcsd(_))
        ));
        assert_eq!(
            sc.with_scheme("cubic").unwrap().receiver_rule().unwrap(),
            None
        );
        let e = err(&SHORT_LONG.replacen("scheme = \"dfcsd\"", "scheme = \"drwa\"", 1));
        assert!(
            e.contains("flows[1].scheme") && e.contains("one controller"),
            "{e}"
        );
        let e = err(&SHORT_LONG.replace("start_s = 30", "start_s = 30\ngamma_max = 20"));
        assert!(e.contains("flows[1].scheme"), "{e}");
        let e = err(&SHORT_LONG.replace("start_s = 30", "start_s = 30\ndirection = \"uplink\""));
        assert!(
            e.contains("flows[1].direction") && e.contains("downlink"),
            "{e}"
        );
        // A plain flow beside them is not controlled and may go either way.
        Scenario::parse(&SHORT_LONG.replace("start_s = 1", "start_s = 1\ndirection = \"uplink\""))
            .unwrap();
    }

    #[test]
    fn missing_trace_names_the_places_looked() {
        let e = format!(
            "{:#}",
            resolve_trace("no-such.down", Some(Path::new("/tmp"))).unwrap_err()
        );
        assert!(
            e.contains("no-such.down") && e.contains("/tmp/no-such.down"),
            "{e}"
        );
    }

    #[test]
    fn every_shipped_scenario_is_valid() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios");
        let mut n = 0;
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_some_and(|e| e == "toml") {
                let sc = Scenario::load(&path).unwrap_or_else(|e| panic!("{e:#}"));
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
