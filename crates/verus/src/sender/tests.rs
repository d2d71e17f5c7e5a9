// SPDX-License-Identifier: GPL-2.0-only
//! The sender against scripted acks: slow start, a loss, foreign and stale acks.
use super::*;
use crate::wire::{Packet, ACK_LEN};

const SESSION: u32 = 5;

/// Sends what the sender allows at `now`; returns the stamps.
fn send_all(s: &mut Sender, now: u64) -> Vec<Stamp> {
    let mut buf = vec![0u8; crate::DEFAULT_PACKET_SIZE];
    let mut out = Vec::new();
    s.poll(now);
    while let Some(n) = s.poll_transmit(now, &mut buf) {
        let Ok(Packet::Data(d)) = wire::parse(&buf[..n]) else {
            panic!()
        };
        out.push(d.stamp);
    }
    out
}

fn ack(stamp: Stamp) -> Ack {
    let mut b = [0u8; ACK_LEN];
    let n = wire::write_ack(
        &Ack {
            stamp,
            bytes_received: 1500,
            packets_received: 1,
        },
        &mut b,
    );
    let Ok(Packet::Ack(a)) = wire::parse(&b[..n]) else {
        panic!()
    };
    a
}

#[test]
fn slow_start_doubles_the_flight_per_round_trip() {
    let mut s = Sender::new(SenderConfig::new(SESSION));
    let mut flight = send_all(&mut s, 0);
    let mut t = 0;
    for round in 0..5 {
        assert_eq!(flight.len(), 1 << round, "round {round}");
        t += 20_000;
        for st in &flight {
            assert!(s.on_ack(t, &ack(*st)));
        }
        flight = send_all(&mut s, t);
    }
    assert!(s.in_slow_start());
    assert_eq!(s.profile.point(1), Some(20.0));
    assert_eq!(s.est.d_min, 20.0);
}

/// A packet missing from the acks is lost 150 ms after its gap was seen;
/// the first loss of the phase cuts the window to M × the lost packet's.
#[test]
fn a_loss_cuts_the_window_by_m_and_ends_a_big_slow_start() {
    let mut s = Sender::new(SenderConfig::new(SESSION));
    let mut t = 0;
    let mut flight = send_all(&mut s, t);
    while flight.len() < 40 {
        t += 20_000;
        for st in &flight {
            s.on_ack(t, &ack(*st));
        }
        flight = send_all(&mut s, t);
    }
    // The first packet of this flight is lost, the rest arrive.
    let lost = flight[0];
    t += 20_000;
    for st in &flight[1..] {
        s.on_ack(t, &ack(*st));
    }
    assert_eq!(s.counters.losses, 0);
    s.poll(t + MISSING_EXPIRY_US - 1);
    assert_eq!(s.counters.losses, 0);
    s.poll(t + MISSING_EXPIRY_US);
    assert_eq!(s.counters.losses, 1);
    assert!(s.in_loss_phase());
    assert!(
        !s.in_slow_start(),
        "window {} > 20 ends slow start",
        s.window()
    );
    assert_eq!(s.window(), M_DECREASE * lost.window as f64);
    // A late ack of the lost packet is not taken.
    s.on_ack(t + MISSING_EXPIRY_US + 1, &ack(lost));
    assert_eq!(s.counters.acks_late, 1);
}

#[test]
fn acks_of_other_flows_or_earlier_slow_starts_are_ignored() {
    let mut s = Sender::new(SenderConfig::new(SESSION));
    let flight = send_all(&mut s, 0);
    let mut other = flight[0];
    other.session = SESSION + 1;
    assert!(!s.on_ack(1000, &ack(other)));
    let mut never_sent = flight[0];
    never_sent.seq = 99;
    assert!(!s.on_ack(1000, &ack(never_sent)));
    // Nothing acked within the initial timeout: slow start over, new id.
    s.poll(SS_INIT_TIMEOUT_US);
    assert_eq!(s.counters.slow_start_restarts, 1);
    assert!(!s.on_ack(SS_INIT_TIMEOUT_US + 1, &ack(flight[0])));
    assert_eq!(s.counters.acks_stale, 1);
    assert_eq!(
        (s.counters.acks_other_session, s.counters.acks_inconsistent),
        (1, 1)
    );
}
