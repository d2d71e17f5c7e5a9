// SPDX-License-Identifier: GPL-2.0-only
//! `c2tcp bench`: a scenario run over schemes × traces × swept values ×
//! repetitions, several at a time, resumable.
//!
//! Each run gets its own directory `OUT/runs/<trace>/<scheme>/<param>/rep<N>/`
//! and is executed by a `c2tcp run` child process (own namespaces, own
//! emulator, so a crash in one run cannot take the others down). A run whose
//! `run.json` says `"status": "done"` is never redone; an interrupted or
//! missing one is (its directory is cleared first, but for its lock).
//! Interrupting the bench lets running children mark themselves interrupted
//! and clean up, and the same command later resumes where it stopped.
//!
//! Every run directory has one owner (`ownership`): the bench takes its
//! lock before clearing it and hands it to the child, so a run still going
//! (a killed bench's orphan, winding down) is waited for or skipped, never
//! cleared from under it.
use std::collections::{BTreeMap, VecDeque};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use std::process::{Command, Stdio};

use anyhow::{bail, Context, Result};
pub use results::RunStatus;
use results::{RunId, RunInfo};
use serde::{Deserialize, Serialize};

use crate::ownership::{self, Claim, Ownership};
use crate::plan::uplink_sibling;
use crate::scenario::Scenario;
use crate::sweep::SweepKey;
use crate::trace_ref::{is_file_spec, Checksums, TraceRef};

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

/// What the bench should run.
#[derive(Debug, Clone)]
pub struct Plan {
    pub scenario: Scenario,
    /// run.json's `scenario`: the scenario's name.
    pub scenario_name: String,
    /// Directory of the scenario file, for relative trace paths.
    pub scenario_dir: Option<PathBuf>,
    /// Downlink traces to substitute (empty: the scenario's own link).
    pub traces: Vec<PathBuf>,
    pub schemes: Vec<String>,
    /// `--set KNOB=VALUE`s, applied to each job's flows that take them
    /// (and named in its params, so they are part of its identity).
    pub set: Vec<crate::plan::KnobSetting>,
    pub reps: u32,
    /// Seed of repetition 1 (rep N uses seed + N - 1).
    pub seed: u64,
    pub out: PathBuf,
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

/// Points the scenario's link at absolute trace paths (the `.up` sibling
/// of a `.down` downlink becoming its explicit uplink, as the runner would
/// pick it) and names each file by content.
fn pin_traces(
    sc: &mut Scenario,
    scenario_dir: Option<&Path>,
    sums: &mut Checksums,
) -> Result<Vec<TraceRef>> {
    let absolute = |spec: &str, field: &str| -> Result<PathBuf> {
        let p = crate::data::resolve_trace(spec, scenario_dir).context(field.to_string())?;
        std::path::absolute(&p).with_context(|| format!("{field}: {}", p.display()))
    };
    let mut refs = Vec::new();
    if is_file_spec(&sc.link.downlink) {
        let p = absolute(&sc.link.downlink, "link.downlink")?;
        sc.link.downlink = p.display().to_string();
        if sc.link.uplink.is_none() {
            sc.link.uplink = uplink_sibling(&p);
        }
        refs.push(sums.of(&p)?);
    }
    if let Some(up) = sc.link.uplink.clone().filter(|u| is_file_spec(u)) {
        let p = absolute(&up, "link.uplink")?;
        sc.link.uplink = Some(p.display().to_string());
        if !refs.iter().any(|r| r.path == p) {
            refs.push(sums.of(&p)?);
        }
    }
    Ok(refs)
}

/// Expands the plan into jobs, in the order they should run (repetition
/// outermost, so a partial bench already covers every trace and scheme).
pub fn expand(plan: &Plan) -> Result<Vec<Job>> {
    let swept_downlink = plan.scenario.sweep.contains_key("downlink");
    if swept_downlink && !plan.traces.is_empty() {
        anyhow::bail!(
            "sweep.downlink: the scenario sweeps the downlink, so give no traces to run it over"
        );
    }
    let traces: Vec<(String, Scenario)> = if plan.traces.is_empty() {
        // A swept downlink is not one trace: its runs are grouped under
        // `downlink-sweep` (each run's params say which it had).
        let name = if swept_downlink {
            "downlink-sweep".to_string()
        } else {
            Path::new(&plan.scenario.link.downlink)
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_else(|| plan.scenario.link.downlink.clone())
        };
        vec![(name, plan.scenario.clone())]
    } else {
        plan.traces
            .iter()
            .map(|t| {
                let mut sc = plan.scenario.clone();
                sc.link.downlink = t.display().to_string();
                // A scenario's own uplink (e.g. the authors' constant 48
                // Mbit/s) stays; otherwise the trace's `.up` sibling.
                if plan.scenario.link.uplink.is_none() {
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
                let trace = match emu::rate_spec::parse(&sc.link.downlink)? {
                    Some(t) => t,
                    None => emu::trace::Trace::load(&crate::data::resolve_trace(
                        &sc.link.downlink,
                        plan.scenario_dir.as_deref(),
                    )?)?,
                };
                sc.link.resolve_length(trace.period_ms())?;
            }
            Ok((name, sc))
        })
        .collect::<Result<_>>()?;
    let schemes: Vec<Option<&str>> = if plan.schemes.is_empty() {
        vec![None]
    } else {
        plan.schemes.iter().map(|s| Some(s.as_str())).collect()
    };
    // Only one swept key is supported at a time (a sweep is one figure).
    type Point = (BTreeMap<String, serde_json::Value>, Option<toml::Value>);
    let sweep: Vec<Point> = match plan.scenario.sweep.iter().next() {
        None => vec![(BTreeMap::new(), None)],
        Some((key, values)) => values
            .iter()
            .map(|v| {
                let (k, j) = param_of(key, v);
                (BTreeMap::from([(k, j)]), Some(v.clone()))
            })
            .collect(),
    };
    if plan.scenario.sweep.len() > 1 {
        anyhow::bail!(
            "sweep: one swept key per scenario (found {})",
            plan.scenario.sweep.len()
        );
    }
    let mut jobs = Vec::new();
    let mut sums = Checksums::default();
    let mut set_somewhere = std::collections::BTreeSet::new();
    for rep in 1..=plan.reps.max(1) {
        for (trace, sc) in &traces {
            for scheme in &schemes {
                let mut base = match scheme {
                    Some(s) => sc.with_scheme(s)?,
                    None => sc.clone(),
                };
                let set = base.set_knobs(&plan.set)?;
                set_somewhere.extend(set.iter().map(|(k, _)| k.clone()));
                let scheme_label = scheme.map(str::to_string).unwrap_or_else(|| {
                    let mut names: Vec<&str> =
                        base.flows.iter().map(|f| f.scheme.as_str()).collect();
                    names.dedup();
                    names.join("+")
                });
                // A scheme that ignores the swept key runs once, not once per
                // value (with_scheme dropped the key from its sweep).
                let sweeps_this = !base.sweep.is_empty();
                let single: [Point; 1] = [(BTreeMap::new(), None)];
                let values: &[Point] = if sweeps_this { &sweep } else { &single };
                for (params, value) in values {
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
                    let mut concrete = concrete;
                    let traces =
                        pin_traces(&mut concrete, plan.scenario_dir.as_deref(), &mut sums)?;
                    let mut params = params.clone();
                    for (k, v) in &set {
                        // A swept value of the same knob wins (applied last).
                        params.entry(k.clone()).or_insert(serde_json::to_value(v)?);
                    }
                    let id = RunId::new(&plan.scenario_name, &scheme_label, trace, params, rep);
                    let run = id.relative_dir();
                    jobs.push(Job {
                        index: jobs.len(),
                        label: id.label(),
                        seed: plan.seed + rep as u64 - 1,
                        dir: plan.out.join(&run),
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
    if let Some((key, _)) = plan.set.iter().find(|(k, _)| !set_somewhere.contains(k)) {
        anyhow::bail!("--set {key}: none of the bench's schemes takes `{key}` (see c2tcp run --list-schemes)");
    }
    Ok(jobs)
}

/// The status a run left in its `run.json` (a run in progress reads as
/// interrupted until it finishes).
pub fn status_of(dir: &Path) -> Option<RunStatus> {
    RunInfo::read(dir).ok().map(|i| i.status)
}

/// What happened to each job of a bench.
#[derive(Debug, Default)]
pub struct Summary {
    pub skipped_done: usize,
    pub done: usize,
    pub failed: Vec<(String, String)>,
    /// Runs left alone because another process held their directory
    /// (`--no-wait`): label and holder.
    pub busy: Vec<(String, String)>,
    pub interrupted: bool,
}

/// How the bench treats a run directory another process holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WhenBusy {
    /// Wait until it is let go (a killed bench's run winding down).
    Wait,
    /// Leave that run for later.
    Skip,
}

/// How often a busy run directory is tried again.
const BUSY_POLL: Duration = Duration::from_millis(200);

/// Takes the job's directory: at once, after waiting, or None when it is
/// skipped as busy or the bench is stopped while waiting.
fn claim_run(
    job: &Job,
    when_busy: WhenBusy,
    stop: &AtomicBool,
    say: &(dyn Fn(String) + Sync),
) -> Result<std::result::Result<Ownership, String>> {
    let mut announced = false;
    loop {
        match ownership::try_claim(&job.dir, "c2tcp bench")? {
            Claim::Owned(own) => return Ok(Ok(own)),
            Claim::Busy(holder) => {
                let holder = holder.to_string();
                if when_busy == WhenBusy::Skip {
                    say(format!(
                        "skipping {} ({}): in use by {holder}",
                        job.label(),
                        job.dir.display()
                    ));
                    return Ok(Err(holder));
                }
                if !announced {
                    say(format!(
                        "waiting for {} ({}): in use by {holder}",
                        job.label(),
                        job.dir.display()
                    ));
                    announced = true;
                }
            }
        }
        if stop.load(Ordering::Relaxed) {
            return Ok(Err("the bench was stopped while waiting".into()));
        }
        std::thread::sleep(BUSY_POLL);
    }
}

/// Runs the jobs not already done, `jobs` at a time, with `run` executing one
/// in its claimed, cleared directory (in production: a `c2tcp run` child
/// that is handed the ownership). `progress` is told after each job; `say`
/// gets notices (waiting for or skipping a busy run).
pub fn execute(
    all: Vec<Job>,
    jobs: usize,
    when_busy: WhenBusy,
    stop: &AtomicBool,
    run: &(dyn Fn(&Job, &Ownership) -> Result<RunStatus> + Sync),
    progress: &(dyn Fn(&Job, RunStatus) + Sync),
    say: &(dyn Fn(String) + Sync),
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
    enum Outcome {
        Ran(Result<RunStatus>),
        /// Finished by its previous owner while we waited.
        AlreadyDone,
        Busy(String),
    }
    let queue = Arc::new(Mutex::new(todo));
    let results = Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..jobs.max(1) {
            s.spawn(|| loop {
                if stop.load(Ordering::Relaxed) {
                    return;
                }
                let Some(job) = queue.lock().unwrap().pop_front() else {
                    return;
                };
                let outcome = match claim_run(&job, when_busy, stop, say) {
                    Err(e) => Outcome::Ran(Err(e)),
                    Ok(Err(_)) if stop.load(Ordering::Relaxed) => return,
                    Ok(Err(holder)) => Outcome::Busy(holder),
                    Ok(Ok(_)) if status_of(&job.dir) == Some(RunStatus::Done) => {
                        Outcome::AlreadyDone
                    }
                    Ok(Ok(own)) => Outcome::Ran(own.clear().and_then(|()| run(&job, &own))),
                };
                let status = match &outcome {
                    Outcome::Ran(Ok(s)) => *s,
                    Outcome::AlreadyDone => RunStatus::Done,
                    Outcome::Ran(Err(_)) => RunStatus::Failed,
                    Outcome::Busy(_) => RunStatus::Interrupted,
                };
                progress(&job, status);
                results.lock().unwrap().push((job, outcome));
            });
        }
    });
    for (job, outcome) in results.into_inner().unwrap() {
        match outcome {
            Outcome::AlreadyDone => summary.skipped_done += 1,
            Outcome::Busy(holder) => summary.busy.push((job.label(), holder)),
            Outcome::Ran(Ok(RunStatus::Done)) => summary.done += 1,
            Outcome::Ran(Ok(RunStatus::Interrupted)) => summary.interrupted = true,
            Outcome::Ran(Ok(other)) => summary.failed.push((job.label(), format!("{other:?}"))),
            Outcome::Ran(Err(e)) => summary.failed.push((job.label(), format!("{e:#}"))),
        }
    }
    if stop.load(Ordering::Relaxed) {
        summary.interrupted = true;
    }
    Ok(summary)
}

// The bench's child protocol: a run is a `c2tcp run --job` child that
// gets its job as `job.json` in its run directory, the run directory's lock
// as its stdin, and the bench's pid in its environment; it asks to die with
// the bench, and tells how it ended through its run.json.

/// The bench's pid, in the environment of each `c2tcp run` child it starts.
pub const BENCH_PID_ENV: &str = "C2TCP_BENCH_PID";

/// A bench's child dies with the bench: SIGTERM when its parent goes (the
/// interrupt path then cleans up as for Ctrl-C). False when the bench is
/// already gone, before the request could take effect.
pub fn die_with_bench() -> Result<bool> {
    nix::sys::prctl::set_pdeathsig(nix::sys::signal::Signal::SIGTERM)
        .context("asking to die with the bench")?;
    let bench: Option<i32> = std::env::var(BENCH_PID_ENV)
        .ok()
        .and_then(|v| v.parse().ok());
    Ok(match bench {
        Some(pid) => nix::unistd::getppid().as_raw() == pid,
        None => true, // started by hand with --job: nothing to follow
    })
}

/// Runs one job as a `c2tcp run` child and returns the status it recorded.
/// The child gets the run directory's lock as its stdin (so it holds it as
/// long as it lives, even past this bench) and the bench's pid, by which it
/// checks it is still the bench's child once it has asked to die with it.
/// This thread waits for the child: the parent-death signal follows the
/// thread that spawned it.
pub fn run_child(
    exe: &Path,
    job: &Job,
    own: &Ownership,
    interrupt: &AtomicBool,
) -> Result<RunStatus> {
    let job_path = job.dir.join("job.json");
    std::fs::write(&job_path, serde_json::to_string_pretty(job)?)
        .with_context(|| format!("writing {}", job_path.display()))?;
    let log_path = job.dir.join("stderr.log");
    let log = std::fs::File::create(&log_path)
        .with_context(|| format!("creating {}", log_path.display()))?;
    let mut child = Command::new(exe)
        .arg("run")
        .arg("--job")
        .arg(&job_path)
        .arg("--out")
        .arg(&job.dir)
        .arg("--quiet")
        .env(BENCH_PID_ENV, std::process::id().to_string())
        .stdin(Stdio::from(own.share()?))
        .stdout(Stdio::null())
        .stderr(log)
        .spawn()
        .context("starting c2tcp run")?;
    let mut signalled = false;
    loop {
        if let Some(_status) = child.try_wait()? {
            break;
        }
        if interrupt.load(Ordering::Relaxed) && !signalled {
            // Ctrl-C reaches the whole process group anyway; SIGTERM to
            // the bench alone must reach the children too.
            plumbing::process::terminate(&child);
            signalled = true;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    match RunInfo::read(&job.dir) {
        Ok(info) => match (info.status, info.error) {
            (RunStatus::Failed, Some(e)) => bail!("{e}"),
            (status, _) => Ok(status),
        },
        Err(_) => {
            let err = std::fs::read_to_string(job.dir.join("stderr.log")).unwrap_or_default();
            bail!("the run left no run.json: {}", err.trim())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

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
            scenario_name: "t".into(),
            scenario_dir: None,
            traces: vec![],
            schemes: vec!["c2tcp".into(), "cubic".into()],
            set: vec![],
            reps: 2,
            seed: 1,
            out: out.to_path_buf(),
        }
    }

    #[test]
    fn the_matrix_is_schemes_by_sweep_by_reps() {
        let tmp = tempfile::tempdir().unwrap();
        let jobs = expand(&plan(tmp.path())).unwrap();
        // c2tcp: 2 sweep values; cubic takes no target_ms and runs once.
        assert_eq!(jobs.len(), 6);
        let c2 = jobs
            .iter()
            .find(|j| {
                j.id.scheme == "c2tcp"
                    && j.id.params.get("target_ms") == Some(&serde_json::json!(25))
                    && j.id.rep == 1
            })
            .unwrap();
        assert_eq!(c2.scenario.flows[0].param_f64("target_ms"), Some(25.0));
        assert!(c2.scenario.sweep.is_empty());
        assert!(
            c2.dir.ends_with("runs/constant:12/c2tcp/target_ms=25/rep1"),
            "{}",
            c2.dir.display()
        );
        let cubic: Vec<_> = jobs.iter().filter(|j| j.id.scheme == "cubic").collect();
        assert_eq!(cubic.len(), 2);
        assert!(cubic
            .iter()
            .all(|j| j.id.params.is_empty() && j.scenario.flows[0].params.is_empty()));
        assert!(cubic[0]
            .dir
            .ends_with("runs/constant:12/cubic/default/rep1"));
        // Repetition is the outer loop.
        assert!(jobs[..3].iter().all(|j| j.id.rep == 1));
    }

    #[test]
    fn finished_runs_are_skipped_and_unfinished_ones_redone() {
        let tmp = tempfile::tempdir().unwrap();
        let jobs = expand(&plan(tmp.path())).unwrap();
        // Pretend a previous bench finished job 0 and was interrupted in job 1.
        for (j, status) in [(&jobs[0], "done"), (&jobs[1], "interrupted")] {
            fs::create_dir_all(&j.dir).unwrap();
            let mut info = RunInfo::started(j.id.clone());
            if status == "done" {
                info.finished(None);
            }
            info.write(&j.dir).unwrap();
            fs::write(j.dir.join("leftover"), "x").unwrap();
        }
        let ran = Mutex::new(Vec::new());
        let run = |j: &Job, _: &Ownership| -> Result<RunStatus> {
            assert!(
                !j.dir.join("leftover").exists(),
                "an unfinished run's files must be cleared"
            );
            let mut info = RunInfo::started(j.id.clone());
            info.finished(None);
            info.write(&j.dir)?;
            ran.lock().unwrap().push(j.label());
            Ok(RunStatus::Done)
        };
        let stop = AtomicBool::new(false);
        let s = exec(jobs.clone(), 2, WhenBusy::Wait, &stop, &run);
        assert_eq!(s.skipped_done, 1);
        assert_eq!(s.done, 5);
        assert!(!ran.lock().unwrap().contains(&jobs[0].label()));
        assert!(ran.lock().unwrap().contains(&jobs[1].label()));
        // A second pass has nothing left to do.
        let s = exec(jobs, 2, WhenBusy::Wait, &stop, &run);
        assert_eq!((s.skipped_done, s.done), (6, 0));
    }

    fn exec(
        jobs: Vec<Job>,
        n: usize,
        when_busy: WhenBusy,
        stop: &AtomicBool,
        run: &(dyn Fn(&Job, &Ownership) -> Result<RunStatus> + Sync),
    ) -> Summary {
        execute(jobs, n, when_busy, stop, run, &|_, _| {}, &|_| {}).unwrap()
    }

    /// What a run that finished writes, in the order the runner writes it.
    fn finish_run(j: &Job) -> Result<RunStatus> {
        wholefile::write(&j.dir.join("metrics.json"), b"{\"aggregate\": {}}\n")?;
        let mut info = RunInfo::started(j.id.clone());
        info.finished(None);
        info.write(&j.dir)?;
        Ok(RunStatus::Done)
    }

    #[test]
    fn a_run_left_with_a_half_written_metrics_json_is_redone() {
        let tmp = tempfile::tempdir().unwrap();
        let jobs = expand(&plan(tmp.path())).unwrap();
        // A crash mid-write: run.json still says what it said at the start,
        // metrics.json stops half-way (as a plain write could leave it).
        let j = &jobs[0];
        fs::create_dir_all(&j.dir).unwrap();
        RunInfo::started(j.id.clone()).write(&j.dir).unwrap();
        fs::write(
            j.dir.join("metrics.json"),
            "{\"aggregate\": {\"throughput_mb",
        )
        .unwrap();
        // Another without even a run.json.
        let k = &jobs[1];
        fs::create_dir_all(&k.dir).unwrap();
        fs::write(k.dir.join("metrics.json"), "{\"aggr").unwrap();
        let redone = Mutex::new(Vec::new());
        let run = |j: &Job, _: &Ownership| -> Result<RunStatus> {
            assert!(!j.dir.join("metrics.json").exists(), "not cleared first");
            redone.lock().unwrap().push(j.dir.clone());
            finish_run(j)
        };
        let stop = AtomicBool::new(false);
        let s = exec(jobs.clone(), 1, WhenBusy::Wait, &stop, &run);
        assert_eq!((s.skipped_done, s.done), (0, 6));
        assert!(redone.lock().unwrap().contains(&j.dir));
        assert!(redone.lock().unwrap().contains(&k.dir));
        for d in [&j.dir, &k.dir] {
            assert_eq!(status_of(d), Some(RunStatus::Done));
            let text = fs::read_to_string(d.join("metrics.json")).unwrap();
            serde_json::from_str::<serde_json::Value>(&text).unwrap();
        }
    }

    #[test]
    fn a_busy_run_is_skipped_or_waited_for_and_never_cleared() {
        let tmp = tempfile::tempdir().unwrap();
        let jobs = expand(&plan(tmp.path())).unwrap();
        let j = jobs[0].clone();
        let Claim::Owned(held) = ownership::try_claim(&j.dir, "c2tcp run").unwrap() else {
            panic!()
        };
        fs::write(j.dir.join("downlink.log"), "still being written").unwrap();
        let run = |j: &Job, _: &Ownership| finish_run(j);
        let stop = AtomicBool::new(false);
        let said = Mutex::new(Vec::new());
        let say = |m: String| said.lock().unwrap().push(m);
        let s = execute(
            jobs.clone(),
            2,
            WhenBusy::Skip,
            &stop,
            &run,
            &|_, _| {},
            &say,
        )
        .unwrap();
        assert_eq!((s.done, s.busy.len()), (5, 1));
        assert!(s.busy[0].1.contains("c2tcp run"), "{:?}", s.busy);
        assert!(
            j.dir.join("downlink.log").exists(),
            "a busy run was cleared"
        );
        assert!(said.lock().unwrap()[0].starts_with("skipping "), "{said:?}");
        // Waiting: the holder lets go a moment later, then the run is done.
        said.lock().unwrap().clear();
        let releaser = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(500));
            drop(held);
        });
        let s = execute(jobs, 2, WhenBusy::Wait, &stop, &run, &|_, _| {}, &say).unwrap();
        releaser.join().unwrap();
        assert_eq!((s.skipped_done, s.done, s.busy.len()), (5, 1, 0));
        assert!(!j.dir.join("downlink.log").exists());
        assert_eq!(status_of(&j.dir), Some(RunStatus::Done));
        let said = said.lock().unwrap();
        assert!(
            said.len() == 1 && said[0].starts_with("waiting for ") && said[0].contains("c2tcp run"),
            "{said:?}"
        );
        assert!(j.dir.join(ownership::LOCK_FILE).exists());
    }

    #[test]
    fn a_stop_request_halts_scheduling() {
        let tmp = tempfile::tempdir().unwrap();
        let jobs = expand(&plan(tmp.path())).unwrap();
        let stop = AtomicBool::new(false);
        let run = |j: &Job, _: &Ownership| -> Result<RunStatus> {
            stop.store(true, Ordering::Relaxed);
            RunInfo::started(j.id.clone()).write(&j.dir)?;
            Ok(RunStatus::Interrupted)
        };
        let s = exec(jobs, 1, WhenBusy::Wait, &stop, &run);
        assert!(s.interrupted);
        assert_eq!(s.done, 0);
    }

    #[test]
    fn a_swept_queue_is_named_by_its_size() {
        let q = |s: &str| param_of("queue", &toml::Value::String(s.into()));
        assert_eq!(
            q("droptail:bytes=75000"),
            ("buffer_bytes".into(), serde_json::json!(75000))
        );
        assert_eq!(
            q("codel:target=5,packets=100"),
            ("buffer_packets".into(), serde_json::json!(100))
        );
        assert_eq!(
            param_of("target_ms", &toml::Value::Integer(25)),
            ("target_ms".into(), serde_json::json!(25))
        );
    }

    #[test]
    fn swept_flows_and_rates_are_named_by_the_number_they_plot() {
        let s = |x: &str| toml::Value::String(x.into());
        assert_eq!(
            param_of("downlink", &s("constant:54")),
            ("downlink_mbps".into(), serde_json::json!(54))
        );
        assert_eq!(
            param_of("downlink", &s("constant:1.5")),
            ("downlink_mbps".into(), serde_json::json!(1.5))
        );
        assert_eq!(
            param_of("downlink", &s("/t/Verizon-LTE-short.down")),
            (
                "downlink".into(),
                serde_json::json!("Verizon-LTE-short.down")
            )
        );
        let n = toml::Value::Integer(65536);
        assert_eq!(
            param_of("short.size_bytes", &n),
            ("short_bytes".into(), serde_json::json!(65536))
        );
        assert_eq!(
            param_of("short.count", &toml::Value::Integer(3)),
            ("short_flows".into(), serde_json::json!(3))
        );
    }

    #[test]
    fn a_swept_downlink_is_its_own_trace_label() {
        let tmp = tempfile::tempdir().unwrap();
        let mut p = plan(tmp.path());
        p.scenario.sweep.clear();
        let rates = ["constant:1", "constant:54"].map(|r| toml::Value::String(r.into()));
        p.scenario.sweep.insert("downlink".into(), rates.to_vec());
        p.reps = 1;
        let jobs = expand(&p).unwrap();
        assert_eq!(jobs.len(), 4);
        let j = jobs
            .iter()
            .find(|j| {
                j.id.scheme == "cubic"
                    && j.id.params.get("downlink_mbps") == Some(&serde_json::json!(54))
            })
            .unwrap();
        assert_eq!(
            (j.id.trace.as_str(), j.scenario.link.downlink.as_str()),
            ("downlink-sweep", "constant:54")
        );
        assert!(
            j.dir
                .ends_with("runs/downlink-sweep/cubic/downlink_mbps=54/rep1"),
            "{}",
            j.dir.display()
        );
        p.traces = vec![tmp.path().join("X.down")];
        assert!(expand(&p)
            .unwrap_err()
            .to_string()
            .contains("sweep.downlink"));
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
        assert!(jobs.iter().all(|j| j.id.trace == "X.down"));
        assert_eq!(
            jobs[0].scenario.link.uplink.as_deref(),
            Some(tmp.path().join("X.up").to_str().unwrap())
        );
    }
}
