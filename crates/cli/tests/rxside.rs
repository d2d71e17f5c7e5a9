// SPDX-License-Identifier: GPL-2.0-only
//! Receiver-side control end to end: `c2tcp run --scheme dfcsd` against
//! `--scheme cubic` on one scenario, real kernel TCP through the emulator
//! between two namespaces, the UE's receivers driven by rxctl.
mod common;

use std::path::{Path, PathBuf};

use common::{c2tcp, metrics};

/// The paper's short-vs-long experiment, scaled to run in seconds: the
/// paper's 1 Mbit/s with 50 packets (600 ms of queue) becomes 8 Mbit/s with
/// 400 packets (the same 600 ms), so the long flow's start-up under DFCSD
/// (one MSS per RTT down from the kernel's first window: ~20 s at 1 Mbit/s,
/// ~2.5 s at 8 Mbit/s) is over before the short flow arrives at 4 s instead
/// of 30 s.
const SCENARIO: &str = r#"
name = "rxside-test"
[link]
downlink = "constant:8"
delay_ms = 2
queue = "droptail:packets=400"
duration_s = 8
[[flows]]
scheme = "cubic"
label = "long"
[[flows]]
scheme = "cubic"
label = "short"
start_s = 4
size_bytes = 131072
"#;

fn flow<'a>(m: &'a serde_json::Value, name: &str) -> &'a serde_json::Value {
    m["flows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["name"] == name)
        .unwrap_or_else(|| panic!("no flow {name}"))
}

/// One run of the short-vs-long scenario with `scheme`'s receivers: the
/// short flow's completion time, the long flow's throughput, the run's
/// directory.
fn short_long(tmp: &Path, scheme: &str) -> (f64, f64, PathBuf) {
    let scenario = tmp.join("short-long.toml");
    std::fs::write(&scenario, SCENARIO).unwrap();
    let out = tmp.join(scheme);
    let (ok, text) = c2tcp(&[
        "run",
        scenario.to_str().unwrap(),
        "--scheme",
        scheme,
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(ok, "c2tcp run --scheme {scheme} failed: {text}");
    let m = metrics(&out);
    let fct = flow(&m, "short")["fct_s"]
        .as_f64()
        .unwrap_or_else(|| panic!("{scheme}: the short flow did not complete: {text}"));
    let long = flow(&m, "long")["throughput_mbps"].as_f64().unwrap();
    (fct, long, out)
}

/// With DFCSD receivers the short flow's completion time is clearly shorter
/// than with plain Cubic receivers (the paper: DFCSD best, plain TCP worst),
/// while the long flow keeps most of its throughput.
#[test]
fn dfcsd_shortens_a_short_flow_next_to_a_long_one() {
    if !testkit::require_root("dfcsd_shortens_a_short_flow_next_to_a_long_one") {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let mut fct = Vec::new();
    let mut long_mbps = Vec::new();
    for scheme in ["cubic", "dfcsd"] {
        let (short, long, out) = short_long(tmp.path(), scheme);
        fct.push(short);
        long_mbps.push(long);
        // Only the controlled run has the controller's record. The long
        // flow's allowance falls towards γ_min (2) only while the short flow
        // is registered beside it: the receivers were handed to one
        // controller. (The short flow itself may end before its first
        // decision: it lasts a few RTTs.)
        let csv = out.join("rxctl.csv");
        assert_eq!(csv.is_file(), scheme == "dfcsd", "{scheme}: rxctl.csv");
        if scheme == "dfcsd" {
            let text = std::fs::read_to_string(csv).unwrap();
            let gammas: Vec<(f64, f64)> = text
                .lines()
                .map(|l| l.split(',').collect::<Vec<_>>())
                .filter(|c| c[1] == "long")
                .map(|c| (c[3].parse().unwrap(), c[9].parse().unwrap()))
                .collect();
            assert!(
                gammas.len() >= 20,
                "{} decisions for the long flow",
                gammas.len()
            );
            assert!(
                gammas
                    .iter()
                    .filter(|(t, _)| *t < 4.0)
                    .all(|(_, g)| *g == 10.0),
                "alone it gets γ_max"
            );
            let low = gammas
                .iter()
                .filter(|(_, g)| *g < 5.0)
                .map(|(t, _)| *t)
                .fold(f64::MAX, f64::min);
            assert!(
                low >= 4.0 && low < 4.0 + fct[1],
                "the long flow's γ fell first at {low} s"
            );
        }
    }
    let (cubic, dfcsd) = (fct[0], fct[1]);
    eprintln!(
        "short-flow FCT: cubic {cubic:.3} s, dfcsd {dfcsd:.3} s; long flow {long_mbps:?} Mbit/s"
    );
    assert!(
        dfcsd < 0.5 * cubic,
        "DFCSD's short flow took {dfcsd:.3} s, Cubic's {cubic:.3} s"
    );
    assert!(
        long_mbps[1] > 0.7 * long_mbps[0],
        "the long flow under DFCSD: {long_mbps:?} Mbit/s"
    );
}

/// RTAC receivers (rxctl's RTAC, assembled from its description: RED on
/// the estimated backlog, AIMD on rwnd) against plain Cubic receivers on
/// the same scaled short-vs-long scenario: the long flow's standing queue
/// falls from the buffer's 400 packets to about RED's max_th, so the short
/// flow completes clearly sooner (the paper: RTAC second to DFCSD), and the
/// long flow keeps most of its throughput.
#[test]
fn rtac_shortens_a_short_flow_next_to_a_long_one() {
    if !testkit::require_root("rtac_shortens_a_short_flow_next_to_a_long_one") {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let mut fct = Vec::new();
    let mut long_mbps = Vec::new();
    for scheme in ["cubic", "rtac"] {
        let (short, long, out) = short_long(tmp.path(), scheme);
        fct.push(short);
        long_mbps.push(long);
        if scheme == "rtac" {
            // The controller's record: the rule's name, its mark
            // probability, the RTT source (as root the UE's packet tap
            // opens: the timestamp echo), and the long flow's backlog
            // estimate brought down from the kernel's window to RED's band.
            let text = std::fs::read_to_string(out.join("rxctl.csv")).unwrap();
            let rows: Vec<Vec<&str>> = text
                .lines()
                .skip(1)
                .map(|l| l.split(',').collect())
                .filter(|c: &Vec<&str>| c[1] == "long")
                .collect();
            assert!(rows.len() >= 20, "{} decisions: {text}", rows.len());
            assert!(rows.iter().all(|c| c[2] == "rtac"
                && c[15].parse::<f64>().is_ok()
                && c[16] == "timestamp_echo"));
            let late: Vec<f64> = rows
                .iter()
                .filter(|c| c[3].parse::<f64>().unwrap() > 2.0)
                .map(|c| c[10].parse().unwrap())
                .collect();
            let mean = late.iter().sum::<f64>() / late.len().max(1) as f64;
            assert!(
                !late.is_empty() && mean < 30.0,
                "the long flow's backlog after 2 s averages {mean:.1} packets"
            );
        }
    }
    let (cubic, rtac) = (fct[0], fct[1]);
    eprintln!(
        "short-flow FCT: cubic {cubic:.3} s, rtac {rtac:.3} s; long flow {long_mbps:?} Mbit/s"
    );
    assert!(
        rtac < 0.5 * cubic,
        "RTAC's short flow took {rtac:.3} s, Cubic's {cubic:.3} s"
    );
    assert!(
        long_mbps[1] > 0.7 * long_mbps[0],
        "the long flow under RTAC: {long_mbps:?} Mbit/s"
    );
}
