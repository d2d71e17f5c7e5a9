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
//!
//! Two readings of those two rules ([`Drain`]): the paper's text (§3.4:
//! each tick drains the estimate by that tick's forecast delivery), which
//! the rules above follow; and the authors' code (alfalfa's
//! `sproutconn.cc`, the sender the paper's and NATCP's experiments ran),
//! which drains the estimate at each tick by the forecast's *cumulative*
//! count up to that tick, so the estimate empties after a tick or two and
//! the window opens wider, and whose window is the forecast of ticks
//! cur+1..cur+5 with no look-ahead. docs/sprout.md measures both.
//! - Minimum RTT: when feedback advances the received-or-lost count, the
//!   time since the last byte it covers was sent; the smallest such sample.
//! - Time-to-next: 0 while the window allows another full packet; otherwise
//!   the heartbeat interval, the longest the sender will stay silent.
//! - Heartbeats: a header-only datagram when nothing was sent for an interval;
//!   the interval doubles (up to a cap) while no feedback reports a delivery
//!   since the last heartbeat: in an outage they only pile up in the queue.
//! - Throwaway: the seq of the oldest datagram sent within the reorder window
//!   (10 ms); the receiver writes off everything before it.
//!
//! The heartbeats' schedule is `heartbeat.rs`'s, the minimum RTT
//! `min_rtt.rs`'s.
use std::collections::VecDeque;

use crate::wire::{self, Data, Feedback, DATA_HEADER};
use crate::MAX_HORIZON;

mod heartbeat;
mod min_rtt;
#[cfg(test)]
mod tests;

use heartbeat::Heartbeats;
use min_rtt::MinRtt;

/// The authors' sender starts from the forecast of a uniform prior, a flight
/// of several packets; we start with TCP's IW10. A first flight that shows
/// the receiver a burst matters: a receiver whose first ticks see one
/// heartbeat each infers ~50 packets/s, and at such rates the 5% forecast
/// is too small to ever fill the pipe (docs/sprout.md, "low-rate stall").
pub const INITIAL_WINDOW_PACKETS: u64 = 10;

/// How the queue estimate drains and the window reads the forecast.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Drain {
    /// The paper's text: each tick drains the tick's own forecast delivery;
    /// the window is the forecast of the current tick and the next
    /// `target_ticks - 1` (plus the RTT look-ahead if on).
    #[default]
    Paper,
    /// alfalfa's sproutconn.cc: each tick drains the cumulative forecast up
    /// to it; the window is the forecast of the `target_ticks` ticks after
    /// the current one; no look-ahead.
    Authors,
}

/// Cap of the heartbeat backoff. During an outage the authors' fixed 50-ms
/// heartbeats all queue at the bottleneck and arrive together when the link
/// returns, where the first would have said what they all say; backing off
/// keeps ~5 per 2-s outage instead of 40 (docs/sprout.md, "heartbeats").
/// Capped so a lost heartbeat costs at most a second of silence.
pub const HEARTBEAT_MAX_US: u64 = 1_000_000;

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
    /// false is the paper's window. Not with `Drain::Authors`.
    pub rtt_lookahead: bool,
    pub drain: Drain,
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
            drain: Drain::Paper,
            initial_window: INITIAL_WINDOW_PACKETS * crate::DEFAULT_PACKET_SIZE as u64,
        }
    }

    /// The authors' sender (alfalfa's sproutconn.cc): their drain and
    /// window, no look-ahead.
    pub fn authors(session: u32) -> Self {
        SenderConfig {
            rtt_lookahead: false,
            drain: Drain::Authors,
            ..SenderConfig::new(session)
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
    heartbeats: Heartbeats,
    /// (send time, seq) of the datagrams sent within the reorder window.
    recent: VecDeque<(u64, u64)>,
    min_rtt: MinRtt,
    pub counters: SenderCounters,
}

impl Sender {
    pub fn new(cfg: SenderConfig) -> Self {
        assert!(cfg.packet_size >= DATA_HEADER && cfg.packet_size <= wire::MAX_DATAGRAM);
        assert!(cfg.target_ticks >= 1 && cfg.tick_us > 0);
        Sender {
            heartbeats: Heartbeats::new(cfg.heartbeat_us, cfg.heartbeat_max_us),
            cfg,
            next_seq: 0,
            next_pkt: 0,
            forecast: None,
            cur: 0,
            queue_est: 0,
            recent: VecDeque::new(),
            min_rtt: MinRtt::new(),
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
        self.min_rtt.on_feedback(now_us, fb.received_or_lost);
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

    /// The smallest RTT seen, µs (0 before the first sample).
    pub fn min_rtt_us(&self) -> u64 {
        self.min_rtt.get_us()
    }

    /// Moves into the forecast tick `now` falls in, draining the estimate.
    fn advance(&mut self, now_us: u64) {
        let Some(f) = &self.forecast else { return };
        let elapsed = now_us.saturating_sub(f.at_us) / self.cfg.tick_us;
        let target = (elapsed as usize).min(f.n - 1);
        while self.cur < target {
            let drained = match self.cfg.drain {
                Drain::Paper if self.cur > 0 => f.counts[self.cur] - f.counts[self.cur - 1],
                Drain::Paper | Drain::Authors => f.counts[self.cur],
            };
            self.queue_est = self.queue_est.saturating_sub(drained);
            self.cur += 1;
        }
    }

    fn window_now(&self) -> u64 {
        let Some(f) = &self.forecast else {
            return self.cfg.initial_window.saturating_sub(self.queue_est);
        };
        if self.cfg.drain == Drain::Authors {
            let end = (self.cur + self.cfg.target_ticks).min(f.n - 1);
            return (f.counts[end] - f.counts[self.cur]).saturating_sub(self.queue_est);
        }
        let before = if self.cur == 0 {
            0
        } else {
            f.counts[self.cur - 1]
        };
        let lookahead = if self.cfg.rtt_lookahead {
            (self.min_rtt.get_us() / self.cfg.tick_us) as usize
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

    fn heartbeat_due_us(&self, now_us: u64) -> u64 {
        self.heartbeats.due_us(now_us, self.counters.received_bytes)
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
        self.heartbeats
            .on_send(now_us, heartbeat, self.counters.received_bytes);
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
        self.min_rtt.on_send(now_us, seq + n as u64);
        self.next_seq += n as u64;
        self.next_pkt += 1;
        self.queue_est += n as u64;
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
