// SPDX-License-Identifier: GPL-2.0-only
//! One run over time (C2TCP Fig. 7): capacity, throughput and each flow's,
//! then the queueing delay.
use crate::layout::Run;
use crate::plot::{Panel, Point, Scale, Series};

/// C2TCP Fig. 7: what the link offered and what the flows got, then delay,
/// over one time axis: the whole log's (delay exists only in bins where a
/// packet left, which in a run that moved little is a sliver of it).
pub fn timeseries(title: &str, run: &Run) -> Vec<Panel> {
    let ts = &run.analysis.timeseries;
    let window = [run.analysis.window.start_s, run.analysis.window.end_s];
    let span = ts
        .rows
        .first()
        .zip(ts.rows.last())
        .map(|(first, last)| (first.t_s, last.t_s + ts.bin_s));
    let column = |f: &dyn Fn(&metrics::TimeSeriesRow) -> Option<f64>| -> Vec<Point> {
        ts.rows
            .iter()
            .filter_map(|r| f(r).map(|v| Point::new(r.t_s + ts.bin_s / 2.0, v)))
            .collect()
    };
    let mut rate = Panel::new(
        format!(
            "{title}: throughput ({} ms bins)",
            (ts.bin_s * 1000.0).round()
        ),
        "Time (s)",
        "Mbit/s",
        Scale::Linear,
    );
    rate.x_marks = window.to_vec();
    rate.x_range = span;
    rate.series.push(Series {
        name: "capacity".into(),
        color: 7,
        points: column(&|r| Some(r.capacity_mbps)),
        area: true,
        ..Series::default()
    });
    rate.series.push(Series::line(
        "throughput",
        0,
        column(&|r| Some(r.throughput_mbps)),
    ));
    if ts.flow_names.len() > 1 {
        for (i, name) in ts.flow_names.iter().enumerate() {
            let points = column(&|r| r.flow_throughput_mbps.get(i).copied());
            rate.series.push(Series::line(name.clone(), 1 + i, points));
        }
    }
    let mut delay = Panel::new(
        format!("{title}: queueing delay"),
        "Time (s)",
        "ms",
        Scale::Linear,
    );
    delay.x_marks = window.to_vec();
    delay.x_range = span;
    delay
        .series
        .push(Series::line("p95", 3, column(&|r| r.queue_delay_p95_ms)));
    delay
        .series
        .push(Series::line("mean", 0, column(&|r| r.queue_delay_mean_ms)));
    vec![rate, delay]
}
