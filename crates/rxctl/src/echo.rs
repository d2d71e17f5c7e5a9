// SPDX-License-Identifier: GPL-2.0-only
//! The timestamp-echo RTT: DFCSD's own RTT where TCP timestamps are on
//! (Algorithm 1, lines 10–12; DRWA's and DRS's "with timestamps" estimate).
//!
//! Every ACK the receiver sends carries its clock in TSval; the sender
//! echoes the TSval of the latest ACK it took in (TS.Recent, RFC 7323 §4.3)
//! in the TSecr of every segment it sends after it. So a data segment's
//! arrival time minus the time the receiver first sent its TSecr is one
//! round trip, queueing included, whatever limits the sender: a sender held
//! by its own cwnd (slow start, after a loss) sends on the ACK that opened
//! it, and its segments show the path's RTT, where the time an advertised
//! window takes to arrive ([`crate::estimator`]) shows the sender's pace.
//!
//! The kernel measures the same thing (`tcp_rcv_rtt_measure_ts`) but keeps
//! only a filtered value (see [`crate::estimator`]), so the controller takes
//! the samples itself from the UE's packet tap ([`crate::tap`]): the time
//! each TSval first left, then each echo's arrival.
//!
//! Linux's TSval clock ticks once per millisecond (unless a route turns on
//! `tcp_usec_ts`): the first ACK to carry a TSval starts the clock, so a
//! segment echoing a TSval that several ACKs carried reads up to one tick
//! long, as the kernel's own estimate does. A TSval is remembered in a ring
//! of [`SLOTS`] indexed by its low bits; an echo older than that (8 s at
//! 1 kHz) or of a TSval never seen leaving gives no sample.

/// TSvals remembered per flow: 8.2 s at Linux's 1 kHz timestamp clock.
pub const SLOTS: usize = 8192;
const UNSET: u64 = u64::MAX;

/// When each of our recent TSvals first left, for one flow. Allocated
/// once, at registration.
#[derive(Debug)]
pub struct EchoClock {
    slots: Box<[(u32, u64)]>,
}

impl Default for EchoClock {
    fn default() -> Self {
        EchoClock {
            slots: vec![(0, UNSET); SLOTS].into_boxed_slice(),
        }
    }
}

impl EchoClock {
    /// An ACK of ours carrying `tsval` left at `t_us`.
    pub fn sent(&mut self, tsval: u32, t_us: u64) {
        let s = &mut self.slots[tsval as usize % SLOTS];
        if s.0 != tsval || s.1 == UNSET {
            *s = (tsval, t_us);
        }
    }

    /// A segment echoing `tsecr` arrived at `t_us`: the round trip, if that
    /// TSval was seen leaving (and not before `t_us`).
    pub fn echoed(&self, tsecr: u32, t_us: u64) -> Option<u64> {
        let (val, sent) = self.slots[tsecr as usize % SLOTS];
        (val == tsecr && sent != UNSET && sent <= t_us).then(|| t_us - sent)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_round_trip_runs_from_the_first_ack_carrying_the_tsval() {
        let mut c = EchoClock::default();
        c.sent(100, 1_000);
        c.sent(100, 1_600); // same clock tick: the first one counts
        c.sent(101, 2_000);
        assert_eq!(c.echoed(100, 41_000), Some(40_000));
        assert_eq!(c.echoed(101, 41_500), Some(39_500));
        // Never seen leaving, or "arriving" before it left.
        assert_eq!(c.echoed(99, 41_000), None);
        assert_eq!(c.echoed(101, 1_000), None);
    }

    #[test]
    fn a_tsval_older_than_the_ring_is_forgotten() {
        let mut c = EchoClock::default();
        c.sent(5, 0);
        c.sent(5 + SLOTS as u32, 9_000_000);
        assert_eq!(c.echoed(5, 9_100_000), None);
        assert_eq!(c.echoed(5 + SLOTS as u32, 9_100_000), Some(100_000));
    }

    #[test]
    fn the_clock_wraps_with_tsval() {
        let mut c = EchoClock::default();
        c.sent(u32::MAX, 10);
        c.sent(0, 20);
        assert_eq!(c.echoed(u32::MAX, 110), Some(100));
        assert_eq!(c.echoed(0, 120), Some(100));
    }
}
