// SPDX-License-Identifier: GPL-2.0-only
//! Verus as a scheme of the experiment runner: `c2tcp run --scheme verus`
//! through the real emulator, beside Cubic on the same link.
mod common;

use common::{assert_sized_flow_refused, assert_udp_endpoints_reported, c2tcp, json, metrics};
use serde_json::Value;

fn num(v: &Value, key: &str) -> f64 {
    v[key]
        .as_f64()
        .unwrap_or_else(|| panic!("no number `{key}` in {v}"))
}

/// A constant 12 Mbit/s link with a 100-packet droptail queue and 10 ms each
/// way, 12 s each, Cubic then Verus: Cubic fills the buffer, Verus's target
/// delay keeps its queue shorter while it carries a sane share of the link.
#[test]
fn verus_queues_less_than_cubic_through_the_emulator() {
    let test = "verus_queues_less_than_cubic_through_the_emulator";
    if !testkit::require_root(test) {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let scenario = tmp.path().join("constant12.toml");
    std::fs::write(
        &scenario,
        "name = \"constant12\"\n[link]\ndownlink = \"constant:12\"\nuplink = \"constant:12\"\n\
         delay_ms = 10\nqueue = \"droptail:packets=100\"\nduration_s = 12\nwarmup_s = 2\n\
         [[flows]]\nscheme = \"cubic\"\n",
    )
    .unwrap();
    let mut results = Vec::new();
    for scheme in ["cubic", "verus"] {
        let out = tmp.path().join(scheme);
        let (ok, text) = c2tcp(&[
            "run",
            scenario.to_str().unwrap(),
            "--scheme",
            scheme,
            "--out",
            out.to_str().unwrap(),
            "-q",
        ]);
        assert!(ok, "c2tcp run --scheme {scheme} failed: {text}");
        assert_eq!(json(&out.join("run.json"))["status"], "done", "{scheme}");
        let agg = metrics(&out)["aggregate"].clone();
        results.push((
            scheme,
            num(&agg, "avg_queue_delay_ms"),
            num(&agg, "throughput_mbps"),
        ));
    }
    eprintln!("(scheme, mean queueing delay ms, Mbit/s): {results:?}");
    let [(_, cubic_q, cubic_mbps), (_, verus_q, verus_mbps)] = results[..] else {
        unreachable!()
    };
    assert!(
        verus_q < cubic_q,
        "Verus's mean queueing delay is not below Cubic's: {results:?}"
    );
    assert!(
        verus_mbps > 0.5 * cubic_mbps,
        "Verus's throughput is not sane: {results:?}"
    );

    // What the endpoints reported made it into flows.json.
    let dir = tmp.path().join("verus");
    let flow = &json(&dir.join("flows.json"))[0];
    assert!(flow["error"].is_null(), "{flow}");
    let v = &flow["verus"];
    assert_eq!(v["sender_ended_by"].as_str(), Some("duration"), "{v}");
    // It left slow start and refit its delay profile about once a second.
    assert!(num(v, "slow_start_exits") >= 1.0, "{v}");
    assert!(num(v, "profile_refits") >= 5.0, "{v}");
    // One epoch per 5 ms outside slow start.
    assert!(num(v, "epochs") > 0.5 * 12.0 / 0.005, "{v}");
    assert!(
        num(v, "packets_received") > 0.0 && num(v, "packets_received") <= num(v, "packets_sent"),
        "{v}"
    );
    assert_eq!(num(v, "malformed_dropped"), 0.0, "{v}");
    // The smallest RTT is the path's 20 ms plus a packet's transmission.
    assert!((20.0..30.0).contains(&num(v, "min_rtt_ms")), "{v}");
    assert_udp_endpoints_reported(&dir, "verus");
}

/// Verus's sender is always backlogged: a sized flow is refused by name.
#[test]
fn a_sized_verus_flow_is_refused() {
    assert_sized_flow_refused("verus", "a_sized_verus_flow_is_refused");
}

/// The hidden subcommands refuse bad arguments by name.
#[test]
fn verus_send_refuses_a_packet_smaller_than_its_header() {
    let (ok, text) = c2tcp(&[
        "verus-send",
        "--connect",
        "127.0.0.1:9",
        "--packet-size",
        "20",
    ]);
    assert!(!ok);
    assert!(
        text.contains("--packet-size must be in 40..=65507"),
        "{text}"
    );
}
