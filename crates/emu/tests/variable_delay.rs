// SPDX-License-Identifier: GPL-2.0-only
//! A delay trace through the real emulator: UDP datagrams stamped with
//! their send time cross real TUN devices between two namespaces, and the
//! receiver measures each one's one-way delay on the same monotonic clock.
use std::net::{SocketAddr, UdpSocket};
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use emu::clock::now_us;
use emu::delay::DelayTrace;
use emu::{DirectionConfig, Emulator, EmulatorConfig, Trace};
use netns::Netns;

fn constant_trace(mbps: f64) -> Trace {
    Trace {
        path: format!("constant-{mbps}").into(),
        opportunities: emu::synth::constant(mbps, 1000).unwrap(),
    }
}

#[test]
fn a_delay_step_shows_where_the_trace_puts_it_and_nothing_reorders() {
    if !testkit::require_root("a_delay_step_shows_where_the_trace_puts_it_and_nothing_reorders") {
        return;
    }
    // 10 ms, up to 40 ms at 600 ms, back to 10 ms at 1200 ms (emulation time).
    let (up_at, down_at) = (600_000u64, 1_200_000u64);
    let delays = DelayTrace::parse(Path::new("steps"), "0 10\n600 40\n1200 10\n", 1.0).unwrap();
    let mut down = DirectionConfig::new(constant_trace(120.0));
    down.delay_trace = Some(Arc::new(delays));
    let cfg = EmulatorConfig::new(down, DirectionConfig::new(constant_trace(120.0)));
    let server = Netns::new("server").unwrap();
    let ue = Netns::new("ue").unwrap();
    let emu = Emulator::start(cfg, &server, &ue).unwrap();
    let start = emu.start_us();
    let ue_addr = emu.inside_addr();
    let rx = ue
        .run(move || UdpSocket::bind(SocketAddr::from((ue_addr, 0))).unwrap())
        .unwrap();
    rx.set_read_timeout(Some(Duration::from_millis(500)))
        .unwrap();
    let dst = rx.local_addr().unwrap();
    let base = emu.outside_addr();
    let tx = server
        .run(move || UdpSocket::bind(SocketAddr::from((base, 0))).unwrap())
        .unwrap();
    // One datagram a ms from 300 to 1500 ms: (seq, send time µs).
    let sender = std::thread::spawn(move || {
        let mut seq = 0u64;
        while now_us() < start + 300_000 {
            std::thread::sleep(Duration::from_micros(200));
        }
        while now_us() < start + 1_500_000 {
            let mut msg = [0u8; 16];
            msg[..8].copy_from_slice(&seq.to_le_bytes());
            msg[8..].copy_from_slice(&now_us().to_le_bytes());
            tx.send_to(&msg, dst).unwrap();
            seq += 1;
            std::thread::sleep(Duration::from_millis(1));
        }
        seq
    });
    // (seq, sent at, µs since start; one-way delay, µs)
    let mut got: Vec<(u64, u64, u64)> = Vec::new();
    let mut buf = [0u8; 64];
    while let Ok(n) = rx.recv(&mut buf) {
        let at = now_us();
        assert_eq!(n, 16);
        let seq = u64::from_le_bytes(buf[..8].try_into().unwrap());
        let sent = u64::from_le_bytes(buf[8..16].try_into().unwrap());
        got.push((seq, sent - start, at - sent));
    }
    let sent = sender.join().unwrap();
    let stats = emu.stop().unwrap();
    assert_eq!(got.len() as u64, sent, "every datagram arrives: {stats:?}");
    assert!(
        got.windows(2).all(|w| w[1].0 == w[0].0 + 1),
        "datagrams arrive in order"
    );

    // Away from the steps, no datagram is early, and the typical one (the
    // median; our receiving thread is not real-time, so a few wake late on
    // a busy machine) is late by at most a ms of waiting for the trace's
    // next opportunity and a little scheduling.
    for (want_ms, from, to) in [
        (10, 0, up_at - 1_000),
        (40, up_at + 1_000, down_at - 1_000),
        (10, down_at + 31_000, u64::MAX),
    ] {
        let mut owds: Vec<u64> = got
            .iter()
            .filter(|g| g.1 >= from && g.1 < to)
            .map(|g| g.2)
            .collect();
        assert!(
            owds.len() > 200,
            "{want_ms} ms from {from} µs: {} datagrams",
            owds.len()
        );
        owds.sort_unstable();
        let (min, median) = (owds[0], owds[owds.len() / 2]);
        assert!(
            min >= want_ms * 1000 && median <= want_ms * 1000 + 1_500,
            "sent {from}..{to} µs: one-way min {min} µs, median {median} µs; the trace says {want_ms} ms"
        );
    }
    // The rise: it falls between the last datagram that crossed at 10 ms
    // and the first delayed past 25 ms, each within a ms of 600 ms on its
    // side. (Bounding the first slow one alone failed on a busy machine
    // where the sender slept 1.1 ms across the step: a sender gap is not
    // the emulator's error.)
    let i = got.iter().position(|g| g.2 > 25_000).unwrap();
    let (last_fast, first_slow) = (got[i - 1].1, got[i].1);
    assert!(
        last_fast <= up_at + 1_000 && first_slow + 1_000 >= up_at,
        "the step shows between datagrams sent at {last_fast} and {first_slow} µs, the trace puts it at {up_at}"
    );
    // The fall: datagrams sent after 1200 ms are held behind those before
    // it (no overtaking) and so leave together, ~40 ms after the step.
    let last_before = got.iter().rev().find(|g| g.1 < down_at).unwrap();
    let arrival = |g: &(u64, u64, u64)| g.1 + g.2;
    let first_after = got.iter().find(|g| g.1 >= down_at).unwrap();
    assert!(
        arrival(first_after) >= arrival(last_before),
        "{first_after:?} overtook {last_before:?}"
    );
}
