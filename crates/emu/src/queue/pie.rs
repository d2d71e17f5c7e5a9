// SPDX-License-Identifier: GPL-2.0-only
//! PIE (the IETF draft Mahimahi and the C2TCP paper used): drops arrivals at
//! random with a probability that a controller, run every 30 ms, moves with
//! the queueing delay's distance from `qdelay_ref` and its trend. The delay
//! is estimated from the backlog and the measured departure rate. Constants
//! and auto-scaling follow Mahimahi's PIE; times here are µs, delays ms.
//! With `ecn`, an ECN-capable arrival PIE picked to drop is marked CE and
//! queued instead while the probability is at most 10 % (RFC 8033 §5.1's
//! mark_ecnth, as Linux's sch_pie); above it PIE drops ECT packets too.
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

use super::{Arg, Discipline, DropReason, Drops, Fifo, Limit, Queue, QueueSpec};
use crate::clock::Micros;
use crate::packet::Packet;

const ALPHA: f64 = 0.125;
const BETA: f64 = 1.25;
const T_UPDATE: Micros = 30_000;
/// Bytes that must depart before a departure-rate sample is taken.
const DQ_THRESHOLD: usize = 16_384;
/// Below two MTUs of backlog PIE never drops.
const MIN_BACKLOG: usize = 2 * 1500;
/// Above this drop probability ECN-capable packets are dropped too.
const MARK_ECN_THRESHOLD: f64 = 0.1;

#[derive(Debug)]
pub struct Pie {
    fifo: Fifo,
    qdelay_ref_ms: f64,
    max_burst: Micros,
    drop_prob: f64,
    burst_allowance: Micros,
    qdelay_old_ms: f64,
    qdelay_ms: f64,
    /// Departure-rate measurement in progress: bytes counted since `dq_start`.
    dq_count: Option<usize>,
    dq_start: Micros,
    /// Average departure rate, bytes per ms (0 = unknown).
    avg_dq_rate: f64,
    last_update: Option<Micros>,
    rng: StdRng,
    ecn: bool,
}

impl Pie {
    pub fn new(limit: Limit, qdelay_ref: Micros, max_burst: Micros, ecn: bool, seed: u64) -> Pie {
        Pie {
            fifo: Fifo::new(limit),
            qdelay_ref_ms: qdelay_ref as f64 / 1000.0,
            max_burst,
            drop_prob: 0.0,
            burst_allowance: max_burst,
            qdelay_old_ms: 0.0,
            qdelay_ms: 0.0,
            dq_count: None,
            dq_start: 0,
            avg_dq_rate: 0.0,
            last_update: None,
            rng: StdRng::seed_from_u64(seed),
            ecn,
        }
    }

    /// The current drop probability.
    pub fn drop_probability(&self) -> f64 {
        self.drop_prob
    }

    /// Runs the periodic controller for every T_UPDATE period since the last
    /// run (between calls the backlog did not change, so catching up at the
    /// next event is the same as a timer).
    fn update(&mut self, now: Micros) {
        let last = *self.last_update.get_or_insert(now);
        let mut last = last;
        while now - last > T_UPDATE {
            let mut update_prob = true;
            self.qdelay_old_ms = self.qdelay_ms;
            self.qdelay_ms = if self.avg_dq_rate > 0.0 {
                self.fifo.bytes() as f64 / self.avg_dq_rate
            } else {
                0.0
            };
            if self.qdelay_ms == 0.0 && self.fifo.bytes() != 0 {
                update_prob = false;
            }
            let mut p = ALPHA * (self.qdelay_ms - self.qdelay_ref_ms)
                + BETA * (self.qdelay_ms - self.qdelay_old_ms);
            p /= if self.drop_prob < 0.01 {
                128.0
            } else if self.drop_prob < 0.1 {
                32.0
            } else {
                16.0
            };
            self.drop_prob += p;
            if self.drop_prob < 0.0 {
                self.drop_prob = 0.0;
            } else if self.drop_prob > 1.0 {
                self.drop_prob = 1.0;
                update_prob = false;
            }
            if self.qdelay_ms == 0.0 && self.qdelay_old_ms == 0.0 && update_prob {
                self.drop_prob *= 0.98;
            }
            self.burst_allowance = self.burst_allowance.saturating_sub(T_UPDATE);
            last += T_UPDATE;
            let half = self.qdelay_ref_ms / 2.0;
            if self.drop_prob == 0.0
                && self.qdelay_ms < half
                && self.qdelay_old_ms < half
                && self.avg_dq_rate > 0.0
            {
                self.dq_count = None;
                self.avg_dq_rate = 0.0;
                self.burst_allowance = self.max_burst;
            }
        }
        self.last_update = Some(last);
    }

    fn drop_early(&mut self, len: u32) -> bool {
        if self.burst_allowance > 0 {
            return false;
        }
        if self.qdelay_old_ms < self.qdelay_ref_ms / 2.0 && self.drop_prob < 0.2 {
            return false;
        }
        if self.fifo.bytes() + (len as usize) < MIN_BACKLOG {
            return false;
        }
        self.rng.gen::<f64>() < self.drop_prob
    }
}

impl Discipline for Pie {
    const NAME: &'static str = "pie";
    const ABOUT: &'static str = "PIE (the IETF draft Mahimahi and the C2TCP paper used)";
    /// Mahimahi's PIE defaults.
    const ARGS: &'static [Arg] = &[
        Arg::ms(
            "qdelay_ref",
            15.0,
            (0.1, 10_000.0),
            "PIE reference queueing delay",
        ),
        Arg::ms(
            "max_burst",
            150.0,
            (0.001, 100_000.0),
            "PIE maximum burst allowance",
        ),
    ];
    /// Mahimahi's PIE drops; `ecn=1` marks (RFC 8033's mark_ecnth).
    const ECN: Option<bool> = Some(false);
    fn from_spec(spec: &QueueSpec, seed: u64) -> Pie {
        Pie::new(
            spec.limit,
            spec.micros("qdelay_ref"),
            spec.micros("max_burst"),
            spec.ecn,
            seed,
        )
    }
}

impl Queue for Pie {
    fn enqueue(&mut self, mut p: Packet, now: Micros, drops: &mut Drops) {
        self.update(now);
        if !self.fifo.fits(p.len) {
            drops.push((p, DropReason::Tail));
        } else if self.drop_early(p.len) {
            if self.ecn && self.drop_prob <= MARK_ECN_THRESHOLD && p.mark_ce() {
                self.fifo.push(p);
            } else {
                drops.push((p, DropReason::Pie));
            }
        } else {
            self.fifo.push(p);
        }
    }

    fn dequeue(&mut self, now: Micros, _drops: &mut Drops) -> Option<Packet> {
        let p = self.fifo.pop()?;
        if self.fifo.bytes() >= DQ_THRESHOLD && self.dq_count.is_none() {
            self.dq_start = now;
            self.dq_count = Some(0);
        }
        if let Some(count) = self.dq_count.as_mut() {
            *count += p.len as usize;
            if *count > DQ_THRESHOLD {
                let dtime = now - self.dq_start;
                if dtime > 0 {
                    let sample = *count as f64 * 1000.0 / dtime as f64;
                    self.avg_dq_rate = if self.avg_dq_rate == 0.0 {
                        sample
                    } else {
                        self.avg_dq_rate * 0.875 + sample * 0.125
                    };
                    if self.fifo.bytes() < DQ_THRESHOLD {
                        self.dq_count = None;
                    } else {
                        self.dq_count = Some(0);
                        self.dq_start = now;
                    }
                    self.burst_allowance = self.burst_allowance.saturating_sub(dtime);
                }
            }
        }
        self.update(now);
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

    /// Serves one 1500-byte packet per ms while refilling the queue to
    /// `backlog` packets (a queueing delay of ~`backlog` ms) whatever PIE
    /// drops; returns the drop probability every 30 ms for `ms` ms and the
    /// PIE drops seen.
    fn run(backlog: u64, ms: u64) -> (Vec<f64>, usize) {
        let mut q = Pie::new(Limit::default(), 15_000, 150_000, false, 7);
        let mut drops = Drops::new();
        let mut probs = Vec::new();
        let mut pie_drops = 0;
        for t in 0..ms {
            let now = t * 1000;
            for _ in 0..1000 {
                if q.packets() as u64 >= backlog {
                    break;
                }
                q.enqueue(Packet::bare(1500, now), now, &mut drops);
                pie_drops += drops
                    .drain(..)
                    .filter(|(_, r)| *r == DropReason::Pie)
                    .count();
            }
            q.dequeue(now, &mut drops);
            if (t + 1) % 30 == 0 {
                probs.push(q.drop_probability());
            }
        }
        (probs, pie_drops)
    }

    #[test]
    fn drop_probability_rises_with_delay() {
        let (low, low_drops) = run(5, 600); // ~5 ms, well under qdelay_ref = 15 ms
        assert!(low.iter().all(|&p| p == 0.0) && low_drops == 0, "{low:?}");
        let runs: Vec<Vec<f64>> = [20, 40, 80].iter().map(|&b| run(b, 600).0).collect();
        // Early on (before any run saturates and empties its queue), more
        // delay means a higher probability.
        for i in 1..=2 {
            let (a, b, c) = (runs[0][i], runs[1][i], runs[2][i]);
            assert!(
                0.0 < a && a < b && (b < c || c == 1.0),
                "sample {i}: {a} {b} {c}"
            );
        }
        // A delay held above qdelay_ref keeps raising it.
        let r20 = &runs[0];
        assert!(
            r20.windows(2).all(|w| w[1] >= w[0]) && r20[19] > 2.0 * r20[1],
            "{r20:?}"
        );
    }

    /// PIE held at drop probability `prob` (no controller update: every
    /// arrival at time 0, past the burst allowance, with a standing queue)
    /// offered 10 000 packets with ECN field `field`: (marked, dropped).
    fn at_probability(prob: f64, ecn_on: bool, field: u8) -> (usize, usize) {
        use crate::packet::testpkt::ipv4;
        let mut q = Pie::new(Limit::default(), 15_000, 150_000, ecn_on, 7);
        let mut drops = Drops::new();
        for _ in 0..10 {
            q.fifo.push(ipv4(1500, field, 1, 0));
        }
        q.last_update = Some(0);
        q.burst_allowance = 0;
        q.qdelay_old_ms = 15.0;
        q.drop_prob = prob;
        let (mut marked, mut dropped) = (0, 0);
        for _ in 0..10_000 {
            q.enqueue(ipv4(1500, field, 1, 0), 0, &mut drops);
            dropped += drops
                .drain(..)
                .filter(|(_, r)| *r == DropReason::Pie)
                .count();
            if q.packets() > 10 {
                marked += q.fifo.pop().unwrap().marked as usize;
            }
        }
        (marked, dropped)
    }

    #[test]
    fn ecn_marks_ect_arrivals_up_to_ten_percent() {
        use crate::packet::ecn;
        let near = |n: usize, p: f64| (n as f64 / 10_000.0 - p).abs() < 0.01;
        let (m, d) = at_probability(0.05, false, ecn::ECT0);
        assert!(m == 0 && near(d, 0.05), "no ecn: {m} marks, {d} drops");
        let (m, d) = at_probability(0.05, true, ecn::ECT0);
        assert!(
            near(m, 0.05) && d == 0,
            "ecn, p = 5 %: {m} marks, {d} drops"
        );
        let (m, d) = at_probability(0.3, true, ecn::ECT1);
        assert!(
            m == 0 && near(d, 0.3),
            "ecn, p = 30 %: {m} marks, {d} drops"
        );
        let (m, d) = at_probability(0.05, true, ecn::NOT_ECT);
        assert!(m == 0 && near(d, 0.05), "Not-ECT: {m} marks, {d} drops");
    }
}
