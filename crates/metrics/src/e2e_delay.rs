// SPDX-License-Identifier: GPL-2.0-only
//! Sprout's "95% end-to-end delay" and the omniscient sender's (Winstein et
//! al., NSDI 2013, §5.1).
//!
//! At each instant t the end-to-end delay is t minus the send time of the most
//! recently *sent* packet that has arrived by t: the least delay a playback
//! buffer needs so that nothing is missing at t. At an arrival it equals that
//! packet's delay (if packets are not reordered); between arrivals it grows at
//! 1 s/s. The 95th percentile of this function of time over the window is the
//! "95% end-to-end delay". The omniscient sender times a packet into every
//! delivery opportunity, so its packets never queue, yet the link's outages
//! still give it delay. A scheme's *self-inflicted delay* is its figure minus
//! the omniscient one over the same stretch of time.
//!
//! Both are measured at the bottleneck queue (send time = arrival at the
//! queue): the propagation delay adds one constant to both functions, and the
//! caller adds it to the reported figures. The function is sampled on a grid
//! from the window start (every 0.1 ms by default; Mahimahi's
//! mm-throughput-graph samples every 1 ms).
use hdrhistogram::Histogram;

use crate::delay::{new_histogram, quantile_ms, SUMMARY_DIGITS};
use crate::log::Micros;

/// Sample instants `start + i·step`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Grid {
    pub start: Micros,
    pub step: Micros,
}

impl Grid {
    fn time(&self, index: u64) -> Micros {
        self.start + index * self.step
    }

    /// Number of sample instants strictly before `t`.
    fn count_before(&self, t: Micros) -> u64 {
        t.saturating_sub(self.start).div_ceil(self.step)
    }
}

/// The delay function's state: the newest send time delivered so far.
#[derive(Clone, Debug, Default)]
struct Freshest {
    next_index: u64,
    sent: Option<Micros>,
}

impl Freshest {
    /// Samples every instant before `until` with the current state.
    fn sample_until(&mut self, grid: Grid, until: Micros, mut sample: impl FnMut(u64, Micros)) {
        let end = grid.count_before(until);
        if let Some(sent) = self.sent {
            for index in self.next_index..end {
                sample(index, grid.time(index).saturating_sub(sent));
            }
        }
        self.next_index = self.next_index.max(end);
    }

    fn deliver(&mut self, sent: Micros) {
        self.sent = Some(self.sent.map_or(sent, |s| s.max(sent)));
    }
}

/// One flow's (or the aggregate's) end-to-end delay function.
#[derive(Clone, Debug)]
pub(crate) struct EndToEndDelay {
    state: Freshest,
    first_index: Option<u64>,
    histogram: Histogram<u64>,
}

impl Default for EndToEndDelay {
    fn default() -> Self {
        EndToEndDelay {
            state: Freshest::default(),
            first_index: None,
            histogram: new_histogram(SUMMARY_DIGITS),
        }
    }
}

impl EndToEndDelay {
    /// A packet sent (arrived at the queue) at `sent` reached the receiver
    /// (left the queue) at `t`; `limit` is the window's configured end.
    pub fn delivered(&mut self, grid: Grid, t: Micros, sent: Micros, limit: Micros) {
        self.advance(grid, t.min(limit));
        self.state.deliver(sent);
    }

    /// Samples up to the window's end.
    pub fn advance(&mut self, grid: Grid, until: Micros) {
        let (first, histogram) = (&mut self.first_index, &mut self.histogram);
        self.state.sample_until(grid, until, |index, delay| {
            first.get_or_insert(index);
            histogram.saturating_record(delay);
        });
    }

    /// The first sampled instant: where the function became defined.
    pub fn first_index(&self) -> Option<u64> {
        self.first_index
    }

    pub fn p95_ms(&self) -> Option<f64> {
        quantile_ms(&self.histogram, 0.95)
    }
}

/// The omniscient sender's function, kept sample by sample so that each flow
/// can be compared with it over the flow's own stretch of the window.
#[derive(Clone, Debug, Default)]
pub(crate) struct Omniscient {
    state: Freshest,
    /// µs per sample index; UNDEFINED before the first opportunity.
    samples: Vec<u32>,
}

const UNDEFINED: u32 = u32::MAX;

impl Omniscient {
    /// A delivery opportunity at `t`, used with zero queueing.
    pub fn opportunity(&mut self, grid: Grid, t: Micros, limit: Micros) {
        self.advance(grid, t.min(limit));
        self.state.deliver(t);
    }

    pub fn advance(&mut self, grid: Grid, until: Micros) {
        let samples = &mut self.samples;
        self.state.sample_until(grid, until, |index, delay| {
            let index = index as usize;
            if samples.len() < index {
                samples.resize(index, UNDEFINED);
            }
            samples.push(delay.min(u64::from(UNDEFINED - 1)) as u32);
        });
    }

    /// 95th percentile over the samples from `first_index` on.
    pub fn p95_ms_from(&self, first_index: u64) -> Option<f64> {
        let mut histogram = new_histogram(SUMMARY_DIGITS);
        let from = (first_index as usize).min(self.samples.len());
        for &delay in self.samples[from..].iter().filter(|&&d| d != UNDEFINED) {
            histogram.saturating_record(u64::from(delay));
        }
        quantile_ms(&histogram, 0.95)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn delay_grows_between_deliveries_and_resets_at_each() {
        let grid = Grid {
            start: 0,
            step: 1000,
        };
        let mut f = EndToEndDelay::default();
        // Packets sent at 0, 10, 20 … ms each delivered 5 ms later, up to 100 ms:
        // the function runs 5 → 15 ms over every 10 ms; samples at 5,6,…,14 ms.
        for k in 0..10 {
            f.delivered(grid, k * 10_000 + 5_000, k * 10_000, 100_000);
        }
        f.advance(grid, 100_000);
        assert_eq!(f.first_index(), Some(5));
        // 95 samples (5 ms … 99 ms): the last 90 cycle through 5..=14 ms.
        assert_eq!(f.p95_ms(), Some(14.0));
    }

    #[test]
    fn omniscient_is_zero_at_each_opportunity_and_grows_through_outages() {
        let grid = Grid {
            start: 0,
            step: 1000,
        };
        let mut o = Omniscient::default();
        // Opportunities every ms for 80 ms, then a 20 ms outage.
        for ms in 0..80 {
            o.opportunity(grid, ms * 1000, 100_000);
        }
        o.advance(grid, 100_000);
        // 100 samples: 80 zeros, then 1..=20 ms; the 95th is 15 ms.
        assert_eq!(o.p95_ms_from(0), Some(15.0));
        // From 90 ms on only the outage's tail counts: 11..=20 ms.
        assert_eq!(o.p95_ms_from(90), Some(20.0));
    }
}
