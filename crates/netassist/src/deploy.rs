// SPDX-License-Identifier: GPL-2.0-only
//! NetAssist for one run: its own small namespace, joined to the server's
//! and to the UE's namespace by veths of their own (so feedback never crosses
//! the emulated link), the NetAssist service in it, the agent in the server's
//! namespace and the flow reporter in the UE's.
//!
//! ```text
//!  server netns                 netassist netns                 UE netns
//!  agent 169.254.77.1:4790 ─veth─ 169.254.77.2  169.254.78.2:4791 ─veth─ 169.254.78.1 reporter
//!        ▲ feedback (after `delay_ms`)  NetAssist service  ◄── flow reports (beta)
//! ```
//!
//! The addresses are link-local and each namespace is the run's own, so
//! parallel runs do not collide, and nothing but these /30s is routed over
//! the veths: the emulator stays the only path between server and UE. All
//! three namespaces are anonymous and vanish with the process.
use std::net::{Ipv4Addr, SocketAddrV4, UdpSocket};
use std::path::PathBuf;
use std::time::Duration;

use anyhow::{bail, Context, Result};
use emu::trace::Trace;
use netns::Netns;
use serde::{Deserialize, Serialize};

use crate::agent::{Agent, AgentConfig, AgentStats};
use crate::meter::{Feedback, Meter};
use crate::service::{Service, ServiceConfig, ServiceStats};
use crate::ue::Reporter;
use crate::wire::Key;

const SERVER_ADDR: Ipv4Addr = Ipv4Addr::new(169, 254, 77, 1);
const NA_SERVER_SIDE: Ipv4Addr = Ipv4Addr::new(169, 254, 77, 2);
const UE_ADDR: Ipv4Addr = Ipv4Addr::new(169, 254, 78, 1);
const NA_UE_SIDE: Ipv4Addr = Ipv4Addr::new(169, 254, 78, 2);
pub const AGENT_PORT: u16 = 4790;
pub const NETASSIST_PORT: u16 = 4791;

/// A scenario's `[netassist]` section.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Options {
    /// Feedback period (paper: 50 ms).
    #[serde(default = "default_period_ms")]
    pub period_ms: f64,
    /// One-way delay from NetAssist to the server (paper: 2 ms RTT).
    #[serde(default = "default_delay_ms")]
    pub delay_ms: f64,
    /// The programs fall back to Cubic after this many periods without
    /// fresh feedback.
    #[serde(default = "default_timeout_periods")]
    pub timeout_periods: f64,
    /// Eq. 1's alpha (paper: 2).
    #[serde(default = "default_alpha")]
    pub alpha: f64,
    /// Add one MTU's time at the uplink's bandwidth to the minimum RTT (the
    /// paper's third part); default off: the issue's definition, see meter.rs.
    #[serde(default)]
    pub uplink_in_min_rtt: bool,
    /// Which figures are reported and when: `live` (the period just ended,
    /// an empty one as 0), `carry` (live, an empty period as the last
    /// non-zero bandwidth), `replay` (the authors' oracle: the coming
    /// period's capacity at its start). A flow's `feedback` knob overrides it.
    #[serde(default)]
    pub feedback: Feedback,
    /// NATCP's window is eq. 1 with BBR's headroom, as the authors' BBR-based
    /// NATCP had (bpf/netassist_logic.h); false: eq. 1 alone. A NATCP flow's
    /// `headroom` knob overrides it.
    #[serde(default = "default_true")]
    pub natcp_headroom: bool,
    /// NATCP's assumed delay cap (bpf/netassist_logic.h,
    /// `na_natcp_delay_capped`): the headroom only while the connection's
    /// RTT is at or below NetAssist's minimum RTT, the target delay the
    /// authors' server gave their BBR with `tcp_bbr_enable_maxdelay = 1`;
    /// default off. A NATCP flow's `maxdelay` knob overrides it.
    #[serde(default)]
    pub natcp_maxdelay: bool,
    /// Datagrams taken longer ago than this are stale [default: the timeout].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_age_ms: Option<f64>,
    /// HMAC-SHA-256 key shared by NetAssist, the agent and the UE reporter
    /// (at least 16 bytes); without one nothing is authenticated.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub key_file: Option<PathBuf>,
    /// Scripted NetAssist outages: `[[from_s, to_s], ...]` in seconds of the
    /// run (the flows' clock) during which no feedback is sent.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub silent: Vec<[f64; 2]>,
}

fn default_period_ms() -> f64 {
    50.0
}
fn default_delay_ms() -> f64 {
    1.0
}
fn default_timeout_periods() -> f64 {
    4.0
}
fn default_alpha() -> f64 {
    2.0
}
fn default_true() -> bool {
    true
}

impl Default for Options {
    fn default() -> Options {
        Options {
            period_ms: default_period_ms(),
            delay_ms: default_delay_ms(),
            timeout_periods: default_timeout_periods(),
            alpha: default_alpha(),
            uplink_in_min_rtt: false,
            feedback: Feedback::default(),
            natcp_headroom: true,
            natcp_maxdelay: false,
            max_age_ms: None,
            key_file: None,
            silent: Vec::new(),
        }
    }
}

impl Options {
    /// Checks ranges; errors name the field.
    pub fn validate(&self) -> Result<()> {
        let range = |f: &str, v: f64, lo: f64, hi: f64| -> Result<()> {
            if !v.is_finite() || v < lo || v > hi {
                bail!("netassist.{f}: {v} is out of range [{lo}, {hi}]");
            }
            Ok(())
        };
        range("period_ms", self.period_ms, 1.0, 10_000.0)?;
        range("delay_ms", self.delay_ms, 0.0, 10_000.0)?;
        range("timeout_periods", self.timeout_periods, 1.0, 1_000.0)?;
        range("alpha", self.alpha, 0.1, 10.0)?;
        if let Some(a) = self.max_age_ms {
            range("max_age_ms", a, 1.0, 3_600_000.0)?;
        }
        if self.timeout_periods * self.period_ms * 1000.0 > u32::MAX as f64 {
            bail!("netassist.timeout_periods: the timeout must stay below 4294 s");
        }
        for (i, [a, b]) in self.silent.iter().enumerate() {
            if !(a.is_finite() && b.is_finite() && *a >= 0.0 && b > a) {
                bail!("netassist.silent[{i}]: [{a}, {b}] must be [from_s, to_s] with 0 <= from_s < to_s");
            }
        }
        Ok(())
    }

    fn timeout_us(&self) -> u64 {
        (self.timeout_periods * self.period_ms * 1000.0).round() as u64
    }

    fn key(&self) -> Result<Option<Key>> {
        self.key_file.as_deref().map(Key::from_file).transpose()
    }
}

/// What NetAssist needs to know of the emulated link.
pub struct LinkModel<'a> {
    pub downlink: &'a Trace,
    pub uplink: &'a Trace,
    pub trace_offset_ms: u64,
    pub once: bool,
    /// One-way propagation delay, each way, µs.
    pub delay_us: u64,
    /// CLOCK_MONOTONIC µs of trace time 0 (`RunningEmulator::start_us`).
    pub start_us: u64,
}

#[derive(Debug, Clone, Serialize)]
pub struct Stats {
    pub options: Options,
    pub netassist: ServiceStats,
    pub agent: AgentStats,
}

/// A running NetAssist deployment.
pub struct Deployment {
    options: Options,
    service: Option<Service>,
    agent: Option<Agent>,
    reporter: Option<Reporter>,
    _ns: Netns,
}

impl Deployment {
    pub fn start(
        server: &Netns,
        ue: &Netns,
        ue_addr: Ipv4Addr,
        link: &LinkModel<'_>,
        options: &Options,
    ) -> Result<Deployment> {
        options.validate()?;
        let key = options.key()?;
        let na = Netns::new("netassist")?;
        netns::veth_pair(server, "na0", &na, "srv0").context("the NetAssist-server veth")?;
        server.ip(&["addr", "add", &format!("{SERVER_ADDR}/30"), "dev", "na0"])?;
        na.ip(&[
            "addr",
            "add",
            &format!("{NA_SERVER_SIDE}/30"),
            "dev",
            "srv0",
        ])?;
        netns::veth_pair(ue, "na0", &na, "ue0").context("the NetAssist-UE veth")?;
        ue.ip(&["addr", "add", &format!("{UE_ADDR}/30"), "dev", "na0"])?;
        na.ip(&["addr", "add", &format!("{NA_UE_SIDE}/30"), "dev", "ue0"])?;

        let agent_sock = server
            .run(|| UdpSocket::bind(SocketAddrV4::new(SERVER_ADDR, AGENT_PORT)))?
            .context("binding the agent's socket")?;
        let na_sock = na
            .run(|| UdpSocket::bind(SocketAddrV4::new(Ipv4Addr::UNSPECIFIED, NETASSIST_PORT)))?
            .context("binding NetAssist's socket")?;
        let period_us = (options.period_ms * 1000.0).round() as u64;
        let timeout_us = options.timeout_us();
        let max_age_us = options
            .max_age_ms
            .map_or(timeout_us, |ms| (ms * 1000.0).round() as u64);
        let agent = Agent::start(
            agent_sock,
            vec![ue_addr],
            AgentConfig {
                key: key.clone(),
                max_age_us,
                timeout_us: timeout_us as u32,
                alpha_pct: (options.alpha * 100.0).round() as u32,
                flags: if options.natcp_headroom {
                    0
                } else {
                    bpfload::netassist::FLAG_EQ1_WINDOW
                } | if options.natcp_maxdelay {
                    bpfload::netassist::FLAG_MAX_DELAY
                } else {
                    0
                },
            },
        )?;
        let meter = Meter::new(
            link.downlink,
            link.uplink,
            link.trace_offset_ms,
            link.once,
            link.delay_us,
            period_us,
            options.uplink_in_min_rtt,
            options.feedback,
        )?;
        let service = Service::start(
            na_sock,
            meter,
            ServiceConfig {
                ue: ue_addr,
                agent: SocketAddrV4::new(SERVER_ADDR, AGENT_PORT),
                period_us,
                delay_us: (options.delay_ms * 1000.0).round() as u64,
                key: key.clone(),
                start_us: link.start_us,
                silent: options
                    .silent
                    .iter()
                    .map(|[a, b]| ((a * 1e6) as u64, (b * 1e6) as u64))
                    .collect(),
                report_max_age_us: max_age_us.max(4 * period_us),
            },
        )?;
        let reporter = Reporter::start(
            ue,
            ue_addr,
            UE_ADDR,
            SocketAddrV4::new(NA_UE_SIDE, NETASSIST_PORT),
            Duration::from_micros(period_us),
            key,
        )?;
        Ok(Deployment {
            options: options.clone(),
            service: Some(service),
            agent: Some(agent),
            reporter: Some(reporter),
            _ns: na,
        })
    }

    /// Withholds feedback until `resume` (the link is still measured).
    pub fn pause(&self) {
        if let Some(s) = &self.service {
            s.pause();
        }
    }

    pub fn resume(&self) {
        if let Some(s) = &self.service {
            s.resume();
        }
    }

    /// The run's time 0 (CLOCK_MONOTONIC µs), which `silent` counts from.
    pub fn set_origin(&self, mono_us: u64) {
        if let Some(s) = &self.service {
            s.set_origin(mono_us);
        }
    }

    pub fn stats(&self) -> Option<Stats> {
        Some(Stats {
            options: self.options.clone(),
            netassist: self.service.as_ref()?.stats(),
            agent: self.agent.as_ref()?.stats(),
        })
    }

    /// Stops the reporter, NetAssist and the agent (which removes its map
    /// entries); the namespace and its veths go with `self`.
    pub fn stop(mut self) -> Result<Stats> {
        if let Some(r) = self.reporter.take() {
            r.stop()?;
        }
        let netassist = self.service.take().context("stopped twice")?.stop()?;
        let agent = self.agent.take().context("stopped twice")?.stop()?;
        Ok(Stats {
            options: self.options.clone(),
            netassist,
            agent,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<Options> {
        let o: Options = serde_json::from_str(text)?;
        o.validate()?;
        Ok(o)
    }

    #[test]
    fn options_default_to_the_paper_and_errors_name_the_field() {
        let o = parse("{}").unwrap();
        assert_eq!(o, Options::default());
        assert_eq!((o.period_ms, o.delay_ms, o.alpha), (50.0, 1.0, 2.0));
        assert_eq!(o.timeout_us(), 200_000);
        let e = format!("{:#}", parse(r#"{"period_ms": 0}"#).unwrap_err());
        assert!(e.contains("netassist.period_ms"), "{e}");
        let e = format!("{:#}", parse(r#"{"silent": [[5, 3]]}"#).unwrap_err());
        assert!(e.contains("netassist.silent[0]"), "{e}");
        let e = format!("{:#}", parse(r#"{"perod_ms": 50}"#).unwrap_err());
        assert!(e.contains("perod_ms"), "{e}");
    }
}
