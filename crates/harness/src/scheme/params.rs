// SPDX-License-Identifier: GPL-2.0-only
//! A flow's knobs, typed. A scenario gives a flow's parameters as `name =
//! value` pairs (`Flow::params`, the TOML model); the plan checks them
//! against the scheme's knobs and resolves them here, once per flow
//! ([`Scheme::resolve_params`]), into what the flow's driver (`flows/`) and
//! the run read: the Target in µs and α in percent as SOL_C2TCP takes them
//! (converted by `sockopt`, whose ranges mirror include/c2tcp.h), the C2TCP
//! variant, Sprout's and the video sender's options, the receiver-side
//! rule, a `command` scheme's placeholder values and a `kernel` scheme's
//! per-namespace sysctls. A built-in knob is read through its constant
//! (`knobs.rs`), so a misspelt name does not compile.
use std::collections::BTreeMap;

use anyhow::{anyhow, bail, Result};

use super::kind::{Kind, Scheme};
use super::knob::{as_number, number_text, Knob};
use super::knobs::{
    ALPHA, CONFIDENCE, DRWA_LAMBDA, FEEDBACK, FPS, GAMMA_K, GAMMA_MAX, GAMMA_MIN, HEADROOM,
    INITIAL_KBPS, MAXDELAY, MAX_KBPS, MAX_RATE_MBPS, MIN_KBPS, RTAC_MAX_P, RTAC_MAX_TH,
    RTAC_MIN_TH, RTT_LOOKAHEAD, RTT_SOURCE, SPROUT_SENDER, TARGET_MS, VARIANT,
};

/// What SOL_C2TCP sets on the sender's socket, in the option's units; all
/// None for a sender that is not C2TCP (or keeps its defaults).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct C2tcpOptions {
    pub target_us: Option<u32>,
    pub alpha_pct: Option<u32>,
    pub variant: Option<sockopt::Variant>,
}

/// A sysctl a `kernel` scheme's knob sets in the run's namespaces.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sysctl {
    /// e.g. `net.ipv4.tcp_ecn`.
    pub name: &'static str,
    /// As written to it.
    pub value: String,
    /// The knob that gave it, for messages.
    pub knob: &'static str,
}

/// A TCP flow of our traffic generator.
#[derive(Debug, Clone, PartialEq)]
pub struct TcpParams {
    pub c2tcp: C2tcpOptions,
    /// The UE's receiver-side rule with the flow's parameters (`dfcsd`,
    /// `drwa`, `rtac`, `<rule>+<cc>`).
    pub receiver_rule: Option<rxctl::Rule>,
    /// Where that rule's RTT comes from (knob `rtt_source`; rxctl's
    /// default when not given).
    pub receiver_rtt: rxctl::RttSource,
    pub sysctls: Vec<Sysctl>,
    /// What a NetAssisted flow asks of the run's NetAssist (None: the
    /// scenario's `[netassist]` setting).
    pub netassist: NetAssistParams,
}

/// A NetAssisted flow's settings of the run's one NetAssist.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct NetAssistParams {
    pub feedback: Option<netassist::meter::Feedback>,
    /// NATCP's window with BBR's headroom.
    pub headroom: Option<bool>,
    /// NATCP's assumed delay cap.
    pub maxdelay: Option<bool>,
}

/// Options of `sprout-recv` / `sprout-send`; None keeps the endpoint's default.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct SproutParams {
    pub confidence: Option<f64>,
    pub max_rate_mbps: Option<f64>,
    /// The paper's window rule, without the look-ahead past the forecast.
    pub paper_window: bool,
    /// The authors' sender (alfalfa's sproutconn.cc; the `sender` knob).
    pub authors_sender: bool,
}

/// The video sender's rate bounds (kbit/s) and frame rate; None keeps
/// the sender's default.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct GccParams {
    pub initial_kbps: Option<u32>,
    pub min_kbps: Option<u32>,
    pub max_kbps: Option<u32>,
    pub fps: Option<u32>,
}

/// A `command` scheme's knobs as their placeholders print them: the
/// flow's value, else the file's default (a knob with neither is absent).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CommandParams {
    values: Vec<(&'static str, String)>,
}

impl CommandParams {
    pub fn value(&self, knob: &str) -> Option<&str> {
        self.values
            .iter()
            .find(|(k, _)| *k == knob)
            .map(|(_, v)| v.as_str())
    }
}

/// A flow's parameters, resolved for its kind of driver.
#[derive(Debug, Clone, PartialEq)]
pub enum FlowParams {
    Tcp(TcpParams),
    Sprout(SproutParams),
    WebrtcGcc(GccParams),
    Command(CommandParams),
    /// iperf3, Verus: nothing to set.
    None,
}

impl FlowParams {
    pub fn receiver_rule(&self) -> Option<rxctl::Rule> {
        match self {
            FlowParams::Tcp(t) => t.receiver_rule,
            _ => None,
        }
    }

    /// The receiver-side rule with where its RTT comes from.
    pub fn receiver(&self) -> Option<(rxctl::Rule, rxctl::RttSource)> {
        match self {
            FlowParams::Tcp(t) => t.receiver_rule.map(|r| (r, t.receiver_rtt)),
            _ => None,
        }
    }

    pub fn sysctls(&self) -> &[Sysctl] {
        match self {
            FlowParams::Tcp(t) => &t.sysctls,
            _ => &[],
        }
    }

    pub fn netassist(&self) -> NetAssistParams {
        match self {
            FlowParams::Tcp(t) => t.netassist,
            _ => NetAssistParams::default(),
        }
    }
}

/// A flow's given parameters, read knob by knob.
struct Given<'a> {
    scheme: &'a Scheme,
    given: &'a BTreeMap<String, toml::Value>,
}

impl Given<'_> {
    /// The flow's value of a knob the scheme takes as a flow parameter
    /// (not one a scheme file made a sysctl under the same name).
    fn number(&self, knob: &Knob) -> Option<f64> {
        let own = self.scheme.knobs.iter().find(|k| k.name == knob.name)?;
        if own.sysctl.is_some() {
            return None;
        }
        self.given.get(knob.name).and_then(as_number)
    }

    fn whole(&self, knob: &Knob) -> Option<u32> {
        self.number(knob).map(|v| v.round() as u32)
    }

    fn word(&self, knob: &Knob) -> Option<&str> {
        self.given.get(knob.name).and_then(|v| v.as_str())
    }

    fn c2tcp(&self) -> Result<C2tcpOptions> {
        let target_us = self
            .number(&TARGET_MS)
            .map(sockopt::target_us_from_ms)
            .transpose()
            .map_err(|e| anyhow!("{}: {e}", TARGET_MS.name))?;
        let alpha_pct = self
            .number(&ALPHA)
            .map(sockopt::alpha_pct_from)
            .transpose()
            .map_err(|e| anyhow!("{}: {e}", ALPHA.name))?;
        let variant = match self.scheme.takes(VARIANT.name) {
            true => self.variant()?,
            false => None,
        };
        Ok(C2tcpOptions {
            target_us,
            alpha_pct,
            variant,
        })
    }

    /// `variant` (default: the load-time default), then each behaviour
    /// switch given.
    fn variant(&self) -> Result<Option<sockopt::Variant>> {
        let mut v: Option<sockopt::Variant> = match self.word(&VARIANT) {
            Some(w) => Some(w.parse().map_err(|e: String| anyhow!("variant: {e}"))?),
            None => None,
        };
        for (name, bit) in sockopt::variant::BEHAVIOURS {
            let Some(on) = self.given.get(name).and_then(as_number).map(|f| f as i64) else {
                continue;
            };
            let var = v.get_or_insert_with(sockopt::Variant::default);
            if on != 0 {
                var.on |= bit;
                var.off &= !bit;
            } else {
                var.off |= bit;
                var.on &= !bit;
            }
        }
        Ok(v)
    }

    /// The receiver-side rule `rule` (as `rxctl` names it) with the flow's
    /// parameters applied over rxctl's defaults.
    fn rule(&self, rule: &str) -> Result<rxctl::Rule> {
        let (r, _) =
            rxctl::scheme(rule).ok_or_else(|| anyhow!("`{rule}` is not a rule rxctl names"))?;
        Ok(match r {
            rxctl::Rule::Dfcsd(mut p) => {
                p.gamma_max = self.number(&GAMMA_MAX).unwrap_or(p.gamma_max);
                p.gamma_min = self.number(&GAMMA_MIN).unwrap_or(p.gamma_min);
                p.k = self.number(&GAMMA_K).unwrap_or(p.k);
                if p.gamma_min > p.gamma_max {
                    bail!(
                        "gamma_min ({}) must not exceed gamma_max ({})",
                        p.gamma_min,
                        p.gamma_max
                    );
                }
                rxctl::Rule::Dfcsd(p)
            }
            rxctl::Rule::Drwa(mut p) => {
                p.lambda = self.number(&DRWA_LAMBDA).unwrap_or(p.lambda);
                rxctl::Rule::Drwa(p)
            }
            rxctl::Rule::Rtac(mut p) => {
                p.min_th = self.number(&RTAC_MIN_TH).unwrap_or(p.min_th);
                p.max_th = self.number(&RTAC_MAX_TH).unwrap_or(p.max_th);
                p.max_p = self.number(&RTAC_MAX_P).unwrap_or(p.max_p);
                if p.min_th >= p.max_th {
                    bail!(
                        "rtac_min_th ({}) must be below rtac_max_th ({})",
                        p.min_th,
                        p.max_th
                    );
                }
                rxctl::Rule::Rtac(p)
            }
        })
    }

    /// The sysctls of the scheme's sysctl knobs: the flow's value, else
    /// the knob's default (neither: the namespace keeps its own).
    fn sysctls(&self) -> Vec<Sysctl> {
        self.scheme
            .knobs
            .iter()
            .filter_map(|k| {
                let name = k.sysctl?;
                let v = self.given.get(k.name).and_then(as_number).or(k.default)?;
                Some(Sysctl {
                    name,
                    value: number_text(v),
                    knob: k.name,
                })
            })
            .collect()
    }

    /// A `command` scheme's knobs as placeholder text.
    fn command(&self) -> CommandParams {
        let values = self
            .scheme
            .knobs
            .iter()
            .filter_map(|k| {
                let v = self.number(k).or(k.default)?;
                Some((k.name, number_text(v)))
            })
            .collect();
        CommandParams { values }
    }
}

impl Scheme {
    /// Checks a flow's parameters against this scheme's knobs and resolves
    /// them into the typed value its driver reads: the one place a flow's
    /// parameters are read by name.
    pub fn resolve_params(&self, given: &BTreeMap<String, toml::Value>) -> Result<FlowParams> {
        self.check_params(given)?;
        let g = Given {
            scheme: self,
            given,
        };
        let tcp = |receiver_rule| -> Result<FlowParams> {
            Ok(FlowParams::Tcp(TcpParams {
                c2tcp: g.c2tcp()?,
                receiver_rule,
                receiver_rtt: g
                    .word(&RTT_SOURCE)
                    .and_then(rxctl::RttSource::parse)
                    .unwrap_or(rxctl::Config::dfcsd().rtt_source),
                sysctls: g.sysctls(),
                netassist: NetAssistParams {
                    feedback: g
                        .word(&FEEDBACK)
                        .and_then(netassist::meter::Feedback::parse),
                    headroom: g.number(&HEADROOM).map(|v| v != 0.0),
                    maxdelay: g.number(&MAXDELAY).map(|v| v != 0.0),
                },
            }))
        };
        Ok(match &self.kind {
            Kind::Iperf3 { .. } | Kind::Verus => FlowParams::None,
            Kind::Sprout { .. } => {
                let authors_sender = g.word(&SPROUT_SENDER) == Some("authors");
                if authors_sender && g.number(&RTT_LOOKAHEAD) == Some(1.0) {
                    bail!("rtt_lookahead = 1: the authors' sender (sender = \"authors\") has no look-ahead");
                }
                FlowParams::Sprout(SproutParams {
                    confidence: g.number(&CONFIDENCE),
                    max_rate_mbps: g.number(&MAX_RATE_MBPS),
                    paper_window: g.number(&RTT_LOOKAHEAD) == Some(0.0),
                    authors_sender,
                })
            }
            Kind::WebrtcGcc => FlowParams::WebrtcGcc(GccParams {
                initial_kbps: g.whole(&INITIAL_KBPS),
                min_kbps: g.whole(&MIN_KBPS),
                max_kbps: g.whole(&MAX_KBPS),
                fps: g.whole(&FPS),
            }),
            Kind::Command(_) => FlowParams::Command(g.command()),
            Kind::ReceiverSide { rule, .. } => tcp(Some(g.rule(rule)?))?,
            Kind::Kernel { .. }
            | Kind::Bpf { .. }
            | Kind::BpfObject { .. }
            | Kind::NetAssisted { .. }
            | Kind::CubicOverAqm { .. }
            | Kind::Abc
            | Kind::Prague { .. } => tcp(None)?,
        })
    }
}
