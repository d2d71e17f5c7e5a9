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
    add_rep(part, trace, scheme, params, 0, tput, delay);
}

/// Repetition `rep` (0-based) of a configuration.
fn add_rep(
    part: &Path,
    trace: &str,
    scheme: &str,
    params: &[(&str, f64)],
    rep: u32,
    tput: f64,
    delay: f64,
) {
    let params = params
        .iter()
        .map(|(k, v)| (k.to_string(), serde_json::json!(v)))
        .collect();
    let mut info = RunInfo::started(RunId::new("test", scheme, trace, params, rep));
    info.status = RunStatus::Done;
    let dir = run_dir(part, trace, scheme, &info.label, rep);
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
        "[[claim]]\nid = \"{id}\"\nsection = \"§1\"\nstatement = \"s\"\npaper_figure = \"2×\"\nbench = \"{bench}\"\n[[claim.check]]\n{check}\n{}",
        if check.contains("paper =") { "" } else { "paper = \"its words\"\n" }
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
        claim("mean-holds", "table", &format!("{RATIO}at_least = 4")),
        claim("min-differs", "table", &format!("{RATIO}across = \"min\"\nat_least = 8")),
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
    assert!(md.contains("| mean-holds: s | §1 | 2× | avg_queue_delay_ms: cubic ÷ c2tcp = 6.50 [1 rep] (want ≥ 4); of 90 ÷ to 15 | holds |"), "{md}");
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
        claim("spread", "sweep", "what = \"spread\"\nmetric = \"avg_queue_delay_ms\"\nof = { scheme = \"cubic\" }\nat_least = 5"),
        claim("growth", "sweep", "what = \"growth\"\nmetric = \"avg_queue_delay_ms\"\nof = { scheme = \"cubic\" }\nover = \"buffer_bytes\"\nat_least = 5"),
        claim("tracking", "sweep", "what = \"tracking\"\nmetric = \"avg_rtt_ms\"\nof = { scheme = \"c2tcp\" }\nover = \"target_ms\"\nat_most = 0.1"),
        // CoDel's 20 ms queueing delay lies between Targets 25 (10 ms) and
        // 50 (30 ms): C2TCP's throughput there is 2.5, CoDel's 2.5.
        claim("interp", "sweep", "what = \"interp\"\nmetric = \"throughput_mbps\"\nx_metric = \"avg_queue_delay_ms\"\nof = { scheme = \"c2tcp\" }\nto = { scheme = \"cubic-codel\" }\nat_least = 0.5"),
        claim("outside", "sweep", "what = \"interp\"\nmetric = \"throughput_mbps\"\nx_metric = \"avg_queue_delay_ms\"\nof = { scheme = \"c2tcp\" }\nto = { scheme = \"cubic\", params = { buffer_bytes = 1500000 } }\nat_least = 1"),
        claim("one-target", "sweep", "what = \"ratio\"\nmetric = \"throughput_mbps\"\nof = { scheme = \"c2tcp\", params = { target_ms = 75 } }\nto = { scheme = \"cubic-codel\" }\nat_least = 1"),
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
            &format!("{RATIO}across = \"means\"\nat_least = 9"),
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

/// Three repetitions of Cubic and C2TCP on two traces, C2TCP's delay the
/// same in each: Cubic's ratio is (A) 5, 7, 9 and (B) 6, 8, 10 per
/// repetition, so the figure is 7.5 from the means and 5.5, 7.5, 9.5 from
/// each repetition alone.
fn repeated_part(root: &Path) {
    let p = root.join("reps");
    for (rep, (a, b)) in [(5.0, 6.0), (7.0, 8.0), (9.0, 10.0)]
        .into_iter()
        .enumerate()
    {
        let rep = rep as u32 + 1;
        add_rep(&p, "A", "c2tcp", &[], rep, 4.0, 10.0);
        add_rep(&p, "A", "cubic", &[], rep, 5.0, 10.0 * a);
        add_rep(&p, "B", "c2tcp", &[], rep, 2.0, 10.0);
        add_rep(&p, "B", "cubic", &[], rep, 3.0, 10.0 * b);
    }
}

/// A verdict uses every repetition: the figure from their means, the
/// spread from each alone, "close" where the spread straddles the bound;
/// and the spread reaches claims.md and claims.json.
#[test]
fn the_repetitions_spread_reaches_the_report() {
    let tmp = tempfile::tempdir().unwrap();
    repeated_part(tmp.path());
    let text = [
        FILE.to_string(),
        claim("clear", "reps", &format!("{RATIO}at_least = 3")),
        claim("close", "reps", &format!("{RATIO}at_least = 7\nnote = \"n\"")),
        claim("close-differs", "reps", &format!("{RATIO}at_least = 8")),
    ]
    .concat()
    // `note` belongs to the claim, not the check.
    .replace("[[claim.check]]\nwhat = \"ratio\"\nmetric = \"avg_queue_delay_ms\"\nof = { scheme = \"cubic\" }\nto = { scheme = \"c2tcp\" }\nat_least = 7\nnote = \"n\"",
             "note = \"n\"\n[[claim.check]]\nwhat = \"ratio\"\nmetric = \"avg_queue_delay_ms\"\nof = { scheme = \"cubic\" }\nto = { scheme = \"c2tcp\" }\nat_least = 7");
    let r = evaluate(tmp.path(), &text);
    let c = &r[0].checks[0];
    assert_eq!(
        (c.value, c.spread, c.reps),
        (Some(7.5), Some((5.5, 9.5)), 3)
    );
    assert_eq!((r[0].verdict, r[0].close), (Verdict::Holds, false));
    assert_eq!((r[1].verdict, r[1].close), (Verdict::Holds, true));
    assert_eq!((r[2].verdict, r[2].close), (Verdict::Differs, true));

    let out = tmp.path().join("out");
    let file = claims::parse(&text, Path::new("t.toml")).unwrap();
    let w = claims::write(&out, tmp.path(), &[file], &r).unwrap();
    let md = std::fs::read_to_string(&w.markdown).unwrap();
    assert!(
        md.contains("avg_queue_delay_ms: cubic ÷ c2tcp = 7.50 [5.50–9.50 over 3 reps] (want ≥ 7); of 75 ÷ to 10 | holds (close) |"),
        "{md}"
    );
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&w.json).unwrap()).unwrap();
    let check = &json["claims"][1]["checks"][0];
    assert_eq!(check["spread"], serde_json::json!([5.5, 9.5]));
    assert_eq!(check["reps"], 3);
    assert_eq!(json["claims"][1]["close"], true);
    // The bench report's per-trace table shows the repetitions' range too.
    let bench = report::build(
        &tmp.path().join("reps"),
        &report::ReportOptions {
            out_dir: Some(tmp.path().join("report")),
            plots: false,
            ..report::ReportOptions::default()
        },
    )
    .unwrap();
    let md = std::fs::read_to_string(&bench.markdown).unwrap();
    assert!(md.contains("70.0 (50.0–90.0)"), "{md}");
}

/// Within 25 % of its bound, a check on fewer than three repetitions is
/// not called either way; three settle it.
#[test]
fn a_check_near_its_bound_needs_three_repetitions() {
    let tmp = tempfile::tempdir().unwrap();
    table_part(tmp.path()); // one repetition: Cubic's ratio 6.5 on average
    repeated_part(tmp.path()); // three: 7.5
    let text = [
        FILE.to_string(),
        claim("near-one", "table", &format!("{RATIO}at_least = 6")),
        claim("far-one", "table", &format!("{RATIO}at_least = 4")),
        claim("near-three", "reps", &format!("{RATIO}at_least = 6")),
    ]
    .concat();
    let r = evaluate(tmp.path(), &text);
    assert_eq!(r[0].verdict, Verdict::Unsettled);
    let why = r[0].checks[0].reason.as_deref().unwrap();
    assert!(why.contains("needs 3"), "{why}");
    assert_eq!(r[1].verdict, Verdict::Holds);
    assert_eq!(r[2].verdict, Verdict::Holds);
}

/// A claim that differs must say why: evaluation marks one without a note
/// (`c2tcp claims` then exits 1, crates/cli/tests/claims.rs).
#[test]
fn a_differs_without_a_note_is_flagged() {
    let tmp = tempfile::tempdir().unwrap();
    table_part(tmp.path());
    let text = [
        FILE.to_string(),
        claim("silent", "table", &format!("{RATIO}at_least = 20")),
        claim("said", "table", &format!("{RATIO}at_least = 20")).replace(
            "bench = \"table\"",
            "bench = \"table\"\nnote = \"our Cubic's queue is shorter\"",
        ),
    ]
    .concat();
    let r = evaluate(tmp.path(), &text);
    assert_eq!(
        (r[0].verdict, r[1].verdict),
        (Verdict::Differs, Verdict::Differs)
    );
    assert!(r[0].unexplained() && !r[1].unexplained());
    let file = claims::parse(&text, Path::new("t.toml")).unwrap();
    let w = claims::write(&tmp.path().join("out"), tmp.path(), &[file], &r).unwrap();
    assert!(
        w.table_markdown.contains("differs, no note saying why"),
        "{}",
        w.table_markdown
    );
}

/// Our own questions are tallied apart from the papers' claims; a check can
/// read another part and a subset of traces.
#[test]
fn tally_keeps_our_questions_apart_and_checks_read_their_part_and_traces() {
    let tmp = tempfile::tempdir().unwrap();
    table_part(tmp.path());
    repeated_part(tmp.path());
    let text = [
        FILE.to_string(),
        claim("paper", "table", &format!("{RATIO}at_least = 2")),
        claim("ours", "table", &format!("{RATIO}at_least = 2"))
            .replace("paper_figure = \"2×\"", "ours = true"),
        claim(
            "elsewhere",
            "table",
            &format!("{RATIO}bench = \"reps\"\ntraces = [\"B\"]\nat_least = 2"),
        ),
    ]
    .concat();
    let r = evaluate(tmp.path(), &text);
    assert!(r[1].ours && !r[0].ours);
    // The reps part, trace B only: 6, 8, 10 → 8.
    assert_eq!(r[2].checks[0].value, Some(8.0));
    assert_eq!(r[2].checks[0].bench, "reps");
    assert_eq!(r[2].checks[0].per_trace, vec![("B".into(), 8.0)]);
    let papers = claims::tally(&r, false);
    assert_eq!(papers.get("holds"), Some(&2));
    assert_eq!(claims::tally(&r, true).get("holds"), Some(&1));
    let file = claims::parse(&text, Path::new("t.toml")).unwrap();
    let w = claims::write(&tmp.path().join("out"), tmp.path(), &[file], &r).unwrap();
    assert!(
        w.table_markdown.contains("each counted once: 2: 2 holds"),
        "{}",
        w.table_markdown
    );
    assert!(
        w.table_markdown.contains("apart: 1: 1 holds"),
        "{}",
        w.table_markdown
    );
    assert!(
        w.table_markdown.contains("ours (our question): s"),
        "{}",
        w.table_markdown
    );
}

/// Magnitude beside direction: a check with the paper's figure shows ours ÷
/// the paper's and a ratio's two components; a claim within its bounds but
/// more than 4× (or less than ¼) of the paper's figure "holds, magnitude
/// differs", tallied apart.
#[test]
fn magnitude_beside_direction() {
    let tmp = tempfile::tempdir().unwrap();
    table_part(tmp.path()); // Cubic ÷ C2TCP: 5 and 8, mean 6.5
    let text = [
        FILE.to_string(),
        claim(
            "near-paper",
            "table",
            &format!("{RATIO}paper = 2\nat_least = 1.414"),
        ),
        claim(
            "far-above",
            "table",
            &format!("{RATIO}paper = 1.5\nat_least = 1.225"),
        ),
        claim("words", "table", &format!("{RATIO}at_least = 1")),
    ]
    .concat();
    let r = evaluate(tmp.path(), &text);
    let c = &r[0].checks[0];
    assert_eq!(r[0].verdict, Verdict::Holds);
    assert_eq!((c.paper, c.magnitude), (Some(2.0), Some(3.25)));
    // Cubic's delays 100 and 80 (mean 90), C2TCP's 20 and 10 (mean 15).
    assert_eq!(c.components, Some((90.0, 15.0)));
    assert_eq!(r[1].verdict, Verdict::HoldsMagnitudeDiffers);
    let m = r[1].checks[0].magnitude.unwrap();
    assert!((m - 6.5 / 1.5).abs() < 1e-9, "{m}");
    assert_eq!(r[2].verdict, Verdict::Holds, "words carry no magnitude");
    assert_eq!(r[2].checks[0].magnitude, None);
    let t = claims::tally(&r, false);
    assert_eq!(
        (t.get("holds"), t.get("holds-magnitude-differs")),
        (Some(&2), Some(&1))
    );
    let file = claims::parse(&text, Path::new("t.toml")).unwrap();
    let w = claims::write(&tmp.path().join("out"), tmp.path(), &[file], &r).unwrap();
    let md = &w.table_markdown;
    assert!(
        md.contains("paper 1.50, ours ÷ paper 4.33; of 90 ÷ to 15"),
        "{md}"
    );
    assert!(md.contains("| holds, magnitude differs |"), "{md}");
    assert!(md.contains("2 holds, 1 holds, magnitude differs"), "{md}");
}

/// An unsettled claim whose figure is outside its bound would differ if
/// called: like a "differs", it needs a note.
#[test]
fn an_unsettled_claim_outside_its_bound_needs_a_note() {
    let tmp = tempfile::tempdir().unwrap();
    table_part(tmp.path()); // one repetition, ratio 6.5
    let text = [
        FILE.to_string(),
        claim("below", "table", &format!("{RATIO}at_least = 7")),
        claim("above", "table", &format!("{RATIO}at_least = 6")),
    ]
    .concat();
    let r = evaluate(tmp.path(), &text);
    assert_eq!(
        (r[0].verdict, r[1].verdict),
        (Verdict::Unsettled, Verdict::Unsettled)
    );
    assert!(!r[0].checks[0].within && r[1].checks[0].within);
    assert!(r[0].unexplained() && !r[1].unexplained());
}

/// Repetition `rep` of a two-flow run (a bulk download and a call, as
/// Sprout §5.7's): the aggregate carries both, each flow its own figures.
fn add_flows_rep(part: &Path, rep: u32, bulk_mbps: f64, call_mbps: f64, call_e2e_ms: f64) {
    let mut info = RunInfo::started(RunId::new(
        "test",
        "webrtc-gcc",
        "V",
        Default::default(),
        rep,
    ));
    info.status = RunStatus::Done;
    let dir = run_dir(part, "V", "webrtc-gcc", &info.label, rep);
    info.write(&dir).unwrap();
    let flow = |name: &str, tput: f64, e2e: Option<f64>| metrics::FlowMetrics {
        name: name.into(),
        metrics: Metrics {
            throughput_mbps: tput,
            e2e_delay_p95_ms: e2e,
            ..Metrics::default()
        },
        ..metrics::FlowMetrics::default()
    };
    let a = Analysis {
        format: metrics::FORMAT.into(),
        aggregate: Metrics {
            throughput_mbps: bulk_mbps + call_mbps,
            e2e_delay_p95_ms: Some(call_e2e_ms),
            ..Metrics::default()
        },
        flows: vec![
            flow("bulk", bulk_mbps, Some(call_e2e_ms)),
            flow("call", call_mbps, Some(call_e2e_ms)),
        ],
        ..Analysis::default()
    };
    results::write_analysis(&dir, &a).unwrap();
}

/// A plain ratio's `to` may read another part (`to.bench`), and a selector
/// one flow of a multi-flow run (`flow`): Sprout §5.7's "via Sprout ÷
/// direct" of the call's throughput and delay. The figure pairs the two
/// parts' runs by trace, its spread pairs their repetitions, a missing part
/// or flow is "not run" naming it.
#[test]
fn a_ratio_reads_its_two_sides_from_two_parts_and_one_flow() {
    let tmp = tempfile::tempdir().unwrap();
    let (direct, tunnel) = (tmp.path().join("direct"), tmp.path().join("tunnel"));
    // Direct: the bulk flow squeezes the call (0.1 and 0.05 Mbit/s, 6 s);
    // through the tunnel the call gets 0.5 and 0.4 Mbit/s at 0.2 s.
    add_flows_rep(&direct, 1, 8.0, 0.1, 6000.0);
    add_flows_rep(&direct, 2, 9.0, 0.05, 5000.0);
    add_flows_rep(&tunnel, 1, 4.0, 0.5, 200.0);
    add_flows_rep(&tunnel, 2, 3.0, 0.4, 100.0);
    std::fs::create_dir_all(tmp.path().join("empty")).unwrap();
    let call = |metric: &str| {
        format!("what = \"ratio\"\nmetric = \"{metric}\"\nof = {{ scheme = \"webrtc-gcc\", flow = \"call\" }}\nto = {{ scheme = \"webrtc-gcc\", flow = \"call\", bench = \"direct\" }}\n")
    };
    let text = [
        FILE.to_string(),
        claim(
            "call-throughput",
            "tunnel",
            &format!("{}paper = 6.28\nat_least = 3.14", call("throughput_mbps")),
        ),
        claim(
            "call-delay",
            "tunnel",
            &format!("{}paper = 0.028\nat_most = 0.056", call("e2e_delay_p95_ms")),
        ),
        claim(
            "bulk-throughput",
            "tunnel",
            &format!(
                "{}at_most = 0.67",
                call("throughput_mbps").replace("\"call\"", "\"bulk\"")
            ),
        ),
        claim(
            "no-direct",
            "tunnel",
            &format!(
                "{}at_least = 1",
                call("throughput_mbps").replace("\"direct\"", "\"absent\"")
            ),
        ),
        claim(
            "no-flow",
            "tunnel",
            &format!(
                "{}at_least = 1",
                call("throughput_mbps").replace("\"call\"", "\"video\"")
            ),
        ),
        claim(
            "empty-part",
            "empty",
            &format!("{}at_least = 1", call("throughput_mbps")),
        ),
    ]
    .concat();
    let r = evaluate(tmp.path(), &text);
    let near = |a: Option<f64>, b: f64| a.is_some_and(|a| (a - b).abs() < 1e-9);

    // The call's own throughput, not the aggregate's: 0.45 ÷ 0.075 = 6,
    // and from each repetition alone 0.5 ÷ 0.1 = 5 and 0.4 ÷ 0.05 = 8.
    let c = &r[0].checks[0];
    assert!(near(c.value, 6.0), "{c:?}");
    let (lo, hi) = c.spread.unwrap();
    assert!(near(Some(lo), 5.0) && near(Some(hi), 8.0), "{c:?}");
    let (of, to) = c.components.unwrap();
    assert!(near(Some(of), 0.45) && near(Some(to), 0.075), "{c:?}");
    assert_eq!((r[0].verdict, c.reps), (Verdict::Holds, 2));
    assert!(
        c.quantity
            .contains("webrtc-gcc [flow call] ÷ webrtc-gcc [flow call, in direct]"),
        "{}",
        c.quantity
    );
    assert_eq!(c.bench, "tunnel");
    // 150 ÷ 5500 = 0.027: held, and close to the paper's 0.028.
    assert!(
        near(r[1].checks[0].value, 150.0 / 5500.0),
        "{:?}",
        r[1].checks[0]
    );
    assert_eq!(r[1].verdict, Verdict::Holds);
    // The bulk flow: 3.5 ÷ 8.5 = 0.41 (the aggregates would give 3.95 ÷ 8.575).
    assert!(
        near(r[2].checks[0].value, 3.5 / 8.5),
        "{:?}",
        r[2].checks[0]
    );
    // A missing part or flow is not run, and says which.
    assert_eq!(r[3].verdict, Verdict::NotRun);
    let why = r[3].checks[0].reason.as_deref().unwrap();
    assert!(
        why.contains("no bench part") && why.contains("absent"),
        "{why}"
    );
    assert_eq!(r[4].verdict, Verdict::NotRun);
    let why = r[4].checks[0].reason.as_deref().unwrap();
    assert!(why.contains("no flow \"video\""), "{why}");
    // A part whose directory holds no finished run says so.
    assert_eq!(r[5].verdict, Verdict::NotRun);
    let why = r[5].checks[0].reason.as_deref().unwrap();
    assert_eq!(why, "in empty: no finished runs");
}

/// `--prior`: a claim reading two parts, evaluated first where only one
/// ran, then over a root holding only the other: the absent part's check is
/// carried from the first claims.json (naming its root), the claim judged on
/// both; a check reworded since (another bound) is not carried; and a
/// carried check is carried again with the root it first came from.
#[test]
fn a_prior_evaluation_fills_the_checks_of_absent_parts() {
    let first = tempfile::tempdir().unwrap();
    let second = tempfile::tempdir().unwrap();
    table_part(first.path());
    let p = second.path().join("other");
    add_run(&p, "A", "c2tcp", &[], 4.0, 20.0);
    add_run(&p, "A", "cubic", &[], 5.0, 25.0);
    let two_parts = |bound: &str| {
        [
            FILE.to_string(),
            claim(
                "two",
                "table",
                &format!("{RATIO}at_least = 2\npaper = \"its words\"\n[[claim.check]]\n{RATIO}bench = \"other\"\n{bound}\npaper = \"its words\""),
            ),
        ]
        .concat()
    };
    let text = two_parts("at_most = 2");
    let file = claims::parse(&text, Path::new("t.toml")).unwrap();
    let r = claims::evaluate(first.path(), &[file.clone()]).unwrap();
    assert_eq!(r[0].checks[1].verdict, Verdict::NotRun);
    let out = first.path().join("out");
    let w = claims::write(&out, first.path(), &[file.clone()], &r).unwrap();

    let prior = claims::Prior::load(&w.json).unwrap();
    let r = claims::evaluate_with_prior(second.path(), &[file.clone()], Some(&prior)).unwrap();
    // The table part's 6.5 carried from the first root, the other part's 1.25 computed here.
    assert_eq!(r[0].checks[0].value, Some(6.5));
    assert_eq!(
        r[0].checks[0].from.as_deref(),
        Some(first.path().to_str().unwrap())
    );
    assert_eq!(r[0].checks[1].value, Some(1.25));
    assert_eq!(r[0].checks[1].from, None);
    assert_eq!(r[0].verdict, Verdict::Holds);
    let w2 = claims::write(
        &second.path().join("out"),
        second.path(),
        &[file.clone()],
        &r,
    )
    .unwrap();
    assert!(
        w2.table_markdown
            .contains("carried from the evaluation over"),
        "{}",
        w2.table_markdown
    );

    // Carried again from the second claims.json: still the first root.
    let third = tempfile::tempdir().unwrap();
    let again = claims::Prior::load(&w2.json).unwrap();
    let r = claims::evaluate_with_prior(third.path(), &[file], Some(&again)).unwrap();
    assert_eq!(
        r[0].checks[0].from.as_deref(),
        Some(first.path().to_str().unwrap())
    );
    assert_eq!(
        r[0].checks[1].from.as_deref(),
        Some(second.path().to_str().unwrap())
    );

    // Reworded: the table part's check reads as before, the other's bound changed.
    let reworded = claims::parse(&two_parts("at_most = 3"), Path::new("t.toml")).unwrap();
    let r = claims::evaluate_with_prior(third.path(), &[reworded], Some(&again)).unwrap();
    assert_eq!(r[0].checks[0].value, Some(6.5));
    assert_eq!(r[0].checks[1].verdict, Verdict::NotRun);
    assert_eq!(r[0].verdict, Verdict::NotRun);
}
