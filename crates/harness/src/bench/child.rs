// SPDX-License-Identifier: GPL-2.0-only
//! The bench's child protocol, both halves. A run of a bench is a
//! `c2tcp run --job` child that gets its job as `job.json` in its run
//! directory, the run directory's lock as its stdin, and the bench's pid in
//! its environment; it asks to die with the bench, learns the scheme files
//! the job carries, checks the job's scenario (once), holds the lock it was
//! handed, and tells how it ended through its run.json.
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use anyhow::{bail, Context, Result};
use results::{RunId, RunInfo, RunStatus};

use super::Job;
use crate::ownership::{self, Claim, Ownership};
use crate::plan::CheckedScenario;
use crate::runner::RunOptions;
use crate::trace_ref::TraceRef;

/// The bench's pid, in the environment of each `c2tcp run` child it starts.
pub const BENCH_PID_ENV: &str = "C2TCP_BENCH_PID";

// ---- the bench's half ----

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
    let job_path = job.dir.join(results::JOB_JSON);
    std::fs::write(&job_path, serde_json::to_string_pretty(job)?)
        .with_context(|| format!("writing {}", job_path.display()))?;
    let log_path = job.dir.join(results::STDERR_LOG);
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
            let err =
                std::fs::read_to_string(job.dir.join(results::STDERR_LOG)).unwrap_or_default();
            bail!("the run left no run.json: {}", err.trim())
        }
    }
}

// ---- the child's half ----

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

/// A job as `c2tcp bench --list` printed it, from a file or stdin (`-`).
pub fn read_job(path: &Path) -> Result<Job> {
    let text = if path == Path::new("-") {
        std::io::read_to_string(std::io::stdin()).context("reading the job from stdin")?
    } else {
        std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?
    };
    Job::parse(&text)
        .with_context(|| format!("{}: not a job of `c2tcp bench --list`", path.display()))
}

/// A job ready to run in this process, beside its checked scenario.
pub struct JobRun {
    pub id: RunId,
    pub seed: u64,
    pub traces: Vec<TraceRef>,
    /// The run directory in the bench that listed it.
    pub dir: PathBuf,
}

/// The child's start (`c2tcp run --job FILE`): asks to die with its bench
/// (None: the bench is already gone, so the run must not start), reads the
/// job, adds the scheme files it carries and checks its scenario, once.
pub fn start_job(path: &Path) -> Result<Option<(CheckedScenario, JobRun)>> {
    if !die_with_bench()? {
        return Ok(None);
    }
    let job = read_job(path)?;
    crate::scheme::file::add_carried(&job.scheme_files)
        .with_context(|| format!("{}: its scheme files", path.display()))?;
    let checked = CheckedScenario::check(job.scenario)
        .with_context(|| format!("{}: its scenario", path.display()))?;
    let run = JobRun {
        id: job.id,
        seed: job.seed,
        traces: job.traces,
        dir: job.dir,
    };
    Ok(Some((checked, run)))
}

impl JobRun {
    /// How the runner runs it into `out`: the job's identity, seed and
    /// traces (checked by content before anything starts).
    pub fn options(&self, out: &Path, helper_exe: &Path) -> RunOptions {
        let mut opts = RunOptions::new(out, helper_exe, self.id.clone());
        opts.seed = self.seed;
        opts.traces = self.traces.clone();
        opts
    }
}

/// Takes the run directory `out` for the job: the lock its bench handed
/// over as stdin, else (a job run by hand) a lock of its own.
pub fn own_run_dir(out: &Path) -> Result<Claim> {
    match Ownership::inherited(out, "c2tcp run")? {
        Some(own) => Ok(Claim::Owned(own)),
        None => ownership::try_claim(out, "c2tcp run"),
    }
}
