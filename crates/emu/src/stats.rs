// SPDX-License-Identifier: GPL-2.0-only
//! What each direction counted: live counters the emulator thread bumps
//! (relaxed atomics, one writer) and the snapshot handed to callers.
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};

use serde::Serialize;

use crate::clock::Micros;
use crate::queue::DropReason;

#[derive(Default, Debug)]
pub struct Counters {
    pub arrivals: AtomicU64,
    pub arrival_bytes: AtomicU64,
    pub departures: AtomicU64,
    pub departure_bytes: AtomicU64,
    pub drops: [AtomicU64; DropReason::ALL.len()],
    /// Departures a queue marked CE (instead of dropping, or ABC's brakes).
    pub ce_marks: AtomicU64,
    /// Departures that went through an L4S queue (DualPI2's L queue, the
    /// L4S ramp's ECT(1) packets).
    pub l4s_departures: AtomicU64,
    pub opportunities: AtomicU64,
    /// Packets discarded before the bottleneck because they are not IPv4
    /// between the run's two addresses (e.g. IPv6 neighbour discovery).
    pub foreign: AtomicU64,
    pub queued: AtomicU64,
    /// Writes to the receiving TUN device that failed (packets lost there).
    pub write_errors: AtomicU64,
    pub trace_ended: AtomicBool,
}

#[inline]
pub fn bump(c: &AtomicU64, by: u64) {
    c.store(c.load(Relaxed) + by, Relaxed);
}

fn reason_index(r: DropReason) -> usize {
    r.index()
}

impl Counters {
    #[inline]
    pub fn dropped(&self, r: DropReason) {
        bump(&self.drops[reason_index(r)], 1);
    }

    pub fn snapshot(&self) -> DirectionStats {
        let d = |r| self.drops[reason_index(r)].load(Relaxed);
        let opportunities = self.opportunities.load(Relaxed);
        DirectionStats {
            arrivals: self.arrivals.load(Relaxed),
            arrival_bytes: self.arrival_bytes.load(Relaxed),
            departures: self.departures.load(Relaxed),
            departure_bytes: self.departure_bytes.load(Relaxed),
            drops: DropCounts {
                tail: d(DropReason::Tail),
                head: d(DropReason::Head),
                codel: d(DropReason::Codel),
                pie: d(DropReason::Pie),
                loss: d(DropReason::Loss),
                oversize: d(DropReason::Oversize),
                dualpi2: d(DropReason::Dualpi2),
                stale: d(DropReason::Stale),
            },
            ce_marks: self.ce_marks.load(Relaxed),
            l4s_departures: self.l4s_departures.load(Relaxed),
            opportunities,
            capacity_bytes: opportunities * crate::link::OPPORTUNITY_BYTES as u64,
            foreign: self.foreign.load(Relaxed),
            queued: self.queued.load(Relaxed),
            write_errors: self.write_errors.load(Relaxed),
            trace_ended: self.trace_ended.load(Relaxed),
            sched_error: None,
        }
    }
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct DropCounts {
    pub tail: u64,
    pub head: u64,
    pub codel: u64,
    pub pie: u64,
    pub loss: u64,
    pub oversize: u64,
    pub dualpi2: u64,
    pub stale: u64,
}

impl DropCounts {
    pub fn total(&self) -> u64 {
        self.tail
            + self.head
            + self.codel
            + self.pie
            + self.loss
            + self.oversize
            + self.dualpi2
            + self.stale
    }
}

/// One direction's figures. Packets arrive at the bottleneck (`arrivals`,
/// after the delay line) and then depart, are dropped, or are still queued.
#[derive(Debug, Clone, Default, Serialize)]
pub struct DirectionStats {
    pub arrivals: u64,
    pub arrival_bytes: u64,
    pub departures: u64,
    pub departure_bytes: u64,
    pub drops: DropCounts,
    /// Departures the queue marked CE (ECN instead of a drop; ABC's brakes).
    pub ce_marks: u64,
    /// Departures through an L4S queue (DualPI2's L queue, the L4S ramp's
    /// ECT(1) packets).
    pub l4s_departures: u64,
    /// Delivery opportunities passed, and the bytes they offered.
    pub opportunities: u64,
    pub capacity_bytes: u64,
    pub foreign: u64,
    /// Packets in the queue or partly sent (at the time of the snapshot).
    pub queued: u64,
    /// Departed packets the receiving TUN device refused.
    pub write_errors: u64,
    /// A `--once` trace ran out.
    pub trace_ended: bool,
    /// How late packets were written compared with their opportunity (at stop).
    pub sched_error: Option<SchedError>,
}

#[derive(Debug, Clone, Default, Serialize)]
pub struct SchedError {
    pub samples: u64,
    pub p50_us: u64,
    pub p99_us: u64,
    pub max_us: u64,
}

/// A 1-µs-bucket histogram of scheduling error up to 10 ms (one overflow
/// bucket above), fixed size so recording never allocates.
pub struct ErrorHistogram {
    buckets: Box<[u64]>,
    n: u64,
    max: u64,
}

const HIST_US: usize = 10_000;

impl Default for ErrorHistogram {
    fn default() -> Self {
        ErrorHistogram {
            buckets: vec![0; HIST_US + 1].into_boxed_slice(),
            n: 0,
            max: 0,
        }
    }
}

impl ErrorHistogram {
    #[inline]
    pub fn record(&mut self, err: Micros) {
        self.buckets[(err as usize).min(HIST_US)] += 1;
        self.n += 1;
        self.max = self.max.max(err);
    }

    pub fn percentile(&self, q: f64) -> u64 {
        let want = ((self.n as f64 * q).ceil() as u64).max(1);
        let mut seen = 0;
        for (us, &c) in self.buckets.iter().enumerate() {
            seen += c;
            if seen >= want {
                return if us == HIST_US { self.max } else { us as u64 };
            }
        }
        self.max
    }

    pub fn summary(&self) -> Option<SchedError> {
        (self.n > 0).then(|| SchedError {
            samples: self.n,
            p50_us: self.percentile(0.5),
            p99_us: self.percentile(0.99),
            max_us: self.max,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles() {
        let mut h = ErrorHistogram::default();
        for us in 1..=100 {
            h.record(us);
        }
        h.record(50_000);
        let s = h.summary().unwrap();
        assert_eq!(
            (s.samples, s.p50_us, s.p99_us, s.max_us),
            (101, 51, 100, 50_000)
        );
        assert_eq!(h.percentile(1.0), 50_000);
    }
}
