// SPDX-License-Identifier: GPL-2.0-only
//! Did the run measure what it claims? A run is `done` only when every flow
//! ended the way its driver expects and moved data across the emulated link.
//!
//! The checks, in order, per flow:
//! 1. its endpoints reported no error (a sender that could not set its
//!    congestion control, an iperf3 that exited non-zero, a receiver that
//!    never heard from its sender, ...): the run fails, naming the flow and
//!    the error its driver recorded (the child's stderr tail where there is
//!    a child);
//! 2. its receiver got at least one byte: as its endpoints counted, or, for
//!    a flow whose endpoints count nothing (a `command` scheme's programs,
//!    measured from the emulator's logs like every other scheme), as the
//!    run's analysis of the logs found under its label (or, when it is the
//!    run's only flow, across the link).
//!
//! A flow that moved nothing (with or without an error) does not fail the
//! run when its direction, or the reverse one its handshake, ACKs and
//! feedback need, offered no capacity at all during the run (an outage from
//! end to end): nothing *could* move, and the run says so, with the flow's
//! error, in a note of `run.json` instead of passing silently.
//!
//! A failure here comes after the analysis is written, so the metrics of a
//! failed run stay beside it for diagnosis; `run.json` says `failed`, and
//! only `done` counts anywhere (`docs/results-layout.md`).
use anyhow::{bail, Result};
use emu::EmulatorStats;
use metrics::Analysis;

use crate::flows::FlowOutcome;
use crate::scenario::Direction;

/// Checks the flows' outcomes against what the emulator offered; returns
/// the notes a `done` run carries (flows that legitimately moved nothing).
pub fn check(
    outcomes: &[FlowOutcome],
    emulator: Option<&EmulatorStats>,
    analysis: Option<&Analysis>,
) -> Result<Vec<String>> {
    let mut notes = Vec::new();
    for o in outcomes {
        let name = format!("flow {} ({}, {})", o.index, o.label, o.scheme);
        if o.error.is_none() && (o.bytes_received > 0 || seen_in_the_logs(o, outcomes, analysis)) {
            continue;
        }
        // Data goes one way, handshakes, ACKs and feedback the other: a
        // direction with no capacity at all leaves nothing to measure.
        let Some(stats) = emulator else {
            bail!("{name}: {}, and the emulator's counts are missing", what(o));
        };
        let uplink = o.direction == Direction::Uplink.to_string();
        let (data, back) = match uplink {
            true => (&stats.uplink, &stats.downlink),
            false => (&stats.downlink, &stats.uplink),
        };
        let dead = match (data.capacity_bytes, back.capacity_bytes) {
            (0, _) => Some(o.direction.clone()),
            (_, 0) => Some(format!(
                "reverse ({})",
                if uplink { "downlink" } else { "uplink" }
            )),
            _ => None,
        };
        match (dead, o.bytes_received) {
            (Some(dir), 0) => notes.push(format!(
                "{name} moved no data: its {dir} trace offered no capacity during the run{}",
                o.error
                    .as_ref()
                    .map(|e| format!(" ({e})"))
                    .unwrap_or_default()
            )),
            _ => bail!(
                "{name}: {} (its {} offered {} bytes)",
                what(o),
                o.direction,
                data.capacity_bytes
            ),
        }
    }
    Ok(notes)
}

/// Whether the logs' analysis saw data of a flow whose endpoints counted
/// nothing at all (neither sent nor received: they cannot count).
fn seen_in_the_logs(o: &FlowOutcome, all: &[FlowOutcome], analysis: Option<&Analysis>) -> bool {
    let Some(a) = analysis else {
        return false;
    };
    if o.bytes_sent != 0 {
        return false; // it counted, and its receiver got nothing
    }
    let by_label = a
        .flows
        .iter()
        .any(|f| f.name == o.label && f.metrics.throughput_mbps > 0.0);
    by_label || (all.len() == 1 && a.aggregate.throughput_mbps > 0.0)
}

/// What went wrong with a flow that did not pass.
fn what(o: &FlowOutcome) -> String {
    match &o.error {
        Some(e) => format!("failed: {e}"),
        None => format!(
            "moved no data across the link ({} bytes sent): the flow did not run as its scheme claims",
            o.bytes_sent
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use emu::DirectionStats;

    fn flow(received: u64, error: Option<&str>) -> FlowOutcome {
        FlowOutcome {
            index: 0,
            label: "flow0".into(),
            scheme: "iperf3:nosuchcc".into(),
            direction: Direction::Downlink.to_string(),
            bytes_received: received,
            error: error.map(str::to_owned),
            ..Default::default()
        }
    }

    fn offered(down: u64) -> EmulatorStats {
        EmulatorStats {
            downlink: DirectionStats {
                capacity_bytes: down,
                ..Default::default()
            },
            uplink: DirectionStats {
                capacity_bytes: 1_000_000,
                ..Default::default()
            },
        }
    }

    #[test]
    fn a_flow_with_an_error_fails_the_run_naming_it() {
        let e = check(
            &[flow(5000, Some("iperf3: unable to set TCP_CONGESTION"))],
            Some(&offered(1)),
            None,
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("flow 0") && e.contains("TCP_CONGESTION"), "{e}");
    }

    #[test]
    fn a_flow_that_moved_nothing_over_a_live_link_fails() {
        let e = check(&[flow(0, None)], Some(&offered(1_000_000)), None).unwrap_err();
        assert!(e.to_string().contains("moved no data"), "{e}");
    }

    #[test]
    fn a_flow_over_a_dead_link_may_move_nothing_and_says_so() {
        let notes = check(&[flow(0, None)], Some(&offered(0)), None).unwrap();
        assert_eq!(notes.len(), 1);
        assert!(notes[0].contains("offered no capacity"), "{notes:?}");
    }

    #[test]
    fn a_connect_that_failed_over_a_dead_link_is_a_note_with_its_error() {
        let notes = check(
            &[flow(0, Some("connecting: timed out"))],
            Some(&offered(0)),
            None,
        )
        .unwrap();
        assert!(notes[0].contains("timed out"), "{notes:?}");
    }

    #[test]
    fn an_error_after_data_moved_fails_even_over_a_dead_link() {
        assert!(check(
            &[flow(10, Some("receiver: reset"))],
            Some(&offered(0)),
            None
        )
        .is_err());
    }

    #[test]
    fn flows_that_moved_data_pass_without_notes() {
        assert!(check(&[flow(1, None)], Some(&offered(1)), None)
            .unwrap()
            .is_empty());
    }

    #[test]
    fn a_flow_whose_endpoints_count_nothing_passes_on_the_logs_evidence() {
        let mut a = Analysis::default();
        a.flows.push(metrics::FlowMetrics {
            name: "flow0".into(),
            ..Default::default()
        });
        // The logs saw nothing of it: it fails like any other.
        assert!(check(&[flow(0, None)], Some(&offered(1)), Some(&a)).is_err());
        a.flows[0].metrics.throughput_mbps = 3.0;
        assert!(check(&[flow(0, None)], Some(&offered(1)), Some(&a))
            .unwrap()
            .is_empty());
        // A flow that counted what it sent cannot borrow the logs' word.
        let counted = FlowOutcome {
            bytes_sent: 10_000,
            ..flow(0, None)
        };
        assert!(check(&[counted], Some(&offered(1)), Some(&a)).is_err());
    }
}
