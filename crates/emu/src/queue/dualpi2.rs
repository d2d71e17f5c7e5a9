// SPDX-License-Identifier: GPL-2.0-only
//! DualPI2, the coupled dual-queue AQM of L4S (RFC 9332), with Linux's
//! `sch_dualpi2` (net/sched/sch_dualpi2.c, mainline since 6.17) as the
//! reference for its defaults and its choices where the RFC leaves one.
//!
//! Two FIFOs under one size limit: packets whose ECN field has its low bit
//! set (ECT(1) or CE: RFC 9331's L4S identifier) go to the L queue, all
//! others to the C (Classic) queue. One PI controller, run every `tupdate`,
//! moves a base probability p' with the larger of the two queues' head
//! sojourn times q:
//!
//!   p' += α·(q − target) + β·(q − q_previous)      (q in seconds, p' ∈ [0, 1])
//!
//! and the queues apply what RFC 9332 §2.4 calls the coupling:
//!
//!   Classic packets: p_C = p'²   (two independent rolls against p'),
//!                    marked CE if ECN-capable, else dropped;
//!   L packets:       p_CL = k·p' (k the coupling factor), marked CE;
//!                    and a native step AQM: marked when its own sojourn
//!                    is above `step` (1 ms), or, with the step in packets,
//!                    when more than `step` packets stay in the L queue
//!                    behind it; only for a packet that found at least
//!                    `min_qlen_step` packets in the L queue on arrival
//!                    (sch_dualpi2's guard, default 0: always).
//!
//! Squaring p' for Classic and scaling it for L4S is what makes a Classic
//! (rate ∝ 1/√p) and a scalable (rate ∝ 1/p) flow get about the same rate
//! with k = 2 at equal RTTs (RFC 9332 §2.1). Overload: when k·p' would
//! exceed 1, L packets are dropped as Classic ones are (p'²), else marked.
//! Nothing is marked or dropped while both queues hold less than two MTUs.
//! AQM decisions are taken at dequeue, as sch_dualpi2's default
//! (`drop_early` off): the sojourn the step AQM reads is the packet's own.
//!
//! The scheduler between the queues is sch_dualpi2's weighted round robin
//! on a byte credit ("C-protection"): the L queue is served unless the C
//! queue has waited its share, wc = 10 % of the bytes while both are
//! backlogged (L 90 %); with one queue empty the other takes everything.
//!
//! Marks are counted by cause (`DualPi2::marks`): the step, the coupled
//! p_CL, the Classic p'², and the marks of overload, each counted once, for
//! the first cause that set CE (sch_dualpi2 keeps `ecn_mark` for every mark
//! and `step_marks` for the step's; a packet both PI and step marked counts
//! in both there).
//!
//! Why the guard matters on an emulated cell: the emulator's queue is the
//! only buffer and is served only at the trace's delivery opportunities, so
//! a packet's sojourn includes its wait for the next opportunity, whether
//! or not anything was queued ahead of it (docs/l4s.md). With
//! `min_qlen_step` 1, a packet that found the L queue empty is never step
//! marked, which is RFC 9332's `Th_len` of one packet (App. A.1).
//!
//! Where ours differs from sch_dualpi2: the PI update runs in emulated time
//! as events reach the queue (every missed `tupdate` is replayed with the
//! head sojourns it would have seen, which do not change between events),
//! not on a kernel timer; probabilities are f64 rather than 32-bit fixed
//! point; the memory limit is our byte/packet limit (`bytes=`/`packets=`,
//! the scenario's), not 10 000 packets; no GSO splitting is needed (the
//! emulator splits super-packets before the queue); no tc filters or
//! skb->priority classification, only the ECN field.
use std::collections::VecDeque;

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

use super::{Arg, Discipline, DropReason, Drops, Fifo, Limit, Queue, QueueKind, QueueSpec};
use crate::clock::Micros;
use crate::packet::{ecn, Packet};
use logformat::MarkCause;

/// Below this backlog (both queues, bytes) DualPI2 neither marks nor drops:
/// two MTUs, as sch_dualpi2's `must_drop`.
const MIN_BACKLOG: usize = 2 * 1500;
/// The MTU the C-protection credit counts in (sch_dualpi2 uses the device's).
const MTU: i64 = 1500;

/// DualPI2's parameters (sch_dualpi2's defaults are its [`Discipline::ARGS`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DualPi2Params {
    /// PI2's target queueing delay.
    pub target: Micros,
    /// How often the PI controller updates p'.
    pub tupdate: Micros,
    /// The L queue's step threshold: a sojourn, or a queue length.
    pub step: Step,
    /// The step applies only to a packet that found at least this many
    /// packets in the L queue on arrival (sch_dualpi2's `min_qlen_step`).
    pub min_qlen_step: u32,
    /// Integral gain, per second (RFC 9332's α in Hz).
    pub alpha: f64,
    /// Proportional gain, per second (β).
    pub beta: f64,
    /// Coupling factor k: p_CL = k·p'.
    pub coupling: f64,
    /// The C queue's share of the scheduler while both queues are
    /// backlogged, percent (C-protection).
    pub c_protection: u8,
}

impl DualPi2Params {
    /// The parameters a `dualpi2` spec gives.
    pub fn of(spec: &QueueSpec) -> DualPi2Params {
        let step_packets = spec.number("step_packets") as u32;
        DualPi2Params {
            target: spec.micros("target"),
            tupdate: spec.micros("tupdate"),
            step: if step_packets > 0 {
                Step::Packets(step_packets)
            } else {
                Step::Time(spec.micros("step"))
            },
            min_qlen_step: spec.number("min_qlen_step") as u32,
            alpha: spec.number("alpha"),
            beta: spec.number("beta"),
            coupling: spec.number("coupling"),
            c_protection: spec.number("c_protection") as u8,
        }
    }
}

impl Default for DualPi2Params {
    /// sch_dualpi2's `dualpi2_reset_default`, as its [`Discipline::ARGS`]
    /// declare them: target 15 ms, tupdate 16 ms, α 41/256 ≈ 0.16 Hz,
    /// β 819/256 ≈ 3.2 Hz, step 1 ms (in time, not packets),
    /// `min_qlen_step` 0, k = 2, wc 10 %.
    fn default() -> Self {
        DualPi2Params::of(&QueueSpec::with_defaults(
            QueueKind::of::<DualPi2>(),
            Limit::default(),
        ))
    }
}

impl Discipline for DualPi2 {
    const NAME: &'static str = "dualpi2";
    const ABOUT: &'static str =
        "DualPI2, L4S's coupled dual queue (RFC 9332), sch_dualpi2's defaults (docs/l4s.md)";
    /// sch_dualpi2's `dualpi2_reset_default`: target 15 ms, tupdate 16 ms,
    /// step 1 ms in time, min_qlen_step 0, α 41/256 ≈ 0.16 Hz,
    /// β 819/256 ≈ 3.2 Hz, k = 2, wc 10 %.
    const ARGS: &'static [Arg] = &[
        Arg::ms(
            "target",
            15.0,
            (0.1, 10_000.0),
            "DualPI2's PI2 target queueing delay, sch_dualpi2's",
        ),
        Arg::ms(
            "tupdate",
            16.0,
            (0.1, 10_000.0),
            "how often DualPI2's PI controller updates p'",
        ),
        Arg::ms(
            "step",
            1.0,
            (0.01, 10_000.0),
            "the L queue's step threshold in time: an L4S packet waiting longer is marked",
        ),
        Arg::whole(
            "step_packets",
            0.0,
            (0.0, 100_000.0),
            "N > 0: the step in packets instead (sch_dualpi2's step_packets): marked when more than N stay behind",
        ),
        Arg::whole(
            "min_qlen_step",
            0.0,
            (0.0, 100_000.0),
            "step-mark only a packet that found at least this many in the L queue (sch_dualpi2's; 1 is RFC 9332's Th_len)",
        ),
        Arg::number("alpha", 0.16, (0.0, 1000.0), "PI2's integral gain, Hz"),
        Arg::number("beta", 3.2, (0.0, 1000.0), "PI2's proportional gain, Hz"),
        Arg::number(
            "coupling",
            2.0,
            (0.1, 100.0),
            "coupling factor k: L4S packets marked at k x p'",
        ),
        Arg::whole(
            "c_protection",
            10.0,
            (0.0, 100.0),
            "the Classic queue's share of the scheduler while both are backlogged, percent",
        ),
    ];
    fn from_spec(spec: &QueueSpec, seed: u64) -> DualPi2 {
        DualPi2::new(spec.limit, DualPi2Params::of(spec), seed)
    }
}

/// The L queue's native AQM threshold (sch_dualpi2's `step_thresh`, with
/// `step_in_packets` choosing the unit).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// Mark a packet whose own sojourn exceeds this, µs.
    Time(Micros),
    /// Mark a packet that leaves more than this many packets behind it in
    /// the L queue.
    Packets(u32),
}

/// Marks by cause, each packet counted once for the first cause that set
/// CE on it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Marks {
    /// The L queue's native step AQM.
    pub step: u64,
    /// The coupled probability p_CL = k·p' on L packets.
    pub coupled: u64,
    /// p'² on ECN-capable Classic packets.
    pub classic: u64,
    /// L packets marked because k·p' exceeded 1 and the p'² drop spared them.
    pub overload: u64,
}

#[derive(Debug)]
pub struct DualPi2 {
    l: Fifo,
    /// Per L packet, in the L queue's order: whether the step AQM applies
    /// to it (it found `min_qlen_step` packets or more on arrival).
    l_apply_step: VecDeque<bool>,
    c: Fifo,
    /// Both queues together (sch_dualpi2's `limit` counts both).
    limit: Limit,
    params: DualPi2Params,
    /// p', the base probability.
    prob: f64,
    /// The queueing delay the last update used, µs.
    last_qdelay: Micros,
    /// When the PI controller next runs (None before the first packet).
    next_update: Option<Micros>,
    /// The WRR credit: the L queue is served while it is ≤ 0 (or C is empty).
    credit: i64,
    credit_init: i64,
    rng: StdRng,
    marks: Marks,
}

impl DualPi2 {
    pub fn new(limit: Limit, params: DualPi2Params, seed: u64) -> DualPi2 {
        let (wc, wl) = (
            i64::from(params.c_protection),
            100 - i64::from(params.c_protection),
        );
        // Negative when wl > wc: the scheduler starts with the L queue.
        let credit_init = MTU * (wc - wl);
        DualPi2 {
            l: Fifo::new(Limit::default()),
            l_apply_step: VecDeque::with_capacity(4096),
            c: Fifo::new(Limit::default()),
            limit,
            params,
            prob: 0.0,
            last_qdelay: 0,
            next_update: None,
            credit: credit_init,
            credit_init,
            rng: StdRng::seed_from_u64(seed),
            marks: Marks::default(),
        }
    }

    /// The marks so far, by cause.
    pub fn marks(&self) -> Marks {
        self.marks
    }

    /// p', the base probability of the PI controller.
    pub fn base_probability(&self) -> f64 {
        self.prob
    }

    fn fits(&self, len: u32) -> bool {
        let packets = self.l.packets() + self.c.packets();
        let bytes = self.l.bytes() + self.c.bytes();
        self.limit
            .bytes
            .is_none_or(|b| (bytes + len as usize) as u64 <= b)
            && self.limit.packets.is_none_or(|n| (packets + 1) as u64 <= n)
    }

    /// Runs the PI controller for every `tupdate` due by `now`. The queues
    /// did not change since the last event, so each missed update sees the
    /// heads it would have seen at its own time.
    fn update(&mut self, now: Micros) {
        let next = *self.next_update.get_or_insert(now + self.params.tupdate);
        let mut at = next;
        while at <= now {
            let sojourn = |q: &Fifo| q.head().map_or(0, |p| at.saturating_sub(p.arrival));
            let qdelay = sojourn(&self.l).max(sojourn(&self.c));
            let secs = |us: i64| us as f64 / 1e6;
            let delta = self.params.alpha * secs(qdelay as i64 - self.params.target as i64)
                + self.params.beta * secs(qdelay as i64 - self.last_qdelay as i64);
            self.prob = (self.prob + delta).clamp(0.0, 1.0);
            self.last_qdelay = qdelay;
            at += self.params.tupdate;
        }
        self.next_update = Some(at);
    }

    fn roll(&mut self, p: f64) -> bool {
        p > 0.0 && self.rng.gen::<f64>() < p
    }

    /// Sets CE on `p` and counts the mark under `cause` if this call set it
    /// (a packet already CE, on arrival or by an earlier cause, is not
    /// counted again), which the log then names; false for a Not-ECT packet.
    fn mark(p: &mut Packet, cause: MarkCause, count: &mut u64) -> bool {
        let before = p.marked;
        let ok = p.mark_ce();
        if p.marked && !before {
            *count += 1;
            p.mark_cause = Some(cause);
        }
        ok
    }

    /// The PI2 part's verdict on a packet just taken from its queue: true
    /// to drop it; otherwise it may have been marked.
    fn pi2_drops(&mut self, p: &mut Packet) -> bool {
        if self.l.bytes() + self.c.bytes() < MIN_BACKLOG {
            return false;
        }
        let prob = self.prob;
        let l_prob = prob * self.params.coupling;
        let overload = l_prob > 1.0;
        let not_ect = p.ecn() == ecn::NOT_ECT;
        if !p.l4s {
            // p_C = p'²: two independent rolls.
            if self.roll(prob) && self.roll(prob) {
                if overload || not_ect {
                    return true;
                }
                Self::mark(p, MarkCause::Classic, &mut self.marks.classic);
            }
            return false;
        }
        if overload {
            // Classic drops first; the packets that escape them are marked.
            if self.roll(prob) && self.roll(prob) {
                return true;
            }
            Self::mark(p, MarkCause::Overload, &mut self.marks.overload);
        } else if self.roll(l_prob) {
            if not_ect {
                return true;
            }
            Self::mark(p, MarkCause::Coupled, &mut self.marks.coupled);
        }
        false
    }

    /// The L queue's native step AQM on a packet just taken from the L
    /// queue (`apply`: it found `min_qlen_step` packets or more on
    /// arrival): true to drop (a Not-ECT packet).
    fn step_drops(&mut self, p: &mut Packet, apply: bool, now: Micros) -> bool {
        let above = match self.params.step {
            Step::Time(t) => now.saturating_sub(p.arrival) > t,
            // sch_dualpi2 compares the L queue's length after this packet left.
            Step::Packets(n) => self.l.packets() > n as usize,
        };
        if apply && above {
            return !Self::mark(p, MarkCause::Step, &mut self.marks.step);
        }
        false
    }
}

impl Queue for DualPi2 {
    fn enqueue(&mut self, mut p: Packet, now: Micros, drops: &mut Drops) {
        self.update(now);
        if !self.fits(p.len) {
            drops.push((p, DropReason::Tail));
            return;
        }
        // RFC 9331's identifier: ECT(1), or CE (which may have been ECT(1)).
        p.l4s = p.ecn() & ecn::ECT1 != 0;
        if p.l4s {
            // sch_dualpi2's skb_apply_step: the L queue's length before it.
            let apply = self.l.packets() >= self.params.min_qlen_step as usize;
            self.l_apply_step.push_back(apply);
            self.l.push(p);
        } else {
            self.c.push(p);
        }
    }

    fn dequeue(&mut self, now: Micros, drops: &mut Drops) -> Option<Packet> {
        self.update(now);
        loop {
            let c_waiting = self.c.packets() > 0;
            let mut apply_step = false;
            let (mut p, credit_change) = if self.l.packets() > 0 && (!c_waiting || self.credit <= 0)
            {
                let p = self.l.pop()?;
                apply_step = self.l_apply_step.pop_front().unwrap_or(true);
                let wc = i64::from(self.params.c_protection);
                let change = if c_waiting { wc * i64::from(p.len) } else { 0 };
                (p, change)
            } else if c_waiting {
                let p = self.c.pop()?;
                let wl = 100 - i64::from(self.params.c_protection);
                let change = if self.l.packets() > 0 {
                    -wl * i64::from(p.len)
                } else {
                    0
                };
                (p, change)
            } else {
                self.credit = self.credit_init;
                return None;
            };
            if self.pi2_drops(&mut p) || (p.l4s && self.step_drops(&mut p, apply_step, now)) {
                drops.push((p, DropReason::Dualpi2));
                continue;
            }
            self.credit += credit_change;
            return Some(p);
        }
    }

    fn packets(&self) -> usize {
        self.l.packets() + self.c.packets()
    }
    fn bytes(&self) -> usize {
        self.l.bytes() + self.c.bytes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::testpkt::ipv4;
    use crate::queue::QueueKind;

    fn dualpi2() -> DualPi2 {
        DualPi2::from_spec(
            &QueueSpec::with_defaults(QueueKind::of::<DualPi2>(), Limit::default()),
            7,
        )
    }

    /// With p' held at `prob` (no controller update in the way) and both
    /// queues standing above two MTUs with fresh packets (so the step AQM is
    /// silent), the share of L (ECT(1)) and of C (ECT(0)) packets marked.
    fn mark_shares(prob: f64) -> (f64, f64) {
        let mut q = dualpi2();
        q.next_update = Some(u64::MAX);
        q.prob = prob;
        let mut drops = Drops::new();
        let (mut l_marks, mut c_marks, mut l_sent, mut c_sent) = (0u32, 0u32, 0u32, 0u32);
        for i in 0..200_000u64 {
            let now = i;
            while q.l.packets() < 4 {
                q.enqueue(ipv4(1500, ecn::ECT1, 1, now), now, &mut drops);
            }
            while q.c.packets() < 4 {
                q.enqueue(ipv4(1500, ecn::ECT0, 2, now), now, &mut drops);
            }
            let p = q.dequeue(now, &mut drops).expect("backlogged");
            if p.l4s {
                l_sent += 1;
                l_marks += p.marked as u32;
            } else {
                c_sent += 1;
                c_marks += p.marked as u32;
            }
        }
        assert!(
            drops.is_empty() || 2.0 * prob > 1.0,
            "below overload ECN-capable packets are marked, not dropped"
        );
        (
            l_marks as f64 / l_sent as f64,
            c_marks as f64 / c_sent as f64,
        )
    }

    /// One ECT(1) packet into an empty DualPI2 at 0, dequeued at `wait` µs
    /// (a link whose next opportunity is that far away): was it marked?
    fn lone_packet_marked(params: DualPi2Params, wait: Micros) -> (bool, Marks) {
        let mut q = DualPi2::new(Limit::default(), params, 7);
        let mut drops = Drops::new();
        q.enqueue(ipv4(1500, ecn::ECT1, 1, 0), 0, &mut drops);
        let p = q.dequeue(wait, &mut drops).expect("queued");
        assert!(drops.is_empty() && p.l4s);
        assert_eq!(p.mark_cause, p.marked.then_some(MarkCause::Step));
        (p.marked, q.marks())
    }

    #[test]
    fn a_lone_packet_waiting_for_an_opportunity_is_step_marked_only_without_the_guard() {
        // sch_dualpi2's defaults (min_qlen_step 0): the step reads the
        // packet's own sojourn, so a packet alone in the queue that waits
        // 5 ms for the link's next opportunity is marked.
        let (marked, marks) = lone_packet_marked(DualPi2Params::default(), 5_000);
        assert!(marked);
        assert_eq!(
            marks,
            Marks {
                step: 1,
                ..Marks::default()
            }
        );
        // Not when it waited less than the step.
        assert!(!lone_packet_marked(DualPi2Params::default(), 900).0);
        // With the guard (min_qlen_step 1: RFC 9332's Th_len of a packet) it
        // found the L queue empty, so the step does not apply to it.
        for min_qlen_step in [1, 2] {
            let guarded = DualPi2Params {
                min_qlen_step,
                ..DualPi2Params::default()
            };
            let (marked, marks) = lone_packet_marked(guarded, 5_000);
            assert!(
                !marked && marks == Marks::default(),
                "min_qlen_step {min_qlen_step}"
            );
        }
    }

    #[test]
    fn the_guard_counts_the_packets_ahead_on_arrival() {
        // Three ECT(1) packets arrive at 0, 1 and 2 µs; all leave at 5 ms:
        // each found 0, 1 and 2 packets ahead of it.
        let marked_with = |min_qlen_step| {
            let mut q = DualPi2::new(
                Limit::default(),
                DualPi2Params {
                    min_qlen_step,
                    ..DualPi2Params::default()
                },
                7,
            );
            let mut drops = Drops::new();
            for t in 0..3u64 {
                q.enqueue(ipv4(1500, ecn::ECT1, 1, t), t, &mut drops);
            }
            let marked: Vec<bool> = std::iter::from_fn(|| q.dequeue(5_000, &mut drops))
                .map(|p| p.marked)
                .collect();
            (marked, q.marks().step)
        };
        assert_eq!(marked_with(0), (vec![true, true, true], 3));
        assert_eq!(marked_with(1), (vec![false, true, true], 2));
        assert_eq!(marked_with(2), (vec![false, false, true], 1));
    }

    #[test]
    fn a_step_in_packets_marks_on_the_queue_left_behind() {
        // Step::Packets(2): a packet is marked when more than two packets
        // stay in the L queue after it leaves, however long it waited.
        let mut q = DualPi2::new(
            Limit::default(),
            DualPi2Params {
                step: Step::Packets(2),
                ..DualPi2Params::default()
            },
            7,
        );
        q.next_update = Some(u64::MAX); // p' stays 0: only the step marks
        let mut drops = Drops::new();
        for t in 0..5u64 {
            q.enqueue(ipv4(1500, ecn::ECT1, 1, t), t, &mut drops);
        }
        // Leaving behind 4, 3, 2, 1, 0 packets, each after 10 s in the queue.
        let marked: Vec<bool> = std::iter::from_fn(|| q.dequeue(10_000_000, &mut drops))
            .map(|p| p.marked)
            .collect();
        assert_eq!(marked, [true, true, false, false, false]);
        assert_eq!(
            q.marks(),
            Marks {
                step: 2,
                ..Marks::default()
            }
        );
    }

    #[test]
    fn marks_are_counted_by_cause_once_each() {
        // p' 0.2: L packets marked by the coupled 0.4, C packets by 0.04;
        // fresh packets, so the step is silent. Every mark counted once.
        let mut q = dualpi2();
        q.next_update = Some(u64::MAX);
        q.prob = 0.2;
        let mut drops = Drops::new();
        let (mut l_marked, mut c_marked) = (0u64, 0u64);
        for now in 0..50_000u64 {
            while q.l.packets() < 4 {
                q.enqueue(ipv4(1500, ecn::ECT1, 1, now), now, &mut drops);
            }
            while q.c.packets() < 4 {
                q.enqueue(ipv4(1500, ecn::ECT0, 2, now), now, &mut drops);
            }
            let p = q.dequeue(now, &mut drops).unwrap();
            if p.l4s {
                l_marked += p.marked as u64;
            } else {
                c_marked += p.marked as u64;
            }
        }
        let m = q.marks();
        assert_eq!(
            (m.coupled, m.classic, m.step, m.overload),
            (l_marked, c_marked, 0, 0)
        );
        // Overload (k·p' > 1): the L packets' marks are overload's.
        q.prob = 0.7;
        let before = q.marks();
        for now in 50_000..60_000u64 {
            // Deep enough that the drops leave two MTUs behind.
            while q.l.packets() < 40 {
                q.enqueue(ipv4(1500, ecn::ECT1, 1, now), now, &mut drops);
            }
            let p = q.dequeue(now, &mut drops).unwrap();
            assert!(
                p.marked || !p.l4s,
                "an L packet escaping overload's drop is marked"
            );
        }
        let m = q.marks();
        assert_eq!(m.coupled, before.coupled);
        assert!(m.overload > 4_000, "{m:?}");
        // A packet both coupled- and step-marked counts once, for the first.
        let mut q = dualpi2();
        q.next_update = Some(u64::MAX);
        q.prob = 0.5; // p_CL = 1: every L packet above two MTUs is marked
        for t in 0..3u64 {
            q.enqueue(ipv4(1500, ecn::ECT1, 1, t), t, &mut drops);
        }
        let p = q.dequeue(5_000, &mut drops).unwrap();
        assert!(p.marked);
        assert_eq!(
            q.marks(),
            Marks {
                coupled: 1,
                ..Marks::default()
            }
        );
    }

    #[test]
    fn the_coupling_law_marks_l_at_k_p_and_c_at_p_squared() {
        for prob in [0.05, 0.1, 0.2, 0.3, 0.45] {
            let (l, c) = mark_shares(prob);
            // 180 000 L and 20 000 C packets: standard errors ≤ 0.0012 and 0.0035.
            assert!((l - 2.0 * prob).abs() < 0.01, "p' {prob}: p_L {l}");
            assert!((c - prob * prob).abs() < 0.015, "p' {prob}: p_C {c}");
        }
        // Past k·p' = 1 (overload) every L packet that escapes p'² is marked.
        let (l, _) = mark_shares(0.6);
        assert!(l > 0.99, "overload: p_L {l}");
    }

    #[test]
    fn not_ect_packets_are_never_marked_and_classic_ones_are_dropped_instead() {
        let mut q = dualpi2();
        q.next_update = Some(u64::MAX);
        q.prob = 0.3;
        let mut drops = Drops::new();
        let (mut sent, mut dropped) = (0u32, 0usize);
        for now in 0..20_000u64 {
            while q.c.packets() < 4 {
                q.enqueue(ipv4(1500, ecn::NOT_ECT, 2, now), now, &mut drops);
            }
            let p = q.dequeue(now, &mut drops).expect("backlogged");
            assert!(!p.marked && !p.l4s && p.ecn() == ecn::NOT_ECT);
            sent += 1;
            dropped += drops.len();
            assert!(drops.iter().all(|(_, r)| *r == DropReason::Dualpi2));
            drops.clear();
        }
        let share = dropped as f64 / (dropped as f64 + sent as f64);
        assert!((share - 0.09).abs() < 0.01, "p_C = p'² = 0.09: {share}");
    }

    #[test]
    fn neither_queue_is_starved_c_gets_its_ten_percent() {
        let mut q = dualpi2();
        let mut drops = Drops::new();
        let (mut l, mut c) = (0u32, 0u32);
        for now in 0..100_000u64 {
            // Fresh packets, a short backlog: no AQM in the way.
            while q.l.packets() < 2 {
                q.enqueue(ipv4(1500, ecn::ECT1, 1, now), now, &mut drops);
            }
            while q.c.packets() < 2 {
                q.enqueue(ipv4(1500, ecn::NOT_ECT, 2, now), now, &mut drops);
            }
            let p = q.dequeue(now, &mut drops).unwrap();
            *(if p.l4s { &mut l } else { &mut c }) += 1;
        }
        let c_share = c as f64 / (l + c) as f64;
        assert!((c_share - 0.10).abs() < 0.005, "C share {c_share}");
        // With the L queue empty, the C queue takes every opportunity.
        let mut q = dualpi2();
        for now in 0..100u64 {
            q.enqueue(ipv4(1500, ecn::NOT_ECT, 2, now), now, &mut drops);
            assert!(q.dequeue(now, &mut drops).is_some());
        }
    }

    #[test]
    fn the_pi_controller_raises_p_above_target_and_lowers_it_below() {
        // A Classic queue held at 40 packets on a 1-packet-per-ms link
        // (~40 ms, above the 15 ms target): p' climbs; then the queue is
        // held at 5 ms and p' falls back to 0.
        let mut q = dualpi2();
        let mut drops = Drops::new();
        let mut hold = |q: &mut DualPi2, backlog: usize, from: u64, to: u64| {
            for now in (from..to).map(|ms| ms * 1000) {
                while q.c.packets() < backlog {
                    q.enqueue(ipv4(1500, ecn::ECT0, 2, now), now, &mut drops);
                }
                q.dequeue(now, &mut drops);
            }
        };
        hold(&mut q, 40, 0, 2_000);
        let high = q.base_probability();
        assert!(high > 0.05, "p' after 2 s at ~40 ms: {high}");
        hold(&mut q, 5, 2_000, 12_000);
        assert!(q.base_probability() < 0.01, "{}", q.base_probability());
    }

    #[test]
    fn the_l_queue_stays_near_the_step_threshold_under_a_scalable_load() {
        // A DCTCP-like sender (RFC 8257: once a window, alpha += (F - alpha)/16
        // with F the fraction of its packets marked, the window cut by
        // alpha/2 if any was, +1 packet a window) over a 10-packets-per-ms
        // link (120 Mbit/s) with a 10 ms base RTT: 100 packets in flight.
        // The step AQM at 1 ms (10 packets) should be what bounds the L
        // queue: its sojourn's 99th percentile close to 1 ms (not far above:
        // the marks work; not far below: the queue is the AQM's, not empty).
        let mut q = dualpi2();
        let mut drops = Drops::new();
        let (mut window, mut alpha) = (20.0f64, 1.0f64);
        let (mut acked, mut marked) = (0u32, 0u32);
        let mut in_flight = 0usize;
        let mut acks: std::collections::VecDeque<(u64, bool)> = Default::default();
        let (mut sojourns, mut busy) = (Vec::new(), 0u64);
        for step in 0..(20_000u64 * 10) {
            let now = step * 100; // 10 opportunities per ms
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
            if let Some(p) = q.dequeue(now, &mut drops) {
                if now >= 5_000_000 {
                    sojourns.push(now - p.arrival);
                }
                acks.push_back((now + 10_000, p.marked));
            } else if now >= 5_000_000 {
                busy += 1; // counts idle opportunities
            }
        }
        assert!(drops.is_empty());
        sojourns.sort_unstable();
        let mean = sojourns.iter().sum::<u64>() as f64 / sojourns.len() as f64;
        let p99 = sojourns[sojourns.len() * 99 / 100];
        assert!(
            (500..=1_500).contains(&p99) && mean < 1_000.0,
            "L sojourn mean {mean} µs, p99 {p99} µs"
        );
        // The queue did not run dry for long: the link stayed busy.
        let idle = busy as f64 / 150_000.0;
        assert!(idle < 0.1, "idle share {idle}");
    }
}
