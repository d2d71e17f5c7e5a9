// SPDX-License-Identifier: GPL-2.0-only
//! From one direction's log to the papers' metrics, in one streaming pass.
//!
//! Every metric is defined here, once; `docs/metrics.md` restates each
//! definition with its paper. Over the window [start, end):
//! throughput = bits departed ÷ duration; capacity = bits the trace offered
//! (`#` lines) ÷ duration; utilization = their ratio; queueing delay per
//! packet = departure − arrival at the bottleneck queue (mean, 95th
//! percentile); one-way delay = queueing + propagation; jitter = mean absolute
//! difference of consecutive packets' delays; power = throughput ÷ mean
//! queueing delay and power95 = throughput ÷ p95 queueing delay (NATCP);
//! loss = drops ÷ (departures + drops); Jain's fairness over the flows'
//! throughputs; Sprout's 95% end-to-end delay and its self-inflicted part.
use std::collections::{BTreeMap, HashMap};
use std::io::BufRead;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::cdf::DelayCdf;
use crate::config::{AnalysisConfig, Resolved};
use crate::delay::DelayStats;
use crate::e2e_delay::{EndToEndDelay, Grid, Omniscient};
use crate::log::{DropReason, Event, FlowInfo, LogHeader, LogReader, MarkCause, Micros, Protocol};
use crate::timeseries::{Binner, TimeSeries};
use crate::Error;

/// The metrics of one flow, a group of flows, or all selected flows together.
/// Field names are the `metrics.json` ones. None (null): undefined here,
/// e.g. a delay with no packets, loss on a log without drop lines.
///
/// Read back (`metrics.json`), `throughput_mbps` and `capacity_mbps` are
/// required: a record without them measured nothing. Missing optional
/// figures read as None (older files lack the newer ones).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Metrics {
    /// Mbit/s (10⁶ bit/s) departed from the bottleneck in the window.
    pub throughput_mbps: f64,
    /// Mbit/s the trace's delivery opportunities offered in the window.
    pub capacity_mbps: f64,
    pub utilization: Option<f64>,
    pub avg_queue_delay_ms: Option<f64>,
    pub p95_queue_delay_ms: Option<f64>,
    /// 99th percentile of the queueing delay (L4S's figure, RFC 9330 §1).
    pub p99_queue_delay_ms: Option<f64>,
    /// One-way delay: queueing + propagation.
    pub avg_delay_ms: Option<f64>,
    pub p95_delay_ms: Option<f64>,
    pub jitter_ms: Option<f64>,
    /// The C2TCP paper's jitter (Table I): mean absolute deviation of the
    /// queueing delay from its mean (`delay.rs` says why two jitters).
    pub jitter_mean_deviation_ms: Option<f64>,
    /// Throughput ÷ mean queueing delay, in (Mbit/s)/ms (NATCP).
    pub power: Option<f64>,
    /// Throughput ÷ 95th-percentile queueing delay, in (Mbit/s)/ms (NATCP).
    pub power95: Option<f64>,
    /// Drops ÷ (departures + drops); None on logs without drop lines.
    pub loss_rate: Option<f64>,
    /// Sprout's "95% end-to-end delay" (one-way, propagation included).
    pub e2e_delay_p95_ms: Option<f64>,
    /// The omniscient sender's, over the same stretch of the window.
    pub omniscient_e2e_delay_p95_ms: Option<f64>,
    /// Sprout's self-inflicted delay: the two above, subtracted.
    pub self_inflicted_delay_ms: Option<f64>,
    /// Jain's index over the flows' throughputs (aggregate, ≥ 2 flows).
    pub jain_fairness: Option<f64>,
    /// Flow completion time of a sized flow, measured by the application
    /// (the runner fills it in).
    pub fct_s: Option<f64>,
    /// Mean round-trip time the flow's packets saw: mean one-way delay of its
    /// data plus that of its ACKs on the reverse link (the runner fills it in
    /// from both directions' logs; C2TCP's Target is an average RTT).
    pub avg_rtt_ms: Option<f64>,
    /// TCP retransmissions the sender counted (the runner fills it in).
    pub retransmits: Option<u64>,
    /// Packets and bytes departed, packets dropped, in the window.
    #[serde(default)]
    pub packets: u64,
    #[serde(default)]
    pub bytes: u64,
    #[serde(default)]
    pub dropped_packets: u64,
    /// Drops by reason (tail, head, codel, pie, loss, oversize); zeros left out.
    #[serde(default)]
    pub drops: BTreeMap<String, u64>,
    /// Departures the queue marked CE (ECN instead of a drop, ABC's brakes).
    pub ce_marks: u64,
    /// Those marks by cause, where the queue tells (DualPI2: step, coupled,
    /// classic, overload, as sch_dualpi2's `step_marks`); zeros left out.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub marks: BTreeMap<String, u64>,
    /// On a log whose queue tells L4S packets apart (dualpi2, l4s_ramp):
    /// the sojourn of the packets that went through the L4S queue, and of
    /// the others (Classic); None on other logs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub l4s_queue: Option<QueueSojourn>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub classic_queue: Option<QueueSojourn>,
}

/// The queueing delays of the packets that took one of a dual queue's
/// queues, in the window (delays None when none did).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct QueueSojourn {
    pub packets: u64,
    pub ce_marks: u64,
    pub avg_ms: Option<f64>,
    pub p50_ms: Option<f64>,
    pub p95_ms: Option<f64>,
    pub p99_ms: Option<f64>,
}

impl QueueSojourn {
    fn of(d: &DelayStats, ce_marks: u64) -> QueueSojourn {
        QueueSojourn {
            packets: d.count(),
            ce_marks,
            avg_ms: d.mean_ms(),
            p50_ms: d.quantile_ms(0.5),
            p95_ms: d.quantile_ms(0.95),
            p99_ms: d.quantile_ms(0.99),
        }
    }
}

/// One reported flow: a single 5-tuple, or a labelled group of them.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct FlowMetrics {
    /// Unique name: the group's label, else `flow<id>`.
    pub name: String,
    /// The log's flow id; None for a group (see `members`).
    pub id: Option<u32>,
    pub label: Option<String>,
    /// 5-tuple of the flow (of a group's first member); None if undeclared.
    pub proto: Option<Protocol>,
    pub src: Option<String>,
    pub dst: Option<String>,
    /// Flow ids counted here.
    #[serde(default)]
    pub members: Vec<u32>,
    #[serde(flatten)]
    pub metrics: Metrics,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Window {
    /// Seconds since the log's base timestamp.
    pub start_s: f64,
    pub end_s: f64,
    pub duration_s: f64,
}

/// Everything `metrics::analyze` finds. `metrics.json` is this minus the
/// time series and the CDF, which go to their own CSV files.
///
/// Read back strictly ([`Analysis::read_json`]): every field present, none
/// unknown, `format` this version's ([`FORMAT`]); anything else is an error
/// naming the file and the field, never a run at 0 Mbit/s.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Analysis {
    /// The schema and its version: [`FORMAT`].
    pub format: String,
    /// The analysed log, as given.
    pub log_path: String,
    pub log: LogHeader,
    pub window: Window,
    pub propagation_delay_ms: f64,
    pub config: AnalysisConfig,
    pub aggregate: Metrics,
    pub flows: Vec<FlowMetrics>,
    #[serde(skip)]
    pub timeseries: TimeSeries,
    /// Queueing delay of the aggregate.
    #[serde(skip)]
    pub delay_cdf: DelayCdf,
}

pub const FORMAT: &str = "c2tcp-metrics v1";

impl Analysis {
    /// The reported flow with this label or name, e.g. to fill in `fct_s`.
    pub fn flow_mut(&mut self, name: &str) -> Option<&mut FlowMetrics> {
        self.flows
            .iter_mut()
            .find(|f| f.label.as_deref() == Some(name) || f.name == name)
    }
}

/// Analyses one direction's log (see the crate docs).
pub fn analyze(log_path: &Path, config: &AnalysisConfig) -> Result<Analysis, Error> {
    analyze_reader(LogReader::open(log_path)?, log_path, config)
}

/// Same, from any reader (`path` names it in errors and in the output).
pub fn analyze_reader<R: BufRead>(
    mut reader: LogReader<R>,
    path: &Path,
    config: &AnalysisConfig,
) -> Result<Analysis, Error> {
    config.validate()?;
    let mut run: Option<Analyzer> = None;
    while let Some(event) = reader.next_event()? {
        // The header precedes the first data line, so resolve then.
        run.get_or_insert_with(|| Analyzer::new(config, reader.header()))
            .event(event);
    }
    let header = reader.header().clone();
    let run = run.ok_or_else(|| Error::parse(path, 0, "the log has no events"))?;
    run.finish(path, header)
}

/// Accumulators of one reported flow (or of the aggregate).
#[derive(Clone, Debug, Default)]
struct Tally {
    bytes: u64,
    packets: u64,
    ce_marks: u64,
    marks: [u64; MarkCause::ALL.len()],
    drops: [u64; DropReason::ALL.len()],
    queue_delay: DelayStats,
    e2e: EndToEndDelay,
    /// Split by queue, on logs with an L4S queue only: [Classic, L4S].
    by_queue: Option<Box<[(DelayStats, u64); 2]>>,
}

/// Identity of one reported flow, built as flows appear.
#[derive(Clone, Debug, Default)]
struct Slot {
    id: Option<u32>,
    label: Option<String>,
    info: Option<FlowInfo>,
    members: Vec<u32>,
    tally: Tally,
}

struct Analyzer<'c> {
    config: &'c AnalysisConfig,
    window: Resolved,
    /// The window's configured end, or never.
    limit: Micros,
    grid: Grid,
    /// Log flow id → reported slot, None when not selected.
    flow_slot: HashMap<u32, Option<usize>>,
    slots: Vec<Slot>,
    aggregate: Tally,
    omniscient: Omniscient,
    capacity_bytes: u64,
    binner: Binner,
    last_t: Micros,
    /// The log's queue tells L4S packets apart: keep their delays apart.
    dual_queue: bool,
}

impl<'c> Analyzer<'c> {
    fn new(config: &'c AnalysisConfig, header: &LogHeader) -> Self {
        let window = config.resolve(header);
        let slots = config
            .groups
            .iter()
            .map(|g| Slot {
                label: Some(g.label.clone()),
                ..Slot::default()
            })
            .collect();
        Analyzer {
            config,
            limit: window.end.unwrap_or(Micros::MAX),
            grid: Grid {
                start: window.start,
                step: window.e2e_step,
            },
            binner: Binner::new(window.bin),
            window,
            flow_slot: HashMap::new(),
            slots,
            aggregate: Tally::default(),
            omniscient: Omniscient::default(),
            capacity_bytes: 0,
            last_t: 0,
            dual_queue: header.has_l4s_queue(),
        }
    }

    fn in_window(&self, t: Micros) -> bool {
        t >= self.window.start && t < self.limit
    }

    /// Where a flow's packets count; decided when the flow is first seen.
    fn slot_of(&mut self, id: u32, info: Option<&FlowInfo>) -> Option<usize> {
        if let Some(&slot) = self.flow_slot.get(&id) {
            return slot;
        }
        let slot = self.config.selects(id, info).then(|| {
            let index = self.config.group_of(id, info).unwrap_or_else(|| {
                self.slots.push(Slot {
                    id: Some(id),
                    ..Slot::default()
                });
                self.slots.len() - 1
            });
            let slot = &mut self.slots[index];
            slot.members.push(id);
            if slot.info.is_none() {
                slot.info = info.cloned();
            }
            index
        });
        self.flow_slot.insert(id, slot);
        slot
    }

    fn event(&mut self, event: Event) {
        match event {
            Event::Flow(info) => {
                self.slot_of(info.id, Some(&info));
            }
            Event::Opportunity { t, bytes } => {
                self.last_t = self.last_t.max(t);
                self.binner.opportunity(t, bytes);
                if self.in_window(t) {
                    self.capacity_bytes += u64::from(bytes);
                }
                self.omniscient.opportunity(self.grid, t, self.limit);
            }
            Event::Arrival { t, bytes, .. } => {
                self.last_t = self.last_t.max(t);
                self.binner.arrival(t, bytes);
            }
            Event::Departure {
                t,
                bytes,
                queue_delay,
                flow,
                ce,
                cause,
                l4s,
            } => {
                self.last_t = self.last_t.max(t);
                let Some(slot) = self.slot_of(flow, None) else {
                    return;
                };
                self.binner.departure(t, bytes, queue_delay, slot);
                let in_window = self.in_window(t);
                let sent = t.saturating_sub(queue_delay);
                for tally in [&mut self.slots[slot].tally, &mut self.aggregate] {
                    // Before the window too: the delay function's state carries over.
                    tally.e2e.delivered(self.grid, t, sent, self.limit);
                    if in_window {
                        tally.bytes += u64::from(bytes);
                        tally.packets += 1;
                        tally.ce_marks += u64::from(ce);
                        if let Some(c) = cause.filter(|_| ce) {
                            tally.marks[c.index()] += 1;
                        }
                        tally.queue_delay.record(queue_delay);
                        if self.dual_queue {
                            let (d, marks) = &mut tally
                                .by_queue
                                .get_or_insert_with(Default::default)[usize::from(l4s)];
                            d.record(queue_delay);
                            *marks += u64::from(ce);
                        }
                    }
                }
            }
            Event::Drop {
                t, reason, flow, ..
            } => {
                self.last_t = self.last_t.max(t);
                let Some(slot) = self.slot_of(flow, None) else {
                    return;
                };
                self.binner.drop(t);
                if self.in_window(t) {
                    let reason = reason as usize;
                    self.slots[slot].tally.drops[reason] += 1;
                    self.aggregate.drops[reason] += 1;
                }
            }
        }
    }

    fn finish(mut self, path: &Path, header: LogHeader) -> Result<Analysis, Error> {
        let start = self.window.start;
        let end = self.limit.min(self.last_t);
        if end <= start {
            return Err(Error::Config(format!(
                "{}: the measurement window is empty: the log ends at {:.3} s, the warm-up at {:.3} s",
                path.display(),
                self.last_t as f64 / 1e6,
                start as f64 / 1e6
            )));
        }
        self.omniscient.advance(self.grid, end);
        self.aggregate.e2e.advance(self.grid, end);
        let measure = Measure {
            dual_queue: self.dual_queue,
            duration: end - start,
            capacity_bytes: self.capacity_bytes,
            propagation_ms: self.window.propagation as f64 / 1000.0,
            loss_known: header.is_c2tcp_emu(),
            omniscient: &self.omniscient,
        };
        let mut flows = Vec::with_capacity(self.slots.len());
        for mut slot in self.slots {
            slot.tally.e2e.advance(self.grid, end);
            let name = slot
                .label
                .clone()
                .unwrap_or_else(|| format!("flow{}", slot.id.unwrap_or_default()));
            flows.push(FlowMetrics {
                name,
                id: slot.id,
                label: slot.label,
                proto: slot.info.as_ref().map(|i| i.proto),
                src: slot.info.as_ref().map(|i| i.src.clone()),
                dst: slot.info.as_ref().map(|i| i.dst.clone()),
                members: slot.members,
                metrics: measure.metrics(&slot.tally),
            });
        }
        let mut aggregate = measure.metrics(&self.aggregate);
        aggregate.jain_fairness = jain_fairness(flows.iter().map(|f| f.metrics.throughput_mbps));
        let timeseries = self
            .binner
            .finish(flows.iter().map(|f| f.name.clone()).collect());
        Ok(Analysis {
            format: FORMAT.into(),
            log_path: path.display().to_string(),
            log: header,
            window: Window {
                start_s: start as f64 / 1e6,
                end_s: end as f64 / 1e6,
                duration_s: (end - start) as f64 / 1e6,
            },
            propagation_delay_ms: measure.propagation_ms,
            config: self.config.clone(),
            aggregate,
            flows,
            timeseries,
            delay_cdf: DelayCdf::from_histogram(self.aggregate.queue_delay.histogram()),
        })
    }
}

/// What every flow's metrics share: the window and the link.
struct Measure<'a> {
    dual_queue: bool,
    duration: Micros,
    capacity_bytes: u64,
    propagation_ms: f64,
    loss_known: bool,
    omniscient: &'a Omniscient,
}

impl Measure<'_> {
    fn metrics(&self, tally: &Tally) -> Metrics {
        // bits per µs = Mbit/s
        let mbps = |bytes: u64| bytes as f64 * 8.0 / self.duration as f64;
        let throughput_mbps = mbps(tally.bytes);
        let capacity_mbps = mbps(self.capacity_bytes);
        let per_ms_of =
            |delay: Option<f64>| delay.filter(|&d| d > 0.0).map(|d| throughput_mbps / d);
        let avg_queue_delay_ms = tally.queue_delay.mean_ms();
        let p95_queue_delay_ms = tally.queue_delay.quantile_ms(0.95);
        let queue = |i: usize| {
            self.dual_queue.then(|| match &tally.by_queue {
                Some(q) => QueueSojourn::of(&q[i].0, q[i].1),
                None => QueueSojourn::default(),
            })
        };
        let dropped_packets: u64 = tally.drops.iter().sum();
        let sent_on = tally.packets + dropped_packets;
        let plus_propagation = |d: f64| ns_rounded(d + self.propagation_ms);
        let e2e_delay_p95_ms = tally.e2e.p95_ms().map(plus_propagation);
        let omniscient_e2e_delay_p95_ms = tally
            .e2e
            .first_index()
            .and_then(|first| self.omniscient.p95_ms_from(first))
            .map(plus_propagation);
        Metrics {
            throughput_mbps,
            capacity_mbps,
            utilization: (self.capacity_bytes > 0).then(|| throughput_mbps / capacity_mbps),
            avg_queue_delay_ms,
            p95_queue_delay_ms,
            p99_queue_delay_ms: tally.queue_delay.quantile_ms(0.99),
            avg_delay_ms: avg_queue_delay_ms.map(plus_propagation),
            p95_delay_ms: p95_queue_delay_ms.map(plus_propagation),
            jitter_ms: tally.queue_delay.jitter_ms(),
            jitter_mean_deviation_ms: tally.queue_delay.mean_deviation_ms(),
            power: per_ms_of(avg_queue_delay_ms),
            power95: per_ms_of(p95_queue_delay_ms),
            loss_rate: (self.loss_known && sent_on > 0)
                .then(|| dropped_packets as f64 / sent_on as f64),
            e2e_delay_p95_ms,
            omniscient_e2e_delay_p95_ms,
            self_inflicted_delay_ms: e2e_delay_p95_ms
                .zip(omniscient_e2e_delay_p95_ms)
                .map(|(a, b)| ns_rounded(a - b)),
            jain_fairness: None,
            fct_s: None,
            avg_rtt_ms: None,
            retransmits: None,
            packets: tally.packets,
            ce_marks: tally.ce_marks,
            marks: MarkCause::ALL
                .iter()
                .zip(tally.marks)
                .filter(|(_, n)| *n > 0)
                .map(|(c, n)| (c.name().to_owned(), n))
                .collect(),
            bytes: tally.bytes,
            dropped_packets,
            drops: DropReason::ALL
                .iter()
                .zip(tally.drops)
                .filter(|(_, n)| *n > 0)
                .map(|(r, n)| (r.name().to_owned(), n))
                .collect(),
            classic_queue: queue(0),
            l4s_queue: queue(1),
        }
    }
}

/// Sums of ms figures to the ns, so that 10 + 6.56 prints as 16.56.
fn ns_rounded(ms: f64) -> f64 {
    (ms * 1e6).round() / 1e6
}

/// Jain's fairness index (Σx)² ÷ (n·Σx²): 1 when all equal, 1/n when one
/// flow has everything. None for fewer than two flows or no traffic.
pub fn jain_fairness(throughputs: impl IntoIterator<Item = f64>) -> Option<f64> {
    let (n, sum, sum_sq) = throughputs
        .into_iter()
        .fold((0usize, 0.0, 0.0), |(n, s, q), x| (n + 1, s + x, q + x * x));
    (n >= 2 && sum_sq > 0.0).then(|| sum * sum / (n as f64 * sum_sq))
}

impl Analysis {
    /// An analysis as serialized (`metrics.json`), its path in any error.
    pub fn read_json(path: &std::path::Path) -> Result<Analysis, crate::Error> {
        let text = std::fs::read_to_string(path).map_err(|e| crate::Error::io(path, e))?;
        Analysis::parse_json(&text).map_err(|(line, m)| crate::Error::parse(path, line, m))
    }

    /// The checks of [`Analysis::read_json`] on text: the error's line (0:
    /// the file as a whole) and message, which names the field.
    pub fn parse_json(text: &str) -> Result<Analysis, (u64, String)> {
        // The version first, so a newer or foreign file is named as such
        // rather than by its first unexpected field.
        let value: serde_json::Value =
            serde_json::from_str(text).map_err(|e| (e.line() as u64, e.to_string()))?;
        match value.get("format").and_then(|f| f.as_str()) {
            Some(FORMAT) => {}
            Some(other) => {
                return Err((
                    0,
                    format!("field `format` is `{other}`; this c2tcp reads `{FORMAT}` only"),
                ))
            }
            None => {
                return Err((
                    0,
                    format!("not a c2tcp metrics file: no field `format` (`{FORMAT}`)"),
                ))
            }
        }
        // serde_path_to_error names the field (`aggregate.throughput_mbps`).
        let a: Analysis = serde_path_to_error::deserialize(value).map_err(|e| {
            let at = e.path().to_string();
            (0, format!("field `{at}`: {}", e.inner()))
        })?;
        let finite = |x: f64| x.is_finite() && x >= 0.0;
        let bad = [
            ("aggregate.throughput_mbps", a.aggregate.throughput_mbps),
            ("aggregate.capacity_mbps", a.aggregate.capacity_mbps),
            ("window.duration_s", a.window.duration_s),
        ]
        .into_iter()
        .find(|(_, v)| !finite(*v));
        if let Some((field, v)) = bad {
            return Err((0, format!("field `{field}` is {v}: not a measurement")));
        }
        Ok(a)
    }
}
