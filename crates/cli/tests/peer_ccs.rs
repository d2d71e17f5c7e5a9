//! Westwood+ and Vegas, the BPF peers of C2TCP: they pass the verifier,
//! register, carry real TCP between namespaces, and unload without a trace.
mod common;

use std::path::Path;
use std::time::Duration;

use common::{allowed, c2tcp, registered, serial, transfer_with, Loaded};

#[test]
fn westwood_and_vegas_load_as_a_subset_carry_traffic_and_unload() {
    if !testkit::require_root("westwood_and_vegas_load_as_a_subset_carry_traffic_and_unload") {
        return;
    }
    let _serial = serial();
    {
        let _loaded = Loaded::new(&["westwood", "vegas"]);
        for cc in ["westwood", "vegas"] {
            assert!(registered(cc) && allowed(cc), "{cc} not selectable after load");
        }
        assert!(!registered("c2tcp"), "loading a subset must not load the others");
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
            let s = st["ccs"].as_array().unwrap().iter().find(|c| c["name"] == cc).unwrap();
            assert_eq!(s["pinned"], true, "{s}");
            assert!(!s["programs"].as_array().unwrap().is_empty(), "{s}");
        }
    }
    for cc in ["westwood", "vegas"] {
        assert!(!registered(cc) && !allowed(cc), "{cc} left registered");
    }
    assert!(!Path::new("/sys/fs/bpf/c2tcp").exists(), "pins left behind");
}

#[test]
fn an_unknown_name_is_refused_with_the_known_ones() {
    if !testkit::require_root("an_unknown_name_is_refused_with_the_known_ones") {
        return;
    }
    let (ok, out) = c2tcp(&["load", "hybla"]);
    assert!(!ok);
    assert!(out.contains("unknown congestion control `hybla`") && out.contains("c2tcp, westwood, vegas"), "{out}");
}
