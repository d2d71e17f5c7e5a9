// SPDX-License-Identifier: GPL-2.0-only
//! The report's figures and tables as a reader gets them: the SVG files and
//! report.md it writes, read back (tick labels, text positions against the
//! canvas, table headers and cells), over small bench directories written
//! as the runner writes them.
use std::path::{Path, PathBuf};

mod common;

use common::svg::{x_ticks, Svg, Text};
use common::{add_run, analysis, metrics_with, two_trace_bench};
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
    add_run(bench.path(), "T.down", "cubic", &[], 0, RunStatus::Done, Some(a));
    let r = build(bench.path(), &ReportOptions::default()).unwrap();
    let series = svgs(&r.plots)
        .into_iter()
        .find(|p| p.file_name().unwrap().to_string_lossy().starts_with("timeseries-"))
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
    let r = build(b, &ReportOptions::default()).unwrap();
    let svgs = svgs(&r.plots);
    assert!(svgs.len() >= 10, "{svgs:?}");
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
    assert!(tables.len() >= 4, "normalised, two traces, FCT, runs:\n{md}");
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
