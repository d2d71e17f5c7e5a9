// SPDX-License-Identifier: GPL-2.0-only
//! Flows sharing one link (C2TCP Fig. 18-19, friendliness: a Cubic flow,
//! then the scheme under test from 30 s): each flow's throughput over time
//! in 1 s bins, and Jain's index over the measurement window (which those
//! scenarios start at the second flow's start).
//!
//! Both come from the analysis of the emulator's downlink log, where each
//! departure is attributed to its flow by the flow records the runner
//! keeps: the per-flow columns of the time series (100 ms bins, summed here
//! into seconds) and the flows' window throughputs that `jain_fairness` is
//! computed from are the same attribution.
use std::collections::BTreeMap;

use super::Figure;
use crate::layout::Run;
use crate::plot::{Panel, Point, Scale, Series};
use crate::summary::{mean, Config};

/// The width of a share bin, as the paper's plots.
pub const SHARE_BIN_S: f64 = 1.0;

/// The shares figure and the table beside it.
#[derive(Clone, Debug)]
pub struct Shares {
    pub figure: Figure,
    pub rows: Vec<ShareRow>,
}

/// One flow of one configuration, its repetitions averaged.
#[derive(Clone, Debug)]
pub struct ShareRow {
    pub trace: String,
    pub config: Config,
    pub flow: String,
    /// Over the measurement window.
    pub throughput_mbps: Option<f64>,
    /// Of the configuration's flows' throughput together.
    pub share: Option<f64>,
    pub jain_fairness: Option<f64>,
    pub window_start_s: Option<f64>,
}

/// One run's time series in `SHARE_BIN_S` bins: (bin start, capacity,
/// each flow's throughput), Mbit/s averaged over the part of the bin the
/// log covers.
fn rebinned(run: &Run) -> Vec<(f64, f64, Vec<f64>)> {
    let ts = &run.analysis.timeseries;
    let flows = ts.flow_names.len();
    // bin → (seconds covered, capacity Mbit·s, flows' Mbit·s)
    let mut bins: BTreeMap<i64, (f64, f64, Vec<f64>)> = BTreeMap::new();
    for row in &ts.rows {
        // A hair past the start, so that 0.999999 s lands in bin 1 as 1.0 does.
        let bin = ((row.t_s + 1e-6) / SHARE_BIN_S).floor() as i64;
        let e = bins
            .entry(bin)
            .or_insert_with(|| (0.0, 0.0, vec![0.0; flows]));
        e.0 += ts.bin_s;
        e.1 += row.capacity_mbps * ts.bin_s;
        for (sum, v) in e.2.iter_mut().zip(&row.flow_throughput_mbps) {
            *sum += v * ts.bin_s;
        }
    }
    bins.into_iter()
        .filter(|(_, (covered, _, _))| *covered > 0.0)
        .map(|(bin, (covered, capacity, flows))| {
            (
                bin as f64 * SHARE_BIN_S,
                capacity / covered,
                flows.into_iter().map(|f| f / covered).collect(),
            )
        })
        .collect()
}

/// Parameters compared value by value, numbers as numbers.
fn by_value(
    a: &BTreeMap<String, serde_json::Value>,
    b: &BTreeMap<String, serde_json::Value>,
) -> std::cmp::Ordering {
    for ((ka, va), (kb, vb)) in a.iter().zip(b) {
        let order = ka.cmp(kb).then_with(|| match (va.as_f64(), vb.as_f64()) {
            (Some(x), Some(y)) => x.total_cmp(&y),
            _ => va.to_string().cmp(&vb.to_string()),
        });
        if order.is_ne() {
            return order;
        }
    }
    a.len().cmp(&b.len())
}

/// The figure and table of every configuration whose runs carried two or
/// more flows, coloured by flow; None when no run did.
pub fn shares(runs: &[Run]) -> Option<Shares> {
    let mut groups: BTreeMap<(String, Config), Vec<&Run>> = BTreeMap::new();
    for r in runs
        .iter()
        .filter(|r| r.analysis.timeseries.flow_names.len() >= 2)
    {
        groups
            .entry((r.info.id.trace.clone(), Config::of(r)))
            .or_default()
            .push(r);
    }
    if groups.is_empty() {
        return None;
    }
    // A sweep's values in their order (Target 50 before 100), not the
    // labels' (`target_ms=100` before `target_ms=50`).
    let mut groups: Vec<((String, Config), Vec<&Run>)> = groups.into_iter().collect();
    groups.sort_by(|((ta, ca), ra), ((tb, cb), rb)| {
        (ta, &ca.scheme)
            .cmp(&(tb, &cb.scheme))
            .then_with(|| by_value(&ra[0].info.id.params, &rb[0].info.id.params))
            .then_with(|| ca.label.cmp(&cb.label))
    });
    let several_traces = groups
        .iter()
        .map(|((t, _), _)| t)
        .collect::<std::collections::BTreeSet<_>>()
        .len()
        > 1;
    let mut panels = Vec::new();
    let mut rows = Vec::new();
    let mut top: f64 = 0.0;
    for ((trace, config), reps) in &groups {
        let names = &reps[0].analysis.timeseries.flow_names;
        let jain = mean(
            reps.iter()
                .filter_map(|r| r.analysis.aggregate.jain_fairness),
        );
        let window_start = mean(reps.iter().map(|r| r.analysis.window.start_s));
        let mut title = config.name();
        if several_traces {
            title = format!("{title} on {trace}");
        }
        if let Some(j) = jain {
            title = format!("{title}: Jain {j:.2}");
        }
        let mut panel = Panel::new(title, "Time (s)", "Mbit/s (1 s bins)", Scale::Linear);
        panel.x_marks = window_start.into_iter().collect();
        // bin start → (capacity, each flow) summed over the repetitions, and how many
        let mut by_bin: BTreeMap<i64, (f64, Vec<f64>, usize)> = BTreeMap::new();
        for r in reps
            .iter()
            .filter(|r| &r.analysis.timeseries.flow_names == names)
        {
            for (t, capacity, flows) in rebinned(r) {
                let e = by_bin
                    .entry((t / SHARE_BIN_S).round() as i64)
                    .or_insert_with(|| (0.0, vec![0.0; names.len()], 0));
                e.0 += capacity;
                for (sum, v) in e.1.iter_mut().zip(&flows) {
                    *sum += v;
                }
                e.2 += 1;
            }
        }
        let mid = |bin: i64| (bin as f64 + 0.5) * SHARE_BIN_S;
        let capacity: Vec<Point> = by_bin
            .iter()
            .map(|(&b, (c, _, n))| Point::new(mid(b), c / *n as f64))
            .collect();
        top = capacity.iter().map(|p| p.y).fold(top, f64::max);
        panel.x_range = by_bin
            .keys()
            .next()
            .zip(by_bin.keys().last())
            .map(|(&first, &last)| (first as f64 * SHARE_BIN_S, (last + 1) as f64 * SHARE_BIN_S));
        panel.series.push(Series {
            name: "capacity".into(),
            color: 7,
            points: capacity,
            area: true,
            ..Series::default()
        });
        let throughputs: Vec<Option<f64>> = names
            .iter()
            .map(|name| {
                mean(reps.iter().flat_map(|r| {
                    r.analysis
                        .flows
                        .iter()
                        .filter(|f| &f.name == name)
                        .map(|f| f.metrics.throughput_mbps)
                }))
            })
            .collect();
        let total: f64 = throughputs.iter().flatten().sum();
        for (i, name) in names.iter().enumerate() {
            let points = by_bin
                .iter()
                .map(|(&b, (_, flows, n))| Point::new(mid(b), flows[i] / *n as f64))
                .collect();
            panel.series.push(Series::line(name.clone(), 1 + i, points));
            rows.push(ShareRow {
                trace: trace.clone(),
                config: config.clone(),
                flow: name.clone(),
                throughput_mbps: throughputs[i],
                share: throughputs[i].filter(|_| total > 0.0).map(|t| t / total),
                jain_fairness: jain,
                window_start_s: window_start,
            });
        }
        panels.push(panel);
    }
    // One y scale for every panel, so that shares compare across them.
    for panel in &mut panels {
        panel.y_range = Some((0.0, (top * 1.08).max(1.0)));
    }
    let one = panels.len() == 1;
    Some(Shares {
        figure: Figure {
            stem: "shares".into(),
            caption: format!(
                "Each flow's throughput over time ({SHARE_BIN_S:.0} s bins) and Jain's index over the measurement window (from the grey line)"
            ),
            columns: if one { 1 } else { 2 },
            panel_size: if one { (900, 420) } else { (520, 330) },
            panels,
        },
        rows,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::layout::{RunId, RunInfo};
    use metrics::{TimeSeries, TimeSeriesRow};

    /// 100-ms bins into seconds: each second's mean, a last part-second
    /// averaged over the part the log covers.
    #[test]
    fn seconds_are_the_means_of_their_bins() {
        let rows = (0..25)
            .map(|i| TimeSeriesRow {
                t_s: i as f64 * 0.1,
                capacity_mbps: 24.0,
                // Flow a: 10 Mbit/s in the first second, then 0; flow b: i Mbit/s.
                flow_throughput_mbps: vec![if i < 10 { 10.0 } else { 0.0 }, i as f64],
                ..TimeSeriesRow::default()
            })
            .collect();
        let run = Run {
            dir: "r".into(),
            info: RunInfo::started(RunId::new("s", "c2tcp", "T", BTreeMap::new(), 0)),
            analysis: metrics::Analysis {
                timeseries: TimeSeries {
                    bin_s: 0.1,
                    flow_names: vec!["a".into(), "b".into()],
                    rows,
                },
                ..metrics::Analysis::default()
            },
        };
        let bins = rebinned(&run);
        let close = |a: f64, b: f64| (a - b).abs() < 1e-9;
        assert_eq!(bins.len(), 3);
        let expect = [(0.0, [10.0, 4.5]), (1.0, [0.0, 14.5]), (2.0, [0.0, 22.0])];
        for ((t, capacity, flows), (t_want, flows_want)) in bins.iter().zip(expect) {
            assert!(close(*t, t_want), "{bins:?}");
            assert!(close(*capacity, 24.0), "{bins:?}");
            assert!(
                flows.iter().zip(flows_want).all(|(a, b)| close(*a, b)),
                "{t}: {flows:?}"
            );
        }
    }
}
