// SPDX-License-Identifier: GPL-2.0-only
//! `c2tcp sprout-tunnel` at both ends of an emulated Verizon LTE link (the
//! Sprout paper's §5.7 set-up: 20 ms each way, unlimited queues, the trace's
//! uplink carrying the way back): a bulk Cubic download and a low-rate
//! interactive UDP flow, first through the tunnel, then directly, in one run.
//! Through the tunnel the interactive flow has a queue of its own at the
//! tunnel end and Sprout keeps the link's queue short, so its 95th-percentile
//! delay must be at most 0.2x what Cubic's standing queue gives it directly
//! (the bound; the paper: 6.0 s -> 0.17 s for Skype; measured here
//! 0.06-0.17x with these phases, docs/sprout.md). Nothing may be left behind.
use std::io::{ErrorKind, Read, Write};
use std::net::{Ipv4Addr, TcpListener, TcpStream, UdpSocket};
use std::path::Path;
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

use emu::{DirectionConfig, Emulator, EmulatorConfig};
use netns::Netns;

const BIN: &str = env!("CARGO_BIN_EXE_c2tcp");
/// Each phase's length and the start-up it leaves out of the delays: the
/// paper's runs are long, and Cubic needs several seconds of growth past
/// slow start to build the standing queue §5.7 is about (with 15 s and a
/// 3-s warm-up the direct p95 was ~200 ms, with 20/8 s and 25/12 s ~640 ms).
const PHASE: Duration = Duration::from_secs(30);
const WARMUP: Duration = Duration::from_secs(15);
/// The interactive flow: 200-byte datagrams every 20 ms (80 kbit/s).
const INTERACTIVE_GAP: Duration = Duration::from_millis(20);
const SERVER_TUN: &str = "100.127.0.1";
const UE_TUN: &str = "100.127.0.2";

struct Phase {
    /// Delays of the interactive datagrams sent after the warm-up, ms.
    p95_ms: f64,
    delivered: f64,
    bulk_mbps: f64,
}

/// Bulk TCP and interactive UDP from `server` to `dst` in `ue` for PHASE.
fn measure(server: &Netns, ue: &Netns, dst: Ipv4Addr) -> Phase {
    let t0 = Instant::now();
    let listener = ue
        .run(|| TcpListener::bind("0.0.0.0:5000").unwrap())
        .unwrap();
    let udp_rx = ue.run(|| UdpSocket::bind("0.0.0.0:5001").unwrap()).unwrap();
    let rx = std::thread::spawn(move || {
        udp_rx
            .set_read_timeout(Some(Duration::from_millis(100)))
            .unwrap();
        let mut delays = Vec::new();
        let mut buf = [0u8; 2048];
        while t0.elapsed() < PHASE + Duration::from_secs(3) {
            if let Ok(n) = udp_rx.recv(&mut buf) {
                assert_eq!(n, 200);
                let sent_us = u64::from_be_bytes(buf[..8].try_into().unwrap());
                let now_us = t0.elapsed().as_micros() as u64;
                if sent_us >= WARMUP.as_micros() as u64 {
                    delays.push((now_us - sent_us) as f64 / 1000.0);
                }
            }
        }
        delays
    });
    let drain = std::thread::spawn(move || {
        let (mut conn, _) = listener.accept().unwrap();
        conn.set_read_timeout(Some(Duration::from_millis(200)))
            .unwrap();
        let mut buf = vec![0u8; 1 << 16];
        let mut after_warmup = 0u64;
        while t0.elapsed() < PHASE + Duration::from_secs(1) {
            match conn.read(&mut buf) {
                Ok(0) => break,
                Ok(n) if t0.elapsed() >= WARMUP => after_warmup += n as u64,
                Ok(_) => {}
                Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => {}
                Err(e) => panic!("bulk receiver: {e}"),
            }
        }
        after_warmup
    });
    let bulk = server
        .spawn("bulk", move || {
            let mut s = TcpStream::connect((dst, 5000)).unwrap();
            s.set_write_timeout(Some(Duration::from_millis(100)))
                .unwrap();
            let chunk = vec![0x5au8; 1 << 16];
            while t0.elapsed() < PHASE {
                match s.write(&chunk) {
                    Ok(_) => {}
                    Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => {}
                    Err(e) => panic!("bulk sender: {e}"),
                }
            }
        })
        .unwrap();
    let sent = server
        .spawn("interactive", move || {
            let s = UdpSocket::bind("0.0.0.0:0").unwrap();
            let mut buf = [0u8; 200];
            let mut sent_after_warmup = 0u64;
            let mut next = Instant::now();
            while t0.elapsed() < PHASE {
                let now_us = t0.elapsed().as_micros() as u64;
                buf[..8].copy_from_slice(&now_us.to_be_bytes());
                s.send_to(&buf, (dst, 5001)).unwrap();
                if now_us >= WARMUP.as_micros() as u64 {
                    sent_after_warmup += 1;
                }
                next += INTERACTIVE_GAP;
                std::thread::sleep(next.saturating_duration_since(Instant::now()));
            }
            sent_after_warmup
        })
        .unwrap();
    bulk.join().unwrap().unwrap();
    let sent = sent.join().unwrap().unwrap();
    let bytes = drain.join().unwrap();
    let mut delays = rx.join().unwrap();
    assert!(!delays.is_empty(), "no interactive datagram arrived");
    delays.sort_by(f64::total_cmp);
    Phase {
        p95_ms: delays[(delays.len() * 95 / 100).min(delays.len() - 1)],
        delivered: delays.len() as f64 / sent as f64,
        bulk_mbps: bytes as f64 * 8.0 / (PHASE - WARMUP).as_secs_f64() / 1e6,
    }
}

fn tunnel_end(
    ns: &Netns,
    listen: String,
    peer: Option<String>,
    me: &str,
    other: &str,
    stats: &Path,
) -> Child {
    let mut cmd = ns.command(BIN);
    cmd.args([
        "sprout-tunnel",
        "--listen",
        &listen,
        "--address",
        me,
        "--peer-address",
        other,
    ])
    .arg("--stats")
    .arg(stats)
    .stdout(Stdio::null());
    if let Some(p) = peer {
        cmd.args(["--peer", &p]);
    }
    cmd.spawn().unwrap()
}

fn device_up(ns: &Netns) -> bool {
    ns.command("ip")
        .args(["-o", "addr", "show", "dev", "sprt0"])
        .stderr(Stdio::null())
        .output()
        .is_ok_and(|o| o.status.success() && !o.stdout.is_empty())
}

fn stop(mut child: Child, signal: i32) -> std::process::ExitStatus {
    // SAFETY: signalling our own child.
    assert_eq!(unsafe { libc::kill(child.id() as i32, signal) }, 0);
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        if let Some(s) = child.try_wait().unwrap() {
            return s;
        }
        assert!(
            Instant::now() < deadline,
            "sprout-tunnel did not stop on signal {signal}"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn ip_out(ns: &Netns, args: &[&str]) -> String {
    let o = ns.command("ip").args(args).output().unwrap();
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn json(path: &Path) -> serde_json::Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap()
}

#[test]
fn interactive_flow_keeps_its_delay_beside_a_bulk_download_through_the_tunnel() {
    if !testkit::require_root("sprout_tunnel") {
        return;
    }
    let Some(traces) = testkit::traces_dir("sprout_tunnel") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let m = traces.join("mahimahi");
    let mut cfg = EmulatorConfig::new(
        DirectionConfig::from_trace_file(&m.join("Verizon-LTE-short.down")).unwrap(),
        DirectionConfig::from_trace_file(&m.join("Verizon-LTE-short.up")).unwrap(),
    );
    cfg.delay_us = 20_000;
    let server = Netns::new("server").unwrap();
    let ue = Netns::new("ue").unwrap();
    let emu = Emulator::start(cfg, &server, &ue).unwrap();
    let (base, inside) = (emu.outside_addr(), emu.inside_addr());

    // Through the tunnel. The server end learns the UE end's address.
    let (s_stats, u_stats) = (dir.path().join("server.json"), dir.path().join("ue.json"));
    let s_end = tunnel_end(
        &server,
        format!("{base}:7000"),
        None,
        SERVER_TUN,
        UE_TUN,
        &s_stats,
    );
    let u_end = tunnel_end(
        &ue,
        format!("{inside}:7000"),
        Some(format!("{base}:7000")),
        UE_TUN,
        SERVER_TUN,
        &u_stats,
    );
    let deadline = Instant::now() + Duration::from_secs(10);
    while !(device_up(&server) && device_up(&ue)) {
        assert!(
            Instant::now() < deadline,
            "the tunnel devices did not come up"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    let tunnel = measure(&server, &ue, UE_TUN.parse().unwrap());
    // Ctrl-C at one end, SIGTERM at the other: both clean up.
    assert!(stop(s_end, libc::SIGINT).success());
    assert!(stop(u_end, libc::SIGTERM).success());
    for ns in [&server, &ue] {
        assert!(!device_up(ns), "sprt0 left behind in {}", ns.label());
        let links = ip_out(ns, &["-o", "link"]);
        assert!(!links.contains("sprt0"), "{links}");
        let routes = ip_out(ns, &["route"]);
        assert!(!routes.contains("100.127."), "routes left behind: {routes}");
    }
    let (s, u) = (json(&s_stats), json(&u_stats));
    eprintln!("server end: {s}");
    assert_eq!(s["ended_by"], "signal");
    assert_eq!(u["ended_by"], "signal");
    // The server end carried the download; the UE end delivered it.
    let f = |v: &serde_json::Value, k: &str| v[k].as_f64().unwrap();
    assert!(
        f(&s, "packets_in") > 1000.0 && f(&u, "packets_out") > 1000.0,
        "{s}\n{u}"
    );
    assert_eq!(
        f(&s, "device_write_errors") + f(&u, "device_write_errors"),
        0.0
    );
    assert!(
        f(&s["queues"], "max_flows") >= 2.0,
        "bulk and interactive queued apart: {s}"
    );

    // Directly over the same emulated link, same run.
    let direct = measure(&server, &ue, inside);
    emu.stop().unwrap();

    eprintln!(
        "interactive p95: tunnel {:.0} ms, direct {:.0} ms ({:.3}x); delivered {:.2} / {:.2}; \
         bulk Cubic {:.2} / {:.2} Mbit/s",
        tunnel.p95_ms,
        direct.p95_ms,
        tunnel.p95_ms / direct.p95_ms,
        tunnel.delivered,
        direct.delivered,
        tunnel.bulk_mbps,
        direct.bulk_mbps
    );
    // The measurement must be one: the interactive flow arrived, the bulk
    // flow loaded the link both times.
    assert!(tunnel.delivered > 0.9 && direct.delivered > 0.9);
    assert!(
        direct.bulk_mbps > 1.0,
        "the direct download did not load the link"
    );
    // Through the tunnel the download must have run; how much of its direct
    // rate it keeps is a finding, not a bound: 0.12-1.03x measured here
    // (docs/sprout.md), against the paper's 0.45x (Cubic -55 %).
    assert!(
        tunnel.bulk_mbps > 0.1,
        "the download did not cross the tunnel: {:.2} Mbit/s",
        tunnel.bulk_mbps
    );
    // The bound. Every run with these 30/15-s phases so far: 0.17x
    // (load 12), 0.08x, 0.10x, then 0.057x, 0.064x, 0.126x (load 6-15;
    // docs/sprout.md): the tunnel's own p95 is a steady ~100-170 ms while
    // Cubic's direct queue reaches 0.7-1.8 s.
    assert!(
        tunnel.p95_ms <= 0.2 * direct.p95_ms,
        "interactive p95 through the tunnel {:.0} ms vs {:.0} ms directly",
        tunnel.p95_ms,
        direct.p95_ms
    );
}
