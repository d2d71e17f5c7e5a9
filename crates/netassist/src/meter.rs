// SPDX-License-Identifier: GPL-2.0-only
//! What NetAssist measures for a UE each period: the bottleneck bandwidth
//! the cellular link offered and the minimum RTT a packet could see.
//!
//! The "base station's scheduler" is the trace: NetAssist walks the same
//! delivery schedule as the emulator's link (same traces, same trace time 0,
//! same offset and looping), so the bandwidth of a period is exactly the
//! capacity the link offered in it, used or not, whether or not the
//! emulator's thread happened to be awake. It counts opportunities at trace
//! times in (end - period, end].
//!
//! When a period's figures are reported is the [`Feedback`] mode's:
//! `Live` (and `Carry`) at the period's end, the only thing a real network
//! can do; `Replay` at its start, the authors' oracle (their server replayed
//! a file of each 50-ms bin's capacity, setting each bin's at the bin's
//! start, docs/netassist.md).
//!
//! - bandwidth = opportunities x 1500 bytes / period. A period without any
//!   opportunity (an outage) reports 0, the average over the period, as the
//!   paper defines it and as the authors' feedback file has it; eq. 1 then
//!   gives its floor. `Carry` reports the last non-zero bandwidth instead,
//!   flagged as carried (our earlier default; measured in
//!   docs/netassist.md).
//! - minimum RTT = the propagation delay both ways + the time one MTU takes
//!   at the period's downlink bandwidth (the definition). With
//!   `uplink_in_min_rtt` also + the time one MTU takes at the period's
//!   uplink bandwidth: the paper's third part, the uplink's
//!   transmission/scheduling delay. Off by default: the uplink carries ACKs,
//!   which share an opportunity (Mahimahi's byte accounting), so an MTU's
//!   time is not what they wait, and a period in which the uplink offered
//!   little multiplies eq. 1's window for a period (docs/netassist.md).
use emu::trace::{Cursor, Trace};
use serde::{Deserialize, Serialize};

/// Bytes of one delivery opportunity (the emulator's link).
pub const MTU_BYTES: u64 = emu::link::OPPORTUNITY_BYTES as u64;

/// Which figures NetAssist reports, and when.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Feedback {
    /// The period that just ended, at its end; an empty period reports 0.
    #[default]
    Live,
    /// As `Live`, but an empty period reports the last non-zero bandwidth.
    Carry,
    /// The period about to start, at its start (an oracle one period
    /// ahead, the authors' replay); an empty period reports 0.
    Replay,
}

impl Feedback {
    pub const NAMES: &'static [&'static str] = &["live", "carry", "replay"];

    pub fn name(self) -> &'static str {
        match self {
            Feedback::Live => "live",
            Feedback::Carry => "carry",
            Feedback::Replay => "replay",
        }
    }

    pub fn parse(word: &str) -> Option<Feedback> {
        match word {
            "live" => Some(Feedback::Live),
            "carry" => Some(Feedback::Carry),
            "replay" => Some(Feedback::Replay),
            _ => None,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Figures {
    /// End of the period, µs of trace time.
    pub end_us: u64,
    /// Downlink bottleneck bandwidth, bytes/s.
    pub bw_bps: u64,
    /// Uplink bandwidth, bytes/s (only used for the minimum RTT).
    pub up_bps: u64,
    pub min_rtt_us: u32,
    /// The downlink offered nothing this period and `Carry` reported the
    /// last non-zero bandwidth instead.
    pub carried: bool,
}

struct Direction {
    cursor: Cursor,
    /// The last non-zero bandwidth (0: never any).
    last_bps: u64,
}

impl Direction {
    /// Bytes/s offered in (.., end_us] (0 for none).
    fn take(&mut self, end_us: u64, period_us: u64) -> u64 {
        let mut n = 0u64;
        while let Some(t) = self.cursor.peek_us() {
            if t > end_us {
                break;
            }
            n += 1;
            self.cursor.advance();
        }
        let bps = n * MTU_BYTES * 1_000_000 / period_us;
        if bps > 0 {
            self.last_bps = bps;
        }
        bps
    }
}

pub struct Meter {
    down: Direction,
    up: Direction,
    period_us: u64,
    prop_us: u64,
    uplink_in_min_rtt: bool,
    feedback: Feedback,
    next_end_us: u64,
}

fn mtu_time_us(bps: u64) -> u64 {
    if bps == 0 {
        0
    } else {
        (MTU_BYTES * 1_000_000).div_ceil(bps)
    }
}

impl Meter {
    /// `offset_ms` and `once` as the emulator's; `prop_us` its one-way delay.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        down: &Trace,
        up: &Trace,
        offset_ms: u64,
        once: bool,
        prop_us: u64,
        period_us: u64,
        uplink_in_min_rtt: bool,
        feedback: Feedback,
    ) -> anyhow::Result<Meter> {
        anyhow::ensure!(
            period_us >= 1_000,
            "the NetAssist period must be at least 1 ms"
        );
        Ok(Meter {
            down: Direction {
                cursor: Cursor::new(down, offset_ms, once)?,
                last_bps: 0,
            },
            up: Direction {
                cursor: Cursor::new(up, offset_ms, once)?,
                last_bps: 0,
            },
            period_us,
            prop_us,
            uplink_in_min_rtt,
            feedback,
            next_end_us: period_us,
        })
    }

    /// Trace time at which the next period ends.
    pub fn next_end_us(&self) -> u64 {
        self.next_end_us
    }

    /// Trace time at which the next period's figures are due: its end, or
    /// with `Replay` its start.
    pub fn due_us(&self) -> u64 {
        match self.feedback {
            Feedback::Replay => self.next_end_us - self.period_us,
            Feedback::Live | Feedback::Carry => self.next_end_us,
        }
    }

    /// The figures of the period ending at `next_end_us()`; moves on.
    /// None while the downlink has never offered anything.
    pub fn measure(&mut self) -> Option<Figures> {
        let end = self.next_end_us;
        self.next_end_us += self.period_us;
        let offered = self.down.take(end, self.period_us);
        let up = self.up.take(end, self.period_us);
        let last = self.down.last_bps;
        if last == 0 {
            return None;
        }
        let carried = offered == 0 && self.feedback == Feedback::Carry;
        let bw = if carried { last } else { offered };
        let up_us = if self.uplink_in_min_rtt {
            mtu_time_us(if up == 0 { self.up.last_bps } else { up })
        } else {
            0
        };
        // An empty period's minimum RTT is the last one's, as in the
        // authors' feedback file: eq. 1 is 0 whatever it is.
        let rtt = 2 * self.prop_us + mtu_time_us(last) + up_us;
        Some(Figures {
            end_us: end,
            bw_bps: bw,
            up_bps: up,
            min_rtt_us: rtt.min(u32::MAX as u64) as u32,
            carried,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    fn trace(ms: impl IntoIterator<Item = u64>) -> Trace {
        let text: Vec<String> = ms.into_iter().map(|t| t.to_string()).collect();
        Trace::parse(Path::new("t"), &text.join("\n")).unwrap()
    }

    /// Downlink: 1 opportunity per ms for 100 ms (12 Mbit/s), then none
    /// until 200 ms, then 2 per ms; uplink constant 4 per ms (48 Mbit/s).
    fn meter(feedback: Feedback) -> Meter {
        let mut down: Vec<u64> = (1..=100).collect();
        down.extend((201..=300).flat_map(|t| [t, t]));
        let up = trace((1..=300).flat_map(|t| [t; 4]));
        Meter::new(&trace(down), &up, 0, false, 5_000, 50_000, true, feedback).unwrap()
    }

    #[test]
    fn bandwidth_and_min_rtt_of_each_period() {
        let mut m = meter(Feedback::Live);
        assert_eq!(m.due_us(), 50_000, "live: at the period's end");
        let f = m.measure().unwrap();
        assert_eq!(
            (f.end_us, f.bw_bps, f.up_bps, f.carried),
            (50_000, 1_500_000, 6_000_000, false)
        );
        // 10 ms of propagation + 1 ms for the MTU down + 0.25 ms up.
        assert_eq!(f.min_rtt_us, 11_250);
        assert_eq!(m.measure().unwrap().bw_bps, 1_500_000);
        // The outage: 0, the period's average; the minimum RTT the last one.
        let f = m.measure().unwrap();
        assert_eq!((f.bw_bps, f.carried, f.min_rtt_us), (0, false, 11_250));
        assert_eq!(m.measure().unwrap().bw_bps, 0);
        let f = m.measure().unwrap();
        assert_eq!((f.end_us, f.bw_bps, f.carried), (250_000, 3_000_000, false));
        assert_eq!(f.min_rtt_us, 10_000 + 500 + 250);
    }

    #[test]
    fn carry_reports_the_last_bandwidth_through_an_outage() {
        let mut m = meter(Feedback::Carry);
        m.measure();
        m.measure();
        let f = m.measure().unwrap();
        assert_eq!(
            (f.bw_bps, f.carried, f.min_rtt_us),
            (1_500_000, true, 11_250)
        );
        assert!(m.measure().unwrap().carried);
        assert!(!m.measure().unwrap().carried);
    }

    /// Replay reports each period at its start: the same figures as live,
    /// one period earlier (the authors' oracle).
    #[test]
    fn replay_reports_each_period_at_its_start() {
        let (mut live, mut replay) = (meter(Feedback::Live), meter(Feedback::Replay));
        for k in 0..6u64 {
            assert_eq!(replay.due_us(), k * 50_000);
            assert_eq!(live.due_us(), (k + 1) * 50_000);
            assert_eq!(replay.measure(), live.measure());
        }
    }

    #[test]
    fn the_uplink_counts_only_when_asked() {
        // Downlink 12 Mbit/s; uplink one opportunity per 10 ms (1.2 Mbit/s).
        let down = trace(1..=100);
        let up = trace((1..=10).map(|i| i * 10));
        let mut m = Meter::new(&down, &up, 0, false, 5_000, 50_000, false, Feedback::Live).unwrap();
        assert_eq!(m.measure().unwrap().min_rtt_us, 10_000 + 1_000);
        let mut m = Meter::new(&down, &up, 0, false, 5_000, 50_000, true, Feedback::Live).unwrap();
        assert_eq!(m.measure().unwrap().min_rtt_us, 10_000 + 1_000 + 10_000);
    }

    #[test]
    fn nothing_before_the_first_capacity_and_offsets_follow_the_emulator() {
        let down = trace([120, 200]);
        let up = trace([1, 200]);
        let mut m = Meter::new(&down, &up, 0, false, 0, 50_000, true, Feedback::Live).unwrap();
        assert_eq!(m.measure(), None);
        assert_eq!(m.measure(), None);
        // One MTU in 50 ms.
        assert_eq!(m.measure().unwrap().bw_bps, 30_000);
        // Starting 100 ms in: the opportunity at 120 ms is at 20 ms.
        let mut m = Meter::new(&down, &up, 100, false, 0, 50_000, true, Feedback::Live).unwrap();
        assert_eq!(m.measure().unwrap().bw_bps, 30_000);
    }
}
