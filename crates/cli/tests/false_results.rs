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
