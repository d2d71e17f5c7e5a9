// SPDX-License-Identifier: GPL-2.0-only
//! LEDBAT and Compound TCP, the BPF peers of Sprout's evaluation: they pass
//! the verifier, register, carry real TCP, unload without a trace; through
//! the emulator LEDBAT holds its queueing delay near its 100 ms target on a
//! deep buffer and yields to Cubic. (Compound's delay window shrinking as the
//! queue grows is bpf/tests/ledbat_compound_logic_test.c's, on the logic the
//! BPF program compiles.)
mod common;

use std::path::Path;
use std::time::Duration;

use common::{allowed, c2tcp, metrics, registered, serial, transfer_with, Loaded};

const CCS: [&str; 2] = ["ledbat", "compound"];

#[test]
fn ledbat_and_compound_load_carry_traffic_and_unload() {
    if !testkit::require_root("ledbat_and_compound_load_carry_traffic_and_unload") {
        return;
    }
    let _serial = serial();
    let before = testkit::Registrations::now();
    {
        let _loaded = Loaded::new(&CCS);
        for cc in CCS {
            assert!(
                registered(cc) && allowed(cc),
                "{cc} not selectable after load"
            );
            let (sent, received, got) = transfer_with(cc, Duration::from_millis(700));
            assert_eq!(got, cc);
            assert!(sent > 1_000_000, "{cc} moved only {sent} bytes");
            assert_eq!(sent, received, "{cc}");
        }
    }
    // Unregistered, unpinned and no longer selectable, unless a user had
    // loaded them before the test.
    before.assert_left_as_found(&CCS);
}

/// A constant 12 Mbit/s link, 10 ms each way, a 500-packet (~0.5 s)
/// droptail buffer: deep enough that only the congestion control decides the
/// queue. `flows` is the scenario's [[flows]] tables.
fn scenario(dir: &Path, name: &str, flows: &str) -> std::path::PathBuf {
    let path = dir.join(format!("{name}.toml"));
    std::fs::write(
        &path,
        format!(
            "name = \"{name}\"\n[link]\ndownlink = \"constant:12\"\nuplink = \"constant:12\"\ndelay_ms = 10\n\
             queue = \"droptail:packets=500\"\nduration_s = 16\nwarmup_s = 8\n{flows}"
        ),
    )
    .unwrap();
    path
}

fn run(dir: &Path, scenario: &Path, scheme: Option<&str>) -> serde_json::Value {
    let out = dir.join(scenario.file_stem().unwrap());
    let before = testkit::Registrations::now();
    let mut args = vec![
        "run",
        scenario.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "-q",
    ];
    if let Some(s) = scheme {
        args.extend(["--scheme", s]);
    }
    let (ok, text) = c2tcp(&args);
    assert!(ok, "c2tcp run {}: {text}", scenario.display());
    // The run unloads what it loaded (one a user loaded before stays).
    before.assert_left_as_found(&["ledbat"]);
    metrics(&out)
}

/// LEDBAT alone settles near its 100 ms target where Cubic fills the buffer,
/// at Cubic's throughput; LEDBAT beside Cubic gets out of its way.
#[test]
fn ledbat_holds_its_target_and_yields_to_cubic() {
    let test = "ledbat_holds_its_target_and_yields_to_cubic";
    if !testkit::require_root(test) {
        return;
    }
    let _serial = serial();
    let tmp = tempfile::tempdir().unwrap();
    let one = "[[flows]]\nscheme = \"cubic\"\n";
    let cubic = run(tmp.path(), &scenario(tmp.path(), "cubic", one), None);
    let ledbat = run(
        tmp.path(),
        &scenario(tmp.path(), "ledbat", one),
        Some("ledbat"),
    );
    let q = |m: &serde_json::Value| m["aggregate"]["avg_queue_delay_ms"].as_f64().unwrap();
    let t = |m: &serde_json::Value| m["aggregate"]["throughput_mbps"].as_f64().unwrap();
    assert!(
        (50.0..=150.0).contains(&q(&ledbat)),
        "LEDBAT's queueing {:.1} ms, want near its 100 ms target (Cubic {:.1} ms)",
        q(&ledbat),
        q(&cubic)
    );
    assert!(
        q(&ledbat) < 0.5 * q(&cubic),
        "LEDBAT queueing {:.1} ms vs Cubic {:.1} ms",
        q(&ledbat),
        q(&cubic)
    );
    assert!(
        t(&ledbat) >= 0.9 * t(&cubic),
        "LEDBAT {:.2} Mbit/s vs Cubic {:.2}",
        t(&ledbat),
        t(&cubic)
    );

    // Both from 0 s, the same link: a scavenger leaves the link to Cubic.
    let both = "[[flows]]\nscheme = \"cubic\"\nlabel = \"cubic\"\n\
                [[flows]]\nscheme = \"ledbat\"\nlabel = \"ledbat\"\n";
    let shared = run(tmp.path(), &scenario(tmp.path(), "shared", both), None);
    let flows = shared["flows"].as_array().unwrap();
    let rate = |label: &str| {
        flows
            .iter()
            .find(|f| f["label"] == label)
            .unwrap_or_else(|| panic!("no flow {label}: {shared}"))["throughput_mbps"]
            .as_f64()
            .unwrap()
    };
    assert!(
        rate("ledbat") < 0.25 * rate("cubic"),
        "LEDBAT {:.2} Mbit/s beside Cubic {:.2}: it should yield",
        rate("ledbat"),
        rate("cubic")
    );
}
