// SPDX-License-Identifier: GPL-2.0-only
//! DRWA's rule (Dynamic Receive Window Adjustment, Jiang et al., IMC 2012):
//! once per RTT, `rwnd = λ · RTT_min / RTT_est · cwnd_est`, where cwnd_est
//! is the data received during the last RTT. With the window binding,
//! cwnd_est ≈ rwnd and the window settles where RTT_est = λ · RTT_min.
//! No service differentiation. Bounds are applied by [`crate::flow`].
use crate::params::DrwaParams;

/// The window DRWA asks for, in bytes (unbounded).
pub fn rwnd(p: &DrwaParams, rtt_min_us: u64, rtt_est_us: u64, cwnd_est: u64) -> f64 {
    if rtt_est_us == 0 {
        return cwnd_est as f64 * p.lambda;
    }
    p.lambda * rtt_min_us as f64 / rtt_est_us as f64 * cwnd_est as f64
}

/// RTT_est smoothed by an EWMA of the per-period RTTs.
pub fn smooth(p: &DrwaParams, rtt_est_us: Option<f64>, sample_us: u64) -> f64 {
    match rtt_est_us {
        None => sample_us as f64,
        Some(e) => e + p.rtt_gain * (sample_us as f64 - e),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_formula() {
        let p = DrwaParams::default();
        // No queueing: three times the data of the last RTT.
        assert_eq!(rwnd(&p, 20_000, 20_000, 30_000), 90_000.0);
        // RTT at 3x its minimum: equilibrium, the window holds.
        assert_eq!(rwnd(&p, 20_000, 60_000, 30_000), 30_000.0);
        // Deeper queue: shrinks in proportion.
        assert_eq!(rwnd(&p, 20_000, 120_000, 30_000), 15_000.0);
        let l2 = DrwaParams { lambda: 2.0, ..p };
        assert_eq!(rwnd(&l2, 20_000, 40_000, 30_000), 30_000.0);
    }

    #[test]
    fn rtt_est_is_an_ewma_of_the_samples() {
        let p = DrwaParams::default();
        assert_eq!(smooth(&p, None, 40_000), 40_000.0);
        assert_eq!(smooth(&p, Some(40_000.0), 48_000), 41_000.0);
    }
}
