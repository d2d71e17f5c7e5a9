// SPDX-License-Identifier: GPL-2.0-only
//! Per-packet delay statistics: mean, percentiles, jitter.
//!
//! Percentiles come from an HdrHistogram of µs values at 4 significant digits:
//! a reported percentile is the lower edge of the bucket holding the exact
//! sample (nearest-rank definition), at most 0.01% below it, and exact below
//! 32.768 ms. Means and jitter are exact sums.
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
    }
}
