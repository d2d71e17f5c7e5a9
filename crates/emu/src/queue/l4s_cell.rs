// SPDX-License-Identifier: GPL-2.0-only
//! A cell-aware L4S marker: one FIFO per UE, as a RAN's per-bearer buffer
//! is, that marks L4S packets on the *estimated* queueing delay, the bytes
//! queued over an estimate of the rate the link serves them at, rather
//! than on their sojourn.
//!
//! Why not the sojourn. This emulator's queue is the only buffer, served
//! only at the trace's delivery opportunities, which come in bursts with
//! gaps of several to tens of milliseconds. A packet's sojourn therefore
//! includes its wait for the next opportunity whether or not anything is
//! queued ahead of it, and a sojourn marker (DualPI2's 1-ms step, sch_janz's
//! 4-14 ms ramp) marks a flow that queues nothing. A RAN knows better: its
//! MAC scheduler knows what it will grant the UE. L4Span (Wan & Jamieson,
//! CoNEXT 2025) marks at the gNB's PDCP on the standing bytes over the RLC
//! dequeue rate it predicts; Low Latency DOCSIS's immediate AQM marks on the
//! LL queue's bytes over the service flow's rate. Both mark at enqueue.
//!
//! The service rate. At each departure that continues a busy period (the
//! packet was queued when the previous one left), the bytes departed since
//! the busy period's sample began and the time since then accumulate; once
//! the time reaches 1 ms the pair is one sample, bytes over time (L4Span's
//! dequeue rate, which it recomputes only over at least 1 ms,
//! `lib/mark/mark_entity_impl.h`). A sample thus spans the opportunities
//! the link actually used while it had something to send, bursts and the
//! gaps between them, and never the wait of a packet that found the queue
//! empty (that is the link's idle time, not its service). An unfinished
//! sample is dropped when the queue empties. The samples feed an EWMA of
//! the rate and of its variance with gain 2/51, the EWMA whose centre of
//! mass is that of L4Span's mean and standard deviation over its last 50
//! samples. Before the first sample nothing is marked.
//!
//! The marking law, on an arriving ECT(1) packet, with Q the bytes queued
//! including it, R the rate estimate and σ its deviation:
//!
//! - **`l4span`** (the default): L4Span's `make_mark_decision`. The rate
//!   needed to send Q within the target T = 10 ms (`l4s_tq_thr`) is Q/T;
//!   p = 0 while Q/T ≤ R − σ, 1 once Q/T ≥ R + σ, linear in between. So
//!   marking ramps up around an estimated delay Q/R of T, the wider the
//!   more the rate varies.
//! - **`docsis`**: DOCSIS's immediate AQM as CableLabs' docsis-ns3 computes
//!   it (`DualQueueCoupledAqm`: `QDelayCoupledL`, `CalcProbNative`), with
//!   R in place of the service flow's configured MAX_RATE: the estimated
//!   delay d = Q/R, minTh = max(MAXTH − 2^LG_RANGE ns, FLOOR), MAXTH 1 ms,
//!   LG_RANGE 19, FLOOR = 2 × MAX_FRAME_SIZE (2 000 B) at R; p = 0 up to
//!   minTh, 1 from minTh + 2^19 ns, linear in between.
//!
//! In both a packet is never marked while Q is at most that floor of
//! 4 000 B (2 × MAX_FRAME_SIZE, docsis-ns3; RFC 9332's floor is likewise
//! two MTUs at the link rate, and its `Th_len` one packet): a flow whose
//! queue stays under two packets is never marked, however long its
//! packets wait for the cell.
//!
//! Only ECT(1) packets are marked (RFC 9331's identifier; 3GPP's L4S
//! marking and L4Span's downlink L4S path leave ECT(0) to the Classic
//! treatment); every packet meets the droptail size limit. The constants'
//! sources are tabled in docs/l4s.md.
//!
//! Where ours differs. L4Span marks a downlink TCP flow's ACKs on the
//! uplink (ECE) to shorten the loop, and marks Classic ECT(0) flows with a
//! law of its own; we mark the data packet itself, ECT(1) only. Its rate
//! comes from the DU's delivery-status feedback every few milliseconds,
//! ours from the departures themselves. DOCSIS couples the LL queue's
//! marking to a Classic PIE queue (p_L = max(native, coupled)); one FIFO
//! has no Classic AQM to couple to, so ours is the native part alone, and
//! its downstream MAX_RATE is a configured constant where ours is R.
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

use super::{Arg, Discipline, DropReason, Drops, Fifo, Limit, Queue, QueueSpec};
use crate::clock::Micros;
use crate::packet::{ecn, Packet};

/// Below this many bytes queued (the arriving packet included) nothing is
/// marked: 2 × MAX_FRAME_SIZE, docsis-ns3's FLOOR (`MaxFrameSize` 2 000 B).
pub const FLOOR_BYTES: u64 = 2 * 2_000;
/// A rate sample spans at least this long (L4Span recomputes its dequeue
/// rate only over 1 ms or more).
const MIN_SAMPLE: Micros = 1_000;
/// The EWMA's gain: 2/(N+1) for L4Span's window of N = 50 samples.
const GAIN: f64 = 2.0 / 51.0;
/// L4Span's target queueing delay, `l4s_tq_thr` (10 ms).
pub const L4SPAN_TARGET: Micros = 10_000;
/// DOCSIS's immediate AQM: MAXTH 1 ms and a range of 2^19 ns.
pub const DOCSIS_MAXTH_NS: f64 = 1_000_000.0;
pub const DOCSIS_RANGE_NS: f64 = (1u64 << 19) as f64;
/// docsis-ns3 caps both thresholds at 65 535 000 ns.
const DOCSIS_CAP_NS: f64 = 65_535_000.0;

/// Which law turns the estimated delay into a marking probability.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Law {
    /// L4Span's: the rate needed to send the queue within `target` against
    /// the rate estimate ± its deviation.
    L4Span { target: Micros },
    /// DOCSIS's immediate AQM ramp over the estimated delay.
    Docsis,
}

impl Default for Law {
    fn default() -> Self {
        Law::L4Span {
            target: L4SPAN_TARGET,
        }
    }
}

/// The link's service rate while it has something to send (module header).
#[derive(Debug, Clone, Default)]
pub struct ServiceRate {
    /// The EWMA of the samples, bytes/µs (None before the first).
    mean: Option<f64>,
    /// The EWMA of their squared deviation, (bytes/µs)².
    var: f64,
    /// When the previous packet left, if the queue has not emptied since.
    last_departure: Option<Micros>,
    /// The sample being gathered: its start and the bytes since.
    since: Micros,
    bytes: u64,
}

impl ServiceRate {
    /// The rate estimate, bytes/µs.
    pub fn mean(&self) -> Option<f64> {
        self.mean
    }

    /// Its deviation (the EWMA variance's root), bytes/µs.
    pub fn deviation(&self) -> f64 {
        self.var.sqrt()
    }

    /// A packet of `len` bytes that arrived at `arrival` left at `now`.
    pub fn departed(&mut self, len: u32, arrival: Micros, now: Micros) {
        match self.last_departure {
            // It was queued when the previous one left: the busy period goes on.
            Some(prev) if arrival <= prev => {
                self.bytes += u64::from(len);
                if now.saturating_sub(self.since) >= MIN_SAMPLE {
                    let sample = self.bytes as f64 / (now - self.since) as f64;
                    self.add(sample);
                    self.since = now;
                    self.bytes = 0;
                }
            }
            // The first departure of a busy period: its wait is the link's
            // idle time, not its service; a new sample starts here.
            _ => {
                self.since = now;
                self.bytes = 0;
            }
        }
        self.last_departure = Some(now);
    }

    /// The queue is empty: the next departure starts a new busy period.
    pub fn emptied(&mut self) {
        self.last_departure = None;
    }

    fn add(&mut self, sample: f64) {
        match self.mean {
            None => self.mean = Some(sample),
            Some(m) => {
                let diff = sample - m;
                self.mean = Some(m + GAIN * diff);
                self.var = (1.0 - GAIN) * (self.var + GAIN * diff * diff);
            }
        }
    }
}

/// The marking probability for `queued` bytes (the arriving packet
/// included) under `law`, with the rate estimate `rate` ± `dev` (bytes/µs).
pub fn mark_probability(law: Law, queued: u64, rate: f64, dev: f64) -> f64 {
    if queued <= FLOOR_BYTES || rate <= 0.0 {
        return 0.0;
    }
    match law {
        Law::L4Span { target } => {
            let needed = queued as f64 / target as f64;
            if needed >= rate + dev {
                1.0
            } else if needed <= rate - dev {
                0.0
            } else {
                (needed - rate + dev) / (2.0 * dev)
            }
        }
        Law::Docsis => {
            let delay_ns = queued as f64 / rate * 1e3;
            let floor_ns = (FLOOR_BYTES as f64 / rate * 1e3).min(DOCSIS_CAP_NS);
            let min_th = (DOCSIS_MAXTH_NS - DOCSIS_RANGE_NS).max(floor_ns);
            let max_th = (min_th + DOCSIS_RANGE_NS).min(DOCSIS_CAP_NS);
            if delay_ns >= max_th {
                1.0
            } else if delay_ns > min_th {
                (delay_ns - min_th) / (max_th - min_th)
            } else {
                0.0
            }
        }
    }
}

#[derive(Debug)]
pub struct L4sCell {
    fifo: Fifo,
    law: Law,
    rate: ServiceRate,
    rng: StdRng,
}

impl L4sCell {
    pub fn new(limit: Limit, law: Law, seed: u64) -> L4sCell {
        L4sCell {
            fifo: Fifo::new(limit),
            law,
            rate: ServiceRate::default(),
            rng: StdRng::seed_from_u64(seed),
        }
    }

    /// The service rate estimate.
    pub fn service_rate(&self) -> &ServiceRate {
        &self.rate
    }
}

impl Discipline for L4sCell {
    const NAME: &'static str = "l4s_cell";
    const ABOUT: &'static str =
        "a cell-aware L4S marker: one FIFO marking ECT(1) at enqueue on queued bytes over the estimated service rate (docs/l4s.md)";
    /// L4Span's law and target (`l4s_tq_thr`, 10 ms).
    const ARGS: &'static [Arg] = &[
        Arg::whole(
            "law",
            0.0,
            (0.0, 1.0),
            "0: L4Span's ramp across the rate estimate +- its deviation; 1: DOCSIS's immediate AQM (docsis-ns3's)",
        ),
        Arg::ms(
            "target",
            10.0,
            (0.1, 10_000.0),
            "L4Span's target queueing delay (l4s_tq_thr) for law 0",
        ),
    ];
    fn from_spec(spec: &QueueSpec, seed: u64) -> L4sCell {
        let law = if spec.number("law") == 0.0 {
            Law::L4Span {
                target: spec.micros("target"),
            }
        } else {
            Law::Docsis
        };
        L4sCell::new(spec.limit, law, seed)
    }
}

impl Queue for L4sCell {
    fn enqueue(&mut self, mut p: Packet, _now: Micros, drops: &mut Drops) {
        if !self.fifo.fits(p.len) {
            drops.push((p, DropReason::Tail));
            return;
        }
        match p.ecn() {
            ecn::ECT1 => {
                p.l4s = true;
                if let Some(rate) = self.rate.mean() {
                    let queued = self.fifo.bytes() as u64 + u64::from(p.len);
                    let prob = mark_probability(self.law, queued, rate, self.rate.deviation());
                    if prob >= 1.0 || (prob > 0.0 && self.rng.gen::<f64>() < prob) {
                        p.mark_ce();
                    }
                }
            }
            ecn::CE => p.l4s = true,
            _ => {}
        }
        self.fifo.push(p);
    }

    fn dequeue(&mut self, now: Micros, _drops: &mut Drops) -> Option<Packet> {
        let Some(p) = self.fifo.pop() else {
            self.rate.emptied();
            return None;
        };
        self.rate.departed(p.len, p.arrival, now);
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
    use crate::queue::{DualPi2, DualPi2Params};

    /// Bytes per µs of `mbps` Mbit/s.
    fn rate(mbps: f64) -> f64 {
        mbps / 8.0
    }

    /// A link that offers one 1500-byte opportunity at each time of
    /// `opportunities` (µs, sorted), fed by `arrivals` (µs, ECN field):
    /// the queue's departures as (arrival, departure, marked).
    fn serve(
        q: &mut L4sCell,
        opportunities: &[Micros],
        arrivals: &[(Micros, u8)],
    ) -> Vec<(Micros, Micros, bool)> {
        let mut drops = Drops::new();
        let (mut out, mut next) = (Vec::new(), 0);
        for &t in opportunities {
            while next < arrivals.len() && arrivals[next].0 <= t {
                let (at, field) = arrivals[next];
                q.enqueue(ipv4(1500, field, 1, at), at, &mut drops);
                next += 1;
            }
            if let Some(p) = q.dequeue(t, &mut drops) {
                out.push((p.arrival, t, p.marked));
            }
        }
        assert!(drops.is_empty());
        out
    }

    /// Bursts of `burst` opportunities in one millisecond every `period` µs.
    fn bursty(burst: u64, period: Micros, until: Micros) -> Vec<Micros> {
        (0..until / period)
            .flat_map(|k| std::iter::repeat_n(k * period, burst as usize))
            .collect()
    }

    #[test]
    fn the_rate_estimate_is_the_links_while_it_is_backlogged() {
        // A constant link, one packet a millisecond (12 Mbit/s), always
        // backlogged: the estimate is its rate, and it hardly varies.
        let mut q = L4sCell::new(Limit::default(), Law::default(), 1);
        let opps: Vec<Micros> = (0..2_000).map(|k| k * 1_000).collect();
        let arrivals: Vec<(Micros, u8)> = (0..2_000).map(|_| (0, ecn::ECT0)).collect();
        serve(&mut q, &opps, &arrivals);
        let r = q.service_rate();
        assert!(
            (r.mean().unwrap() - rate(12.0)).abs() < 0.01 * rate(12.0),
            "{r:?}"
        );
        assert!(r.deviation() < 0.01 * rate(12.0), "{r:?}");
        // Bursts of 10 opportunities every 20 ms (6 Mbit/s on average),
        // backlogged: the estimate is the average, not the burst's rate.
        let mut q = L4sCell::new(Limit::default(), Law::default(), 1);
        let opps = bursty(10, 20_000, 4_000_000);
        let arrivals: Vec<(Micros, u8)> = opps.iter().map(|_| (0, ecn::ECT0)).collect();
        serve(&mut q, &opps, &arrivals);
        let m = q.service_rate().mean().unwrap();
        assert!(
            (m - rate(6.0)).abs() < 0.05 * rate(6.0),
            "{m} vs {}",
            rate(6.0)
        );
    }

    #[test]
    fn a_packet_that_found_the_queue_empty_gives_no_rate_sample() {
        // One packet every 50 ms on the bursty link: each waits up to 20 ms
        // for the next burst, alone. The link never served a queue, so there
        // is no estimate (and nothing can be marked).
        let mut q = L4sCell::new(Limit::default(), Law::default(), 1);
        let opps = bursty(10, 20_000, 2_000_000);
        let arrivals: Vec<(Micros, u8)> =
            (0..40).map(|k| (k * 50_000 + 1_000, ecn::ECT1)).collect();
        let out = serve(&mut q, &opps, &arrivals);
        assert_eq!(out.len(), 40);
        assert!(
            out.iter().all(|&(a, d, _)| d - a >= 9_000),
            "each waited for a burst"
        );
        assert_eq!(q.service_rate().mean(), None);
    }

    #[test]
    fn a_flow_whose_queue_stays_under_one_packet_is_never_marked() {
        // First a backlog teaches the marker the link's rate (6 Mbit/s in
        // bursts); then one ECT(1) packet at a time, the next sent only
        // when the previous has left (a queue under one packet), each
        // waiting up to 20 ms for an opportunity: none is marked. The same
        // packets through DualPI2 at sch_dualpi2's defaults are step
        // marked for that wait: the difference is where the delay is read.
        fn lone_packets(q: &mut dyn Queue, opps: &[Micros]) -> (usize, usize, Vec<Micros>) {
            let mut drops = Drops::new();
            let (mut sent, mut marked, mut waits) = (0, 0, Vec::new());
            let mut queued = false;
            for &t in opps {
                if !queued {
                    // Sent 3 ms after the previous departure (or the start).
                    let at = t.saturating_sub(17_000).max(1);
                    q.enqueue(ipv4(1500, ecn::ECT1, 1, at), at, &mut drops);
                    queued = true;
                }
                if let Some(p) = q.dequeue(t, &mut drops) {
                    assert!(p.l4s);
                    marked += usize::from(p.marked);
                    waits.push(t - p.arrival);
                    sent += 1;
                    queued = false;
                }
            }
            assert!(drops.is_empty());
            (sent, marked, waits)
        }
        let mut q = L4sCell::new(Limit::default(), Law::default(), 1);
        let opps = bursty(10, 20_000, 4_000_000);
        let warm: Vec<(Micros, u8)> = (0..100).map(|_| (0, ecn::ECT0)).collect();
        serve(&mut q, &opps[..100], &warm);
        assert!(q.service_rate().mean().is_some());
        let (sent, marked, waits) = lone_packets(&mut q, &opps[100..]);
        assert!(
            sent > 100 && waits.iter().any(|&w| w >= 15_000),
            "{sent} sent"
        );
        assert_eq!(marked, 0, "l4s_cell marked a lone packet");
        let mut d = DualPi2::new(Limit::default(), DualPi2Params::default(), 1);
        let (sent, marked, _) = lone_packets(&mut d, &opps[100..]);
        assert!(
            marked as f64 >= 0.8 * sent as f64,
            "DualPI2's step marked {marked} of {sent}"
        );
        // Two packets (3 000 B) are still under the floor.
        for law in [Law::default(), Law::Docsis] {
            assert_eq!(mark_probability(law, 3_000, rate(0.1), 0.0), 0.0);
            assert_eq!(mark_probability(law, FLOOR_BYTES, rate(0.1), 0.0), 0.0);
        }
    }

    #[test]
    fn l4spans_law_ramps_across_the_rate_estimate_plus_minus_its_deviation() {
        let law = Law::default();
        let (r, dev) = (rate(8.0), rate(2.0));
        // Q/T against R ± σ: 10 ms of queue at 6, 8 and 10 Mbit/s.
        let queued_for = |mbps: f64| (rate(mbps) * 10_000.0) as u64;
        assert_eq!(mark_probability(law, queued_for(5.9), r, dev), 0.0);
        let half = mark_probability(law, queued_for(8.0), r, dev);
        assert!((half - 0.5).abs() < 1e-6, "{half}");
        let q3 = mark_probability(law, queued_for(9.0), r, dev);
        assert!((q3 - 0.75).abs() < 1e-3, "{q3}");
        assert_eq!(mark_probability(law, queued_for(10.1), r, dev), 1.0);
        // No deviation: a step at an estimated delay of 10 ms.
        assert_eq!(mark_probability(law, queued_for(7.9), r, 0.0), 0.0);
        assert_eq!(mark_probability(law, queued_for(8.1), r, 0.0), 1.0);
    }

    #[test]
    fn docsis_law_is_docsis_ns3s_ramp_at_the_estimated_rate() {
        // At 4 Mbit/s the floor, 4 000 B, is 8 ms: the ramp is 8 to 8.524 ms
        // (minTh = max(1 ms - 0.524 ms, 8 ms)), as docsis-ns3 sets it.
        let r = rate(4.0);
        let at_ms = |ms: f64| (r * ms * 1_000.0).round() as u64;
        assert_eq!(mark_probability(Law::Docsis, at_ms(7.99), r, 0.0), 0.0);
        let mid = mark_probability(Law::Docsis, at_ms(8.262), r, 0.0);
        assert!((mid - 0.5).abs() < 0.01, "{mid}");
        assert_eq!(mark_probability(Law::Docsis, at_ms(8.53), r, 0.0), 1.0);
        // At 100 Mbit/s the floor (0.32 ms) is below MAXTH - range: the ramp
        // is DOCSIS's own 0.476 to 1 ms.
        let r = rate(100.0);
        let at_ms = |ms: f64| (r * ms * 1_000.0).round() as u64;
        assert_eq!(mark_probability(Law::Docsis, at_ms(0.47), r, 0.0), 0.0);
        let mid = mark_probability(Law::Docsis, at_ms(0.738), r, 0.0);
        assert!((mid - 0.5).abs() < 0.01, "{mid}");
        assert_eq!(mark_probability(Law::Docsis, at_ms(1.0), r, 0.0), 1.0);
    }

    #[test]
    fn only_ect1_is_marked_in_one_fifo_that_keeps_its_order() {
        // A standing queue on a 12 Mbit/s link: every arrival past the
        // estimate's 10 ms is marked if ECT(1), never if ECT(0) or Not-ECT.
        let mut q = L4sCell::new(Limit::default(), Law::default(), 1);
        let opps: Vec<Micros> = (0..3_000).map(|k| k * 1_000).collect();
        let fields = [ecn::ECT1, ecn::ECT0, ecn::NOT_ECT];
        let mut drops = Drops::new();
        for k in 0..100 {
            q.enqueue(ipv4(1500, fields[k % 3], 1, 0), 0, &mut drops);
        }
        for &t in &opps[..50] {
            q.dequeue(t, &mut drops);
        }
        // 50 packets (75 000 B) queued, 62.5 ms at 12 Mbit/s: all ECT(1) marked.
        for f in fields {
            q.enqueue(ipv4(1500, f, 9, 50_000), 50_000, &mut drops);
        }
        let order: Vec<(u8, bool)> = std::iter::from_fn(|| q.dequeue(60_000, &mut drops))
            .map(|p| (p.ecn(), p.marked))
            .collect();
        // The last three, in their order: ECT(1) marked (now CE), the others not.
        assert_eq!(
            order[order.len() - 3..],
            [(ecn::CE, true), (ecn::ECT0, false), (ecn::NOT_ECT, false)]
        );
        // The size limit drops at the tail.
        let mut q = L4sCell::new(
            Limit {
                packets: Some(2),
                bytes: None,
            },
            Law::default(),
            1,
        );
        for t in 0..3 {
            q.enqueue(ipv4(1500, ecn::ECT1, 1, t), t, &mut drops);
        }
        assert_eq!(drops.len(), 1);
        assert_eq!(drops[0].1, DropReason::Tail);
    }

    /// A DCTCP-like sender (RFC 8257: alpha from the marked fraction once a
    /// window, the window cut by alpha/2 when marked, +1 packet a window)
    /// with a 23 ms base RTT, marked by l4s_cell, over a link that offers
    /// `burst` opportunities every `period` µs: its utilisation and mean
    /// sojourn (µs) after 5 s.
    fn scalable_sender(law: Law, burst: u64, period: Micros) -> (f64, f64) {
        let mut q = L4sCell::new(Limit::default(), law, 1);
        let mut drops = Drops::new();
        let (mut window, mut alpha) = (10.0f64, 1.0f64);
        let (mut acked, mut marked) = (0u32, 0u32);
        let mut in_flight = 0usize;
        let mut acks: std::collections::VecDeque<(Micros, bool)> = Default::default();
        let (mut sent, mut offered, mut sojourns) = (0u64, 0u64, Vec::new());
        for ms in 0..30_000u64 {
            let now = ms * 1_000;
            while acks.front().is_some_and(|a| a.0 <= now) {
                let (_, ce) = acks.pop_front().unwrap();
                in_flight -= 1;
                acked += 1;
                marked += ce as u32;
                if f64::from(acked) >= window {
                    alpha += (f64::from(marked) / f64::from(acked) - alpha) / 16.0;
                    if marked > 0 {
                        window *= 1.0 - alpha / 2.0;
                    }
                    window = (window + 1.0).max(2.0);
                    (acked, marked) = (0, 0);
                }
            }
            while (in_flight as f64) < window {
                q.enqueue(ipv4(1500, ecn::ECT1, 1, now), now, &mut drops);
                in_flight += 1;
            }
            let opportunities = if now % period == 0 { burst } else { 0 };
            for _ in 0..opportunities {
                let p = q.dequeue(now, &mut drops);
                offered += (now >= 5_000_000) as u64;
                if let Some(p) = p {
                    if now >= 5_000_000 {
                        sent += 1;
                        sojourns.push(now - p.arrival);
                    }
                    acks.push_back((now + 23_000, p.marked));
                }
            }
        }
        assert!(drops.is_empty());
        let mean = sojourns.iter().sum::<u64>() as f64 / sojourns.len() as f64;
        (sent as f64 / offered as f64, mean)
    }

    #[test]
    fn a_scalable_sender_fills_the_cell_only_when_the_ramp_sits_above_its_gaps() {
        // A link served in bursts needs, before each burst, the bytes the
        // burst can carry: a gap's worth at the mean rate. Whichever law,
        // the link stays busy only if its ramp starts above that.
        //
        // DOCSIS's law on a smooth link (an opportunity every ms, 12
        // Mbit/s, where the 4 000 B floor puts the ramp at 2.7-3.2 ms): full,
        // at about a millisecond, L4S's promise.
        let (util, mean) = scalable_sender(Law::Docsis, 1, 1_000);
        assert!(
            util > 0.95 && mean < 1_500.0,
            "docsis, smooth: {util} at {mean} µs"
        );
        // The same law, bursts of 5 every 4 ms (15 Mbit/s): its ramp (2.1-2.6
        // ms) is below the 4 ms gaps, and the link runs mostly idle.
        let (util, _) = scalable_sender(Law::Docsis, 5, 4_000);
        assert!(util < 0.5, "docsis, 4 ms bursts: {util}");
        // L4Span's 10 ms target covers 4 ms gaps: full, at a sojourn below
        // the target.
        let (util, mean) = scalable_sender(Law::default(), 5, 4_000);
        assert!(
            util > 0.95 && mean < 10_000.0,
            "l4span, 4 ms bursts: {util} at {mean} µs"
        );
        // Not 20 ms gaps, twice its target.
        let (util, _) = scalable_sender(Law::default(), 10, 20_000);
        assert!(util < 0.8, "l4span, 20 ms bursts: {util}");
    }
}
