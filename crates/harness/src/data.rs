// SPDX-License-Identifier: GPL-2.0-only
//! Where the project's data lives: the real traces (`traces/`) and the
//! scenarios (`scenarios/`), for a binary run from its repository and for
//! one installed by `make install`.
//!
//! The data root is the first of these that has a `traces/` folder:
//! `<exe>/../share/c2tcp` (the installed layout, which also holds under a
//! `DESTDIR`), then the repository the binary was built from (its path is
//! fixed at build time). `$C2TCP_TRACES` overrides the traces folder alone.
use std::path::{Path, PathBuf};

use anyhow::{bail, Result};

/// The installed layout relative to the binary: `PREFIX/bin/c2tcp` →
/// `PREFIX/share/c2tcp`.
const INSTALLED_DATA: &str = "../share/c2tcp";

/// The repository this crate was built in (crates/harness → ../..).
const BUILD_REPOSITORY: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");

/// The candidate data roots, in the order they are tried.
fn candidates() -> Vec<PathBuf> {
    let mut out = Vec::new();
    if let Some(bin_dir) = std::env::current_exe()
        .ok()
        .and_then(|e| e.parent().map(Path::to_path_buf))
    {
        out.push(bin_dir.join(INSTALLED_DATA));
    }
    out.push(PathBuf::from(BUILD_REPOSITORY));
    out
}

/// The folder holding `traces/` and `scenarios/`, if any candidate has one.
pub fn data_root() -> Option<PathBuf> {
    first_root(&candidates())
}

fn first_root(candidates: &[PathBuf]) -> Option<PathBuf> {
    candidates
        .iter()
        .find(|d| d.join("traces").is_dir())
        .map(|d| d.canonicalize().unwrap_or_else(|_| d.clone()))
}

/// The traces folder: `$C2TCP_TRACES`, else the data root's `traces/`.
pub fn traces_dir() -> Result<PathBuf> {
    traces_dir_from(
        std::env::var_os("C2TCP_TRACES").map(PathBuf::from),
        &candidates(),
    )
}

fn traces_dir_from(variable: Option<PathBuf>, candidates: &[PathBuf]) -> Result<PathBuf> {
    if let Some(dir) = variable {
        if !dir.is_dir() {
            bail!("C2TCP_TRACES={} is not a directory", dir.display());
        }
        return Ok(dir);
    }
    match first_root(candidates) {
        Some(root) => Ok(root.join("traces")),
        None => bail!(
            "no traces found (looked for traces/ in {}); set C2TCP_TRACES to a folder of \
             Mahimahi traces, or install the data with `make install`",
            candidates
                .iter()
                .map(|c| c.display().to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

/// A scenario path as given, else relative to the data root (so an installed
/// `c2tcp run scenarios/c2tcp-default.toml` works from any directory).
pub fn find_scenario(path: &Path) -> Result<PathBuf> {
    if path.exists() || path.is_absolute() {
        return Ok(path.to_path_buf());
    }
    if let Some(root) = data_root() {
        let p = root.join(path);
        if p.exists() {
            return Ok(p);
        }
    }
    bail!(
        "{}: no such scenario (looked in the current directory{})",
        path.display(),
        data_root()
            .map(|r| format!(" and {}", r.display()))
            .unwrap_or_default()
    )
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
    bail!(
        "trace `{name}` not found (looked in: {}); {}",
        tried.join(", "),
        missing_trace_hint(name)
    )
}

/// What to do about a trace that is not there. The project's traces are
/// other projects' data, not in git: `make traces` brings them (verified
/// against `traces/MANIFEST.tsv`), so a name the manifest lists is one that
/// was never brought.
fn missing_trace_hint(name: &str) -> String {
    let listed = traces_dir()
        .ok()
        .and_then(|dir| std::fs::read_to_string(dir.join("MANIFEST.tsv")).ok())
        .and_then(|manifest| {
            manifest
                .lines()
                .skip(1)
                .filter_map(|l| l.split('\t').next())
                .find(|f| *f == name || f.strip_prefix("mahimahi/") == Some(name))
                .map(str::to_string)
        });
    match listed {
        Some(file) => format!(
            "it is the project's traces/{file}, not brought here yet: run `make traces` \
             in the repository (traces/README.md)"
        ),
        None => "the project's own traces come with `make traces` (traces/README.md); \
                 C2TCP_TRACES=DIR reads traces from another folder"
            .to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_repository_s_traces_are_found_without_the_variable() {
        // Under `cargo test` the binary lives in target/, so the build
        // repository is the root found.
        let root = data_root().expect("the repository has traces/");
        assert!(root.join("traces/mahimahi").is_dir(), "{}", root.display());
        assert!(root.join("scenarios/c2tcp-default.toml").is_file());
    }

    #[test]
    fn no_traces_anywhere_is_an_error_naming_the_variable() {
        let nowhere = [PathBuf::from("/nonexistent/c2tcp-data")];
        let e = traces_dir_from(None, &nowhere).unwrap_err().to_string();
        assert!(
            e.contains("C2TCP_TRACES") && e.contains("/nonexistent/c2tcp-data"),
            "{e}"
        );
        let e = traces_dir_from(Some("/nonexistent/t".into()), &nowhere)
            .unwrap_err()
            .to_string();
        assert!(e.contains("C2TCP_TRACES=/nonexistent/t"), "{e}");
    }

    #[test]
    fn a_scenario_name_resolves_from_anywhere() {
        let p = find_scenario(Path::new("scenarios/c2tcp-default.toml")).unwrap();
        assert!(p.is_file());
        let e = find_scenario(Path::new("scenarios/no-such.toml")).unwrap_err();
        assert!(format!("{e}").contains("no such scenario"), "{e}");
    }

    #[test]
    fn missing_trace_names_the_places_looked() {
        let e = format!(
            "{:#}",
            resolve_trace("no-such.down", Some(Path::new("/tmp"))).unwrap_err()
        );
        assert!(
            e.contains("no-such.down")
                && e.contains("/tmp/no-such.down")
                && e.contains("make traces"),
            "{e}"
        );
    }
}
