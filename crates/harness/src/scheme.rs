// SPDX-License-Identifier: GPL-2.0-only
//! Every congestion-control scheme the runner knows, behind one registry:
//! a name, how its sender and receiver run, and which knobs it takes.
//!
//! Kernel schemes (cubic, bbr, reno) are the kernel's own; `c2tcp` and the
//! other BPF ones are loaded on demand (see `bpf_guard`); AQM schemes are
//! Cubic over that discipline at the emulated bottleneck; `iperf3:<cc>` runs
//! the real iperf3 for comparison with our own traffic generator; `sprout`
//! and `sprout-ewma` are our UDP transport (`c2tcp sprout-send/-recv`),
//! `verus` another (`c2tcp verus-send/-recv`);
//! `dfcsd` / `drwa` (or `dfcsd+<cc>`, `drwa+<cc>`) put the UE's receivers
//! under receiver-side window control (`rxctl`) with any sender.
use std::collections::BTreeMap;

use anyhow::{bail, Context, Result};
use emu::queue::QueueKind;
use emu::QueueSpec;

/// A parameter a scheme accepts in a scenario's flow: a number in
/// [min, max], or, when `word` is set, a string that `word` accepts.
#[derive(Debug, Clone, Copy)]
pub struct Knob {
    pub name: &'static str,
    pub about: &'static str,
    pub min: f64,
    pub max: f64,
    pub word: Option<fn(&str) -> Result<(), String>>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Kind {
    /// A congestion control built into the kernel.
    Kernel { cc: &'static str },
    /// One of our BPF congestion controls; loaded if needed.
    Bpf { cc: &'static str },
    /// A BPF congestion control fed by NetAssist (`natcp`, `nacubic`): the
    /// runner also starts NetAssist, its agent and the UE's flow reporter.
    NetAssisted { cc: &'static str },
    /// Cubic with this AQM on both bottleneck queues (CoDel or PIE).
    CubicOverAqm { aqm: QueueKind },
    /// The real iperf3 with this congestion control.
    Iperf3 { cc: String },
    /// Sprout over UDP; `variant` is `sprout-recv --variant` (sprout | ewma).
    Sprout { variant: &'static str },
    /// Verus over UDP (`c2tcp verus-send/-recv`).
    Verus,
    /// Receiver-side window control at the UE (`dfcsd` or `drwa`, as
    /// `rxctl` names the rule) with this sender congestion control.
    ReceiverSide { rule: &'static str, cc: String },
}

#[derive(Debug, Clone)]
pub struct Scheme {
    pub name: String,
    pub summary: &'static str,
    pub kind: Kind,
    pub knobs: Vec<Knob>,
}

/// `variant = "jsac" | "paper"`, optionally with +BEHAVIOUR / -BEHAVIOUR.
fn c2tcp_variant_word(w: &str) -> Result<(), String> {
    w.parse::<sockopt::Variant>().map(|_| ())
}

/// One switch per behaviour of the authors' code (sockopt::variant), on top
/// of `variant`: 1 forces it on, 0 off.
macro_rules! c2tcp_switch {
    ($name:literal, $about:literal) => {
        Knob { name: $name, about: $about, min: 0.0, max: 1.0, word: None }
    };
}

const C2TCP_KNOBS: &[Knob] = &[
    Knob {
        name: "variant",
        about: "jsac (the authors' released behaviour, default) or paper (Algorithms 1-3 as printed), \
                then any +BEHAVIOUR/-BEHAVIOUR",
        min: 0.0,
        max: 0.0,
        word: Some(c2tcp_variant_word),
    },
    c2tcp_switch!("blind_window", "1: nothing for 1 s after a Cubic epoch start (authors' hook position)"),
    c2tcp_switch!("anchored_tuner", "1: alpha re-anchored at Target/minRTT every cycle (JSAC Tuner)"),
    c2tcp_switch!("ms_good_test", "1: Good iff rtt_ms <= Setpoint_ms, in whole ms"),
    c2tcp_switch!("shared_growth", "1: Good growth Setpoint_ms/rtt_ms per ACK on Cubic's counter, no gate"),
    c2tcp_switch!("ack_interval", "1: Interval = current Setpoint on every ACK; CoDel's Newton step"),
    Knob {
        name: "target_ms",
        about: "average-delay Target given through SOL_C2TCP",
        min: 1.0,
        max: 10_000.0,
        word: None,
    },
    Knob {
        name: "alpha",
        about: "pin alpha (Setpoint = alpha x minRTT) and stop the Tuner",
        min: 1.0,
        max: 10.0,
        word: None,
    },
];
/// Sprout's receiver model (`c2tcp sprout-recv`, docs/sprout.md).
const SPROUT_KNOBS: &[Knob] = &[
    Knob {
        name: "confidence",
        about: "forecast percentile, % (paper Fig. 9: 5, 25, 50, 75; default 5)",
        min: 0.1,
        max: 99.9,
        word: None,
    },
    Knob {
        name: "max_rate_mbps",
        about: "top of the receiver's rate model, Mbit/s (default 30 = 2500 packets/s: the LTE traces' \
                typical rates; the paper's 12 is below TMobile-LTE's mean). Bins scale to stay 4.9 packets/s wide",
        min: 1.0,
        max: 100.0,
        word: None,
    },
    RTT_LOOKAHEAD,
];

/// The sender's window rule, shared by both variants (same sender).
const RTT_LOOKAHEAD: Knob = Knob {
    name: "rtt_lookahead",
    about:
        "1: the window looks one min RTT past 100 ms of forecast (default); 0: the paper's window",
    min: 0.0,
    max: 1.0,
    word: None,
};

const SPROUT_EWMA_KNOBS: &[Knob] = &[RTT_LOOKAHEAD];
// An AQM scheme's knobs are `<queue>_<argument>_ms`, one per timing argument
// of emu's queue; the defaults they mention are emu's (checked by a test).
const CODEL_KNOBS: &[Knob] = &[
    Knob {
        name: "codel_target_ms",
        about: "CoDel target sojourn time (default 5)",
        min: 0.1,
        max: 10_000.0,
        word: None,
    },
    Knob {
        name: "codel_interval_ms",
        about: "CoDel interval (default 100)",
        min: 1.0,
        max: 100_000.0,
        word: None,
    },
];
const PIE_KNOBS: &[Knob] = &[
    Knob {
        name: "pie_qdelay_ref_ms",
        about: "PIE reference queueing delay (default 15)",
        min: 0.1,
        max: 10_000.0,
        word: None,
    },
    Knob {
        name: "pie_max_burst_ms",
        about: "PIE maximum burst allowance (default 150)",
        min: 0.0,
        max: 100_000.0,
        word: None,
    },
];

// Receiver-side rules: the parameters worth sweeping (rxctl's `params.rs`
// gives the defaults and the reasons for them). One UE runs one controller,
// so every controlled flow of a scenario must give the same values.
const DFCSD_KNOBS: &[Knob] = &[
    Knob {
        name: "gamma_max",
        about: "DFCSD allowance of the smallest flow, packets (default 10)",
        min: 0.5,
        max: 1000.0,
        word: None,
    },
    Knob {
        name: "gamma_min",
        about: "DFCSD allowance of the largest flow, packets, > 0 (default 2)",
        min: 0.1,
        max: 1000.0,
        word: None,
    },
    Knob {
        name: "gamma_k",
        about: "DFCSD decay of the allowance with the bytes received (default 3)",
        min: 0.0,
        max: 50.0,
        word: None,
    },
];
const DRWA_KNOBS: &[Knob] = &[Knob {
    name: "drwa_lambda",
    about: "DRWA gain: queueing settles at (lambda - 1) base RTTs (default 3)",
    min: 1.0,
    max: 10.0,
    word: None,
}];

struct Entry {
    name: &'static str,
    summary: &'static str,
    kind: Kind,
    knobs: &'static [Knob],
}

fn registry() -> Vec<Entry> {
    vec![
        Entry { name: "cubic", summary: "the kernel's Cubic", kind: Kind::Kernel { cc: "cubic" }, knobs: &[] },
        Entry { name: "bbr", summary: "the kernel's BBR (v1)", kind: Kind::Kernel { cc: "bbr" }, knobs: &[] },
        Entry { name: "reno", summary: "the kernel's NewReno", kind: Kind::Kernel { cc: "reno" }, knobs: &[] },
        Entry {
            name: "c2tcp",
            summary: "C2TCP over the kernel's Cubic (BPF)",
            kind: Kind::Bpf { cc: "c2tcp" },
            knobs: C2TCP_KNOBS,
        },
        Entry {
            name: "westwood",
            summary: "TCP Westwood+ (BPF): Reno growth, ssthresh = BWE x RTTmin after a loss",
            kind: Kind::Bpf { cc: "westwood" },
            knobs: &[],
        },
        Entry {
            name: "vegas",
            summary: "TCP Vegas (BPF): keeps 2-4 packets queued",
            kind: Kind::Bpf { cc: "vegas" },
            knobs: &[],
        },
        Entry {
            name: "vivace",
            summary: "PCC Vivace (BPF): paced rate from gradient ascent on a latency-and-loss utility",
            kind: Kind::Bpf { cc: "vivace" },
            knobs: &[],
        },
        Entry {
            name: "sprout",
            summary: "Sprout over UDP: cautious forecast of the inferred link rate (saturating sender)",
            kind: Kind::Sprout { variant: "sprout" },
            knobs: SPROUT_KNOBS,
        },
        Entry {
            name: "sprout-ewma",
            summary: "Sprout-EWMA over UDP: EWMA rate estimate, no caution (saturating sender)",
            kind: Kind::Sprout { variant: "ewma" },
            knobs: SPROUT_EWMA_KNOBS,
        },
        Entry {
            name: "verus",
            summary: "Verus over UDP: window from a learnt delay profile at a target delay (saturating sender)",
            kind: Kind::Verus,
            knobs: &[],
        },
        Entry {
            name: "natcp",
            summary: "NATCP (BPF): cwnd = 2 x minRTT x bandwidth / flows and pacing from live NetAssist feedback; Cubic without it",
            kind: Kind::NetAssisted { cc: "natcp" },
            knobs: &[],
        },
        Entry {
            name: "nacubic",
            summary: "NACubic (BPF): the kernel's Cubic capped at eq. 1 and paced by live NetAssist feedback; Cubic without it",
            kind: Kind::NetAssisted { cc: "nacubic" },
            knobs: &[],
        },
        Entry {
            name: "cubic-codel",
            summary: "Cubic over CoDel at the bottleneck (both directions)",
            kind: Kind::CubicOverAqm { aqm: QueueKind::CoDel },
            knobs: CODEL_KNOBS,
        },
        Entry {
            name: "cubic-pie",
            summary: "Cubic over PIE at the bottleneck (both directions)",
            kind: Kind::CubicOverAqm { aqm: QueueKind::Pie },
            knobs: PIE_KNOBS,
        },
    ]
}

/// Every scheme name, for help texts and errors (`iperf3:<cc>` stands for
/// iperf3 with any congestion control, `dfcsd+<cc>` for DFCSD receivers with
/// any sender).
pub fn names() -> Vec<String> {
    let mut v: Vec<String> = registry().into_iter().map(|e| e.name.to_string()).collect();
    v.extend(["dfcsd", "drwa", "dfcsd+<cc>", "drwa+<cc>", "iperf3:<cc>"].map(String::from));
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

/// A flow parameter as a number (integers too).
fn number(params: &BTreeMap<String, toml::Value>, key: &str) -> Option<f64> {
    params
        .get(key)
        .and_then(|v| v.as_float().or_else(|| v.as_integer().map(|i| i as f64)))
}

/// A name the kernel could know as a congestion control (TCP_CA_NAME_MAX).
fn cc_name_ok(cc: &str) -> bool {
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
    if name.starts_with("dfcsd+") || name.starts_with("drwa+") {
        bail!("`{name}`: give the sender's congestion control after the +, e.g. dfcsd+bbr");
    }
    match registry().into_iter().find(|e| e.name == name) {
        Some(e) => Ok(Scheme {
            name: e.name.to_string(),
            summary: e.summary,
            kind: e.kind,
            knobs: e.knobs.to_vec(),
        }),
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
    let mut knobs = if rule == "dfcsd" {
        DFCSD_KNOBS.to_vec()
    } else {
        DRWA_KNOBS.to_vec()
    };
    match registry().into_iter().find(|e| e.name == cc) {
        Some(Entry { kind: Kind::Kernel { .. } | Kind::Bpf { .. }, knobs: sender, .. }) => knobs.extend_from_slice(sender),
        Some(_) => bail!("`{name}`: `{cc}` is not a sender congestion control (an AQM scheme cannot follow the +)"),
        None if cc_name_ok(cc) && rxctl::scheme(cc).is_none() => {}
        None => bail!("`{name}`: `{cc}` is not a congestion-control name"),
    }
    let summary = match (rule, name.contains('+')) {
        ("dfcsd", false) => {
            "DFCSD receivers (rxctl) with Cubic senders: short flows may queue more than long ones"
        }
        ("dfcsd", true) => "DFCSD receivers (rxctl) with this sender congestion control",
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
            cc: cc.to_string(),
        },
        knobs,
    })
}

/// The C2TCP variant a flow's parameters ask for: `variant` (default: the
/// load-time default), then each behaviour switch given.
pub fn c2tcp_variant(params: &BTreeMap<String, toml::Value>) -> Result<Option<sockopt::Variant>> {
    let mut v: Option<sockopt::Variant> = match params.get("variant").and_then(|w| w.as_str()) {
        Some(w) => Some(w.parse().map_err(|e: String| anyhow::anyhow!("variant: {e}"))?),
        None => None,
    };
    for (name, bit) in sockopt::variant::BEHAVIOURS {
        let Some(on) = params.get(name).and_then(|x| x.as_integer().or_else(|| x.as_float().map(|f| f as i64))) else {
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
            if let Some(word) = knob.word {
                match value.as_str() {
                    Some(w) => word(w).map_err(|e| anyhow::anyhow!("{key}: {e}"))?,
                    None => bail!("{key}: must be a string ({})", knob.about),
                }
                continue;
            }
            let v = value
                .as_float()
                .or_else(|| value.as_integer().map(|i| i as f64));
            match v {
                Some(v) if v.is_finite() && v >= knob.min && v <= knob.max => {}
                Some(v) => bail!(
                    "{key}: {v} is out of range [{}, {}] ({})",
                    knob.min,
                    knob.max,
                    knob.about
                ),
                None => bail!("{key}: must be a number ({})", knob.about),
            }
        }
        Ok(())
    }

    /// The kernel congestion control the sender's socket selects (None: not TCP).
    pub fn sender_cc(&self) -> Option<&str> {
        match &self.kind {
            Kind::Kernel { cc } | Kind::Bpf { cc } | Kind::NetAssisted { cc } => Some(cc),
            Kind::CubicOverAqm { .. } => Some("cubic"),
            Kind::Iperf3 { cc } => Some(cc),
            Kind::Sprout { .. } | Kind::Verus => None,
            Kind::ReceiverSide { cc, .. } => Some(cc),
        }
    }

    /// Whether a flow of this scheme can carry a fixed size (`size_bytes`):
    /// Sprout's and Verus's senders are always backlogged.
    pub fn takes_size(&self) -> bool {
        !matches!(self.kind, Kind::Sprout { .. } | Kind::Verus)
    }

    /// The BPF congestion controls that must be loaded for this scheme.
    pub fn needs_bpf(&self) -> Option<&'static str> {
        match &self.kind {
            Kind::Bpf { cc } | Kind::NetAssisted { cc } => Some(cc),
            Kind::ReceiverSide { cc, .. } => registry().into_iter().find_map(|e| match e.kind {
                Kind::Bpf { cc: bpf } if bpf == cc.as_str() => Some(bpf),
                _ => None,
            }),
            _ => None,
        }
    }

    /// The receiver-side rule of a `dfcsd` / `drwa` scheme with the flow's
    /// parameters applied (rxctl's defaults for the others); None for the
    /// other schemes.
    pub fn receiver_rule(
        &self,
        params: &BTreeMap<String, toml::Value>,
    ) -> Result<Option<rxctl::Rule>> {
        let Kind::ReceiverSide { rule, .. } = self.kind else {
            return Ok(None);
        };
        let num = |k: &str| number(params, k);
        let (r, _) = rxctl::scheme(rule).expect("a rule rxctl names");
        Ok(Some(match r {
            rxctl::Rule::Dfcsd(mut p) => {
                p.gamma_max = num("gamma_max").unwrap_or(p.gamma_max);
                p.gamma_min = num("gamma_min").unwrap_or(p.gamma_min);
                p.k = num("gamma_k").unwrap_or(p.k);
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
                p.lambda = num("drwa_lambda").unwrap_or(p.lambda);
                rxctl::Rule::Drwa(p)
            }
        }))
    }

    /// Whether the run must start NetAssist for this scheme.
    pub fn needs_netassist(&self) -> bool {
        matches!(self.kind, Kind::NetAssisted { .. })
    }

    /// The bottleneck queue this scheme runs over, given the scenario's
    /// (whose size limit it keeps): Some only for AQM schemes, with emu's
    /// defaults for what the flow's parameters leave out.
    pub fn queue_override(
        &self,
        scenario_queue: &QueueSpec,
        params: &BTreeMap<String, toml::Value>,
    ) -> Result<Option<QueueSpec>> {
        let Kind::CubicOverAqm { aqm } = self.kind else {
            return Ok(None);
        };
        let mut q = QueueSpec::with_defaults(aqm, scenario_queue.limit);
        for (arg, _) in aqm.timing_args() {
            let knob = aqm_knob(aqm, arg);
            if let Some(ms) = number(params, &knob) {
                q.set_timing_ms(arg, ms).context(knob)?;
            }
        }
        Ok(Some(q))
    }
}

/// The flow parameter that sets an AQM's timing argument:
/// `codel_target_ms` for CoDel's `target`.
fn aqm_knob(aqm: QueueKind, arg: &str) -> String {
    format!("{}_{arg}_ms", aqm.name())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_and_unknown_names() {
        assert_eq!(lookup("cubic").unwrap().sender_cc(), Some("cubic"));
        assert_eq!(
            lookup("sprout-ewma").unwrap().kind,
            Kind::Sprout { variant: "ewma" }
        );
        assert_eq!(lookup("sprout").unwrap().sender_cc(), None);
        assert!(!lookup("sprout").unwrap().takes_size() && lookup("cubic").unwrap().takes_size());
        assert_eq!(lookup("c2tcp").unwrap().needs_bpf(), Some("c2tcp"));
        assert_eq!(
            lookup("iperf3:bbr").unwrap().kind,
            Kind::Iperf3 { cc: "bbr".into() }
        );
        let e = lookup("vegas-ng").unwrap_err().to_string();
        assert!(
            e.contains("unknown scheme `vegas-ng`") && e.contains("c2tcp, westwood, vegas"),
            "{e}"
        );
        assert_eq!(lookup("westwood").unwrap().needs_bpf(), Some("westwood"));
        let na = lookup("nacubic").unwrap();
        assert_eq!(
            (na.sender_cc(), na.needs_bpf(), na.needs_netassist()),
            (Some("nacubic"), Some("nacubic"), true)
        );
        assert!(!lookup("c2tcp").unwrap().needs_netassist());
        assert!(lookup("iperf3:").is_err());
        assert!(lookup("iperf3:a b").is_err());
    }

    #[test]
    fn params_are_checked_against_knobs() {
        let c2 = lookup("c2tcp").unwrap();
        let mut p = BTreeMap::new();
        p.insert("target_ms".to_string(), toml::Value::Integer(50));
        c2.check_params(&p).unwrap();
        p.insert("target_ms".to_string(), toml::Value::Float(0.2));
        assert!(c2
            .check_params(&p)
            .unwrap_err()
            .to_string()
            .contains("out of range"));
        p.insert("target_ms".to_string(), toml::Value::String("x".into()));
        assert!(c2
            .check_params(&p)
            .unwrap_err()
            .to_string()
            .contains("must be a number"));
        let mut q = BTreeMap::new();
        q.insert("target_ms".to_string(), toml::Value::Integer(50));
        let e = lookup("cubic")
            .unwrap()
            .check_params(&q)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("has no parameter `target_ms`; it takes none"),
            "{e}"
        );
    }

    #[test]
    fn receiver_side_schemes_name_a_rule_and_a_sender() {
        let d = lookup("dfcsd").unwrap();
        assert_eq!(
            d.kind,
            Kind::ReceiverSide {
                rule: "dfcsd",
                cc: "cubic".into()
            }
        );
        assert_eq!((d.sender_cc(), d.needs_bpf()), (Some("cubic"), None));
        assert!(d.takes("gamma_max") && !d.takes("drwa_lambda") && !d.takes("target_ms"));
        let b = lookup("drwa+bbr").unwrap();
        assert_eq!(
            (b.sender_cc(), b.takes("drwa_lambda"), b.takes("gamma_max")),
            (Some("bbr"), true, false)
        );
        // A BPF sender is loaded, and its knobs come along.
        let c = lookup("dfcsd+c2tcp").unwrap();
        assert_eq!(c.needs_bpf(), Some("c2tcp"));
        assert!(c.takes("target_ms") && c.takes("gamma_k"));
        // A kernel CC the registry does not list is passed through.
        assert_eq!(lookup("dfcsd+htcp").unwrap().sender_cc(), Some("htcp"));
        for bad in [
            "dfcsd+",
            "dfcsd+cubic-codel",
            "dfcsd+drwa",
            "drwa+a b",
            "dfcsd+iperf3:cubic",
        ] {
            assert!(lookup(bad).is_err(), "{bad} should be refused");
        }
        assert!(names().contains(&"dfcsd+<cc>".to_string()));
    }

    #[test]
    fn receiver_rules_take_the_flows_parameters() {
        let mut p = BTreeMap::new();
        assert_eq!(lookup("cubic").unwrap().receiver_rule(&p).unwrap(), None);
        p.insert("gamma_max".to_string(), toml::Value::Integer(20));
        p.insert("gamma_k".to_string(), toml::Value::Float(5.0));
        let Some(rxctl::Rule::Dfcsd(d)) = lookup("dfcsd+bbr").unwrap().receiver_rule(&p).unwrap()
        else {
            panic!()
        };
        assert_eq!((d.gamma_max, d.gamma_min, d.k), (20.0, 2.0, 5.0));
        p.insert("gamma_min".to_string(), toml::Value::Integer(30));
        let e = lookup("dfcsd")
            .unwrap()
            .receiver_rule(&p)
            .unwrap_err()
            .to_string();
        assert!(e.contains("gamma_min") && e.contains("gamma_max"), "{e}");
        let q = BTreeMap::from([("drwa_lambda".to_string(), toml::Value::Integer(2))]);
        let Some(rxctl::Rule::Drwa(w)) = lookup("drwa").unwrap().receiver_rule(&q).unwrap() else {
            panic!()
        };
        assert_eq!(w.lambda, 2.0);
    }

    #[test]
    fn aqm_schemes_keep_the_scenario_queue_limit() {
        let q = |s: &str| s.parse::<QueueSpec>().unwrap();
        let over = |scheme: &str, queue: &str, p: &BTreeMap<String, toml::Value>| {
            lookup(scheme)
                .unwrap()
                .queue_override(&q(queue), p)
                .unwrap()
                .map(|q| q.to_string())
        };
        assert_eq!(
            over("cubic-codel", "droptail:packets=100", &BTreeMap::new()).as_deref(),
            Some("codel:target=5,interval=100,packets=100")
        );
        let mut p = BTreeMap::new();
        p.insert("pie_qdelay_ref_ms".to_string(), toml::Value::Integer(20));
        assert_eq!(
            over("cubic-pie", "droptail:bytes=150000", &p).as_deref(),
            Some("pie:qdelay_ref=20,max_burst=150,bytes=150000")
        );
        assert_eq!(over("cubic", "droptail:packets=100", &BTreeMap::new()), None);
        p.insert("pie_max_burst_ms".to_string(), toml::Value::Integer(0));
        let e = lookup("cubic-pie")
            .unwrap()
            .queue_override(&q("infinite"), &p)
            .unwrap_err();
        assert!(format!("{e:#}").contains("pie_max_burst_ms"), "{e:#}");
    }

    #[test]
    fn aqm_knobs_are_the_queues_timing_arguments_with_emus_defaults() {
        for (name, aqm) in [("cubic-codel", QueueKind::CoDel), ("cubic-pie", QueueKind::Pie)] {
            let s = lookup(name).unwrap();
            assert_eq!(s.kind, Kind::CubicOverAqm { aqm });
            assert_eq!(s.knobs.len(), aqm.timing_args().len());
            for (arg, default) in aqm.timing_args() {
                let knob = aqm_knob(aqm, arg);
                let k = s.knobs.iter().find(|k| k.name == knob).unwrap_or_else(|| panic!("{knob}"));
                assert!(k.about.contains(&format!("(default {default})")), "{knob}: {}", k.about);
            }
        }
    }
}
