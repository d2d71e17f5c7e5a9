// SPDX-License-Identifier: GPL-2.0-only
//! ECN through the emulator, end to end: ABC (its marking queue on the
//! downlink, its BPF sender and echoing receiver) against Cubic on a real
//! trace, and Cubic over CoDel with ECN and over fq_codel, whose marks must
//! show in the log and in metrics.json.
mod common;

use std::path::Path;

use common::{c2tcp, metrics, serial};

/// One flow of `scheme`; the run's aggregate downlink metrics.
fn run(dir: &Path, scheme: &str, downlink: &str, seconds: &str) -> serde_json::Value {
    let out = dir.join(scheme);
    #[rustfmt::skip]
    let (ok, text) = c2tcp(&[
        "run", "--scheme", scheme, "--downlink", downlink, "--delay", "10",
        "--queue", "droptail:packets=100", "--duration", seconds, "--warmup", "2",
        "--out", out.to_str().unwrap(), "-q",
    ]);
    assert!(ok, "c2tcp run --scheme {scheme}: {text}");
    metrics(&out)["aggregate"].clone()
}

/// Departures marked CE in a run's downlink log.
fn ce_lines(dir: &Path, scheme: &str) -> usize {
    let log = std::fs::read_to_string(dir.join(scheme).join("downlink.log")).unwrap();
    log.lines()
        .filter(|l| l.split_whitespace().nth(1) == Some("-") && l.ends_with(" ce"))
        .count()
}

fn num(m: &serde_json::Value, key: &str) -> f64 {
    m[key]
        .as_f64()
        .unwrap_or_else(|| panic!("{key} missing: {m}"))
}

/// The claim, on the same trace in the same test: ABC keeps its
/// mean queueing delay at most 0.3x Cubic's at 0.8x its throughput or more.
#[test]
fn abc_keeps_the_queue_short_at_nearly_cubics_throughput() {
    let test = "abc_keeps_the_queue_short_at_nearly_cubics_throughput";
    if !testkit::require_root(test) {
        return;
    }
    let _serial = serial();
    let tmp = tempfile::tempdir().unwrap();
    let before = testkit::Registrations::now();
    let cubic = run(tmp.path(), "cubic", "Verizon-LTE-short.down", "20");
    let abc = run(tmp.path(), "abc", "Verizon-LTE-short.down", "20");
    // The run unloads what it loaded (abc, if a user had not loaded it).
    before.assert_left_as_found(&["abc"]);
    let (qa, qc) = (
        num(&abc, "avg_queue_delay_ms"),
        num(&cubic, "avg_queue_delay_ms"),
    );
    let (ta, tc) = (num(&abc, "throughput_mbps"), num(&cubic, "throughput_mbps"));
    assert!(
        qa <= 0.3 * qc,
        "ABC queueing {qa:.1} ms vs Cubic {qc:.1} ms"
    );
    assert!(ta >= 0.8 * tc, "ABC {ta:.2} Mbit/s vs Cubic {tc:.2}");
    // Brakes are CE marks: counted in metrics.json and logged. Neither all
    // nor none of the packets: the marks steer, they do not just signal.
    let (marks, packets) = (num(&abc, "ce_marks"), num(&abc, "packets"));
    assert!(
        marks > 0.05 * packets && marks < 0.95 * packets,
        "{marks} of {packets}"
    );
    assert!(
        ce_lines(tmp.path(), "abc") as f64 >= marks,
        "the log has every mark"
    );
    assert_eq!(num(&cubic, "ce_marks"), 0.0, "droptail never marks");
}

/// Cubic over CoDel with ECN and over fq_codel: the hosts negotiate ECN,
/// CoDel marks instead of dropping, and the marks reach the log and
/// metrics.json; the sender slows down on them (no CoDel drop, a short queue).
#[test]
fn codel_and_fq_codel_mark_ect_packets_instead_of_dropping() {
    let test = "codel_and_fq_codel_mark_ect_packets_instead_of_dropping";
    if !testkit::require_root(test) {
        return;
    }
    let _serial = serial();
    let tmp = tempfile::tempdir().unwrap();
    for scheme in ["cubic-codel-ecn", "cubic-fq-codel"] {
        let m = run(tmp.path(), scheme, "constant:12", "10");
        let marks = num(&m, "ce_marks");
        assert!(marks > 0.0, "{scheme}: no CE marks: {m}");
        assert!(
            ce_lines(tmp.path(), scheme) as f64 >= marks,
            "{scheme}: marks missing from the log"
        );
        assert!(
            m["drops"].get("codel").is_none(),
            "{scheme}: CoDel dropped ECT packets: {m}"
        );
        assert!(num(&m, "utilization") > 0.9, "{scheme}: {m}");
        assert!(
            num(&m, "avg_queue_delay_ms") < 20.0,
            "{scheme}: CoDel's 5 ms target kept: {m}"
        );
        let header = std::fs::read_to_string(tmp.path().join(scheme).join("downlink.log")).unwrap();
        let queue = if scheme == "cubic-codel-ecn" {
            "queue=codel:target=5,interval=100,ecn=1"
        } else {
            "queue=fq_codel:"
        };
        assert!(
            header.lines().take(3).any(|l| l.contains(queue)),
            "{scheme}: header names the queue"
        );
    }
}
