// SPDX-License-Identifier: GPL-2.0-only
//! A bench's jobs: its matrix expanded into one [`Job`] per run (what
//! `c2tcp bench --list` prints, one JSON line each), a shard of them
//! (`--shard K/N`), and how a run's swept value is named in its identity.
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use emu::LinkSpec;
use results::RunId;
use serde::{Deserialize, Serialize};

use super::Matrix;
use crate::data::resolve_trace;
use crate::identity;
use crate::plan::{uplink_sibling, CheckedScenario};
use crate::scenario::Scenario;
use crate::sweep::SweepKey;
use crate::trace_ref::{Checksums, TraceRef};

/// One run of the matrix: everything a machine needs to do it, as
/// `c2tcp bench --list` prints it (one JSON line each) and `c2tcp run --job`
/// takes it. Its scenario is concrete (swept value applied, trace files
/// named by absolute path, checked by content through `traces`).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Job {
    /// Its place in the bench's listed order, which `--shard` selects on.
    pub index: usize,
    /// Which run this is; run.json records it.
    pub id: RunId,
    /// `id`'s label (`RunInfo::label_for` of its params).
    pub label: String,
    /// Seeds the emulator's random loss and PIE: the bench's seed + rep - 1.
    pub seed: u64,
    /// The run's directory relative to the bench directory (`runs/...`).
    pub run: PathBuf,
    /// The run's directory in the bench that listed it.
    pub dir: PathBuf,
    /// The trace files the run reads, with their checksums.
    pub traces: Vec<TraceRef>,
    /// The concrete scenario this run executes.
    pub scenario: Scenario,
    /// The scheme files its flows' schemes come from (`scheme::file`), so
    /// the child that runs it knows them as its bench did.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub scheme_files: Vec<crate::scheme::file::Carried>,
}

impl Job {
    pub fn label(&self) -> String {
        self.id.describe()
    }

    /// One line of `c2tcp bench --list`.
    pub fn to_line(&self) -> Result<String> {
        Ok(serde_json::to_string(self)?)
    }

    /// A job as `--list` printed it (a file or a line).
    /// Unknown fields are refused; the error names the field.
    pub fn parse(text: &str) -> Result<Job> {
        let mut de = serde_json::Deserializer::from_str(text.trim());
        let job: Job = serde_path_to_error::deserialize(&mut de)
            .map_err(|e| anyhow::anyhow!("field `{}`: {}", e.path(), e.inner()))?;
        de.end()?;
        Ok(job)
    }
}

/// `--shard K/N`: the jobs whose index is K-1 modulo N, so that N
/// independent benches (a SLURM array, a Kubernetes indexed job, N
/// terminals) cover the matrix exactly once.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shard {
    /// 1-based.
    pub k: usize,
    pub n: usize,
}

impl Shard {
    pub fn holds(&self, index: usize) -> bool {
        index % self.n == self.k - 1
    }
}

impl std::str::FromStr for Shard {
    type Err = String;
    fn from_str(s: &str) -> std::result::Result<Shard, String> {
        let (k, n) = s
            .split_once('/')
            .ok_or_else(|| format!("`{s}`: a shard is K/N, e.g. 2/4"))?;
        let k: usize = k
            .trim()
            .parse()
            .map_err(|_| format!("`{s}`: K must be a whole number"))?;
        let n: usize = n
            .trim()
            .parse()
            .map_err(|_| format!("`{s}`: N must be a whole number"))?;
        if n == 0 || k == 0 || k > n {
            return Err(format!("`{s}`: need 1 <= K <= N"));
        }
        Ok(Shard { k, n })
    }
}

/// How a swept value is named in run.json's params: the number a figure
/// plots where there is one. A swept queue becomes its size
/// (`buffer_bytes` / `buffer_packets`), a constant-rate downlink its rate
/// (`downlink_mbps`; a trace keeps its file name under `downlink`),
/// `<label>.size_bytes` and `<label>.count` become `<label>_bytes` and
/// `<label>_flows` (`short_bytes`, `short_flows`); other values keep their key.
pub fn param_of(key: &str, v: &toml::Value) -> (String, serde_json::Value) {
    if let SweepKey::Flows { label, field } = SweepKey::of(key) {
        let name = if field == "count" {
            format!("{label}_flows")
        } else {
            format!("{label}_bytes")
        };
        return (name, param_of(field, v).1);
    }
    if key == "downlink" {
        if let Some(d) = v.as_str() {
            if let Some(mbps) = d
                .strip_prefix("constant:")
                .and_then(|m| m.parse::<f64>().ok())
            {
                let n = if mbps.fract() == 0.0 {
                    serde_json::json!(mbps as i64)
                } else {
                    serde_json::json!(mbps)
                };
                return ("downlink_mbps".into(), n);
            }
            let name = Path::new(d)
                .file_name()
                .map_or(d.into(), |n| n.to_string_lossy().into_owned());
            return ("downlink".into(), serde_json::json!(name));
        }
    }
    if key == "queue" {
        if let Some(q) = v.as_str() {
            for (arg, name) in [("bytes=", "buffer_bytes"), ("packets=", "buffer_packets")] {
                if let Some(n) = q
                    .split([':', ','])
                    .find_map(|a| a.strip_prefix(arg)?.parse::<u64>().ok())
                {
                    return (name.to_string(), serde_json::json!(n));
                }
            }
        }
    }
    let json = match v {
        toml::Value::Integer(i) => serde_json::json!(i),
        toml::Value::Float(f) => serde_json::json!(f),
        toml::Value::String(s) => serde_json::json!(s),
        other => serde_json::json!(other.to_string()),
    };
    (key.to_string(), json)
}

/// The checked scenario with its trace files at absolute paths (the `.up`
/// sibling of a `.down` downlink becoming its explicit uplink, as the
/// runner would pick it), and each file named by content. Rate specs and
/// CellReplay's pairs stay as written (CellReplay's files are named by
/// path only: they are not checked by SHA-256).
fn pin_traces(
    checked: CheckedScenario,
    scenario_dir: Option<&Path>,
    sums: &mut Checksums,
) -> Result<(Scenario, Vec<TraceRef>)> {
    let absolute = |spec: &str, field: &str| -> Result<PathBuf> {
        let p = crate::data::resolve_trace(spec, scenario_dir).context(field.to_string())?;
        std::path::absolute(&p).with_context(|| format!("{field}: {}", p.display()))
    };
    let down = checked.downlink().file().map(str::to_string);
    let mut up = checked.uplink().and_then(|u| u.file()).map(str::to_string);
    let mut sc = checked.into_scenario();
    let mut refs = Vec::new();
    if let Some(down) = down {
        let p = absolute(&down, "link.downlink")?;
        sc.link.downlink = p.display().to_string();
        if sc.link.uplink.is_none() {
            sc.link.uplink = uplink_sibling(&p);
            up = sc.link.uplink.clone();
        }
        refs.push(sums.of(&p)?);
    }
    if let Some(up) = up {
        let p = absolute(&up, "link.uplink")?;
        sc.link.uplink = Some(p.display().to_string());
        if !refs.iter().any(|r| r.path == p) {
            refs.push(sums.of(&p)?);
        }
    }
    Ok((sc, refs))
}

/// Expands the matrix into jobs, in the order they should run (repetition
/// outermost, so a partial bench already covers every trace and scheme).
/// Each job's scenario is checked once, here.
pub fn expand(matrix: &Matrix) -> Result<Vec<Job>> {
    let scenario = matrix.scenario.scenario();
    let swept_downlink = scenario.sweep.contains_key("downlink");
    if swept_downlink && !matrix.traces.is_empty() {
        anyhow::bail!(
            "sweep.downlink: the scenario sweeps the downlink, so give no traces to run it over"
        );
    }
    let traces: Vec<(String, Scenario)> = if matrix.traces.is_empty() {
        // A swept downlink is not one trace: its runs are grouped under
        // `downlink-sweep` (each run's params say which it had).
        let name = if swept_downlink {
            "downlink-sweep".to_string()
        } else {
            identity::trace_label(&scenario.link.downlink)
        };
        vec![(name, scenario.clone())]
    } else {
        matrix
            .traces
            .iter()
            .map(|t| {
                let mut sc = scenario.clone();
                sc.link.downlink = t.display().to_string();
                // A scenario's own uplink (e.g. the authors' constant 48
                // Mbit/s) stays; otherwise the trace's `.up` sibling.
                if scenario.link.uplink.is_none() {
                    sc.link.uplink = uplink_sibling(t);
                }
                let name = t
                    .file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_default();
                (name, sc)
            })
            .collect()
    };
    // Whole-trace runs: each trace's own length, for the bench's time estimate
    // (each run resolves it again from the trace it loads).
    let traces: Vec<(String, Scenario)> = traces
        .into_iter()
        .map(|(name, mut sc)| {
            if sc.link.duration_from_trace {
                let dir = matrix.scenario_dir.as_deref();
                let link = LinkSpec::parse(&sc.link.downlink)
                    .and_then(|l| l.load(&|f| resolve_trace(f, dir)))
                    .context("link.downlink")?;
                sc.link.resolve_length(link.trace.period_ms())?;
            }
            Ok((name, sc))
        })
        .collect::<Result<_>>()?;
    let schemes: Vec<Option<&str>> = if matrix.schemes.is_empty() {
        vec![None]
    } else {
        matrix.schemes.iter().map(|s| Some(s.as_str())).collect()
    };
    // Only one swept key is supported at a time (a sweep is one figure).
    type Point = (BTreeMap<String, serde_json::Value>, Option<toml::Value>);
    let sweep: Vec<Point> = match scenario.sweep.iter().next() {
        None => vec![(BTreeMap::new(), None)],
        Some((key, values)) => values
            .iter()
            .map(|v| {
                let (k, j) = param_of(key, v);
                (BTreeMap::from([(k, j)]), Some(v.clone()))
            })
            .collect(),
    };
    if scenario.sweep.len() > 1 {
        anyhow::bail!(
            "sweep: one swept key per scenario (found {})",
            scenario.sweep.len()
        );
    }
    let mut jobs = Vec::new();
    let mut sums = Checksums::default();
    let mut set_somewhere = std::collections::BTreeSet::new();
    for rep in 1..=matrix.reps.max(1) {
        for (trace, sc) in &traces {
            for scheme in &schemes {
                let mut base = match scheme {
                    Some(s) => sc.with_scheme(s)?,
                    None => sc.clone(),
                };
                let set = base.set_knobs(&matrix.set)?;
                set_somewhere.extend(set.iter().map(|(k, _)| k.clone()));
                // A scheme that ignores the swept key runs once, not once per
                // value (with_scheme dropped the key from its sweep).
                let sweeps_this = !base.sweep.is_empty();
                let single: [Point; 1] = [(BTreeMap::new(), None)];
                let values: &[Point] = if sweeps_this { &sweep } else { &single };
                for (params, value) in values {
                    let concrete = match (value, scenario.sweep.keys().next()) {
                        (Some(v), Some(key)) => base.with_value(key, v)?,
                        _ => {
                            let mut b = base.clone();
                            b.sweep.clear();
                            b
                        }
                    };
                    // The one check of this run's scenario in the bench.
                    let (concrete, traces) = pin_traces(
                        CheckedScenario::check(concrete)?,
                        matrix.scenario_dir.as_deref(),
                        &mut sums,
                    )?;
                    let mut params = params.clone();
                    for (k, v) in &set {
                        // A swept value of the same knob wins (applied last).
                        params.entry(k.clone()).or_insert(serde_json::to_value(v)?);
                    }
                    let id = identity::of_job(&base, *scheme, trace, params, rep);
                    let run = id.relative_dir();
                    jobs.push(Job {
                        index: jobs.len(),
                        label: id.label(),
                        seed: matrix.seed + rep as u64 - 1,
                        dir: matrix.out.join(&run),
                        run,
                        id,
                        traces,
                        scheme_files: crate::scheme::file::carried_for(
                            concrete.flows.iter().map(|f| f.scheme.as_str()),
                        )?,
                        scenario: concrete,
                    });
                }
            }
        }
    }
    if let Some((key, _)) = matrix.set.iter().find(|(k, _)| !set_somewhere.contains(k)) {
        anyhow::bail!(
            "--set {key}: none of the bench's schemes takes `{key}` (see c2tcp run --list-schemes)"
        );
    }
    Ok(jobs)
}
