// SPDX-License-Identifier: GPL-2.0-only
//! The claims evaluator on small synthetic bench parts with known numbers:
//! a claim that holds, one that does not, one whose runs are missing, the
//! sweep quantities (spread, growth, tracking, interpolation), an ambiguous
//! selector, and the files written.
use std::path::Path;

use metrics::{Analysis, Metrics};
use report::claims::{self, Verdict};
use report::{run_dir, RunId, RunInfo, RunStatus};

fn add_run(part: &Path, trace: &str, scheme: &str, params: &[(&str, f64)], tput: f64, delay: f64) {
    let params = params
        .iter()
        .map(|(k, v)| (k.to_string(), serde_json::json!(v)))
        .collect();
    let mut info = RunInfo::started(RunId::new("test", scheme, trace, params, 0));
    info.status = RunStatus::Done;
    let dir = run_dir(part, trace, scheme, &info.label, 0);
    info.write(&dir).unwrap();
    let m = Metrics {
        throughput_mbps: tput,
        capacity_mbps: 10.0,
        avg_queue_delay_ms: Some(delay),
        avg_rtt_ms: Some(delay + 20.0),
        ..Metrics::default()
    };
    let a = Analysis {
        format: metrics::FORMAT.into(),
        aggregate: m,
        ..Analysis::default()
    };
    results::write_analysis(&dir, &a).unwrap();
}

const FILE: &str = "paper = \"p\"\ntitle = \"A paper\"\n";

fn claim(id: &str, bench: &str, check: &str) -> String {
    format!(
        "[[claim]]\nid = \"{id}\"\nsection = \"§1\"\nstatement = \"s\"\nbench = \"{bench}\"\n[[claim.check]]\n{check}\n"
    )
}

fn evaluate(root: &Path, claims_text: &str) -> Vec<claims::ClaimResult> {
    let file = claims::parse(claims_text, Path::new("t.toml")).unwrap();
    claims::evaluate(root, &[file]).unwrap()
}

/// Table-I-like part: Cubic's delay 5× and 8× C2TCP's on two traces.
fn table_part(root: &Path) {
    let p = root.join("table");
    add_run(&p, "A", "c2tcp", &[], 4.0, 20.0);
    add_run(&p, "A", "cubic", &[], 5.0, 100.0);
    add_run(&p, "B", "c2tcp", &[], 2.0, 10.0);
    add_run(&p, "B", "cubic", &[], 3.0, 80.0);
}

const RATIO: &str = "what = \"ratio\"\nmetric = \"avg_queue_delay_ms\"\nof = { scheme = \"cubic\" }\nto = { scheme = \"c2tcp\" }\n";

#[test]
fn holds_differs_and_not_run() {
    let tmp = tempfile::tempdir().unwrap();
    table_part(tmp.path());
    let text = [
        FILE.to_string(),
        claim("mean-holds", "table", &format!("{RATIO}at_least = 6")),
        claim("min-differs", "table", &format!("{RATIO}across = \"min\"\nat_least = 6")),
        claim("no-verus", "table", "what = \"ratio\"\nmetric = \"avg_queue_delay_ms\"\nof = { scheme = \"verus\" }\nto = { scheme = \"c2tcp\" }\nat_least = 1"),
        claim("no-part", "absent", &format!("{RATIO}at_least = 1")),
        claim("no-metric", "table", "what = \"value\"\nmetric = \"jitter_ms\"\nof = { scheme = \"cubic\" }\nat_most = 1"),
    ]
    .concat();
    let r = evaluate(tmp.path(), &text);
    let v: Vec<(&str, Verdict, Option<f64>)> = r
        .iter()
        .map(|c| (c.id.as_str(), c.verdict, c.checks[0].value))
        .collect();
    // Mean of 5 and 8 is 6.5; the smaller is 5.
    assert_eq!(v[0], ("mean-holds", Verdict::Holds, Some(6.5)));
    assert_eq!(v[1], ("min-differs", Verdict::Differs, Some(5.0)));
    assert_eq!(
        r[0].checks[0].per_trace,
        vec![("A".into(), 5.0), ("B".into(), 8.0)]
    );
    assert_eq!(v[2].1, Verdict::NotRun);
    let why = r[2].checks[0].reason.as_deref().unwrap();
    assert!(why.contains("no finished runs of verus"), "{why}");
    assert_eq!(v[3].1, Verdict::NotRun);
    assert!(r[3].checks[0]
        .reason
        .as_deref()
        .unwrap()
        .contains("no bench part"));
    assert_eq!(
        v[4].1,
        Verdict::NotRun,
        "an undefined metric is not a measurement"
    );

    let out = tmp.path().join("out");
    let file = claims::parse(&text, Path::new("t.toml")).unwrap();
    let w = claims::write(&out, tmp.path(), &[file], &r).unwrap();
    let md = std::fs::read_to_string(&w.markdown).unwrap();
    assert!(md.contains("| mean-holds: s | §1 | – | avg_queue_delay_ms: cubic ÷ c2tcp = 6.50 (want ≥ 6) | holds |"), "{md}");
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&w.json).unwrap()).unwrap();
    assert_eq!(json["tally"]["holds"], 1);
    assert_eq!(json["tally"]["not-run"], 3);
    assert!(std::fs::read_to_string(&w.html)
        .unwrap()
        .contains("<table>"));
}

/// A sweep part: C2TCP over Targets 25, 50, 75 (RTT 30, 50, 90 ms;
/// throughput 2, 3, 4), CoDel at 40 ms queueing delay and 2.5 Mbit/s, Cubic
/// over buffers (delay 20 → 200 ms).
fn sweep_part(root: &Path) {
    let p = root.join("sweep");
    for (t, rtt, tput) in [(25.0, 30.0, 2.0), (50.0, 50.0, 3.0), (75.0, 90.0, 4.0)] {
        add_run(&p, "A", "c2tcp", &[("target_ms", t)], tput, rtt - 20.0);
    }
    add_run(&p, "A", "cubic-codel", &[], 2.5, 20.0);
    for (b, d) in [(75e3, 20.0), (300e3, 90.0), (1.5e6, 200.0)] {
        add_run(&p, "A", "cubic", &[("buffer_bytes", b)], 5.0, d);
    }
}

#[test]
fn sweep_quantities() {
    let tmp = tempfile::tempdir().unwrap();
    sweep_part(tmp.path());
    let text = [
        FILE.to_string(),
        claim("spread", "sweep", "what = \"spread\"\nmetric = \"avg_queue_delay_ms\"\nof = { scheme = \"cubic\" }\nat_least = 10"),
        claim("growth", "sweep", "what = \"growth\"\nmetric = \"avg_queue_delay_ms\"\nof = { scheme = \"cubic\" }\nover = \"buffer_bytes\"\nat_least = 10"),
        claim("tracking", "sweep", "what = \"tracking\"\nmetric = \"avg_rtt_ms\"\nof = { scheme = \"c2tcp\" }\nover = \"target_ms\"\nat_most = 0.1"),
        // CoDel's 20 ms queueing delay lies between Targets 25 (10 ms) and
        // 50 (30 ms): C2TCP's throughput there is 2.5, CoDel's 2.5.
        claim("interp", "sweep", "what = \"interp\"\nmetric = \"throughput_mbps\"\nx_metric = \"avg_queue_delay_ms\"\nof = { scheme = \"c2tcp\" }\nto = { scheme = \"cubic-codel\" }\nat_least = 1"),
        claim("outside", "sweep", "what = \"interp\"\nmetric = \"throughput_mbps\"\nx_metric = \"avg_queue_delay_ms\"\nof = { scheme = \"c2tcp\" }\nto = { scheme = \"cubic\", params = { buffer_bytes = 1500000 } }\nat_least = 1"),
        claim("one-target", "sweep", "what = \"ratio\"\nmetric = \"throughput_mbps\"\nof = { scheme = \"c2tcp\", params = { target_ms = 75 } }\nto = { scheme = \"cubic-codel\" }\nat_least = 1.5"),
        claim("ambiguous", "sweep", "what = \"value\"\nmetric = \"throughput_mbps\"\nof = { scheme = \"c2tcp\" }\nat_least = 1"),
    ]
    .concat();
    let r = evaluate(tmp.path(), &text);
    let value = |i: usize| r[i].checks[0].value.unwrap();
    assert_eq!((r[0].verdict, value(0)), (Verdict::Holds, 10.0));
    assert_eq!((r[1].verdict, value(1)), (Verdict::Holds, 10.0));
    // |30-25|/25, 0, |90-75|/75 → mean (0.2 + 0 + 0.2) / 3.
    assert_eq!(r[2].verdict, Verdict::Differs);
    assert!((value(2) - 0.4 / 3.0).abs() < 1e-12, "{}", value(2));
    assert_eq!(r[3].verdict, Verdict::Holds);
    assert!((value(3) - 1.0).abs() < 1e-12, "{}", value(3));
    assert_eq!(
        r[4].verdict,
        Verdict::Differs,
        "200 ms is outside C2TCP's 10–70 ms"
    );
    assert!(r[4].checks[0]
        .reason
        .as_deref()
        .unwrap()
        .contains("outside"));
    assert_eq!((r[5].verdict, value(5)), (Verdict::Holds, 4.0 / 2.5));
    assert_eq!(r[6].verdict, Verdict::Error);
    assert!(r[6].checks[0]
        .reason
        .as_deref()
        .unwrap()
        .contains("matches 3 configurations"));
}

/// `across = "means"`: the mean of Cubic's delays over the mean of C2TCP's,
/// (100 + 80) ÷ (20 + 10) = 6, where the mean of the per-trace ratios (5
/// and 8) is 6.5: Sprout's "delay reduction (from avg. delay)". Anything
/// but a plain ratio is refused at parse.
#[test]
fn ratio_of_the_means() {
    let tmp = tempfile::tempdir().unwrap();
    table_part(tmp.path());
    let text = [
        FILE.to_string(),
        claim(
            "means",
            "table",
            &format!("{RATIO}across = \"means\"\nat_least = 6.2"),
        ),
    ]
    .concat();
    let r = evaluate(tmp.path(), &text);
    assert_eq!(r[0].checks[0].value, Some(6.0));
    assert_eq!(r[0].verdict, Verdict::Differs);
    assert!(r[0].checks[0].quantity.contains("means over traces"));
    assert_eq!(
        r[0].checks[0].per_trace,
        vec![("A".into(), 5.0), ("B".into(), 8.0)]
    );
    let bad = [
        FILE.to_string(),
        claim("spread", "table", "what = \"spread\"\nmetric = \"avg_queue_delay_ms\"\nof = { scheme = \"cubic\" }\nacross = \"means\"\nat_most = 2"),
    ]
    .concat();
    let err = format!(
        "{:#}",
        claims::parse(&bad, Path::new("t.toml")).unwrap_err()
    );
    assert!(err.contains("needs what = \"ratio\""), "{err}");
}
