// SPDX-License-Identifier: GPL-2.0-only
//! What to measure: the window, the propagation delay, which flows count and
//! how they are grouped and labelled.
use serde::{Deserialize, Serialize};

use crate::log::{FlowInfo, LogHeader, Micros, Protocol};
use crate::Error;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct AnalysisConfig {
    /// Seconds skipped from the start of the log (t = 0 is the base timestamp),
    /// so that start-up does not count (the papers skip 5 s to 1 min).
    pub warmup_s: f64,
    /// Length of the measurement window after the warm-up; None: up to the
    /// log's last event. The window never extends past the last event, so an
    /// interrupted run is measured over what it logged.
    pub duration_s: Option<f64>,
    /// One-way propagation delay added to queueing delay to give one-way
    /// delay; None: the log header's `delay_ms`, else 0.
    pub propagation_delay_ms: Option<f64>,
    /// Width of the time-series bins.
    pub bin_ms: f64,
    /// Spacing of the samples of Sprout's end-to-end delay function.
    pub e2e_sample_ms: f64,
    /// Flows that count (any entry may match); empty: every flow but ICMP
    /// (pings through the link are probes, not load).
    pub select: Vec<FlowMatch>,
    /// Flows reported together under a label (e.g. one application's
    /// connections, or simply a name for a flow). A flow joins the first group
    /// it matches; selected flows in no group are reported one by one.
    pub groups: Vec<FlowGroup>,
}

impl Default for AnalysisConfig {
    fn default() -> Self {
        AnalysisConfig {
            warmup_s: 0.0,
            duration_s: None,
            propagation_delay_ms: None,
            bin_ms: 100.0,
            e2e_sample_ms: 0.1,
            select: Vec::new(),
            groups: Vec::new(),
        }
    }
}

/// Matches a flow when every field given matches.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct FlowMatch {
    pub id: Option<u32>,
    pub proto: Option<Protocol>,
    /// Either end's port.
    pub port: Option<u16>,
}

impl FlowMatch {
    pub fn id(id: u32) -> Self {
        FlowMatch {
            id: Some(id),
            ..Self::default()
        }
    }
    pub fn port(port: u16) -> Self {
        FlowMatch {
            port: Some(port),
            ..Self::default()
        }
    }

    /// `info` is None for flows the log never declared (plain mm-link logs).
    pub fn matches(&self, id: u32, info: Option<&FlowInfo>) -> bool {
        self.id.is_none_or(|want| want == id)
            && self
                .proto
                .is_none_or(|want| want == info.map_or(Protocol::Other, |i| i.proto))
            && self.port.is_none_or(|want| {
                info.is_some_and(|i| i.src_port() == Some(want) || i.dst_port() == Some(want))
            })
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FlowGroup {
    pub label: String,
    pub members: Vec<FlowMatch>,
}

/// The config resolved against a log: integer µs, the propagation delay known.
#[derive(Clone, Debug)]
pub(crate) struct Resolved {
    pub start: Micros,
    /// Configured end; the effective one is also capped at the last event.
    pub end: Option<Micros>,
    pub propagation: Micros,
    pub bin: Micros,
    pub e2e_step: Micros,
}

impl AnalysisConfig {
    pub fn validate(&self) -> Result<(), Error> {
        let positive = |v: f64| v.is_finite() && v > 0.0;
        if !(self.warmup_s.is_finite() && self.warmup_s >= 0.0) {
            return Err(Error::Config(format!(
                "warmup_s must be ≥ 0, not {}",
                self.warmup_s
            )));
        }
        if let Some(d) = self.duration_s.filter(|&d| !positive(d)) {
            return Err(Error::Config(format!("duration_s must be > 0, not {d}")));
        }
        if let Some(p) = self
            .propagation_delay_ms
            .filter(|&p| !(p.is_finite() && p >= 0.0))
        {
            return Err(Error::Config(format!(
                "propagation_delay_ms must be ≥ 0, not {p}"
            )));
        }
        if !(positive(self.bin_ms) && self.bin_ms >= 0.001) {
            return Err(Error::Config(format!(
                "bin_ms must be ≥ 0.001, not {}",
                self.bin_ms
            )));
        }
        if !(positive(self.e2e_sample_ms) && self.e2e_sample_ms >= 0.001) {
            return Err(Error::Config(format!(
                "e2e_sample_ms must be ≥ 0.001, not {}",
                self.e2e_sample_ms
            )));
        }
        if let Some(g) = self
            .groups
            .iter()
            .find(|g| g.label.is_empty() || g.members.is_empty())
        {
            return Err(Error::Config(format!(
                "flow group {:?} needs a label and at least one member",
                g.label
            )));
        }
        Ok(())
    }

    pub(crate) fn resolve(&self, header: &LogHeader) -> Resolved {
        let us = |ms: f64| (ms * 1000.0).round() as Micros;
        let start = us(self.warmup_s * 1000.0);
        Resolved {
            start,
            end: self.duration_s.map(|d| start + us(d * 1000.0)),
            propagation: us(self.propagation_delay_ms.or(header.delay_ms).unwrap_or(0.0)),
            bin: us(self.bin_ms),
            e2e_step: us(self.e2e_sample_ms),
        }
    }

    /// Whether a flow counts at all.
    pub fn selects(&self, id: u32, info: Option<&FlowInfo>) -> bool {
        if self.select.is_empty() {
            info.is_none_or(|i| i.proto != Protocol::Icmp)
        } else {
            self.select.iter().any(|m| m.matches(id, info))
        }
    }

    /// Index of the group a flow belongs to.
    pub fn group_of(&self, id: u32, info: Option<&FlowInfo>) -> Option<usize> {
        self.groups
            .iter()
            .position(|g| g.members.iter().any(|m| m.matches(id, info)))
    }
}
