// SPDX-License-Identifier: GPL-2.0-only
//! The papers' figures, as panels for `plot::render`:
//! - throughput vs delay per trace, delay on a reversed log axis (C2TCP
//!   Fig. 15, Sprout Fig. 7), for mean and 95th-percentile delay;
//! - capacity, throughput and delay over time per run (C2TCP Fig. 7);
//! - queueing-delay CDFs per trace;
//! - parameter sweeps: metrics against the swept value (buffer sweep,
//!   Fig. 21; FCT vs short-flow size, DFCSD), and throughput vs delay with
//!   each point labelled by its value (Target sweep, Fig. 20).
use std::collections::{BTreeMap, BTreeSet};

use crate::layout::Run;
use crate::plot::{Panel, Point, Scale, Series};
use crate::summary::{mean, mean_fct, sized_flows, Config, ConfigSummary};

/// Stable colour per configuration across all figures. Each scheme's first
/// configuration takes the scheme's own colour (schemes in order), the other
/// configurations of a sweep come after them: a sweep figure colours by
/// scheme, and with 3 schemes × 5 values numbered in one run of 15 the
/// schemes' colours met again modulo the 10-colour palette.
pub struct Colors(BTreeMap<Config, usize>);

impl Colors {
    pub fn new(runs: &[Run]) -> Colors {
        Colors::of_configs(runs.iter().map(Config::of).collect())
    }

    fn of_configs(configs: BTreeSet<Config>) -> Colors {
        let mut seen_schemes = BTreeSet::new();
        let (firsts, rest): (Vec<_>, Vec<_>) = configs
            .into_iter()
            .partition(|c| seen_schemes.insert(c.scheme.clone()));
        Colors(
            firsts
                .into_iter()
                .chain(rest)
                .enumerate()
                .map(|(i, c)| (c, i))
                .collect(),
        )
    }

    fn of(&self, config: &Config) -> usize {
        self.0.get(config).copied().unwrap_or(0)
    }

    /// A scheme's colour: that of its first configuration.
    fn of_scheme(&self, scheme: &str) -> usize {
        self.0
            .iter()
            .find(|(c, _)| c.scheme == scheme)
            .map_or(0, |(_, &i)| i)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DelayStat {
    Mean,
    P95,
}

impl DelayStat {
    fn key(self) -> &'static str {
        match self {
            DelayStat::Mean => "avg_queue_delay_ms",
            DelayStat::P95 => "p95_queue_delay_ms",
        }
    }

    fn get(self, m: &metrics::Metrics) -> Option<f64> {
        match self {
            DelayStat::Mean => m.avg_queue_delay_ms,
            DelayStat::P95 => m.p95_queue_delay_ms,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            DelayStat::Mean => "mean",
            DelayStat::P95 => "p95",
        }
    }
}

/// One marker per configuration (its repetitions' mean), the repetitions faint.
pub fn throughput_delay(
    trace: &str,
    summaries: &[ConfigSummary],
    runs: &[Run],
    stat: DelayStat,
    colors: &Colors,
) -> Panel {
    let what = match stat {
        DelayStat::Mean => "Avg. queueing delay",
        DelayStat::P95 => "95th percentile queueing delay",
    };
    let mut panel = Panel::new(
        format!("{trace}: throughput vs {}", what.to_lowercase()),
        format!("{what} (ms, log scale; better →)"),
        "Throughput (Mbit/s)",
        Scale::ReversedLog,
    );
    for s in summaries.iter().filter(|s| s.trace == trace) {
        let (Some(x), Some(y)) = (
            s.means.get(stat.key()).copied().flatten(),
            s.means.get("throughput_mbps").copied().flatten(),
        ) else {
            continue;
        };
        let faint = runs
            .iter()
            .filter(|r| r.info.id.trace == trace && Config::of(r) == s.config)
            .filter_map(|r| {
                stat.get(&r.analysis.aggregate)
                    .map(|d| (d, r.analysis.aggregate.throughput_mbps))
            })
            .collect();
        panel.series.push(Series {
            color: colors.of(&s.config),
            points: vec![Point {
                x,
                y,
                label: Some(s.config.name()),
            }],
            markers: true,
            faint,
            ..Series::default()
        });
    }
    panel
}

/// Queueing-delay CDF per configuration; repetitions averaged quantile by quantile.
pub fn delay_cdf(trace: &str, runs: &[Run], colors: &Colors) -> Panel {
    let mut panel = Panel::new(
        format!("{trace}: queueing delay CDF"),
        "Queueing delay (ms, log scale)",
        "Fraction of packets",
        Scale::Log,
    );
    panel.y_range = Some((0.0, 1.0));
    let mut by_config: BTreeMap<Config, Vec<&Run>> = BTreeMap::new();
    for r in runs.iter().filter(|r| r.info.id.trace == trace) {
        by_config.entry(Config::of(r)).or_default().push(r);
    }
    for (config, reps) in by_config {
        let mut per_quantile: BTreeMap<u64, (f64, f64, usize)> = BTreeMap::new();
        for r in &reps {
            for p in &r.analysis.delay_cdf.points {
                let e = per_quantile
                    .entry((p.quantile * 1e6).round() as u64)
                    .or_insert((p.quantile, 0.0, 0));
                e.1 += p.queue_delay_ms;
                e.2 += 1;
            }
        }
        let points = per_quantile
            .values()
            .map(|&(q, sum, n)| Point::new(sum / n as f64, q))
            .collect();
        panel
            .series
            .push(Series::line(config.name(), colors.of(&config), points));
    }
    panel
}

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

/// A numeric parameter that takes several values on one trace.
#[derive(Clone, Debug)]
pub struct Sweep {
    pub trace: String,
    pub param: String,
    pub panels: Vec<Panel>,
}

fn numeric(run: &Run, param: &str) -> Option<f64> {
    run.info.id.params.get(param).and_then(|v| v.as_f64())
}

/// The label of a run's other parameters: runs that differ only in `param`
/// form one line.
fn line_key(run: &Run, param: &str) -> (String, String) {
    let mut others = run.info.id.params.clone();
    others.remove(param);
    (
        run.info.id.scheme.clone(),
        crate::layout::RunInfo::label_for(&others),
    )
}

fn line_name((scheme, rest): &(String, String)) -> String {
    if rest.is_empty() {
        scheme.clone()
    } else {
        format!("{scheme} [{rest}]")
    }
}

pub fn sweeps(runs: &[Run], colors: &Colors) -> Vec<Sweep> {
    let traces: BTreeSet<&str> = runs.iter().map(|r| r.info.id.trace.as_str()).collect();
    let mut out = Vec::new();
    for trace in traces {
        let on_trace: Vec<&Run> = runs.iter().filter(|r| r.info.id.trace == trace).collect();
        let params: BTreeSet<&String> = on_trace
            .iter()
            .flat_map(|r| r.info.id.params.keys())
            .collect();
        for param in params {
            let values: BTreeSet<u64> = on_trace
                .iter()
                .filter_map(|r| numeric(r, param))
                .map(f64::to_bits)
                .collect();
            if values.len() >= 2 {
                out.push(sweep(trace, param, &on_trace, colors));
            }
        }
    }
    out
}

fn sweep(trace: &str, param: &str, runs: &[&Run], colors: &Colors) -> Sweep {
    // line → value → repetitions
    let mut lines: BTreeMap<(String, String), BTreeMap<u64, Vec<&Run>>> = BTreeMap::new();
    for r in runs {
        if let Some(v) = numeric(r, param) {
            lines
                .entry(line_key(r, param))
                .or_default()
                .entry(v.to_bits())
                .or_default()
                .push(r);
        }
    }
    let all: Vec<f64> = lines
        .values()
        .flat_map(|l| l.keys().map(|b| f64::from_bits(*b)))
        .collect();
    let (lo, hi) = all
        .iter()
        .fold((f64::MAX, f64::MIN), |(a, b), &v| (a.min(v), b.max(v)));
    let x_scale = if lo > 0.0 && hi / lo >= 10.0 {
        Scale::Log
    } else {
        Scale::Linear
    };
    let color_of = |key: &(String, String)| colors.of_scheme(&key.0);
    let vs = |title: &str, unit: &str, get: &dyn Fn(&Run) -> Option<f64>| {
        let mut panel = Panel::new(
            format!("{trace}: {title} vs {param}"),
            param.to_owned(),
            format!("{title} ({unit})"),
            x_scale,
        );
        for (key, by_value) in &lines {
            let points: Vec<Point> = by_value
                .iter()
                .filter_map(|(bits, reps)| {
                    mean(reps.iter().filter_map(|r| get(r)))
                        .map(|y| Point::new(f64::from_bits(*bits), y))
                })
                .collect();
            panel
                .series
                .push(Series::marked_line(line_name(key), color_of(key), points));
        }
        panel
    };
    let mut panels = vec![
        vs("Throughput", "Mbit/s", &|r| {
            Some(r.analysis.aggregate.throughput_mbps)
        }),
        vs("Avg. queueing delay", "ms", &|r| {
            r.analysis.aggregate.avg_queue_delay_ms
        }),
    ];
    // Fig. 20: each point labelled with its value; its delay axis is the
    // average queueing delay plus the minimum RTT (twice the one-way delay).
    let delay_plus_rtt = |r: &Run| {
        r.analysis
            .aggregate
            .avg_queue_delay_ms
            .map(|d| d + 2.0 * r.analysis.propagation_delay_ms)
    };
    let mut tradeoff = Panel::new(
        format!("{trace}: throughput vs delay across {param}"),
        "Avg. queueing delay + min RTT (ms, log scale; better →)",
        "Throughput (Mbit/s)",
        Scale::ReversedLog,
    );
    for (key, by_value) in &lines {
        let points = by_value
            .iter()
            .filter_map(|(bits, reps)| {
                let x = mean(reps.iter().filter_map(|r| delay_plus_rtt(r)))?;
                let y = mean(reps.iter().map(|r| r.analysis.aggregate.throughput_mbps))?;
                Some(Point {
                    x,
                    y,
                    label: Some(crate::number(f64::from_bits(*bits))),
                })
            })
            .collect();
        tradeoff
            .series
            .push(Series::marked_line(line_name(key), color_of(key), points));
    }
    // Schemes run without the parameter on this trace appear as one point each.
    let mut without: BTreeMap<Config, Vec<&Run>> = BTreeMap::new();
    for r in runs.iter().filter(|r| numeric(r, param).is_none()) {
        without.entry(Config::of(r)).or_default().push(r);
    }
    for (config, reps) in without {
        if let (Some(x), Some(y)) = (
            mean(reps.iter().filter_map(|r| delay_plus_rtt(r))),
            mean(reps.iter().map(|r| r.analysis.aggregate.throughput_mbps)),
        ) {
            tradeoff.series.push(Series {
                name: config.name(),
                color: colors.of(&config),
                points: vec![Point::new(x, y)],
                markers: true,
                ..Series::default()
            });
        }
    }
    panels.push(tradeoff);
    // DFCSD: completion time of each sized flow against the parameter, one
    // panel per flow (a long flow's minutes would flatten a short one's
    // seconds), in the schemes' colours.
    for flow in sized_flows(runs.iter().copied()) {
        let mut fct = Panel::new(
            format!("{trace}: completion time of `{flow}` vs {param}"),
            param.to_owned(),
            format!("FCT of {flow} (s)"),
            x_scale,
        );
        for (key, by_value) in &lines {
            let points: Vec<Point> = by_value
                .iter()
                .filter_map(|(bits, reps)| {
                    mean_fct(reps, &flow).map(|y| Point::new(f64::from_bits(*bits), y))
                })
                .collect();
            if !points.is_empty() {
                fct.series
                    .push(Series::marked_line(line_name(key), color_of(key), points));
            }
        }
        panels.push(fct);
    }
    Sweep {
        trace: trace.to_owned(),
        param: param.to_owned(),
        panels,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_scheme_of_a_sweep_gets_its_own_colour() {
        let configs = ["cubic", "dfcsd", "drwa"]
            .iter()
            .flat_map(|s| {
                [2, 10, 20, 40, 80].map(|d| Config {
                    scheme: s.to_string(),
                    label: format!("delay_ms={d}"),
                })
            })
            .collect();
        let colors = Colors::of_configs(configs);
        let schemes: BTreeSet<usize> = ["cubic", "dfcsd", "drwa"]
            .iter()
            .map(|s| colors.of_scheme(s) % 10)
            .collect();
        assert_eq!(schemes.len(), 3, "{schemes:?}");
        // Configurations stay distinct too, as far as there are colours.
        let all: BTreeSet<usize> = colors.0.values().copied().collect();
        assert_eq!(all.len(), 15);
    }
}
