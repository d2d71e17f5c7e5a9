// SPDX-License-Identifier: GPL-2.0-only
//! Westwood+ and Vegas, the BPF peers of C2TCP: they pass the verifier,
//! register, carry real TCP between namespaces, and unload without a trace.
mod common;

use std::path::Path;
use std::time::Duration;

use common::{allowed, c2tcp, metrics, registered, serial, transfer_with, Loaded};

#[test]
fn westwood_and_vegas_load_as_a_subset_carry_traffic_and_unload() {
    if !testkit::require_root("westwood_and_vegas_load_as_a_subset_carry_traffic_and_unload") {
        return;
    }
    let _serial = serial();
    let before = testkit::Registrations::now();
    {
        let _loaded = Loaded::new(&["westwood", "vegas"]);
        for cc in ["westwood", "vegas"] {
            assert!(
                registered(cc) && allowed(cc),
                "{cc} not selectable after load"
            );
        }
        // Loading a subset must not load the others.
        before.assert_none_new(&["c2tcp"]);
        for cc in ["westwood", "vegas"] {
            let (sent, received, got) = transfer_with(cc, Duration::from_millis(700));
            assert_eq!(got, cc);
            assert!(sent > 1_000_000, "{cc} moved only {sent} bytes");
            assert_eq!(sent, received, "{cc}");
        }
        let (ok, out) = c2tcp(&["status", "--json"]);
        assert!(ok, "{out}");
        let st: serde_json::Value = serde_json::from_str(&out).unwrap();
        for cc in ["westwood", "vegas"] {
            let s = st["ccs"]
                .as_array()
                .unwrap()
                .iter()
                .find(|c| c["name"] == cc)
                .unwrap();
            assert_eq!(s["pinned"], true, "{s}");
            assert!(!s["programs"].as_array().unwrap().is_empty(), "{s}");
        }
    }
    // Unregistered, unpinned and no longer selectable, unless a user had
    // loaded them before the test.
    before.assert_left_as_found(&["westwood", "vegas"]);
}

#[test]
fn an_unknown_name_is_refused_with_the_known_ones() {
    if !testkit::require_root("an_unknown_name_is_refused_with_the_known_ones") {
        return;
    }
    let (ok, out) = c2tcp(&["load", "hybla"]);
    assert!(!ok);
    assert!(
        out.contains("unknown congestion control `hybla`")
            && out.contains("c2tcp, westwood, vegas"),
        "{out}"
    );
}

fn run_scheme(dir: &Path, scenario: &Path, scheme: &str) -> serde_json::Value {
    let out = dir.join(scheme);
    let before = testkit::Registrations::now();
    let (ok, text) = c2tcp(&[
        "run",
        scenario.to_str().unwrap(),
        "--scheme",
        scheme,
        "--out",
        out.to_str().unwrap(),
        "-q",
    ]);
    assert!(ok, "c2tcp run --scheme {scheme}: {text}");
    // A run loads the BPF congestion control it needs and unloads it as it
    // ends (one a user loaded before stays).
    if ["westwood", "vegas"].contains(&scheme) {
        before.assert_left_as_found(&[scheme]);
    }
    metrics(&out)["aggregate"].clone()
}

/// Through the emulator on a constant 12 Mbit/s link with a 100-packet
/// droptail queue: Vegas keeps a few packets queued where Cubic fills the
/// buffer, at (nearly) the same throughput; with 1% random loss on the
/// downlink, Westwood+'s bandwidth-based ssthresh beats Reno's halving.
#[test]
fn vegas_keeps_the_queue_short_and_westwood_shrugs_off_random_loss() {
    let test = "vegas_keeps_the_queue_short_and_westwood_shrugs_off_random_loss";
    if !testkit::require_root(test) {
        return;
    }
    let _serial = serial();
    let tmp = tempfile::tempdir().unwrap();
    let scenario = |name: &str, loss: f64| {
        let path = tmp.path().join(format!("{name}.toml"));
        std::fs::write(
            &path,
            format!(
                "name = \"{name}\"\n[link]\ndownlink = \"constant:12\"\nuplink = \"constant:12\"\ndelay_ms = 10\n\
                 queue = \"droptail:packets=100\"\ndownlink_loss = {loss}\nduration_s = 15\nwarmup_s = 3\n\
                 [[flows]]\nscheme = \"cubic\"\n"
            ),
        )
        .unwrap();
        path
    };
    let clean = scenario("clean", 0.0);
    let cubic = run_scheme(tmp.path(), &clean, "cubic");
    let vegas = run_scheme(tmp.path(), &clean, "vegas");
    let q = |m: &serde_json::Value| m["avg_queue_delay_ms"].as_f64().unwrap();
    let t = |m: &serde_json::Value| m["throughput_mbps"].as_f64().unwrap();
    assert!(
        q(&vegas) < 0.2 * q(&cubic),
        "Vegas queueing {:.1} ms vs Cubic {:.1} ms",
        q(&vegas),
        q(&cubic)
    );
    assert!(
        t(&vegas) >= 0.9 * t(&cubic),
        "Vegas {:.2} Mbit/s vs Cubic {:.2}",
        t(&vegas),
        t(&cubic)
    );

    let lossy = scenario("lossy", 0.01);
    let loss_dir = tmp.path().join("lossy");
    std::fs::create_dir_all(&loss_dir).unwrap();
    let reno = run_scheme(&loss_dir, &lossy, "reno");
    let westwood = run_scheme(&loss_dir, &lossy, "westwood");
    assert!(
        t(&westwood) > 1.1 * t(&reno),
        "with 1% loss Westwood+ {:.2} Mbit/s should beat Reno {:.2}",
        t(&westwood),
        t(&reno)
    );
}
