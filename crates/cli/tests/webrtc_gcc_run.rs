// SPDX-License-Identifier: GPL-2.0-only
//! `webrtc-gcc` as a scheme of the experiment runner: pion's Google
//! Congestion Control (tools/webrtc-gcc) through the real emulator, adapting
//! to a link whose rate drops.
mod common;

use std::process::Command;

use common::{
    assert_sized_flow_refused, assert_udp_endpoints_reported, c2tcp, json, webrtc_gcc_built,
};
use serde_json::Value;

fn num(v: &Value, key: &str) -> f64 {
    v[key]
        .as_f64()
        .unwrap_or_else(|| panic!("no number `{key}` in {v}"))
}

/// Mean of a timeseries.csv column over [from, to) seconds.
fn mean_over(csv: &str, column: &str, from: f64, to: f64) -> f64 {
    let mut lines = csv.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let col = header.iter().position(|h| *h == column).unwrap();
    let vals: Vec<f64> = lines
        .map(|l| l.split(',').collect::<Vec<_>>())
        .filter(|f| {
            let t: f64 = f[0].parse().unwrap();
            (from..to).contains(&t)
        })
        .map(|f| f[col].parse().unwrap())
        .collect();
    assert!(!vals.is_empty(), "no samples of {column} in [{from}, {to})");
    vals.iter().sum::<f64>() / vals.len() as f64
}

/// A downlink of 4 Mbit/s that drops to 0.6 Mbit/s at 12 s (a synthetic
/// step trace), 20 ms each way, a 100-packet droptail queue. GCC climbs
/// from 1.5 Mbit/s to its 2.5 Mbit/s ceiling on the fast link; after the
/// drop the queue grows, pion's delay-based detector sees overuse and GCC
/// cuts its rate to about what is received. Measured at the emulator's
/// bottleneck (the rate packets arrive at it = the video's sending rate):
/// after the drop it is below half of what it was and near the new link
/// rate; without adaptation it would stay at 2.5 Mbit/s and the queue
/// would overflow. (Measured here: ~2.5 -> ~0.55 Mbit/s.)
#[test]
fn webrtc_gcc_slows_down_when_the_link_rate_drops() {
    let test = "webrtc_gcc_slows_down_when_the_link_rate_drops";
    if !testkit::require_root(test) {
        return;
    }
    if webrtc_gcc_built(test).is_none() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let steps = tmp.path().join("steps.down");
    let (ok, text) = c2tcp(&[
        "trace",
        "synth",
        "-o",
        steps.to_str().unwrap(),
        "--steps",
        "0:4,12:0.6",
        "--duration",
        "24",
    ]);
    assert!(ok, "trace synth: {text}");
    let scenario = tmp.path().join("step.toml");
    std::fs::write(
        &scenario,
        format!(
            "name = \"gcc-step\"\n[link]\ndownlink = \"{}\"\nuplink = \"constant:12\"\n\
             delay_ms = 20\nqueue = \"droptail:packets=100\"\nduration_s = 24\nwarmup_s = 0\n\
             [[flows]]\nscheme = \"webrtc-gcc\"\ninitial_kbps = 1500\n",
            steps.display()
        ),
    )
    .unwrap();
    let out = tmp.path().join("run");
    let (ok, text) = c2tcp(&[
        "run",
        scenario.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "-q",
    ]);
    assert!(ok, "c2tcp run: {text}");
    assert_eq!(json(&out.join("run.json"))["status"], "done");

    let series = std::fs::read_to_string(out.join("timeseries.csv")).unwrap();
    let (fast, slow) = (
        mean_over(&series, "capacity_mbps", 6.0, 11.5),
        mean_over(&series, "capacity_mbps", 16.0, 23.5),
    );
    assert!(
        fast > 3.5 && slow < 0.7,
        "the step is not where it was put: {fast} -> {slow}"
    );
    let before = mean_over(&series, "ingress_mbps", 6.0, 11.5);
    let after = mean_over(&series, "ingress_mbps", 16.0, 23.5);
    eprintln!("sending rate at the bottleneck: {before:.2} -> {after:.2} Mbit/s (link {fast:.2} -> {slow:.2})");
    assert!(
        before > 1.5,
        "GCC never climbed on the fast link: {before} Mbit/s"
    );
    assert!(
        after < 0.5 * before,
        "GCC did not slow down: {before} -> {after} Mbit/s"
    );
    assert!(
        after < 1.5 * slow,
        "GCC stayed far above the new link rate: {after} vs {slow} Mbit/s"
    );

    // pion's own target says the same, and feedback flowed all along.
    let flow = &json(&out.join("flows.json"))[0];
    assert!(flow["error"].is_null(), "{flow}");
    let w = &flow["webrtc_gcc"];
    assert_eq!(w["sender_ended_by"].as_str(), Some("duration"), "{w}");
    assert!(num(&w["target_kbps"], "max") >= 2000.0, "{w}");
    assert!(
        num(w, "final_target_kbps") < 0.5 * num(&w["target_kbps"], "max"),
        "{w}"
    );
    // One report per 100 ms.
    assert!(num(w, "feedback_received") > 0.5 * 24.0 / 0.1, "{w}");
    assert!(num(w, "frames_sent") > 0.9 * 24.0 * 30.0, "{w}");
    assert_udp_endpoints_reported(&out, "webrtc-gcc");
}

/// A video call has no size: a sized flow is refused by name.
#[test]
fn a_sized_webrtc_gcc_flow_is_refused() {
    assert_sized_flow_refused("webrtc-gcc", "a_sized_webrtc_gcc_flow_is_refused");
}

/// The endpoints refuse bad arguments by name.
#[test]
fn webrtc_gcc_send_refuses_a_ceiling_below_its_start() {
    let test = "webrtc_gcc_send_refuses_a_ceiling_below_its_start";
    let Some(exe) = webrtc_gcc_built(test) else {
        return;
    };
    let out = Command::new(exe)
        .args([
            "send",
            "--connect",
            "127.0.0.1:9",
            "--initial-kbps",
            "900",
            "--max-kbps",
            "800",
        ])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let text = String::from_utf8_lossy(&out.stderr);
    assert!(text.contains("--max-kbps"), "{text}");
}
