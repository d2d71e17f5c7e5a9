// SPDX-License-Identifier: GPL-2.0-only
//! A scenario's flows through SproutTunnel (`[tunnel] via = "sprout"`,
//! `c2tcp run --tunnel sprout`): the runner starts a tunnel end in each
//! namespace around the emulated link, the flows cross it inside Sprout
//! datagrams, each flow is measured from the tunnel ends' per-packet
//! records, and nothing is left behind, also after Ctrl-C.
mod common;

use std::collections::HashMap;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::{assert_no_process_mentions, json, metrics, webrtc_gcc_built};
use serde_json::Value;

fn num(v: &Value, key: &str) -> f64 {
    v[key]
        .as_f64()
        .unwrap_or_else(|| panic!("no number `{key}` in {v}"))
}

/// Verizon LTE, 20 ms each way, unlimited queues: a Cubic download and a
/// webrtc-gcc call (downlink), both through the tunnel.
fn scenario(dir: &Path, traces: &Path, secs: u32) -> std::path::PathBuf {
    let p = dir.join("tunnel.toml");
    let text = format!(
        r#"name = "tunnel-short"
[link]
downlink = "{}"
delay_ms = 20
queue = "infinite"
duration_s = {secs}
warmup_s = 5
[tunnel]
via = "sprout"
[[flows]]
scheme = "cubic"
label = "bulk"
[[flows]]
scheme = "webrtc-gcc"
label = "call"
"#,
        traces.join("mahimahi/Verizon-LTE-short.down").display()
    );
    std::fs::write(&p, text).unwrap();
    p
}

/// Bytes and packets departed per inner port in a tunnel log (whole run).
fn departed_by_port(log: &Path) -> HashMap<u16, (u64, u64)> {
    let text = std::fs::read_to_string(log).unwrap();
    let mut port_of: HashMap<u32, Vec<u16>> = HashMap::new();
    let mut out: HashMap<u16, (u64, u64)> = HashMap::new();
    for l in text.lines() {
        let f: Vec<&str> = l.split_whitespace().collect();
        if l.starts_with("# flow") {
            let mut ports: Vec<u16> = [f[4], f[6]]
                .iter()
                .map(|e| e.rsplit_once(':').unwrap().1.parse().unwrap())
                .collect();
            ports.dedup(); // webrtc-gcc uses the flow's port at both ends
            port_of.insert(f[2].parse().unwrap(), ports);
        } else if f.get(1) == Some(&"-") {
            for p in &port_of[&f[4].parse().unwrap()] {
                let e = out.entry(*p).or_default();
                e.0 += f[2].parse::<u64>().unwrap();
                e.1 += 1;
            }
        }
    }
    out
}

#[test]
fn a_scenario_runs_its_flows_through_the_sprout_tunnel() {
    let test = "a_scenario_runs_its_flows_through_the_sprout_tunnel";
    if !testkit::require_root(test) {
        return;
    }
    let Some(traces) = testkit::traces_dir(test) else {
        return;
    };
    if webrtc_gcc_built(test).is_none() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let sc = scenario(tmp.path(), &traces, 20);
    let out = tmp.path().join("run");
    let (ok, text) = common::c2tcp(&[
        "run",
        sc.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--quiet",
    ]);
    assert!(ok, "c2tcp run through the tunnel failed: {text}");
    assert_eq!(json(&out.join("run.json"))["status"], "done");
    assert_no_process_mentions(&out);

    // Both flows have their own figures, from the tunnel's records.
    let m = metrics(&out);
    let flow = |label: &str| -> Value {
        m["flows"]
            .as_array()
            .unwrap()
            .iter()
            .find(|f| f["name"] == label)
            .unwrap_or_else(|| panic!("no flow `{label}` in {m}"))
            .clone()
    };
    let (bulk, call) = (flow("bulk"), flow("call"));
    eprintln!("bulk {bulk}\ncall {call}");
    assert!(num(&bulk, "throughput_mbps") > 0.1, "{bulk}");
    assert!(num(&call, "throughput_mbps") > 0.01, "{call}");
    for f in [&bulk, &call] {
        // One-way delay includes the 20-ms propagation, and is sane.
        let p95 = num(f, "p95_delay_ms");
        assert!((20.0..5000.0).contains(&p95), "{f}");
        assert!(num(f, "self_inflicted_delay_ms") >= 0.0, "{f}");
    }
    // The link saw the tunnel's datagrams (link/), not the flows' own.
    let link = json(&out.join("link/metrics.json"));
    assert!(num(&link["aggregate"], "throughput_mbps") > 0.1, "{link}");
    let tunnel = json(&out.join("tunnel.json"));
    assert!(
        num(&tunnel["server"]["queues"], "max_flows") >= 2.0,
        "{tunnel}"
    );

    // The records are the truth the receivers saw: the call's packets out
    // of the tunnel are the packets its receiver counted, 28 bytes of IP
    // and UDP header each more than the RTP bytes it counted (whole run).
    let flows = json(&out.join("flows.json"));
    let by_port = departed_by_port(&out.join("tunnel-downlink.log"));
    let rx = &flows[1];
    let w = &rx["webrtc_gcc"];
    let (bytes, packets) = by_port[&(num(rx, "port") as u16)];
    let (rx_bytes, rx_packets) = (num(rx, "bytes_received"), num(w, "packets_received"));
    eprintln!(
        "call: tunnel {packets} packets {bytes} B; receiver {rx_packets} packets {rx_bytes} B"
    );
    assert!(
        (packets as f64 - rx_packets).abs() <= 0.01 * rx_packets + 5.0,
        "{packets} vs {rx_packets}"
    );
    let ip_bytes = rx_bytes + 28.0 * rx_packets;
    assert!(
        (bytes as f64 - ip_bytes).abs() <= 0.01 * ip_bytes + 5.0 * 1500.0,
        "{bytes} vs {ip_bytes}"
    );
    // The download: the TCP payload its receiver read is the IP bytes out
    // of the tunnel less 52 bytes of headers a packet (with timestamps).
    let bulk_rx = num(&flows[0], "bytes_received");
    let (bytes, packets) = by_port[&(num(&flows[0], "port") as u16)];
    let payload = bytes as f64 - 52.0 * packets as f64;
    eprintln!("bulk: tunnel payload {payload} B; receiver {bulk_rx} B");
    assert!(
        (payload - bulk_rx).abs() <= 0.03 * bulk_rx,
        "{payload} vs {bulk_rx}"
    );
}

#[test]
fn ctrl_c_leaves_no_tunnel_behind() {
    let test = "ctrl_c_leaves_no_tunnel_behind";
    if !testkit::require_root(test) {
        return;
    }
    let Some(traces) = testkit::traces_dir(test) else {
        return;
    };
    if webrtc_gcc_built(test).is_none() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let sc = scenario(tmp.path(), &traces, 60);
    let out = tmp.path().join("run");
    let mut child = Command::new(env!("CARGO_BIN_EXE_c2tcp"))
        .args(["run", sc.to_str().unwrap(), "--quiet", "--out"])
        .arg(&out)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Until the tunnel carries the flows.
    let deadline = Instant::now() + Duration::from_secs(30);
    while !out.join("tunnel-server.records").exists()
        || std::fs::metadata(out.join("tunnel-server.records"))
            .unwrap()
            .len()
            < 10_000
    {
        assert!(
            Instant::now() < deadline,
            "the tunnel never carried anything"
        );
        assert!(child.try_wait().unwrap().is_none(), "the run ended early");
        std::thread::sleep(Duration::from_millis(100));
    }
    // SAFETY: signalling our own child.
    assert_eq!(unsafe { libc::kill(child.id() as i32, libc::SIGINT) }, 0);
    let deadline = Instant::now() + Duration::from_secs(30);
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        assert!(
            Instant::now() < deadline,
            "c2tcp run did not stop on Ctrl-C"
        );
        std::thread::sleep(Duration::from_millis(50));
    };
    assert_eq!(
        json(&out.join("run.json"))["status"],
        "interrupted",
        "{status}"
    );
    // Both ends were stopped and reported; nothing names the run any more
    // (the ends held the run's namespaces, and with them the devices).
    assert_eq!(json(&out.join("tunnel.json"))["ue"]["ended_by"], "signal");
    assert_no_process_mentions(&out);
}
