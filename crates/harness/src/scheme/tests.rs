// SPDX-License-Identifier: GPL-2.0-only
//! The registry's tests: built-in lookups, knobs, AQM queues, scheme files, --set.
use std::collections::BTreeMap;

use super::*;
use emu::queue::{Abc, CoDel, DualPi2, FqCodel, L4sCell, L4sRamp, Pie, QueueKind};
use emu::QueueSpec;
use params::FlowParams;

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
    let tg = lookup("tg").unwrap();
    assert_eq!(
        (tg.sender_cc(), tg.needs_bpf(), tg.needs_netassist()),
        (Some("tg"), Some("tg"), true)
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
            cc: "cubic".into(),
            sender: Some(Box::new(Kind::Kernel { cc: "cubic" })),
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
    let rule = |name: &str, p: &BTreeMap<String, toml::Value>| {
        lookup(name)
            .unwrap()
            .resolve_params(p)
            .map(|r| r.receiver_rule())
    };
    let mut p = BTreeMap::new();
    assert_eq!(rule("cubic", &p).unwrap(), None);
    p.insert("gamma_max".to_string(), toml::Value::Integer(20));
    p.insert("gamma_k".to_string(), toml::Value::Float(5.0));
    let Some(rxctl::Rule::Dfcsd(d)) = rule("dfcsd+bbr", &p).unwrap() else {
        panic!()
    };
    assert_eq!((d.gamma_max, d.gamma_min, d.k), (20.0, 2.0, 5.0));
    p.insert("gamma_min".to_string(), toml::Value::Integer(30));
    let e = rule("dfcsd", &p).unwrap_err().to_string();
    assert!(e.contains("gamma_min") && e.contains("gamma_max"), "{e}");
    let q = BTreeMap::from([("drwa_lambda".to_string(), toml::Value::Integer(2))]);
    let Some(rxctl::Rule::Drwa(w)) = rule("drwa", &q).unwrap() else {
        panic!()
    };
    assert_eq!(w.lambda, 2.0);
    let r = BTreeMap::from([("rtac_max_th".to_string(), toml::Value::Integer(20))]);
    let Some(rxctl::Rule::Rtac(t)) = rule("rtac+bbr", &r).unwrap() else {
        panic!("rtac+bbr is RTAC")
    };
    assert_eq!((t.min_th, t.max_th, t.max_p), (5.0, 20.0, 0.1));
    let bad = BTreeMap::from([("rtac_min_th".to_string(), toml::Value::Integer(20))]);
    assert!(rule("rtac", &bad).is_err());
    // Where the RTT comes from: the timestamp echo unless told.
    let rtt = |name: &str, p: &BTreeMap<String, toml::Value>| {
        lookup(name)
            .unwrap()
            .resolve_params(p)
            .map(|r| r.receiver().map(|(_, s)| s))
    };
    assert_eq!(
        rtt("dfcsd", &BTreeMap::new()).unwrap(),
        Some(rxctl::RttSource::TimestampEcho)
    );
    let span = BTreeMap::from([(
        "rtt_source".to_string(),
        toml::Value::String("window_span".into()),
    )]);
    assert_eq!(
        rtt("rtac+bbr", &span).unwrap(),
        Some(rxctl::RttSource::WindowSpan)
    );
    let typo = BTreeMap::from([("rtt_source".to_string(), toml::Value::String("span".into()))]);
    let e = rtt("drwa", &typo).unwrap_err().to_string();
    assert!(e.contains("window_span"), "{e}");
    assert!(lookup("cubic").unwrap().resolve_params(&span).is_err());
    assert!(lookup("rtac+").is_err() && names().contains(&"rtac+<cc>".to_string()));
}

#[test]
fn a_flows_parameters_resolve_into_typed_values_in_the_options_units() {
    use params::{C2tcpOptions, FlowParams};
    let given = BTreeMap::from([
        ("target_ms".to_string(), toml::Value::Float(50.4)),
        ("alpha".to_string(), toml::Value::Float(1.5)),
        ("variant".to_string(), toml::Value::String("paper".into())),
        ("blind_window".to_string(), toml::Value::Integer(1)),
    ]);
    let FlowParams::Tcp(t) = lookup("c2tcp").unwrap().resolve_params(&given).unwrap() else {
        panic!("c2tcp is a TCP scheme")
    };
    let mut v = sockopt::Variant::PAPER;
    v.on |= sockopt::variant::BEHAVIOURS[0].1;
    assert_eq!(
        t.c2tcp,
        C2tcpOptions {
            target_us: Some(50_400),
            alpha_pct: Some(150),
            variant: Some(v)
        }
    );
    assert_eq!((t.receiver_rule, t.sysctls.len()), (None, 0));
    // The same knobs through a receiver-side scheme's sender.
    let FlowParams::Tcp(r) = lookup("dfcsd+c2tcp")
        .unwrap()
        .resolve_params(&given)
        .unwrap()
    else {
        panic!()
    };
    assert_eq!(r.c2tcp, t.c2tcp);
    assert!(matches!(r.receiver_rule, Some(rxctl::Rule::Dfcsd(_))));
    let sprout = BTreeMap::from([("rtt_lookahead".to_string(), toml::Value::Integer(0))]);
    let FlowParams::Sprout(s) = lookup("sprout").unwrap().resolve_params(&sprout).unwrap() else {
        panic!()
    };
    assert!(s.paper_window && s.confidence.is_none() && !s.authors_sender);
    let word = |k: &str, v: &str| BTreeMap::from([(k.to_string(), toml::Value::String(v.into()))]);
    let FlowParams::Sprout(s) = lookup("sprout-ewma")
        .unwrap()
        .resolve_params(&word("sender", "authors"))
        .unwrap()
    else {
        panic!()
    };
    assert!(s.authors_sender && !s.paper_window);
    let mut both = word("sender", "authors");
    both.insert("rtt_lookahead".into(), toml::Value::Integer(1));
    let e = lookup("sprout").unwrap().resolve_params(&both).unwrap_err();
    assert!(format!("{e:#}").contains("no look-ahead"), "{e:#}");
    assert!(lookup("sprout")
        .unwrap()
        .resolve_params(&word("sender", "alfalfa"))
        .is_err());
    let FlowParams::Tcp(n) = lookup("nacubic")
        .unwrap()
        .resolve_params(&word("feedback", "replay"))
        .unwrap()
    else {
        panic!()
    };
    assert_eq!(
        n.netassist.feedback,
        Some(netassist::meter::Feedback::Replay)
    );
    let gcc = BTreeMap::from([("max_kbps".to_string(), toml::Value::Float(1999.6))]);
    let FlowParams::WebrtcGcc(g) = lookup("webrtc-gcc").unwrap().resolve_params(&gcc).unwrap()
    else {
        panic!()
    };
    assert_eq!((g.max_kbps, g.fps), (Some(2000), None));
    assert_eq!(
        lookup("verus")
            .unwrap()
            .resolve_params(&BTreeMap::new())
            .unwrap(),
        FlowParams::None
    );
    // Checked first: a bad value never resolves.
    let bad = BTreeMap::from([("target_ms".to_string(), toml::Value::Float(0.2))]);
    assert!(lookup("c2tcp").unwrap().resolve_params(&bad).is_err());
}

#[test]
fn aqm_schemes_keep_the_scenario_queue_limit() {
    let q = |s: &str| s.parse::<QueueSpec>().unwrap();
    let over = |scheme: &str, queue: &str, p: &BTreeMap<String, toml::Value>| {
        lookup(scheme)
            .unwrap()
            .queue_override(&q(queue), true, p)
            .unwrap()
            .map(|q| q.to_string())
    };
    assert_eq!(
        over("cubic-codel-ecn", "droptail:packets=100", &BTreeMap::new()).as_deref(),
        Some("codel:target=5,interval=100,ecn=1,packets=100")
    );
    assert_eq!(
        over("cubic-fq-codel", "droptail:packets=100", &BTreeMap::new()).as_deref(),
        Some("fq_codel:target=5,interval=100,packets=100")
    );
    assert_eq!(
        over("abc", "droptail:packets=250", &BTreeMap::new()).as_deref(),
        Some("abc:qdelay_ref=50,delta=133.333,packets=250")
    );
    // ABC marks the downlink only: its ACKs cross the scenario's uplink queue.
    let abc = lookup("abc").unwrap();
    assert_eq!(
        abc.queue_override(&q("droptail:packets=250"), false, &BTreeMap::new())
            .unwrap(),
        None
    );
    assert_eq!(
        (abc.sender_cc(), abc.needs_bpf(), abc.receiver_cc()),
        (Some("abc"), Some("abc"), Some("abc"))
    );
    assert_eq!(lookup("cubic-codel-ecn").unwrap().host_ecn(), Some(1));
    assert_eq!(lookup("cubic-codel").unwrap().host_ecn(), None);
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
    assert_eq!(
        over("cubic", "droptail:packets=100", &BTreeMap::new()),
        None
    );
    p.insert("pie_max_burst_ms".to_string(), toml::Value::Integer(0));
    let e = lookup("cubic-pie")
        .unwrap()
        .queue_override(&q("infinite"), false, &p)
        .unwrap_err();
    assert!(format!("{e:#}").contains("pie_max_burst_ms"), "{e:#}");
}

#[test]
fn aqm_knobs_are_the_queues_arguments_with_their_defaults_and_ranges() {
    for (name, aqm) in [
        ("cubic-codel", QueueKind::of::<CoDel>()),
        ("cubic-codel-ecn", QueueKind::of::<CoDel>()),
        ("cubic-pie", QueueKind::of::<Pie>()),
        ("cubic-fq-codel", QueueKind::of::<FqCodel>()),
        ("abc", QueueKind::of::<Abc>()),
        ("cubic-dualpi2", QueueKind::of::<DualPi2>()),
        ("prague-dualpi2", QueueKind::of::<DualPi2>()),
        ("prague-l4s-ramp", QueueKind::of::<L4sRamp>()),
        ("prague-l4s-cell", QueueKind::of::<L4sCell>()),
        ("cubic-l4s-ramp", QueueKind::of::<L4sRamp>()),
        ("prague-codel-ecn", QueueKind::of::<CoDel>()),
    ] {
        let s = lookup(name).unwrap();
        assert_eq!(s.kind.queue().map(|(q, _)| q), Some(aqm), "{name}");
        assert_eq!(s.knobs.len(), aqm.args().len(), "{name}");
        for (arg, k) in aqm.args().iter().zip(&s.knobs) {
            assert_eq!(k.name, queue_knobs::name(aqm, arg));
            assert!(
                k.about.contains(&format!("(default {})", arg.default)),
                "{}: {}",
                k.name,
                k.about
            );
            assert_eq!((k.min, k.max), (arg.min, arg.max), "{}", k.name);
        }
    }
    assert_eq!(
        lookup("cubic-codel").unwrap().knobs[0].name,
        "codel_target_ms"
    );
    assert_eq!(
        lookup("cubic-dualpi2").unwrap().knobs[5].name,
        "dualpi2_alpha"
    );
    assert_eq!(
        lookup("prague-l4s-cell").unwrap().knobs[0].name,
        "l4s_cell_law"
    );
}

// ---- scheme files ----

fn parse_file(name: &str, text: &str) -> anyhow::Result<file::FileScheme> {
    file::parse(&file::Carried {
        path: std::path::PathBuf::from(format!("/my/schemes/{name}")),
        text: text.to_string(),
    })
}

fn file_err(name: &str, text: &str) -> String {
    format!("{:#}", parse_file(name, text).unwrap_err())
}

#[test]
fn the_kernels_schemes_are_files() {
    for cc in ["cubic", "bbr", "reno"] {
        let s = lookup(cc).unwrap();
        assert_eq!(s.kind, Kind::Kernel { cc }, "{cc}");
        assert!(s.knobs.is_empty());
    }
}

#[test]
fn each_kind_of_file_reads_into_its_scheme() {
    let k = parse_file("htcp-ish.toml", "kind = \"kernel\"\ncc = \"reno\"\n").unwrap();
    assert_eq!(k.scheme.name, "htcp-ish");
    assert_eq!(k.scheme.kind, Kind::Kernel { cc: "reno" });
    let c = parse_file(
        "quic.toml",
        r#"
name = "my-quic"
kind = "command"
receiver = "server --listen {addr}:{port} --log '{out}/server log'"
sender = "client {addr} {port} -t {duration} --rate {rate_mbps} {{literal}}"
[knobs.rate_mbps]
about = "send rate"
min = 1
max = 100
default = 12
"#,
    )
    .unwrap();
    assert_eq!(c.scheme.name, "my-quic");
    assert!(
        c.scheme.takes("rate_mbps") && !c.scheme.takes_size() && c.scheme.sender_cc().is_none()
    );
    let Kind::Command(spec) = &c.scheme.kind else {
        panic!("{:?}", c.scheme.kind)
    };
    assert_eq!(
        spec.receiver,
        [
            "server",
            "--listen",
            "{addr}:{port}",
            "--log",
            "{out}/server log"
        ]
    );
    let FlowParams::Command(knobs) = c.scheme.resolve_params(&BTreeMap::new()).unwrap() else {
        panic!("a command scheme's parameters are its placeholders")
    };
    assert_eq!(knobs.value("rate_mbps"), Some("12"));
    let given = BTreeMap::from([("rate_mbps".to_string(), toml::Value::Float(20.5))]);
    let FlowParams::Command(knobs) = c.scheme.resolve_params(&given).unwrap() else {
        panic!()
    };
    assert_eq!(knobs.value("rate_mbps"), Some("20.5"));
    let filled = file::substitute(&spec.sender[7], &|_| None).unwrap();
    assert_eq!(filled, "{literal}");
    let b = parse_file(
        "ex.toml",
        &format!(
            "kind = \"bpf\"\ncc = \"c2t_example\"\nobject = \"{}\"\n",
            bpfload::EXAMPLE_OBJECT
        ),
    )
    .unwrap();
    let o = b.scheme.needs_object().unwrap();
    assert_eq!(
        (o.cc.as_str(), b.scheme.sender_cc()),
        ("c2t_example", Some("c2t_example"))
    );
}

#[test]
fn a_bad_scheme_file_is_refused_naming_file_line_and_field() {
    let e = file_err("a.toml", "kind = \"kernel\"\n\nkind2 = 1\ncc = \"reno\"\n");
    assert!(
        e.contains("/my/schemes/a.toml") && e.contains("line 3") && e.contains("kind2"),
        "{e}"
    );
    let e = file_err("b.toml", "cc = \"reno\"\nkind = \"userspace\"\n");
    assert!(
        e.contains("/my/schemes/b.toml:2: kind") && e.contains("unknown kind `userspace`"),
        "{e}"
    );
    let e = file_err("c.toml", "kind = \"command\"\nreceiver = \"srv {port}\"\n");
    assert!(
        e.contains("/my/schemes/c.toml: sender") && e.contains("needs `sender`"),
        "{e}"
    );
    let e = file_err(
        "d.toml",
        "kind = \"command\"\nreceiver = \"srv {port}\"\n\nsender = \"cli {adr} {port}\"\n",
    );
    assert!(
        e.contains("/my/schemes/d.toml:4: sender") && e.contains("unknown placeholder `{adr}`"),
        "{e}"
    );
    let e = file_err(
        "e.toml",
        "kind = \"bpf\"\ncc = \"mine\"\nobject = \"nowhere/mine.bpf.o\"\n",
    );
    assert!(
        e.contains("/my/schemes/e.toml:3: object")
            && e.contains("/my/schemes/nowhere/mine.bpf.o: no such file"),
        "{e}"
    );
    let e = file_err(
        "f.toml",
        &format!(
            "kind = \"bpf\"\ncc = \"mine\"\nobject = \"{}\"\n",
            bpfload::NOT_A_CC_OBJECT
        ),
    );
    assert!(
        e.contains("f.toml:3: object") && e.contains("no struct_ops map"),
        "{e}"
    );
    let e = file_err("c2tcp.toml", "kind = \"kernel\"\ncc = \"reno\"\n");
    assert!(
        e.contains("c2tcp.toml: name") && e.contains("built-in"),
        "{e}"
    );
    let e = file_err(
        "g.toml",
        "kind = \"kernel\"\ncc = \"reno\"\nsender = \"x\"\n",
    );
    assert!(
        e.contains("g.toml:3: sender") && e.contains("takes no `sender`"),
        "{e}"
    );
    let e = file_err(
        "h.toml",
        "kind = \"bpf\"\ncc = \"vegas\"\nobject = \"x.bpf.o\"\n",
    );
    assert!(
        e.contains("h.toml:2: cc") && e.contains("c2tcp's own"),
        "{e}"
    );
}

#[test]
fn knob_settings_parse_as_a_scenario_file_would_give_them() {
    use crate::plan::parse_knob_setting as p;
    assert_eq!(
        p("target_ms=50").unwrap(),
        ("target_ms".into(), toml::Value::Integer(50))
    );
    assert_eq!(
        p("alpha=1.5").unwrap(),
        ("alpha".into(), toml::Value::Float(1.5))
    );
    assert_eq!(
        p("variant=paper").unwrap(),
        ("variant".into(), toml::Value::String("paper".into()))
    );
    assert_eq!(
        p("variant=\"jsac\"").unwrap().1,
        toml::Value::String("jsac".into())
    );
    assert!(p("variant").is_err() && p("=3").is_err() && p("a b=3").is_err());
}

const ECN_CUBIC: &str = r#"
kind = "kernel"
cc = "cubic"
summary = "Cubic asking for ECN"
[knobs.ecn]
about = "net.ipv4.tcp_ecn of the run's namespaces: 1 asks for ECN"
min = 0
max = 2
default = 1
sysctl = "net.ipv4.tcp_ecn"
[knobs.notsent_lowat]
about = "net.ipv4.tcp_notsent_lowat, bytes"
min = 1
max = 1000000
sysctl = "net.ipv4.tcp_notsent_lowat"
"#;

#[test]
fn a_kernel_schemes_knobs_set_per_namespace_sysctls() {
    let k = parse_file("ecn-cubic.toml", ECN_CUBIC).unwrap().scheme;
    let sysctls = |given: &[(&str, toml::Value)]| -> anyhow::Result<Vec<(&str, String)>> {
        let given = given
            .iter()
            .map(|(k, v)| (k.to_string(), v.clone()))
            .collect();
        let p = k.resolve_params(&given)?;
        Ok(p.sysctls()
            .iter()
            .map(|s| (s.name, s.value.clone()))
            .collect())
    };
    // The default where the flow gives none; a knob without one is left alone.
    assert_eq!(
        sysctls(&[]).unwrap(),
        [("net.ipv4.tcp_ecn", "1".to_string())]
    );
    assert_eq!(
        sysctls(&[
            ("ecn", toml::Value::Integer(2)),
            ("notsent_lowat", toml::Value::Integer(16384))
        ])
        .unwrap(),
        [
            ("net.ipv4.tcp_ecn", "2".to_string()),
            ("net.ipv4.tcp_notsent_lowat", "16384".to_string())
        ]
    );
    let e = format!(
        "{:#}",
        sysctls(&[("ecn", toml::Value::Float(1.5))]).unwrap_err()
    );
    assert!(e.contains("ecn") && e.contains("whole number"), "{e}");
    let e = format!(
        "{:#}",
        sysctls(&[("ecn", toml::Value::Integer(3))]).unwrap_err()
    );
    assert!(e.contains("ecn: 3 is out of range [0, 2]"), "{e}");
    // A knob of a kernel scheme is never a C2TCP option, whatever its name.
    let named = ECN_CUBIC.replace("[knobs.ecn]", "[knobs.target_ms]");
    let t = parse_file("t.toml", &named).unwrap().scheme;
    let given = BTreeMap::from([("target_ms".to_string(), toml::Value::Integer(2))]);
    let FlowParams::Tcp(p) = t.resolve_params(&given).unwrap() else {
        panic!()
    };
    assert_eq!(
        (p.c2tcp.target_us, p.sysctls[0].value.as_str()),
        (None, "2")
    );
}

#[test]
fn a_sysctl_knob_is_a_network_sysctl_this_kernel_has() {
    let e = file_err(
        "a.toml",
        &ECN_CUBIC.replace("net.ipv4.tcp_ecn", "kernel.pid_max"),
    );
    assert!(
        e.contains("a.toml:5: knobs.ecn.sysctl") && e.contains("not a network sysctl"),
        "{e}"
    );
    let e = file_err(
        "b.toml",
        &ECN_CUBIC.replace("net.ipv4.tcp_ecn", "net.ipv4.tcp_nonsense"),
    );
    assert!(
        e.contains("b.toml:5: knobs.ecn.sysctl") && e.contains("no such sysctl"),
        "{e}"
    );
    let e = file_err("c.toml", &ECN_CUBIC.replace("max = 2", "max = 2.5"));
    assert!(
        e.contains("c.toml:5: knobs.ecn.sysctl") && e.contains("whole numbers"),
        "{e}"
    );
    let e = file_err(
        "d.toml",
        &ECN_CUBIC.replace("sysctl = \"net.ipv4.tcp_ecn\"\n", ""),
    );
    assert!(
        e.contains("d.toml:5: knobs.ecn") && e.contains("give `sysctl`"),
        "{e}"
    );
    let cmd = "kind = \"command\"\nreceiver = \"r\"\nsender = \"s\"\n[knobs.x]\nabout = \"x\"\nmin = 0\nmax = 1\nsysctl = \"net.ipv4.tcp_ecn\"\n";
    let e = file_err("e.toml", cmd);
    assert!(
        e.contains("e.toml:4: knobs.x") && e.contains("placeholder, not a sysctl"),
        "{e}"
    );
}
