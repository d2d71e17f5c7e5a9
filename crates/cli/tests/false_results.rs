// SPDX-License-Identifier: GPL-2.0-only
//! Nothing false reads as a result (issue 29): each fault a new user found,
//! run as they ran it. A run that did not measure what it claims fails; a
//! report that left runs out says so in its exit status; a directory that
//! is not ours is not adopted; a flag out of range is refused.
mod common;

use std::path::Path;

use common::{c2tcp, json};

fn run_json(dir: &Path) -> serde_json::Value {
    json(&dir.join("run.json"))
}

/// `c2tcp run --scheme iperf3:nosuchcc` used to print "Done", exit 0 and
/// leave a `done` run.json at 0.00 Mbit/s: iperf3's error was only in
/// flows.csv. Now the run fails and run.json names the flow and the error.
#[test]
fn an_iperf3_flow_that_could_not_set_its_cc_fails_the_run() {
    if !testkit::require_root("an_iperf3_flow_that_could_not_set_its_cc_fails_the_run") {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("run");
    let (ok, text) = c2tcp(&[
        "run",
        "--scheme",
        "iperf3:nosuchcc",
        "--downlink",
        "constant:12",
        "--duration",
        "3",
        "-q",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(!ok, "the run passed: {text}");
    let info = run_json(&out);
    assert_eq!(info["status"], "failed", "{info}");
    let error = info["error"].as_str().unwrap_or_default();
    assert!(
        error.contains("flow 0") && error.contains("TCP_CONGESTION"),
        "run.json's error names neither the flow nor iperf3's complaint: {error}"
    );
    assert!(text.contains("TCP_CONGESTION"), "{text}");
}

/// A trace that offers nothing during the run: nothing could move, so the
/// run is done, but says so in a note instead of passing silently at
/// 0 Mbit/s; and the sender's connect gives up at the run's end instead of
/// holding it through every SYN retry (it took 60 s for a 3 s run).
#[test]
fn a_flow_over_a_link_in_outage_is_done_with_a_note_and_on_time() {
    if !testkit::require_root("a_flow_over_a_link_in_outage_is_done_with_a_note_and_on_time") {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    // One opportunity, a minute in: a 3 s run sees none.
    let trace = tmp.path().join("outage.down");
    std::fs::write(&trace, "60000\n").unwrap();
    let out = tmp.path().join("run");
    let started = std::time::Instant::now();
    let (ok, text) = c2tcp(&[
        "run",
        "--scheme",
        "cubic",
        "--downlink",
        trace.to_str().unwrap(),
        "--uplink",
        "constant:12",
        "--duration",
        "3",
        "-q",
        "--out",
        out.to_str().unwrap(),
    ]);
    let took = started.elapsed();
    assert!(ok, "{text}");
    let info = run_json(&out);
    assert_eq!(info["status"], "done", "{info}");
    let notes = info["notes"].to_string();
    assert!(notes.contains("offered no capacity"), "{info}");
    // 3 s of run plus set-up and teardown; the SYN retries took 60 s.
    assert!(took.as_secs_f64() < 30.0, "a 3 s run took {took:?}");
}

/// Ctrl-C during a run used to print a partial summary and a report path
/// whose report said the run was left out: now only where the partial
/// files are, and status 130.
#[test]
fn an_interrupted_run_prints_no_summary_or_report() {
    if !testkit::require_root("an_interrupted_run_prints_no_summary_or_report") {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("run");
    let child = std::process::Command::new(env!("CARGO_BIN_EXE_c2tcp"))
        .args(["run", "--scheme", "cubic", "--downlink", "constant:12"])
        .args(["--duration", "30", "--out", out.to_str().unwrap()])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Once the flow is under way (run.json exists from the start).
    let t = std::time::Instant::now();
    while !out.join("downlink.log").exists() && t.elapsed().as_secs() < 20 {
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    std::thread::sleep(std::time::Duration::from_secs(1));
    let pid = child.id().to_string();
    assert!(std::process::Command::new("kill")
        .args(["-INT", &pid])
        .status()
        .unwrap()
        .success());
    let done = child.wait_with_output().unwrap();
    let (stdout, stderr) = (
        String::from_utf8_lossy(&done.stdout),
        String::from_utf8_lossy(&done.stderr),
    );
    assert_eq!(done.status.code(), Some(130), "{stdout}{stderr}");
    assert!(
        !stdout.contains("report:") && !stdout.contains("Mbit/s"),
        "an interrupted run printed results: {stdout}"
    );
    assert!(stderr.contains("interrupted"), "{stderr}");
    assert_eq!(run_json(&out)["status"], "interrupted");
}

/// A run directory as the runner leaves it: run.json `status`, and a
/// metrics.json that is a real analysis of a small log (or `metrics`).
fn fake_run(dir: &Path, scheme: &str, status: results::RunStatus, metrics: Option<&str>) {
    use std::fmt::Write;
    std::fs::create_dir_all(dir).unwrap();
    let mut info = results::RunInfo::started(results::RunId::new(
        "s",
        scheme,
        "constant:12",
        Default::default(),
        1,
    ));
    match status {
        results::RunStatus::Done => info.finished(None),
        results::RunStatus::Failed => info.finished(Some("flow 0 failed: boom".into())),
        results::RunStatus::Interrupted => {}
    }
    info.write(dir).unwrap();
    let text = match metrics {
        Some(t) => t.to_string(),
        None => {
            let mut log = String::from(
                "# base timestamp: 1000\n# c2tcp-emu v1 direction=downlink opportunity_bytes=1500 \
                 delay_ms=10 queue=droptail:packets=100 loss=0\n",
            );
            for t in 0..=100 {
                writeln!(
                    log,
                    "{t}.000 # 1500\n{t}.000 + 1500 1\n{t}.000 - 1500 0.000 1"
                )
                .unwrap();
            }
            let path = dir.join("downlink.log");
            std::fs::write(&path, log).unwrap();
            let a = metrics::analyze(&path, &metrics::AnalysisConfig::default()).unwrap();
            serde_json::to_string(&a).unwrap()
        }
    };
    std::fs::write(dir.join("metrics.json"), text).unwrap();
}

/// `report` over runs whose files are garbage used to explain each and exit
/// 0 with empty tables; a `done` run whose metrics.json was `{"foo":1}`
/// counted at 0.00 Mbit/s. Now such runs are unreadable, named with the
/// field, and the report exits 1 unless told `--allow-skipped`.
#[test]
fn report_exits_non_zero_when_it_left_runs_out_for_errors() {
    let tmp = tempfile::tempdir().unwrap();
    let bench = tmp.path();
    let report = |args: &[&str]| {
        let mut all = vec!["report", bench.to_str().unwrap(), "--no-plots"];
        all.extend_from_slice(args);
        c2tcp(&all)
    };
    // Only a run whose metrics are not metrics: nothing reported.
    fake_run(
        &bench.join("foo"),
        "cubic",
        results::RunStatus::Done,
        Some("{\"foo\":1}"),
    );
    let (ok, text) = report(&[]);
    assert!(!ok, "{text}");
    assert!(
        text.contains("0 runs used") && text.contains("format"),
        "{text}"
    );
    let (ok, text) = report(&["--allow-skipped"]);
    assert!(!ok, "nothing was reported, yet: {text}");
    // Garbage, truncated and empty run.json files are unreadable too.
    for (name, body) in [
        ("garbage", "not json"),
        ("truncated", "{\"status\":\"do"),
        ("empty", ""),
    ] {
        let d = bench.join(name);
        std::fs::create_dir_all(&d).unwrap();
        std::fs::write(d.join("run.json"), body).unwrap();
    }
    fake_run(&bench.join("good"), "cubic", results::RunStatus::Done, None);
    fake_run(
        &bench.join("bad"),
        "cubic",
        results::RunStatus::Failed,
        None,
    );
    let (ok, text) = report(&[]);
    assert!(!ok, "runs were left out for errors, yet: {text}");
    assert!(
        text.contains("1 run used") && text.contains("1 failed") && text.contains("4 unreadable"),
        "{text}"
    );
    let (ok, text) = report(&["--allow-skipped"]);
    assert!(ok, "--allow-skipped: {text}");
}

/// `--jobs 0`, `--reps 0` (flag or `[bench] reps`) and `--reference nosuch`
/// used to be accepted without a word. Refused now, before anything exists,
/// with the same words for a flag and a scenario's table.
#[test]
fn out_of_range_flags_and_fields_are_refused_alike() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("bench");
    let o = out.to_str().unwrap();
    let refused = |args: &[&str], says: &[&str]| {
        let (ok, text) = c2tcp(args);
        assert!(!ok, "{args:?} was accepted: {text}");
        for s in says {
            assert!(text.contains(s), "{args:?}: `{s}` missing from: {text}");
        }
    };
    refused(
        &["bench", "--jobs", "0", "--out", o],
        &["--jobs", "1..=256"],
    );
    refused(
        &["bench", "--reps", "0", "--out", o],
        &["--reps: 0 repetitions: give 1 to 1000"],
    );
    refused(
        &["bench", "--reference", "nosuch", "--out", o],
        &["--reference", "unknown scheme `nosuch`"],
    );
    refused(
        &[
            "report",
            tmp.path().to_str().unwrap(),
            "--reference",
            "nosuch",
        ],
        &["unknown scheme `nosuch`"],
    );
    let sc = tmp.path().join("s.toml");
    std::fs::write(
        &sc,
        "[link]\ndownlink = \"constant:12\"\n[[flows]]\nscheme = \"cubic\"\n[bench]\nreps = 0\n",
    )
    .unwrap();
    refused(
        &["bench", sc.to_str().unwrap(), "--out", o],
        &["s.toml: [bench] reps: 0 repetitions: give 1 to 1000"],
    );
    assert!(!out.exists(), "a refused bench created its directory");
}

/// `c2tcp run --out DIR` over a directory that was not a run used to adopt
/// it: the user's files stayed, and so did an old metrics.json beside the
/// new run's run.json. Now it is refused (or, with --subdir, the run goes
/// into a fresh DIR/run-N), and a run of ours is replaced whole.
#[test]
fn a_run_never_mixes_with_a_directory_it_does_not_own() {
    if !testkit::require_root("a_run_never_mixes_with_a_directory_it_does_not_own") {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("mine");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("notes.txt"), "the user's").unwrap();
    std::fs::write(dir.join("metrics.json"), "{\"stale\":true}").unwrap();
    let run = |out: &Path, scheme: &str, extra: &[&str]| {
        let mut args = vec!["run", "--scheme", scheme, "--downlink", "constant:12"];
        args.extend_from_slice(&["--duration", "2", "-q", "--out", out.to_str().unwrap()]);
        args.extend_from_slice(extra);
        c2tcp(&args)
    };
    let (ok, text) = run(&dir, "cubic", &[]);
    assert!(
        !ok && text.contains("not a run of ours") && text.contains("notes.txt"),
        "{text}"
    );
    assert!(
        !dir.join("run.json").exists(),
        "the refused run wrote into it"
    );
    let (ok, text) = run(&dir, "cubic", &["--subdir"]);
    assert!(ok, "{text}");
    let sub = dir.join("run-1");
    assert_eq!(run_json(&sub)["status"], "done");
    assert_eq!(
        std::fs::read_to_string(dir.join("notes.txt")).unwrap(),
        "the user's"
    );
    // Our own run directory is replaced whole: nothing of the old one stays.
    std::fs::write(sub.join("stale.txt"), "old").unwrap();
    let (ok, text) = run(&sub, "iperf3:nosuchcc", &[]);
    assert!(!ok, "{text}");
    assert_eq!(run_json(&sub)["status"], "failed");
    assert!(
        !sub.join("stale.txt").exists(),
        "an earlier run's file stayed"
    );
}
