// SPDX-License-Identifier: GPL-2.0-only
//! A scenario resolved once into a typed plan, before anything exists. This
//! is the one place the flows' scheme names are looked up:
//!
//! ```text
//!  Scenario (scenario.rs: the TOML model, each field checked on its own)
//!     │ check: schemes looked up once, knobs and directions checked, the
//!     │        queues parsed into emu::QueueSpec (an AQM scheme's override
//!     │        applied), one receiver-side rule, every sweep value valid
//!     │ resolve_link: the traces loaded (a `.down` trace's `.up` sibling)
//!     ▼
//!  Plan { scenario (length resolved), schemes, link, queues, rule }
//!     └─► runner::run ─► flows (each with its typed scheme), emulator
//! ```
//!
//! A bad queue string or an unknown scheme fails here, before a namespace or
//! a BPF program exists: reading a scenario (`Scenario::load`, `parse`,
//! defined here with the other checked operations on a scenario) runs
//! [`check`], so a bench finds it before its first run.
//!
//! [`Needs`] says what a scenario needs loaded or started (BPF congestion
//! controls, NetAssist, a receiver-side controller), for the runner and for
//! the bench, which loads the BPF programs once for all its runs.
use std::path::Path;

use anyhow::{anyhow, bail, Context, Result};
use emu::{QueueSpec, Trace};

use crate::data::resolve_trace;
use crate::scenario::{Direction, Link, Scenario, DEFAULT_UPLINK};
use crate::scheme::{self, Scheme};
use crate::sweep;

/// Each flow's scheme, looked up in the registry: the one place a
/// scenario's scheme names become schemes.
pub(crate) fn schemes_of(sc: &Scenario) -> Result<Vec<Scheme>> {
    sc.flows
        .iter()
        .enumerate()
        .map(|(i, f)| scheme::lookup(&f.scheme).with_context(|| format!("flows[{i}].scheme")))
        .collect()
}

/// A scenario read and checked, and the checked changes of one: these need
/// the scheme registry, so they live here rather than in the model.
impl Scenario {
    /// Reads and validates a scenario file.
    pub fn load(path: &Path) -> Result<Scenario> {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("reading scenario {}", path.display()))?;
        Scenario::parse(&text).with_context(|| format!("in scenario {}", path.display()))
    }

    /// Parses and validates a scenario.
    pub fn parse(text: &str) -> Result<Scenario> {
        let sc: Scenario = toml::from_str(text).map_err(|e| anyhow!("{e}"))?;
        sc.validate()?;
        Ok(sc)
    }

    /// Checks everything serde cannot ([`check`]).
    pub fn validate(&self) -> Result<()> {
        check(self).map(drop)
    }

    /// This scenario with `value` applied to the swept `key`, checked.
    pub fn with_value(&self, key: &str, value: &toml::Value) -> Result<Scenario> {
        let sc = sweep::apply(self, key, value, &schemes_of(self)?)?;
        sc.validate()?;
        Ok(sc)
    }

    /// Sets the flow parameter `key` on every flow whose scheme takes it
    /// (`c2tcp run --target`); returns how many did.
    pub fn set_param(&mut self, key: &str, value: &toml::Value) -> Result<usize> {
        let schemes = schemes_of(self)?;
        Ok(sweep::set_param(self, key, value, &schemes))
    }

    /// Applies `--set KNOB=VALUE`s: each on every flow whose scheme takes
    /// it, then the whole scenario checked as a scenario file's flows are
    /// (an error names the `--set`). Returns the settings some flow took.
    pub fn set_knobs(&mut self, sets: &[KnobSetting]) -> Result<Vec<KnobSetting>> {
        let mut taken = Vec::new();
        for (key, value) in sets {
            if self.set_param(key, value)? > 0 {
                taken.push((key.clone(), value.clone()));
            }
        }
        if !sets.is_empty() {
            let given: Vec<String> = sets.iter().map(|(k, v)| format!("{k}={v}")).collect();
            self.validate().with_context(|| format!("--set {}", given.join(" --set ")))?;
        }
        Ok(taken)
    }

    /// Replaces every flow's scheme (`c2tcp run --scheme`) but those that
    /// keep theirs, dropping the parameters the new scheme does not take,
    /// and the swept ones no flow takes any more; checked.
    pub fn with_scheme(&self, name: &str) -> Result<Scenario> {
        let sch = scheme::lookup(name)?;
        let mut sc = self.clone();
        for f in sc.flows.iter_mut().filter(|f| !f.keep_scheme) {
            f.scheme = name.to_string();
            f.params.retain(|k, _| sch.takes(k));
        }
        let schemes = schemes_of(&sc)?;
        sweep::drop_untaken_params(&mut sc, &schemes);
        sc.validate()?;
        Ok(sc)
    }
}

/// One `--set KNOB=VALUE`: a flow parameter as a scenario file would
/// give it.
pub type KnobSetting = (String, toml::Value);

/// Parses `--set KNOB=VALUE`: VALUE as a TOML value (`50`, `1.5`,
/// `"jsac"`), a bare word as a string (`variant=paper`).
pub fn parse_knob_setting(arg: &str) -> std::result::Result<KnobSetting, String> {
    let (key, value) = arg
        .split_once('=')
        .ok_or_else(|| format!("`{arg}`: give KNOB=VALUE, e.g. variant=paper"))?;
    let key = key.trim();
    if key.is_empty() || !key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
        return Err(format!("`{arg}`: `{key}` is not a knob name"));
    }
    let value = value.trim();
    let parsed = toml::from_str::<toml::Table>(&format!("v = {value}"))
        .ok()
        .and_then(|mut t| t.remove("v"))
        .unwrap_or_else(|| toml::Value::String(value.to_string()));
    Ok((key.to_string(), parsed))
}

/// What checking a scenario found out on the way.
pub(crate) struct Checked {
    pub schemes: Vec<Scheme>,
    pub downlink_queue: QueueSpec,
    pub uplink_queue: QueueSpec,
    pub receiver_rule: Option<rxctl::Rule>,
}

/// Checks `sc` against everything serde cannot: its fields
/// (`Scenario::check_fields`), each flow's scheme and its parameters, the
/// bottleneck queues, the receiver-side rule and the sweep table (every
/// value makes a valid scenario). Reads no trace.
pub(crate) fn check(sc: &Scenario) -> Result<Checked> {
    sc.check_fields()?;
    let schemes = schemes_of(sc)?;
    for (i, (f, sch)) in sc.flows.iter().zip(&schemes).enumerate() {
        let at = |field: &str| format!("flows[{i}].{field}");
        if f.size_bytes.is_some() && !sch.takes_size() {
            bail!(
                "{}: `{}` flows are always backlogged; give duration_s instead",
                at("size_bytes"),
                f.scheme
            );
        }
        sch.check_params(&f.params)
            .map_err(|e| anyhow!("flows[{i}]: {e}"))?;
        let controlled = sch
            .receiver_rule(&f.params)
            .map_err(|e| anyhow!("flows[{i}]: {e}"))?
            .is_some();
        if controlled && f.direction != Direction::Downlink {
            bail!(
                "{}: `{}` controls the UE's receivers, so its flows must be downlink",
                at("direction"),
                f.scheme
            );
        }
    }
    let receiver_rule = receiver_rule(sc, &schemes)?;
    let (downlink_queue, uplink_queue) = bottleneck_queues(sc, &schemes)?;
    for (key, values) in &sc.sweep {
        sweep::check_key(sc, key, values, &schemes)?;
        // Every value must make a valid scenario.
        for (i, v) in values.iter().enumerate() {
            sc.with_value(key, v)
                .with_context(|| format!("sweep.{key}[{i}] = {v}"))?;
        }
    }
    Ok(Checked {
        schemes,
        downlink_queue,
        uplink_queue,
        receiver_rule,
    })
}

/// The receiver-side rule of the run (one controller per UE), if any
/// flow's scheme has one: every such flow must give the same rule and
/// parameters, since DFCSD's allowances compare the flows of one UE.
fn receiver_rule(sc: &Scenario, schemes: &[Scheme]) -> Result<Option<rxctl::Rule>> {
    let mut found: Option<(usize, rxctl::Rule)> = None;
    for (i, (f, sch)) in sc.flows.iter().zip(schemes).enumerate() {
        let Some(rule) = sch.receiver_rule(&f.params)? else {
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
            (d, u) => (d.unwrap_or_else(|| down.clone()), u.unwrap_or_else(|| up.clone())),
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

/// What a scenario's flows need besides the emulator.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Needs {
    /// BPF congestion controls, each once, in the flows' order.
    pub bpf: Vec<&'static str>,
    /// Users' own struct_ops objects (`bpf` scheme files), each once.
    pub objects: Vec<bpfload::object::UserObject>,
    /// NATCP/NACubic: NetAssist, its agent and the UE's reporter.
    pub netassist: bool,
    /// A receiver-side rule: the UE's rxctl controller.
    pub rxctl: bool,
    /// net.ipv4.tcp_ecn for both namespaces: the highest any flow's scheme
    /// asks for (1 for Cubic over a marking AQM), None to keep the default
    /// (2: accept ECN when the peer asks).
    pub host_ecn: Option<u8>,
    /// The namespaces' default congestion control, for receivers that must
    /// run one (ABC's echo); one scheme a run.
    pub receiver_cc: Option<&'static str>,
}

impl Needs {
    fn of_schemes<'a>(schemes: impl IntoIterator<Item = &'a Scheme>) -> Needs {
        let mut n = Needs::default();
        for s in schemes {
            if let Some(cc) = s.needs_bpf() {
                if !n.bpf.contains(&cc) {
                    n.bpf.push(cc);
                }
            }
            if let Some(o) = s.needs_object() {
                if !n.objects.contains(&o) {
                    n.objects.push(o);
                }
            }
            n.netassist |= s.needs_netassist();
            n.host_ecn = n.host_ecn.max(s.host_ecn());
            n.receiver_cc = n.receiver_cc.or(s.receiver_cc());
        }
        n
    }

    /// What `sc` needs, from its schemes alone (no trace is read): the
    /// bench asks this of every run it plans.
    pub fn of(sc: &Scenario) -> Result<Needs> {
        let schemes = schemes_of(sc)?;
        let mut n = Needs::of_schemes(&schemes);
        n.rxctl = receiver_rule(sc, &schemes)?.is_some();
        Ok(n)
    }

    /// The BPF congestion controls a set of scenarios needs, each once:
    /// ours and users' objects.
    pub fn bpf_of<'a>(
        scenarios: impl IntoIterator<Item = &'a Scenario>,
    ) -> Result<(Vec<&'static str>, Vec<bpfload::object::UserObject>)> {
        let (mut ccs, mut objects) = (Vec::new(), Vec::new());
        for sc in scenarios {
            let n = Needs::of(sc)?;
            for cc in n.bpf {
                if !ccs.contains(&cc) {
                    ccs.push(cc);
                }
            }
            for o in n.objects {
                if !objects.contains(&o) {
                    objects.push(o);
                }
            }
        }
        Ok((ccs, objects))
    }
}

/// The `.up` sibling of a `.down` trace file, if there is one: the uplink a
/// scenario that names no uplink runs with (else [`DEFAULT_UPLINK`]). An
/// `.up` trace given as the downlink (the data path of a drive's uplink,
/// as the Sprout paper runs both directions of each network) likewise runs
/// with its `.down` sibling as the way back.
pub fn uplink_sibling(downlink: &Path) -> Option<String> {
    let name = downlink.to_str()?;
    let (stem, gz) = match name.strip_suffix(".gz") {
        Some(stem) => (stem, ".gz"),
        None => (name, ""),
    };
    let other = match (stem.strip_suffix(".down"), stem.strip_suffix(".up")) {
        (Some(s), _) => format!("{s}.up{gz}"),
        (None, Some(s)) => format!("{s}.down{gz}"),
        (None, None) => return None,
    };
    Path::new(&other).is_file().then_some(other)
}

/// The traces of a run, loaded, with the names `setup.json` records.
pub struct ResolvedLink {
    pub downlink: Trace,
    pub uplink: Trace,
    pub downlink_name: String,
    pub uplink_name: String,
}

/// A rate spec (`constant:MBPS`, `steps:…@PERIOD_S`; `emu::rate_spec`), or a
/// trace file (plain or gzip) found by [`resolve_trace`].
fn load_trace(spec: &str, scenario_dir: Option<&Path>) -> Result<(Trace, String)> {
    if let Some(trace) = emu::rate_spec::parse(spec)? {
        return Ok((trace, spec.to_string()));
    }
    let path = resolve_trace(spec, scenario_dir)?;
    Ok((Trace::load(&path)?, path.display().to_string()))
}

/// Loads `sc`'s traces (relative paths also next to `scenario_dir`); the
/// uplink is the scenario's, else the downlink's `.up` sibling, else
/// [`DEFAULT_UPLINK`].
pub fn resolve_link(sc: &Scenario, scenario_dir: Option<&Path>) -> Result<ResolvedLink> {
    let l = &sc.link;
    let (downlink, downlink_name) =
        load_trace(&l.downlink, scenario_dir).context("link.downlink")?;
    let uplink_spec = l
        .uplink
        .clone()
        .or_else(|| uplink_sibling(Path::new(&downlink_name)))
        .unwrap_or_else(|| DEFAULT_UPLINK.to_string());
    let (uplink, uplink_name) = load_trace(&uplink_spec, scenario_dir).context("link.uplink")?;
    Ok(ResolvedLink {
        downlink,
        uplink,
        downlink_name,
        uplink_name,
    })
}

/// A scenario ready to run.
pub struct Plan {
    /// The scenario with its length resolved from the trace.
    pub scenario: Scenario,
    /// Each flow's scheme, in the flows' order.
    pub schemes: Vec<Scheme>,
    pub link: ResolvedLink,
    /// The bottleneck queues, an AQM scheme's override applied.
    pub downlink_queue: QueueSpec,
    pub uplink_queue: QueueSpec,
    pub receiver_rule: Option<rxctl::Rule>,
}

impl Plan {
    /// Resolves `sc` (trace paths relative to `scenario_dir` too).
    pub fn resolve(sc: &Scenario, scenario_dir: Option<&Path>) -> Result<Plan> {
        let Checked {
            schemes,
            downlink_queue,
            uplink_queue,
            receiver_rule,
        } = check(sc)?;
        let link = resolve_link(sc, scenario_dir)?;
        let mut scenario = sc.clone();
        scenario.link.resolve_length(link.downlink.period_ms())?;
        Ok(Plan {
            scenario,
            schemes,
            link,
            downlink_queue,
            uplink_queue,
            receiver_rule,
        })
    }

    /// What the run needs besides the emulator.
    pub fn needs(&self) -> Needs {
        let mut n = Needs::of_schemes(&self.schemes);
        n.rxctl = self.receiver_rule.is_some();
        n
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::tests::{err, GOOD, SHORT_LONG};

    fn scenario(text: &str) -> Scenario {
        Scenario::parse(text).unwrap()
    }

    const BASE: &str = r#"
[link]
downlink = "constant:12"
uplink = "constant:12"
duration_s = 5
"#;

    #[test]
    fn a_bad_queue_or_an_unknown_scheme_fails_at_planning() {
        // Plan::resolve touches no namespace and no BPF program: it needs
        // no root, so a failure here is a failure before either exists.
        let mut bad_queue = scenario(&format!("{BASE}[[flows]]\nscheme = \"cubic\"\n"));
        bad_queue.link.downlink_queue = Some("droptail:bananas=3".into());
        let e = format!("{:#}", Plan::resolve(&bad_queue, None).err().unwrap());
        assert!(
            e.contains("link.downlink_queue") && e.contains("bananas"),
            "{e}"
        );
        // Scenario::parse refuses both already; ones built in code must not get past the plan.
        let e = err(&format!(
            "{BASE}queue = \"red:packets=3\"\n[[flows]]\nscheme = \"cubic\"\n"
        ));
        assert!(
            e.contains("link.queue") && e.contains("unknown queue `red`"),
            "{e}"
        );
        let mut unknown = scenario(&format!("{BASE}[[flows]]\nscheme = \"cubic\"\n"));
        unknown.flows[0].scheme = "warp-tcp".into();
        let e = format!("{:#}", Plan::resolve(&unknown, None).err().unwrap());
        assert!(e.contains("warp-tcp"), "{e}");
        assert!(Needs::of(&unknown).is_err());
    }

    #[test]
    fn a_plan_says_what_its_run_needs() {
        let sc = scenario(&format!(
            "{BASE}[[flows]]\nscheme = \"c2tcp\"\n[[flows]]\nscheme = \"cubic\"\n[[flows]]\nscheme = \"c2tcp\"\n"
        ));
        let plan = Plan::resolve(&sc, None).unwrap();
        assert_eq!(
            plan.needs(),
            Needs {
                bpf: vec!["c2tcp"],
                objects: vec![],
                netassist: false,
                rxctl: false,
                host_ecn: None,
                receiver_cc: None,
            }
        );
        assert_eq!(Needs::of(&sc).unwrap(), plan.needs());
        assert_eq!(plan.schemes.len(), 3);
        assert_eq!(plan.downlink_queue.to_string(), "droptail:packets=100");
        let na = scenario(&format!("{BASE}[[flows]]\nscheme = \"nacubic\"\n"));
        let n = Needs::of(&na).unwrap();
        assert!(n.netassist && n.bpf == vec!["nacubic"] && !n.rxctl, "{n:?}");
        // ECN: the highest setting any flow asks for; ABC's queue on the downlink only.
        let abc = scenario(&format!(
            "{BASE}[[flows]]\nscheme = \"abc\"\n[[flows]]\nscheme = \"cubic\"\n"
        ));
        let plan = Plan::resolve(&abc, None).unwrap();
        assert_eq!((plan.needs().receiver_cc, plan.needs().bpf), (Some("abc"), vec!["abc"]));
        assert!(plan.downlink_queue.to_string().starts_with("abc:"));
        assert_eq!(plan.uplink_queue.to_string(), "droptail:packets=100");
        let ecn = scenario(&format!("{BASE}[[flows]]\nscheme = \"cubic-fq-codel\"\n"));
        assert_eq!(Needs::of(&ecn).unwrap().host_ecn, Some(1));
        let rx = scenario(&format!("{BASE}[[flows]]\nscheme = \"dfcsd+cubic\"\n"));
        let n = Plan::resolve(&rx, None).unwrap().needs();
        assert!(n.rxctl && n.bpf.is_empty() && !n.netassist, "{n:?}");
    }

    #[test]
    fn an_aqm_scheme_puts_its_queue_on_both_directions() {
        let sc = scenario(&format!(
            "{BASE}uplink_queue = \"droptail:bytes=30000\"\n[[flows]]\nscheme = \"cubic-codel\"\ncodel_target_ms = 10\n[[flows]]\nscheme = \"cubic\"\n"
        ));
        let plan = Plan::resolve(&sc, None).unwrap();
        assert_eq!(
            plan.downlink_queue.to_string(),
            "codel:target=10,interval=100,packets=100"
        );
        assert_eq!(
            plan.uplink_queue.to_string(),
            "codel:target=10,interval=100,bytes=30000"
        );
        let e = err(&format!(
            "{BASE}[[flows]]\nscheme = \"cubic-codel\"\n[[flows]]\nscheme = \"cubic-pie\"\n"
        ));
        assert!(
            e.contains("`cubic-codel` and `cubic-pie` want different queues"),
            "{e}"
        );
        let e = err(&format!(
            "{BASE}[[flows]]\nscheme = \"cubic-pie\"\npie_max_burst_ms = 0\n"
        ));
        assert!(
            e.contains("flows[0]") && e.contains("pie_max_burst_ms"),
            "{e}"
        );
    }

    #[test]
    fn a_down_trace_runs_with_its_up_sibling_else_the_default_uplink() {
        let tmp = tempfile::tempdir().unwrap();
        let down = tmp.path().join("X.down");
        std::fs::write(&down, "1\n2\n").unwrap();
        assert_eq!(uplink_sibling(&down), None);
        let up = tmp.path().join("X.up");
        std::fs::write(&up, "1\n").unwrap();
        assert_eq!(uplink_sibling(&down).as_deref(), up.to_str());
        // A drive's uplink as the data path: its downlink is the way back.
        assert_eq!(uplink_sibling(&up).as_deref(), down.to_str());
        assert_eq!(uplink_sibling(&tmp.path().join("Y.up")), None);
        let mut sc = scenario(&format!("{BASE}[[flows]]\nscheme = \"cubic\"\n"));
        sc.link.downlink = "X.down".into();
        sc.link.uplink = None;
        let link = resolve_link(&sc, Some(tmp.path())).unwrap();
        assert_eq!(link.uplink_name, up.display().to_string());
        sc.link.downlink = "constant:12".into();
        assert_eq!(resolve_link(&sc, None).unwrap().uplink_name, DEFAULT_UPLINK);
    }

    #[test]
    fn errors_name_the_field() {
        let e = err(&GOOD.replace("delay_ms = 10", "delay_ms = -1"));
        assert!(e.contains("link.delay_ms"), "{e}");
        let e = err(&GOOD.replace("warmup_s = 2", "warmup_s = 30"));
        assert!(e.contains("link.warmup_s"), "{e}");
        let e = err(&GOOD.replace("target_ms = 50", "target_ms = 50\nbogus = 1"));
        assert!(e.contains("flows[0]") && e.contains("bogus"), "{e}");
        let e = err(&GOOD.replace("start_s = 5", "start_s = 25"));
        assert!(e.contains("flows[1].start_s"), "{e}");
        let e = err(&GOOD.replace(
            "size_bytes = 1000000",
            "size_bytes = 1000000\nduration_s = 3",
        ));
        assert!(e.contains("flows[1].size_bytes"), "{e}");
        let e = err(&GOOD.replace("delay_ms = 10", "delay_ms = 10\ndelay = 3"));
        assert!(e.contains("unknown field `delay`"), "{e}");
        let e = err(&GOOD.replace("target_ms = 50", "target_ms = 0.5"));
        assert!(e.contains("flows[0]") && e.contains("target_ms"), "{e}");
    }

    #[test]
    fn unknown_scheme_lists_the_known_ones() {
        let e = err(&GOOD.replace("scheme = \"cubic\"", "scheme = \"tcp-foo\""));
        assert!(e.contains("flows[1].scheme"), "{e}");
        assert!(
            e.contains("unknown scheme `tcp-foo`") && e.contains("cubic") && e.contains("bbr"),
            "{e}"
        );
    }

    #[test]
    fn receiver_side_flows_share_one_rule_and_are_downlink() {
        let sc = Scenario::parse(SHORT_LONG).unwrap();
        assert!(matches!(
            Plan::resolve(&sc, None).unwrap().receiver_rule,
            Some(rxctl::Rule::Dfcsd(_))
        ));
        assert_eq!(
            Plan::resolve(&sc.with_scheme("cubic").unwrap(), None)
                .unwrap()
                .receiver_rule,
            None
        );
        let e = err(&SHORT_LONG.replacen("scheme = \"dfcsd\"", "scheme = \"drwa\"", 1));
        assert!(
            e.contains("flows[1].scheme") && e.contains("one controller"),
            "{e}"
        );
        let e = err(&SHORT_LONG.replace("start_s = 30", "start_s = 30\ngamma_max = 20"));
        assert!(e.contains("flows[1].scheme"), "{e}");
        let e = err(&SHORT_LONG.replace("start_s = 30", "start_s = 30\ndirection = \"uplink\""));
        assert!(
            e.contains("flows[1].direction") && e.contains("downlink"),
            "{e}"
        );
        // A plain flow beside them is not controlled and may go either way.
        Scenario::parse(&SHORT_LONG.replace("start_s = 1", "start_s = 1\ndirection = \"uplink\""))
            .unwrap();
    }
}
