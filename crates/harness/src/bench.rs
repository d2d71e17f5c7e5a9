//! `c2tcp bench`: a scenario run over schemes × traces × swept values ×
//! repetitions, several at a time, resumable.
//!
//! Each run gets its own directory `OUT/runs/<trace>/<scheme>/<param>/rep<N>/`
//! and is executed by a `c2tcp run` child process (own namespaces, own
//! emulator, so a crash in one run cannot take the others down). A run whose
//! `run.json` says `"status": "done"` is never redone; an interrupted or
//! missing one is (its directory is cleared first). Interrupting the bench
//! lets running children mark themselves interrupted and clean up, and the
//! same command later resumes where it stopped.
use std::collections::VecDeque;
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};

use crate::scenario::Scenario;

/// One run of the matrix.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Job {
    pub trace: String,
    pub scheme: String,
    /// `default`, or `<key>=<value>` for a swept parameter.
    pub param: String,
    pub rep: u32,
    pub dir: PathBuf,
    /// The concrete scenario this run executes.
    pub scenario: Scenario,
}

impl Job {
    pub fn label(&self) -> String {
        format!("{} {} {} rep{}", self.trace, self.scheme, self.param, self.rep)
    }
}

/// What the bench should run.
#[derive(Debug, Clone)]
pub struct Plan {
    pub scenario: Scenario,
    /// Downlink traces to substitute (empty: the scenario's own link).
    pub traces: Vec<PathBuf>,
    pub schemes: Vec<String>,
    pub reps: u32,
    pub out: PathBuf,
}

/// A file-system-safe name for a trace, scheme or value.
pub fn slug(s: &str) -> String {
    s.chars()
        .map(|c| if c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_' | '=') { c } else { '_' })
        .collect()
}

fn value_label(v: &toml::Value) -> String {
    match v {
        toml::Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

fn uplink_sibling(trace: &Path) -> Option<String> {
    let name = trace.to_str()?;
    let up = name.strip_suffix(".down").map(|stem| format!("{stem}.up"))?;
    Path::new(&up).is_file().then_some(up)
}

/// Expands the plan into jobs, in the order they should run (repetition
/// outermost, so a partial bench already covers every trace and scheme).
pub fn expand(plan: &Plan) -> Result<Vec<Job>> {
    let traces: Vec<(String, Scenario)> = if plan.traces.is_empty() {
        let name = Path::new(&plan.scenario.link.downlink)
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| plan.scenario.link.downlink.clone());
        vec![(name, plan.scenario.clone())]
    } else {
        plan.traces
            .iter()
            .map(|t| {
                let mut sc = plan.scenario.clone();
                sc.link.downlink = t.display().to_string();
                sc.link.uplink = uplink_sibling(t);
                let name = t.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
                (name, sc)
            })
            .collect()
    };
    let schemes: Vec<Option<&str>> = if plan.schemes.is_empty() {
        vec![None]
    } else {
        plan.schemes.iter().map(|s| Some(s.as_str())).collect()
    };
    // Only one swept key is supported at a time (a sweep is one figure).
    let sweep: Vec<(String, Option<toml::Value>)> = match plan.scenario.sweep.iter().next() {
        None => vec![("default".into(), None)],
        Some((key, values)) => {
            values.iter().map(|v| (format!("{key}={}", value_label(v)), Some(v.clone()))).collect()
        }
    };
    if plan.scenario.sweep.len() > 1 {
        anyhow::bail!("sweep: one swept key per scenario (found {})", plan.scenario.sweep.len());
    }
    let mut jobs = Vec::new();
    for rep in 1..=plan.reps.max(1) {
        for (trace, sc) in &traces {
            for scheme in &schemes {
                let base = match scheme {
                    Some(s) => sc.with_scheme(s)?,
                    None => sc.clone(),
                };
                let scheme_label = scheme.map(str::to_string).unwrap_or_else(|| {
                    let mut names: Vec<&str> = base.flows.iter().map(|f| f.scheme.as_str()).collect();
                    names.dedup();
                    names.join("+")
                });
                // A scheme that ignores the swept key runs once, not once per
                // value (with_scheme dropped the key from its sweep).
                let sweeps_this = !base.sweep.is_empty();
                let single = [("default".to_string(), None)];
                let values: &[(String, Option<toml::Value>)] = if sweeps_this { &sweep } else { &single };
                for (param, value) in values {
                    let concrete = match value {
                        Some(v) => {
                            let key = plan.scenario.sweep.keys().next().unwrap();
                            base.with_value(key, v)?
                        }
                        None => {
                            let mut b = base.clone();
                            b.sweep.clear();
                            b
                        }
                    };
                    let dir = plan
                        .out
                        .join("runs")
                        .join(slug(trace))
                        .join(slug(&scheme_label))
                        .join(slug(param))
                        .join(format!("rep{rep}"));
                    jobs.push(Job {
                        trace: trace.clone(),
                        scheme: scheme_label.clone(),
                        param: param.clone(),
                        rep,
                        dir,
                        scenario: concrete,
                    });
                }
            }
        }
    }
    Ok(jobs)
}

/// The status a run left in its `run.json`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RunStatus {
    Running,
    Done,
    Interrupted,
    Failed,
}

pub fn status_of(dir: &Path) -> Option<RunStatus> {
    let text = fs::read_to_string(dir.join("run.json")).ok()?;
    let v: serde_json::Value = serde_json::from_str(&text).ok()?;
    serde_json::from_value(v.get("status")?.clone()).ok()
}

/// What happened to each job of a bench.
#[derive(Debug, Default)]
pub struct Summary {
    pub skipped_done: usize,
    pub done: usize,
    pub failed: Vec<(String, String)>,
    pub interrupted: bool,
}

/// Runs the jobs not already done, `jobs` at a time, with `run` executing one
/// (in production: a `c2tcp run` child). `progress` is told after each job.
pub fn execute(
    all: Vec<Job>,
    jobs: usize,
    stop: &AtomicBool,
    run: &(dyn Fn(&Job) -> Result<RunStatus> + Sync),
    progress: &(dyn Fn(&Job, RunStatus) + Sync),
) -> Result<Summary> {
    let mut summary = Summary::default();
    let mut todo = VecDeque::new();
    for job in all {
        if status_of(&job.dir) == Some(RunStatus::Done) {
            summary.skipped_done += 1;
            progress(&job, RunStatus::Done);
        } else {
            todo.push_back(job);
        }
    }
    let queue = Arc::new(Mutex::new(todo));
    let results = Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..jobs.max(1) {
            s.spawn(|| loop {
                if stop.load(Ordering::Relaxed) {
                    return;
                }
                let Some(job) = queue.lock().unwrap().pop_front() else { return };
                let outcome = (|| -> Result<RunStatus> {
                    if job.dir.exists() {
                        fs::remove_dir_all(&job.dir)
                            .with_context(|| format!("clearing the unfinished run {}", job.dir.display()))?;
                    }
                    fs::create_dir_all(&job.dir)?;
                    run(&job)
                })();
                let status = match &outcome {
                    Ok(s) => *s,
                    Err(_) => RunStatus::Failed,
                };
                progress(&job, status);
                results.lock().unwrap().push((job, outcome));
            });
        }
    });
    for (job, outcome) in results.into_inner().unwrap() {
        match outcome {
            Ok(RunStatus::Done) => summary.done += 1,
            Ok(RunStatus::Interrupted) => summary.interrupted = true,
            Ok(other) => summary.failed.push((job.label(), format!("{other:?}"))),
            Err(e) => summary.failed.push((job.label(), format!("{e:#}"))),
        }
    }
    if stop.load(Ordering::Relaxed) {
        summary.interrupted = true;
    }
    Ok(summary)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plan(out: &Path) -> Plan {
        let sc = Scenario::parse(
            r#"
            name = "t"
            [link]
            downlink = "constant:12"
            duration_s = 5
            [[flows]]
            scheme = "c2tcp"
            target_ms = 50
            [sweep]
            target_ms = [25, 75]
        "#,
        )
        .unwrap();
        Plan {
            scenario: sc,
            traces: vec![],
            schemes: vec!["c2tcp".into(), "cubic".into()],
            reps: 2,
            out: out.to_path_buf(),
        }
    }

    #[test]
    fn the_matrix_is_schemes_by_sweep_by_reps() {
        let tmp = tempfile::tempdir().unwrap();
        let jobs = expand(&plan(tmp.path())).unwrap();
        // c2tcp: 2 sweep values; cubic takes no target_ms and runs once.
        assert_eq!(jobs.len(), 6);
        let c2 = jobs.iter().find(|j| j.scheme == "c2tcp" && j.param == "target_ms=25" && j.rep == 1).unwrap();
        assert_eq!(c2.scenario.flows[0].param_f64("target_ms"), Some(25.0));
        assert!(c2.scenario.sweep.is_empty());
        assert!(c2.dir.ends_with("runs/constant_12/c2tcp/target_ms=25/rep1"), "{}", c2.dir.display());
        let cubic: Vec<_> = jobs.iter().filter(|j| j.scheme == "cubic").collect();
        assert_eq!(cubic.len(), 2);
        assert!(cubic.iter().all(|j| j.param == "default" && j.scenario.flows[0].params.is_empty()));
        // Repetition is the outer loop.
        assert!(jobs[..3].iter().all(|j| j.rep == 1));
    }

    #[test]
    fn finished_runs_are_skipped_and_unfinished_ones_redone() {
        let tmp = tempfile::tempdir().unwrap();
        let jobs = expand(&plan(tmp.path())).unwrap();
        // Pretend a previous bench finished job 0 and was interrupted in job 1.
        for (j, status) in [(&jobs[0], "done"), (&jobs[1], "interrupted")] {
            fs::create_dir_all(&j.dir).unwrap();
            fs::write(j.dir.join("run.json"), format!("{{\"status\":\"{status}\"}}")).unwrap();
            fs::write(j.dir.join("leftover"), "x").unwrap();
        }
        let ran = Mutex::new(Vec::new());
        let run = |j: &Job| -> Result<RunStatus> {
            assert!(!j.dir.join("leftover").exists(), "an unfinished run's files must be cleared");
            fs::write(j.dir.join("run.json"), "{\"status\":\"done\"}")?;
            ran.lock().unwrap().push(j.label());
            Ok(RunStatus::Done)
        };
        let stop = AtomicBool::new(false);
        let s = execute(jobs.clone(), 2, &stop, &run, &|_, _| {}).unwrap();
        assert_eq!(s.skipped_done, 1);
        assert_eq!(s.done, 5);
        assert!(!ran.lock().unwrap().contains(&jobs[0].label()));
        assert!(ran.lock().unwrap().contains(&jobs[1].label()));
        // A second pass has nothing left to do.
        let s = execute(jobs, 2, &stop, &run, &|_, _| {}).unwrap();
        assert_eq!((s.skipped_done, s.done), (6, 0));
    }

    #[test]
    fn a_stop_request_halts_scheduling() {
        let tmp = tempfile::tempdir().unwrap();
        let jobs = expand(&plan(tmp.path())).unwrap();
        let stop = AtomicBool::new(false);
        let run = |j: &Job| -> Result<RunStatus> {
            stop.store(true, Ordering::Relaxed);
            fs::write(j.dir.join("run.json"), "{\"status\":\"interrupted\"}")?;
            Ok(RunStatus::Interrupted)
        };
        let s = execute(jobs, 1, &stop, &run, &|_, _| {}).unwrap();
        assert!(s.interrupted);
        assert_eq!(s.done, 0);
    }

    #[test]
    fn traces_replace_the_downlink_and_find_uplink_siblings() {
        let tmp = tempfile::tempdir().unwrap();
        let down = tmp.path().join("X.down");
        fs::write(&down, "1\n").unwrap();
        fs::write(tmp.path().join("X.up"), "1\n").unwrap();
        let mut p = plan(tmp.path());
        p.traces = vec![down.clone()];
        p.reps = 1;
        let jobs = expand(&p).unwrap();
        assert!(jobs.iter().all(|j| j.trace == "X.down"));
        assert_eq!(jobs[0].scenario.link.uplink.as_deref(), Some(tmp.path().join("X.up").to_str().unwrap()));
    }
}
