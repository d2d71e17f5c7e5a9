// SPDX-License-Identifier: GPL-2.0-only
//! CoDel (RFC 8289), with µs times: drops at dequeue once the sojourn time
//! has stayed above `target` for an `interval`, then at intervals shrinking
//! as interval/√count while it stays above. The size limit drops at the tail.
use super::{DropReason, Drops, Fifo, Limit, Queue};
use crate::clock::Micros;
use crate::packet::Packet;

/// Below this backlog CoDel never drops (RFC 8289's maxpacket: one MTU).
const MAX_PACKET: usize = 1500;

#[derive(Debug)]
pub struct CoDel {
    fifo: Fifo,
    target: Micros,
    interval: Micros,
    first_above_time: Micros,
    drop_next: Micros,
    count: u32,
    lastcount: u32,
    dropping: bool,
}

impl CoDel {
    pub fn new(limit: Limit, target: Micros, interval: Micros) -> CoDel {
        CoDel {
            fifo: Fifo::new(limit),
            target,
            interval,
            first_above_time: 0,
            drop_next: 0,
            count: 0,
            lastcount: 0,
            dropping: false,
        }
    }

    fn control_law(&self, t: Micros, count: u32) -> Micros {
        t + (self.interval as f64 / (count as f64).sqrt()) as Micros
    }

    /// Pops the head and says whether it may be dropped.
    fn dodequeue(&mut self, now: Micros) -> (Option<Packet>, bool) {
        let Some(p) = self.fifo.pop() else {
            self.first_above_time = 0;
            return (None, false);
        };
        let sojourn = now.saturating_sub(p.arrival);
        let mut ok_to_drop = false;
        if sojourn < self.target || self.fifo.bytes() <= MAX_PACKET {
            self.first_above_time = 0;
        } else if self.first_above_time == 0 {
            self.first_above_time = now + self.interval;
        } else if now >= self.first_above_time {
            ok_to_drop = true;
        }
        (Some(p), ok_to_drop)
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
        let (mut p, ok_to_drop) = self.dodequeue(now);
        p.as_ref()?;
        if self.dropping {
            if !ok_to_drop {
                self.dropping = false;
            }
            while self.dropping && now >= self.drop_next {
                drops.push((
                    p.take().expect("head present while dropping"),
                    DropReason::Codel,
                ));
                self.count += 1;
                let (next, ok) = self.dodequeue(now);
                p = next;
                if p.is_none() || !ok {
                    self.dropping = false;
                } else {
                    self.drop_next = self.control_law(self.drop_next, self.count);
                }
            }
        } else if ok_to_drop {
            drops.push((p.take().expect("head present"), DropReason::Codel));
            p = self.dodequeue(now).0;
            self.dropping = true;
            let delta = self.count.wrapping_sub(self.lastcount);
            self.count = if delta > 1 && now.saturating_sub(self.drop_next) < 16 * self.interval {
                delta
            } else {
                1
            };
            self.drop_next = self.control_law(now, self.count);
            self.lastcount = self.count;
        }
        p
    }

    fn fifo(&self) -> &Fifo {
        &self.fifo
    }
    fn fifo_mut(&mut self) -> &mut Fifo {
        &mut self.fifo
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
        let mut q = CoDel::new(Limit::default(), 5_000, 100_000);
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
}
