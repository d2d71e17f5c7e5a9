// SPDX-License-Identifier: GPL-2.0-only
//! `c2tcp sprout-recv` / `sprout-send` as real programs on real UDP sockets:
//! over loopback, against garbage and signals, and between two network
//! namespaces through a rate-limited veth.
use std::net::UdpSocket;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

mod common;
use common::json;

const BIN: &str = env!("CARGO_BIN_EXE_c2tcp");

fn wait_ok(mut child: Child, what: &str, limit: Duration) {
    let t = Instant::now();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            assert!(status.success(), "{what} exited with {status}");
            return;
        }
        if t.elapsed() > limit {
            let _ = child.kill();
            panic!("{what} still running after {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Waits until the receiver's socket is bound (so the sender's first
/// heartbeats are not refused) by watching for its port in /proc/net/udp.
fn wait_bound(port: u16) {
    let hex = format!(":{port:04X} ");
    let t = Instant::now();
    while t.elapsed() < Duration::from_secs(10) {
        if std::fs::read_to_string("/proc/net/udp")
            .unwrap_or_default()
            .contains(&hex)
        {
            return;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    panic!("receiver never bound port {port}");
}

/// Starts the receiver, waits for `ready`, runs the sender to its end and
/// waits for the receiver to stop on the sender's bye.
fn flow(mut recv: Command, mut send: Command, ready: impl Fn()) {
    let recv = recv.stdout(Stdio::null()).spawn().unwrap();
    ready();
    let send = send.stdout(Stdio::null()).spawn().unwrap();
    wait_ok(send, "sprout-send", Duration::from_secs(60));
    wait_ok(recv, "sprout-recv", Duration::from_secs(60));
}

fn free_port() -> u16 {
    UdpSocket::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

fn f(v: &Value, key: &str) -> f64 {
    v[key]
        .as_f64()
        .unwrap_or_else(|| panic!("no number {key} in {v}"))
}

/// Checks what both reports must say of any clean flow.
fn check_flow(r: &Value, s: &Value) {
    assert_eq!(r["ended_by"], "bye", "{r}");
    assert_eq!(s["ended_by"], "duration", "{s}");
    assert_eq!(f(r, "malformed_dropped"), 0.0);
    assert_eq!(f(s, "malformed_dropped"), 0.0);
    assert_eq!(r["counters"]["other_session"], 0);
    // The receiver got what the sender sent, less any losses it counted.
    let sent = f(s, "packets_sent");
    let got = f(r, "packets_received");
    assert_eq!(got + f(r, "packets_lost"), sent, "receiver {r}\nsender {s}");
    assert!(f(s, "bytes_delivered") <= f(s, "bytes_sent"));
    assert!(f(r, "feedback_sent") > 0.0 && f(&s["counters"], "feedback_accepted") > 0.0);
    // Inference ran every tick and cost something, but far less than a tick.
    let cpu = &r["inference_cpu_per_tick"];
    assert!(f(cpu, "ticks") >= 0.5 * f(r, "duration_s") / 0.02, "{cpu}");
    assert!(
        f(cpu, "mean_ns") > 0.0 && f(cpu, "mean_ns") < 0.25 * 20e6,
        "{cpu}"
    );
}

#[test]
fn a_flow_over_loopback_moves_data_and_reports_it() {
    let dir = tempfile::tempdir().unwrap();
    let port = free_port();
    let listen = format!("127.0.0.1:{port}");
    let (rs, ss) = (dir.path().join("recv.json"), dir.path().join("send.json"));
    let mut recv = Command::new(BIN);
    recv.args(["sprout-recv", "--listen", &listen, "--stats"])
        .arg(&rs);
    let mut send = Command::new(BIN);
    send.args([
        "sprout-send",
        "--connect",
        &listen,
        "--duration",
        "2",
        "--stats",
    ])
    .arg(&ss);
    flow(recv, send, || wait_bound(port));
    let (r, s) = (json(&rs), json(&ss));
    check_flow(&r, &s);
    assert_eq!(r["variant"], "sprout");
    // Loopback is fast: the forecast climbs to the model's ceiling.
    assert!(f(&r, "bytes_received") > 1e6, "{r}");
    assert!(
        f(&r, "final_rate_estimate_pps") > 0.5 * f(&r, "max_rate_pps"),
        "{r}"
    );
}

/// The authors' sender (alfalfa's sproutconn.cc's drain and window) moves
/// the same flow and says which sender ran; it has no look-ahead.
#[test]
fn the_authors_sender_moves_data_and_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let port = free_port();
    let listen = format!("127.0.0.1:{port}");
    let (rs, ss) = (dir.path().join("recv.json"), dir.path().join("send.json"));
    let mut recv = Command::new(BIN);
    recv.args(["sprout-recv", "--listen", &listen, "--stats"])
        .arg(&rs);
    let mut send = Command::new(BIN);
    send.args([
        "sprout-send",
        "--connect",
        &listen,
        "--duration",
        "2",
        "--authors-sender",
        "--stats",
    ])
    .arg(&ss);
    flow(recv, send, || wait_bound(port));
    let (r, s) = (json(&rs), json(&ss));
    check_flow(&r, &s);
    assert_eq!(
        (s["drain"].as_str(), s["rtt_lookahead"].as_bool()),
        (Some("authors"), Some(false)),
        "{s}"
    );
    assert!(f(&r, "bytes_received") > 1e6, "{r}");
    // The two window rules are one or the other.
    let out = Command::new(BIN)
        .args([
            "sprout-send",
            "--connect",
            &listen,
            "--authors-sender",
            "--paper-window",
        ])
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot be used with"));
}

#[test]
fn garbage_is_counted_and_a_signal_ends_the_receiver_cleanly() {
    let dir = tempfile::tempdir().unwrap();
    let port = free_port();
    let listen = format!("127.0.0.1:{port}");
    let rs = dir.path().join("recv.json");
    let recv = Command::new(BIN)
        .args([
            "sprout-recv",
            "--listen",
            &listen,
            "--variant",
            "ewma",
            "--stats",
        ])
        .arg(&rs)
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    wait_bound(port);
    let s = UdpSocket::bind("127.0.0.1:0").unwrap();
    let mut junk: Vec<Vec<u8>> = vec![
        b"hello".to_vec(),
        vec![],
        b"SPRT".to_vec(),
        b"SPRT\x09\x01\x00\x0c\0\0\0\0".to_vec(),
    ];
    let mut truncated = b"SPRT\x02\x01\x05\xc0".to_vec(); // says 1472 bytes, has 48
    truncated.resize(48, 0);
    junk.push(truncated);
    for j in &junk {
        s.send_to(j, &listen).unwrap();
    }
    std::thread::sleep(Duration::from_millis(300));
    // SAFETY: signalling our own child.
    assert_eq!(unsafe { libc::kill(recv.id() as i32, libc::SIGTERM) }, 0);
    wait_ok(recv, "sprout-recv", Duration::from_secs(10));
    let r = json(&rs);
    assert_eq!(r["ended_by"], "signal");
    assert_eq!(r["variant"], "sprout-ewma");
    assert_eq!(f(&r, "malformed_dropped"), junk.len() as f64, "{r}");
    let d = &r["counters"]["dropped"];
    assert_eq!(
        (f(d, "foreign"), f(d, "truncated"), f(d, "bad_version")),
        (2.0, 2.0, 1.0),
        "{d}"
    );
    assert_eq!(f(&r, "bytes_received"), 0.0);
}

#[test]
fn bad_arguments_are_refused_with_the_flag_named() {
    let out = Command::new(BIN)
        .args([
            "sprout-recv",
            "--listen",
            "127.0.0.1:0",
            "--confidence",
            "0",
        ])
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("--confidence"));
    let out = Command::new(BIN)
        .args([
            "sprout-send",
            "--connect",
            "127.0.0.1:9",
            "--duration",
            "-1",
        ])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let out = Command::new(BIN)
        .args([
            "sprout-recv",
            "--listen",
            "127.0.0.1:0",
            "--variant",
            "vegas",
        ])
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&out.stderr).contains("unknown Sprout variant"));
}

/// Sender and receiver in two namespaces, joined by a veth whose sender side
/// is an 8 Mbit/s token bucket with a 1 MB queue (a second of queueing for a
/// sender that ignores it): both variants fill most of the link and keep the
/// queue short.
#[test]
fn sprout_between_namespaces_fills_a_rate_limited_link_with_little_queueing() {
    if !testkit::require_root(
        "sprout_between_namespaces_fills_a_rate_limited_link_with_little_queueing",
    ) {
        return;
    }
    let a = netns::Netns::new("sprout-server").unwrap();
    let b = netns::Netns::new("sprout-ue").unwrap();
    netns::veth_pair(&a, "sp-a", &b, "sp-b").unwrap();
    a.ip(&["addr", "add", "10.98.7.1/24", "dev", "sp-a"])
        .unwrap();
    b.ip(&["addr", "add", "10.98.7.2/24", "dev", "sp-b"])
        .unwrap();
    netns::run_checked(
        a.command("tc").args([
            "qdisc", "add", "dev", "sp-a", "root", "tbf", "rate", "8mbit", "burst", "20kb",
            "limit", "1mb",
        ]),
        "tc qdisc add tbf",
    )
    .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let mut results = Vec::new();
    for variant in ["sprout", "ewma"] {
        let (rs, ss) = (
            dir.path().join(format!("r-{variant}.json")),
            dir.path().join(format!("s-{variant}.json")),
        );
        let mut recv = b.command(BIN);
        recv.args([
            "sprout-recv",
            "--listen",
            "10.98.7.2:9000",
            "--variant",
            variant,
            "--stats",
        ])
        .arg(&rs);
        let mut send = a.command(BIN);
        send.args([
            "sprout-send",
            "--connect",
            "10.98.7.2:9000",
            "--bind",
            "10.98.7.1:9001",
            "--duration",
            "5",
            "--stats",
        ])
        .arg(&ss);
        // The receiver binds in another namespace: give it a moment.
        flow(recv, send, || {
            std::thread::sleep(Duration::from_millis(300))
        });
        let (r, s) = (json(&rs), json(&ss));
        check_flow(&r, &s);
        assert_eq!(s["local"], "10.98.7.1:9001");
        assert!(r["peer"].as_str().unwrap().ends_with(":9001"));
        results.push((
            variant,
            f(&r, "goodput_mbps"),
            f(&r["one_way_delay_ms"], "p95"),
        ));
    }
    for (variant, mbps, p95) in &results {
        assert!(
            *mbps > 0.5 * 8.0 && *mbps < 1.1 * 8.0,
            "{variant}: {mbps} Mbit/s of 8: {results:?}"
        );
        assert!(
            *p95 < 300.0,
            "{variant}: p95 one-way delay {p95} ms, the queue holds 1000: {results:?}"
        );
    }
}
