// SPDX-License-Identifier: GPL-2.0-only
//! Verus's delay estimator and its per-epoch target-delay update (paper
//! §3, "delay estimator" and "window estimator"; verus_server.cpp's main
//! loop, lines 820-890).
//!
//! Delays here are round-trip times in ms, as the authors measure them
//! (send time of a data packet to the arrival of its ack).
//!
//! Every epoch (5 ms):
//!
//! 1. `d_max` is the largest delay acknowledged in the epoch; an epoch
//!    without acks uses the time since the last ack, if larger than the
//!    previous smoothed value (a silent link is a growing delay).
//! 2. `Δd = d_max − d̄_max`, against the smoothed maximum of the earlier
//!    epochs (`d̄_max ← 0.2·d̄_max + 0.8·d_max` after the update).
//! 3. The target delay `d_est` moves:
//!    - `d̄_max / d_min > R`: the queue is too long whatever the trend, down
//!      by δ2 (floored at `d_min`), except right after slow start ended;
//!      once at the floor with fewer than 2 packets in flight, `d_min` is
//!      raised by 10 ms (the authors' escape from a stale minimum), and with
//!      more in flight the epoch sends nothing;
//!    - else `Δd > 0` (delay rising): down by δ1, floored at `d_min`;
//!    - else (steady or falling): up by δ2.
//! 4. The sender reads the window for `d_est` off the delay profile and
//!    sends what it takes to reach it by the time the acks of this epoch's
//!    packets return ([`Estimator::epoch_budget`]).

/// Epoch length, µs (`EPOCH 5e3`, verus.hpp:40; paper §3: the epoch ε).
pub const EPOCH_US: u64 = 5_000;
/// Target-delay decrease while the delay rises, ms (`DELTA1 1.0`, verus.hpp:41; paper δ1).
pub const DELTA1_MS: f64 = 1.0;
/// Target-delay increase (and decrease past R), ms (`DELTA2 2.0`, verus.hpp:42; paper δ2).
pub const DELTA2_MS: f64 = 2.0;
/// Largest tolerated d̄_max / d_min (`VERUS_R 6.0`, verus.hpp:43; paper R).
pub const R: f64 = 6.0;
/// Weight of the old value in d̄_max's EWMA (`ewma(dMaxLast, dMax, 0.2)`).
pub const DMAX_EWMA_OLD: f64 = 0.2;
/// Weight of the old value in the smoothed RTT (`ewma(dTBar, delay, 0.875)`).
pub const RTT_EWMA_OLD: f64 = 0.875;
/// How far d_min is raised when the target sits on it with nothing in
/// flight, ms (`dMin += 10`).
pub const DMIN_RAISE_MS: f64 = 10.0;
/// A Δd above this counts as rising, ms (`deltaDBar > 0.0001`).
pub const RISING_MS: f64 = 0.0001;
/// d_min before any sample, ms (`dMin = 1000.0`).
pub const DMIN_INITIAL_MS: f64 = 1000.0;

#[derive(Clone, Debug)]
pub struct Estimator {
    /// Target delay, ms (`dEst`).
    pub d_est: f64,
    /// Smallest delay seen, ms (`dMin`).
    pub d_min: f64,
    /// Smoothed epoch maximum, ms (`dMaxLast`); None before the first epoch.
    pub d_max_smoothed: Option<f64>,
    /// Smoothed RTT, ms (`dTBar`).
    pub rtt_smoothed: f64,
    /// Largest delay acknowledged in the current epoch, ms.
    epoch_max: Option<f64>,
}

/// What an epoch decided.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EpochStep {
    /// The epoch's d_max, ms.
    pub d_max: f64,
    /// d_max − d̄_max, ms.
    pub delta_d: f64,
    /// The target sits on d_min with packets in flight: send nothing (`dMinStop`).
    pub pause: bool,
}

impl Default for Estimator {
    fn default() -> Self {
        Self::new()
    }
}

impl Estimator {
    pub fn new() -> Self {
        Estimator {
            d_est: 0.0,
            d_min: DMIN_INITIAL_MS,
            d_max_smoothed: None,
            rtt_smoothed: 0.0,
            epoch_max: None,
        }
    }

    /// An acknowledged packet's delay, ms.
    pub fn on_delay(&mut self, delay_ms: f64) {
        self.epoch_max = Some(self.epoch_max.map_or(delay_ms, |m| m.max(delay_ms)));
        self.rtt_smoothed = RTT_EWMA_OLD * self.rtt_smoothed + (1.0 - RTT_EWMA_OLD) * delay_ms;
        self.d_min = self.d_min.min(delay_ms);
    }

    /// Forgets the current epoch's delays (the end of a loss phase).
    pub fn clear_epoch(&mut self) {
        self.epoch_max = None;
    }

    /// One epoch's update of the target delay. `since_last_ack_ms`: the time
    /// since the last in-order ack; `after_slow_start`: slow start ended on
    /// a loss or an overlong delay and no ack of the new window came yet;
    /// `in_flight`: packets sent and not yet acked or lost.
    pub fn epoch(
        &mut self,
        since_last_ack_ms: f64,
        after_slow_start: bool,
        in_flight: u64,
    ) -> EpochStep {
        let d_max = match self.epoch_max.take() {
            Some(m) => m,
            None => self
                .d_max_smoothed
                .unwrap_or(f64::NEG_INFINITY)
                .max(since_last_ack_ms),
        };
        let last = *self.d_max_smoothed.get_or_insert(d_max);
        let delta_d = d_max - last;
        let mut pause = false;
        if last / self.d_min > R {
            if !after_slow_start {
                self.d_est = self.d_min.max(self.d_est - DELTA2_MS);
                if self.d_est == self.d_min {
                    if in_flight < 2 {
                        self.d_min += DMIN_RAISE_MS;
                    } else {
                        pause = true;
                    }
                }
            }
        } else if delta_d > RISING_MS {
            self.d_est = self.d_min.max(self.d_est - DELTA1_MS);
        } else {
            self.d_est += DELTA2_MS;
        }
        EpochStep {
            d_max,
            delta_d,
            pause,
        }
    }

    /// Folds the epoch's d_max into d̄_max (after the window was chosen, as
    /// the authors order it).
    pub fn end_epoch(&mut self, d_max: f64) {
        let last = self.d_max_smoothed.unwrap_or(d_max);
        self.d_max_smoothed = Some(DMAX_EWMA_OLD * last + (1.0 - DMAX_EWMA_OLD) * d_max);
    }

    /// Packets to send this epoch for the window `w_bar` with `in_flight`
    /// outstanding (`calcSi`, verus_server.cpp:305-318): with `n` epochs per smoothed
    /// RTT, the window is reached after the acks of the packets in flight
    /// come back over the next n − 1 epochs:
    /// `S = max(0, W + W_in_flight · (2 − n) / (n − 1))`, and `W − W_in_flight`
    /// when an RTT fits in one epoch.
    pub fn epoch_budget(&self, w_bar: f64, in_flight: u64) -> u64 {
        let n = (self.rtt_smoothed / (EPOCH_US as f64 / 1000.0)).ceil() as i64;
        let w_crt = in_flight as i64;
        // In whole packets, as the authors' integer arithmetic does.
        let s = if n > 1 {
            w_bar + (w_crt * (2 - n) / (n - 1)) as f64
        } else {
            w_bar - w_crt as f64
        };
        s.max(0.0) as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn estimator(d_min: f64, d_est: f64, d_max_smoothed: f64) -> Estimator {
        Estimator {
            d_est,
            d_min,
            d_max_smoothed: Some(d_max_smoothed),
            rtt_smoothed: d_max_smoothed,
            epoch_max: None,
        }
    }

    #[test]
    fn rising_delay_lowers_the_target_by_delta1() {
        let mut e = estimator(20.0, 50.0, 40.0);
        e.on_delay(45.0);
        e.on_delay(44.0);
        let step = e.epoch(1.0, false, 10);
        assert_eq!(step.d_max, 45.0);
        assert_eq!(step.delta_d, 5.0);
        assert_eq!(e.d_est, 50.0 - DELTA1_MS);
        assert!(!step.pause);
        // Floored at d_min.
        let mut e = estimator(20.0, 20.5, 40.0);
        e.on_delay(45.0);
        e.epoch(1.0, false, 10);
        assert_eq!(e.d_est, 20.0);
    }

    #[test]
    fn steady_or_falling_delay_raises_the_target_by_delta2() {
        let mut e = estimator(20.0, 50.0, 40.0);
        e.on_delay(39.0);
        e.epoch(1.0, false, 10);
        assert_eq!(e.d_est, 50.0 + DELTA2_MS);
        e.end_epoch(39.0);
        assert_eq!(e.d_max_smoothed, Some(0.2 * 40.0 + 0.8 * 39.0));
    }

    /// Past R = d̄_max / d_min the target falls by δ2 whatever the trend,
    /// and, at d_min, the epoch pauses (or raises a stale d_min).
    #[test]
    fn past_r_the_target_falls_by_delta2() {
        let mut e = estimator(10.0, 70.0, 65.0);
        e.on_delay(50.0); // falling, but 65/10 > 6
        e.epoch(1.0, false, 10);
        assert_eq!(e.d_est, 70.0 - DELTA2_MS);
        // Not right after slow start.
        let mut e = estimator(10.0, 70.0, 65.0);
        e.on_delay(50.0);
        e.epoch(1.0, true, 10);
        assert_eq!(e.d_est, 70.0);
        // At the floor with packets in flight: pause.
        let mut e = estimator(10.0, 11.0, 65.0);
        e.on_delay(50.0);
        assert!(e.epoch(1.0, false, 10).pause);
        assert_eq!(e.d_est, 10.0);
        // With nothing in flight d_min is raised instead.
        let mut e = estimator(10.0, 11.0, 65.0);
        e.on_delay(50.0);
        assert!(!e.epoch(1.0, false, 0).pause);
        assert_eq!(e.d_min, 10.0 + DMIN_RAISE_MS);
    }

    /// An epoch without acks takes the silence since the last ack as its
    /// delay when it is longer than the smoothed maximum.
    #[test]
    fn a_silent_epoch_counts_its_silence() {
        let mut e = estimator(20.0, 50.0, 40.0);
        let step = e.epoch(100.0, false, 10);
        assert_eq!(step.d_max, 100.0);
        assert_eq!(e.d_est, 50.0 - DELTA1_MS);
        let mut e = estimator(20.0, 50.0, 40.0);
        assert_eq!(e.epoch(3.0, false, 10).d_max, 40.0);
        assert_eq!(e.d_est, 50.0 + DELTA2_MS);
    }

    #[test]
    fn the_epoch_budget_spreads_the_window_over_an_rtt() {
        // RTT 40 ms: n = 8 epochs; 100 in flight, target 120.
        let e = estimator(20.0, 50.0, 40.0);
        let s = e.epoch_budget(120.0, 100);
        // 100 × (2 − 8) / 7 = −85 in integers (−85.7 truncated).
        assert_eq!(s, 120 - 85);
        // Nothing in flight: the whole window.
        assert_eq!(e.epoch_budget(120.0, 0), 120);
        // Way over the window: nothing.
        assert_eq!(e.epoch_budget(10.0, 100), 0);
        // An RTT within one epoch: the window's shortfall.
        let fast = estimator(1.0, 2.0, 3.0);
        assert_eq!(fast.epoch_budget(30.0, 20), 10);
    }

    #[test]
    fn delays_update_d_min_and_the_smoothed_rtt() {
        let mut e = Estimator::new();
        e.on_delay(40.0);
        assert_eq!(e.d_min, 40.0);
        assert_eq!(e.rtt_smoothed, 0.125 * 40.0);
        e.on_delay(30.0);
        assert_eq!(e.d_min, 30.0);
    }
}
