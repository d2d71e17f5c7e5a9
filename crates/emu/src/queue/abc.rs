// SPDX-License-Identifier: GPL-2.0-only
//! ABC's router (Accel-Brake Control, Goyal et al., NSDI 2020): a FIFO that
//! marks every ECN-capable packet it sends either *accelerate* (left ECT) or
//! *brake* (set CE); an ABC sender grows its window by one per accelerate
//! and shrinks it by one per brake, so the fraction of accelerates steers
//! the senders' rate to a target rate each RTT.
//!
//! At each ECT departure, over the last `WINDOW` (20 ms):
//!   μ  = dequeue calls per ms (the link's capacity: the link calls dequeue
//!        at each delivery opportunity it has room in, also when empty),
//!   cr = ECT packets sent per ms,
//!   x  = (queued packets + 1) / μ, the queueing delay in ms,
//!   tr = η·cr − (μ/δ)·(x − dt)⁺          (target rate),
//!   f  = min(max(tr / (2·cr), 0), 1)      (accelerate fraction);
//! a token bucket turns f into marks without randomness: `credits` gains f
//! per ECT packet (0.49 per empty dequeue, so idle capacity earns
//! accelerates), an accelerate spends one credit, a packet finding at most
//! one credit is braked; credits are capped at 5. Non-ECT packets pass
//! untouched and uncounted.
//!
//! Constants are the authors' published code's (prateshg/ABC-NSDI2020,
//! mahimahi's cellular_packet_queue.cc, and exp.sh's arguments
//! `qdelay_ref=50,beta=75`): η = 0.98, δ = 100 ms / β(0.75) = 133 ms,
//! dt = 50 ms, a 20 ms rate window, 5 initial and maximum credits. Where
//! ours differs: the paper's target rate uses η·μ; the code (and we) use
//! η·cr and give idle dequeues 0.49 credits instead; the window keeps µs
//! times, not whole ms; with no capacity measured yet (μ = 0) the delay
//! counts as infinite rather than dividing by zero; a CE packet is sent as a
//! brake without spending or earning beyond f, as theirs.
use std::collections::VecDeque;

use super::{Arg, Discipline, DropReason, Drops, Fifo, Limit, Queue, QueueSpec};
use crate::clock::Micros;
use crate::packet::{ecn, Packet};

/// The rate-measurement window, µs.
pub const WINDOW: Micros = 20_000;
/// η: the share of the current rate the target keeps with no excess delay.
pub const ETA: f64 = 0.98;
/// Credits at start and at most.
pub const MAX_CREDITS: f64 = 5.0;
/// Credits an empty dequeue (an unused opportunity) earns.
pub const IDLE_CREDIT: f64 = 0.49;

#[derive(Debug)]
pub struct Abc {
    fifo: Fifo,
    /// dt, ms.
    delay_threshold_ms: f64,
    /// δ, ms.
    delta_ms: f64,
    /// Times of dequeue calls (empty ones and ECT departures) in the window.
    capacity: VecDeque<Micros>,
    /// Times of ECT departures in the window.
    ect: VecDeque<Micros>,
    credits: f64,
}

/// Drops times older than `WINDOW` before `now` (keeping at least one) and
/// records `now`; returns the rate over the window, events per ms.
fn windowed_rate(times: &mut VecDeque<Micros>, now: Micros) -> f64 {
    while times.len() > 1 && now - times[0] > WINDOW {
        times.pop_front();
    }
    times.push_back(now);
    (times.len() - 1) as f64 * 1000.0 / WINDOW as f64
}

/// The accelerate fraction for a capacity `mu` and ECT rate `cr` (per ms),
/// a queueing delay `x` and threshold `dt` (ms) and a δ of `delta` ms.
pub fn accelerate_fraction(mu: f64, cr: f64, x: f64, dt: f64, delta: f64) -> f64 {
    if cr <= 0.0 {
        return 0.0;
    }
    let target = ETA * cr - mu / delta * (x - dt).max(0.0);
    (target / (2.0 * cr)).clamp(0.0, 1.0)
}

impl Abc {
    pub fn new(limit: Limit, delay_threshold: Micros, delta: Micros) -> Abc {
        Abc {
            fifo: Fifo::new(limit),
            delay_threshold_ms: delay_threshold as f64 / 1000.0,
            delta_ms: delta as f64 / 1000.0,
            capacity: VecDeque::with_capacity(4096),
            ect: VecDeque::with_capacity(4096),
            credits: MAX_CREDITS,
        }
    }
}

impl Discipline for Abc {
    const NAME: &'static str = "abc";
    const ABOUT: &'static str = "ABC's accelerate/brake marking of ECN-capable packets (NSDI'20)";
    /// The authors' runs' dt and δ = 100 ms / β 0.75.
    const ARGS: &'static [Arg] = &[
        Arg::ms(
            "qdelay_ref",
            50.0,
            (0.1, 10_000.0),
            "ABC's delay threshold dt, above which the target rate drains the queue; the authors' runs' value",
        ),
        Arg::ms(
            "delta",
            133.333,
            (1.0, 100_000.0),
            "ABC's drain time constant delta = 100 ms / beta 0.75",
        ),
    ];
    fn from_spec(spec: &QueueSpec, _seed: u64) -> Abc {
        Abc::new(spec.limit, spec.micros("qdelay_ref"), spec.micros("delta"))
    }
}

impl Queue for Abc {
    fn enqueue(&mut self, p: Packet, _now: Micros, drops: &mut Drops) {
        if self.fifo.fits(p.len) {
            self.fifo.push(p);
        } else {
            drops.push((p, DropReason::Tail));
        }
    }

    fn dequeue(&mut self, now: Micros, _drops: &mut Drops) -> Option<Packet> {
        let Some(mut p) = self.fifo.pop() else {
            windowed_rate(&mut self.capacity, now);
            self.credits += IDLE_CREDIT;
            return None;
        };
        if p.ecn() == ecn::NOT_ECT {
            return Some(p);
        }
        let mu = windowed_rate(&mut self.capacity, now);
        let cr = windowed_rate(&mut self.ect, now);
        let x = if mu > 0.0 {
            (self.fifo.packets() + 1) as f64 / mu
        } else {
            f64::INFINITY
        };
        self.credits += accelerate_fraction(mu, cr, x, self.delay_threshold_ms, self.delta_ms);
        if self.credits > 1.0 {
            if p.ecn() != ecn::CE {
                self.credits -= 1.0;
            }
        } else {
            p.mark_ce();
        }
        self.credits = self.credits.min(MAX_CREDITS);
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

    /// A link of one opportunity per ms with `backlog` ECT packets kept
    /// queued (so cr = μ = 1/ms): the share of accelerates over 4 s.
    fn accelerate_share(backlog: usize) -> f64 {
        let mut q = Abc::new(Limit::default(), 50_000, 133_333);
        let mut drops = Drops::new();
        let (mut sent, mut accel) = (0u32, 0u32);
        for ms in 0..5000u64 {
            let now = ms * 1000;
            while q.packets() < backlog {
                q.enqueue(ipv4(1500, ecn::ECT0, 1, now), now, &mut drops);
            }
            let p = q.dequeue(now, &mut drops).expect("backlogged");
            if ms >= 1000 {
                sent += 1;
                accel += (!p.marked) as u32;
            }
        }
        accel as f64 / sent as f64
    }

    #[test]
    fn the_accelerate_share_follows_the_formula() {
        // After the dequeue, `backlog - 1` wait: x = backlog ms.
        for backlog in [5usize, 60, 100, 150] {
            let expect = accelerate_fraction(1.0, 1.0, backlog as f64, 50.0, 133.333);
            let got = accelerate_share(backlog);
            assert!(
                (got - expect).abs() < 0.01,
                "backlog {backlog}: {got} vs {expect}"
            );
        }
        // Worked values: no excess delay gives η/2; 100 ms of delay gives
        // (0.98 − 50/133.3)/2 ≈ 0.30; a large excess gives 0 (all brakes).
        assert!((accelerate_fraction(1.0, 1.0, 5.0, 50.0, 133.333) - 0.49).abs() < 1e-9);
        assert!((accelerate_fraction(1.0, 1.0, 100.0, 50.0, 133.333) - 0.3025).abs() < 1e-3);
        assert_eq!(accelerate_fraction(1.0, 1.0, 400.0, 50.0, 133.333), 0.0);
    }

    #[test]
    fn idle_capacity_earns_accelerates_and_not_ect_passes() {
        // One ECT packet every other opportunity: each earns f = η/2 and
        // the empty dequeue after it 0.49, 0.98 credits a packet, so 98 %
        // are accelerates.
        let mut q = Abc::new(Limit::default(), 50_000, 133_333);
        let mut drops = Drops::new();
        let (mut marks, mut sent) = (0, 0);
        for ms in 0..20_000u64 {
            let now = ms * 1000;
            if ms % 2 == 0 {
                q.enqueue(ipv4(1500, ecn::ECT0, 1, now), now, &mut drops);
            }
            if let Some(p) = q.dequeue(now, &mut drops) {
                marks += p.marked as usize;
                sent += 1;
            }
        }
        let brakes = marks as f64 / sent as f64;
        assert!((brakes - 0.02).abs() < 0.005, "{brakes}");
        let mut q = Abc::new(Limit::default(), 50_000, 133_333);
        for ms in 0..2000u64 {
            q.enqueue(ipv4(1500, ecn::NOT_ECT, 1, 0), 0, &mut drops);
            let p = q.dequeue(ms * 1000, &mut drops).unwrap();
            assert!(!p.marked && p.ecn() == ecn::NOT_ECT);
        }
    }
}
