// SPDX-License-Identifier: GPL-2.0-only
//! Copa and BBRv3 (issue 43) as a user runs them: `c2tcp run` loads the BPF
//! congestion control into the real kernel, real TCP crosses the real
//! emulator, and each is held to what its design promises, beside Cubic on
//! the same link:
//!
//! - Copa on a fixed 24 Mbit/s link, 40 ms RTT, 1000-packet (deep) buffer:
//!   the paper's model (NSDI'18, section 2.1) has a lone flow settle where
//!   d_q = 1/(delta mu), a standing queue of 1/delta = 2 packets at
//!   delta = 0.5, the window oscillating around it (the queue between 0
//!   and about 2.5/delta = 5 packets, section 2.2). We require a mean queue
//!   of at most 10 packets (5 ms; measured 2.6 ms) at >= 0.9 of the
//!   link, where Cubic fills the buffer (hundreds of ms).
//! - BBRv3 with a 1-BDP buffer (80 packets): loss under 2 % at >= 0.9
//!   utilisation; beside one Cubic flow on that link for 60 s, the two
//!   rates within 3x of each other.
//!
//! The four runs go at once (each its own namespaces and emulator), so the
//! test takes the 60 s of the longest and a few seconds more.
mod common;

use std::path::{Path, PathBuf};

use common::{c2tcp, metrics, serial};

/// 24 Mbit/s of 1500-byte packets, per second.
const PKTS_PER_S: f64 = 24e6 / 8.0 / 1500.0;

fn scenario(dir: &Path, name: &str, queue_pkts: u32, duration_s: u32, flows: &str) -> PathBuf {
    let path = dir.join(format!("{name}.toml"));
    std::fs::write(
        &path,
        format!(
            "name = \"{name}\"\n[link]\ndownlink = \"constant:24\"\nuplink = \"constant:24\"\ndelay_ms = 20\n\
             queue = \"droptail:packets={queue_pkts}\"\nduration_s = {duration_s}\nwarmup_s = 4\n{flows}"
        ),
    )
    .unwrap();
    path
}

fn flow(scheme: &str) -> String {
    format!("[[flows]]\nscheme = \"{scheme}\"\nlabel = \"{scheme}\"\nkeep_scheme = true\n")
}

/// Runs a scenario; its metrics and the emulator's p99 scheduling error (µs).
fn run(scenario: &Path, out: &Path) -> (serde_json::Value, u64) {
    let (ok, text) = c2tcp(&[
        "run",
        scenario.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "-q",
    ]);
    assert!(ok, "c2tcp run {}: {text}", scenario.display());
    let setup = common::json(&out.join("setup.json"));
    let sched = setup["emulator"]["downlink"]["sched_error"]["p99_us"]
        .as_u64()
        .unwrap_or(0);
    (metrics(out), sched)
}

fn f(m: &serde_json::Value, key: &str) -> f64 {
    m[key]
        .as_f64()
        .unwrap_or_else(|| panic!("no {key} in {m}"))
}

fn flow_of<'a>(m: &'a serde_json::Value, label: &str) -> &'a serde_json::Value {
    m["flows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|fl| fl["label"] == label || fl["name"] == label)
        .unwrap_or_else(|| panic!("no flow {label} in {}", m["flows"]))
}

#[test]
fn copa_holds_a_short_queue_and_bbr3_fills_a_bdp_buffer_without_loss() {
    let test = "copa_holds_a_short_queue_and_bbr3_fills_a_bdp_buffer_without_loss";
    if !testkit::require_root(test) {
        return;
    }
    let _serial = serial();
    let before = testkit::Registrations::now();
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    // RTT 40 ms: one BDP of 24 Mbit/s is 80 packets.
    let runs = [
        ("copa-deep", scenario(d, "copa-deep", 1000, 16, &flow("copa"))),
        ("cubic-deep", scenario(d, "cubic-deep", 1000, 16, &flow("cubic"))),
        ("bbr3-bdp", scenario(d, "bbr3-bdp", 80, 16, &flow("bbr3"))),
        (
            "bbr3-cubic",
            scenario(d, "bbr3-cubic", 80, 64, &(flow("bbr3") + &flow("cubic"))),
        ),
    ];
    let results: Vec<(serde_json::Value, u64)> = std::thread::scope(|s| {
        let handles: Vec<_> = runs
            .iter()
            .map(|(name, path)| {
                let out = d.join(name);
                s.spawn(move || run(path, &out))
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let sched: Vec<u64> = results.iter().map(|r| r.1).collect();
    let note = format!("(emulator p99 scheduling error per run, µs: {sched:?})");
    let agg = |i: usize| &results[i].0["aggregate"];

    // Copa: a few packets of queue at the link's rate; Cubic fills the buffer.
    let (copa, cubic) = (agg(0), agg(1));
    let copa_q_pkts = f(copa, "avg_queue_delay_ms") / 1000.0 * PKTS_PER_S;
    eprintln!(
        "copa: {:.2} Mbit/s, mean queue {:.2} ms ({copa_q_pkts:.1} packets), p95 {:.2} ms; cubic: {:.2} Mbit/s, {:.1} ms {note}",
        f(copa, "throughput_mbps"),
        f(copa, "avg_queue_delay_ms"),
        f(copa, "p95_queue_delay_ms"),
        f(cubic, "throughput_mbps"),
        f(cubic, "avg_queue_delay_ms"),
    );
    assert!(
        copa_q_pkts <= 10.0,
        "Copa's mean queue {copa_q_pkts:.1} packets, the model's 2 (at most 5) {note}"
    );
    assert!(
        f(copa, "utilization") >= 0.9,
        "Copa used {:.3} of the link {note}",
        f(copa, "utilization")
    );
    assert!(
        f(copa, "avg_queue_delay_ms") < 0.1 * f(cubic, "avg_queue_delay_ms"),
        "Copa's queue {:.1} ms is not a tenth of Cubic's {:.1} ms {note}",
        f(copa, "avg_queue_delay_ms"),
        f(cubic, "avg_queue_delay_ms")
    );

    // BBRv3 alone on a 1-BDP buffer.
    let bbr3 = agg(2);
    eprintln!(
        "bbr3 (1 BDP): {:.2} Mbit/s, utilisation {:.3}, loss {:.4}, mean queue {:.2} ms",
        f(bbr3, "throughput_mbps"),
        f(bbr3, "utilization"),
        f(bbr3, "loss_rate"),
        f(bbr3, "avg_queue_delay_ms")
    );
    assert!(
        f(bbr3, "loss_rate") < 0.02,
        "BBRv3 lost {:.4} {note}",
        f(bbr3, "loss_rate")
    );
    assert!(
        f(bbr3, "utilization") >= 0.9,
        "BBRv3 used {:.3} of the link {note}",
        f(bbr3, "utilization")
    );

    // BBRv3 beside one Cubic flow for 60 s: neither starves the other.
    let both = &results[3].0;
    let (b, c) = (
        f(flow_of(both, "bbr3"), "throughput_mbps"),
        f(flow_of(both, "cubic"), "throughput_mbps"),
    );
    eprintln!("bbr3 beside cubic (1 BDP, 60 s): {b:.2} vs {c:.2} Mbit/s");
    assert!(
        b > 0.0 && c > 0.0 && b.max(c) <= 3.0 * b.min(c),
        "BBRv3 {b:.2} Mbit/s vs Cubic {c:.2}: not within 3x {note}"
    );
    assert!(
        b + c >= 0.9 * 24.0,
        "together {:.2} Mbit/s of 24 {note}",
        b + c
    );

    // Each run loaded what it needed and unloaded it as it ended.
    before.assert_left_as_found(&["copa", "bbr3"]);
}
