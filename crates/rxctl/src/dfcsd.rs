// SPDX-License-Identifier: GPL-2.0-only
//! DFCSD's rule (Delay-based Flow Control with Service Differentiation),
//! as the paper's equations read (docs/receiver-side.md restates them):
//!
//! - backlog, Vegas style: `diff = rwnd · (1 − baseRTT / RTT)` packets, the
//!   flow's packets sitting in the bottleneck queue;
//! - allowance: `γ_s = γ_min + (γ_max − γ_min) · exp(−k · (d_s − d_min) / (d_max − d_min))`
//!   where d is the bytes a flow has received, over the UE's active flows;
//! - `diff < γ_s` → rwnd + 1 MSS, `diff > γ_s` → rwnd − 1 MSS, else hold.
//!
//! Pure functions; the window bounds (2 MSS, the socket's maximum) are
//! applied by [`crate::flow`].
use crate::params::DfcsdParams;

/// γ_s in packets for a flow that has received `d` bytes while the UE's
/// active flows have received between `d_min` and `d_max`.
///
/// Choice the paper leaves open: when every active flow has received the
/// same amount (a single flow, or flows that started together and got
/// nothing yet) the spread is zero and the exponent undefined; they all get
/// γ_max, as a single flow does.
pub fn gamma(p: &DfcsdParams, d: u64, d_min: u64, d_max: u64) -> f64 {
    if d_max <= d_min {
        return p.gamma_max;
    }
    let x = (d.clamp(d_min, d_max) - d_min) as f64 / (d_max - d_min) as f64;
    p.gamma_min + (p.gamma_max - p.gamma_min) * (-p.k * x).exp()
}

/// The flow's backlog in packets: `rwnd/mss · (1 − base/rtt)`, never
/// negative (an RTT sample below the base RTT means an empty queue).
pub fn backlog(rwnd: u32, mss: u32, base_rtt_us: u64, rtt_us: u64) -> f64 {
    if rtt_us == 0 || mss == 0 {
        return 0.0;
    }
    let queued_fraction = (1.0 - base_rtt_us as f64 / rtt_us as f64).max(0.0);
    rwnd as f64 / mss as f64 * queued_fraction
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    Grow,
    Hold,
    Shrink,
}

impl Step {
    /// +1, 0, −1: the change of rwnd in MSS.
    pub fn sign(self) -> i8 {
        match self {
            Step::Grow => 1,
            Step::Hold => 0,
            Step::Shrink => -1,
        }
    }
}

/// The rule: compare the backlog with the allowance.
pub fn step(p: &DfcsdParams, backlog: f64, gamma: f64) -> Step {
    if backlog < gamma - p.hold_band {
        Step::Grow
    } else if backlog > gamma + p.hold_band {
        Step::Shrink
    } else {
        Step::Hold
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u32 = 1448;

    #[test]
    fn a_single_flow_and_equal_flows_use_gamma_max() {
        let p = DfcsdParams::default();
        assert_eq!(gamma(&p, 5_000, 5_000, 5_000), p.gamma_max);
        assert_eq!(gamma(&p, 0, 0, 0), p.gamma_max);
    }

    #[test]
    fn the_flow_with_fewer_bytes_gets_the_larger_gamma() {
        let p = DfcsdParams::default();
        let (short, mid, long) = (128_000, 2_000_000, 10_000_000);
        let g_short = gamma(&p, short, short, long);
        let g_mid = gamma(&p, mid, short, long);
        let g_long = gamma(&p, long, short, long);
        assert_eq!(g_short, p.gamma_max);
        assert!(
            g_short > g_mid && g_mid > g_long,
            "{g_short} {g_mid} {g_long}"
        );
        // The largest flow is held near γ_min but never below it (never starved).
        assert!(g_long >= p.gamma_min && g_long < p.gamma_min + 0.06 * (p.gamma_max - p.gamma_min));
        // Exponential in between: half-way gets e^-k/2 of the range.
        let half = gamma(&p, (short + long) / 2, short, long);
        let want = p.gamma_min + (p.gamma_max - p.gamma_min) * (-p.k / 2.0).exp();
        assert!((half - want).abs() < 1e-9);
        // A larger k prefers short flows more sharply.
        let steep = DfcsdParams { k: 5.0, ..p };
        assert!(gamma(&steep, mid, short, long) < g_mid);
    }

    #[test]
    fn backlog_is_the_queued_share_of_the_window() {
        // RTT twice the base: half of a 20-packet window is queued.
        assert!((backlog(20 * MSS, MSS, 20_000, 40_000) - 10.0).abs() < 1e-9);
        // No queueing: no backlog; a sample below the base is not negative.
        assert_eq!(backlog(20 * MSS, MSS, 20_000, 20_000), 0.0);
        assert_eq!(backlog(20 * MSS, MSS, 20_000, 15_000), 0.0);
        assert_eq!(backlog(20 * MSS, MSS, 20_000, 0), 0.0);
    }

    #[test]
    fn grows_below_gamma_shrinks_above_holds_at_gamma() {
        let p = DfcsdParams::default();
        assert_eq!(step(&p, 3.0, 10.0), Step::Grow);
        assert_eq!(step(&p, 14.0, 10.0), Step::Shrink);
        assert_eq!(step(&p, 10.0, 10.0), Step::Hold);
        assert_eq!(step(&p, 10.4, 10.0), Step::Hold);
        assert_eq!(step(&p, 9.6, 10.0), Step::Hold);
        assert_eq!(step(&p, 10.6, 10.0), Step::Shrink);
    }
}
