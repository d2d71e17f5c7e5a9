// SPDX-License-Identifier: GPL-2.0-only
//! The sender's window: N packets in flight, N moved to keep the RTT in
//! [750 ms, 3 000 ms] (Sprout §4.1). Sans-I/O: the socket program asks
//! [`Window::next`] for packets to send and hands it each ACK.
use std::collections::VecDeque;

use crate::wire::{Ack, Data};
use crate::{RTT_HIGH_MS, RTT_LOW_MS};

/// The window a capture starts with (grows by one per ACK from there).
pub const INITIAL_N: u32 = 10;
/// A packet unacknowledged this long is counted lost and leaves the flight,
/// so lost ACKs cannot freeze the window (twice the highest RTT allowed).
pub const LOSS_AFTER_US: u64 = 2 * RTT_HIGH_MS * 1000;

#[derive(Debug)]
pub struct Window {
    n: u32,
    next_seq: u64,
    /// Packets in flight, oldest first: (seq, send time µs).
    flight: VecDeque<(u64, u64)>,
    /// Once an RTT of 750 ms has been seen, every packet says so.
    saturated: bool,
    /// N shrinks at most once per RTT: only for ACKs of packets sent after
    /// the last decrease.
    shrunk_at_seq: u64,
    last_rtt_us: u64,
    acked: u64,
    lost: u64,
}

impl Default for Window {
    fn default() -> Self {
        Self::new()
    }
}

impl Window {
    pub fn new() -> Self {
        Window {
            n: INITIAL_N,
            next_seq: 0,
            flight: VecDeque::with_capacity(8192),
            saturated: false,
            shrunk_at_seq: 0,
            last_rtt_us: 0,
            acked: 0,
            lost: 0,
        }
    }

    /// The next packet to send now, if the flight has room.
    pub fn next(&mut self, now_us: u64) -> Option<Data> {
        if self.flight.len() >= self.n as usize {
            return None;
        }
        let d = Data {
            seq: self.next_seq,
            sent_us: now_us,
            saturated: self.saturated,
        };
        self.flight.push_back((d.seq, now_us));
        self.next_seq += 1;
        Some(d)
    }

    /// An ACK: everything up to its seq leaves the flight (the link is FIFO;
    /// older packets without an ACK were lost), and its RTT moves N.
    pub fn on_ack(&mut self, ack: &Ack, now_us: u64) {
        let mut found = false;
        while let Some(&(seq, _)) = self.flight.front() {
            if seq > ack.seq {
                break;
            }
            self.flight.pop_front();
            if seq == ack.seq {
                found = true;
            } else {
                self.lost += 1;
            }
        }
        if !found {
            return; // a duplicate, or an ACK of a packet already counted lost
        }
        self.acked += 1;
        let rtt_us = now_us.saturating_sub(ack.sent_us);
        self.last_rtt_us = rtt_us;
        if rtt_us < RTT_LOW_MS * 1000 {
            self.n += 1;
        } else {
            self.saturated = true;
            if rtt_us > RTT_HIGH_MS * 1000 && ack.seq >= self.shrunk_at_seq {
                self.n = (self.n - 1).max(1);
                self.shrunk_at_seq = self.next_seq;
            }
        }
    }

    /// Counts as lost what has waited longer than [`LOSS_AFTER_US`].
    pub fn expire(&mut self, now_us: u64) {
        while let Some(&(_, sent)) = self.flight.front() {
            if now_us.saturating_sub(sent) < LOSS_AFTER_US {
                break;
            }
            self.flight.pop_front();
            self.lost += 1;
        }
    }

    pub fn n(&self) -> u32 {
        self.n
    }
    pub fn in_flight(&self) -> usize {
        self.flight.len()
    }
    pub fn saturated(&self) -> bool {
        self.saturated
    }
    pub fn last_rtt_ms(&self) -> f64 {
        self.last_rtt_us as f64 / 1000.0
    }
    pub fn sent(&self) -> u64 {
        self.next_seq
    }
    pub fn acked(&self) -> u64 {
        self.acked
    }
    pub fn lost(&self) -> u64 {
        self.lost
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ack(seq: u64, sent_us: u64) -> Ack {
        Ack { seq, sent_us }
    }

    #[test]
    fn fills_the_window_then_waits() {
        let mut w = Window::new();
        let sent: Vec<_> = std::iter::from_fn(|| w.next(0)).collect();
        assert_eq!(sent.len(), INITIAL_N as usize);
        assert!(sent.iter().all(|d| !d.saturated));
    }

    #[test]
    fn grows_below_750_ms_holds_between_and_shrinks_once_per_rtt_above_3_s() {
        let mut w = Window::new();
        while w.next(0).is_some() {}
        w.on_ack(&ack(0, 0), 100_000); // 100 ms
        assert_eq!(w.n(), INITIAL_N + 1);
        assert!(!w.saturated());
        w.on_ack(&ack(1, 0), 1_000_000); // 1 s: hold, saturated from now on
        assert_eq!(w.n(), INITIAL_N + 1);
        assert!(w.saturated());
        assert!(w.next(1_000_000).unwrap().saturated);
        w.on_ack(&ack(2, 0), 4_000_000); // 4 s: shrink...
        assert_eq!(w.n(), INITIAL_N);
        w.on_ack(&ack(3, 0), 4_000_000); // ... not again within this RTT
        assert_eq!(w.n(), INITIAL_N);
    }

    #[test]
    fn a_skipped_seq_is_lost_and_a_silent_flight_expires() {
        let mut w = Window::new();
        while w.next(0).is_some() {}
        w.on_ack(&ack(3, 0), 10_000);
        assert_eq!((w.acked(), w.lost(), w.in_flight()), (1, 3, 6));
        w.on_ack(&ack(3, 0), 20_000); // duplicate: nothing
        assert_eq!(w.acked(), 1);
        w.expire(LOSS_AFTER_US);
        assert_eq!((w.lost(), w.in_flight()), (9, 0));
    }
}
