// SPDX-License-Identifier: GPL-2.0-only
//! The receiver-side RTT without timestamps: how long the last advertised
//! window of data took to arrive (the estimate of DRS and of DRWA without
//! timestamps, DFCSD's line 8). The controller uses it where the
//! timestamp echo ([`crate::echo`]) is not available, or when asked to
//! (`RttSource::WindowSpan`).
//!
//! Why not the kernel's `tcpi_rcv_rtt`, which Linux computes from TCP
//! timestamps? Since Linux 6.16 (`tcp_rcv_rtt_update`) that estimate is
//! built for receive-buffer autotuning, not for delay: a sample below the
//! current value replaces it at once, a larger one moves it by only 1/8,
//! and only while the receive queue is empty. It therefore lags a growing
//! queue and drops to the floor after every loss: on this project's shaped
//! veth (see `docs/receiver-side.md`) it read about half the sender's RTT
//! while Cubic filled the queue. Vegas' backlog needs the current RTT, so
//! the controller measures it from what the socket shows every tick:
//! `tcpi_bytes_received` (in-order bytes) and `tcpi_rcv_wnd` (the window
//! just advertised). When the advertised window binds, the sender sends one
//! window per RTT, so the time the last `rcv_wnd` bytes took to arrive is
//! the RTT, queueing included. When the sender is held back by its own cwnd
//! instead, the span is longer than the RTT: the Vegas difference then
//! reads `rwnd − rate · baseRTT`, the backlog the flow would build if it
//! used the whole window, which pulls rwnd down to where it binds. The
//! resolution is one tick at each end of the span.
//!
//! The kernel's estimate is still read: its minimum is a good base RTT (its
//! first samples come from the first flight, before any queue builds), and
//! [`crate::RttSource::KernelTimestamps`] selects it as the current RTT for
//! comparison.

/// Arrival history of one flow, in a ring allocated once, when the flow
/// registers: each time the count of bytes received moved, the new count and
/// the interval `(t_before, t_seen]` in which those bytes arrived (the
/// previous tick, the tick that saw them), so a crossing can be placed
/// inside its tick instead of at its end.
#[derive(Debug)]
pub struct Arrivals {
    ring: Box<[Arrival]>,
    head: usize,
    len: usize,
    last_tick_us: Option<u64>,
}

#[derive(Debug, Clone, Copy, Default)]
struct Arrival {
    t_before: u64,
    t_seen: u64,
    bytes: u64,
}

impl Arrivals {
    /// `capacity` arrivals are kept: with a 1 ms tick, 8192 cover >= 8 s.
    pub fn with_capacity(capacity: usize) -> Arrivals {
        Arrivals {
            ring: vec![Arrival::default(); capacity.max(2)].into_boxed_slice(),
            head: 0,
            len: 0,
            last_tick_us: None,
        }
    }

    fn at(&self, i: usize) -> Arrival {
        self.ring[(self.head + i) % self.ring.len()]
    }

    /// The latest arrival: (time seen, cumulative bytes).
    pub fn last(&self) -> Option<(u64, u64)> {
        (self.len > 0).then(|| {
            let a = self.at(self.len - 1);
            (a.t_seen, a.bytes)
        })
    }

    /// Records the count seen at the tick `t_us`; only growth is stored.
    pub fn push(&mut self, t_us: u64, bytes: u64) {
        let t_before = self.last_tick_us.replace(t_us).unwrap_or(t_us);
        if self.last().is_some_and(|(_, b)| bytes <= b) {
            return;
        }
        let a = Arrival {
            t_before,
            t_seen: t_us,
            bytes,
        };
        let cap = self.ring.len();
        if self.len < cap {
            self.ring[(self.head + self.len) % cap] = a;
            self.len += 1;
        } else {
            self.ring[self.head] = a;
            self.head = (self.head + 1) % cap;
        }
    }

    /// When the count passed `bytes`, interpolated within the tick that saw
    /// it pass, if the history reaches back that far.
    pub fn time_past(&self, bytes: u64) -> Option<u64> {
        if self.len == 0 || self.at(0).bytes > bytes {
            return None;
        }
        // Binary search for the first entry above `bytes`; entry 0 is not.
        let (mut lo, mut hi) = (0, self.len);
        while hi - lo > 1 {
            let mid = (lo + hi) / 2;
            if self.at(mid).bytes > bytes {
                hi = mid;
            } else {
                lo = mid;
            }
        }
        if hi == self.len {
            return None;
        }
        let (prev, a) = (self.at(hi - 1), self.at(hi));
        let frac = (bytes - prev.bytes) as f64 / (a.bytes - prev.bytes) as f64;
        Some(a.t_before + (frac * (a.t_seen - a.t_before) as f64) as u64)
    }

    /// How long the last `window` bytes took to arrive, measured up to the
    /// latest arrival (an idle flow does not inflate it).
    pub fn span(&self, window: u64) -> Option<u64> {
        let (t_last, b_last) = self.last()?;
        if window == 0 || b_last < window {
            return None;
        }
        self.time_past(b_last - window)
            .map(|t| t_last.saturating_sub(t))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn span_is_the_time_one_window_took() {
        let mut a = Arrivals::with_capacity(64);
        // 1000 bytes per ms, sampled every ms.
        for ms in 0..=40u64 {
            a.push(ms * 1000, ms * 1000);
        }
        assert_eq!(a.span(10_000), Some(10_000));
        // Crossings inside a tick are interpolated.
        assert_eq!(a.span(25_500), Some(25_500));
        assert_eq!(a.span(0), None);
        // More than was ever received: no estimate.
        assert_eq!(a.span(50_000), None);
    }

    #[test]
    fn idle_ticks_do_not_stretch_the_span() {
        let mut a = Arrivals::with_capacity(64);
        a.push(0, 0);
        a.push(1_000, 5_000);
        a.push(2_000, 5_000); // nothing arrived in (1, 2] ms
        a.push(3_000, 10_000); // all of it in (2, 3] ms
        a.push(4_000, 10_000);
        a.push(5_000, 10_000);
        assert_eq!(a.last(), Some((3_000, 10_000)));
        assert_eq!(a.span(5_000), Some(1_000));
        assert_eq!(a.time_past(5_000), Some(2_000));
        assert_eq!(a.time_past(7_500), Some(2_500));
    }

    #[test]
    fn the_ring_forgets_the_oldest() {
        let mut a = Arrivals::with_capacity(8);
        for i in 0..20u64 {
            a.push(i * 10, i * 100);
        }
        // Kept: counts 1200..=1900 at 120..=190 µs.
        assert_eq!(a.span(700), Some(70));
        assert_eq!(a.span(800), None);
    }
}
