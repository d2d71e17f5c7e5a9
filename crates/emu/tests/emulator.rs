// SPDX-License-Identifier: GPL-2.0-only
//! The emulator with real TUN devices, real namespaces and real TCP.
use std::io::{Read, Write};
use std::net::{Ipv4Addr, SocketAddr, TcpListener, TcpStream};
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use emu::{DirectionConfig, Emulator, EmulatorConfig, Trace};
use netns::Netns;

/// One privileged test at a time: with two cores, a TCP transfer next to
/// the ping test would put scheduling noise into the RTTs it measures.
static SERIAL: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn serial() -> std::sync::MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(|e| e.into_inner())
}

fn constant_trace(mbps: f64) -> Trace {
    Trace {
        path: format!("constant-{mbps}").into(),
        opportunities: emu::synth::constant(mbps, 1000).unwrap(),
    }
}

fn config(mbps: f64, delay_ms: f64) -> EmulatorConfig {
    let mut cfg = EmulatorConfig::new(
        DirectionConfig::new(constant_trace(mbps)),
        DirectionConfig::new(constant_trace(mbps)),
    );
    cfg.delay_us = (delay_ms * 1000.0) as u64;
    cfg
}

/// Minimum RTT in ms of `count` one-shot pings from `ns` to `dst`. A ping
/// run's later echoes lock onto the phase of its first reply, which comes
/// right after a trace opportunity; separate runs started at staggered
/// times meet the millisecond grid at every phase.
fn ping_min_ms(ns: &Netns, dst: Ipv4Addr, count: u32) -> f64 {
    let mut min = f64::INFINITY;
    for i in 0..count {
        std::thread::sleep(Duration::from_micros(370 * i as u64 % 1000));
        let out = ns
            .command("ping")
            .args(["-n", "-c", "1", "-W", "2", &dst.to_string()])
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(out.status.success(), "ping failed: {text}");
        // "64 bytes from 100.96.0.1: icmp_seq=1 ttl=64 time=21.3 ms"
        let rtt = text
            .split("time=")
            .nth(1)
            .and_then(|r| r.split(' ').next())
            .unwrap_or_else(|| panic!("{text}"));
        min = min.min(rtt.parse().unwrap());
    }
    min
}

#[test]
fn ping_min_rtt_is_twice_the_delay() {
    if !testkit::require_root("ping_min_rtt_is_twice_the_delay") {
        return;
    }
    let _serial = serial();
    let server = Netns::new("server").unwrap();
    let ue = Netns::new("ue").unwrap();
    // A reply reaches the uplink just after the opportunity of its ms when
    // the delay is whole ms, so it waits ~1 ms there (as in Mahimahi).
    for delay in [10.0, 25.5] {
        let emu = Emulator::start(config(120.0, delay), &server, &ue).unwrap();
        let min = ping_min_ms(&ue, emu.outside_addr(), 30);
        eprintln!("delay {delay} ms: ping min RTT {min} ms");
        let want = 2.0 * delay;
        assert!(
            min >= want && min <= want + 1.5,
            "delay {delay} ms each way: ping min RTT {min} ms"
        );
        let s = emu.stop().unwrap();
        assert!(
            s.downlink.departures >= 30 && s.uplink.departures >= 30,
            "{s:?}"
        );
    }
}

/// Streams data from `server` to a reader in `ue` for `secs`; returns the
/// goodput in Mbit/s measured after `warmup` s.
fn tcp_goodput(server: &Netns, ue: &Netns, server_addr: Ipv4Addr, secs: f64, warmup: f64) -> f64 {
    let listener = server
        .run(move || TcpListener::bind(SocketAddr::from((server_addr, 0))).unwrap())
        .unwrap();
    // Loss-based, so it fills the queue (the host default may be bbr).
    sockopt::set_congestion(&listener, "cubic").unwrap();
    let port = listener.local_addr().unwrap().port();
    let done = Arc::new(AtomicBool::new(false));
    let sender_done = done.clone();
    let sender = std::thread::spawn(move || {
        let (mut s, _) = listener.accept().unwrap();
        let chunk = vec![7u8; 64 * 1024];
        while !sender_done.load(Ordering::Relaxed) {
            if s.write_all(&chunk).is_err() {
                break;
            }
        }
    });
    let mut conn = ue
        .run(move || {
            TcpStream::connect_timeout(
                &SocketAddr::from((server_addr, port)),
                Duration::from_secs(5),
            )
            .unwrap()
        })
        .unwrap();
    conn.set_read_timeout(Some(Duration::from_secs(2))).unwrap();
    let start = Instant::now();
    let mut buf = vec![0u8; 256 * 1024];
    let (mut bytes, mut t0) = (0u64, None);
    let mut dumped = false;
    while start.elapsed().as_secs_f64() < secs {
        if std::env::var("EMU_DEBUG").is_ok() && !dumped && start.elapsed().as_secs_f64() > 3.0 {
            dumped = true;
            let o = ue.command("ss").args(["-tinm"]).output().unwrap();
            eprintln!("UE: {}", String::from_utf8_lossy(&o.stdout));
            let o = server.command("ss").args(["-tinm"]).output().unwrap();
            eprintln!("SERVER: {}", String::from_utf8_lossy(&o.stdout));
        }
        let n = conn.read(&mut buf).unwrap();
        if start.elapsed().as_secs_f64() >= warmup {
            if t0.is_none() {
                t0 = Some(Instant::now());
            } else {
                bytes += n as u64;
            }
        }
    }
    let goodput = bytes as f64 * 8.0 / t0.unwrap().elapsed().as_secs_f64() / 1e6;
    done.store(true, Ordering::Relaxed);
    drop(conn);
    sender.join().unwrap();
    goodput
}

/// A parsed log: per-line events, for checking the emulator's own account.
#[derive(Default, Debug)]
struct LogCheck {
    arrivals: u64,
    departures: u64,
    drops: u64,
    tail_drops: u64,
    max_in_queue: i64,
    occupancy_at_tail_drops: Vec<i64>,
    opportunities: u64,
}

fn check_log(path: &Path) -> LogCheck {
    let text = std::fs::read_to_string(path).unwrap();
    let mut c = LogCheck::default();
    let mut lines = text.lines();
    assert!(lines.next().unwrap().starts_with("# base timestamp: "));
    assert!(lines
        .next()
        .unwrap()
        .starts_with("# c2tcp-emu v1 direction="));
    let mut in_queue = 0i64;
    let mut last_t = 0.0f64;
    // An arrival the queue refuses is logged `+` then `d` at once: the
    // occupancy after a `+` counts only once the next line shows it stayed.
    let mut after_arrival = false;
    for line in lines {
        if line.starts_with("# flow ") {
            continue;
        }
        let f: Vec<&str> = line.split(' ').collect();
        if after_arrival && f[1] != "d" {
            c.max_in_queue = c.max_in_queue.max(in_queue);
        }
        after_arrival = f[1] == "+";
        let t: f64 = f[0].parse().unwrap_or_else(|_| panic!("bad line {line}"));
        assert_eq!(
            f[0].split('.').nth(1).map(str::len),
            Some(3),
            "3 decimals: {line}"
        );
        assert!(t >= last_t, "time goes forward: {line} after {last_t}");
        last_t = t;
        match f[1] {
            "+" => {
                assert_eq!(f.len(), 4, "{line}");
                c.arrivals += 1;
                in_queue += 1;
            }
            "-" => {
                assert_eq!(f.len(), 5, "{line}");
                c.departures += 1;
                in_queue -= 1;
            }
            "d" => {
                assert_eq!(f.len(), 5, "{line}");
                c.drops += 1;
                if f[3] == "tail" {
                    c.tail_drops += 1;
                    // The dropped packet was counted in on its `+` line.
                    c.occupancy_at_tail_drops.push(in_queue - 1);
                }
                in_queue -= 1;
            }
            "#" => c.opportunities += 1,
            other => panic!("unknown event {other} in {line}"),
        }
        if !after_arrival {
            c.max_in_queue = c.max_in_queue.max(in_queue);
        }
    }
    if after_arrival {
        c.max_in_queue = c.max_in_queue.max(in_queue);
    }
    c
}

#[test]
fn constant_12_mbps_tcp_through_a_100_packet_droptail() {
    if !testkit::require_root("constant_12_mbps_tcp_through_a_100_packet_droptail") {
        return;
    }
    let _serial = serial();
    let dir = tempfile::tempdir().unwrap();
    let server = Netns::new("server").unwrap();
    let ue = Netns::new("ue").unwrap();
    let mut cfg = config(12.0, 5.0);
    cfg.downlink.queue = "droptail:packets=100".parse().unwrap();
    cfg.uplink.queue = "droptail:packets=100".parse().unwrap();
    cfg.downlink.log = Some(dir.path().join("down.log"));
    cfg.uplink.log = Some(dir.path().join("up.log"));
    let emu = Emulator::start(cfg, &server, &ue).unwrap();
    let goodput = tcp_goodput(&server, &ue, emu.outside_addr(), 6.0, 2.0);
    // 12 Mbit/s of 1500-byte IP packets is 11.58 Mbit/s of TCP payload.
    assert!(
        (11.0..=12.1).contains(&goodput),
        "goodput {goodput:.2} Mbit/s through a 12 Mbit/s trace"
    );
    // Let the queues drain so every arrival has departed or been dropped.
    let t = Instant::now();
    while emu.stats().downlink.queued + emu.stats().uplink.queued > 0
        && t.elapsed() < Duration::from_secs(3)
    {
        std::thread::sleep(Duration::from_millis(50));
    }
    std::thread::sleep(Duration::from_millis(50));
    let stats = emu.stop().unwrap();
    let d = &stats.downlink;
    let secs = d.opportunities as f64 / 1000.0;
    let delivered = d.departure_bytes as f64 * 8.0 / secs / 1e6;
    assert!(
        delivered <= 12.0 + 1e-9 && delivered > 8.0,
        "{delivered} Mbit/s over {secs} s"
    );
    let down = check_log(&dir.path().join("down.log"));
    let up = check_log(&dir.path().join("up.log"));
    for (name, log, s) in [
        ("downlink", &down, &stats.downlink),
        ("uplink", &up, &stats.uplink),
    ] {
        assert_eq!(
            log.departures,
            log.arrivals - log.drops,
            "{name}: departures = arrivals - drops"
        );
        assert_eq!(
            (log.arrivals, log.departures, log.drops),
            (s.arrivals, s.departures, s.drops.total()),
            "{name}"
        );
        assert_eq!(log.opportunities, s.opportunities, "{name}");
    }
    // The log counts a partly sent packet until its last byte leaves, so it
    // may show the 100 queued plus that one.
    assert!(
        down.max_in_queue <= 101,
        "droptail 100 held {} packets",
        down.max_in_queue
    );
    assert!(down.tail_drops > 0, "TCP filled the queue: {down:?}");
    assert!(
        down.occupancy_at_tail_drops
            .iter()
            .all(|&n| n == 100 || n == 101),
        "{:?}",
        down.occupancy_at_tail_drops
    );
    let sched = d.sched_error.as_ref().unwrap();
    assert!(sched.p99_us < 2_000, "{sched:?}");
}

/// Many opportunities per ms: departures of one instant are merged into GSO
/// writes, and the receiving kernel takes every one of them.
#[test]
fn bursts_at_300_mbps_reach_tcp_intact() {
    if !testkit::require_root("bursts_at_300_mbps_reach_tcp_intact") {
        return;
    }
    let _serial = serial();
    let server = Netns::new("server").unwrap();
    let ue = Netns::new("ue").unwrap();
    let emu = Emulator::start(config(300.0, 1.0), &server, &ue).unwrap();
    let goodput = tcp_goodput(&server, &ue, emu.outside_addr(), 4.0, 1.5);
    let stats = emu.stop().unwrap();
    let link = 300.0 * 1448.0 / 1500.0;
    assert!(
        goodput > 0.9 * link && goodput <= link * 1.01,
        "goodput {goodput:.1} of {link:.1} Mbit/s"
    );
    assert_eq!(
        stats.downlink.write_errors + stats.uplink.write_errors,
        0,
        "{stats:?}"
    );
    let d = &stats.downlink;
    assert_eq!(d.departures, d.arrivals - d.drops.total() - d.queued);
}

/// A packet above the 1500-byte MTU (here: someone raised the device's MTU)
/// is dropped and counted as oversize, and the emulator carries on.
#[test]
fn oversize_packets_are_dropped_and_counted() {
    if !testkit::require_root("oversize_packets_are_dropped_and_counted") {
        return;
    }
    let _serial = serial();
    let server = Netns::new("server").unwrap();
    let ue = Netns::new("ue").unwrap();
    let emu = Emulator::start(config(12.0, 1.0), &server, &ue).unwrap();
    let (outside_if, _) = emu.ifnames();
    server
        .ip(&["link", "set", "dev", &outside_if, "mtu", "1800"])
        .unwrap();
    let dst = emu.inside_addr().to_string();
    // 1672 bytes of ICMP payload: a 1700-byte IP packet, not fragmented.
    let big = server
        .command("ping")
        .args(["-n", "-c", "2", "-W", "1", "-M", "do", "-s", "1672", &dst])
        .output()
        .unwrap();
    assert!(
        !big.status.success(),
        "the oversize echo must not get through"
    );
    let small = server
        .command("ping")
        .args(["-n", "-c", "1", "-W", "2", &dst])
        .output()
        .unwrap();
    assert!(small.status.success(), "the emulator still forwards");
    let s = emu.stop().unwrap();
    assert_eq!(s.downlink.drops.oversize, 2, "{s:?}");
    assert_eq!(s.downlink.departures, 1);
}

#[test]
fn nothing_is_left_after_stop_or_drop() {
    if !testkit::require_root("nothing_is_left_after_stop_or_drop") {
        return;
    }
    let _serial = serial();
    let server = Netns::new("server").unwrap();
    let ue = Netns::new("ue").unwrap();
    let links = |ns: &Netns| {
        String::from_utf8(
            netns::run_checked(ns.command("ip").args(["-o", "link"]), "ip link")
                .unwrap()
                .stdout,
        )
        .unwrap()
    };
    let routes = |ns: &Netns| {
        String::from_utf8(
            netns::run_checked(
                ns.command("ip").args(["route", "show", "table", "all"]),
                "ip route",
            )
            .unwrap()
            .stdout,
        )
        .unwrap()
    };
    let emu = Emulator::start(config(12.0, 1.0), &server, &ue).unwrap();
    let subnet = emu.subnet();
    assert!(links(&server).contains("c2e") && links(&ue).contains("c2e"));
    assert!(routes(&server).contains(&format!("unreachable {subnet}")));
    emu.stop().unwrap();
    assert!(
        !links(&server).contains("c2e") && !links(&ue).contains("c2e"),
        "{}",
        links(&server)
    );
    assert!(!routes(&server).contains("100.96."), "{}", routes(&server));
    // Dropping without stop tears down too.
    let emu = Emulator::start(config(12.0, 1.0), &server, &ue).unwrap();
    drop(emu);
    assert!(!links(&server).contains("c2e"), "{}", links(&server));
    assert!(!routes(&server).contains("100.96."), "{}", routes(&server));
}

/// CellReplay's model through real TUN devices (a synthetic pair): the
/// downlink's light trace says 30 ms of base delay and trains of 5 light
/// opportunities 5 ms apart (2.4 Mbit/s), its heavy trace 12 Mbit/s. A
/// lone ping sees the base delay (plus at most the uplink's 1-ms grid),
/// and a bulk TCP transfer, far longer than a train, the heavy rate.
#[test]
fn cellreplay_ping_sees_the_base_delay_and_bulk_tcp_the_heavy_rate() {
    if !testkit::require_root("cellreplay_ping_sees_the_base_delay_and_bulk_tcp_the_heavy_rate") {
        return;
    }
    let _serial = serial();
    let light = emu::cellreplay::LightTrace::parse(
        Path::new("light"),
        "0 30 0 5 10 15 20\n1000 30 0 5 10 15 20\n2000 30 0 5 10 15 20\n",
    )
    .unwrap();
    let mut cfg = config(12.0, 0.0);
    cfg.downlink.cellreplay = Some(Arc::new(emu::cellreplay::CellReplay {
        light: Arc::new(light),
        offsets: None,
        idle_us: 0,
    }));
    let server = Netns::new("server").unwrap();
    let ue = Netns::new("ue").unwrap();
    let emu = Emulator::start(cfg, &server, &ue).unwrap();
    let min = ping_min_ms(&server, emu.inside_addr(), 20);
    eprintln!("cellreplay: ping min RTT {min} ms");
    assert!(
        (30.0..=31.5).contains(&min),
        "ping min RTT {min} ms, base delay 30 ms"
    );
    let goodput = tcp_goodput(&server, &ue, emu.outside_addr(), 6.0, 2.0);
    eprintln!("cellreplay: bulk TCP {goodput:.2} Mbit/s (heavy 12, light trains 2.4)");
    assert!(
        goodput > 9.0 && goodput < 12.1,
        "bulk TCP at {goodput:.2} Mbit/s: the heavy trace's 12 Mbit/s expected"
    );
    emu.stop().unwrap();
}
