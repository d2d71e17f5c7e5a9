// SPDX-License-Identifier: GPL-2.0-only
//! Sprout-EWMA (paper §5.3): the same protocol, but the receiver tracks the
//! delivery rate with an exponentially-weighted moving average of the packets
//! observed per tick and forecasts that the link continues at that rate, with
//! no caution. The gain 1/8 per observed tick is the authors' value.

/// Weight of a new observation.
pub const DEFAULT_GAIN: f64 = 1.0 / 8.0;

pub struct Ewma {
    gain: f64,
    /// Packets per tick.
    rate: f64,
}

impl Ewma {
    pub fn new(gain: f64) -> Self {
        // The authors start from zero: the first heartbeats pull it up.
        Ewma { gain, rate: 0.0 }
    }

    /// Folds in one observed tick (packets, fractional: EWMA needs no rounding).
    pub fn observe(&mut self, packets: f64) {
        self.rate = (1.0 - self.gain) * self.rate + self.gain * packets;
    }

    /// Packets per tick.
    pub fn rate_per_tick(&self) -> f64 {
        self.rate
    }

    /// `out[t]` = packets delivered by the end of tick t+1 at the current rate.
    pub fn forecast(&self, out: &mut [u32]) {
        for (t, slot) in out.iter_mut().enumerate() {
            *slot = (self.rate * (t + 1) as f64).floor().min(u32::MAX as f64) as u32;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tracks_a_rate_and_forecasts_it_linearly() {
        let mut e = Ewma::new(DEFAULT_GAIN);
        for _ in 0..100 {
            e.observe(20.0);
        }
        assert!((e.rate_per_tick() - 20.0).abs() < 0.01);
        let mut out = [0u32; 8];
        e.forecast(&mut out);
        for (t, &c) in out.iter().enumerate() {
            assert!((c as f64 - 20.0 * (t + 1) as f64).abs() <= 1.0, "{out:?}");
        }
    }

    #[test]
    fn reacts_slowly_to_an_outage() {
        // The point of §5.3: a low-pass filter keeps forecasting after the
        // link stops, where Sprout's inference drops to the outage at once.
        let mut e = Ewma::new(DEFAULT_GAIN);
        for _ in 0..100 {
            e.observe(20.0);
        }
        for _ in 0..5 {
            e.observe(0.0);
        }
        // (7/8)^5 ≈ 0.51 of the rate is still forecast after 100 ms of outage.
        assert!((e.rate_per_tick() - 20.0 * (7.0f64 / 8.0).powi(5)).abs() < 0.01);
        let mut out = [0u32; 8];
        e.forecast(&mut out);
        assert!(out[4] >= 50, "{out:?}");
    }
}
