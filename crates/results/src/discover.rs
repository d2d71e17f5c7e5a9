// SPDX-License-Identifier: GPL-2.0-only
//! Finding the runs under a directory again, by their `run.json`, and what
//! the report says about those that do not count.
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use serde::Serialize;

use crate::{read_analysis, RunInfo, RunStatus, JOB_JSON, RUN_JSON};

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
    use std::collections::BTreeMap;

    use super::*;
    use crate::{run_dir, RunId};

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
}
