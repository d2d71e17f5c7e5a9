// SPDX-License-Identifier: GPL-2.0-only
//! The report's figures and tables as a reader gets them: the SVG files and
//! report.md it writes, read back (tick labels, text positions against the
//! canvas, table headers and cells), over small bench directories written
//! as the runner writes them.
use std::path::{Path, PathBuf};

mod common;

use common::svg::{x_ticks, Svg, Text};
use common::{add_run, analysis, metrics_with, two_flow_analysis, two_trace_bench};
use metrics::TimeSeriesRow;
use report::{build, ReportOptions, RunStatus};

/// Smallest font size (SVG px) we call legible at the size the report shows
/// a figure.
const LEGIBLE_PX: f64 = 11.0;
/// report.html's column (body max-width 1100 px, less its padding): a wider
/// figure would be shown scaled down, and its text smaller than written.
const REPORT_COLUMN_PX: f64 = 1068.0;

/// A text's width as plotters lays it out (at its own size, 1.24× the
/// SVG's font-size) with the font the report registered; the PNG is drawn
/// at that size too.
fn text_width(t: &Text) -> f64 {
    use plotters::style::{FontDesc, FontFamily, FontStyle};
    let font = FontDesc::new(FontFamily::SansSerif, t.font_size * 1.24, FontStyle::Normal);
    font.box_size(&t.content)
        .unwrap_or_else(|e| panic!("measuring {:?}: {e:?}", t.content))
        .0 as f64
}

fn svgs(plots: &[PathBuf]) -> Vec<&PathBuf> {
    plots
        .iter()
        .filter(|p| p.extension().is_some_and(|e| e == "svg"))
        .collect()
}

/// Every text of the figure is legible at the report's size and lies
/// within the canvas (none runs off an edge).
fn assert_legible_and_inside(path: &Path) {
    let svg = Svg::read(path);
    assert!(
        svg.width <= REPORT_COLUMN_PX,
        "{}: {} px wide, shown scaled down in report.html",
        path.display(),
        svg.width
    );
    assert!(!svg.texts.is_empty(), "{}: no text", path.display());
    for t in &svg.texts {
        assert!(
            t.font_size >= LEGIBLE_PX,
            "{}: {:?} at {} px",
            path.display(),
            t.content,
            t.font_size
        );
        let (lo, hi) = t.extent(text_width(t));
        let limit = if t.rotated { svg.height } else { svg.width };
        assert!(
            lo >= 0.0 && hi <= limit,
            "{}: {:?} spans {lo:.0}–{hi:.0} px of {limit} ({:?})",
            path.display(),
            t.content,
            t
        );
    }
}

/// A run whose flow never started: the link offered capacity for 5 s, and
/// only two 100-ms bins saw a packet leave the queue (a handshake's).
#[test]
fn time_series_panels_of_a_run_share_their_time_axis() {
    let bench = tempfile::tempdir().unwrap();
    let mut a = analysis(metrics_with(0.001, 0.2, 0.3, 0.0));
    a.timeseries.bin_s = 0.1;
    a.timeseries.rows = (0..50)
        .map(|i| TimeSeriesRow {
            t_s: i as f64 * 0.1,
            capacity_mbps: 12.0,
            queue_delay_mean_ms: (1..=2).contains(&i).then_some(0.17),
            queue_delay_p95_ms: (1..=2).contains(&i).then_some(0.2),
            flow_throughput_mbps: vec![0.0],
            ..TimeSeriesRow::default()
        })
        .collect();
    a.window = metrics::Window {
        start_s: 0.0,
        end_s: 5.0,
        duration_s: 5.0,
    };
    add_run(
        bench.path(),
        "T.down",
        "cubic",
        &[],
        0,
        RunStatus::Done,
        Some(a),
    );
    let r = build(bench.path(), &ReportOptions::default()).unwrap();
    let series = svgs(&r.plots)
        .into_iter()
        .find(|p| {
            p.file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with("timeseries-")
        })
        .expect("a time series figure");
    let svg = Svg::read(series);
    let rate = x_ticks(&svg.panel(0, 2));
    let delay = x_ticks(&svg.panel(1, 2));
    assert!(rate.len() >= 3, "throughput panel's time ticks: {rate:?}");
    assert_eq!(
        rate, delay,
        "the delay panel's time axis (values, x px) is the throughput panel's"
    );
    let (first, last) = (rate[0].0, rate[rate.len() - 1].0);
    assert!(
        first <= 1.0 && last >= 4.0,
        "the axis spans the run, 0–5 s: {rate:?}"
    );
}

/// Scatter labels are written beside their points: the lowest delay is the
/// rightmost point on the reversed axis, and a long configuration name
/// there used to run off the figure's right edge, in 9.7-px text.
#[test]
fn every_label_of_every_figure_is_legible_and_inside_it() {
    let bench = tempfile::tempdir().unwrap();
    let b = bench.path();
    two_trace_bench(b);
    add_run(
        b,
        "A.down",
        "cubic-codel-ecn",
        &[("target_ms", 5.0), ("interval_ms", 100.0)],
        0,
        RunStatus::Done,
        Some(analysis(metrics_with(3.5, 2.0, 4.0, 1.0))),
    );
    for (target, tput, delay) in [(25.0, 3.0, 15.0), (50.0, 4.0, 30.0), (75.0, 4.5, 45.0)] {
        add_run(
            b,
            "A.down",
            "c2tcp",
            &[("target_ms", target)],
            0,
            RunStatus::Done,
            Some(analysis(metrics_with(tput, delay, 2.0 * delay, 2.0))),
        );
    }
    for (scheme, share) in [("bbr", 0.9), ("westwood", 0.5)] {
        add_run(
            b,
            "constant:24",
            scheme,
            &[],
            0,
            RunStatus::Done,
            Some(two_flow_analysis("cubic-at-0s", "under-test-at-30s", share)),
        );
    }
    let r = build(b, &ReportOptions::default()).unwrap();
    let svgs = svgs(&r.plots);
    assert!(svgs.len() >= 10, "{svgs:?}");
    assert!(
        svgs.iter().any(|p| p.ends_with("plots/shares.svg")),
        "{svgs:?}"
    );
    for svg in svgs {
        assert_legible_and_inside(svg);
    }
}

/// report.md's tables: (header, rows) in order.
fn tables(markdown: &str) -> Vec<(Vec<String>, Vec<Vec<String>>)> {
    let cells = |line: &str| -> Vec<String> {
        line.trim()
            .trim_matches('|')
            .split(" | ")
            .map(|c| c.trim().to_owned())
            .collect()
    };
    let lines: Vec<&str> = markdown.lines().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i + 1 < lines.len() {
        if lines[i].starts_with('|') && lines[i + 1].starts_with("| ---") {
            let header = cells(lines[i]);
            let rows = lines[i + 2..]
                .iter()
                .take_while(|l| l.starts_with('|'))
                .map(|l| cells(l))
                .collect::<Vec<_>>();
            i += 2 + rows.len();
            out.push((header, rows));
        } else {
            i += 1;
        }
    }
    out
}

/// Columns that name or count things rather than measure them.
const NAMING_COLUMNS: &[&str] = &[
    "Scheme",
    "Trace",
    "Flow",
    "Rep",
    "Reps",
    "Traces",
    "Directory",
];

/// The units a column may be in; a ratio to the reference scheme is one.
const UNITS: &[&str] = &[
    "Mbit/s",
    "ms",
    "s",
    "%",
    "Mbit/s per ms",
    "segments",
    "1 = fair",
    "× c2tcp",
];

#[test]
fn every_table_column_has_its_unit_and_counts_are_whole() {
    let bench = tempfile::tempdir().unwrap();
    let b = bench.path();
    two_trace_bench(b);
    let mut a = analysis(metrics_with(3.0, 30.0, 60.0, 2.0));
    a.aggregate.retransmits = Some(10);
    a.aggregate.avg_rtt_ms = Some(52.5);
    a.flows[0].metrics.fct_s = Some(1.5);
    add_run(b, "A.down", "westwood", &[], 0, RunStatus::Done, Some(a));
    // Two flows sharing a link: the shares table too.
    add_run(
        b,
        "constant:24",
        "c2tcp",
        &[],
        0,
        RunStatus::Done,
        Some(two_flow_analysis("first", "second", 0.5)),
    );
    let r = build(
        b,
        &ReportOptions {
            plots: false,
            ..ReportOptions::default()
        },
    )
    .unwrap();
    let md = std::fs::read_to_string(&r.markdown).unwrap();
    let tables = tables(&md);
    assert!(
        tables.len() >= 4,
        "normalised, two traces, FCT, runs:\n{md}"
    );
    for (header, rows) in &tables {
        for column in header {
            let unit = column
                .strip_suffix(')')
                .and_then(|c| c.rsplit_once(" ("))
                .map(|(_, unit)| unit);
            assert!(
                NAMING_COLUMNS.contains(&column.as_str())
                    || unit.is_some_and(|u| UNITS.contains(&u)),
                "column {column:?} has no unit: {header:?}"
            );
        }
        for row in rows {
            assert_eq!(row.len(), header.len(), "{row:?} under {header:?}");
        }
    }
    let (header, rows) = tables
        .iter()
        .find(|(h, _)| h.iter().any(|c| c.starts_with("Retransmits")))
        .expect("a table with retransmissions");
    let column = header
        .iter()
        .position(|c| c.starts_with("Retransmits"))
        .unwrap();
    let westwood = rows.iter().find(|r| r[0] == "westwood").unwrap();
    assert_eq!(westwood[column], "10", "retransmissions: {westwood:?}");
    let loss = header.iter().position(|c| c.starts_with("Loss")).unwrap();
    assert_eq!(header[loss], "Loss (%)");
    assert_eq!(westwood[loss], "1.00", "1% of packets: {westwood:?}");
}

/// C2TCP Fig. 18-19: each flow's throughput over time, one panel per
/// configuration on one time axis and one rate axis, titled with Jain's
/// index; and the table of shares over the window.
#[test]
fn flows_sharing_a_link_get_their_shares_over_time_and_jains_index() {
    let bench = tempfile::tempdir().unwrap();
    let b = bench.path();
    for (target, share) in [(100.0, 0.5), (50.0, 0.4)] {
        add_run(
            b,
            "constant:24",
            "c2tcp",
            &[("target_ms", target)],
            0,
            RunStatus::Done,
            Some(two_flow_analysis("cubic-at-0s", "under-test-at-30s", share)),
        );
    }
    add_run(
        b,
        "constant:24",
        "bbr",
        &[],
        0,
        RunStatus::Done,
        Some(two_flow_analysis("cubic-at-0s", "under-test-at-30s", 0.9)),
    );
    let r = build(b, &ReportOptions::default()).unwrap();
    let svg = Svg::read(&b.join("plots/shares.svg"));
    let titles: Vec<&str> = svg
        .texts
        .iter()
        .filter(|t| t.content.contains(": Jain "))
        .map(|t| t.content.as_str())
        .collect();
    // Jain of 40/60 is 0.96, of 90/10 0.61; Targets in their order.
    assert_eq!(
        titles,
        [
            "bbr: Jain 0.61",
            "c2tcp [target_ms=50]: Jain 0.96",
            "c2tcp [target_ms=100]: Jain 1.00"
        ]
    );
    // Three panels in two columns: rows of half the height each.
    let rows = 2;
    let top_left: Vec<&Text> = svg
        .panel(0, rows)
        .into_iter()
        .filter(|t| t.x < svg.width / 2.0)
        .collect();
    let ticks = x_ticks(&top_left);
    assert_eq!(
        ticks.first().map(|t| t.0),
        Some(0.0),
        "the whole run, from 0 s: {ticks:?}"
    );
    assert_eq!(ticks.last().map(|t| t.0), Some(60.0), "{ticks:?}");
    for flow in ["cubic-at-0s", "under-test-at-30s", "capacity"] {
        assert!(
            svg.texts.iter().any(|t| t.content == flow),
            "{flow} in the legend"
        );
    }
    let md = std::fs::read_to_string(&r.markdown).unwrap();
    let table = tables(&md)
        .into_iter()
        .find(|(h, _)| h.contains(&"Share (%)".to_string()))
        .unwrap_or_else(|| panic!("a shares table:\n{md}"));
    let row = |scheme: &str, flow: &str| -> Vec<String> {
        table
            .1
            .iter()
            .find(|r| r[1] == scheme && r[2] == flow)
            .cloned()
            .unwrap_or_else(|| panic!("{scheme} {flow}: {:?}", table.1))
    };
    assert_eq!(
        row("bbr", "under-test-at-30s"),
        [
            "constant:24",
            "bbr",
            "under-test-at-30s",
            "30",
            "21.60",
            "90.0",
            "0.610"
        ]
    );
    assert_eq!(row("c2tcp [target_ms=50]", "cubic-at-0s")[5], "60.0");
}

/// C2TCP Fig. 20 and 21 from a sweep over two traces: per trace, C2TCP's
/// Targets as a labelled curve of (mean queueing delay, throughput) with
/// the schemes run without a Target as points; delay and throughput
/// against the value, buffer sizes in KB.
#[test]
fn sweeps_draw_the_tradeoff_and_the_metrics_against_the_value_per_trace() {
    let bench = tempfile::tempdir().unwrap();
    let b = bench.path();
    for trace in ["A.down", "B.down"] {
        // Targets no tick falls on, so that their labels are told apart.
        for (target, tput, delay) in [(35.0, 3.0, 15.0), (60.0, 4.0, 30.0), (85.0, 4.5, 60.0)] {
            add_run(
                b,
                trace,
                "c2tcp",
                &[("target_ms", target)],
                0,
                RunStatus::Done,
                Some(analysis(metrics_with(tput, delay, 2.0 * delay, 2.0))),
            );
        }
        for (scheme, tput, delay) in [("cubic", 5.0, 200.0), ("cubic-codel", 4.2, 20.0)] {
            add_run(
                b,
                trace,
                scheme,
                &[],
                0,
                RunStatus::Done,
                Some(analysis(metrics_with(tput, delay, 2.0 * delay, 2.0))),
            );
        }
    }
    let r = build(
        b,
        &ReportOptions {
            timeseries_plots: false,
            ..ReportOptions::default()
        },
    )
    .unwrap();
    let tradeoff = Svg::read(&b.join("plots/tradeoff-target_ms.svg"));
    for trace in ["A.down", "B.down"] {
        assert!(
            tradeoff.texts.iter().any(|t| t.content == trace),
            "a panel titled {trace}"
        );
    }
    for label in ["35", "60", "85", "c2tcp", "cubic", "cubic-codel"] {
        assert_eq!(
            tradeoff.texts.iter().filter(|t| t.content == label).count(),
            2,
            "{label:?} once in each trace's panel"
        );
    }
    let sweep = Svg::read(&b.join("plots/sweep-target_ms.svg"));
    assert_eq!(
        sweep
            .texts
            .iter()
            .filter(|t| t.content == "Target (ms)")
            .count(),
        4,
        "delay and throughput against the Target, per trace"
    );
    assert!(r.plots.contains(&b.join("plots/tradeoff-target_ms.png")));

    let buffers = tempfile::tempdir().unwrap();
    let b = buffers.path();
    for (scheme, delays) in [("c2tcp", [20.0, 22.0]), ("cubic", [40.0, 400.0])] {
        for (bytes, delay) in [75_000.0, 1_500_000.0].into_iter().zip(delays) {
            add_run(
                b,
                "T.down",
                scheme,
                &[("buffer_bytes", bytes)],
                0,
                RunStatus::Done,
                Some(analysis(metrics_with(4.0, delay, 2.0 * delay, 2.0))),
            );
        }
    }
    build(b, &ReportOptions::default()).unwrap();
    let svg = Svg::read(&b.join("plots/sweep-buffer_bytes.svg"));
    assert!(svg.texts.iter().any(|t| t.content == "Buffer (KB)"));
    let ticks = x_ticks(&svg.texts.iter().collect::<Vec<_>>());
    assert!(
        ticks.iter().any(|t| t.0 == 100.0) && ticks.iter().all(|t| t.0 <= 2000.0),
        "KB, not bytes: {ticks:?}"
    );
}

/// Every C2TCP claim whose plot is one of the report's figures links a file
/// the report writes for a bench part shaped as that part is.
#[test]
fn the_claims_link_figures_the_report_writes() {
    let root = tempfile::tempdir().unwrap();
    let part = |name: &str| root.path().join(name);
    let done = RunStatus::Done;
    for scheme in ["c2tcp", "cubic"] {
        add_run(
            &part("mobile-edge"),
            "TMobile-LTE-short-x3.down",
            scheme,
            &[],
            0,
            done,
            Some(analysis(metrics_with(40.0, 8.0, 16.0, 1.0))),
        );
        // Table I's part, on the UMTS trace Fig. 16's claim plots.
        add_run(
            &part("table1"),
            "TMobile-UMTS-driving.down",
            scheme,
            &[],
            0,
            done,
            Some(analysis(metrics_with(1.0, 60.0, 200.0, 1.0))),
        );
    }
    for name in [
        "friendliness",
        "friendliness-newreno",
        "friendliness-c2tcp-pair",
        "friendliness-deep",
    ] {
        add_run(
            &part(name),
            "constant:24",
            "c2tcp",
            &[],
            0,
            done,
            Some(two_flow_analysis("first", "second", 0.5)),
        );
    }
    for (param, values) in [
        ("target_ms", [25.0, 50.0]),
        ("buffer_bytes", [75_000.0, 150_000.0]),
    ] {
        let dir = part(if param == "target_ms" {
            "target-sweep"
        } else {
            "buffer-sweep"
        });
        for v in values {
            add_run(
                &dir,
                "TMobile-LTE-short.down",
                "c2tcp",
                &[(param, v)],
                0,
                done,
                Some(analysis(metrics_with(4.0, v / 1000.0 + 10.0, 30.0, 2.0))),
            );
        }
    }
    let parts: Vec<PathBuf> = std::fs::read_dir(root.path())
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    for dir in &parts {
        build(
            dir,
            &ReportOptions {
                timeseries_plots: false,
                ..ReportOptions::default()
            },
        )
        .unwrap();
    }
    let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../claims/c2tcp.toml");
    let claims_file =
        report::claims::parse(&std::fs::read_to_string(&file).unwrap(), &file).unwrap();
    let results =
        report::claims::evaluate(root.path(), std::slice::from_ref(&claims_file)).unwrap();
    let mut linked = 0;
    for (claim, result) in claims_file.claims.iter().zip(&results) {
        let Some(plot) = claim.plot.as_deref().filter(|p| p.starts_with("plots/")) else {
            continue;
        };
        assert!(
            parts.iter().any(|p| p.ends_with(&claim.bench)),
            "{}: a part this test builds ({})",
            claim.id,
            claim.bench
        );
        assert_eq!(
            result.plot.as_deref(),
            Some(format!("{}/{plot}", claim.bench).as_str()),
            "{}: its plot exists",
            claim.id
        );
        linked += 1;
    }
    assert!(
        linked >= 16,
        "Fig. 17-21's claims link their figures: {linked}"
    );
}
