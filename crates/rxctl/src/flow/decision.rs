// SPDX-License-Identifier: GPL-2.0-only
//! Once per control period (one RTT, bounded by the config) the flow's rule
//! moves rwnd from the period's mean RTT and the base RTT; the decision is
//! what the record keeps of it.
use super::{FlowLogic, Obs};
use crate::dfcsd;
use crate::drwa;
use crate::params::Rule;
use crate::rtac;

/// One control decision, as recorded.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Decision {
    pub t_us: u64,
    /// The window after the decision (bytes), bounds applied.
    pub rwnd: u32,
    /// The RTT the rule used (the period's mean) and the base RTT.
    pub rtt_us: u64,
    pub base_rtt_us: u64,
    /// DFCSD: the allowance and the backlog estimate (packets) and the step.
    pub gamma: Option<f64>,
    pub backlog: Option<f64>,
    pub step: i8,
    /// DRWA: the data received in the last RTT (bytes).
    pub cwnd_est: Option<u64>,
    /// RTAC: the mark probability its RED gave the backlog.
    pub mark_p: Option<f64>,
}

impl FlowLogic {
    /// Ends the control period at `o`: the rule's new window, bounded.
    pub(super) fn decide(&mut self, o: &Obs, gamma: f64, elapsed_us: u64) -> Decision {
        let rtt = self.rtt_sum / self.rtt_n;
        let base = self.base_rtt_us.unwrap_or(rtt).min(rtt);
        let mss = o.mss.max(536);
        // Until the first decision the window is the kernel's own; the
        // kernel may have lowered its ceiling since the last one.
        let current = self.bound(self.rwnd.unwrap_or(o.rcv_wnd) as f64, mss);
        let mut d = Decision {
            t_us: o.t_us,
            rwnd: current,
            rtt_us: rtt,
            base_rtt_us: base,
            gamma: None,
            backlog: None,
            step: 0,
            cwnd_est: None,
            mark_p: None,
        };
        let next_period;
        match self.rule {
            Rule::Dfcsd(p) => {
                let backlog = dfcsd::backlog(current, mss, base, rtt);
                // The fixed point keeps the rate the window gives now
                // (current / rtt) with γ packets queued (see the params).
                let fixed = current as f64 * base as f64 / rtt as f64 + gamma * mss as f64;
                if self.rwnd.is_none() && p.start_at_fixed_point && fixed < current as f64 {
                    d.rwnd = self.bound(fixed, mss);
                    d.step = 0;
                } else {
                    let step = dfcsd::step(&p, backlog, gamma);
                    d.rwnd = self.bound(current as f64 + step.sign() as f64 * mss as f64, mss);
                    d.step = step.sign();
                }
                d.gamma = Some(gamma);
                d.backlog = Some(backlog);
                next_period = rtt;
            }
            Rule::Drwa(p) => {
                let srtt = drwa::smooth(&p, self.srtt_us, rtt);
                self.srtt_us = Some(srtt);
                // Data received in the last RTT: the period's bytes scaled to
                // one RTT (a period is longer than the RTT when bounded below).
                let got = o.bytes_received - self.period_start_bytes;
                let cwnd_est = (got as f64 * srtt / elapsed_us.max(1) as f64) as u64;
                d.rwnd = self.bound(drwa::rwnd(&p, base, srtt as u64, cwnd_est), mss);
                d.cwnd_est = Some(cwnd_est);
                d.step = (d.rwnd as i64 - current as i64).signum() as i8;
                next_period = srtt as u64;
            }
            Rule::Rtac(p) => {
                let backlog = dfcsd::backlog(current, mss, base, rtt);
                let prob = rtac::mark_probability(&p, backlog);
                d.rwnd = self.bound(rtac::next_rwnd(current as f64, mss, prob), mss);
                d.backlog = Some(backlog);
                d.mark_p = Some(prob);
                d.step = (d.rwnd as i64 - current as i64).signum() as i8;
                next_period = rtt;
            }
        }
        self.rwnd = Some(d.rwnd);
        self.period_start_us = o.t_us;
        self.period_start_bytes = o.bytes_received;
        self.period_len_us = next_period.clamp(self.min_period_us, self.max_period_us);
        self.rtt_sum = 0;
        self.rtt_n = 0;
        d
    }
}
