// SPDX-License-Identifier: GPL-2.0-only
//! A scenario checked once into a typed value ([`CheckedScenario`]): each
//! flow's scheme looked up and its parameters resolved into typed
//! `FlowParams`, the directions, the one receiver-side rule, the
//! namespaces' sysctls, NetAssist's settings, the bottleneck queues (an AQM
//! scheme's applied), the link's two directions told apart ([`LinkSpec`]),
//! and every sweep value valid. Reads no trace.
use std::path::Path;

use anyhow::{anyhow, bail, Context, Result};
use emu::rate_spec::TraceSpec;
use emu::{LinkSpec, QueueSpec};

use super::lookup::schemes_of;
use super::needs::Needs;
use crate::scenario::{Direction, Link, Scenario};
use crate::scheme::params::FlowParams;
use crate::scheme::Scheme;
use crate::sweep;

/// A flow of a checked scenario: its scheme and its parameters, typed.
#[derive(Debug, Clone)]
pub struct FlowSetup {
    pub scheme: Scheme,
    pub params: FlowParams,
}

/// A scenario that has passed the check: only [`CheckedScenario::check`]
/// makes one, so holding one means it is valid.
#[derive(Debug, Clone)]
pub struct CheckedScenario {
    scenario: Scenario,
    /// One per flow, in the flows' order.
    flows: Vec<FlowSetup>,
    downlink_queue: QueueSpec,
    uplink_queue: QueueSpec,
    /// The link's two directions, told apart once (`link.uplink` absent:
    /// None, the run picks it from the downlink: `link.rs`).
    downlink: LinkSpec,
    uplink: Option<LinkSpec>,
    receiver_rule: Option<rxctl::Rule>,
    /// Where the receiver-side rule's RTT comes from.
    receiver_rtt: rxctl::RttSource,
    /// What the flows' schemes set in the run's namespaces, each once.
    sysctls: Vec<(&'static str, String)>,
    /// The run's NetAssist, `[netassist]` with the flows' knobs applied
    /// (None: no flow needs it).
    netassist: Option<netassist::Options>,
}

#[cfg(test)]
thread_local! {
    /// How many times this thread has checked a scenario (a test counts
    /// the checks of one `c2tcp run`).
    pub(crate) static CHECKS: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

impl CheckedScenario {
    /// Checks `sc` against everything serde cannot: its fields
    /// (`Scenario::check_fields`), each flow's scheme and its parameters
    /// (resolved into typed values), the bottleneck queues, the
    /// receiver-side rule, the namespaces' sysctls and the sweep table
    /// (every value makes a valid scenario). Reads no trace.
    pub fn check(sc: Scenario) -> Result<CheckedScenario> {
        #[cfg(test)]
        CHECKS.with(|c| c.set(c.get() + 1));
        check(sc)
    }

    /// Reads and checks a scenario file.
    pub fn load(path: &Path) -> Result<CheckedScenario> {
        let sc = Scenario::read(path)?;
        CheckedScenario::check(sc).with_context(|| format!("in scenario {}", path.display()))
    }

    /// Parses and checks a scenario.
    pub fn parse(text: &str) -> Result<CheckedScenario> {
        CheckedScenario::check(Scenario::from_toml(text)?)
    }

    pub fn scenario(&self) -> &Scenario {
        &self.scenario
    }

    pub fn into_scenario(self) -> Scenario {
        self.scenario
    }

    /// Each flow's scheme and typed parameters, in the flows' order.
    pub fn flows(&self) -> &[FlowSetup] {
        &self.flows
    }

    /// The bottleneck queues, an AQM scheme's override applied.
    pub fn downlink_queue(&self) -> &QueueSpec {
        &self.downlink_queue
    }

    pub fn uplink_queue(&self) -> &QueueSpec {
        &self.uplink_queue
    }

    /// The UE's receiver-side rule, if a flow's scheme has one.
    pub fn receiver_rule(&self) -> Option<rxctl::Rule> {
        self.receiver_rule
    }

    /// Where the receiver-side rule's RTT comes from (knob `rtt_source`).
    pub fn receiver_rtt(&self) -> rxctl::RttSource {
        self.receiver_rtt
    }

    /// The run's NetAssist settings, if a flow needs NetAssist.
    pub fn netassist(&self) -> Option<&netassist::Options> {
        self.netassist.as_ref()
    }

    /// The downlink, as the check told it apart.
    pub fn downlink(&self) -> &LinkSpec {
        &self.downlink
    }

    /// The uplink the scenario names, if it names one.
    pub fn uplink(&self) -> Option<&LinkSpec> {
        self.uplink.as_ref()
    }

    /// Points a trace-file link at another file (the same content found
    /// elsewhere on this machine: `trace_ref::verify`); the check reads
    /// no trace, so the scenario stays checked.
    pub(crate) fn relocate_file(&mut self, from: &str, to: &str) {
        let link = &mut self.scenario.link;
        if self.downlink.file() == Some(from) {
            link.downlink = to.to_string();
            self.downlink = LinkSpec::Trace(TraceSpec::File(to.to_string()));
        }
        if self.uplink.as_ref().and_then(LinkSpec::file) == Some(from) {
            link.uplink = Some(to.to_string());
            self.uplink = Some(LinkSpec::Trace(TraceSpec::File(to.to_string())));
        }
    }

    /// Sets a whole-trace run's length from its downlink trace's period.
    pub(crate) fn resolve_length(&mut self, period_ms: u64) -> Result<()> {
        self.scenario.link.resolve_length(period_ms)
    }

    /// What the run needs besides the emulator.
    pub fn needs(&self) -> Needs {
        let mut n = Needs::of_schemes(self.flows.iter().map(|f| &f.scheme));
        n.rxctl = self.receiver_rule.is_some();
        n.sysctls = self.sysctls.clone();
        n
    }
}

fn check(sc: Scenario) -> Result<CheckedScenario> {
    sc.check_fields()?;
    let schemes = schemes_of(&sc)?;
    let mut flows = Vec::with_capacity(schemes.len());
    for (i, (f, sch)) in sc.flows.iter().zip(schemes.iter().cloned()).enumerate() {
        let at = |field: &str| format!("flows[{i}].{field}");
        if f.size_bytes.is_some() && !sch.takes_size() {
            bail!(
                "{}: `{}` flows are always backlogged; give duration_s instead",
                at("size_bytes"),
                f.scheme
            );
        }
        let params = sch
            .resolve_params(&f.params)
            .map_err(|e| anyhow!("flows[{i}]: {e}"))?;
        if params.receiver_rule().is_some() && f.direction != Direction::Downlink {
            bail!(
                "{}: `{}` controls the UE's receivers, so its flows must be downlink",
                at("direction"),
                f.scheme
            );
        }
        flows.push(FlowSetup {
            scheme: sch,
            params,
        });
    }
    let receiver = one_receiver_rule(&sc, &flows)?;
    let receiver_rule = receiver.map(|(r, _)| r);
    let receiver_rtt = receiver.map_or(rxctl::Config::dfcsd().rtt_source, |(_, s)| s);
    let sysctls = one_value_per_sysctl(&flows)?;
    let netassist = one_netassist(&sc, &flows)?;
    let (downlink_queue, uplink_queue) = bottleneck_queues(&sc, &schemes)?;
    let downlink = LinkSpec::parse(&sc.link.downlink).context("link.downlink")?;
    let uplink = match &sc.link.uplink {
        Some(u) => Some(LinkSpec::parse(u).context("link.uplink")?),
        None => None,
    };
    for (key, values) in &sc.sweep {
        sweep::check_key(&sc, key, values, &schemes)?;
        // Every value must make a valid scenario.
        for (i, v) in values.iter().enumerate() {
            sweep::apply(&sc, key, v, &schemes)
                .and_then(check)
                .with_context(|| format!("sweep.{key}[{i}] = {v}"))?;
        }
    }
    Ok(CheckedScenario {
        scenario: sc,
        flows,
        downlink_queue,
        uplink_queue,
        downlink,
        uplink,
        receiver_rule,
        receiver_rtt,
        sysctls,
        netassist,
    })
}

/// The run's one NetAssist: the scenario's `[netassist]` (or its defaults)
/// with the NetAssisted flows' knobs applied; flows that give a knob must
/// agree, since one NetAssist serves the UE.
fn one_netassist(sc: &Scenario, flows: &[FlowSetup]) -> Result<Option<netassist::Options>> {
    if !flows.iter().any(|f| f.scheme.needs_netassist()) {
        return Ok(None);
    }
    let mut options = sc.netassist.clone().unwrap_or_default();
    let (mut feedback, mut headroom, mut maxdelay) = (None, None, None);
    for (i, f) in flows.iter().enumerate() {
        let p = f.params.netassist();
        for (knob, given, seen) in [
            (
                "feedback",
                p.feedback.map(|v| v.name().to_string()),
                &mut feedback,
            ),
            (
                "headroom",
                p.headroom.map(|v| format!("{v}")),
                &mut headroom,
            ),
            (
                "maxdelay",
                p.maxdelay.map(|v| format!("{v}")),
                &mut maxdelay,
            ),
        ] {
            let Some(v) = given else { continue };
            match seen {
                Some((j, first)) if *first != v => bail!(
                    "flows[{i}].{knob}: {v} where flows[{j}] gives {first}; one NetAssist serves the UE, \
                     so its flows must agree"
                ),
                Some(_) => {}
                None => *seen = Some((i, v)),
            }
        }
        if let Some(v) = p.feedback {
            options.feedback = v;
        }
        if let Some(v) = p.headroom {
            options.natcp_headroom = v;
        }
        if let Some(v) = p.maxdelay {
            options.natcp_maxdelay = v;
        }
    }
    options.validate()?;
    Ok(Some(options))
}

/// The receiver-side rule of the run (one controller per UE), if any
/// flow's scheme has one: every such flow must give the same rule and
/// parameters, since DFCSD's allowances compare the flows of one UE.
fn one_receiver_rule(
    sc: &Scenario,
    flows: &[FlowSetup],
) -> Result<Option<(rxctl::Rule, rxctl::RttSource)>> {
    let mut found: Option<(usize, (rxctl::Rule, rxctl::RttSource))> = None;
    for (i, (f, setup)) in sc.flows.iter().zip(flows).enumerate() {
        let Some(rule) = setup.params.receiver() else {
            continue;
        };
        match found {
            None => found = Some((i, rule)),
            Some((j, first)) if first != rule => bail!(
                "flows[{i}].scheme: `{}` asks for receiver-side control {rule:?}, flows[{j}] for {first:?}; \
                 one UE runs one controller, so its controlled flows must agree",
                f.scheme
            ),
            Some(_) => {}
        }
    }
    Ok(found.map(|(_, r)| r))
}

/// The sysctls the flows' schemes set in the run's namespaces: one value
/// each, and none against what another scheme needs (ECN).
fn one_value_per_sysctl(flows: &[FlowSetup]) -> Result<Vec<(&'static str, String)>> {
    let mut set: Vec<(&'static str, String, usize)> = Vec::new();
    for (i, setup) in flows.iter().enumerate() {
        for s in setup.params.sysctls() {
            match set.iter().find(|(n, _, _)| *n == s.name) {
                Some((_, v, j)) if *v != s.value => bail!(
                    "flows[{i}].{}: sets {} = {}, flows[{j}] sets it to {v}; the run's namespaces have one value",
                    s.knob,
                    s.name,
                    s.value
                ),
                Some(_) => {}
                None => set.push((s.name, s.value.clone(), i)),
            }
        }
    }
    let needs_ecn = flows
        .iter()
        .filter_map(|f| Some((f.scheme.host_ecn()?, &f.scheme.name)))
        .max_by_key(|(ecn, _)| *ecn);
    let set_ecn = set.iter().find(|(n, _, _)| *n == HOST_ECN_SYSCTL);
    if let (Some((ecn, who)), Some((_, v, i))) = (needs_ecn, set_ecn) {
        if *v != ecn.to_string() {
            bail!("flows[{i}]: sets {HOST_ECN_SYSCTL} = {v}, but `{who}` needs {ecn}");
        }
    }
    Ok(set.into_iter().map(|(n, v, _)| (n, v)).collect())
}

/// The sysctl behind [`Needs::host_ecn`].
pub const HOST_ECN_SYSCTL: &str = "net.ipv4.tcp_ecn";

/// The scenario's queues, parsed, with an AQM scheme's discipline put on
/// both (ABC's on the downlink only), keeping the scenario's size limit.
fn bottleneck_queues(sc: &Scenario, schemes: &[Scheme]) -> Result<(QueueSpec, QueueSpec)> {
    let l: &Link = &sc.link;
    let parse = |own: &Option<String>, field: &str, q: &str| {
        let field = if own.is_some() { field } else { "link.queue" };
        q.parse::<QueueSpec>()
            .with_context(|| format!("{field}: `{q}`"))
    };
    let down = parse(&l.downlink_queue, "link.downlink_queue", l.downlink_queue())?;
    let up = parse(&l.uplink_queue, "link.uplink_queue", l.uplink_queue())?;
    let mut chosen: Option<(&str, QueueSpec, QueueSpec)> = None;
    for (i, (f, s)) in sc.flows.iter().zip(schemes).enumerate() {
        let at = || format!("flows[{i}]");
        let (d, u) = match (
            s.queue_override(&down, true, &f.params).with_context(at)?,
            s.queue_override(&up, false, &f.params).with_context(at)?,
        ) {
            (None, None) => continue,
            // ABC marks one direction; the other keeps the scenario's queue.
            (d, u) => (
                d.unwrap_or_else(|| down.clone()),
                u.unwrap_or_else(|| up.clone()),
            ),
        };
        match &chosen {
            None => chosen = Some((&f.scheme, d, u)),
            Some((first, d0, _)) if *d0 != d => {
                bail!(
                    "flows: `{first}` and `{}` want different queues on the one bottleneck",
                    f.scheme
                )
            }
            Some(_) => {}
        }
    }
    Ok(match chosen {
        Some((_, d, u)) => (d, u),
        None => (down, up),
    })
}
