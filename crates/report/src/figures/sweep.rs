// SPDX-License-Identifier: GPL-2.0-only
//! A numeric parameter that takes several values (a `[sweep]`), across the
//! traces it was swept on, as three figures named by the parameter alone so
//! that the claims can link them whatever the traces:
//! - `sweep-<param>`: per trace, mean queueing delay and throughput against
//!   the value, one line per scheme (C2TCP Fig. 21: buffer size);
//! - `tradeoff-<param>`: per trace, throughput against mean queueing delay,
//!   each scheme's values a curve labelled by value and the schemes run
//!   without the parameter a point each (C2TCP Fig. 20: C2TCP's Targets
//!   against Cubic, Cubic over CoDel and over PIE). The paper's delay axis
//!   adds the 20 ms minimum RTT, the same on every point of a trace; ours is
//!   the queueing delay alone, the quantity the claims read the curve at;
//! - `fct-<param>`: per trace and sized flow, completion time against the
//!   value (DFCSD).
use std::collections::{BTreeMap, BTreeSet};

use super::{Colors, Figure};
use crate::layout::Run;
use crate::plot::{Panel, Point, Scale, Series};
use crate::summary::{mean, mean_fct, sized_flows, Config};

/// A swept parameter and its figures.
#[derive(Clone, Debug)]
pub struct Sweep {
    pub param: String,
    pub figures: Vec<Figure>,
}

fn numeric(run: &Run, param: &str) -> Option<f64> {
    run.info.id.params.get(param).and_then(|v| v.as_f64())
}

/// A line's key: its scheme and the label of its run's other parameters
/// (runs that differ only in the swept one form one line).
type LineKey = (String, String);

fn line_key(run: &Run, param: &str) -> LineKey {
    let mut others = run.info.id.params.clone();
    others.remove(param);
    (
        run.info.id.scheme.clone(),
        crate::layout::RunInfo::label_for(&others),
    )
}

fn line_name((scheme, rest): &LineKey) -> String {
    if rest.is_empty() {
        scheme.clone()
    } else {
        format!("{scheme} [{rest}]")
    }
}

/// How a parameter's values read on an axis: sizes in bytes as KB (75000
/// → 75), times with their unit.
struct ParamAxis {
    desc: String,
    scale: f64,
}

impl ParamAxis {
    fn of(param: &str) -> ParamAxis {
        let capitalised = |name: &str| {
            let mut chars = name.chars();
            chars.next().map_or(String::new(), |first| {
                first.to_uppercase().chain(chars).collect()
            })
        };
        if let Some(name) = param.strip_suffix("_bytes") {
            ParamAxis {
                desc: format!("{} (KB)", capitalised(name)),
                scale: 1e-3,
            }
        } else if let Some(name) = param.strip_suffix("_ms") {
            ParamAxis {
                desc: format!("{} (ms)", capitalised(name)),
                scale: 1.0,
            }
        } else {
            ParamAxis {
                desc: capitalised(param),
                scale: 1.0,
            }
        }
    }
}

/// One trace's runs of the sweep.
struct OnTrace<'a> {
    trace: &'a str,
    /// line → value (as bits) → repetitions
    lines: BTreeMap<LineKey, BTreeMap<u64, Vec<&'a Run>>>,
    /// Configurations run without the parameter: a point each.
    without: BTreeMap<Config, Vec<&'a Run>>,
}

impl<'a> OnTrace<'a> {
    fn new(trace: &'a str, runs: &[&'a Run], param: &str) -> OnTrace<'a> {
        let mut on = OnTrace {
            trace,
            lines: BTreeMap::new(),
            without: BTreeMap::new(),
        };
        for &r in runs {
            match numeric(r, param) {
                Some(v) => on
                    .lines
                    .entry(line_key(r, param))
                    .or_default()
                    .entry(v.to_bits())
                    .or_default()
                    .push(r),
                None => on.without.entry(Config::of(r)).or_default().push(r),
            }
        }
        on
    }

    fn values(&self) -> BTreeSet<u64> {
        self.lines
            .values()
            .flat_map(|l| l.keys().copied())
            .collect()
    }

    /// Each line's points of `get` (repetitions averaged) against the value.
    fn against_value(
        &self,
        axis: &ParamAxis,
        get: &dyn Fn(&[&Run]) -> Option<f64>,
    ) -> Vec<(&LineKey, Vec<Point>)> {
        self.lines
            .iter()
            .map(|(key, by_value)| {
                let points = by_value
                    .iter()
                    .filter_map(|(bits, reps)| {
                        get(reps).map(|y| Point::new(f64::from_bits(*bits) * axis.scale, y))
                    })
                    .collect();
                (key, points)
            })
            .collect()
    }
}

fn mean_throughput(reps: &[&Run]) -> Option<f64> {
    mean(reps.iter().map(|r| r.analysis.aggregate.throughput_mbps))
}

fn mean_delay(reps: &[&Run]) -> Option<f64> {
    mean(
        reps.iter()
            .filter_map(|r| r.analysis.aggregate.avg_queue_delay_ms),
    )
}

/// Every parameter that takes two or more numeric values on some trace,
/// with its figures over those traces.
pub fn sweeps(runs: &[Run], colors: &Colors) -> Vec<Sweep> {
    let params: BTreeSet<&String> = runs.iter().flat_map(|r| r.info.id.params.keys()).collect();
    let traces: BTreeSet<&str> = runs.iter().map(|r| r.info.id.trace.as_str()).collect();
    params
        .into_iter()
        .filter_map(|param| {
            let swept: Vec<OnTrace> = traces
                .iter()
                .map(|&trace| {
                    let on: Vec<&Run> = runs.iter().filter(|r| r.info.id.trace == trace).collect();
                    OnTrace::new(trace, &on, param)
                })
                .filter(|on| on.values().len() >= 2)
                .collect();
            (!swept.is_empty()).then(|| sweep(param, &swept, colors))
        })
        .collect()
}

fn sweep(param: &str, swept: &[OnTrace], colors: &Colors) -> Sweep {
    let axis = ParamAxis::of(param);
    let values: Vec<f64> = swept
        .iter()
        .flat_map(|on| on.values())
        .map(|b| f64::from_bits(b) * axis.scale)
        .collect();
    let (lo, hi) = values
        .iter()
        .fold((f64::MAX, f64::MIN), |(a, b), &v| (a.min(v), b.max(v)));
    let x_scale = if lo > 0.0 && hi / lo >= 10.0 {
        Scale::Log
    } else {
        Scale::Linear
    };
    let color_of = |key: &LineKey| colors.of_scheme(&key.0);
    let vs = |on: &OnTrace, y_desc: &str, get: &dyn Fn(&[&Run]) -> Option<f64>| {
        let mut panel = Panel::new(on.trace, axis.desc.clone(), y_desc, x_scale);
        for (key, points) in on.against_value(&axis, get) {
            panel
                .series
                .push(Series::marked_line(line_name(key), color_of(key), points));
        }
        panel
    };
    // Side by side per trace: a figure as wide as the report's column.
    let grid = |stem: String, caption: String, panels: Vec<Panel>, height: u32| Figure {
        stem,
        caption,
        columns: 2,
        panel_size: (520, height),
        panels,
    };
    let mut figures = vec![grid(
        format!("sweep-{}", crate::layout::component(param)),
        format!("Mean queueing delay and throughput against {param}"),
        swept
            .iter()
            .flat_map(|on| {
                [
                    vs(on, "Avg. queueing delay (ms)", &mean_delay),
                    vs(on, "Throughput (Mbit/s)", &mean_throughput),
                ]
            })
            .collect(),
        380,
    )];
    let tradeoffs: Vec<Panel> = swept.iter().map(|on| tradeoff(on, &axis, colors)).collect();
    let one = tradeoffs.len() == 1;
    figures.push(Figure {
        stem: format!("tradeoff-{}", crate::layout::component(param)),
        caption: format!(
            "Throughput against mean queueing delay, each point of a curve labelled by its {}",
            axis.desc
        ),
        columns: if one { 1 } else { 2 },
        panel_size: if one { (900, 560) } else { (520, 440) },
        panels: tradeoffs,
    });
    // DFCSD: completion time of each sized flow against the parameter, one
    // panel per flow (a long flow's minutes would flatten a short one's
    // seconds), in the schemes' colours.
    let mut fct_panels = Vec::new();
    for on in swept {
        let runs: Vec<&Run> = on
            .lines
            .values()
            .flat_map(|l| l.values().flatten())
            .copied()
            .collect();
        for flow in sized_flows(runs.iter().copied()) {
            let mut panel = vs(on, &format!("FCT of {flow} (s)"), &|reps| {
                mean_fct(reps, &flow)
            });
            panel.title = format!("{}: `{flow}`", on.trace);
            panel.series.retain(|s| !s.points.is_empty());
            fct_panels.push(panel);
        }
    }
    if !fct_panels.is_empty() {
        figures.push(Figure {
            stem: format!("fct-{}", crate::layout::component(param)),
            caption: format!("Completion time of each sized flow against {param}"),
            columns: 1,
            panel_size: (900, 380),
            panels: fct_panels,
        });
    }
    Sweep {
        param: param.to_owned(),
        figures,
    }
}

/// C2TCP Fig. 20 on one trace: each line's values as a curve of
/// (mean queueing delay, throughput), each point labelled by its value; the
/// configurations run without the parameter (Cubic, Cubic over CoDel, over
/// PIE) a point each.
fn tradeoff(on: &OnTrace, axis: &ParamAxis, colors: &Colors) -> Panel {
    let mut panel = Panel::new(
        on.trace,
        "Avg. queueing delay (ms, log scale; better →)",
        "Throughput (Mbit/s)",
        Scale::ReversedLog,
    );
    for (key, by_value) in &on.lines {
        let points = by_value
            .iter()
            .filter_map(|(bits, reps)| {
                Some(Point {
                    x: mean_delay(reps)?,
                    y: mean_throughput(reps)?,
                    label: Some(crate::number(f64::from_bits(*bits) * axis.scale)),
                })
            })
            .collect();
        panel.series.push(Series::marked_line(
            line_name(key),
            colors.of_scheme(&key.0),
            points,
        ));
    }
    for (config, reps) in &on.without {
        if let (Some(x), Some(y)) = (mean_delay(reps), mean_throughput(reps)) {
            panel.series.push(Series {
                name: config.name(),
                color: colors.of(config),
                points: vec![Point::new(x, y)],
                markers: true,
                ..Series::default()
            });
        }
    }
    panel
}
