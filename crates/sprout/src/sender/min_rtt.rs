// SPDX-License-Identifier: GPL-2.0-only
//! The sender's minimum RTT: when feedback advances the received-or-lost
//! count, the time since the last byte it covers was sent is a sample; the
//! smallest sample is kept.
use std::collections::VecDeque;

/// Datagrams remembered for RTT samples while feedback is missing.
const MAX_UNREPORTED: usize = 1 << 16;

pub(super) struct MinRtt {
    /// (send time, end seq) of the datagrams not yet reported received.
    unreported: VecDeque<(u64, u64)>,
    /// Smallest RTT sample (0: none yet).
    min_us: u64,
}

impl MinRtt {
    pub(super) fn new() -> MinRtt {
        MinRtt {
            unreported: VecDeque::with_capacity(4096),
            min_us: 0,
        }
    }

    /// The smallest RTT seen, µs (0 before the first sample).
    pub(super) fn get_us(&self) -> u64 {
        self.min_us
    }

    /// A datagram ending at byte `end_seq` went out at `now`.
    pub(super) fn on_send(&mut self, now_us: u64, end_seq: u64) {
        if self.unreported.len() >= MAX_UNREPORTED {
            self.unreported.pop_front(); // a receiver silent this long: oldest samples are moot
        }
        self.unreported.push_back((now_us, end_seq));
    }

    /// The datagrams the receiver now reports received (or written off)
    /// are forgotten; the newest of them gives an RTT sample.
    pub(super) fn on_feedback(&mut self, now_us: u64, received_or_lost: u64) {
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
            if self.min_us == 0 || rtt < self.min_us {
                self.min_us = rtt;
            }
        }
    }
}
