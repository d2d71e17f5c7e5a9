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
//!
//! One idea a module:
//!
//! - `matrix.rs`: what the bench runs ([`Matrix`]), from its flags merged
//!   with the scenario's `[bench]` table ([`BenchFlags`]);
//! - `jobs.rs`: the matrix expanded into [`Job`]s (`--list`), a [`Shard`]
//!   of them (`--shard`), each job's scenario checked once;
//! - `exec.rs`: running the jobs not done, `--jobs` at a time ([`execute`]);
//! - `child.rs`: the child protocol, both halves: the bench starting a
//!   `c2tcp run --job` child ([`run_child`]) and the child's start
//!   ([`start_job`]).
mod child;
mod exec;
mod jobs;
mod matrix;
#[cfg(test)]
mod tests;

pub use child::{
    die_with_bench, own_run_dir, read_job, run_child, start_job, JobRun, BENCH_PID_ENV,
};
pub use exec::{execute, fail_unstarted, status_of, Summary, WhenBusy};
pub use jobs::{expand, param_of, Job, Shard};
pub use matrix::{check_reference, Bench, BenchFlags, Matrix, DEFAULT_SCHEMES};
pub use results::RunStatus;
