//! Every congestion-control scheme the runner knows, behind one registry:
//! a name, how its sender and receiver run, and which knobs it takes.
//!
//! Kernel schemes (cubic, bbr, reno) are the kernel's own; `c2tcp` and the
//! other BPF ones are loaded on demand (see `bpf_guard`); AQM schemes are
//! Cubic over that discipline at the emulated bottleneck; `iperf3:<cc>` runs
//! the real iperf3 for comparison with our own traffic generator.
use std::collections::BTreeMap;

use anyhow::{bail, Result};

/// A numeric parameter a scheme accepts in a scenario's flow.
#[derive(Debug, Clone, Copy)]
pub struct Knob {
    pub name: &'static str,
    pub about: &'static str,
    pub min: f64,
    pub max: f64,
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
    /// Cubic with this AQM on both bottleneck queues (`codel` or `pie`).
    CubicOverAqm { aqm: &'static str },
    /// The real iperf3 with this congestion control.
    Iperf3 { cc: String },
}

#[derive(Debug, Clone)]
pub struct Scheme {
    pub name: String,
    pub summary: &'static str,
    pub kind: Kind,
    pub knobs: &'static [Knob],
}

const C2TCP_KNOBS: &[Knob] = &[
    Knob { name: "target_ms", about: "average-delay Target given through SOL_C2TCP", min: 1.0, max: 10_000.0 },
    Knob { name: "alpha", about: "pin alpha (Setpoint = alpha x minRTT) and stop the Tuner", min: 1.0, max: 10.0 },
];
const CODEL_KNOBS: &[Knob] = &[
    Knob { name: "codel_target_ms", about: "CoDel target sojourn time (default 5)", min: 0.1, max: 10_000.0 },
    Knob { name: "codel_interval_ms", about: "CoDel interval (default 100)", min: 1.0, max: 100_000.0 },
];
const PIE_KNOBS: &[Knob] = &[
    Knob { name: "pie_qdelay_ref_ms", about: "PIE reference queueing delay (default 15)", min: 0.1, max: 10_000.0 },
    Knob { name: "pie_max_burst_ms", about: "PIE maximum burst allowance (default 150)", min: 0.0, max: 100_000.0 },
];

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
            kind: Kind::CubicOverAqm { aqm: "codel" },
            knobs: CODEL_KNOBS,
        },
        Entry {
            name: "cubic-pie",
            summary: "Cubic over PIE at the bottleneck (both directions)",
            kind: Kind::CubicOverAqm { aqm: "pie" },
            knobs: PIE_KNOBS,
        },
    ]
}

/// Every scheme name, for help texts and errors (`iperf3:<cc>` stands for
/// iperf3 with any congestion control).
pub fn names() -> Vec<String> {
    let mut v: Vec<String> = registry().into_iter().map(|e| e.name.to_string()).collect();
    v.push("iperf3:<cc>".into());
    v
}

pub fn lookup(name: &str) -> Result<Scheme> {
    if let Some(cc) = name.strip_prefix("iperf3:") {
        if cc.is_empty() || cc.len() > 15 || !cc.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-') {
            bail!("`{name}`: iperf3:<cc> needs a congestion-control name, e.g. iperf3:cubic");
        }
        return Ok(Scheme {
            name: name.to_string(),
            summary: "the real iperf3 with this congestion control",
            kind: Kind::Iperf3 { cc: cc.to_string() },
            knobs: &[],
        });
    }
    match registry().into_iter().find(|e| e.name == name) {
        Some(e) => Ok(Scheme { name: e.name.to_string(), summary: e.summary, kind: e.kind, knobs: e.knobs }),
        None => bail!("unknown scheme `{name}`; known schemes: {}", names().join(", ")),
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
                    if takes.is_empty() { "none".to_string() } else { takes.join(", ") }
                );
            };
            let v = value.as_float().or_else(|| value.as_integer().map(|i| i as f64));
            match v {
                Some(v) if v.is_finite() && v >= knob.min && v <= knob.max => {}
                Some(v) => bail!("{key}: {v} is out of range [{}, {}] ({})", knob.min, knob.max, knob.about),
                None => bail!("{key}: must be a number ({})", knob.about),
            }
        }
        Ok(())
    }

    /// The kernel congestion control the sender's socket selects.
    pub fn sender_cc(&self) -> &str {
        match &self.kind {
            Kind::Kernel { cc } | Kind::Bpf { cc } | Kind::NetAssisted { cc } => cc,
            Kind::CubicOverAqm { .. } => "cubic",
            Kind::Iperf3 { cc } => cc,
        }
    }

    /// The BPF congestion controls that must be loaded for this scheme.
    pub fn needs_bpf(&self) -> Option<&'static str> {
        match self.kind {
            Kind::Bpf { cc } | Kind::NetAssisted { cc } => Some(cc),
            _ => None,
        }
    }

    /// Whether the run must start NetAssist for this scheme.
    pub fn needs_netassist(&self) -> bool {
        matches!(self.kind, Kind::NetAssisted { .. })
    }

    /// The bottleneck queue this scheme runs over, given the scenario's
    /// (whose size limit it keeps): Some only for AQM schemes.
    pub fn queue_override(&self, scenario_queue: &str, params: &BTreeMap<String, toml::Value>) -> Option<String> {
        let Kind::CubicOverAqm { aqm } = self.kind else { return None };
        let num = |k: &str| params.get(k).and_then(|v| v.as_float().or_else(|| v.as_integer().map(|i| i as f64)));
        // Keep the byte/packet limit of the scenario's queue.
        let limit = scenario_queue
            .split_once(':')
            .map(|(_, args)| {
                args.split(',')
                    .filter(|a| a.starts_with("bytes=") || a.starts_with("packets="))
                    .collect::<Vec<_>>()
                    .join(",")
            })
            .unwrap_or_default();
        let mut args = match aqm {
            "codel" => format!(
                "target={},interval={}",
                num("codel_target_ms").unwrap_or(5.0),
                num("codel_interval_ms").unwrap_or(100.0)
            ),
            _ => format!(
                "qdelay_ref={},max_burst={}",
                num("pie_qdelay_ref_ms").unwrap_or(15.0),
                num("pie_max_burst_ms").unwrap_or(150.0)
            ),
        };
        if !limit.is_empty() {
            args.push(',');
            args.push_str(&limit);
        }
        Some(format!("{aqm}:{args}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_and_unknown_names() {
        assert_eq!(lookup("cubic").unwrap().sender_cc(), "cubic");
        assert_eq!(lookup("c2tcp").unwrap().needs_bpf(), Some("c2tcp"));
        assert_eq!(lookup("iperf3:bbr").unwrap().kind, Kind::Iperf3 { cc: "bbr".into() });
        let e = lookup("vegas-ng").unwrap_err().to_string();
        assert!(e.contains("unknown scheme `vegas-ng`") && e.contains("c2tcp, westwood, vegas"), "{e}");
        assert_eq!(lookup("westwood").unwrap().needs_bpf(), Some("westwood"));
        let na = lookup("nacubic").unwrap();
        assert_eq!((na.sender_cc(), na.needs_bpf(), na.needs_netassist()), ("nacubic", Some("nacubic"), true));
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
        assert!(c2.check_params(&p).unwrap_err().to_string().contains("out of range"));
        p.insert("target_ms".to_string(), toml::Value::String("x".into()));
        assert!(c2.check_params(&p).unwrap_err().to_string().contains("must be a number"));
        let mut q = BTreeMap::new();
        q.insert("target_ms".to_string(), toml::Value::Integer(50));
        let e = lookup("cubic").unwrap().check_params(&q).unwrap_err().to_string();
        assert!(e.contains("has no parameter `target_ms`; it takes none"), "{e}");
    }

    #[test]
    fn aqm_schemes_keep_the_scenario_queue_limit() {
        let s = lookup("cubic-codel").unwrap();
        assert_eq!(
            s.queue_override("droptail:packets=100", &BTreeMap::new()).as_deref(),
            Some("codel:target=5,interval=100,packets=100")
        );
        let mut p = BTreeMap::new();
        p.insert("pie_qdelay_ref_ms".to_string(), toml::Value::Integer(20));
        assert_eq!(
            lookup("cubic-pie").unwrap().queue_override("droptail:bytes=150000", &p).as_deref(),
            Some("pie:qdelay_ref=20,max_burst=150,bytes=150000")
        );
        assert_eq!(lookup("cubic").unwrap().queue_override("droptail:packets=100", &BTreeMap::new()), None);
    }
}
