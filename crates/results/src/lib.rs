// SPDX-License-Identifier: GPL-2.0-only
//! The on-disk layout of results, which the runner and the bench write and
//! the report reads (`docs/results-layout.md`), and the one identity of a
//! run ([`RunId`]) that a bench's job, the runner and `run.json` share:
//!
//! ```text
//! BENCH/runs/<trace>/<scheme>/<label>/rep<N>/
//!     run.json          what ran and how it ended (RunInfo)
//!     metrics.json      metrics::Analysis (aggregate, flows[], window, config)
//!     timeseries.csv    binned capacity, throughput, queueing delay
//!     delay_cdf.csv     queueing delay at fixed quantiles
//!     perf.json         Pantheon-style summary, written by the report
//! ```
//!
//! A single `c2tcp run --out DIR` writes the same files into DIR. The report
//! finds runs by their run.json wherever they are under the directory, and
//! takes their identity from it, not from the path.
#![forbid(unsafe_code)]
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};

mod files;
mod merge;
pub use files::*;
pub use merge::{merge, Merged};

pub const RUN_JSON: &str = "run.json";
pub const PERF_JSON: &str = "perf.json";
/// `metrics::Analysis`: window, config, `aggregate` and `flows[]`.
pub const METRICS_JSON: &str = "metrics.json";
/// The analysis' time series, one row per bin.
pub const TIMESERIES_CSV: &str = "timeseries.csv";
/// The analysis' aggregate queueing delay at fixed quantiles.
pub const DELAY_CDF_CSV: &str = "delay_cdf.csv";

/// Writes an analysis into a run directory: metrics.json, timeseries.csv
/// and delay_cdf.csv, each whole or not at all (`wholefile`).
pub fn write_analysis(dir: &Path, a: &metrics::Analysis) -> Result<(), metrics::Error> {
    std::fs::create_dir_all(dir).map_err(|e| metrics::Error::io(dir, e))?;
    let path = dir.join(METRICS_JSON);
    let json = serde_json::to_string_pretty(a).expect("metrics serialize");
    wholefile::write(&path, (json + "\n").as_bytes()).map_err(|e| metrics::Error::io(&path, e))?;
    a.timeseries.write_csv(&dir.join(TIMESERIES_CSV))?;
    a.delay_cdf.write_csv(&dir.join(DELAY_CDF_CSV))
}

/// Reads a run directory's analysis: metrics.json, and the CSVs when present.
pub fn read_analysis(dir: &Path) -> Result<metrics::Analysis, metrics::Error> {
    let mut analysis = metrics::Analysis::read_json(&dir.join(METRICS_JSON))?;
    let series = dir.join(TIMESERIES_CSV);
    if series.exists() {
        analysis.timeseries = metrics::TimeSeries::read_csv(&series)?;
    }
    let cdf = dir.join(DELAY_CDF_CSV);
    if cdf.exists() {
        analysis.delay_cdf = metrics::DelayCdf::read_csv(&cdf)?;
    }
    Ok(analysis)
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RunStatus {
    /// Finished; its metrics count.
    Done,
    /// Stopped before the end (Ctrl-C, a bench interrupted); redone on resume.
    Interrupted,
    /// Ended in an error; `error` says which.
    Failed,
}

/// Which run this is: what the report groups and normalises by, and where
/// a bench keeps it. A bench's job carries it, the runner records it, and
/// run.json holds its fields at the top level.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunId {
    /// Scenario name (file stem) or path.
    pub scenario: String,
    /// Scheme under test, as named in the registry (`cubic`, `c2tcp`, …).
    pub scheme: String,
    /// Downlink trace name, e.g. `TMobile-LTE-driving.down`.
    pub trace: String,
    /// The parameters that vary in the bench, e.g. {"target_ms": 50} or
    /// {"buffer_bytes": 150000}; numbers make sweep plots.
    #[serde(default)]
    pub params: BTreeMap<String, serde_json::Value>,
    #[serde(default)]
    pub rep: u32,
}

impl RunId {
    pub fn new(
        scenario: &str,
        scheme: &str,
        trace: &str,
        params: BTreeMap<String, serde_json::Value>,
        rep: u32,
    ) -> RunId {
        RunId {
            scenario: scenario.to_owned(),
            scheme: scheme.to_owned(),
            trace: trace.to_owned(),
            params,
            rep,
        }
    }

    /// The label of its parameters (`RunInfo::label_for`).
    pub fn label(&self) -> String {
        RunInfo::label_for(&self.params)
    }

    /// Where a bench keeps this run, relative to the bench directory.
    pub fn relative_dir(&self) -> PathBuf {
        run_dir(
            Path::new(""),
            &self.trace,
            &self.scheme,
            &self.label(),
            self.rep,
        )
    }

    /// `<trace> <scheme> <label or default> rep<N>`, for messages.
    pub fn describe(&self) -> String {
        let label = self.label();
        format!(
            "{} {} {} rep{}",
            self.trace,
            self.scheme,
            if label.is_empty() { "default" } else { &label },
            self.rep
        )
    }
}

/// The version of run.json this code writes and reads. A record without
/// `version` was written before it existed and reads as version 1.
pub const RUN_JSON_VERSION: u32 = 1;

/// Every field run.json may hold (its identity flattened in): the reader
/// refuses any other, naming it. A test keeps the list equal to the type's.
const RUN_JSON_FIELDS: &[&str] = &[
    "version",
    "status",
    "scenario",
    "scheme",
    "trace",
    "params",
    "rep",
    "label",
    "seed",
    "timings",
    "duration_s",
    "duration_from_trace",
    "error",
    "notes",
];

fn run_json_version() -> u32 {
    RUN_JSON_VERSION
}

/// run.json: what ran, with which parameters, and how it ended.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunInfo {
    /// [`RUN_JSON_VERSION`].
    #[serde(default = "run_json_version")]
    pub version: u32,
    pub status: RunStatus,
    #[serde(flatten)]
    pub id: RunId,
    /// Names the parameter combination; "" when there is none.
    #[serde(default)]
    pub label: String,
    #[serde(default)]
    pub seed: Option<u64>,
    #[serde(default)]
    pub timings: Timings,
    /// The run's length, s (as resolved; with `duration_from_trace`, one
    /// pass of the downlink trace).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duration_s: Option<f64>,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub duration_from_trace: bool,
    /// Why a failed run failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// What a `done` run says about itself beside its metrics, e.g. a flow
    /// that moved nothing because its trace offered no capacity.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Timings {
    /// Unix time, seconds.
    pub started_unix_s: Option<f64>,
    pub finished_unix_s: Option<f64>,
    /// Wall-clock seconds the run took, set-up included.
    pub wall_s: Option<f64>,
}

fn unix_now() -> Option<f64> {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .ok()
        .map(|d| d.as_secs_f64())
}

impl RunInfo {
    /// A run that has begun: `interrupted` until `finished` says otherwise,
    /// so a crash never leaves a run that looks done. The label is
    /// `label_for(&params)`.
    pub fn started(id: RunId) -> RunInfo {
        RunInfo {
            version: RUN_JSON_VERSION,
            status: RunStatus::Interrupted,
            label: id.label(),
            id,
            seed: None,
            timings: Timings {
                started_unix_s: unix_now(),
                ..Timings::default()
            },
            duration_s: None,
            duration_from_trace: false,
            error: None,
            notes: Vec::new(),
        }
    }

    /// Marks the run done (or failed, with the error) and times it.
    pub fn finished(&mut self, error: Option<String>) {
        self.status = if error.is_some() {
            RunStatus::Failed
        } else {
            RunStatus::Done
        };
        self.error = error;
        self.timings.finished_unix_s = unix_now();
        if let (Some(start), Some(end)) =
            (self.timings.started_unix_s, self.timings.finished_unix_s)
        {
            self.timings.wall_s = Some(end - start);
        }
    }

    /// The label from the parameters: `key=value` joined by `,`, sorted.
    pub fn label_for(params: &BTreeMap<String, serde_json::Value>) -> String {
        params
            .iter()
            .map(|(k, v)| match v {
                serde_json::Value::String(s) => format!("{k}={s}"),
                // 50.0 and 50 name the same run
                serde_json::Value::Number(n)
                    if n.as_f64()
                        .is_some_and(|f| f.fract() == 0.0 && f.abs() < 1e15) =>
                {
                    format!("{k}={:.0}", n.as_f64().unwrap_or_default())
                }
                other => format!("{k}={other}"),
            })
            .collect::<Vec<_>>()
            .join(",")
    }

    /// Writes run.json whole (`wholefile`). Write it `done` last, once every
    /// other file of the run is in place: a run is only as finished as its
    /// run.json says.
    pub fn write(&self, dir: &Path) -> Result<()> {
        std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
        let path = dir.join(RUN_JSON);
        let text = serde_json::to_string_pretty(self)? + "\n";
        match wholefile::write(&path, text.as_bytes()) {
            // A full disk must not hide how the run ended: the record
            // already there owns its blocks, so rewrite it in place.
            Err(e) if wholefile::is_disk_full(&e) => {
                wholefile::overwrite_in_place(&path, text.as_bytes()).map_err(|_| e)
            }
            r => r,
        }
        .with_context(|| format!("writing {}", path.display()))
    }

    pub fn read(dir: &Path) -> Result<RunInfo> {
        let path = dir.join(RUN_JSON);
        let text = std::fs::read_to_string(&path)
            .with_context(|| format!("reading {}", path.display()))?;
        RunInfo::parse(&text).with_context(|| format!("{}: not a valid run.json", path.display()))
    }

    /// run.json's schema: a JSON object of known fields only, of a version
    /// this code reads, every required field present and typed (the error
    /// names the field).
    pub fn parse(text: &str) -> Result<RunInfo> {
        let value: serde_json::Value = serde_json::from_str(text)?;
        let Some(fields) = value.as_object() else {
            anyhow::bail!("not a JSON object");
        };
        if let Some(unknown) = fields
            .keys()
            .find(|k| !RUN_JSON_FIELDS.contains(&k.as_str()))
        {
            anyhow::bail!("unknown field `{unknown}`");
        }
        let info: RunInfo = serde_path_to_error::deserialize(value)
            .map_err(|e| anyhow::anyhow!("field `{}`: {}", e.path(), e.inner()))?;
        if info.version > RUN_JSON_VERSION {
            anyhow::bail!(
                "field `version` is {}; this c2tcp reads run.json up to version {RUN_JSON_VERSION}",
                info.version
            );
        }
        Ok(info)
    }
}

/// Where a bench keeps one run: `BENCH/runs/<trace>/<scheme>/<label>/rep<N>`,
/// an empty label being `default`.
pub fn run_dir(bench: &Path, trace: &str, scheme: &str, label: &str, rep: u32) -> PathBuf {
    let label = if label.is_empty() { "default" } else { label };
    bench
        .join("runs")
        .join(component(trace))
        .join(component(scheme))
        .join(component(label))
        .join(format!("rep{rep}"))
}

/// A name made safe as one path component.
pub fn component(name: &str) -> String {
    let safe: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || "._=+-,:".contains(c) {
                c
            } else {
                '_'
            }
        })
        .collect();
    if safe.is_empty() || safe.starts_with('.') {
        format!("_{safe}")
    } else {
        safe
    }
}

/// A finished run with its metrics.
#[derive(Clone, Debug)]
pub struct Run {
    pub dir: PathBuf,
    pub info: RunInfo,
    pub analysis: metrics::Analysis,
}

/// A run directory that does not count, and why.
#[derive(Clone, Debug, Serialize)]
pub struct Skipped {
    pub dir: PathBuf,
    pub kind: SkipKind,
    pub reason: String,
}

/// Why a run does not count, in kinds the report counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum SkipKind {
    /// Not finished: interrupted, still running, or started by a bench and
    /// never recorded.
    Unfinished,
    Failed,
    /// Its run.json or metrics cannot be read.
    Unreadable,
}

/// What the report says about the runs it left out, e.g. `3 runs not done
/// were left out: 1 unfinished (interrupted or still running), 1 failed,
/// 1 unreadable`; None when there are none.
pub fn left_out_note(skipped: &[Skipped]) -> Option<String> {
    if skipped.is_empty() {
        return None;
    }
    let count = |k: SkipKind| skipped.iter().filter(|s| s.kind == k).count();
    let parts: Vec<String> = [
        (
            SkipKind::Unfinished,
            "unfinished (interrupted or still running)",
        ),
        (SkipKind::Failed, "failed"),
        (SkipKind::Unreadable, "unreadable"),
    ]
    .into_iter()
    .filter(|(k, _)| count(*k) > 0)
    .map(|(k, what)| format!("{} {what}", count(k)))
    .collect();
    let n = skipped.len();
    Some(format!(
        "{n} run{} not done {} left out: {}",
        if n == 1 { "" } else { "s" },
        if n == 1 { "was" } else { "were" },
        parts.join(", ")
    ))
}

/// Every run under `root` (itself included), in a stable order.
pub fn discover(root: &Path) -> Result<(Vec<Run>, Vec<Skipped>)> {
    let mut dirs = Vec::new();
    find_run_dirs(root, &mut dirs).with_context(|| format!("scanning {}", root.display()))?;
    dirs.sort();
    let (mut runs, mut skipped) = (Vec::new(), Vec::new());
    for dir in dirs {
        let skip = |kind: SkipKind, reason: String| Skipped {
            dir: dir.clone(),
            kind,
            reason,
        };
        if !dir.join(RUN_JSON).exists() {
            skipped.push(skip(
                SkipKind::Unfinished,
                "never started (no run.json)".into(),
            ));
            continue;
        }
        let info = match RunInfo::read(&dir) {
            Ok(info) => info,
            Err(e) => {
                skipped.push(skip(SkipKind::Unreadable, format!("{e:#}")));
                continue;
            }
        };
        match info.status {
            RunStatus::Done => {}
            RunStatus::Interrupted => {
                skipped.push(skip(
                    SkipKind::Unfinished,
                    "interrupted or still running".into(),
                ));
                continue;
            }
            RunStatus::Failed => {
                skipped.push(skip(
                    SkipKind::Failed,
                    format!(
                        "failed: {}",
                        info.error.as_deref().unwrap_or("no error recorded")
                    ),
                ));
                continue;
            }
        }
        match read_analysis(&dir) {
            Ok(analysis) => runs.push(Run {
                dir,
                info,
                analysis,
            }),
            Err(e) => skipped.push(skip(
                SkipKind::Unreadable,
                format!("done, but its metrics are unreadable: {e}"),
            )),
        }
    }
    runs.sort_by(|a, b| {
        let key = |r: &Run| {
            (
                r.info.id.trace.clone(),
                r.info.id.scheme.clone(),
                r.info.label.clone(),
                r.info.id.rep,
            )
        };
        key(a).cmp(&key(b))
    });
    Ok((runs, skipped))
}

/// Directories with a run.json, or a bench's job.json (a run that never
/// got as far as its run.json). Files such as `.lock` are not runs.
pub(crate) fn find_run_dirs(dir: &Path, found: &mut Vec<PathBuf>) -> std::io::Result<()> {
    if dir.join(RUN_JSON).is_file() || dir.join(JOB_JSON).is_file() {
        found.push(dir.to_owned());
    }
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        if entry.file_type()?.is_dir() {
            find_run_dirs(&entry.path(), found)?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn full_run_info() -> RunInfo {
        let mut info = RunInfo::started(RunId::new("s", "cubic", "t", BTreeMap::new(), 1));
        info.seed = Some(1);
        info.duration_s = Some(3.0);
        info.duration_from_trace = true;
        info.notes = vec!["a note".into()];
        info.finished(Some("an error".into()));
        info
    }

    /// The reader's list of fields is the type's: every optional field set.
    #[test]
    fn run_json_fields_are_the_types_fields() {
        let v = serde_json::to_value(full_run_info()).unwrap();
        let mut written: Vec<&str> = v.as_object().unwrap().keys().map(|k| k.as_str()).collect();
        let mut listed = RUN_JSON_FIELDS.to_vec();
        written.sort();
        listed.sort();
        assert_eq!(written, listed);
    }

    #[test]
    fn run_json_reads_back_and_refuses_what_is_not_one() {
        let info = full_run_info();
        let text = serde_json::to_string(&info).unwrap();
        assert_eq!(RunInfo::parse(&text).unwrap(), info);
        let refused = |text: &str, says: &str| {
            let e = format!("{:#}", RunInfo::parse(text).unwrap_err());
            assert!(e.contains(says), "{text}: {e}");
        };
        refused("{\"foo\":1}", "unknown field `foo`");
        refused("[]", "not a JSON object");
        refused("", "EOF");
        refused("{\"status\":\"done\"}", "scenario");
        refused(
            "{\"status\":\"finished\",\"scenario\":\"s\",\"scheme\":\"c\",\"trace\":\"t\"}",
            "status",
        );
        let mut newer = serde_json::to_value(&info).unwrap();
        newer["version"] = 2.into();
        refused(&newer.to_string(), "version");
        // Written before `version` existed: version 1.
        let mut old = serde_json::to_value(&info).unwrap();
        old.as_object_mut().unwrap().remove("version");
        assert_eq!(RunInfo::parse(&old.to_string()).unwrap().version, 1);
    }

    #[test]
    fn run_dirs_follow_the_layout_with_safe_names() {
        let d = run_dir(
            Path::new("B"),
            "TMobile-LTE-driving.down",
            "c2tcp",
            "target_ms=50",
            2,
        );
        assert_eq!(
            d,
            Path::new("B/runs/TMobile-LTE-driving.down/c2tcp/target_ms=50/rep2")
        );
        assert_eq!(
            run_dir(Path::new("B"), "../x", "a b", "", 0),
            Path::new("B/runs/_.._x/a_b/default/rep0")
        );
    }

    #[test]
    fn unfinished_runs_are_left_out_and_counted_and_locks_are_not_runs() {
        let tmp = tempfile::tempdir().unwrap();
        let b = tmp.path();
        std::fs::write(b.join(".lock"), "pid=1\n").unwrap();
        let dir = |s: &str| run_dir(b, "t", s, "", 1);
        let info = |s: &str| RunInfo::started(RunId::new("x", s, "t", BTreeMap::new(), 1));
        // Running (or interrupted) with a half-written metrics.json.
        std::fs::create_dir_all(dir("cubic")).unwrap();
        info("cubic").write(&dir("cubic")).unwrap();
        std::fs::write(dir("cubic").join("metrics.json"), "{\"aggr").unwrap();
        std::fs::write(dir("cubic").join(".lock"), "").unwrap();
        // Failed.
        let mut failed = info("bbr");
        failed.finished(Some("writing downlink.log: No space left on device".into()));
        failed.write(&dir("bbr")).unwrap();
        // Claimed and cleared by a bench, never started.
        std::fs::create_dir_all(dir("reno")).unwrap();
        std::fs::write(dir("reno").join("job.json"), "{}").unwrap();
        // Done, but its metrics half-written (cannot happen with wholefile;
        // must still not count).
        let mut done = info("c2tcp");
        done.finished(None);
        done.write(&dir("c2tcp")).unwrap();
        std::fs::write(dir("c2tcp").join("metrics.json"), "{\"aggr").unwrap();
        let (runs, skipped) = discover(b).unwrap();
        assert!(runs.is_empty());
        assert_eq!(skipped.len(), 4, "{skipped:?}");
        assert_eq!(
            left_out_note(&skipped).unwrap(),
            "4 runs not done were left out: 2 unfinished (interrupted or still running), 1 failed, 1 unreadable"
        );
        assert_eq!(left_out_note(&[]), None);
    }

    #[test]
    fn labels_list_parameters_in_order() {
        let params = BTreeMap::from([
            ("target_ms".to_string(), serde_json::json!(50)),
            (
                "queue".to_string(),
                serde_json::json!("droptail:packets=100"),
            ),
            ("alpha".to_string(), serde_json::json!(1.5)),
            ("buffer_bytes".to_string(), serde_json::json!(150000.0)),
        ]);
        assert_eq!(
            RunInfo::label_for(&params),
            "alpha=1.5,buffer_bytes=150000,queue=droptail:packets=100,target_ms=50"
        );
    }
}
