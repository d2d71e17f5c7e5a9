// SPDX-License-Identifier: GPL-2.0-only
//! The emulator's pcapng capture, read back with an independent parser
//! (`pcap-file`), against the log of the same run: a real TCP flow through
//! real TUN devices, a small droptail queue and random loss, so the capture
//! holds arrivals, departures and both kinds of drop.
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::time::{Duration, Instant};

use emu::{DirectionConfig, Emulator, EmulatorConfig, Trace};
use netns::Netns;
use pcap_file::pcapng::blocks::enhanced_packet::EnhancedPacketOption;
use pcap_file::pcapng::{Block, PcapNgReader};

fn constant_trace(mbps: f64) -> Trace {
    Trace {
        path: format!("constant-{mbps}").into(),
        opportunities: emu::synth::constant(mbps, 1000).unwrap(),
    }
}

/// (event, bytes) per line of a log: `+`, `-`, or `d <reason>`.
fn log_events(text: &str) -> Vec<(String, u32)> {
    text.lines()
        .filter(|l| !l.starts_with('#'))
        .filter_map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            let bytes = f.get(2)?.parse().ok()?;
            match f[1] {
                "+" => Some(("arrival".to_string(), bytes)),
                "-" => Some(("departure".to_string(), bytes)),
                "d" => Some((format!("drop {}", f[3]), bytes)),
                _ => None,
            }
        })
        .collect()
}

#[test]
fn capture_parses_and_its_packets_and_drops_are_the_logs() {
    if !testkit::require_root("capture_parses_and_its_packets_and_drops_are_the_logs") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let (log, pcap) = (dir.path().join("down.log"), dir.path().join("down.pcapng"));
    let mut down = DirectionConfig::new(constant_trace(12.0));
    down.queue = "droptail:packets=8".parse().unwrap();
    down.loss = 0.003.into();
    down.log = Some(log.clone());
    down.pcap = Some(pcap.clone());
    let mut cfg = EmulatorConfig::new(down, DirectionConfig::new(constant_trace(12.0)));
    cfg.delay_us = 5_000;
    let server = Netns::new("server").unwrap();
    let ue = Netns::new("ue").unwrap();
    let emu = Emulator::start(cfg, &server, &ue).unwrap();
    let base = emu.outside_addr();
    let listener = server
        .run(move || TcpListener::bind(SocketAddr::from((base, 0))).unwrap())
        .unwrap();
    sockopt::set_congestion(&listener, "cubic").unwrap();
    let port = listener.local_addr().unwrap().port();
    let sender = std::thread::spawn(move || {
        let (mut s, _) = listener.accept().unwrap();
        let chunk = vec![7u8; 64 * 1024];
        let t = Instant::now();
        while t.elapsed() < Duration::from_millis(1500) && s.write_all(&chunk).is_ok() {}
    });
    let mut conn = ue
        .run(move || {
            TcpStream::connect_timeout(&SocketAddr::from((base, port)), Duration::from_secs(5))
                .unwrap()
        })
        .unwrap();
    conn.set_read_timeout(Some(Duration::from_secs(2))).unwrap();
    let mut buf = vec![0u8; 64 * 1024];
    while matches!(conn.read(&mut buf), Ok(n) if n > 0) {}
    sender.join().unwrap();
    let stats = emu.stop().unwrap();

    let want = log_events(&std::fs::read_to_string(&log).unwrap());
    let mut got = Vec::new();
    let file = std::fs::File::open(&pcap).unwrap();
    let mut reader = PcapNgReader::new(file).expect("a pcapng section header");
    let mut last_ts = Duration::ZERO;
    while let Some(block) = reader.next_block() {
        if let Block::EnhancedPacket(p) = block.expect("a well-formed block") {
            let comment = p
                .options
                .iter()
                .find_map(|o| match o {
                    EnhancedPacketOption::Comment(c) => Some(c.to_string()),
                    _ => None,
                })
                .expect("every packet says what happened to it");
            let event = comment.split(" queue_delay").next().unwrap().to_string();
            assert!(
                p.data.len() >= 20 && p.data[0] >> 4 == 4,
                "IPv4 headers kept: {comment}"
            );
            assert!(p.timestamp >= last_ts, "time order");
            last_ts = p.timestamp;
            got.push((event, p.original_len));
        }
    }
    let count = |v: &[(String, u32)], what: &str| v.iter().filter(|e| e.0 == what).count();
    for what in ["arrival", "departure", "drop tail", "drop loss"] {
        eprintln!(
            "{what}: log {}, capture {}",
            count(&want, what),
            count(&got, what)
        );
    }
    assert!(
        count(&want, "drop tail") > 0 && count(&want, "drop loss") > 0,
        "the run drops both ways: {stats:?}"
    );
    assert_eq!(count(&got, "departure") as u64, stats.downlink.departures);
    assert_eq!(got, want, "the capture's packets, in order, are the log's");

    // Wireshark's own reader agrees (tshark: `make deps` installs it).
    let Ok(out) = std::process::Command::new("tshark")
        .args([
            "-r",
            pcap.to_str().unwrap(),
            "-T",
            "fields",
            "-e",
            "frame.comment",
            "-e",
            "frame.len",
        ])
        .output()
    else {
        testkit::skip_or_fail(
            "capture_parses_and_its_packets_and_drops_are_the_logs (tshark part)",
            "no tshark",
        );
        return;
    };
    assert!(
        out.status.success(),
        "tshark: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let tshark: Vec<(String, u32)> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| {
            let (comment, len) = l.rsplit_once('\t').unwrap();
            (
                comment.split(" queue_delay").next().unwrap().to_string(),
                len.parse().unwrap(),
            )
        })
        .collect();
    assert_eq!(tshark.len(), want.len(), "tshark sees every record");
    for what in ["arrival", "departure", "drop tail", "drop loss"] {
        assert_eq!(
            count(&tshark, what),
            count(&want, what),
            "tshark's {what} count"
        );
    }
}
