// SPDX-License-Identifier: GPL-2.0-only
//! The plan's tests: what the check refuses and names, what a checked
//! scenario needs, its queues, its receiver-side rule, its traces.
use super::*;
use crate::plan::CHECKS;
use crate::scenario::tests::{checked, err, GOOD, SHORT_LONG};
use crate::scenario::DEFAULT_UPLINK;

fn scenario(text: &str) -> Scenario {
    checked(text)
}

/// Checks and resolves `sc`, as a run does.
fn planned(sc: &Scenario) -> Result<Plan> {
    Plan::resolve(CheckedScenario::check(sc.clone())?, None)
}

fn needs(sc: &Scenario) -> Needs {
    CheckedScenario::check(sc.clone()).unwrap().needs()
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
    let e = format!("{:#}", planned(&bad_queue).err().unwrap());
    assert!(
        e.contains("link.downlink_queue") && e.contains("bananas"),
        "{e}"
    );
    // CheckedScenario::parse refuses both already; ones built in code must not get past the plan.
    let e = err(&format!(
        "{BASE}queue = \"red:packets=3\"\n[[flows]]\nscheme = \"cubic\"\n"
    ));
    assert!(
        e.contains("link.queue") && e.contains("unknown queue `red`"),
        "{e}"
    );
    let mut unknown = scenario(&format!("{BASE}[[flows]]\nscheme = \"cubic\"\n"));
    unknown.flows[0].scheme = "warp-tcp".into();
    let e = format!("{:#}", planned(&unknown).err().unwrap());
    assert!(e.contains("warp-tcp"), "{e}");
    assert!(Needs::bpf_of([&unknown]).is_err());
}

#[test]
fn a_plan_says_what_its_run_needs() {
    let sc = scenario(&format!(
        "{BASE}[[flows]]\nscheme = \"c2tcp\"\n[[flows]]\nscheme = \"cubic\"\n[[flows]]\nscheme = \"c2tcp\"\n"
    ));
    let plan = planned(&sc).unwrap();
    assert_eq!(
        plan.checked.needs(),
        Needs {
            bpf: vec!["c2tcp"],
            objects: vec![],
            netassist: false,
            rxctl: false,
            host_ecn: None,
            receiver_cc: None,
            sysctls: vec![],
        }
    );
    assert_eq!(needs(&sc), plan.checked.needs());
    assert_eq!(plan.checked.flows().len(), 3);
    assert_eq!(
        plan.checked.downlink_queue().to_string(),
        "droptail:packets=100"
    );
    let na = scenario(&format!("{BASE}[[flows]]\nscheme = \"nacubic\"\n"));
    let n = needs(&na);
    assert!(n.netassist && n.bpf == vec!["nacubic"] && !n.rxctl, "{n:?}");
    // ECN: the highest setting any flow asks for; ABC's queue on the downlink only.
    let abc = scenario(&format!(
        "{BASE}[[flows]]\nscheme = \"abc\"\n[[flows]]\nscheme = \"cubic\"\n"
    ));
    let plan = planned(&abc).unwrap();
    assert_eq!(
        (plan.checked.needs().receiver_cc, plan.checked.needs().bpf),
        (Some("abc"), vec!["abc"])
    );
    assert!(plan
        .checked
        .downlink_queue()
        .to_string()
        .starts_with("abc:"));
    assert_eq!(
        plan.checked.uplink_queue().to_string(),
        "droptail:packets=100"
    );
    let ecn = scenario(&format!("{BASE}[[flows]]\nscheme = \"cubic-fq-codel\"\n"));
    assert_eq!(needs(&ecn).host_ecn, Some(1));
    let rx = scenario(&format!("{BASE}[[flows]]\nscheme = \"dfcsd+cubic\"\n"));
    let n = needs(&rx);
    assert!(n.rxctl && n.bpf.is_empty() && !n.netassist, "{n:?}");
}

#[test]
fn an_aqm_scheme_puts_its_queue_on_both_directions() {
    let sc = scenario(&format!(
        "{BASE}uplink_queue = \"droptail:bytes=30000\"\n[[flows]]\nscheme = \"cubic-codel\"\ncodel_target_ms = 10\n[[flows]]\nscheme = \"cubic\"\n"
    ));
    let plan = planned(&sc).unwrap();
    assert_eq!(
        plan.checked.downlink_queue().to_string(),
        "codel:target=10,interval=100,packets=100"
    );
    assert_eq!(
        plan.checked.uplink_queue().to_string(),
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
    let resolve = |sc: &Scenario, dir| resolve_link(&CheckedScenario::check(sc.clone())?, dir);
    let link = resolve(&sc, Some(tmp.path())).unwrap();
    assert_eq!(link.uplink_name, up.display().to_string());
    sc.link.downlink = "constant:12".into();
    assert_eq!(resolve(&sc, None).unwrap().uplink_name, DEFAULT_UPLINK);
}

/// `cellreplay:LIGHT,HEAVY` in a scenario: the files found beside it, the
/// heavy trace the link's, the model carried to the run; a bad light trace
/// named with its line under the field.
#[test]
fn a_cellreplay_link_resolves_its_files_and_model() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(tmp.path().join("light"), "0 20 0 1\n10 25 0\n20 20 0\n").unwrap();
    std::fs::write(tmp.path().join("heavy"), "1\n2\n").unwrap();
    let mut sc = scenario(&format!("{BASE}[[flows]]\nscheme = \"cubic\"\n"));
    sc.link.downlink = "cellreplay:light,heavy,idle=5".into();
    sc.link.uplink = Some("cellreplay:light,constant:12".into());
    let checked = CheckedScenario::check(sc).unwrap();
    let link = resolve_link(&checked, Some(tmp.path())).unwrap();
    assert_eq!(link.downlink.opportunities, vec![1, 2]);
    let model = link.downlink_cellreplay.expect("the model");
    assert_eq!((model.idle_us, model.light.rows()), (5000, 3));
    assert!(link.uplink_cellreplay.is_some());
    assert_eq!(link.downlink_name, "cellreplay:light,heavy,idle=5");
    std::fs::write(tmp.path().join("light"), "0 20 0 1\n10 x 0\n20 20 0\n").unwrap();
    let e = format!(
        "{:#}",
        resolve_link(&checked, Some(tmp.path())).err().unwrap()
    );
    assert!(e.contains("link.downlink") && e.contains("light:2:"), "{e}");
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
    let sc = scenario(SHORT_LONG);
    let rule = |sc: &Scenario| CheckedScenario::check(sc.clone()).unwrap().receiver_rule();
    assert!(matches!(rule(&sc), Some(rxctl::Rule::Dfcsd(_))));
    assert_eq!(rule(&sc.with_scheme("cubic").unwrap()), None);
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
    checked(&SHORT_LONG.replace("start_s = 1", "start_s = 1\ndirection = \"uplink\""));
}

#[test]
fn a_run_checks_its_scenario_once_into_typed_flows() {
    use crate::scheme::params::FlowParams;
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("s.toml");
    std::fs::write(&path, GOOD).unwrap();
    let checks = |f: &dyn Fn() -> CheckedScenario| {
        CHECKS.with(|c| c.set(0));
        let checked = f();
        (CHECKS.with(|c| c.get()), checked)
    };
    let flags = RunFlags {
        scheme: Some("c2tcp".into()),
        target_ms: Some(40.0),
        set: vec![("alpha".into(), toml::Value::Float(2.0))],
        queue: Some("droptail:packets=50".into()),
        ..Default::default()
    };
    let (n, checked) = checks(&|| flags.scenario(Some(&path)).unwrap());
    assert_eq!(n, 1, "c2tcp run checks its scenario once");
    for f in checked.flows() {
        let FlowParams::Tcp(t) = &f.params else {
            panic!("{:?}", f.params)
        };
        assert_eq!(
            (t.c2tcp.target_us, t.c2tcp.alpha_pct),
            (Some(40_000), Some(200))
        );
    }
    assert_eq!(checked.downlink_queue().to_string(), "droptail:packets=50");
    let lone = RunFlags {
        downlink: Some("constant:12".into()),
        ..Default::default()
    };
    let (n, checked) = checks(&|| lone.scenario(None).unwrap());
    assert_eq!((n, checked.flows()[0].scheme.name.as_str()), (1, "c2tcp"));
    // A file's mistake names the file (and that flags changed it).
    let e = format!(
        "{:#}",
        flags
            .scenario(Some(&tmp.path().join("none.toml")))
            .unwrap_err()
    );
    assert!(
        e.contains("reading scenario") && e.contains("none.toml"),
        "{e}"
    );
    std::fs::write(&path, GOOD.replace("delay_ms = 10", "delay_ms = -1")).unwrap();
    let e = format!("{:#}", flags.scenario(Some(&path)).unwrap_err());
    assert!(
        e.contains("s.toml with the flags given") && e.contains("link.delay_ms"),
        "{e}"
    );
    let e = format!(
        "{:#}",
        RunFlags::default().scenario(Some(&path)).unwrap_err()
    );
    assert!(
        e.contains("in scenario") && !e.contains("flags given"),
        "{e}"
    );
}

#[test]
fn the_namespaces_sysctls_have_one_value_each() {
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("plan-test-ecn.toml");
    std::fs::write(
        &file,
        "kind = \"kernel\"\ncc = \"cubic\"\n[knobs.ecn]\nabout = \"tcp_ecn\"\nmin = 0\nmax = 2\ndefault = 1\nsysctl = \"net.ipv4.tcp_ecn\"\n",
    )
    .unwrap();
    crate::scheme::file::add(&[file]).unwrap();
    let one =
        format!("{BASE}[[flows]]\nscheme = \"plan-test-ecn\"\n[[flows]]\nscheme = \"cubic\"\n");
    assert_eq!(
        needs(&scenario(&one)).sysctls,
        [("net.ipv4.tcp_ecn", "1".to_string())]
    );
    let two = format!("{BASE}[[flows]]\nscheme = \"plan-test-ecn\"\n[[flows]]\nscheme = \"plan-test-ecn\"\necn = 2\n");
    let e = err(&two);
    assert!(
        e.contains("flows[1].ecn") && e.contains("net.ipv4.tcp_ecn = 2") && e.contains("flows[0]"),
        "{e}"
    );
    let against_aqm =
        format!("{BASE}[[flows]]\nscheme = \"plan-test-ecn\"\necn = 2\n[[flows]]\nscheme = \"cubic-codel-ecn\"\n");
    let e = err(&against_aqm);
    assert!(
        e.contains("net.ipv4.tcp_ecn = 2") && e.contains("cubic-codel-ecn"),
        "{e}"
    );
}

/// A NetAssisted flow's knobs set the run's one NetAssist over the
/// scenario's `[netassist]`; flows that give different ones are refused.
#[test]
fn netassisted_flows_set_the_runs_netassist_and_must_agree() {
    use netassist::meter::Feedback;
    let none = CheckedScenario::parse(&format!("{BASE}[[flows]]\nscheme = \"cubic\"\n"));
    assert!(none.unwrap().netassist().is_none());
    let section = "[netassist]\nperiod_ms = 20\nfeedback = \"carry\"\n";
    let default =
        CheckedScenario::parse(&format!("{BASE}[[flows]]\nscheme = \"natcp\"\n{section}")).unwrap();
    let o = default.netassist().unwrap();
    assert_eq!(
        (o.feedback, o.natcp_headroom, o.period_ms),
        (Feedback::Carry, true, 20.0)
    );
    let set = CheckedScenario::parse(&format!(
        "{BASE}[[flows]]\nscheme = \"natcp\"\nfeedback = \"replay\"\nheadroom = 0\n[[flows]]\nscheme = \"nacubic\"\nfeedback = \"replay\"\n{section}"
    ))
    .unwrap();
    let o = set.netassist().unwrap();
    assert_eq!(
        (o.feedback, o.natcp_headroom, o.natcp_maxdelay, o.period_ms),
        (Feedback::Replay, false, false, 20.0)
    );
    let capped = CheckedScenario::parse(&format!(
        "{BASE}[[flows]]\nscheme = \"natcp\"\nmaxdelay = 1\n{section}"
    ))
    .unwrap();
    let o = capped.netassist().unwrap();
    assert_eq!((o.natcp_headroom, o.natcp_maxdelay), (true, true));
    let e = CheckedScenario::parse(&format!(
        "{BASE}[[flows]]\nscheme = \"natcp\"\nfeedback = \"replay\"\n[[flows]]\nscheme = \"tg\"\nfeedback = \"live\"\n"
    ))
    .unwrap_err();
    let e = format!("{e:#}");
    assert!(
        e.contains("flows[1].feedback") && e.contains("must agree"),
        "{e}"
    );
    let e = CheckedScenario::parse(&format!(
        "{BASE}[[flows]]\nscheme = \"natcp\"\nfeedback = \"oracle\"\n"
    ))
    .unwrap_err();
    assert!(format!("{e:#}").contains("live, carry, replay"), "{e:#}");
    // NACubic has no headroom to switch, nor a delay cap.
    for knob in ["headroom = 0", "maxdelay = 1"] {
        assert!(CheckedScenario::parse(&format!(
            "{BASE}[[flows]]\nscheme = \"nacubic\"\n{knob}\n"
        ))
        .is_err());
    }
}
