// SPDX-License-Identifier: GPL-2.0-only
//! RTAC's rule (Receiver-side TCP Adaptive queue Control; Im, Joo, Lee and
//! Bahk, "Receiver-Side TCP Countermeasure to Bufferbloat in Wireless Access
//! Networks", IEEE TMC 15(8), 2016), as built here.
//!
//! What is known of it: the DFCSD paper (Sensors 2019, section 2) says RTAC
//! "integrates the AQM into the loss-based congestion algorithms and is
//! implemented at the receiver side", with no service differentiation; its
//! abstract says it exploits "TCP and AQM dynamics" to compete fairly with
//! ordinary TCP while preventing bufferbloat, with no change at the sender
//! or the routers. Its equations were not available to us, so the rule
//! below is built from that description, every piece an assumption
//! (docs/receiver-side.md lists them):
//!
//! 1. The receiver runs an AQM on the queue it cannot see: once per RTT it
//!    estimates its flow's backlog at the bottleneck the way DFCSD does
//!    (Vegas: `rwnd · (1 − baseRTT/RTT)` packets, [`crate::dfcsd::backlog`]).
//! 2. The AQM is RED with Floyd's recommended settings (min_th 5 packets,
//!    max_th = 3 · min_th, max_p 0.1) in its "gentle" form: the mark
//!    probability rises linearly from 0 at min_th to max_p at max_th, then
//!    to 1 at 2 · max_th.
//! 3. The receiver's window answers marks as a loss-based TCP answers
//!    losses (Reno's AIMD): a mark halves rwnd, an RTT without one adds one
//!    MSS. A receiver decides once per RTT, so instead of drawing a random
//!    mark it takes the expected step: `rwnd ← rwnd − p · rwnd/2 + (1 − p) · MSS`.
//!
//! At equilibrium `p · rwnd / 2 = (1 − p) · MSS` (rwnd in packets: p ≈
//! 2 / rwnd). With the defaults and a window that is mostly backlog (a
//! small BDP, as on DFCSD's 1 Mbit/s link) that is a backlog of about 15
//! packets, max_th, per flow whatever the link rate; a larger BDP gives a
//! smaller p and so a backlog nearer min_th. Against DFCSD's γ (2–10) and
//! plain TCP's full buffer.
//!
//! Pure functions; the window bounds (2 MSS, the socket's maximum) are
//! applied by [`crate::flow`].
use crate::params::RtacParams;

/// The mark probability of gentle RED for a backlog in packets.
pub fn mark_probability(p: &RtacParams, backlog_pkts: f64) -> f64 {
    let (lo, hi) = (p.min_th, p.max_th);
    if backlog_pkts <= lo {
        0.0
    } else if backlog_pkts < hi {
        p.max_p * (backlog_pkts - lo) / (hi - lo)
    } else if backlog_pkts < 2.0 * hi {
        p.max_p + (1.0 - p.max_p) * (backlog_pkts - hi) / hi
    } else {
        1.0
    }
}

/// The window after one RTT with mark probability `prob`: the expected
/// AIMD step (halve on a mark, +1 MSS otherwise), unbounded.
pub fn next_rwnd(rwnd: f64, mss: u32, prob: f64) -> f64 {
    let prob = prob.clamp(0.0, 1.0);
    rwnd - prob * rwnd / 2.0 + (1.0 - prob) * mss as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u32 = 1448;

    #[test]
    fn gentle_red_on_the_backlog() {
        let p = RtacParams::default();
        assert_eq!((p.min_th, p.max_th, p.max_p), (5.0, 15.0, 0.1));
        assert_eq!(mark_probability(&p, 0.0), 0.0);
        assert_eq!(mark_probability(&p, 5.0), 0.0);
        assert!((mark_probability(&p, 10.0) - 0.05).abs() < 1e-12);
        assert!((mark_probability(&p, 15.0) - 0.1).abs() < 1e-12);
        assert!((mark_probability(&p, 22.5) - 0.55).abs() < 1e-12);
        assert_eq!(mark_probability(&p, 30.0), 1.0);
        assert_eq!(mark_probability(&p, 400.0), 1.0);
        // Monotone.
        let mut last = 0.0;
        for b in 0..60 {
            let m = mark_probability(&p, b as f64 / 2.0);
            assert!(m >= last, "{b}");
            last = m;
        }
    }

    #[test]
    fn aimd_in_expectation() {
        let w = 20.0 * MSS as f64;
        // No mark: one MSS more; certain mark: half; in between, the mean.
        assert_eq!(next_rwnd(w, MSS, 0.0), w + MSS as f64);
        assert_eq!(next_rwnd(w, MSS, 1.0), w / 2.0);
        assert!((next_rwnd(w, MSS, 0.1) - (w - 0.1 * w / 2.0 + 0.9 * MSS as f64)).abs() < 1e-9);
    }

    /// A window that is all backlog (no BDP to speak of) settles where
    /// p · rwnd / 2 = 1 − p: about max_th packets with the defaults.
    #[test]
    fn settles_inside_reds_band() {
        let p = RtacParams::default();
        let mut w = 150.0 * MSS as f64; // the kernel's opening window
        for _ in 0..500 {
            let backlog = w / MSS as f64;
            w = next_rwnd(w, MSS, mark_probability(&p, backlog));
        }
        let pkts = w / MSS as f64;
        assert!(pkts > p.min_th && pkts < 2.0 * p.max_th, "{pkts}");
        assert!((pkts - 15.3).abs() < 0.5, "{pkts}");
        let prob = mark_probability(&p, pkts);
        assert!(
            (prob * pkts / 2.0 - (1.0 - prob)).abs() < 0.05,
            "{pkts} {prob}"
        );
    }
}
