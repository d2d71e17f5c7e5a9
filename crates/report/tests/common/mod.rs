// SPDX-License-Identifier: GPL-2.0-only
//! Bench directories written as the runner writes them (run.json, metrics.json,
//! the time series), with known numbers, for the report's tests.
#![allow(dead_code)] // each test crate uses its part
pub mod svg;
use std::path::Path;

use metrics::{Analysis, CdfPoint, DelayCdf, FlowMetrics, Metrics, TimeSeries, TimeSeriesRow};
use report::{run_dir, RunId, RunInfo, RunStatus};

pub fn metrics_with(throughput: f64, avg_delay: f64, p95_delay: f64, jitter: f64) -> Metrics {
    Metrics {
        throughput_mbps: throughput,
        capacity_mbps: 10.0,
        utilization: Some(throughput / 10.0),
        avg_queue_delay_ms: Some(avg_delay),
        p95_queue_delay_ms: Some(p95_delay),
        avg_delay_ms: Some(avg_delay + 10.0),
        p95_delay_ms: Some(p95_delay + 10.0),
        jitter_ms: Some(jitter),
        jitter_mean_deviation_ms: Some(avg_delay / 2.0),
        power: Some(throughput / avg_delay),
        power95: Some(throughput / p95_delay),
        loss_rate: Some(0.01),
        ..Metrics::default()
    }
}

pub fn analysis(m: Metrics) -> Analysis {
    let rows = (0..20)
        .map(|i| TimeSeriesRow {
            t_s: i as f64 * 0.5,
            capacity_mbps: 10.0 + (i % 4) as f64,
            ingress_mbps: m.throughput_mbps,
            throughput_mbps: m.throughput_mbps,
            queue_delay_mean_ms: m.avg_queue_delay_ms,
            queue_delay_p95_ms: m.p95_queue_delay_ms,
            drops: 0,
            flow_throughput_mbps: vec![m.throughput_mbps],
        })
        .collect();
    let avg = m.avg_queue_delay_ms.unwrap();
    let cdf = (0..=10)
        .map(|i| CdfPoint {
            quantile: i as f64 / 10.0,
            queue_delay_ms: avg * (0.5 + i as f64 / 10.0),
        })
        .collect();
    Analysis {
        format: metrics::FORMAT.into(),
        propagation_delay_ms: 10.0,
        window: metrics::Window {
            start_s: 1.0,
            end_s: 10.0,
            duration_s: 9.0,
        },
        flows: vec![FlowMetrics {
            name: "flow1".into(),
            id: Some(1),
            members: vec![1],
            metrics: m.clone(),
            ..FlowMetrics::default()
        }],
        aggregate: m,
        timeseries: TimeSeries {
            bin_s: 0.5,
            flow_names: vec!["flow1".into()],
            rows,
        },
        delay_cdf: DelayCdf { points: cdf },
        ..Analysis::default()
    }
}

pub fn add_run(
    bench: &Path,
    trace: &str,
    scheme: &str,
    params: &[(&str, f64)],
    rep: u32,
    status: RunStatus,
    a: Option<Analysis>,
) {
    let params = params
        .iter()
        .map(|(k, v)| (k.to_string(), serde_json::json!(v)))
        .collect();
    let mut info = RunInfo::started(RunId::new("test", scheme, trace, params, rep));
    info.status = status;
    let dir = run_dir(bench, trace, scheme, &info.label, rep);
    info.write(&dir).unwrap();
    if let Some(a) = a {
        results::write_analysis(&dir, &a).unwrap();
    }
}

/// Two traces; Cubic twice on A (5 and 7 Mbit/s, averaging 6).
pub fn two_trace_bench(bench: &Path) {
    let done = RunStatus::Done;
    add_run(
        bench,
        "A.down",
        "c2tcp",
        &[],
        0,
        done,
        Some(analysis(metrics_with(4.0, 20.0, 40.0, 2.0))),
    );
    add_run(
        bench,
        "A.down",
        "cubic",
        &[],
        0,
        done,
        Some(analysis(metrics_with(5.0, 150.0, 300.0, 8.0))),
    );
    add_run(
        bench,
        "A.down",
        "cubic",
        &[],
        1,
        done,
        Some(analysis(metrics_with(7.0, 250.0, 500.0, 12.0))),
    );
    add_run(
        bench,
        "B.down",
        "c2tcp",
        &[],
        0,
        done,
        Some(analysis(metrics_with(2.0, 50.0, 100.0, 5.0))),
    );
    add_run(
        bench,
        "B.down",
        "cubic",
        &[],
        0,
        done,
        Some(analysis(metrics_with(2.0, 100.0, 100.0, 5.0))),
    );
}

/// A friendliness run (C2TCP Fig. 18): 24 Mbit/s for 60 s in 100-ms bins,
/// `first` alone until 30 s, then `first` and `second` sharing it with
/// `share` of it going to `second`; the window from 30 s, as the scenario's.
pub fn two_flow_analysis(first: &str, second: &str, share: f64) -> Analysis {
    let (a, b) = (24.0 * (1.0 - share), 24.0 * share);
    let mut m = metrics_with(24.0, 8.0, 16.0, 1.0);
    m.jain_fairness = metrics::jain_fairness([a, b]);
    let mut analysis = analysis(m);
    analysis.window = metrics::Window {
        start_s: 30.0,
        end_s: 60.0,
        duration_s: 30.0,
    };
    analysis.timeseries = TimeSeries {
        bin_s: 0.1,
        flow_names: vec![first.into(), second.into()],
        rows: (0..600)
            .map(|i| {
                let shared = i >= 300;
                TimeSeriesRow {
                    t_s: i as f64 * 0.1,
                    capacity_mbps: 24.0,
                    throughput_mbps: 24.0,
                    queue_delay_mean_ms: Some(8.0),
                    queue_delay_p95_ms: Some(16.0),
                    flow_throughput_mbps: if shared { vec![a, b] } else { vec![24.0, 0.0] },
                    ..TimeSeriesRow::default()
                }
            })
            .collect(),
    };
    let flow = |name: &str, throughput: f64| FlowMetrics {
        name: name.into(),
        metrics: Metrics {
            throughput_mbps: throughput,
            ..Metrics::default()
        },
        ..FlowMetrics::default()
    };
    analysis.flows = vec![flow(first, a), flow(second, b)];
    analysis
}
