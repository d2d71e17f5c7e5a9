// SPDX-License-Identifier: GPL-2.0-only
//! One flow's control loop as pure, clock-injected logic: the controller
//! feeds it what the socket showed at each tick ([`Obs`]) and applies the
//! clamp it returns. Everything here is testable on synthetic sequences.
//!
//! Per tick: the arrival history grows, an RTT sample is taken, the base RTT
//! (minimum) is updated, and a clamp the kernel overwrote is re-asserted.
//! Once per control period (one RTT, bounded by the config) the rule moves
//! rwnd (`decision.rs`), which is then bounded to [2 MSS, the socket's
//! normal maximum].
//!
//! The socket's normal maximum is the window clamp Linux itself chose: the
//! value found at registration, then every value the kernel wrote over ours
//! (receive-buffer autotuning raises `window_clamp` as the flow's rate
//! grows, and a change of the skb len/truesize ratio resets it). So rwnd
//! never exceeds what the socket would have advertised without us.
use crate::estimator::Arrivals;
use crate::params::{Config, RttSource, Rule};

mod decision;
#[cfg(test)]
mod tests;

pub use decision::Decision;

/// What the socket showed at one tick.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Obs {
    pub t_us: u64,
    /// `tcpi_bytes_received`: in-order bytes received so far.
    pub bytes_received: u64,
    /// `tcpi_rcv_wnd`: the window advertised in the latest ACK.
    pub rcv_wnd: u32,
    /// `tcpi_rcv_mss`: the peer's segment size as seen here.
    pub mss: u32,
    /// `tcpi_rcv_rtt` (µs, 0 = none yet): the kernel's timestamp estimate.
    pub kernel_rcv_rtt_us: u32,
    /// `tcpi_min_rtt` (µs, 0 = none): on a receiver, the handshake's RTT.
    pub kernel_min_rtt_us: u32,
    /// TCP_WINDOW_CLAMP as read back from the socket.
    pub clamp: u32,
    /// The mean timestamp-echo RTT of the segments that arrived since the
    /// last tick (µs, 0 = none; [`crate::echo`]).
    pub echo_rtt_us: u32,
}

/// What the controller must do after a tick.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct TickOut {
    /// Write this clamp to the socket (it differs from what is there).
    pub set_clamp: Option<u32>,
    pub decision: Option<Decision>,
}

/// Arrival history kept per flow (see [`Arrivals::with_capacity`]).
pub const HISTORY: usize = 8192;

#[derive(Debug)]
pub struct FlowLogic {
    rule: Rule,
    rtt_source: RttSource,
    min_period_us: u64,
    max_period_us: u64,
    arrivals: Arrivals,
    base_rtt_us: Option<u64>,
    /// DRWA's RTT_est (EWMA of the per-period RTTs).
    srtt_us: Option<f64>,
    period_start_us: u64,
    period_start_bytes: u64,
    period_len_us: u64,
    rtt_sum: u64,
    rtt_n: u64,
    rwnd: Option<u32>,
    /// The socket's normal maximum (see the module docs).
    kernel_max: u32,
    /// The clamp we wrote last.
    written: Option<u32>,
    kernel_overrides: u32,
    started: bool,
}

impl FlowLogic {
    pub fn new(cfg: &Config) -> FlowLogic {
        Self::with_history(cfg, HISTORY)
    }

    pub fn with_history(cfg: &Config, history: usize) -> FlowLogic {
        let min_period_us = cfg.min_period.as_micros() as u64;
        FlowLogic {
            rule: cfg.rule,
            rtt_source: cfg.rtt_source,
            min_period_us,
            max_period_us: (cfg.max_period.as_micros() as u64).max(min_period_us),
            arrivals: Arrivals::with_capacity(history),
            base_rtt_us: None,
            srtt_us: None,
            period_start_us: 0,
            period_start_bytes: 0,
            period_len_us: min_period_us,
            rtt_sum: 0,
            rtt_n: 0,
            rwnd: None,
            kernel_max: 0,
            written: None,
            kernel_overrides: 0,
            started: false,
        }
    }

    pub fn rwnd(&self) -> Option<u32> {
        self.rwnd
    }
    pub fn base_rtt_us(&self) -> Option<u64> {
        self.base_rtt_us
    }
    pub fn kernel_max(&self) -> u32 {
        self.kernel_max
    }
    pub fn kernel_overrides(&self) -> u32 {
        self.kernel_overrides
    }

    /// 2 MSS, the floor of every window we advertise.
    fn floor(mss: u32) -> u32 {
        2 * mss.max(536)
    }

    fn bound(&self, want: f64, mss: u32) -> u32 {
        let ceil = self.kernel_max.max(Self::floor(mss));
        (want.max(0.0).min(u32::MAX as f64) as u32).clamp(Self::floor(mss), ceil)
    }

    fn note_rtt(&mut self, rtt_us: u64) {
        self.base_rtt_us = Some(self.base_rtt_us.map_or(rtt_us, |b| b.min(rtt_us)));
    }

    /// Feeds one tick. `gamma` is this flow's DFCSD allowance among the
    /// UE's active flows (ignored by DRWA).
    pub fn tick(&mut self, o: &Obs, gamma: f64) -> TickOut {
        if !self.started {
            self.started = true;
            self.period_start_us = o.t_us;
            self.period_start_bytes = o.bytes_received;
        }
        // The kernel's own clamp: found at registration, or written over ours.
        if self.written != Some(o.clamp) {
            if self.written.is_some() {
                self.kernel_overrides += 1;
            }
            self.kernel_max = o.clamp;
            self.written = None;
        }
        self.arrivals.push(o.t_us, o.bytes_received);
        // Base RTT: the least of every RTT seen, the kernel's included. The
        // handshake's RTT (min_rtt) is known before any queue can build, so
        // a late registration does not miss the empty queue; being measured
        // on small segments it omits one data packet's serialisation at the
        // bottleneck, so the backlog then counts the packet in service too.
        // The echo source keeps its base on its own measure (and the
        // handshake's): the kernel's estimate is cut to whole milliseconds
        // of timestamp clock, up to 1 ms below the path's RTT.
        let kernel_rcv_rtt = match self.rtt_source {
            RttSource::TimestampEcho => 0,
            _ => o.kernel_rcv_rtt_us,
        };
        for k in [kernel_rcv_rtt, o.kernel_min_rtt_us] {
            if k > 0 {
                self.note_rtt(k as u64);
            }
        }
        let sample = match self.rtt_source {
            // A window that arrived in less than the connection's minimum
            // RTT came as one burst (a small window at a high rate: 2 MSS
            // take 0.4 ms at 54 Mbit/s): its span is not a round trip, and
            // taken as one it drags the base RTT below the path's and pins
            // DRWA at the floor. The round trip is at least that minimum.
            RttSource::WindowSpan => self
                .arrivals
                .span(o.rcv_wnd as u64)
                .map(|s| s.max(o.kernel_min_rtt_us as u64)),
            RttSource::TimestampEcho => (o.echo_rtt_us > 0).then_some(o.echo_rtt_us as u64),
            RttSource::KernelTimestamps => {
                (o.kernel_rcv_rtt_us > 0).then_some(o.kernel_rcv_rtt_us as u64)
            }
        };
        if let Some(rtt) = sample.filter(|&r| r > 0) {
            self.note_rtt(rtt);
            self.rtt_sum += rtt;
            self.rtt_n += 1;
        }

        let mut out = TickOut::default();
        let elapsed = o.t_us.saturating_sub(self.period_start_us);
        if elapsed >= self.period_len_us && self.rtt_n > 0 {
            out.decision = Some(self.decide(o, gamma, elapsed));
        }
        // Write the window if it is not what the socket holds (a new
        // decision, or the kernel wrote over it since the last tick).
        if let Some(w) = self
            .rwnd
            .map(|w| w.min(self.kernel_max.max(Self::floor(o.mss))))
        {
            self.written = Some(w);
            if w != o.clamp {
                out.set_clamp = Some(w);
            }
        }
        out
    }
}
