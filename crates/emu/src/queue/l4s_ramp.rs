// SPDX-License-Identifier: GPL-2.0-only
//! A cell's L4S marker: one FIFO per UE, as a RAN's per-bearer buffer is
//! (packets never overtake each other, whatever their ECN field), which
//! marks L4S packets CE at dequeue with a probability that ramps linearly
//! with their own sojourn time:
//!
//!   p = 0                                  sojourn ≤ markfree
//!   p = (sojourn − markfree) / (markfull − markfree)   in between
//!   p = 1                                  sojourn ≥ markfull
//!
//! Only ECT(1) packets (RFC 9331's L4S identifier; CE ones are left as
//! they are) are marked: a classic ECN sender (ECT(0)) would take a mark
//! as a loss, so 3GPP's L4S marking and this queue leave it alone. Classic
//! packets meet a droptail FIFO (the size limit), and so do L4S ones when
//! it is full.
//!
//! Its defaults (markfree 4 ms, markfull 14 ms) are those of Deutsche
//! Telekom's `sch_janz` 5G-slice emulator (qvest-digital/sch_jens,
//! `janz_sqi.h`), which marks at dequeue with the same linear ramp. (A
//! `docsis` preset of 0.476-1 ms was once offered here; it was not DOCSIS's:
//! Low Latency DOCSIS marks on an *estimated* delay, bytes over the rate,
//! with a floor of two frames at that rate. `l4s_cell`'s `docsis` law is.)
//!
//! With `stale=1`, sch_janz's stale-packet check runs every 200 ms: if the
//! oldest packet is older than 100 ms it is dropped, and every packet older
//! than 500 ms is dropped (logged `stale`).
//!
//! Where ours differs from sch_janz: janz is itself the shaper, so a packet
//! that reaches an idle janz is sent at once (its `notbefore` starts from
//! now) and its sojourn is only the time the packets ahead of it took;
//! here the trace is the shaper and the ramp reads a sojourn that includes
//! the wait for the next delivery opportunity, so it marks packets that had
//! no queue ahead of them (docs/l4s.md). janz marks any ECN-capable packet
//! (ECT(0) too) and drops the oldest packet, not the arriving one, when
//! full; it has three FIFOs by IP TOS in its default mode (we model its
//! "qosmode 1", one FIFO, the mode its authors call the closest to a RAN);
//! its rate and handovers are ours to emulate through the trace.
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

use super::{Arg, Discipline, DropReason, Drops, Fifo, Limit, Queue, QueueSpec};
use crate::clock::Micros;
use crate::packet::{ecn, Packet};

/// sch_janz's drop-check period and ages.
const STALE_CHECK: Micros = 200_000;
const STALE_ONE: Micros = 100_000;
const STALE_ALL: Micros = 500_000;

/// The ramp's marking probability at a sojourn of `sojourn` µs.
pub fn ramp_probability(sojourn: Micros, markfree: Micros, markfull: Micros) -> f64 {
    if sojourn >= markfull {
        1.0
    } else if sojourn <= markfree {
        0.0
    } else {
        (sojourn - markfree) as f64 / (markfull - markfree) as f64
    }
}

#[derive(Debug)]
pub struct L4sRamp {
    fifo: Fifo,
    markfree: Micros,
    markfull: Micros,
    /// The next stale-packet check, when enabled.
    next_check: Option<Micros>,
    stale: bool,
    rng: StdRng,
}

impl L4sRamp {
    pub fn new(
        limit: Limit,
        markfree: Micros,
        markfull: Micros,
        stale: bool,
        seed: u64,
    ) -> L4sRamp {
        L4sRamp {
            fifo: Fifo::new(limit),
            markfree,
            markfull,
            next_check: None,
            stale,
            rng: StdRng::seed_from_u64(seed),
        }
    }

    /// sch_janz's drop check, for every period due by `now`. The FIFO did
    /// not change since the last event, so each missed check is replayed
    /// with the ages it would have seen at its own time.
    fn drop_stale(&mut self, now: Micros, drops: &mut Drops) {
        if !self.stale {
            return;
        }
        let mut at = *self.next_check.get_or_insert(now + STALE_CHECK);
        while at <= now {
            let older = |f: &Fifo, age: Micros| {
                f.head().is_some_and(|p| at.saturating_sub(p.arrival) > age)
            };
            if older(&self.fifo, STALE_ONE) {
                drops.push((self.fifo.pop().expect("head"), DropReason::Stale));
            }
            while older(&self.fifo, STALE_ALL) {
                drops.push((self.fifo.pop().expect("head"), DropReason::Stale));
            }
            at += STALE_CHECK;
        }
        self.next_check = Some(at);
    }
}

impl Discipline for L4sRamp {
    const NAME: &'static str = "l4s_ramp";
    const ABOUT: &'static str =
        "a cell's L4S marker: one FIFO marking ECT(1) on a sojourn ramp (docs/l4s.md)";
    /// sch_janz's defaults (the `janz` preset).
    const ARGS: &'static [Arg] = &[
        Arg::ms(
            "markfree",
            4.0,
            (0.001, 10_000.0),
            "sojourn below which no L4S packet is marked (sch_janz's)",
        ),
        Arg::ms(
            "markfull",
            14.0,
            (0.001, 10_000.0),
            "sojourn from which every L4S packet is marked (sch_janz's)",
        ),
        Arg::whole(
            "stale",
            0.0,
            (0.0, 1.0),
            "1: sch_janz's stale-packet drops (one over 100 ms, all over 500 ms, every 200 ms)",
        ),
    ];
    fn from_spec(spec: &QueueSpec, seed: u64) -> L4sRamp {
        L4sRamp::new(
            spec.limit,
            spec.micros("markfree"),
            spec.micros("markfull"),
            spec.number("stale") != 0.0,
            seed,
        )
    }
}

impl Queue for L4sRamp {
    fn enqueue(&mut self, p: Packet, now: Micros, drops: &mut Drops) {
        self.drop_stale(now, drops);
        if self.fifo.fits(p.len) {
            self.fifo.push(p);
        } else {
            drops.push((p, DropReason::Tail));
        }
    }

    fn dequeue(&mut self, now: Micros, drops: &mut Drops) -> Option<Packet> {
        self.drop_stale(now, drops);
        let mut p = self.fifo.pop()?;
        if p.ecn() == ecn::ECT1 {
            p.l4s = true;
            let prob =
                ramp_probability(now.saturating_sub(p.arrival), self.markfree, self.markfull);
            if prob >= 1.0 || (prob > 0.0 && self.rng.gen::<f64>() < prob) {
                p.mark_ce();
            }
        } else if p.ecn() == ecn::CE {
            p.l4s = true;
        }
        Some(p)
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
    use super::*;
    use crate::packet::testpkt::ipv4;

    /// The share of 20 000 packets with ECN field `field` marked when each
    /// leaves after exactly `sojourn` µs, over the janz preset (4–14 ms).
    fn marked_share(field: u8, sojourn: Micros) -> f64 {
        let mut q = L4sRamp::new(Limit::default(), 4_000, 14_000, false, 3);
        let mut drops = Drops::new();
        let mut marks = 0;
        for i in 0..20_000u64 {
            let now = 1_000_000 + i * 100;
            q.enqueue(
                ipv4(1500, field, 1, now - sojourn),
                now - sojourn,
                &mut drops,
            );
            let p = q.dequeue(now, &mut drops).unwrap();
            assert_eq!(p.l4s, field & ecn::ECT1 != 0);
            marks += p.marked as u32;
        }
        marks as f64 / 20_000.0
    }

    #[test]
    fn the_marking_probability_ramps_between_the_thresholds() {
        assert_eq!(marked_share(ecn::ECT1, 0), 0.0);
        assert_eq!(marked_share(ecn::ECT1, 4_000), 0.0, "at markfree: none");
        for (sojourn, want) in [(6_500, 0.25), (9_000, 0.5), (11_500, 0.75)] {
            let got = marked_share(ecn::ECT1, sojourn);
            assert!((got - want).abs() < 0.015, "{sojourn} µs: {got} vs {want}");
        }
        assert_eq!(marked_share(ecn::ECT1, 14_000), 1.0, "at markfull: all");
        assert_eq!(marked_share(ecn::ECT1, 200_000), 1.0);
        assert_eq!(ramp_probability(800, 476, 1_000), 324.0 / 524.0);
    }

    #[test]
    fn classic_and_not_ect_packets_are_never_marked() {
        for field in [ecn::NOT_ECT, ecn::ECT0] {
            assert_eq!(marked_share(field, 50_000), 0.0, "field {field:#b}");
        }
    }

    #[test]
    fn one_fifo_keeps_order_and_drops_at_the_tail() {
        let limit = Limit {
            packets: Some(3),
            bytes: None,
        };
        let mut q = L4sRamp::new(limit, 4_000, 14_000, false, 3);
        let mut drops = Drops::new();
        for (i, field) in [ecn::ECT1, ecn::NOT_ECT, ecn::ECT1, ecn::ECT0]
            .iter()
            .enumerate()
        {
            q.enqueue(ipv4(1500, *field, i as u16, 0), 0, &mut drops);
        }
        assert_eq!(drops.len(), 1);
        let order: Vec<u8> = std::iter::from_fn(|| q.dequeue(0, &mut drops))
            .map(|p| p.ecn())
            .collect();
        assert_eq!(order, [ecn::ECT1, ecn::NOT_ECT, ecn::ECT1], "no overtaking");
    }

    #[test]
    fn stale_packets_go_as_sch_janz_drops_them() {
        let mut q = L4sRamp::new(Limit::default(), 4_000, 14_000, true, 3);
        let mut drops = Drops::new();
        // Ten packets queued at 0; nothing leaves until 600 ms.
        for i in 0..10u16 {
            q.enqueue(ipv4(1500, ecn::NOT_ECT, i, 0), 0, &mut drops);
        }
        // The 200 ms check: the head is 200 ms old, over 100 ms: one goes.
        q.enqueue(ipv4(1500, ecn::NOT_ECT, 99, 200_000), 200_000, &mut drops);
        assert_eq!(drops.len(), 1);
        // At 600 ms the check due at 400 ms is replayed (one more goes),
        // then 600 ms's: one more, and every packet over 500 ms; the one
        // queued at 200 ms stays.
        let p = q.dequeue(600_000, &mut drops).unwrap();
        assert!(drops.iter().all(|(_, r)| *r == DropReason::Stale));
        assert_eq!(drops.len(), 10);
        assert_eq!(p.arrival, 200_000);
    }
}
