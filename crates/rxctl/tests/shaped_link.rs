// SPDX-License-Identifier: GPL-2.0-only
//! The controller on real kernel TCP across a shaped bottleneck: two
//! namespaces joined by veth, a tbf of 8 Mbit/s with a 300 KB queue (300 ms
//! when full, a bufferbloated eNodeB) on the sender's side, Cubic senders.
//! Each test compares plain receivers with controlled ones on the same link,
//! in the same test; bounds are ratios, generous for a loaded machine.
mod common;

use std::time::Duration;

use common::{Bottleneck, FlowSpec};
use rxctl::Config;

const RATE: &str = "8mbit";
const QUEUE: u32 = 300_000;

fn secs(s: f64) -> Duration {
    Duration::from_secs_f64(s)
}

#[test]
fn receiver_control_keeps_the_queue_far_below_cubics_at_the_same_goodput() {
    if !testkit::require_root(
        "receiver_control_keeps_the_queue_far_below_cubics_at_the_same_goodput",
    ) {
        return;
    }
    let long = [FlowSpec {
        label: "long".into(),
        start: Duration::ZERO,
        size: None,
    }];
    // Measured once DFCSD has walked down from the kernel's initial window
    // (one MSS per RTT) and while Cubic's queue keeps growing.
    let (from, to) = (secs(3.0), secs(4.0));
    let mut seen = Vec::new();
    for (name, cfg) in [
        ("cubic", None),
        ("dfcsd", Some(Config::dfcsd())),
        ("drwa", Some(Config::drwa())),
    ] {
        let b = Bottleneck::new(RATE, QUEUE).unwrap();
        let (res, records) = common::run(&b, &long, secs(4.0), cfg).unwrap();
        let r = &res[0];
        assert!(r.error.is_none(), "{name}: {:?}", r.error);
        let q = r.mean_queueing_ms(from, to).unwrap();
        let g = r.goodput(secs(1.0), to).unwrap();
        eprintln!(
            "{name}: queueing {q:.1} ms, goodput {:.2} Mbit/s, {} decisions",
            g * 8e-6,
            records.first().map_or(0, |r| r.rows.len())
        );
        if name != "cubic" {
            let rows = &records[0].rows;
            assert!(rows.len() > 20, "{name}: {} decisions", rows.len());
            // As root the tap opens and the flow carries timestamps: the
            // RTT is the echo's, the path's RTT as the sender sees it.
            assert_eq!(records[0].rtt_source, "timestamp_echo", "{name}");
            let ours = rows
                .iter()
                .filter(|r| r.t_s >= from.as_secs_f64() && r.t_s < to.as_secs_f64())
                .map(|r| r.rtt_ms)
                .collect::<Vec<_>>();
            let ours = ours.iter().sum::<f64>() / ours.len().max(1) as f64;
            let sender = r.mean_srtt_ms(from, to).unwrap();
            eprintln!("{name}: echo RTT {ours:.1} ms, sender's srtt {sender:.1} ms");
            // Within 30 % (or 1 ms: the sender's srtt also holds the
            // receiver's ACK delay, a fifth of DRWA's 3-ms RTT here).
            assert!(
                (ours - sender).abs() <= (0.3 * sender).max(1.0),
                "{name}: echo RTT {ours:.1} ms vs the sender's srtt {sender:.1} ms"
            );
            assert!(
                rows.iter().all(|r| r.rwnd_bytes >= 2 * 1448),
                "{name}: below 2 MSS"
            );
        }
        seen.push((name, q, g));
    }
    let (_, q_cubic, g_cubic) = seen[0];
    assert!(
        q_cubic > 50.0,
        "Cubic should fill the queue: {q_cubic:.1} ms"
    );
    for &(name, q, g) in &seen[1..] {
        assert!(
            q <= 0.35 * q_cubic,
            "{name}: queueing {q:.1} ms vs Cubic's {q_cubic:.1} ms"
        );
        assert!(
            g >= 0.8 * g_cubic,
            "{name}: goodput {:.2} vs Cubic's {:.2} Mbit/s",
            g * 8e-6,
            g_cubic * 8e-6
        );
    }
}

#[test]
fn a_short_flow_competing_with_a_long_one_finishes_sooner_with_dfcsd() {
    if !testkit::require_root("a_short_flow_competing_with_a_long_one_finishes_sooner_with_dfcsd") {
        return;
    }
    let short_at = 3.0;
    let flows = [
        FlowSpec {
            label: "long".into(),
            start: Duration::ZERO,
            size: None,
        },
        FlowSpec {
            label: "short".into(),
            start: secs(short_at),
            size: Some(128_000),
        },
    ];
    let mut fct = Vec::new();
    for (name, cfg) in [("cubic", None), ("dfcsd", Some(Config::dfcsd()))] {
        let b = Bottleneck::new(RATE, QUEUE).unwrap();
        let (res, records) = common::run(&b, &flows, secs(short_at + 10.0), cfg).unwrap();
        let f = res[1]
            .fct
            .unwrap_or_else(|| panic!("{name}: the short flow did not complete: {:?}", res[1]));
        eprintln!(
            "{name}: short-flow completion {:.3} s, long-flow retrans {}",
            f.as_secs_f64(),
            res[0].retrans
        );
        fct.push(f.as_secs_f64());
        if name == "dfcsd" {
            // Service differentiation on the real sockets: while both flows
            // were active the short one had the larger allowance.
            let short = records.iter().find(|r| r.label == "short").unwrap();
            let (from, to) = (short.registered_at_s, short.retired_at_s.unwrap());
            let mean_gamma = |label: &str| {
                let r = records.iter().find(|r| r.label == label).unwrap();
                let g: Vec<f64> = r
                    .rows
                    .iter()
                    .filter(|row| row.t_s > from && row.t_s < to)
                    .filter_map(|row| row.gamma_pkts)
                    .collect();
                assert!(
                    !g.is_empty(),
                    "{label}: no decisions while both were active"
                );
                g.iter().sum::<f64>() / g.len() as f64
            };
            let (g_short, g_long) = (mean_gamma("short"), mean_gamma("long"));
            assert!(
                g_short > 2.0 * g_long,
                "γ short {g_short:.1} vs long {g_long:.1}"
            );
        }
    }
    let (cubic, dfcsd) = (fct[0], fct[1]);
    assert!(
        dfcsd <= 0.5 * cubic,
        "short-flow completion: DFCSD {dfcsd:.3} s vs Cubic {cubic:.3} s"
    );
}
