// SPDX-License-Identifier: GPL-2.0-only
//! `c2tcp trace capture` (Saturator) recording links our emulator replays:
//! both directions at once, ACKs over a second path (a veth, the paper's
//! feedback phone); each recovered trace has the original's mean rate
//! (within 3 %) and its steps where they are.
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use emu::{synth, DirectionConfig, Emulator, EmulatorConfig, Trace};
use netns::Netns;

const BIN: &str = env!("CARGO_BIN_EXE_c2tcp");
const RECORD_S: u64 = 12;
const DELAY_MS: u64 = 20;

fn step_trace(path: &Path, steps: &str) -> Vec<u64> {
    let schedule = synth::parse_schedule("steps", steps).unwrap();
    let opp = synth::from_rate(&schedule, RECORD_S * 1000).unwrap();
    synth::write(path, &opp).unwrap();
    opp
}

fn spawn(ns: &Netns, args: &[&str]) -> Child {
    let mut cmd: Command = ns.command(BIN);
    cmd.args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    cmd.spawn().unwrap()
}

fn finish(child: Child, what: &str) -> String {
    let out = child.wait_with_output().unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "{what}: {text}");
    text
}

/// Opportunities per `bin_ms` of `opp` (ms timestamps, looping with
/// `period`) over [from, from + len).
fn bins(opp: &[u64], period: u64, from: u64, len: u64, bin_ms: u64) -> Vec<f64> {
    let mut v = vec![0.0; (len / bin_ms) as usize];
    for &t in opp {
        let rel = (t % period + period - from % period) % period;
        // The window may be longer than one period only if len > period.
        if rel < len && ((rel / bin_ms) as usize) < v.len() {
            v[(rel / bin_ms) as usize] += 1.0;
        }
    }
    v
}

/// Compares a recovered trace with the original, lined up through the
/// receiver's CLOCK_MONOTONIC start and the emulator's.
fn check(
    name: &str,
    original: &[u64],
    recovered_path: &Path,
    summary: &serde_json::Value,
    start_us: u64,
) {
    let period = *original.last().unwrap();
    let recovered = Trace::load(recovered_path).unwrap().opportunities;
    let t0 = summary["start_monotonic_us"].as_u64().unwrap();
    // Arrival = departure from the link + the one-way delay.
    let offset = (t0 - start_us) / 1000 - DELAY_MS;
    let len = (RECORD_S - 1) * 1000; // the record's last second may be cut short
    let bin = 500;
    let got = bins(&recovered, u64::MAX, 0, len, bin);
    let want = bins(original, period, offset, len, bin);
    let (g, w): (f64, f64) = (got.iter().sum(), want.iter().sum());
    eprintln!(
        "{name}: recovered/original opportunities {g}/{w} = {:.4} (offset {offset} ms)",
        g / w
    );
    assert!(
        (g / w - 1.0).abs() <= 0.03,
        "{name}: recovered {g} opportunities over {len} ms, the trace has {w} (offset {offset} ms)"
    );
    // Away from the steps (a bin and its neighbours at one rate), each half
    // second is within 10 % of the original: the steps are where they are.
    for i in 1..got.len() - 1 {
        if want[i - 1] == want[i] && want[i + 1] == want[i] && want[i] > 0.0 {
            assert!(
                (got[i] / want[i] - 1.0).abs() <= 0.10,
                "{name}: bin {i} ({} ms): recovered {} vs {} (offset {offset} ms)\n got {got:?}\nwant {want:?}",
                i as u64 * bin,
                got[i],
                want[i]
            );
        }
    }
}

#[test]
fn trace_capture_recovers_step_traces_both_ways_at_once() {
    let test = "trace_capture_recovers_step_traces_both_ways_at_once";
    if !testkit::require_root(test) {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let down = step_trace(&dir.join("down"), "0:12,4:3,8:8");
    let up = step_trace(&dir.join("up"), "0:4,6:9");

    let server = Netns::new("sat-server").unwrap();
    let ue = Netns::new("sat-ue").unwrap();
    // The feedback path: a veth beside the emulated link.
    netns::veth_pair(&server, "satfb0", &ue, "satfb1").unwrap();
    server
        .ip(&["addr", "add", "10.79.0.1/30", "dev", "satfb0"])
        .unwrap();
    ue.ip(&["addr", "add", "10.79.0.2/30", "dev", "satfb1"])
        .unwrap();

    let mut cfg = EmulatorConfig::new(
        DirectionConfig::new(Trace::load(&dir.join("down")).unwrap()),
        DirectionConfig::new(Trace::load(&dir.join("up")).unwrap()),
    );
    cfg.delay_us = DELAY_MS * 1000;
    let emu = Emulator::start(cfg, &server, &ue).unwrap();
    let (outside, inside) = (emu.outside_addr(), emu.inside_addr());
    let record = RECORD_S.to_string();
    let send_for = (RECORD_S + 8).to_string();
    let path = |n: &str| dir.join(n).to_str().unwrap().to_string();
    let recv = |ns: &Netns, listen: String, fb: &str, out: &str| {
        spawn(
            ns,
            &[
                "trace",
                "capture",
                "recv",
                "-q",
                "--listen",
                &listen,
                "--feedback-to",
                fb,
                "--duration",
                &record,
                "-o",
                &path(out),
                "--summary",
                &path(&format!("{out}.json")),
            ],
        )
    };
    let down_recv = recv(&ue, format!("{inside}:9000"), "10.79.0.1:9001", "down.cap");
    let up_recv = recv(
        &server,
        format!("{outside}:9100"),
        "10.79.0.2:9101",
        "up.cap",
    );
    std::thread::sleep(Duration::from_millis(200));
    let send = |ns: &Netns, to: String, fb: &str| {
        spawn(
            ns,
            &[
                "trace",
                "capture",
                "send",
                "-q",
                "--to",
                &to,
                "--feedback-listen",
                fb,
                "--duration",
                &send_for,
            ],
        )
    };
    let down_send = send(&server, format!("{inside}:9000"), "10.79.0.1:9001");
    let up_send = send(&ue, format!("{outside}:9100"), "10.79.0.2:9101");

    let down_text = finish(down_recv, "downlink receiver");
    let up_text = finish(up_recv, "uplink receiver");
    let start_us = emu.start_us();
    // The senders stop on their own a few seconds later; no need to wait.
    for mut s in [down_send, up_send] {
        let _ = s.kill();
        let _ = s.wait();
    }
    emu.stop().unwrap();

    for (name, original, text) in [("downlink", &down, &down_text), ("uplink", &up, &up_text)] {
        let summary: serde_json::Value = serde_json::from_str(
            &std::fs::read_to_string(dir.join(format!("{}.cap.json", &name[..name.len() - 4])))
                .unwrap(),
        )
        .unwrap_or_else(|e| panic!("{name}: {e}: {text}"));
        assert_eq!(summary["ended_by"], "duration", "{name}: {text}");
        check(
            name,
            original,
            &dir.join(format!("{}.cap", &name[..name.len() - 4])),
            &summary,
            start_us,
        );
    }
}
