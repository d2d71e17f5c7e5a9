// SPDX-License-Identifier: GPL-2.0-only
//! Running a bench's jobs: those not done already, several at a time, each
//! in its run directory once the bench owns it (waiting for, or skipping, a
//! directory another process still holds), and what became of each.
use std::collections::VecDeque;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use anyhow::Result;
use results::{RunInfo, RunStatus};

use super::Job;
use crate::ownership::{self, Claim, Ownership};

/// The status a run left in its `run.json` (a run in progress reads as
/// interrupted until it finishes).
pub fn status_of(dir: &Path) -> Option<RunStatus> {
    RunInfo::read(dir).ok().map(|i| i.status)
}

/// Records `job` as failed without running it (`why`: what stops it on this
/// host) in its run.json, and returns that failure.
pub fn fail_unstarted(job: &Job, why: &str) -> Result<RunStatus> {
    let mut info = RunInfo::started(job.id.clone());
    info.seed = Some(job.seed);
    info.finished(Some(why.to_string()));
    info.write(&job.dir)?;
    anyhow::bail!("{why}")
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
