// SPDX-License-Identifier: GPL-2.0-only
//! After a run: the emulator's logs through the metrics crate, joined with
//! what only the endpoints know, into the results layout
//! (`docs/results-layout.md`): `metrics.json`, `timeseries.csv`,
//! `delay_cdf.csv` and `flows.csv`.
//!
//! Each label is one group, its flows matched by port (flow i uses port
//! BASE_PORT + i at one end, data and ACKs alike): flows that share a label
//! (the short flows of a `<label>.count` sweep) are measured together, their
//! `fct_s` the mean of their completion times (none until all completed) and
//! their retransmissions summed. A flow's data is measured on the log of its
//! direction; its ACKs on the other log give the reverse half of its
//! round-trip time.
use std::path::Path;

use anyhow::{Context, Result};
use metrics::{Analysis, AnalysisConfig, FlowGroup, FlowMatch};

use crate::flows::FlowOutcome;
use crate::scenario::{Direction, Scenario};

/// The labels of `outcomes` in order of first appearance, each with its flows.
fn by_label<'a>(outcomes: &[&'a FlowOutcome]) -> Vec<(String, Vec<&'a FlowOutcome>)> {
    let mut out: Vec<(String, Vec<&FlowOutcome>)> = Vec::new();
    for o in outcomes {
        match out.iter_mut().find(|(l, _)| *l == o.label) {
            Some((_, v)) => v.push(o),
            None => out.push((o.label.clone(), vec![o])),
        }
    }
    out
}

fn config(sc: &Scenario, outcomes: &[&FlowOutcome]) -> AnalysisConfig {
    let groups: Vec<FlowGroup> = by_label(outcomes)
        .into_iter()
        .map(|(label, flows)| FlowGroup {
            label,
            members: flows.iter().map(|o| FlowMatch::port(o.port)).collect(),
        })
        .collect();
    AnalysisConfig {
        warmup_s: sc.link.warmup_s,
        duration_s: Some(sc.link.duration_s - sc.link.warmup_s),
        select: groups.iter().flat_map(|g| g.members.clone()).collect(),
        groups,
        ..Default::default()
    }
}

/// Analyses one direction's flows: data on `data_log`, ACKs on `ack_log`.
fn analyze_direction(
    sc: &Scenario,
    data_log: &Path,
    ack_log: &Path,
    outcomes: &[&FlowOutcome],
) -> Result<Analysis> {
    let cfg = config(sc, outcomes);
    let mut a = metrics::analyze(data_log, &cfg)
        .with_context(|| format!("analysing {}", data_log.display()))?;
    let acks = metrics::analyze(ack_log, &cfg)
        .with_context(|| format!("analysing {}", ack_log.display()))?;
    for (label, flows) in by_label(outcomes) {
        let ack_delay = acks
            .flows
            .iter()
            .find(|f| f.name == label)
            .and_then(|f| f.metrics.avg_delay_ms);
        if let Some(f) = a.flow_mut(&label) {
            let fcts: Option<Vec<f64>> = flows.iter().map(|o| o.fct_s).collect();
            f.metrics.fct_s = fcts.map(|v| v.iter().sum::<f64>() / v.len() as f64);
            f.metrics.retransmits = Some(flows.iter().map(|o| o.retransmits as u64).sum());
            f.metrics.avg_rtt_ms = f.metrics.avg_delay_ms.zip(ack_delay).map(|(d, r)| d + r);
        }
    }
    a.aggregate.avg_rtt_ms = a
        .aggregate
        .avg_delay_ms
        .zip(acks.aggregate.avg_delay_ms)
        .map(|(d, r)| d + r);
    a.aggregate.retransmits = Some(outcomes.iter().map(|o| o.retransmits as u64).sum());
    Ok(a)
}

/// Writes the run's analysis into `out`; returns the downlink analysis
/// (or the uplink one when every flow is an uplink flow).
pub fn analyze(sc: &Scenario, out: &Path, outcomes: &[FlowOutcome]) -> Result<Analysis> {
    analyze_logs(
        sc,
        out,
        outcomes,
        &out.join(results::DOWNLINK_LOG),
        &out.join(results::UPLINK_LOG),
    )
}

/// `analyze` from other logs than the emulator's (the flows inside a
/// tunnel: `tunnel.rs`'s `tunnel-downlink.log` / `tunnel-uplink.log`).
pub fn analyze_logs(
    sc: &Scenario,
    out: &Path,
    outcomes: &[FlowOutcome],
    down_log: &Path,
    up_log: &Path,
) -> Result<Analysis> {
    let down: Vec<&FlowOutcome> = outcomes
        .iter()
        .filter(|o| o.direction == Direction::Downlink.to_string())
        .collect();
    let up: Vec<&FlowOutcome> = outcomes
        .iter()
        .filter(|o| o.direction == Direction::Uplink.to_string())
        .collect();
    let main = if !down.is_empty() {
        let a = analyze_direction(sc, down_log, up_log, &down)?;
        if !up.is_empty() {
            // Uplink flows beside downlink ones: their own analysis, aside.
            results::write_analysis(
                &out.join("uplink"),
                &analyze_direction(sc, up_log, down_log, &up)?,
            )?;
        }
        a
    } else {
        analyze_direction(sc, up_log, down_log, &up)?
    };
    results::write_analysis(out, &main)?;
    write_flows_csv(out, outcomes, &main)?;
    Ok(main)
}

/// `flows.csv`: one row per scenario flow, endpoint counts beside metrics
/// (those of its label's group when several flows share the label).
fn write_flows_csv(out: &Path, outcomes: &[FlowOutcome], a: &Analysis) -> Result<()> {
    let path = out.join(results::FLOWS_CSV);
    wholefile::write_with(&path, |f| {
        flows_rows(csv::Writer::from_writer(f), outcomes, a)
    })
    .with_context(|| format!("writing {}", path.display()))
}

fn flows_rows<W: std::io::Write>(
    mut w: csv::Writer<W>,
    outcomes: &[FlowOutcome],
    a: &Analysis,
) -> Result<(), csv::Error> {
    w.write_record([
        "flow",
        "label",
        "scheme",
        "direction",
        "start_s",
        "size_bytes",
        "bytes_sent",
        "bytes_received",
        "throughput_mbps",
        "avg_queue_delay_ms",
        "p95_queue_delay_ms",
        "avg_rtt_ms",
        "loss_rate",
        "fct_s",
        "retransmits",
        "error",
    ])?;
    let num = |v: Option<f64>| v.map(|x| format!("{x:.3}")).unwrap_or_default();
    for o in outcomes {
        let m = a
            .flows
            .iter()
            .find(|f| f.name == o.label)
            .map(|f| &f.metrics);
        w.write_record([
            o.index.to_string(),
            o.label.clone(),
            o.scheme.clone(),
            o.direction.clone(),
            format!("{:.3}", o.start_s),
            o.size_bytes.map(|s| s.to_string()).unwrap_or_default(),
            o.bytes_sent.to_string(),
            o.bytes_received.to_string(),
            num(m.map(|m| m.throughput_mbps)),
            num(m.and_then(|m| m.avg_queue_delay_ms)),
            num(m.and_then(|m| m.p95_queue_delay_ms)),
            num(m.and_then(|m| m.avg_rtt_ms)),
            num(m.and_then(|m| m.loss_rate)),
            num(o.fct_s),
            o.retransmits.to_string(),
            o.error.clone().unwrap_or_default(),
        ])?;
    }
    w.flush()?;
    Ok(())
}
