// SPDX-License-Identifier: GPL-2.0-only
//! Every congestion-control scheme the runner knows, behind one registry:
//! a name, how its sender and receiver run, and which knobs it takes.
//! Schemes come from two places: the ones whose logic is Rust are built in
//! (`builtin.rs`, their knobs in `knobs.rs`); every other one is a file
//! (`schemes/*.toml`, `$C2TCP_SCHEMES`, `--scheme-file`; `file.rs`), of kind
//! `kernel`, `bpf` (a user's struct_ops object) or `command`.
//!
//! Kernel schemes (cubic, bbr, reno: files) are the kernel's own; `c2tcp` and
//! the other BPF ones are loaded on demand (`bpfload::usage::BpfUse`); AQM schemes are
//! Cubic over that discipline at the emulated bottleneck; `iperf3:<cc>` runs
//! the real iperf3 for comparison with our own traffic generator; `sprout`
//! and `sprout-ewma` are our UDP transport (`c2tcp sprout-send/-recv`),
//! `verus` another (`c2tcp verus-send/-recv`); `webrtc-gcc` is pion's
//! Google Congestion Control driving a synthetic video source
//! (`tools/webrtc-gcc`, docs/webrtc.md);
//! `dfcsd` / `drwa` / `rtac` (or `<rule>+<cc>`) put the UE's receivers
//! under receiver-side window control (`rxctl`) with any sender.
use std::collections::BTreeMap;

use anyhow::{bail, Context, Result};
use emu::queue::QueueKind;
use emu::QueueSpec;

mod builtin;
pub mod file;
pub(crate) mod knobs;
pub mod params;
use knobs::{DFCSD_KNOBS, DRWA_KNOBS, RTAC_KNOBS};

use crate::aqm_schemes::{aqm_knob, aqm_number_knob};

pub use file::CommandSpec;

/// A parameter a scheme accepts in a scenario's flow: a number in
/// [min, max], or, when `word` is set, a string that `word` accepts.
#[derive(Debug, Clone, Copy)]
pub struct Knob {
    pub name: &'static str,
    pub about: &'static str,
    pub min: f64,
    pub max: f64,
    pub word: Option<fn(&str) -> Result<(), String>>,
    /// The value a flow that does not give it gets (a scheme file's
    /// `default`); None: the scheme's own default applies.
    pub default: Option<f64>,
    /// The per-namespace sysctl this knob sets in the run's namespaces (a
    /// `kernel` scheme file's knob), instead of being a flow parameter.
    pub sysctl: Option<&'static str>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Kind {
    /// A congestion control built into the kernel.
    Kernel { cc: &'static str },
    /// One of our BPF congestion controls; loaded if needed.
    Bpf { cc: &'static str },
    /// A BPF congestion control fed by NetAssist (`natcp`, `nacubic`, `tg`): the
    /// runner also starts NetAssist, its agent and the UE's flow reporter.
    NetAssisted { cc: &'static str },
    /// Cubic with this AQM on both bottleneck queues (CoDel, PIE,
    /// fq_codel), marking ECT packets instead of dropping them if `ecn`
    /// (the hosts then ask for ECN: net.ipv4.tcp_ecn=1).
    CubicOverAqm { aqm: QueueKind, ecn: bool },
    /// ABC: our BPF sender `abc` over ABC's marking queue on the downlink;
    /// its receivers run `abc` too, for its per-packet echo of CE.
    Abc,
    /// TCP Prague (our BPF `prague`), its packets ECT(1) on the wire (the
    /// runner's tc program, `ect1`), its receivers running `prague` for the
    /// per-packet CE echo; over this queue on both directions (marking ECT
    /// packets if `ecn`, for the kinds that take it), or over the
    /// scenario's when None.
    Prague { aqm: Option<QueueKind>, ecn: bool },
    /// The real iperf3 with this congestion control.
    Iperf3 { cc: String },
    /// Sprout over UDP; `variant` is `sprout-recv --variant` (sprout | ewma).
    Sprout { variant: &'static str },
    /// Verus over UDP (`c2tcp verus-send/-recv`).
    Verus,
    /// WebRTC's Google Congestion Control (pion's) pacing a synthetic video
    /// source over RTP/UDP (`webrtc-gcc send/recv`).
    WebrtcGcc,
    /// Receiver-side window control at the UE (`dfcsd`, `drwa` or `rtac`, as
    /// `rxctl` names the rule) with this sender congestion control.
    ReceiverSide { rule: &'static str, cc: String },
    /// A user's own struct_ops object (a `bpf` scheme file) registering
    /// `cc`; loaded for the run, unloaded after (`bpfload::object`).
    BpfObject {
        cc: &'static str,
        object: std::path::PathBuf,
    },
    /// A sender and a receiver command line (a `command` scheme file).
    Command(CommandSpec),
}

#[derive(Debug, Clone)]
pub struct Scheme {
    pub name: String,
    pub summary: &'static str,
    pub kind: Kind,
    pub knobs: Vec<Knob>,
}

/// Every scheme name, for help texts and errors (`iperf3:<cc>` stands for
/// iperf3 with any congestion control, `dfcsd+<cc>` for DFCSD receivers with
/// any sender).
pub fn names() -> Vec<String> {
    let mut v: Vec<String> = file::names().unwrap_or_default();
    v.extend(builtin::registry().into_iter().map(|e| e.name.to_string()));
    v.extend(rxctl::RULES.iter().map(|r| r.to_string()));
    v.extend(rxctl::RULES.iter().map(|r| format!("{r}+<cc>")));
    v.push("iperf3:<cc>".into());
    v
}

/// Every scheme as `--list-schemes` shows it: each name of [`names`], a
/// parametric one (`iperf3:<cc>`, `dfcsd+<cc>`) through one instance.
pub fn listing() -> Vec<(String, Scheme)> {
    names()
        .into_iter()
        .filter_map(|name| {
            let s = lookup(&name.replace("<cc>", "bbr")).ok()?;
            Some((name, s))
        })
        .collect()
}

/// Whether `name` is one of the parametric built-in names (`iperf3:<cc>`,
/// `<rule>+<cc>`, `dfcsd`, `drwa`), which no file may declare.
pub(crate) fn is_parametric(name: &str) -> bool {
    name.starts_with("iperf3:") || rxctl::scheme(name).is_some() || name.contains('+')
}

/// A name the kernel could know as a congestion control (TCP_CA_NAME_MAX).
pub(crate) fn cc_name_ok(cc: &str) -> bool {
    !cc.is_empty()
        && cc.len() <= 15
        && cc
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

pub fn lookup(name: &str) -> Result<Scheme> {
    if let Some(cc) = name.strip_prefix("iperf3:") {
        if !cc_name_ok(cc) {
            bail!("`{name}`: iperf3:<cc> needs a congestion-control name, e.g. iperf3:cubic");
        }
        return Ok(Scheme {
            name: name.to_string(),
            summary: "the real iperf3 with this congestion control",
            kind: Kind::Iperf3 { cc: cc.to_string() },
            knobs: vec![],
        });
    }
    if let Some((rule, cc)) = rxctl::scheme(name) {
        return receiver_side(name, rule.name(), cc);
    }
    if rxctl::RULES
        .iter()
        .any(|r| name.strip_prefix(r).is_some_and(|t| t == "+"))
    {
        bail!("`{name}`: give the sender's congestion control after the +, e.g. dfcsd+bbr");
    }
    if let Some(e) = builtin::find(name) {
        return Ok(e);
    }
    match file::find(name)? {
        Some(s) => Ok(s),
        None => bail!(
            "unknown scheme `{name}`; known schemes: {}",
            names().join(", ")
        ),
    }
}

/// `dfcsd`, `drwa`, `<rule>+<cc>`: the rule's knobs and, for a sender of the
/// registry (e.g. `dfcsd+c2tcp`), that sender's knobs too. A sender the
/// registry does not know is passed to the kernel as it is, as iperf3:<cc>.
fn receiver_side(name: &str, rule: &'static str, cc: &str) -> Result<Scheme> {
    let mut knobs = match rule {
        "dfcsd" => DFCSD_KNOBS.to_vec(),
        "rtac" => RTAC_KNOBS.to_vec(),
        _ => DRWA_KNOBS.to_vec(),
    };
    let sender = match builtin::find(cc) {
        Some(s) => Some(s),
        None => file::find(cc)?,
    };
    // The name the kernel knows the sender by: a scheme's `cc`, else `cc`
    // as given.
    let mut kernel_cc = cc;
    match sender {
        Some(Scheme {
            kind: Kind::Kernel { cc: sender_cc } | Kind::Bpf { cc: sender_cc } | Kind::BpfObject { cc: sender_cc, .. },
            knobs: sender,
            ..
        }) => {
            knobs.extend_from_slice(&sender);
            kernel_cc = sender_cc;
        }
        Some(_) => bail!("`{name}`: `{cc}` is not a sender congestion control (an AQM scheme cannot follow the +)"),
        None if cc_name_ok(cc) && rxctl::scheme(cc).is_none() => {}
        None => bail!("`{name}`: `{cc}` is not a congestion-control name"),
    }
    let summary = match (rule, name.contains('+')) {
        ("dfcsd", false) => {
            "DFCSD receivers (rxctl) with Cubic senders: short flows may queue more than long ones"
        }
        ("dfcsd", true) => "DFCSD receivers (rxctl) with this sender congestion control",
        ("rtac", false) => {
            "RTAC receivers (rxctl) with Cubic senders: RED on the estimated backlog, AIMD on rwnd (assembled from its description)"
        }
        ("rtac", true) => "RTAC receivers (rxctl) with this sender congestion control",
        (_, false) => {
            "DRWA receivers (rxctl) with Cubic senders: rwnd = lambda x RTT_min/RTT x cwnd_est"
        }
        (_, true) => "DRWA receivers (rxctl) with this sender congestion control",
    };
    Ok(Scheme {
        name: name.to_string(),
        summary,
        kind: Kind::ReceiverSide {
            rule,
            cc: kernel_cc.to_string(),
        },
        knobs,
    })
}

impl Knob {
    /// Checks one value of this knob: a word `word` accepts, or a number
    /// in range; the error names the knob.
    pub fn check(&self, value: &toml::Value) -> Result<()> {
        let key = self.name;
        if let Some(word) = self.word {
            return match value.as_str() {
                Some(w) => word(w).map_err(|e| anyhow::anyhow!("{key}: {e}")),
                None => bail!("{key}: must be a string ({})", self.about),
            };
        }
        match params::as_number(value) {
            Some(v) if self.sysctl.is_some() && v.fract() != 0.0 => {
                bail!(
                    "{key}: {v} is not a whole number (it sets {})",
                    self.sysctl.unwrap_or_default()
                )
            }
            Some(v) if v.is_finite() && v >= self.min && v <= self.max => Ok(()),
            Some(v) => bail!(
                "{key}: {v} is out of range [{}, {}] ({})",
                self.min,
                self.max,
                self.about
            ),
            None => bail!("{key}: must be a number ({})", self.about),
        }
    }
}

impl Scheme {
    pub fn takes(&self, knob: &str) -> bool {
        self.knobs.iter().any(|k| k.name == knob)
    }

    /// Validates a flow's parameters against this scheme's knobs.
    pub fn check_params(&self, params: &BTreeMap<String, toml::Value>) -> Result<()> {
        for (key, value) in params {
            let Some(knob) = self.knobs.iter().find(|k| k.name == key.as_str()) else {
                let takes: Vec<&str> = self.knobs.iter().map(|k| k.name).collect();
                bail!(
                    "{key}: scheme `{}` has no parameter `{key}`; it takes {}",
                    self.name,
                    if takes.is_empty() {
                        "none".to_string()
                    } else {
                        takes.join(", ")
                    }
                );
            };
            knob.check(value)?;
        }
        Ok(())
    }

    /// The kernel congestion control the sender's socket selects (None: not TCP).
    pub fn sender_cc(&self) -> Option<&str> {
        match &self.kind {
            Kind::Kernel { cc } | Kind::Bpf { cc } | Kind::NetAssisted { cc } => Some(cc),
            Kind::CubicOverAqm { .. } => Some("cubic"),
            Kind::Abc => Some("abc"),
            Kind::Prague { .. } => Some("prague"),
            Kind::Iperf3 { cc } => Some(cc),
            Kind::Sprout { .. } | Kind::Verus | Kind::WebrtcGcc | Kind::Command(_) => None,
            Kind::ReceiverSide { cc, .. } => Some(cc),
            Kind::BpfObject { cc, .. } => Some(cc),
        }
    }

    /// Whether a flow of this scheme can carry a fixed size (`size_bytes`):
    /// Sprout's and Verus's senders are always backlogged, a video source
    /// sends for as long as the call lasts.
    pub fn takes_size(&self) -> bool {
        !matches!(
            self.kind,
            Kind::Sprout { .. } | Kind::Verus | Kind::WebrtcGcc | Kind::Command(_)
        )
    }

    /// A user's struct_ops object this scheme needs loaded (a `bpf` scheme
    /// file, or a receiver-side scheme whose sender is one).
    pub fn needs_object(&self) -> Option<bpfload::object::UserObject> {
        let found;
        let kind = match &self.kind {
            Kind::ReceiverSide { cc, .. } => {
                found = file::find_by_cc(cc)?;
                &found
            }
            k => k,
        };
        match kind {
            Kind::BpfObject { cc, object } => Some(bpfload::object::UserObject {
                cc: cc.to_string(),
                path: object.clone(),
            }),
            _ => None,
        }
    }

    /// The BPF congestion controls that must be loaded for this scheme.
    pub fn needs_bpf(&self) -> Option<&'static str> {
        match &self.kind {
            Kind::Bpf { cc } | Kind::NetAssisted { cc } => Some(cc),
            Kind::Abc => Some("abc"),
            Kind::Prague { .. } => Some("prague"),
            Kind::ReceiverSide { cc, .. } => match builtin::find(cc) {
                Some(Scheme {
                    kind: Kind::Bpf { cc: bpf },
                    ..
                }) => Some(bpf),
                _ => None,
            },
            _ => None,
        }
    }

    /// Whether the run must start NetAssist for this scheme.
    pub fn needs_netassist(&self) -> bool {
        matches!(self.kind, Kind::NetAssisted { .. })
    }

    /// The bottleneck queue this scheme runs over in one direction, given
    /// the scenario's (whose size limit it keeps): Some only for AQM
    /// schemes (ABC: the downlink only), with emu's defaults for what the
    /// flow's parameters leave out.
    pub fn queue_override(
        &self,
        scenario_queue: &QueueSpec,
        downlink: bool,
        given: &BTreeMap<String, toml::Value>,
    ) -> Result<Option<QueueSpec>> {
        let (aqm, ecn) = match self.kind {
            Kind::CubicOverAqm { aqm, ecn }
            | Kind::Prague {
                aqm: Some(aqm),
                ecn,
            } => (aqm, ecn),
            Kind::Abc if downlink => (QueueKind::Abc, false),
            _ => return Ok(None),
        };
        let mut q = QueueSpec::with_defaults(aqm, scenario_queue.limit);
        q.ecn = ecn && aqm.ecn_default().is_some();
        for (arg, _) in aqm.timing_args() {
            let knob = aqm_knob(aqm, arg);
            if let Some(ms) = given.get(&knob).and_then(params::as_number) {
                q.set_timing_ms(arg, ms).context(knob)?;
            }
        }
        for arg in aqm.number_args() {
            let knob = aqm_number_knob(aqm, arg.name);
            if let Some(v) = given.get(&knob).and_then(params::as_number) {
                q.set_number(arg.name, v).context(knob)?;
            }
        }
        Ok(Some(q))
    }

    /// The net.ipv4.tcp_ecn both hosts need: 1 (ask for ECN) for Cubic
    /// over a marking AQM; None: the namespaces' default (2, accept ECN
    /// when asked; ABC's sender asks through its TCP_CONG_NEEDS_ECN).
    pub fn host_ecn(&self) -> Option<u8> {
        match self.kind {
            Kind::CubicOverAqm { ecn: true, .. } => Some(1),
            _ => None,
        }
    }

    /// The congestion control the receivers must run (the namespaces'
    /// default, so accepted sockets get it): ABC's or Prague's, whose
    /// receiver side echoes each CE mark as DCTCP does (bpf/ce_echo.h).
    pub fn receiver_cc(&self) -> Option<&'static str> {
        match self.kind {
            Kind::Abc => Some("abc"),
            Kind::Prague { .. } => Some("prague"),
            _ => None,
        }
    }

    /// Whether the flow's data must carry ECT(1), the L4S identifier, on
    /// the wire (the runner's tc program sets it: crate::ect1).
    pub fn sends_ect1(&self) -> bool {
        matches!(self.kind, Kind::Prague { .. })
    }
}

#[cfg(test)]
mod tests;
