// SPDX-License-Identifier: GPL-2.0-only
//! The report on small synthetic bench directories with known numbers.
use std::collections::BTreeMap;

mod common;

use common::{add_run, analysis, metrics_with, two_trace_bench};
use report::{build, run_dir, ReportOptions, RunId, RunInfo, RunStatus};

fn ratio(report: &report::Report, scheme: &str, key: &str) -> f64 {
    let row = report
        .normalised
        .rows
        .iter()
        .find(|r| r.config.scheme == scheme)
        .unwrap();
    row.ratios[key].unwrap()
}

#[test]
fn table_one_normalises_per_trace_then_averages() {
    let bench = tempfile::tempdir().unwrap();
    two_trace_bench(bench.path());
    let r = build(
        bench.path(),
        &ReportOptions {
            plots: false,
            ..ReportOptions::default()
        },
    )
    .unwrap();
    assert_eq!(r.runs, 5);
    let schemes: Vec<&str> = r
        .normalised
        .rows
        .iter()
        .map(|r| r.config.scheme.as_str())
        .collect();
    assert_eq!(schemes, ["c2tcp", "cubic"], "the reference first");
    for key in report::summary::NORMALISED {
        assert_eq!(ratio(&r, "c2tcp", key), 1.0, "{key}");
    }
    // throughput: (6/4 + 2/2) / 2; avg delay: (200/20 + 100/50) / 2;
    // jitter: (10/2 + 5/5) / 2; p95: (400/40 + 100/100) / 2
    assert_eq!(ratio(&r, "cubic", "throughput_mbps"), 1.25);
    assert_eq!(ratio(&r, "cubic", "avg_queue_delay_ms"), 6.0);
    assert_eq!(ratio(&r, "cubic", "jitter_ms"), 3.0);
    // the paper's jitter, half the mean delay here: as the avg delay's
    assert_eq!(ratio(&r, "cubic", "jitter_mean_deviation_ms"), 6.0);
    assert_eq!(ratio(&r, "cubic", "p95_queue_delay_ms"), 5.5);
    // power averages per rep first: A (5/150 + 7/250)/2 vs 4/20; B 0.02 vs 0.04
    let power_a = (5.0 / 150.0 + 7.0 / 250.0) / 2.0 / 0.2;
    assert!((ratio(&r, "cubic", "power") - (power_a + 0.5) / 2.0).abs() < 1e-12);
    let md = std::fs::read_to_string(&r.markdown).unwrap();
    assert!(
        md.contains("| cubic | 1.25 | 6.00 | 3.00 | 6.00 | 5.50 |"),
        "{md}"
    );
    assert!(
        r.table_markdown.starts_with("| Scheme | Throughput (× c2tcp) | Avg. delay (× c2tcp) | Jitter (× c2tcp) | Jitter, mean deviation (× c2tcp) | 95th %ile delay (× c2tcp) | Power (× c2tcp) | Power95 (× c2tcp) | Traces |"),
        "{}",
        r.table_markdown
    );
    assert!(
        md.contains("| c2tcp | 1 | 4.00 | 40.0 | 20.0 | 40.0 |"),
        "per-trace table, absolute values:\n{md}"
    );
}

#[test]
fn every_output_file_is_written() {
    let bench = tempfile::tempdir().unwrap();
    two_trace_bench(bench.path());
    let r = build(bench.path(), &ReportOptions::default()).unwrap();
    assert!(r.warnings.is_empty(), "{:?}", r.warnings);
    for path in [&r.markdown, &r.html, &r.summary_csv, &r.summary_json] {
        assert!(
            std::fs::metadata(path).unwrap().len() > 0,
            "{}",
            path.display()
        );
    }
    // summary.csv: one row per trace × configuration
    let csv = std::fs::read_to_string(&r.summary_csv).unwrap();
    assert_eq!(csv.lines().count(), 1 + 4);
    assert!(csv.starts_with("trace,scheme,label,reps,throughput_mbps,"));
    assert!(csv.contains("\nA.down,cubic,,2,6,"), "{csv}");
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&r.summary_json).unwrap()).unwrap();
    assert_eq!(json["runs"].as_array().unwrap().len(), 5);
    assert_eq!(
        json["normalised"]["rows"][1]["ratios"]["throughput_mbps"],
        1.25
    );
    // Pantheon-style perf.json in every run directory
    assert_eq!(r.perf_json.len(), 5);
    let perf: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(run_dir(bench.path(), "B.down", "cubic", "", 0).join("perf.json"))
            .unwrap(),
    )
    .unwrap();
    assert_eq!(
        perf,
        serde_json::json!({"cubic": {"tput": 2.0, "delay": 110.0, "loss": 0.01}})
    );
    // scatter (mean, p95) and CDF per trace, a time series per run; SVG and PNG each
    assert_eq!(r.plots.len(), 2 * (2 * 3 + 5));
    for plot in &r.plots {
        let bytes = std::fs::read(plot).unwrap();
        match plot.extension().unwrap().to_str().unwrap() {
            "png" => assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n", "{}", plot.display()),
            "svg" => assert!(
                String::from_utf8(bytes).unwrap().contains("<text"),
                "{} has labels",
                plot.display()
            ),
            other => panic!("unexpected plot file type {other}"),
        }
        assert!(
            std::fs::metadata(plot).unwrap().len() > 2000,
            "{} is not empty",
            plot.display()
        );
    }
    let md = std::fs::read_to_string(&r.markdown).unwrap();
    assert!(
        md.contains("![scatter-A.down-mean](plots/scatter-A.down-mean.svg)"),
        "{md}"
    );
    let html = std::fs::read_to_string(&r.html).unwrap();
    assert!(html.contains("<img src=\"plots/cdf-B.down.svg\""));
    assert!(html.contains("<td>cubic</td><td>1.25</td>"));
}

#[test]
fn unfinished_runs_are_listed_not_counted() {
    let bench = tempfile::tempdir().unwrap();
    two_trace_bench(bench.path());
    add_run(
        bench.path(),
        "B.down",
        "bbr",
        &[],
        0,
        RunStatus::Interrupted,
        None,
    );
    add_run(bench.path(), "B.down", "bbr", &[], 1, RunStatus::Done, None); // no metrics
    let r = build(
        bench.path(),
        &ReportOptions {
            plots: false,
            ..ReportOptions::default()
        },
    )
    .unwrap();
    assert_eq!((r.runs, r.skipped.len()), (5, 2));
    let md = std::fs::read_to_string(&r.markdown).unwrap();
    assert!(md.contains("## Skipped runs"));
    assert!(
        md.contains("runs/B.down/bbr/default/rep0: interrupted"),
        "{md}"
    );
    assert!(
        md.contains("runs/B.down/bbr/default/rep1: done, but its metrics are unreadable"),
        "{md}"
    );
    // The count is said outright, in the report and to whoever built it.
    let note =
        "2 runs not done were left out: 1 unfinished (interrupted or still running), 1 unreadable";
    assert!(md.contains(note), "{md}");
    assert!(r.warnings.iter().any(|w| w == note), "{:?}", r.warnings);
}

#[test]
fn sweeps_and_completion_times_get_their_figures() {
    let bench = tempfile::tempdir().unwrap();
    let b = bench.path();
    for (target, tput, delay) in [(25.0, 3.0, 15.0), (50.0, 4.0, 30.0), (75.0, 4.5, 45.0)] {
        let mut a = analysis(metrics_with(tput, delay, 2.0 * delay, 2.0));
        a.flows[0].name = "short".into();
        a.flows[0].metrics.fct_s = Some(delay / 10.0);
        add_run(
            b,
            "T.down",
            "c2tcp",
            &[("target_ms", target)],
            0,
            RunStatus::Done,
            Some(a),
        );
    }
    add_run(
        b,
        "T.down",
        "cubic",
        &[],
        0,
        RunStatus::Done,
        Some(analysis(metrics_with(5.0, 200.0, 400.0, 9.0))),
    );
    let r = build(
        b,
        &ReportOptions {
            reference_label: Some("target_ms=50".into()),
            timeseries_plots: false,
            ..ReportOptions::default()
        },
    )
    .unwrap();
    // Normalised to c2tcp at Target 50 ms: Cubic has 5/4 its throughput,
    // and Target 25 ms gives 3/4 of it.
    assert_eq!(ratio(&r, "cubic", "throughput_mbps"), 1.25);
    let t25 = r
        .normalised
        .rows
        .iter()
        .find(|r| r.config.label == "target_ms=25")
        .unwrap();
    assert_eq!(t25.ratios["throughput_mbps"], Some(0.75));
    // Named by the parameter alone, whatever the traces (the claims link them).
    for stem in ["sweep", "tradeoff", "fct"] {
        let svg = b.join(format!("plots/{stem}-target_ms.svg"));
        assert!(r.plots.contains(&svg), "{stem}: {:?}", r.plots);
    }
    let fct = std::fs::read_to_string(b.join("plots/fct-target_ms.svg")).unwrap();
    assert!(fct.contains("FCT of short (s)"), "the DFCSD panel");
    let md = std::fs::read_to_string(&r.markdown).unwrap();
    assert!(
        md.contains("| T.down | c2tcp [target_ms=25] | short | 1.50 |"),
        "{md}"
    );
    assert!(md.contains("### target_ms"));
    assert!(md.contains("(plots/tradeoff-target_ms.svg)"), "{md}");
}

#[test]
fn a_single_run_directory_is_a_bench_of_one() {
    let dir = tempfile::tempdir().unwrap();
    let mut info = RunInfo::started(RunId::new("default", "cubic", "T.down", BTreeMap::new(), 0));
    info.finished(None);
    assert_eq!(info.status, RunStatus::Done);
    assert!(info.timings.wall_s.unwrap() >= 0.0);
    info.write(dir.path()).unwrap();
    results::write_analysis(dir.path(), &analysis(metrics_with(5.0, 100.0, 200.0, 3.0))).unwrap();
    let r = build(dir.path(), &ReportOptions::default()).unwrap();
    assert_eq!(r.runs, 1);
    assert_eq!(r.markdown, dir.path().join("report.md"));
    assert!(dir.path().join("perf.json").exists());
    assert!(r.normalised.notes[0].contains("no runs of the reference scheme \"c2tcp\""));
    // Titled by its run (it used to say only "c2tcp results", its
    // directory `.`).
    let md = std::fs::read_to_string(&r.markdown).unwrap();
    assert!(
        md.starts_with("# c2tcp run: T.down cubic default rep0"),
        "{md}"
    );
    assert!(
        build(&dir.path().join("plots"), &ReportOptions::default()).is_err(),
        "no runs there"
    );
}
