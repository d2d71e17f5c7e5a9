// SPDX-License-Identifier: GPL-2.0-only
//! The sender against scripted feedback: the initial window, the window from
//! a forecast, heartbeats and their backoff, throwaway numbers, payloads.
use super::*;
use crate::wire::{parse, Packet};

const P: u64 = 1472;

fn fb(tick: u32, rol: u64, per_tick_pkts: [u64; 8]) -> Feedback {
    let mut counts = [0u64; MAX_HORIZON];
    let mut run = 0;
    for (i, c) in per_tick_pkts.iter().enumerate() {
        run += c * P;
        counts[i] = run;
    }
    Feedback {
        session: 1,
        tick,
        received_or_lost: rol,
        received_bytes: rol,
        n: 8,
        counts,
    }
}

fn drain(s: &mut Sender, now: u64) -> Vec<Data> {
    let mut buf = vec![0u8; 2000];
    let mut out = Vec::new();
    while let Some(n) = s.poll_transmit(now, &mut buf) {
        match parse(&buf[..n]).unwrap() {
            Packet::Data(d) => out.push(d),
            p => panic!("unexpected {p:?}"),
        }
        assert!(out.len() < 10_000);
    }
    out
}

/// No initial window: only heartbeats until a forecast arrives.
fn cfg0() -> SenderConfig {
    SenderConfig {
        initial_window: 0,
        ..SenderConfig::new(1)
    }
}

#[test]
fn payloads_go_out_within_the_window_and_count_as_data() {
    let mut s = Sender::new(SenderConfig::new(1));
    let mut buf = vec![0u8; 2000];
    // Initial window: 10 full packets' worth of bytes.
    assert_eq!(s.payload_room(0), 10 * P as usize - DATA_HEADER);
    assert_eq!(s.forecast_bytes(), None);
    let n = s.send_payload(0, b"an IP packet", false, &mut buf);
    let Ok(Packet::Data(d)) = parse(&buf[..n]) else {
        panic!()
    };
    assert!(d.payload && !d.heartbeat);
    assert_eq!(
        d.time_to_next_ms, 50,
        "nothing follows: the receiver may skip"
    );
    assert_eq!(wire::payload_of(&d, &buf[..n]), b"an IP packet");
    assert_eq!(s.counters.data_packets, 1);
    assert_eq!(s.payload_room(0), 10 * P as usize - n - DATA_HEADER);
    // Idle after that: a heartbeat once the gap passes, not before.
    assert_eq!(s.poll_heartbeat(49_999, &mut buf), None);
    assert_eq!(s.poll_heartbeat(50_000, &mut buf), Some(DATA_HEADER));
    assert!(s.on_feedback(60_000, &fb(1, n as u64, [2; 8])));
    assert_eq!(s.forecast_bytes(), Some(16 * P));
}

#[test]
fn before_a_forecast_one_initial_window_then_heartbeats_go_out() {
    let mut s = Sender::new(SenderConfig::new(1));
    let sent = drain(&mut s, 0);
    assert_eq!(sent.len(), 10);
    assert!(sent.iter().all(|d| !d.heartbeat && d.len == P as usize));
    assert_eq!(sent[9].time_to_next_ms, 50);
    assert!(drain(&mut s, 49_999).is_empty());
    assert_eq!(drain(&mut s, 50_000).len(), 1, "a heartbeat");

    let mut s = Sender::new(cfg0());
    let sent = drain(&mut s, 0);
    assert_eq!(sent.len(), 1);
    assert!(sent[0].heartbeat && sent[0].len == DATA_HEADER && sent[0].time_to_next_ms == 50);
    // The receiver reports the heartbeat (and a forecast of nothing).
    assert!(s.on_feedback(30_000, &fb(1, 48, [0; 8])));
    assert!(drain(&mut s, 49_999).is_empty());
    assert_eq!(s.next_event_us(40_000), 50_000);
    assert_eq!(drain(&mut s, 50_000).len(), 1);
}

#[test]
fn heartbeats_back_off_while_none_is_reported_delivered() {
    // An outage: nothing the sender sends arrives, feedback keeps coming.
    let mut s = Sender::new(cfg0());
    let mut times = Vec::new();
    let mut tick = 1;
    for now in (0..6_000_000u64).step_by(1_000) {
        if now % 20_000 == 0 {
            assert!(s.on_feedback(now, &fb(tick, 0, [0; 8])));
            tick += 1;
        }
        for d in drain(&mut s, now) {
            assert!(d.heartbeat && d.time_to_next_ms == 50);
            times.push(now);
        }
    }
    let gaps: Vec<u64> = times.windows(2).map(|w| w[1] - w[0]).collect();
    // Each unreported heartbeat doubles the gap to the next.
    assert_eq!(gaps[..4], [100_000, 200_000, 400_000, 800_000]);
    assert!(gaps[4..].iter().all(|&g| g == HEARTBEAT_MAX_US), "{gaps:?}");
    // The link returns: a report of the last heartbeat resets the interval.
    let last = *times.last().unwrap();
    let sent = s.bytes_sent();
    assert!(s.on_feedback(last + 30_000, &fb(tick, sent, [0; 8])));
    assert_eq!(s.next_event_us(last + 30_000), last + 50_000);
}

#[test]
fn window_is_five_ticks_of_forecast_minus_the_queue() {
    let mut s = Sender::new(cfg0());
    // One heartbeat: 48 bytes in flight.
    drain(&mut s, 0);
    // 10 packets per tick forecast; receiver has the heartbeat.
    assert!(s.on_feedback(1_000, &fb(1, 48, [10; 8])));
    assert_eq!(s.window(1_000), 50 * P);
    let sent = drain(&mut s, 1_000);
    assert_eq!(sent.len(), 50);
    assert!(sent[..49]
        .iter()
        .all(|d| d.time_to_next_ms == 0 && !d.heartbeat));
    assert_eq!(
        sent[49].time_to_next_ms, 50,
        "the flight's last packet announces the pause"
    );
    assert_eq!(s.queue_estimate(), 50 * P);
    // One tick later 10 packets drained and the horizon moved one tick on.
    assert_eq!(s.window(21_000), 10 * P);
    assert_eq!(drain(&mut s, 21_000).len(), 10);
    assert_eq!(s.window(21_000), 0);
    // A fresh forecast says everything but 20 packets was received.
    let sent_bytes = s.bytes_sent();
    assert!(s.on_feedback(30_000, &fb(2, sent_bytes - 20 * P, [4; 8])));
    assert_eq!(s.queue_estimate(), 20 * P);
    assert_eq!(
        s.window(30_000),
        0,
        "20 packets queued, 20 forecast to drain"
    );
    assert_eq!(s.window(50_000), 4 * P);
}

#[test]
fn queue_estimate_never_goes_negative_and_the_horizon_ends() {
    let mut s = Sender::new(SenderConfig::new(1));
    assert!(s.on_feedback(0, &fb(1, 0, [100, 0, 0, 0, 0, 0, 0, 1])));
    drain(&mut s, 0);
    assert_eq!(s.queue_estimate(), 100 * P);
    // Far past the forecast the queue is drained (not below zero) and
    // only the last tick's drain is left to fill.
    assert_eq!(s.window(10_000_000), P);
    assert_eq!(s.queue_estimate(), 0);
    // In the last tick only that tick's drain counts.
    let mut s = Sender::new(SenderConfig::new(1));
    assert!(s.on_feedback(0, &fb(1, 0, [0, 0, 0, 0, 0, 0, 0, 3])));
    assert_eq!(s.window(1_000_000), 3 * P);
}

#[test]
fn stale_foreign_and_impossible_feedback_is_ignored() {
    let mut s = Sender::new(cfg0());
    drain(&mut s, 0);
    assert!(s.on_feedback(0, &fb(5, 0, [1; 8])));
    assert!(!s.on_feedback(0, &fb(5, 0, [9; 8])));
    assert!(!s.on_feedback(0, &fb(4, 0, [9; 8])));
    let mut other = fb(6, 0, [9; 8]);
    other.session = 2;
    assert!(!s.on_feedback(0, &other));
    assert!(
        !s.on_feedback(0, &fb(6, 1 << 40, [9; 8])),
        "more received than sent"
    );
    assert_eq!(s.window(0), 5 * P - 48);
    let c = &s.counters;
    assert_eq!(
        (
            c.feedback_accepted,
            c.feedback_stale,
            c.feedback_other_session,
            c.feedback_inconsistent
        ),
        (1, 2, 1, 1)
    );
}

#[test]
fn throwaway_points_at_the_oldest_packet_within_10ms() {
    let mut s = Sender::new(SenderConfig::new(1));
    assert!(s.on_feedback(0, &fb(1, 0, [1000; 8])));
    let mut buf = vec![0u8; 2000];
    let mut sent = Vec::new();
    for t in [0u64, 4_000, 8_000, 12_000, 30_000] {
        let n = s.poll_transmit(t, &mut buf).unwrap();
        let Packet::Data(d) = parse(&buf[..n]).unwrap() else {
            panic!()
        };
        sent.push(d);
    }
    assert_eq!(sent[0].throwaway, 0);
    assert_eq!(sent[2].throwaway, 0, "sent 8 ms after the first");
    assert_eq!(sent[3].throwaway, sent[1].seq, "the first is 12 ms old");
    assert_eq!(sent[4].throwaway, sent[4].seq, "nothing within 10 ms");
    assert!(sent
        .windows(2)
        .all(|w| w[1].seq == w[0].seq + w[0].len as u64));
    assert!(sent.windows(2).all(|w| w[1].pkt_no == w[0].pkt_no + 1));
}

#[test]
fn the_window_looks_one_min_rtt_further_ahead() {
    // 10 packets per tick forecast; feedback reports everything received
    // 40 ms after it was sent, so the minimum RTT is two ticks.
    let per_tick = [10u64; 8];
    for (lookahead, want_ticks) in [(false, 5u64), (true, 7)] {
        let mut s = Sender::new(SenderConfig {
            rtt_lookahead: lookahead,
            initial_window: P,
            ..SenderConfig::new(1)
        });
        let mut buf = [0u8; 2000];
        assert!(s.poll_transmit(0, &mut buf).is_some());
        assert!(s.on_feedback(40_000, &fb(1, s.bytes_sent(), per_tick)));
        assert_eq!(s.min_rtt_us(), 40_000);
        assert_eq!(
            s.window(40_000),
            want_ticks * 10 * P,
            "lookahead {lookahead}"
        );
    }
}

/// The two drains of the queue estimate: the paper's takes each tick's own
/// forecast delivery, the authors' code (alfalfa's sproutconn.cc) the
/// cumulative forecast up to that tick, so its estimate empties sooner and
/// its window opens wider; its window is ticks cur+1..cur+5 of the forecast.
#[test]
fn the_authors_sender_drains_the_cumulative_forecast() {
    // Forecast: 10 packets per tick for 8 ticks (cumulative 10, 20, ..., 80).
    let per_tick = [10u64; 8];
    let mut paper = Sender::new(SenderConfig {
        rtt_lookahead: false,
        ..cfg0()
    });
    let mut authors = Sender::new(SenderConfig {
        initial_window: 0,
        ..SenderConfig::authors(1)
    });
    assert_eq!(authors.config().drain, Drain::Authors);
    assert!(!authors.config().rtt_lookahead);
    for s in [&mut paper, &mut authors] {
        // 60 packets sent, none yet received: the queue estimate is 60.
        s.queue_est = 0;
        s.next_seq = 60 * P;
        assert!(s.on_feedback(0, &fb(1, 0, per_tick)));
        assert_eq!(s.queue_estimate(), 60 * P);
    }
    // Tick 0: the paper's window is ticks 0..4 (50 packets) minus 60: none;
    // the authors' ticks 1..5 (counts[5] - counts[0] = 50) minus 60: none.
    assert_eq!((paper.window(0), authors.window(0)), (0, 0));
    // One tick on: the paper drains tick 0's 10 packets, the authors'
    // counts[0] = 10 as well.
    assert_eq!(paper.window(20_000), 0);
    assert_eq!(authors.window(20_000), 0);
    assert_eq!(paper.queue_estimate(), 50 * P);
    assert_eq!(authors.queue_estimate(), 50 * P);
    // Two ticks on: the paper drains tick 1's 10 (40 left), the authors'
    // counts[1] = 20 (30 left). Windows: paper ticks 2..6 = 50 - 40 = 10;
    // authors ticks 3..7 = counts[7] - counts[2] = 50 - 30 = 20.
    assert_eq!(paper.window(40_000), 10 * P);
    assert_eq!(authors.window(40_000), 20 * P);
    // Three ticks: the authors' estimate is gone (30 - counts[2] = 30 - 30).
    authors.window(60_000);
    assert_eq!(authors.queue_estimate(), 0);
    paper.window(60_000);
    assert_eq!(paper.queue_estimate(), 30 * P);
}
