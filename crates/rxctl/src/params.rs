// SPDX-License-Identifier: GPL-2.0-only
//! The rules' parameters and the controller's timing, with their defaults
//! and the reasons for them.
use std::time::{Duration, Instant};

use serde::Serialize;

/// DFCSD: Vegas-style backlog against an allowance γ that falls with the
/// bytes a flow has received (see [`crate::dfcsd`]). Allowances are in
/// packets of the flow's MSS.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct DfcsdParams {
    /// γ_max = 10: the allowance of the smallest competing flow and of a flow
    /// alone. Enough standing packets to keep the link busy through the
    /// receiver's one-RTT reaction delay and ACK bunching, yet a fifth of the
    /// paper's 50-packet eNodeB buffer, so a short flow at γ_max plus a long
    /// one at γ_min stay far from overflow (the paper only asks γ_max <= the
    /// default maximum backlog).
    pub gamma_max: f64,
    /// γ_min = 2: the allowance of the largest flow. Vegas's α: the smallest
    /// backlog that keeps a delay-limited flow from idling the link between
    /// ACKs, so the long flow is held back but never starved (γ_min > 0).
    pub gamma_min: f64,
    /// k = 3 (the notes allow 2-5): the largest flow gets within 5 % of γ_min
    /// (e^-3), a flow half-way between the smallest and the largest gets
    /// γ_min + 0.22 (γ_max - γ_min), a clear preference for short flows.
    pub k: f64,
    /// "Equal" in the rule: |diff - γ| <= 0.5 packet holds the window.
    /// The backlog estimate is real-valued and never exactly γ; without a
    /// band the window would dither by ±1 MSS every period at equilibrium.
    pub hold_band: f64,
    /// The first decision sets the window to the rule's fixed point for the
    /// rate the flow has then, `rwnd · baseRTT/RTT + γ` packets, when that
    /// is below the kernel's window, instead of walking down from the
    /// kernel's window one MSS per RTT. The paper leaves the initial window
    /// open; Linux's grows with autotuning until the first RTT sample (up to
    /// ~150 packets at 1 Mbit/s, three times a 50-packet buffer), and the
    /// walk down from there takes ~W²/2 packet times: minutes at 1 Mbit/s.
    /// The rule then goes on from the fixed point as usual.
    pub start_at_fixed_point: bool,
}

impl Default for DfcsdParams {
    fn default() -> Self {
        DfcsdParams {
            gamma_max: 10.0,
            gamma_min: 2.0,
            k: 3.0,
            hold_band: 0.5,
            start_at_fixed_point: true,
        }
    }
}

/// DRWA (Jiang et al., IMC 2012): `rwnd = λ · RTT_min / RTT_est · cwnd_est`
/// once per RTT (see [`crate::drwa`]).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct DrwaParams {
    /// λ = 3, DRWA's own default (2-4 trades throughput for delay): the
    /// window settles where RTT_est = λ · RTT_min, i.e. a queueing delay of
    /// (λ - 1) base RTTs.
    pub lambda: f64,
    /// Gain of the EWMA that smooths RTT_est from one per-period RTT to the
    /// next: 1/8, the gain of TCP's own srtt (RFC 6298); DRWA asks for a
    /// "smoothed" RTT without fixing the filter.
    pub rtt_gain: f64,
}

impl Default for DrwaParams {
    fn default() -> Self {
        DrwaParams {
            lambda: 3.0,
            rtt_gain: 0.125,
        }
    }
}

/// RTAC as built here (see [`crate::rtac`]: its paper's equations were not
/// available, so the rule is assembled from its description): gentle RED on
/// the Vegas backlog estimate, answered by an expected AIMD step per RTT.
/// Thresholds in packets of the flow's MSS.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct RtacParams {
    /// RED's min_th = 5 packets, Floyd's recommended setting ("RED:
    /// Discussions of Setting Parameters", 1997): below it nothing is marked.
    pub min_th: f64,
    /// max_th = 3 · min_th = 15 packets (the same recommendation).
    pub max_th: f64,
    /// max_p = 0.1, the mark probability at max_th (the same recommendation).
    pub max_p: f64,
}

impl Default for RtacParams {
    fn default() -> Self {
        RtacParams {
            min_th: 5.0,
            max_th: 15.0,
            max_p: 0.1,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub enum Rule {
    Dfcsd(DfcsdParams),
    Drwa(DrwaParams),
    Rtac(RtacParams),
}

impl Rule {
    pub fn name(&self) -> &'static str {
        match self {
            Rule::Dfcsd(_) => "dfcsd",
            Rule::Drwa(_) => "drwa",
            Rule::Rtac(_) => "rtac",
        }
    }
}

/// Where the current receiver-side RTT comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum RttSource {
    /// Each data segment's arrival minus the time its TSecr first left in
    /// one of our ACKs, from the UE's packet tap ([`crate::echo`]): DFCSD's
    /// own estimate where TCP timestamps are on (Algorithm 1, lines 10–12),
    /// the path's RTT whatever limits the sender. The default; a flow
    /// without timestamps, or a controller that may not open the tap
    /// (no CAP_NET_RAW), falls back to [`RttSource::WindowSpan`], and its
    /// record says so.
    TimestampEcho,
    /// How long the last advertised window of data took to arrive, from the
    /// socket's byte counter sampled every tick (DRS / DRWA's estimate
    /// without timestamps, DFCSD's line 8). The RTT only while the window
    /// binds: a sender held by its own cwnd makes it the sender's pace
    /// ([`crate::estimator`]).
    WindowSpan,
    /// The kernel's `tcpi_rcv_rtt` (from TCP timestamps). Kept for
    /// comparison; it lags a growing queue and latches low samples.
    KernelTimestamps,
}

impl RttSource {
    pub const ALL: [RttSource; 3] = [
        RttSource::TimestampEcho,
        RttSource::WindowSpan,
        RttSource::KernelTimestamps,
    ];

    /// The source [`RttSource::name`] names.
    pub fn parse(name: &str) -> Option<RttSource> {
        Self::ALL.into_iter().find(|s| s.name() == name)
    }

    pub fn name(self) -> &'static str {
        match self {
            RttSource::TimestampEcho => "timestamp_echo",
            RttSource::WindowSpan => "window_span",
            RttSource::KernelTimestamps => "kernel_timestamps",
        }
    }
}

/// Everything a [`crate::Controller`] needs.
#[derive(Debug, Clone)]
pub struct Config {
    pub rule: Rule,
    /// How often every socket is read (TCP_INFO) = the resolution of the
    /// window-span RTT. 1 ms: a tenth of a 10 ms base RTT, at the cost of
    /// two getsockopt calls per flow per ms (a few µs).
    pub tick: Duration,
    /// A control period is one RTT estimate (Vegas and DRWA act once per
    /// RTT) bounded to [min_period, max_period]: 10 ms keeps a near-zero RTT
    /// (loopback) from turning the rule into a per-tick one; 1 s keeps a
    /// flow behind a seconds-deep queue from going unattended.
    pub min_period: Duration,
    pub max_period: Duration,
    pub rtt_source: RttSource,
    /// Time zero of the records (e.g. the run's start, to line them up with
    /// the runner's other time series).
    pub epoch: Instant,
}

impl Config {
    pub fn new(rule: Rule) -> Config {
        Config {
            rule,
            tick: Duration::from_millis(1),
            min_period: Duration::from_millis(10),
            max_period: Duration::from_secs(1),
            rtt_source: RttSource::TimestampEcho,
            epoch: Instant::now(),
        }
    }

    pub fn dfcsd() -> Config {
        Config::new(Rule::Dfcsd(DfcsdParams::default()))
    }

    pub fn drwa() -> Config {
        Config::new(Rule::Drwa(DrwaParams::default()))
    }
}

/// The rules' names, as schemes and in records.
pub const RULES: &[&str] = &["dfcsd", "drwa", "rtac"];

/// The runner's scheme names for receiver-side control: `dfcsd`, `drwa`
/// and `rtac` (a Cubic sender) or `<rule>+<cc>` (any sender CC). Returns
/// the rule with default parameters and the sender's congestion control.
pub fn scheme(name: &str) -> Option<(Rule, &str)> {
    let (rule, cc) = name.split_once('+').unwrap_or((name, "cubic"));
    if cc.is_empty() {
        return None;
    }
    match rule {
        "dfcsd" => Some((Rule::Dfcsd(DfcsdParams::default()), cc)),
        "drwa" => Some((Rule::Drwa(DrwaParams::default()), cc)),
        "rtac" => Some((Rule::Rtac(RtacParams::default()), cc)),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scheme_names_map_to_a_rule_and_a_sender_cc() {
        assert_eq!(
            scheme("dfcsd").map(|(r, cc)| (r.name(), cc)),
            Some(("dfcsd", "cubic"))
        );
        assert_eq!(
            scheme("drwa").map(|(r, cc)| (r.name(), cc)),
            Some(("drwa", "cubic"))
        );
        assert_eq!(
            scheme("dfcsd+bbr").map(|(r, cc)| (r.name(), cc)),
            Some(("dfcsd", "bbr"))
        );
        assert_eq!(
            scheme("drwa+c2tcp").map(|(r, cc)| (r.name(), cc)),
            Some(("drwa", "c2tcp"))
        );
        assert!(scheme("dfcsd+").is_none());
        assert!(scheme("cubic").is_none());
        assert_eq!(
            scheme("rtac+bbr").map(|(r, cc)| (r.name(), cc)),
            Some(("rtac", "bbr"))
        );
        assert!(scheme("red+cubic").is_none());
    }
}
