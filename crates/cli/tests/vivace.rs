// SPDX-License-Identifier: GPL-2.0-only
//! PCC Vivace, the rate-based BPF peer: it passes the verifier, registers,
//! carries real TCP between namespaces, reports its per-call cost, unloads
//! without a trace, and shows PCC's headline property through the emulator.
mod common;

use std::path::Path;
use std::time::Duration;

use common::{allowed, c2tcp, metrics, registered, serial, transfer_with, Loaded};

#[test]
fn vivace_loads_carries_traffic_and_unloads() {
    if !testkit::require_root("vivace_loads_carries_traffic_and_unloads") {
        return;
    }
    let _serial = serial();
    let before = testkit::Registrations::now();
    {
        let _loaded = Loaded::new(&["vivace"]);
        assert!(
            registered("vivace") && allowed("vivace"),
            "vivace not selectable after load"
        );
        let (sent, received, got) = transfer_with("vivace", Duration::from_millis(700));
        assert_eq!(got, "vivace");
        assert!(sent > 1_000_000, "vivace moved only {sent} bytes");
        assert_eq!(sent, received);
        let (ok, out) = c2tcp(&["status", "--json"]);
        assert!(ok, "{out}");
        let st: serde_json::Value = serde_json::from_str(&out).unwrap();
        let s = st["ccs"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["name"] == "vivace")
            .unwrap();
        assert_eq!(s["pinned"], true, "{s}");
        // The kernel keeps 15 characters of a program's name.
        let progs = s["programs"].as_array().unwrap();
        assert!(progs.iter().any(|p| p["name"] == "vivace_cong_con"), "{s}");
    }
    // Unregistered, unpinned and no longer selectable, unless a user had
    // loaded it before the test.
    before.assert_left_as_found(&["vivace"]);
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
    if scheme == "vivace" {
        // The run unloads what it loaded (one a user loaded before stays).
        before.assert_left_as_found(&[scheme]);
    }
    metrics(&out)["aggregate"].clone()
}

/// PCC's headline property (Dong et al., NSDI 2018; PCC Allegro before it): random loss
/// does not throttle it. A constant 12 Mbit/s link, 25 ms each way (50 ms
/// base RTT, inside the 30-100 ms the PCC papers use), a 100-packet droptail
/// buffer and 1% random loss on the data direction: Cubic halves its window
/// at every loss, Vivace's utility prices 1% loss well below the value of
/// sending faster.
#[test]
fn vivace_triples_cubic_on_a_randomly_lossy_link() {
    let test = "vivace_triples_cubic_on_a_randomly_lossy_link";
    if !testkit::require_root(test) {
        return;
    }
    let _serial = serial();
    let tmp = tempfile::tempdir().unwrap();
    let scenario = tmp.path().join("lossy.toml");
    std::fs::write(
        &scenario,
        "name = \"lossy\"\n[link]\ndownlink = \"constant:12\"\nuplink = \"constant:12\"\ndelay_ms = 25\n\
         queue = \"droptail:packets=100\"\ndownlink_loss = 0.01\nduration_s = 15\nwarmup_s = 3\n\
         [[flows]]\nscheme = \"cubic\"\n",
    )
    .unwrap();
    let t = |m: &serde_json::Value| m["throughput_mbps"].as_f64().unwrap();
    let cubic = run_scheme(tmp.path(), &scenario, "cubic");
    let vivace = run_scheme(tmp.path(), &scenario, "vivace");
    assert!(
        t(&vivace) >= 3.0 * t(&cubic),
        "with 1% random loss Vivace {:.2} Mbit/s should be >= 3x Cubic's {:.2}",
        t(&vivace),
        t(&cubic)
    );
}
