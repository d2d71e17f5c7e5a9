// SPDX-License-Identifier: GPL-2.0-only
//! Per-packet delay statistics: mean, percentiles, jitter.
//!
//! Percentiles come from an HdrHistogram of µs values at 4 significant digits:
//! a reported percentile is the lower edge of the bucket holding the exact
//! sample (nearest-rank definition), at most 0.01% below it, and exact below
//! 32.768 ms. Means and jitter are exact sums.
//!
//! Two jitters. Ours (`jitter_ms`, Sprout's and RFC 3550's sense): the mean
//! absolute difference of consecutive packets' delays, which measures how
//! smooth delivery is packet to packet. The C2TCP paper's (`mean_deviation_ms`,
//! its §VI "mean deviation (smoothed absolute value) of delay", Table I's
//! jitter column): the mean absolute deviation of the delays from their mean,
//! which measures how far delay wanders over the run. It is computed from the
//! histogram (Σ count × |bucket value − mean|), so it is within 0.01% of
//! exact. docs/metrics.md says why this one and not RFC 3550's smoothed J.
use hdrhistogram::Histogram;

use crate::log::Micros;

/// Significant digits of the summary statistics' histograms.
pub(crate) const SUMMARY_DIGITS: u8 = 4;

/// Histogram of µs values, growing as needed (10 s at 4 digits ≈ 1.4 MB).
pub(crate) fn new_histogram(significant_digits: u8) -> Histogram<u64> {
    let mut h = Histogram::new_with_bounds(1, 10_000_000, significant_digits)
        .expect("valid histogram bounds");
    h.auto(true);
    h
}

/// `q`-quantile of a µs histogram, in ms; None when empty.
pub(crate) fn quantile_ms(h: &Histogram<u64>, q: f64) -> Option<f64> {
    (!h.is_empty()).then(|| h.lowest_equivalent(h.value_at_quantile(q)) as f64 / 1000.0)
}

#[derive(Clone, Debug)]
pub struct DelayStats {
    histogram: Histogram<u64>,
    sum_us: u128,
    previous_us: Option<Micros>,
    jitter_sum_us: u128,
    jitter_count: u64,
}

impl Default for DelayStats {
    fn default() -> Self {
        DelayStats {
            histogram: new_histogram(SUMMARY_DIGITS),
            sum_us: 0,
            previous_us: None,
            jitter_sum_us: 0,
            jitter_count: 0,
        }
    }
}

impl DelayStats {
    /// One packet's delay, in the order packets departed.
    pub fn record(&mut self, delay: Micros) {
        self.histogram.saturating_record(delay);
        self.sum_us += u128::from(delay);
        if let Some(previous) = self.previous_us {
            self.jitter_sum_us += u128::from(previous.abs_diff(delay));
            self.jitter_count += 1;
        }
        self.previous_us = Some(delay);
    }

    pub fn count(&self) -> u64 {
        self.histogram.len()
    }

    pub fn mean_ms(&self) -> Option<f64> {
        (self.count() > 0).then(|| self.sum_us as f64 / self.count() as f64 / 1000.0)
    }

    pub fn quantile_ms(&self, q: f64) -> Option<f64> {
        quantile_ms(&self.histogram, q)
    }

    /// Mean absolute difference of consecutive packets' delays.
    pub fn jitter_ms(&self) -> Option<f64> {
        (self.jitter_count > 0)
            .then(|| self.jitter_sum_us as f64 / self.jitter_count as f64 / 1000.0)
    }

    /// Mean absolute deviation of the delays from their mean (the C2TCP
    /// paper's jitter).
    pub fn mean_deviation_ms(&self) -> Option<f64> {
        let n = self.count();
        if n == 0 {
            return None;
        }
        let mean_us = self.sum_us as f64 / n as f64;
        let total: f64 = self
            .histogram
            .iter_recorded()
            .map(|v| {
                let value = self.histogram.median_equivalent(v.value_iterated_to()) as f64;
                v.count_at_value() as f64 * (value - mean_us).abs()
            })
            .sum();
        Some(total / n as f64 / 1000.0)
    }

    pub(crate) fn histogram(&self) -> &Histogram<u64> {
        &self.histogram
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mean_percentile_and_jitter_of_a_few_packets() {
        let mut d = DelayStats::default();
        for us in [1000, 3000, 2000, 2000] {
            d.record(us);
        }
        assert_eq!(d.mean_ms(), Some(2.0));
        assert_eq!(d.quantile_ms(0.5), Some(2.0));
        assert_eq!(d.quantile_ms(1.0), Some(3.0));
        // |3−1| + |2−3| + |2−2| over 3 pairs
        assert_eq!(d.jitter_ms(), Some(1.0));
        assert_eq!(DelayStats::default().mean_ms(), None);
        assert_eq!(DelayStats::default().mean_deviation_ms(), None);
    }

    /// A delay that ramps slowly 10 → 110 ms and back: consecutive packets
    /// differ by 0.1 ms (our jitter), while the delay strays 25 ms on average
    /// from its 60 ms mean (the paper's mean deviation of a triangle wave is
    /// a quarter of its peak-to-peak).
    #[test]
    fn mean_deviation_of_a_slow_ramp_is_a_quarter_of_its_range() {
        let mut d = DelayStats::default();
        let up = (0..1000).map(|i| 10_000 + i * 100);
        let down = (0..1000).map(|i| 110_000 - i * 100);
        for us in up.chain(down) {
            d.record(us);
        }
        assert!((d.mean_ms().unwrap() - 60.0).abs() < 0.01);
        assert!((d.jitter_ms().unwrap() - 0.1).abs() < 1e-9);
        let md = d.mean_deviation_ms().unwrap();
        assert!((md - 25.0).abs() < 0.05, "{md}");
        // Two values 4 ms apart: each 2 ms from the mean.
        let mut two = DelayStats::default();
        for us in [1000, 5000, 1000, 5000] {
            two.record(us);
        }
        assert_eq!(two.mean_deviation_ms(), Some(2.0));
    }
}
