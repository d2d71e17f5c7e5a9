// SPDX-License-Identifier: GPL-2.0-only
//! CoDel (RFC 8289), with µs times: drops at dequeue once the sojourn time
//! has stayed above `target` for an `interval`, then at intervals shrinking
//! as interval/√count while it stays above. The size limit drops at the tail.
//! With `ecn`, a packet that would be dropped is marked CE instead when it is
//! ECN-capable (RFC 8289 §5.5, as Linux's codel_impl.h: the schedule moves on
//! as if it had been dropped, and the marked packet is sent).
//!
//! The control law's state ([`CodelVars`]) is apart from the FIFO so that
//! fq_codel runs one per flow.
use super::{Arg, Discipline, DropReason, Drops, Fifo, Limit, Queue, QueueSpec};
use crate::clock::Micros;
use crate::packet::Packet;

/// Below this backlog CoDel never drops (RFC 8289's maxpacket: one MTU).
const MAX_PACKET: usize = 1500;

/// CoDel's parameters.
#[derive(Debug, Clone, Copy)]
pub(super) struct CodelParams {
    pub target: Micros,
    pub interval: Micros,
    /// Mark ECN-capable packets instead of dropping them.
    pub ecn: bool,
}

impl CodelParams {
    fn control_law(&self, t: Micros, count: u32) -> Micros {
        t + (self.interval as f64 / (count as f64).sqrt()) as Micros
    }
}

/// CoDel's control-law state for one FIFO.
#[derive(Debug, Default)]
pub(super) struct CodelVars {
    first_above_time: Micros,
    drop_next: Micros,
    count: u32,
    lastcount: u32,
    dropping: bool,
}

impl CodelVars {
    /// Pops the head of `fifo` and says whether it may be dropped.
    fn dodequeue(
        &mut self,
        fifo: &mut Fifo,
        c: &CodelParams,
        now: Micros,
    ) -> (Option<Packet>, bool) {
        let Some(p) = fifo.pop() else {
            self.first_above_time = 0;
            return (None, false);
        };
        let sojourn = now.saturating_sub(p.arrival);
        let mut ok_to_drop = false;
        if sojourn < c.target || fifo.bytes() <= MAX_PACKET {
            self.first_above_time = 0;
        } else if self.first_above_time == 0 {
            self.first_above_time = now + c.interval;
        } else if now >= self.first_above_time {
            ok_to_drop = true;
        }
        (Some(p), ok_to_drop)
    }

    /// RFC 8289's dequeue over `fifo`: the packet to send, if any; CoDel's
    /// drops go to `drops`.
    pub fn dequeue(
        &mut self,
        fifo: &mut Fifo,
        c: &CodelParams,
        now: Micros,
        drops: &mut Drops,
    ) -> Option<Packet> {
        let (mut p, ok_to_drop) = self.dodequeue(fifo, c, now);
        p.as_ref()?;
        if self.dropping {
            if !ok_to_drop {
                self.dropping = false;
            }
            while self.dropping && now >= self.drop_next {
                self.count += 1;
                self.drop_next = c.control_law(self.drop_next, self.count);
                let mut head = p.take().expect("head present while dropping");
                if c.ecn && head.mark_ce() {
                    return Some(head);
                }
                drops.push((head, DropReason::Codel));
                let (next, ok) = self.dodequeue(fifo, c, now);
                p = next;
                if p.is_none() || !ok {
                    self.dropping = false;
                }
            }
        } else if ok_to_drop {
            let mut head = p.take().expect("head present");
            if c.ecn && head.mark_ce() {
                p = Some(head);
            } else {
                drops.push((head, DropReason::Codel));
                p = self.dodequeue(fifo, c, now).0;
            }
            self.dropping = true;
            let delta = self.count.wrapping_sub(self.lastcount);
            self.count = if delta > 1 && now.saturating_sub(self.drop_next) < 16 * c.interval {
                delta
            } else {
                1
            };
            self.drop_next = c.control_law(now, self.count);
            self.lastcount = self.count;
        }
        p
    }
}

#[derive(Debug)]
pub struct CoDel {
    fifo: Fifo,
    params: CodelParams,
    vars: CodelVars,
}

impl CoDel {
    pub fn new(limit: Limit, target: Micros, interval: Micros, ecn: bool) -> CoDel {
        CoDel {
            fifo: Fifo::new(limit),
            params: CodelParams {
                target,
                interval,
                ecn,
            },
            vars: CodelVars::default(),
        }
    }
}

impl Discipline for CoDel {
    const NAME: &'static str = "codel";
    const ABOUT: &'static str =
        "CoDel (RFC 8289): drops (or marks) once the sojourn stays above target";
    /// RFC 8289's target and interval.
    const ARGS: &'static [Arg] = &[
        Arg::ms("target", 5.0, (0.1, 10_000.0), "CoDel target sojourn time"),
        Arg::ms("interval", 100.0, (1.0, 100_000.0), "CoDel interval"),
    ];
    /// Mahimahi's CoDel drops; `ecn=1` marks.
    const ECN: Option<bool> = Some(false);
    fn from_spec(spec: &QueueSpec, _seed: u64) -> CoDel {
        CoDel::new(
            spec.limit,
            spec.micros("target"),
            spec.micros("interval"),
            spec.ecn,
        )
    }
}

impl Queue for CoDel {
    fn enqueue(&mut self, p: Packet, _now: Micros, drops: &mut Drops) {
        if self.fifo.fits(p.len) {
            self.fifo.push(p);
        } else {
            drops.push((p, DropReason::Tail));
        }
    }

    fn dequeue(&mut self, now: Micros, drops: &mut Drops) -> Option<Packet> {
        self.vars.dequeue(&mut self.fifo, &self.params, now, drops)
    }

    fn packets(&self) -> usize {
        self.fifo.packets()
    }
    fn bytes(&self) -> usize {
        self.fifo.bytes()
    }
}

#[cfg(test)]
mod tests {
    use super::super::testutil::*;
    use super::*;

    /// A standing queue served at one packet per ms: no drop until the
    /// sojourn time has exceeded target for a whole interval, then drops
    /// whose spacing follows interval/√count.
    #[test]
    fn drop_schedule_on_a_standing_queue() {
        let mut q = CoDel::new(Limit::default(), 5_000, 100_000, false);
        let mut drops = Drops::new();
        let mut drop_times = Vec::new();
        let mut arrivals = 0u64;
        for ms in 0..1000u64 {
            let now = ms * 1000;
            // Arrivals keep ~50 packets queued, so the sojourn stays far above target.
            while arrivals < ms + 50 {
                q.enqueue(Packet::bare(1500, now), now, &mut drops);
                arrivals += 1;
            }
            q.dequeue(now, &mut drops);
            for (_, r) in drops.drain(..) {
                assert_eq!(r, DropReason::Codel);
                drop_times.push(ms);
            }
        }
        // First drop: sojourn passes 5 ms once 50 packets queue ahead (at once,
        // given 50 ms of backlog), the interval must elapse first.
        assert!(
            drop_times[0] >= 100 && drop_times[0] <= 110,
            "{drop_times:?}"
        );
        let gaps: Vec<u64> = drop_times.windows(2).map(|w| w[1] - w[0]).collect();
        // Gap k (1-based count after the first drop) ≈ 100/√k ms.
        for (k, gap) in gaps.iter().take(8).enumerate() {
            let expect = 100.0 / ((k + 1) as f64).sqrt();
            assert!(
                (*gap as f64 - expect).abs() <= 1.5,
                "gap {k}: {gap} vs {expect:.1}; {drop_times:?}"
            );
        }
        assert!(
            gaps.windows(2).all(|w| w[1] <= w[0]),
            "drops accelerate: {gaps:?}"
        );
    }

    #[test]
    fn no_drops_below_target_and_tail_limit() {
        let mut q = CoDel::new(
            Limit {
                packets: Some(2),
                bytes: None,
            },
            5_000,
            100_000,
            false,
        );
        assert_eq!(
            offer(&mut q, &[1500, 1500, 1500], 0),
            vec![(1500, DropReason::Tail)]
        );
        let mut drops = Drops::new();
        // Served within 4 ms: never above target.
        assert!(q.dequeue(4_000, &mut drops).is_some());
        assert!(q.dequeue(4_000, &mut drops).is_some());
        assert!(q.dequeue(4_000, &mut drops).is_none());
        assert!(drops.is_empty());
    }

    /// A standing queue of packets with ECN field `ecn` served one per ms
    /// for 1 s: (CE marks among the departures, CoDel drops).
    fn standing(ecn_on: bool, field: u8) -> (usize, usize) {
        use crate::packet::testpkt::ipv4;
        let mut q = CoDel::new(Limit::default(), 5_000, 100_000, ecn_on);
        let mut drops = Drops::new();
        let (mut marks, mut dropped, mut arrivals) = (0, 0, 0u64);
        for ms in 0..1000u64 {
            let now = ms * 1000;
            while arrivals < ms + 50 {
                q.enqueue(ipv4(1500, field, 1, now), now, &mut drops);
                arrivals += 1;
            }
            if let Some(p) = q.dequeue(now, &mut drops) {
                marks += p.marked as usize;
                assert_eq!(p.marked, p.ecn() == crate::packet::ecn::CE);
            }
            dropped += drops
                .drain(..)
                .filter(|(_, r)| *r == DropReason::Codel)
                .count();
        }
        (marks, dropped)
    }

    #[test]
    fn ecn_marks_ect_packets_instead_of_dropping_them() {
        use crate::packet::ecn;
        let (no_ecn_marks, no_ecn_drops) = standing(false, ecn::ECT0);
        assert!(no_ecn_marks == 0 && no_ecn_drops > 10, "{no_ecn_drops}");
        for field in [ecn::ECT0, ecn::ECT1] {
            let (marks, drops) = standing(true, field);
            assert_eq!(drops, 0, "an ECT packet is never dropped by CoDel with ecn");
            // Marking does not shorten the queue the way dropping does, so the
            // sojourn stays high and marks come at least as often as drops did.
            assert!(
                marks >= no_ecn_drops,
                "{marks} marks vs {no_ecn_drops} drops"
            );
        }
        let (marks, drops) = standing(true, ecn::NOT_ECT);
        assert!(
            marks == 0 && drops > 10,
            "Not-ECT is still dropped: {drops}"
        );
    }
}
