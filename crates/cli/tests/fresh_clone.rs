// SPDX-License-Identifier: GPL-2.0-only
//! The repository stands on its own: no tracked file reads a folder beside
//! it (but `make traces`, which may copy the traces from one), it carries no
//! trace data (only their manifest), a missing trace is named with the
//! command that brings it, every source file names its licence, and `make
//! install` gives a binary that finds its scenarios and traces from any
//! directory.
mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

fn repository() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .unwrap()
}

/// The tracked files, or None (after skip_or_fail) outside a git checkout.
fn tracked_files(test: &str) -> Option<Vec<String>> {
    let out = Command::new("git")
        .arg("-C")
        .arg(repository())
        .args(["ls-files", "-z"])
        .output();
    match out {
        Ok(o) if o.status.success() => Some(
            String::from_utf8_lossy(&o.stdout)
                .split('\0')
                .filter(|f| !f.is_empty())
                .map(str::to_string)
                .collect(),
        ),
        _ => {
            testkit::skip_or_fail(test, "needs git and a git checkout");
            None
        }
    }
}

#[test]
fn no_tracked_file_refers_to_a_folder_beside_the_repository() {
    let Some(files) = tracked_files("no_tracked_file_refers_to_a_folder_beside_the_repository")
    else {
        return;
    };
    // Spelled in two parts so that this file does not match itself.
    let beside = format!("{}/{}", "..", "shared");
    // `make traces` copies the traces from there when it exists (its
    // TRACES_FROM default, nothing else), and documents may say so.
    let may_name_it = |f: &str| f == "Makefile" || f == "scripts/traces.py" || f.ends_with(".md");
    let offenders: Vec<_> = files
        .iter()
        .filter(|f| !may_name_it(f))
        .filter(|f| {
            std::fs::read(repository().join(f))
                .map(|b| String::from_utf8_lossy(&b).contains(&beside))
                .unwrap_or(false)
        })
        .collect();
    assert!(
        offenders.is_empty(),
        "these tracked files refer to {beside}: {offenders:?}"
    );
}

/// Traces are other projects' data: git carries only what describes them.
#[test]
fn the_tree_carries_no_trace_data() {
    let Some(files) = tracked_files("the_tree_carries_no_trace_data") else {
        return;
    };
    let traces: Vec<_> = files.iter().filter(|f| f.starts_with("traces/")).collect();
    assert_eq!(
        traces,
        ["traces/MANIFEST.tsv", "traces/README.md"],
        "only the manifest and README of traces/ belong in git (`make traces` brings the files)"
    );
}

/// Where the traces were never brought (a fresh clone before `make
/// traces`), `run`, `bench` and `trace stats` name the trace and the command.
#[test]
fn a_missing_trace_is_named_with_make_traces() {
    let bare = tempfile::tempdir().unwrap();
    std::fs::copy(
        repository().join("traces/MANIFEST.tsv"),
        bare.path().join("MANIFEST.tsv"),
    )
    .unwrap();
    let out_dir = tempfile::tempdir().unwrap();
    let run_out = out_dir.path().join("run");
    let bench_out = out_dir.path().join("bench");
    let scenario = repository().join("scenarios/c2tcp-default.toml");
    let cases: [(&str, Vec<&str>); 3] = [
        (
            "TMobile-LTE-short.down",
            vec!["run", "--scheme", "cubic", "--downlink", "TMobile-LTE-short.down", "--out", run_out.to_str().unwrap()],
        ),
        (
            "TMobile-LTE-driving.down",
            vec!["bench", scenario.to_str().unwrap(), "--schemes", "cubic", "--out", bench_out.to_str().unwrap()],
        ),
        ("Verizon-LTE-short.down", vec!["trace", "stats", "Verizon-LTE-short.down"]),
    ];
    for (trace, args) in cases {
        let out = Command::new(env!("CARGO_BIN_EXE_c2tcp"))
            .env("C2TCP_TRACES", bare.path())
            .args(&args)
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "c2tcp {args:?} ran without its trace");
        assert!(
            text.contains(trace) && text.contains("make traces") && !text.contains("panicked"),
            "c2tcp {args:?}: {text}"
        );
    }
}

#[test]
fn every_source_file_names_its_licence_on_its_first_lines() {
    let Some(files) = tracked_files("every_source_file_names_its_licence_on_its_first_lines")
    else {
        return;
    };
    let sources = files.iter().filter(|f| {
        [".rs", ".c", ".h", ".sh", ".py"]
            .iter()
            .any(|e| f.ends_with(e))
            || *f == "Makefile"
            || *f == ".ci/run"
    });
    let mut missing = Vec::new();
    for f in sources {
        let text = std::fs::read_to_string(repository().join(f)).unwrap();
        // A script's first line is its #! line, so the identifier may be second.
        if !text
            .lines()
            .take(2)
            .any(|l| l.contains("SPDX-License-Identifier:"))
        {
            missing.push(f.clone());
        }
    }
    assert!(
        missing.is_empty(),
        "no SPDX-License-Identifier on the first lines of {missing:?}"
    );
    let licence =
        std::fs::read_to_string(repository().join("LICENSE")).expect("LICENSE at the root");
    assert!(licence.contains("GNU GENERAL PUBLIC LICENSE") && licence.contains("Version 2"));
}

#[test]
fn version_names_the_commit() {
    let (ok, out) = common::c2tcp(&["--version"]);
    assert!(ok, "{out}");
    let commit = out
        .split("(git ")
        .nth(1)
        .and_then(|s| s.split(')').next())
        .unwrap_or("");
    assert!(out.starts_with("c2tcp 0.") && !commit.is_empty(), "{out}");
    let head = Command::new("git")
        .arg("-C")
        .arg(repository())
        .args(["rev-parse", "HEAD"])
        .output();
    if let Some(h) = head.ok().filter(|h| h.status.success()) {
        assert!(
            String::from_utf8_lossy(&h.stdout).starts_with(commit),
            "{out} is not HEAD"
        );
    }
}

/// `make install DESTDIR=...` puts exactly the documented files in place;
/// the installed binary, run from a directory outside the repository with no
/// C2TCP_TRACES, runs the authors' scenario on a real trace from its own
/// share/; `make uninstall` removes them all.
#[test]
fn an_installed_c2tcp_runs_a_scenario_from_outside_the_repository() {
    let test = "an_installed_c2tcp_runs_a_scenario_from_outside_the_repository";
    let dest = tempfile::tempdir().unwrap();
    let make = |target: &str| {
        // `-o build`: the binary under test is already built (cargo holds the
        // build directory while tests run, so make must not call cargo).
        let out = Command::new("make")
            .arg("-C")
            .arg(repository())
            .args(["-o", "build", "-o", "deps", target])
            .arg(format!("BIN={}", env!("CARGO_BIN_EXE_c2tcp")))
            .arg(format!("DESTDIR={}", dest.path().display()))
            .arg("PREFIX=/usr/local")
            .output()
            .expect("running make");
        assert!(
            out.status.success(),
            "make {target}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    };
    make("install");
    let prefix = dest.path().join("usr/local");
    let bin = prefix.join("bin/c2tcp");
    for f in [
        "bin/c2tcp",
        "bin/webrtc-gcc",
        "include/c2tcp.h",
        "share/c2tcp/scenarios/c2tcp-default.toml",
        "share/c2tcp/schemes/cubic.toml",
        "share/c2tcp/traces/MANIFEST.tsv",
        "share/c2tcp/traces/mahimahi/Verizon-LTE-short.down",
    ] {
        assert!(prefix.join(f).is_file(), "{f} not installed");
    }

    if testkit::require_root(test) {
        let elsewhere = tempfile::tempdir().unwrap();
        let out = elsewhere.path().join("run");
        let result = Command::new(&bin)
            .current_dir(elsewhere.path())
            .env_remove("C2TCP_TRACES")
            .args([
                "run",
                "scenarios/c2tcp-default.toml",
                "--scheme",
                "cubic",
                "--downlink",
            ])
            .args([
                "Verizon-LTE-short.down",
                "--duration",
                "6",
                "--warmup",
                "1",
                "--out",
            ])
            .arg(&out)
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&result.stderr);
        assert!(
            result.status.success(),
            "installed c2tcp run failed: {text}"
        );
        let setup = common::json(&out.join("setup.json"));
        let trace = setup["downlink_trace"].as_str().unwrap();
        let installed = prefix.join("share/c2tcp/traces").canonicalize().unwrap();
        assert!(
            trace.starts_with(installed.to_str().unwrap()),
            "the run read {trace}"
        );
        assert!(
            common::metrics(&out)["aggregate"]["throughput_mbps"]
                .as_f64()
                .unwrap()
                > 0.5
        );
    }

    make("uninstall");
    let left: Vec<_> = walk(dest.path())
        .into_iter()
        .filter(|p| p.is_file())
        .collect();
    assert!(left.is_empty(), "make uninstall left {left:?}");
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(walk(&p));
        }
        out.push(p);
    }
    out
}
