// SPDX-License-Identifier: GPL-2.0-only
//! What a scheme is: its name, summary, [`Kind`] (how its sender, receiver
//! and bottleneck run) and knobs, and what follows from its kind alone:
//! the congestion control its sender selects, what the run must load or
//! start for it, the queue it puts at the bottleneck, the hosts' ECN.
use std::collections::BTreeMap;
use std::path::PathBuf;

use anyhow::{bail, Context, Result};
use emu::queue::QueueKind;
use emu::QueueSpec;

use super::knob::{as_number, Knob};
use super::queue_knobs;

/// A `command` scheme's two command lines, split into words, placeholders
/// still in them (`fill` replaces them per flow).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommandSpec {
    pub receiver: Vec<String>,
    pub sender: Vec<String>,
    /// The scheme file's folder (`{dir}`).
    pub dir: PathBuf,
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
    /// `rxctl` names the rule) with this sender congestion control; `sender`
    /// is the kind of the scheme that names it, when one does (what the run
    /// loads for it: our BPF CC, a user's object).
    ReceiverSide {
        rule: &'static str,
        cc: String,
        sender: Option<Box<Kind>>,
    },
    /// A user's own struct_ops object (a `bpf` scheme file) registering
    /// `cc`; loaded for the run, unloaded after (`bpfload::object`).
    BpfObject { cc: &'static str, object: PathBuf },
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

/// A name the kernel could know as a congestion control (TCP_CA_NAME_MAX).
pub(crate) fn cc_name_ok(cc: &str) -> bool {
    !cc.is_empty()
        && cc.len() <= 15
        && cc
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
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
        match self.kind.sender() {
            Kind::BpfObject { cc, object } => Some(bpfload::object::UserObject {
                cc: cc.to_string(),
                path: object.clone(),
            }),
            _ => None,
        }
    }

    /// The BPF congestion controls that must be loaded for this scheme.
    pub fn needs_bpf(&self) -> Option<&'static str> {
        match self.kind.sender() {
            Kind::Bpf { cc } | Kind::NetAssisted { cc } => Some(cc),
            Kind::Abc => Some("abc"),
            Kind::Prague { .. } => Some("prague"),
            _ => None,
        }
    }

    /// Whether the run must start NetAssist for this scheme.
    pub fn needs_netassist(&self) -> bool {
        matches!(self.kind, Kind::NetAssisted { .. })
    }

    /// The bottleneck queue this scheme runs over in one direction, given
    /// the scenario's (whose size limit it keeps): Some only for AQM
    /// schemes (ABC: the downlink only), with the queue's defaults for what
    /// the flow's parameters leave out.
    pub fn queue_override(
        &self,
        scenario_queue: &QueueSpec,
        downlink: bool,
        given: &BTreeMap<String, toml::Value>,
    ) -> Result<Option<QueueSpec>> {
        let Some((aqm, ecn)) = self.kind.queue() else {
            return Ok(None);
        };
        if self.kind == Kind::Abc && !downlink {
            return Ok(None);
        }
        let mut q = QueueSpec::with_defaults(aqm, scenario_queue.limit);
        q.ecn = ecn && aqm.ecn_default().is_some();
        for arg in aqm.args() {
            let knob = queue_knobs::name(aqm, arg);
            if let Some(v) = given.get(&knob).and_then(as_number) {
                q.set(arg.name, v).context(knob)?;
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

impl Kind {
    /// The queue discipline this kind puts at the bottleneck, and whether
    /// it marks ECT packets there (ABC's: on the downlink only).
    pub fn queue(&self) -> Option<(QueueKind, bool)> {
        match *self {
            Kind::CubicOverAqm { aqm, ecn }
            | Kind::Prague {
                aqm: Some(aqm),
                ecn,
            } => Some((aqm, ecn)),
            Kind::Abc => Some((QueueKind::of::<emu::queue::Abc>(), false)),
            _ => None,
        }
    }

    /// The kind whose sender runs: a receiver-side scheme's sender's (when
    /// a scheme names it), else this one.
    fn sender(&self) -> &Kind {
        match self {
            Kind::ReceiverSide {
                sender: Some(s), ..
            } => s,
            k => k,
        }
    }
}
