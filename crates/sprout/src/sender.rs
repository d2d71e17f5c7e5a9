// SPDX-License-Identifier: GPL-2.0-only
//! The Sprout sender's logic (paper §3.4–3.5), for an always-backlogged
//! application. Pure: the caller passes the time (µs, any monotonic origin)
//! and sends the datagrams this writes.
//!
//! - Queue estimate: bytes sent minus the receiver's received-or-lost count,
//!   taken when a forecast arrives; then +bytes sent, −the forecast's drain of
//!   each tick that passes, never below zero.
//! - Window: bytes the forecast says will drain in the next `target_ticks`
//!   ticks (100 ms) plus one minimum RTT, minus the queue estimate. The
//!   estimate counts everything not yet reported received, so it holds the
//!   bytes on both propagation legs as well as the queued ones: the paper's
//!   window (100 ms of forecast minus that estimate) shrinks by an RTT of
//!   sending and, at a 40-ms RTT, starves the link (docs/sprout.md,
//!   "the RTT look-ahead"). Looking one minimum RTT further ahead gives
//!   those bytes the forecast drain of the time they spend in flight.
//! - Minimum RTT: when feedback advances the received-or-lost count, the
//!   time since the last byte it covers was sent; the smallest such sample.
//! - Time-to-next: 0 while the window allows another full packet; otherwise
//!   the heartbeat interval, the longest the sender will stay silent.
//! - Heartbeats: a header-only datagram when nothing was sent for an interval;
//!   the interval doubles (up to a cap) while no feedback reports a delivery
//!   since the last heartbeat: in an outage they only pile up in the queue.
//! - Throwaway: the seq of the oldest datagram sent within the reorder window
//!   (10 ms); the receiver writes off everything before it.
use std::collections::VecDeque;

use crate::wire::{self, Data, Feedback, DATA_HEADER};
use crate::MAX_HORIZON;

/// The authors' sender starts from the forecast of a uniform prior, a flight
/// of several packets; we start with TCP's IW10. A first flight that shows
/// the receiver a burst matters: a receiver whose first ticks see one
/// heartbeat each infers ~50 packets/s, and at such rates the 5% forecast
/// is too small to ever fill the pipe (docs/sprout.md, "low-rate stall").
pub const INITIAL_WINDOW_PACKETS: u64 = 10;

/// Cap of the heartbeat backoff. During an outage the authors' fixed 50-ms
/// heartbeats all queue at the bottleneck and arrive together when the link
/// returns, where the first would have said what they all say; backing off
/// keeps ~5 per 2-s outage instead of 40 (docs/sprout.md, "heartbeats").
/// Capped so a lost heartbeat costs at most a second of silence.
pub const HEARTBEAT_MAX_US: u64 = 1_000_000;

/// Datagrams remembered for RTT samples while feedback is missing.
const MAX_UNREPORTED: usize = 1 << 16;

#[derive(Clone, Debug)]
pub struct SenderConfig {
    pub session: u32,
    /// Datagram bytes of a full data packet (UDP payload).
    pub packet_size: usize,
    pub tick_us: u64,
    /// Ticks of forecast the window may fill (paper: 5, i.e. 100 ms).
    pub target_ticks: usize,
    pub heartbeat_us: u64,
    /// Longest heartbeat interval of the backoff.
    pub heartbeat_max_us: u64,
    /// Packets sent further apart than this are assumed not reordered.
    pub reorder_us: u64,
    /// Look one minimum RTT past `target_ticks` (see the module comment);
    /// false is the paper's window.
    pub rtt_lookahead: bool,
    /// Bytes the sender may have in flight before the first forecast.
    pub initial_window: u64,
}

impl SenderConfig {
    pub fn new(session: u32) -> Self {
        SenderConfig {
            session,
            packet_size: crate::DEFAULT_PACKET_SIZE,
            tick_us: 20_000,
            target_ticks: 5,
            // The authors' fallback interval.
            heartbeat_us: 50_000,
            heartbeat_max_us: HEARTBEAT_MAX_US,
            reorder_us: 10_000,
            rtt_lookahead: true,
            initial_window: INITIAL_WINDOW_PACKETS * crate::DEFAULT_PACKET_SIZE as u64,
        }
    }
}

#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct SenderCounters {
    pub data_packets: u64,
    pub heartbeats: u64,
    pub bytes_sent: u64,
    pub feedback_accepted: u64,
    /// Older than (or the same as) a forecast already in use.
    pub feedback_stale: u64,
    pub feedback_other_session: u64,
    /// Claims more bytes received than were sent.
    pub feedback_inconsistent: u64,
    /// The receiver's counts from its latest feedback.
    pub received_or_lost: u64,
    pub received_bytes: u64,
}

struct Forecast {
    counts: [u64; MAX_HORIZON],
    n: usize,
    at_us: u64,
    tick: u32,
}

pub struct Sender {
    cfg: SenderConfig,
    next_seq: u64,
    next_pkt: u64,
    forecast: Option<Forecast>,
    /// Index of the forecast tick we are in.
    cur: usize,
    queue_est: u64,
    last_send_us: Option<u64>,
    /// Silence after which the next heartbeat goes out.
    heartbeat_gap_us: u64,
    /// The receiver's reported byte count when the last heartbeat was sent.
    received_at_heartbeat: Option<u64>,
    /// (send time, seq) of the datagrams sent within the reorder window.
    recent: VecDeque<(u64, u64)>,
    /// (send time, end seq) of the datagrams not yet reported received.
    unreported: VecDeque<(u64, u64)>,
    /// Smallest RTT sample (0: none yet).
    min_rtt_us: u64,
    pub counters: SenderCounters,
}

impl Sender {
    pub fn new(cfg: SenderConfig) -> Self {
        assert!(cfg.packet_size >= DATA_HEADER && cfg.packet_size <= wire::MAX_DATAGRAM);
        assert!(cfg.target_ticks >= 1 && cfg.tick_us > 0);
        Sender {
            heartbeat_gap_us: cfg.heartbeat_us,
            cfg,
            next_seq: 0,
            next_pkt: 0,
            forecast: None,
            cur: 0,
            queue_est: 0,
            last_send_us: None,
            received_at_heartbeat: None,
            recent: VecDeque::new(),
            unreported: VecDeque::with_capacity(4096),
            min_rtt_us: 0,
            counters: SenderCounters::default(),
        }
    }

    pub fn config(&self) -> &SenderConfig {
        &self.cfg
    }

    /// Takes a forecast from the receiver; false if it was not used.
    pub fn on_feedback(&mut self, now_us: u64, fb: &Feedback) -> bool {
        if fb.session != self.cfg.session {
            self.counters.feedback_other_session += 1;
            return false;
        }
        if self.forecast.as_ref().is_some_and(|f| fb.tick <= f.tick) {
            self.counters.feedback_stale += 1;
            return false;
        }
        if fb.received_or_lost > self.next_seq || fb.received_bytes > fb.received_or_lost {
            self.counters.feedback_inconsistent += 1;
            return false;
        }
        self.sample_rtt(now_us, fb.received_or_lost);
        self.forecast = Some(Forecast {
            counts: fb.counts,
            n: fb.n,
            at_us: now_us,
            tick: fb.tick,
        });
        self.cur = 0;
        self.queue_est = self.next_seq - fb.received_or_lost;
        self.counters.feedback_accepted += 1;
        self.counters.received_or_lost = fb.received_or_lost;
        self.counters.received_bytes = fb.received_bytes;
        true
    }

    /// The datagrams the receiver now reports received (or written off)
    /// leave `unreported`; the newest of them gives an RTT sample.
    fn sample_rtt(&mut self, now_us: u64, received_or_lost: u64) {
        let mut newest = None;
        while self
            .unreported
            .front()
            .is_some_and(|&(_, end)| end <= received_or_lost)
        {
            newest = self.unreported.pop_front().map(|(t, _)| t);
        }
        if let Some(sent_us) = newest {
            let rtt = now_us.saturating_sub(sent_us).max(1);
            if self.min_rtt_us == 0 || rtt < self.min_rtt_us {
                self.min_rtt_us = rtt;
            }
        }
    }

    /// The smallest RTT seen, µs (0 before the first sample).
    pub fn min_rtt_us(&self) -> u64 {
        self.min_rtt_us
    }

    /// Moves into the forecast tick `now` falls in, draining the estimate.
    fn advance(&mut self, now_us: u64) {
        let Some(f) = &self.forecast else { return };
        let elapsed = now_us.saturating_sub(f.at_us) / self.cfg.tick_us;
        let target = (elapsed as usize).min(f.n - 1);
        while self.cur < target {
            let before = if self.cur == 0 {
                0
            } else {
                f.counts[self.cur - 1]
            };
            self.queue_est = self.queue_est.saturating_sub(f.counts[self.cur] - before);
            self.cur += 1;
        }
    }

    fn window_now(&self) -> u64 {
        let Some(f) = &self.forecast else {
            return self.cfg.initial_window.saturating_sub(self.queue_est);
        };
        let before = if self.cur == 0 {
            0
        } else {
            f.counts[self.cur - 1]
        };
        let lookahead = if self.cfg.rtt_lookahead {
            (self.min_rtt_us / self.cfg.tick_us) as usize
        } else {
            0
        };
        let end = (self.cur + self.cfg.target_ticks + lookahead - 1).min(f.n - 1);
        (f.counts[end] - before).saturating_sub(self.queue_est)
    }

    /// Bytes the sender may send now.
    pub fn window(&mut self, now_us: u64) -> u64 {
        self.advance(now_us);
        self.window_now()
    }

    pub fn queue_estimate(&self) -> u64 {
        self.queue_est
    }

    pub fn bytes_sent(&self) -> u64 {
        self.next_seq
    }

    pub fn packets_sent(&self) -> u64 {
        self.next_pkt
    }

    /// The gap before the next heartbeat: the base interval after data or a
    /// heartbeat the receiver has since reported a delivery for; otherwise
    /// twice the last gap, up to the cap.
    fn next_heartbeat_gap_us(&self) -> u64 {
        match self.received_at_heartbeat {
            Some(r) if self.counters.received_bytes <= r => (self.heartbeat_gap_us * 2)
                .min(self.cfg.heartbeat_max_us.max(self.cfg.heartbeat_us)),
            _ => self.cfg.heartbeat_us,
        }
    }

    fn heartbeat_due_us(&self, now_us: u64) -> u64 {
        self.last_send_us
            .map_or(now_us, |t| t + self.next_heartbeat_gap_us())
    }

    /// Writes the next datagram to send into `buf` (at least `packet_size`
    /// long), or returns None when the sender must wait. Call until None.
    /// (The always-backlogged sender: full packets of zero padding.)
    pub fn poll_transmit(&mut self, now_us: u64, buf: &mut [u8]) -> Option<usize> {
        self.advance(now_us);
        let size = self.cfg.packet_size as u64;
        let window = self.window_now();
        if window >= size {
            let more = window - size >= size;
            Some(self.emit(now_us, size as usize, false, more, None, buf))
        } else {
            self.poll_heartbeat(now_us, buf)
        }
    }

    /// SproutTunnel's sender: bytes of payload that fit the window now (what
    /// the tunnel's queues may hand over), 0 when none do.
    pub fn payload_room(&mut self, now_us: u64) -> usize {
        self.advance(now_us);
        let room = self.window_now().min(wire::MAX_DATAGRAM as u64) as usize;
        room.saturating_sub(DATA_HEADER)
    }

    /// Sends `payload` in one data datagram (the caller checked
    /// [`Sender::payload_room`]); `more`: another packet follows at once.
    pub fn send_payload(
        &mut self,
        now_us: u64,
        payload: &[u8],
        more: bool,
        buf: &mut [u8],
    ) -> usize {
        self.advance(now_us);
        let len = DATA_HEADER + payload.len();
        self.emit(now_us, len, false, more, Some(payload), buf)
    }

    /// A heartbeat if one is due (nothing sent for the heartbeat gap).
    pub fn poll_heartbeat(&mut self, now_us: u64, buf: &mut [u8]) -> Option<usize> {
        if now_us < self.heartbeat_due_us(now_us) {
            return None;
        }
        Some(self.emit(now_us, DATA_HEADER, true, false, None, buf))
    }

    /// The receiver's latest forecast of bytes delivered over its whole
    /// horizon (None before the first): the tunnel's queue limit.
    pub fn forecast_bytes(&self) -> Option<u64> {
        self.forecast.as_ref().map(|f| f.counts[f.n - 1])
    }

    /// Writes one data datagram and accounts for it.
    fn emit(
        &mut self,
        now_us: u64,
        len: usize,
        heartbeat: bool,
        more: bool,
        payload: Option<&[u8]>,
        buf: &mut [u8],
    ) -> usize {
        let heartbeat_ms = (self.cfg.heartbeat_us / 1000).min(u16::MAX as u64) as u16;
        // Time-to-next is the base interval even for a backed-off heartbeat:
        // a receiver that gets it reports the delivery, which resets the gap.
        let ttn = if more { 0 } else { heartbeat_ms };
        if heartbeat {
            self.heartbeat_gap_us = self.next_heartbeat_gap_us();
            self.received_at_heartbeat = Some(self.counters.received_bytes);
        } else {
            self.heartbeat_gap_us = self.cfg.heartbeat_us;
            self.received_at_heartbeat = None;
        }
        while self
            .recent
            .front()
            .is_some_and(|&(t, _)| t + self.cfg.reorder_us < now_us)
        {
            self.recent.pop_front();
        }
        let seq = self.next_seq;
        let throwaway = self.recent.front().map_or(seq, |&(_, s)| s);
        let d = Data {
            session: self.cfg.session,
            time_to_next_ms: ttn,
            heartbeat,
            payload: payload.is_some(),
            seq,
            throwaway,
            pkt_no: self.next_pkt,
            send_time_us: now_us,
            len,
        };
        let n = match payload {
            Some(p) => wire::write_data_with(&d, p, buf),
            None => wire::write_data(&d, buf),
        };
        self.recent.push_back((now_us, seq));
        if self.unreported.len() >= MAX_UNREPORTED {
            self.unreported.pop_front(); // a receiver silent this long: oldest samples are moot
        }
        self.unreported.push_back((now_us, seq + n as u64));
        self.next_seq += n as u64;
        self.next_pkt += 1;
        self.queue_est += n as u64;
        self.last_send_us = Some(now_us);
        self.counters.bytes_sent += n as u64;
        if heartbeat {
            self.counters.heartbeats += 1;
        } else {
            self.counters.data_packets += 1;
        }
        n
    }

    /// When the sender may next have something to send, if nothing arrives
    /// before: the next forecast tick (the window may open) or a heartbeat.
    pub fn next_event_us(&self, now_us: u64) -> u64 {
        let mut t = self.heartbeat_due_us(now_us);
        if let Some(f) = &self.forecast {
            if self.cur + 1 < f.n {
                t = t.min(f.at_us + (self.cur as u64 + 1) * self.cfg.tick_us);
            }
        }
        t.max(now_us)
    }

    /// The goodbye datagram for the end of the flow.
    pub fn write_bye(&self, buf: &mut [u8]) -> usize {
        wire::write_bye(
            &wire::Bye {
                session: self.cfg.session,
                packets_sent: self.next_pkt,
                bytes_sent: self.next_seq,
            },
            buf,
        )
    }
}

#[cfg(test)]
mod tests {
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
}
