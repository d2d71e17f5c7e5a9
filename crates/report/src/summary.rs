// SPDX-License-Identifier: GPL-2.0-only
//! From runs to the numbers of the papers' tables: repetitions averaged per
//! configuration (trace × scheme × parameter label), then each metric
//! normalised per trace to the reference scheme and averaged over traces
//! (C2TCP paper Table I; NATCP Table 2 does the same for power).
use std::collections::{BTreeMap, BTreeSet};

use metrics::Metrics;
use serde::Serialize;

use crate::layout::Run;

/// A metric as the report shows it.
pub struct MetricDef {
    /// The metrics.json field.
    pub key: &'static str,
    pub title: &'static str,
    /// The unit a table shows it in; every column says one.
    pub unit: &'static str,
    /// The stored value times this is the shown one (a fraction as %).
    pub scale: f64,
    /// Decimals in a table: fixed per metric, so that a column reads
    /// evenly, and none for counts.
    pub decimals: usize,
    pub get: fn(&Metrics) -> Option<f64>,
}

impl MetricDef {
    /// A table's column header: title and unit.
    pub fn header(&self) -> String {
        format!("{} ({})", self.title, self.unit)
    }

    /// A table's cell; "–" where the metric is undefined.
    pub fn cell(&self, value: Option<f64>) -> String {
        let decimals = self.decimals;
        value.map_or("–".into(), |v| format!("{:.decimals$}", v * self.scale))
    }
}

/// The aggregate metrics the report summarises, in column order.
pub const METRICS: &[MetricDef] = &[
    MetricDef {
        key: "throughput_mbps",
        title: "Throughput",
        unit: "Mbit/s",
        scale: 1.0,
        decimals: 2,
        get: |m| Some(m.throughput_mbps),
    },
    MetricDef {
        key: "capacity_mbps",
        title: "Capacity",
        unit: "Mbit/s",
        scale: 1.0,
        decimals: 2,
        get: |m| Some(m.capacity_mbps),
    },
    MetricDef {
        key: "utilization",
        title: "Utilization",
        unit: "%",
        scale: 100.0,
        decimals: 1,
        get: |m| m.utilization,
    },
    MetricDef {
        key: "avg_queue_delay_ms",
        title: "Avg. delay",
        unit: "ms",
        scale: 1.0,
        decimals: 1,
        get: |m| m.avg_queue_delay_ms,
    },
    MetricDef {
        key: "p95_queue_delay_ms",
        title: "95th %ile delay",
        unit: "ms",
        scale: 1.0,
        decimals: 1,
        get: |m| m.p95_queue_delay_ms,
    },
    MetricDef {
        key: "p99_queue_delay_ms",
        title: "99th %ile delay",
        unit: "ms",
        scale: 1.0,
        decimals: 1,
        get: |m| m.p99_queue_delay_ms,
    },
    MetricDef {
        key: "jitter_ms",
        title: "Jitter",
        unit: "ms",
        scale: 1.0,
        decimals: 1,
        get: |m| m.jitter_ms,
    },
    MetricDef {
        key: "jitter_mean_deviation_ms",
        title: "Jitter, mean deviation",
        unit: "ms",
        scale: 1.0,
        decimals: 1,
        get: |m| m.jitter_mean_deviation_ms,
    },
    MetricDef {
        key: "avg_delay_ms",
        title: "Avg. one-way delay",
        unit: "ms",
        scale: 1.0,
        decimals: 1,
        get: |m| m.avg_delay_ms,
    },
    MetricDef {
        key: "p95_delay_ms",
        title: "95th %ile one-way delay",
        unit: "ms",
        scale: 1.0,
        decimals: 1,
        get: |m| m.p95_delay_ms,
    },
    MetricDef {
        key: "power",
        title: "Power",
        unit: "Mbit/s per ms",
        scale: 1.0,
        decimals: 4,
        get: |m| m.power,
    },
    MetricDef {
        key: "power95",
        title: "Power95",
        unit: "Mbit/s per ms",
        scale: 1.0,
        decimals: 4,
        get: |m| m.power95,
    },
    MetricDef {
        key: "loss_rate",
        title: "Loss",
        unit: "%",
        scale: 100.0,
        decimals: 2,
        get: |m| m.loss_rate,
    },
    MetricDef {
        key: "e2e_delay_p95_ms",
        title: "95% end-to-end delay",
        unit: "ms",
        scale: 1.0,
        decimals: 1,
        get: |m| m.e2e_delay_p95_ms,
    },
    MetricDef {
        key: "self_inflicted_delay_ms",
        title: "Self-inflicted delay",
        unit: "ms",
        scale: 1.0,
        decimals: 1,
        get: |m| m.self_inflicted_delay_ms,
    },
    MetricDef {
        key: "jain_fairness",
        title: "Jain's fairness",
        unit: "1 = fair",
        scale: 1.0,
        decimals: 3,
        get: |m| m.jain_fairness,
    },
    MetricDef {
        key: "avg_rtt_ms",
        title: "Avg. RTT",
        unit: "ms",
        scale: 1.0,
        decimals: 1,
        get: |m| m.avg_rtt_ms,
    },
    MetricDef {
        key: "retransmits",
        title: "Retransmits",
        unit: "segments",
        scale: 1.0,
        decimals: 0,
        get: |m| m.retransmits.map(|r| r as f64),
    },
    // A dual queue's (dualpi2, l4s_ramp): the packets that took the L4S
    // queue, and the Classic ones (docs/metrics.md).
    MetricDef {
        key: "l4s_avg_queue_delay_ms",
        title: "L4S queue avg. delay",
        unit: "ms",
        scale: 1.0,
        decimals: 2,
        get: |m| m.l4s_queue.as_ref().and_then(|q| q.avg_ms),
    },
    MetricDef {
        key: "l4s_p99_queue_delay_ms",
        title: "L4S queue 99th %ile delay",
        unit: "ms",
        scale: 1.0,
        decimals: 2,
        get: |m| m.l4s_queue.as_ref().and_then(|q| q.p99_ms),
    },
    MetricDef {
        key: "classic_avg_queue_delay_ms",
        title: "Classic queue avg. delay",
        unit: "ms",
        scale: 1.0,
        decimals: 1,
        get: |m| m.classic_queue.as_ref().and_then(|q| q.avg_ms),
    },
    MetricDef {
        key: "classic_p95_queue_delay_ms",
        title: "Classic queue 95th %ile delay",
        unit: "ms",
        scale: 1.0,
        decimals: 1,
        get: |m| m.classic_queue.as_ref().and_then(|q| q.p95_ms),
    },
];

/// The columns of the normalised table: Table I's four (delays are queueing
/// delays, as in the paper; jitter both ours and the paper's), then NATCP's
/// power and power95.
pub const NORMALISED: &[&str] = &[
    "throughput_mbps",
    "avg_queue_delay_ms",
    "jitter_ms",
    "jitter_mean_deviation_ms",
    "p95_queue_delay_ms",
    "power",
    "power95",
];

pub fn metric(key: &str) -> &'static MetricDef {
    METRICS
        .iter()
        .find(|m| m.key == key)
        .expect("a known metric")
}

/// A scheme with one parameter combination.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub struct Config {
    pub scheme: String,
    pub label: String,
}

impl Config {
    pub fn of(run: &Run) -> Config {
        Config {
            scheme: run.info.id.scheme.clone(),
            label: run.info.label.clone(),
        }
    }

    pub fn name(&self) -> String {
        if self.label.is_empty() {
            self.scheme.clone()
        } else {
            format!("{} [{}]", self.scheme, self.label)
        }
    }
}

/// One configuration on one trace, its repetitions averaged.
#[derive(Clone, Debug, Serialize)]
pub struct ConfigSummary {
    pub trace: String,
    #[serde(flatten)]
    pub config: Config,
    pub params: BTreeMap<String, serde_json::Value>,
    pub reps: usize,
    /// Mean over the repetitions where the metric is defined.
    pub means: BTreeMap<String, Option<f64>>,
    /// Mean flow completion time per flow name, for sized flows.
    pub fct_s: BTreeMap<String, f64>,
    /// Each named flow's own metrics (metrics.json's `flows`), flow name →
    /// metric → mean over the repetitions where it is defined: what a claim
    /// reads of one flow of a multi-flow run (Sprout §5.7's call beside its
    /// bulk download). Not written to the report's files.
    #[serde(skip)]
    pub flows: BTreeMap<String, BTreeMap<String, Option<f64>>>,
    /// Each repetition's own values, in repetition order: what the means
    /// average, and what a spread over repetitions is taken from.
    pub per_rep: Vec<Repetition>,
}

/// One repetition of a configuration: its metrics and flow completion times.
#[derive(Clone, Debug, Serialize)]
pub struct Repetition {
    pub rep: u32,
    pub values: BTreeMap<String, Option<f64>>,
    pub fct_s: BTreeMap<String, f64>,
    /// Each named flow's metrics in this repetition (`ConfigSummary::flows`).
    #[serde(skip)]
    pub flows: BTreeMap<String, BTreeMap<String, Option<f64>>>,
}

impl ConfigSummary {
    /// The smallest and largest of `metric` over the repetitions where it is
    /// defined (None when no repetition defines it).
    pub fn spread(&self, metric: &str) -> Option<(f64, f64)> {
        self.per_rep
            .iter()
            .filter_map(|r| r.values.get(metric).copied().flatten())
            .fold(None, |acc, v| match acc {
                None => Some((v, v)),
                Some((lo, hi)) => Some((f64::min(lo, v), f64::max(hi, v))),
            })
    }

    /// This configuration as its `k`-th repetition alone (0-based, in
    /// repetition order), or as it is when it has fewer: what a quantity
    /// computed repetition by repetition reads.
    pub fn repetition(&self, k: usize) -> ConfigSummary {
        let Some(r) = self.per_rep.get(k) else {
            return self.clone();
        };
        ConfigSummary {
            reps: 1,
            means: r.values.clone(),
            fct_s: r.fct_s.clone(),
            flows: r.flows.clone(),
            per_rep: vec![r.clone()],
            ..self.clone()
        }
    }
}

pub(crate) fn mean(values: impl IntoIterator<Item = f64>) -> Option<f64> {
    let (n, sum) = values
        .into_iter()
        .fold((0usize, 0.0), |(n, s), v| (n + 1, s + v));
    (n > 0).then(|| sum / n as f64)
}

/// Names of the flows that have a completion time (sized flows).
pub(crate) fn sized_flows<'a>(runs: impl IntoIterator<Item = &'a Run>) -> BTreeSet<String> {
    runs.into_iter()
        .flat_map(|r| r.analysis.flows.iter())
        .filter(|f| f.metrics.fct_s.is_some())
        .map(|f| f.name.clone())
        .collect()
}

/// Mean completion time of the flow so named over the repetitions.
pub(crate) fn mean_fct(reps: &[&Run], flow: &str) -> Option<f64> {
    mean(
        reps.iter()
            .flat_map(|r| r.analysis.flows.iter())
            .filter(|f| f.name == flow)
            .filter_map(|f| f.metrics.fct_s),
    )
}

/// Each named flow's metrics over `reps`: flow → metric → the mean over
/// the repetitions that have the flow and define the metric.
fn flow_means(reps: &[&Run]) -> BTreeMap<String, BTreeMap<String, Option<f64>>> {
    let names: BTreeSet<&str> = reps
        .iter()
        .flat_map(|r| r.analysis.flows.iter().map(|f| f.name.as_str()))
        .collect();
    names
        .into_iter()
        .map(|name| {
            let of_flow: Vec<&Metrics> = reps
                .iter()
                .flat_map(|r| r.analysis.flows.iter())
                .filter(|f| f.name == name)
                .map(|f| &f.metrics)
                .collect();
            let values = METRICS
                .iter()
                .map(|m| {
                    (
                        m.key.to_owned(),
                        mean(of_flow.iter().filter_map(|f| (m.get)(f))),
                    )
                })
                .collect();
            (name.to_owned(), values)
        })
        .collect()
}

/// Groups runs by (trace, scheme, label) and averages their metrics.
pub fn summarise(runs: &[Run]) -> Vec<ConfigSummary> {
    let mut groups: BTreeMap<(String, Config), Vec<&Run>> = BTreeMap::new();
    for run in runs {
        groups
            .entry((run.info.id.trace.clone(), Config::of(run)))
            .or_default()
            .push(run);
    }
    groups
        .into_iter()
        .map(|((trace, config), mut reps)| {
            reps.sort_by_key(|r| r.info.id.rep);
            let per_rep = reps
                .iter()
                .map(|r| Repetition {
                    rep: r.info.id.rep,
                    values: METRICS
                        .iter()
                        .map(|m| (m.key.to_owned(), (m.get)(&r.analysis.aggregate)))
                        .collect(),
                    fct_s: sized_flows([*r])
                        .into_iter()
                        .filter_map(|name| mean_fct(&[*r], &name).map(|m| (name, m)))
                        .collect(),
                    flows: flow_means(&[*r]),
                })
                .collect();
            let means = METRICS
                .iter()
                .map(|m| {
                    (
                        m.key.to_owned(),
                        mean(reps.iter().filter_map(|r| (m.get)(&r.analysis.aggregate))),
                    )
                })
                .collect();
            let fct_s = sized_flows(reps.iter().copied())
                .into_iter()
                .filter_map(|name| mean_fct(&reps, &name).map(|m| (name, m)))
                .collect();
            ConfigSummary {
                trace,
                params: reps[0].info.id.params.clone(),
                config,
                reps: reps.len(),
                means,
                fct_s,
                flows: flow_means(&reps),
                per_rep,
            }
        })
        .collect()
}

/// One row of the normalised table.
#[derive(Clone, Debug, Serialize)]
pub struct NormalisedRow {
    #[serde(flatten)]
    pub config: Config,
    /// Metric → mean over traces of (this config's mean ÷ the reference's).
    pub ratios: BTreeMap<String, Option<f64>>,
    /// Traces this configuration could be compared on.
    pub traces: usize,
}

#[derive(Clone, Debug, Default, Serialize)]
pub struct Normalised {
    pub reference_scheme: String,
    pub rows: Vec<NormalisedRow>,
    /// Configurations or traces left out, and why.
    pub notes: Vec<String>,
}

/// The reference a configuration is compared with on one trace: the
/// reference scheme with the same label (a shared link parameter such as a
/// buffer size), else with `reference_label`, else its only configuration.
/// The reference scheme's own configurations compare with `reference_label`
/// when it is given (a Target sweep against Target 50 ms), else themselves.
fn reference_for<'a>(
    on_trace: &[&'a ConfigSummary],
    config: &Config,
    reference_scheme: &str,
    reference_label: Option<&str>,
) -> Option<&'a ConfigSummary> {
    let candidates: Vec<&ConfigSummary> = on_trace
        .iter()
        .copied()
        .filter(|c| c.config.scheme == reference_scheme)
        .collect();
    let with_label = |label: &str| candidates.iter().copied().find(|c| c.config.label == label);
    let own_scheme_reference = (config.scheme == reference_scheme)
        .then_some(reference_label)
        .flatten();
    own_scheme_reference
        .and_then(with_label)
        .or_else(|| with_label(&config.label))
        .or_else(|| reference_label.and_then(with_label))
        .or_else(|| (candidates.len() == 1).then(|| candidates[0]))
}

pub fn normalise(
    summaries: &[ConfigSummary],
    reference_scheme: &str,
    reference_label: Option<&str>,
) -> Normalised {
    let mut out = Normalised {
        reference_scheme: reference_scheme.to_owned(),
        ..Normalised::default()
    };
    if !summaries
        .iter()
        .any(|s| s.config.scheme == reference_scheme)
    {
        out.notes.push(format!(
            "no runs of the reference scheme {reference_scheme:?}: nothing to normalise to"
        ));
        return out;
    }
    let mut by_trace: BTreeMap<&str, Vec<&ConfigSummary>> = BTreeMap::new();
    for s in summaries {
        by_trace.entry(s.trace.as_str()).or_default().push(s);
    }
    // config → metric → ratios on each trace
    let mut ratios: BTreeMap<Config, (BTreeMap<&str, Vec<f64>>, usize)> = BTreeMap::new();
    for (trace, on_trace) in &by_trace {
        for s in on_trace {
            let entry = ratios.entry(s.config.clone()).or_default();
            let Some(reference) =
                reference_for(on_trace, &s.config, reference_scheme, reference_label)
            else {
                out.notes.push(format!(
                    "{} on {trace}: no single {reference_scheme} run to compare with (choose a reference label)",
                    s.config.name()
                ));
                continue;
            };
            entry.1 += 1;
            for key in NORMALISED {
                let value = s.means.get(*key).copied().flatten();
                let base = reference
                    .means
                    .get(*key)
                    .copied()
                    .flatten()
                    .filter(|&b| b != 0.0);
                if let (Some(v), Some(b)) = (value, base) {
                    entry.0.entry(key).or_default().push(v / b);
                }
            }
        }
    }
    out.rows = ratios
        .into_iter()
        .map(|(config, (per_metric, traces))| NormalisedRow {
            ratios: NORMALISED
                .iter()
                .map(|k| {
                    (
                        k.to_string(),
                        per_metric.get(k).and_then(|v| mean(v.iter().copied())),
                    )
                })
                .collect(),
            traces,
            config,
        })
        .collect();
    // The reference first, as in the paper.
    out.rows
        .sort_by_key(|r| (r.config.scheme != reference_scheme, r.config.clone()));
    out
}
