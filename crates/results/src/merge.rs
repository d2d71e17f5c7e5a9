// SPDX-License-Identifier: GPL-2.0-only
//! Joining the run directories of several bench directories (the shards
//! of one bench, run on different machines with `--shard K/N`) into one.
//!
//! A run is known by its identity (`RunId`: trace, scheme, label,
//! repetition — what the report groups by), never by its path. Every run
//! directory of every source is copied to the same relative place in the
//! destination, `run.json` last. A run found twice must be the same run:
//! the same files with the same bytes (a shard merged again, or a
//! destination merged into once already), else the merge is refused before
//! anything is copied, naming both directories. A finished (`done`) run
//! wins over an unfinished or failed one of the same identity, which is
//! then left out; unfinished and failed runs are copied otherwise, so the
//! report can count them.
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};

use crate::{find_run_dirs, RunInfo, RunStatus, RUN_JSON};

/// What a merge did.
#[derive(Debug, Default)]
pub struct Merged {
    /// Runs copied into the destination.
    pub copied: usize,
    /// Runs found more than once with the same files, or already there.
    pub identical: usize,
    /// Unfinished or failed runs left out for a finished one of the same identity.
    pub superseded: usize,
}

/// Files of a run directory that are not its results: its lock, the
/// bench's job and the child's stderr, temporaries of an interrupted write,
/// and `perf.json`, which every report writes anew.
fn is_result_file(name: &str) -> bool {
    !(name == ".lock"
        || name == "job.json"
        || name == "stderr.log"
        || name == crate::PERF_JSON
        || name.ends_with(".tmp"))
}

/// A run's result files, relative to its directory, sorted.
fn result_files(dir: &Path) -> Result<Vec<PathBuf>> {
    fn walk(root: &Path, dir: &Path, out: &mut Vec<PathBuf>) -> Result<()> {
        for entry in std::fs::read_dir(dir).with_context(|| format!("reading {}", dir.display()))? {
            let entry = entry?;
            let path = entry.path();
            let name = entry.file_name().to_string_lossy().into_owned();
            if entry.file_type()?.is_dir() {
                // A run nested in a run is its own run.
                if !path.join(RUN_JSON).exists() {
                    walk(root, &path, out)?;
                }
            } else if is_result_file(&name) {
                out.push(path.strip_prefix(root).unwrap().to_path_buf());
            }
        }
        Ok(())
    }
    let mut out = Vec::new();
    walk(dir, dir, &mut out)?;
    out.sort();
    Ok(out)
}

/// Whether two run directories hold the same results, byte for byte.
fn same_run(a: &Path, b: &Path) -> Result<bool> {
    let (fa, fb) = (result_files(a)?, result_files(b)?);
    if fa != fb {
        return Ok(false);
    }
    for f in &fa {
        let (x, y) = (a.join(f), b.join(f));
        let len = |p: &Path| std::fs::metadata(p).map(|m| m.len());
        if len(&x)? != len(&y)?
            || std::fs::read(&x).with_context(|| format!("reading {}", x.display()))?
                != std::fs::read(&y).with_context(|| format!("reading {}", y.display()))?
        {
            return Ok(false);
        }
    }
    Ok(true)
}

/// A run directory found in a source.
struct Found {
    dir: PathBuf,
    /// Relative to its bench directory.
    rel: PathBuf,
    info: RunInfo,
}

type Key = (String, String, String, u32);

fn key_of(info: &RunInfo) -> Key {
    (
        info.id.trace.clone(),
        info.id.scheme.clone(),
        info.id.label(),
        info.id.rep,
    )
}

/// Copies a run's result files into `to`, each under a temporary name then
/// renamed, `run.json` last: a copy cut short reads as unfinished.
fn copy_run(from: &Path, to: &Path) -> Result<()> {
    std::fs::create_dir_all(to).with_context(|| format!("creating {}", to.display()))?;
    let mut files = result_files(from)?;
    files.sort_by_key(|f| f == Path::new(RUN_JSON));
    for f in files {
        let bytes = std::fs::read(from.join(&f))
            .with_context(|| format!("reading {}", from.join(&f).display()))?;
        let dest = to.join(&f);
        if let Some(parent) = dest.parent() {
            std::fs::create_dir_all(parent)
                .with_context(|| format!("creating {}", parent.display()))?;
        }
        wholefile::write(&dest, &bytes).with_context(|| format!("writing {}", dest.display()))?;
    }
    Ok(())
}

/// Merges the runs of `sources` into the bench directory `dest` (which may
/// already hold runs: they take part as the first source).
pub fn merge(sources: &[PathBuf], dest: &Path) -> Result<Merged> {
    let dest_abs = std::path::absolute(dest)?;
    for s in sources {
        if std::path::absolute(s)? == dest_abs {
            bail!(
                "{}: the merged directory cannot also be a source",
                s.display()
            );
        }
        if !s.is_dir() {
            bail!("{}: not a directory", s.display());
        }
    }
    let mut roots: Vec<(&Path, bool)> = Vec::new();
    if dest.is_dir() {
        roots.push((dest, true));
    }
    roots.extend(sources.iter().map(|s| (s.as_path(), false)));

    // Done runs first (they win), in source order; then the others.
    let mut chosen: BTreeMap<Key, (Found, bool)> = BTreeMap::new();
    let mut places: BTreeMap<PathBuf, Key> = BTreeMap::new();
    let mut merged = Merged::default();
    let mut all = Vec::new();
    for (root, in_dest) in &roots {
        let mut dirs = Vec::new();
        find_run_dirs(root, &mut dirs).with_context(|| format!("scanning {}", root.display()))?;
        dirs.sort();
        for dir in dirs {
            // A bench's claimed run that never started (job.json only) is no run.
            let Ok(info) = RunInfo::read(&dir) else {
                continue;
            };
            let rel = dir.strip_prefix(root).unwrap().to_path_buf();
            all.push((Found { dir, rel, info }, *in_dest));
        }
    }
    all.sort_by_key(|(f, _)| f.info.status != RunStatus::Done);
    for (found, in_dest) in all {
        let key = key_of(&found.info);
        if let Some((kept, _)) = chosen.get(&key) {
            let both_done =
                kept.info.status == RunStatus::Done && found.info.status == RunStatus::Done;
            if kept.info.status == RunStatus::Done && !both_done {
                merged.superseded += 1;
            } else if same_run(&kept.dir, &found.dir)? {
                merged.identical += 1;
            } else if both_done {
                bail!(
                    "{} and {} are the same run ({}) with different results; \
                     a run is merged from one shard only (remove one of them)",
                    kept.dir.display(),
                    found.dir.display(),
                    found.info.id.describe()
                );
            }
            // Two unfinished copies: the first stays.
            continue;
        }
        if let Some(other) = places.get(&found.rel) {
            if *other != key {
                bail!(
                    "{}: two different runs would go to {} ({} and {:?})",
                    found.dir.display(),
                    dest.join(&found.rel).display(),
                    found.info.id.describe(),
                    other
                );
            }
        }
        places.insert(found.rel.clone(), key.clone());
        chosen.insert(key, (found, in_dest));
    }
    for (found, in_dest) in chosen.values() {
        if *in_dest {
            continue;
        }
        let to = dest.join(&found.rel);
        if to.join(RUN_JSON).exists() {
            // Another identity at this place in the destination: refused above;
            // here the destination's own copy of an unfinished run.
            if same_run(&found.dir, &to)? {
                merged.identical += 1;
                continue;
            }
        }
        copy_run(&found.dir, &to)?;
        merged.copied += 1;
    }
    Ok(merged)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{run_dir, RunId};

    fn run(bench: &Path, scheme: &str, rep: u32, metrics: &str, done: bool) -> PathBuf {
        let dir = run_dir(bench, "T.down", scheme, "", rep);
        std::fs::create_dir_all(dir.join("uplink")).unwrap();
        std::fs::write(dir.join("metrics.json"), metrics).unwrap();
        std::fs::write(dir.join("uplink/metrics.json"), "{}").unwrap();
        std::fs::write(dir.join(".lock"), "pid=1\n").unwrap();
        std::fs::write(dir.join("stderr.log"), "noise").unwrap();
        let mut info = RunInfo::started(RunId::new("s", scheme, "T.down", BTreeMap::new(), rep));
        info.timings.started_unix_s = Some(1.0);
        if done {
            info.finished(None);
            info.timings.finished_unix_s = Some(2.0);
            info.timings.wall_s = Some(1.0);
        }
        info.write(&dir).unwrap();
        dir
    }

    #[test]
    fn shards_join_and_a_disagreeing_duplicate_is_refused() {
        let tmp = tempfile::tempdir().unwrap();
        let (a, b, m) = (
            tmp.path().join("a"),
            tmp.path().join("b"),
            tmp.path().join("m"),
        );
        run(&a, "cubic", 1, "{\"x\": 1}", true);
        run(&b, "bbr", 1, "{\"x\": 2}", true);
        // Unfinished in a, done in b: b's wins.
        run(&a, "c2tcp", 1, "{\"half", false);
        let done_c2 = run(&b, "c2tcp", 1, "{\"x\": 3}", true);
        let srcs = [a.clone(), b.clone()];
        let r = merge(&srcs, &m).unwrap();
        assert_eq!((r.copied, r.identical, r.superseded), (3, 0, 1));
        let c2 = run_dir(&m, "T.down", "c2tcp", "", 1);
        assert_eq!(
            std::fs::read(c2.join("metrics.json")).unwrap(),
            b"{\"x\": 3}"
        );
        assert_eq!(RunInfo::read(&c2).unwrap().status, RunStatus::Done);
        assert!(c2.join("uplink/metrics.json").is_file());
        assert!(!c2.join(".lock").exists() && !c2.join("stderr.log").exists());
        // Merging again changes nothing: every run is already there.
        let r = merge(&srcs, &m).unwrap();
        assert_eq!((r.copied, r.identical), (0, 3));
        // The same run with other results in a third directory: refused,
        // both named, nothing copied.
        let c = tmp.path().join("c");
        run(&c, "c2tcp", 1, "{\"x\": 4}", true);
        run(&c, "vegas", 1, "{}", true);
        let e = format!("{:#}", merge(&[a, b, c.clone()], &m).unwrap_err());
        assert!(
            e.contains(&done_c2.display().to_string()) || e.contains("m/runs"),
            "{e}"
        );
        assert!(
            e.contains("different results") && e.contains(&c.display().to_string()),
            "{e}"
        );
        assert!(!run_dir(&m, "T.down", "vegas", "", 1).exists());
        assert!(merge(&[m.clone()], &m).is_err());
    }
}
