// SPDX-License-Identifier: GPL-2.0-only
//! Metrics on hand-written logs whose answers are worked out in the comments.
use std::fmt::Write;
use std::path::{Path, PathBuf};

use metrics::{analyze, AnalysisConfig, Error, FlowGroup, FlowMatch, Protocol};

const HEADER: &str = "# base timestamp: 1000\n\
# c2tcp-emu v1 direction=downlink opportunity_bytes=1500 delay_ms=10 queue=droptail:packets=100 loss=0\n";

fn write_log(dir: &tempfile::TempDir, name: &str, text: &str) -> PathBuf {
    let path = dir.path().join(name);
    std::fs::write(&path, text).unwrap();
    path
}

/// One opportunity of 1500 bytes every ms in [from, to] ms.
fn opportunities(log: &mut String, from: u32, to: u32) {
    for t in from..=to {
        writeln!(log, "{t}.000 # 1500").unwrap();
    }
}

/// A departure at `t` ms after `qd` ms in the queue, with its arrival line.
fn packet(log: &mut String, t: f64, qd: f64, flow: u32) {
    writeln!(log, "{:.3} + 1500 {flow}", t - qd).unwrap();
    writeln!(log, "{t:.3} - 1500 {qd:.3} {flow}").unwrap();
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-9
}

fn window(duration_s: f64) -> AnalysisConfig {
    AnalysisConfig {
        duration_s: Some(duration_s),
        e2e_sample_ms: 1.0,
        ..AnalysisConfig::default()
    }
}

/// 100 ms at 12 Mbit/s; flow 1 gets 10 packets, departing at 5, 15, …, 95 ms
/// after 2, 4, 2, 4 … ms in the queue, and loses two to tail drops.
fn single_flow_log() -> String {
    let mut log = format!("{HEADER}# flow 1 tcp 10.0.0.1:5000 > 10.0.0.2:6000\n");
    opportunities(&mut log, 0, 100);
    for k in 0..10 {
        packet(
            &mut log,
            5.0 + 10.0 * k as f64,
            if k % 2 == 0 { 2.0 } else { 4.0 },
            1,
        );
    }
    log.push_str("40.500 d 1500 tail 1\n60.500 d 1500 tail 1\n");
    log
}

#[test]
fn single_flow_metrics_have_their_known_values() {
    let dir = tempfile::tempdir().unwrap();
    let path = write_log(&dir, "down.log", &single_flow_log());
    let a = analyze(&path, &window(0.1)).unwrap();
    assert_eq!((a.window.start_s, a.window.end_s), (0.0, 0.1));
    assert_eq!(a.propagation_delay_ms, 10.0, "taken from the header");
    assert_eq!(a.log.direction.as_deref(), Some("downlink"));
    let m = &a.aggregate;
    // 100 opportunities × 1500 B × 8 / 100 ms; 10 packets × 1500 B × 8 / 100 ms
    assert!(close(m.capacity_mbps, 12.0), "{}", m.capacity_mbps);
    assert!(close(m.throughput_mbps, 1.2), "{}", m.throughput_mbps);
    assert!(close(m.utilization.unwrap(), 0.1));
    assert_eq!(
        (m.avg_queue_delay_ms, m.p95_queue_delay_ms),
        (Some(3.0), Some(4.0))
    );
    assert_eq!((m.avg_delay_ms, m.p95_delay_ms), (Some(13.0), Some(14.0)));
    assert_eq!(m.jitter_ms, Some(2.0));
    assert!(m.jitter_mean_deviation_ms.is_some_and(|j| j > 0.0));
    assert!(close(m.power.unwrap(), 1.2 / 3.0) && close(m.power95.unwrap(), 1.2 / 4.0));
    assert!(close(m.loss_rate.unwrap(), 2.0 / 12.0));
    assert_eq!((m.packets, m.bytes, m.dropped_packets), (10, 15_000, 2));
    assert_eq!(m.drops.get("tail"), Some(&2));
    // Sprout's function, sampled each ms from the first delivery (5 ms):
    // t − 3 over [5,15), t − 11 over [15,25), …: five stretches of 2..=11 ms,
    // four of 4..=13 ms, then 4..=8 ms: 95 samples, the 91st smallest is 12 ms.
    // The omniscient sender has an opportunity every ms: always 0.
    assert_eq!(m.e2e_delay_p95_ms, Some(22.0));
    assert_eq!(m.omniscient_e2e_delay_p95_ms, Some(10.0));
    assert_eq!(m.self_inflicted_delay_ms, Some(12.0));
    assert_eq!(m.jain_fairness, None, "one flow");
    assert_eq!(m.fct_s, None);
    // The one flow is the aggregate, with its 5-tuple.
    let [f] = &a.flows[..] else {
        panic!("{:?}", a.flows)
    };
    assert_eq!(
        (f.name.as_str(), f.id, f.proto),
        ("flow1", Some(1), Some(Protocol::Tcp))
    );
    assert_eq!(
        (f.src.as_deref(), f.dst.as_deref()),
        (Some("10.0.0.1:5000"), Some("10.0.0.2:6000"))
    );
    assert_eq!(f.metrics, *m);
}

#[test]
fn warmup_skips_the_start_but_the_delay_function_carries_over() {
    let dir = tempfile::tempdir().unwrap();
    let path = write_log(&dir, "down.log", &single_flow_log());
    let config = AnalysisConfig {
        warmup_s: 0.05,
        ..window(0.05)
    };
    let a = analyze(&path, &config).unwrap();
    assert_eq!((a.window.start_s, a.window.duration_s), (0.05, 0.05));
    let m = &a.aggregate;
    // Departures at 55 (4 ms), 65 (2), 75 (4), 85 (2), 95 (4); the 60.5 ms drop.
    assert!(close(m.throughput_mbps, 5.0 * 1500.0 * 8.0 / 50_000.0));
    assert!(close(m.capacity_mbps, 12.0));
    assert_eq!(m.avg_queue_delay_ms, Some(3.2));
    assert!(close(m.loss_rate.unwrap(), 1.0 / 6.0));
    // At 50 ms the function is already defined (the packet sent at 43 ms
    // arrived at 45 ms): 7..=11, then 4..=13, 2..=11, 4..=13, 2..=11, 4..=8:
    // 50 samples, 46 of them ≤ 11 ms and 48 ≤ 12 ms; the 48th smallest is 12.
    assert_eq!(m.e2e_delay_p95_ms, Some(10.0 + 12.0));
}

#[test]
fn idle_link_and_several_flows_give_capacity_fairness_and_series() {
    let mut log = format!(
        "{HEADER}# flow 1 tcp 10.0.0.1:5000 > 10.0.0.2:6000\n\
         # flow 2 tcp 10.0.0.1:5001 > 10.0.0.2:6001\n\
         # flow 3 icmp 10.0.0.1:0 > 10.0.0.2:0\n"
    );
    // The link offers nothing after 49 ms (an outage) until 100 ms.
    opportunities(&mut log, 0, 49);
    packet(&mut log, 10.0, 1.0, 1);
    packet(&mut log, 30.0, 1.0, 2);
    packet(&mut log, 35.0, 3.0, 3); // a ping: not load, left out by default
    packet(&mut log, 40.0, 1.0, 1);
    packet(&mut log, 45.0, 1.0, 1);
    log.push_str("100.000 # 1500\n");
    let dir = tempfile::tempdir().unwrap();
    let path = write_log(&dir, "down.log", &log);
    let config = AnalysisConfig {
        bin_ms: 25.0,
        ..window(0.1)
    };
    let a = analyze(&path, &config).unwrap();
    let m = &a.aggregate;
    assert!(
        close(m.capacity_mbps, 6.0),
        "50 opportunities in 100 ms: {}",
        m.capacity_mbps
    );
    assert!(close(m.throughput_mbps, 0.48));
    assert_eq!(m.packets, 4, "the ping is not counted");
    // Flows get 0.36 and 0.12 Mbit/s: (0.48)² / (2 × (0.36² + 0.12²)) = 0.8
    assert!(
        close(m.jain_fairness.unwrap(), 0.8),
        "{:?}",
        m.jain_fairness
    );
    let names: Vec<_> = a.flows.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(names, ["flow1", "flow2"]);
    // Omniscient: 0 while the link delivers, then 1..=50 ms through the outage
    // (last opportunity 49 ms); from the aggregate's first delivery (10 ms):
    // 40 zeros and 1..=50 → 90 samples, the 86th smallest is 46 ms.
    assert_eq!(m.omniscient_e2e_delay_p95_ms, Some(10.0 + 46.0));
    // 25 ms bins: capacity 12, 12, 0, 0 Mbit/s; 1 then 3 selected packets
    // (one 1500-byte packet in a bin is 0.48 Mbit/s); the ping is ingress only.
    let ts = &a.timeseries;
    assert_eq!(ts.bin_s, 0.025);
    let capacity: Vec<f64> = ts.rows.iter().map(|r| r.capacity_mbps).take(4).collect();
    assert_eq!(capacity, [12.0, 12.0, 0.0, 0.0]);
    assert_eq!(ts.rows[0].throughput_mbps, 0.48);
    assert!(close(ts.rows[1].throughput_mbps, 1.44));
    assert!(close(ts.rows[1].ingress_mbps, 1.92));
    assert_eq!(ts.rows[1].flow_throughput_mbps, [0.96, 0.48]);
    assert_eq!(ts.rows[1].queue_delay_mean_ms, Some(1.0));
    assert_eq!(ts.rows[2].queue_delay_mean_ms, None);
    assert_eq!(ts.flow_names, ["flow1", "flow2"]);
}

#[test]
fn groups_and_selection_by_port() {
    let mut log = format!(
        "{HEADER}# flow 1 tcp 10.0.0.1:5201 > 10.0.0.2:40000\n\
         # flow 2 tcp 10.0.0.1:5201 > 10.0.0.2:40001\n\
         # flow 3 udp 10.0.0.1:9000 > 10.0.0.2:9000\n"
    );
    opportunities(&mut log, 0, 100);
    packet(&mut log, 10.0, 1.0, 1);
    packet(&mut log, 20.0, 1.0, 2);
    packet(&mut log, 30.0, 1.0, 3);
    let dir = tempfile::tempdir().unwrap();
    let path = write_log(&dir, "down.log", &log);
    let config = AnalysisConfig {
        select: vec![FlowMatch::port(5201)],
        groups: vec![
            FlowGroup {
                label: "iperf".into(),
                members: vec![FlowMatch::port(5201)],
            },
            FlowGroup {
                label: "never-seen".into(),
                members: vec![FlowMatch::id(42)],
            },
        ],
        ..window(0.1)
    };
    let a = analyze(&path, &config).unwrap();
    assert_eq!(a.aggregate.packets, 2, "the UDP flow is not selected");
    let [iperf, unseen] = &a.flows[..] else {
        panic!("{:?}", a.flows)
    };
    assert_eq!(
        (iperf.name.as_str(), iperf.id, &iperf.members[..]),
        ("iperf", None, &[1, 2][..])
    );
    assert_eq!(iperf.metrics.packets, 2);
    assert_eq!(
        (
            unseen.name.as_str(),
            unseen.metrics.packets,
            unseen.metrics.throughput_mbps
        ),
        ("never-seen", 0, 0.0)
    );
    assert_eq!(unseen.metrics.avg_queue_delay_ms, None);
}

#[test]
fn plain_mahimahi_logs_are_read_relative_to_their_base() {
    // mm-link counts from its own start; the base is when the link came up.
    let mut log = String::from(
        "# mahimahi mm-link [down] > log\n# init timestamp: 0\n# base timestamp: 5000\n",
    );
    for t in 5000..5100 {
        writeln!(log, "{t} # 1504").unwrap();
    }
    log.push_str("5005 + 1500\n5010 - 1500 5\n5020 + 1500\n5030 - 1500 10\n5100 # 1504\n");
    let dir = tempfile::tempdir().unwrap();
    let path = write_log(&dir, "mm.log", &log);
    let a = analyze(&path, &window(0.1)).unwrap();
    assert_eq!(a.log.format, "mahimahi");
    assert_eq!(a.propagation_delay_ms, 0.0, "not in a plain log's header");
    let m = &a.aggregate;
    assert!(close(m.capacity_mbps, 100.0 * 1504.0 * 8.0 / 100_000.0));
    assert_eq!((m.avg_queue_delay_ms, m.jitter_ms), (Some(7.5), Some(5.0)));
    assert_eq!(m.loss_rate, None, "mm-link does not log drops");
    assert_eq!(a.flows[0].name, "flow0");
    // A propagation delay given in the config is used instead.
    let config = AnalysisConfig {
        propagation_delay_ms: Some(20.0),
        ..window(0.1)
    };
    assert_eq!(
        analyze(&path, &config).unwrap().aggregate.avg_delay_ms,
        Some(27.5)
    );
}

#[test]
fn uplink_logs_are_analysed_alike() {
    let log = single_flow_log().replace("direction=downlink", "direction=uplink");
    let dir = tempfile::tempdir().unwrap();
    let a = analyze(&write_log(&dir, "up.log", &log), &window(0.1)).unwrap();
    assert_eq!(a.log.direction.as_deref(), Some("uplink"));
    assert!(close(a.aggregate.throughput_mbps, 1.2));
}

fn parse_error(text: &str) -> (u64, String) {
    let dir = tempfile::tempdir().unwrap();
    let path = write_log(&dir, "bad.log", text);
    match analyze(&path, &AnalysisConfig::default()) {
        Err(e @ Error::Parse { .. }) => {
            let Error::Parse { line, ref path, .. } = e else {
                unreachable!()
            };
            assert!(
                e.to_string()
                    .starts_with(&format!("{}:{line}: ", path.display())),
                "{e}"
            );
            (line, e.to_string())
        }
        other => panic!("expected a parse error, got {other:?}"),
    }
}

#[test]
fn bad_lines_are_reported_with_file_and_line() {
    let (line, msg) = parse_error(&format!("{HEADER}0.000 # 1500\n1.000 + abc 1\n"));
    assert_eq!(line, 4);
    assert!(msg.contains("byte count"), "{msg}");
    assert_eq!(parse_error(&format!("{HEADER}1.000 ? 1500\n")).0, 3);
    assert_eq!(
        parse_error(&format!("{HEADER}1.000 d 1500 gremlins 1\n")).0,
        3
    );
    assert_eq!(parse_error(&format!("{HEADER}1.000 - 1500\n")).0, 3);
    assert_eq!(parse_error(&format!("{HEADER}-1.000 # 1500\n")).0, 3);
    assert_eq!(parse_error(&format!("{HEADER}1.000 + 1500 1 7\n")).0, 3);
    let (line, msg) = parse_error(&format!("{HEADER}1.000 - 1500 0.5 1 ect\n"));
    assert!(line == 3 && msg.contains("is not `ce`"), "{msg}");
    let (line, msg) = parse_error(&format!("{HEADER}1.000 - 1500 0.5 1 ce:gremlins\n"));
    assert!(line == 3 && msg.contains("mark cause"), "{msg}");
    assert_eq!(
        parse_error("# base timestamp: 0\n# flow x tcp a:1 > b:2\n").0,
        2
    );
    assert_eq!(parse_error("# base timestamp: 0\n# c2tcp-emu v9\n").0, 2);
}

#[test]
fn an_empty_window_or_a_bad_config_is_an_error_not_zeros() {
    let dir = tempfile::tempdir().unwrap();
    let path = write_log(&dir, "down.log", &single_flow_log());
    let late = AnalysisConfig {
        warmup_s: 5.0,
        ..AnalysisConfig::default()
    };
    assert!(
        matches!(analyze(&path, &late), Err(Error::Config(m)) if m.contains("window is empty"))
    );
    let bad = AnalysisConfig {
        bin_ms: 0.0,
        ..AnalysisConfig::default()
    };
    assert!(matches!(analyze(&path, &bad), Err(Error::Config(m)) if m.contains("bin_ms")));
    assert!(matches!(
        analyze(Path::new("/nonexistent/log"), &AnalysisConfig::default()),
        Err(Error::Io { .. })
    ));
}

#[test]
fn files_round_trip_and_fct_can_be_filled_in() {
    let dir = tempfile::tempdir().unwrap();
    let path = write_log(&dir, "down.log", &single_flow_log());
    let config = AnalysisConfig {
        groups: vec![FlowGroup {
            label: "short".into(),
            members: vec![FlowMatch::id(1)],
        }],
        ..window(0.1)
    };
    let mut a = analyze(&path, &config).unwrap();
    a.flow_mut("short").unwrap().metrics.fct_s = Some(0.25);
    results::write_analysis(dir.path(), &a).unwrap();
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("metrics.json")).unwrap())
            .unwrap();
    for field in [
        "throughput_mbps",
        "capacity_mbps",
        "utilization",
        "avg_queue_delay_ms",
        "p95_queue_delay_ms",
        "avg_delay_ms",
        "p95_delay_ms",
        "jitter_ms",
        "power",
        "loss_rate",
        "fct_s",
        "jain_fairness",
        "self_inflicted_delay_ms",
    ] {
        assert!(json["aggregate"].get(field).is_some(), "aggregate.{field}");
        assert!(json["flows"][0].get(field).is_some(), "flows[0].{field}");
    }
    assert_eq!(json["flows"][0]["fct_s"], 0.25);
    assert_eq!(json["flows"][0]["label"], "short");
    let back = results::read_analysis(dir.path()).unwrap();
    assert_eq!(back.aggregate, a.aggregate);
    assert_eq!(back.flows, a.flows);
    assert_eq!(back.timeseries.rows.len(), a.timeseries.rows.len());
    assert_eq!(back.timeseries.flow_names, ["short"]);
    assert_eq!(back.delay_cdf, a.delay_cdf);
    let cdf = &back.delay_cdf.points;
    assert_eq!(
        (cdf[0].queue_delay_ms, cdf.last().unwrap().queue_delay_ms),
        (2.0, 4.0)
    );
}

/// Departures marked `ce` are counted per flow and in the aggregate; the
/// marks change nothing else (a log without them reads the same).
#[test]
fn ce_marks_are_counted() {
    let dir = tempfile::tempdir().unwrap();
    let mut log = format!("{HEADER}# flow 1 tcp 10.0.0.1:5000 > 10.0.0.2:6000\n# flow 2 tcp 10.0.0.1:5001 > 10.0.0.2:6000\n");
    opportunities(&mut log, 0, 100);
    for k in 0..10 {
        let t = 5.0 + 10.0 * k as f64;
        let flow = 1 + k % 2;
        writeln!(log, "{:.3} + 1500 {flow}", t - 2.0).unwrap();
        // Flow 1 (k even) has its k = 0, 4, 8 packets marked; flow 2 none.
        let mark = if k % 4 == 0 { " ce" } else { "" };
        writeln!(log, "{t:.3} - 1500 2.000 {flow}{mark}").unwrap();
    }
    let marked = analyze(&write_log(&dir, "ce.log", &log), &window(0.1)).unwrap();
    assert_eq!(marked.aggregate.ce_marks, 3);
    let by_flow: Vec<u64> = marked.flows.iter().map(|f| f.metrics.ce_marks).collect();
    assert_eq!(by_flow, vec![3, 0]);
    let plain = analyze(
        &write_log(&dir, "plain.log", &log.replace(" ce\n", "\n")),
        &window(0.1),
    )
    .unwrap();
    assert_eq!(plain.aggregate.ce_marks, 0);
    assert_eq!(
        plain.aggregate.throughput_mbps,
        marked.aggregate.throughput_mbps
    );
    assert_eq!(
        plain.aggregate.avg_queue_delay_ms,
        marked.aggregate.avg_queue_delay_ms
    );
    let json = serde_json::to_value(&marked.aggregate).unwrap();
    assert_eq!(json["ce_marks"], 3);
    assert!(json.get("marks").is_none(), "no cause told, no marks map");
}

/// A DualPI2 log: flow 1's packets take the L queue (` l`), 1 ms each, one
/// in four marked; flow 2's the Classic queue, 10 ms each, one dropped by
/// the AQM. Each queue's sojourn is reported apart, per flow and together.
#[test]
fn a_dual_queue_log_reports_each_queues_sojourn() {
    let mut log = String::from(
        "# base timestamp: 1000\n\
         # c2tcp-emu v1 direction=downlink opportunity_bytes=1500 delay_ms=10 \
         queue=dualpi2:target=15,tupdate=16,step=1,alpha=0.16,beta=3.2,coupling=2,c_protection=10,packets=100 loss=0\n\
         # flow 1 tcp 10.0.0.1:5000 > 10.0.0.2:6000\n\
         # flow 2 tcp 10.0.0.1:5001 > 10.0.0.2:6001\n",
    );
    opportunities(&mut log, 0, 100);
    for k in 0..8 {
        let t = 12.0 + 10.0 * k as f64;
        writeln!(log, "{:.3} + 1500 1", t - 1.0).unwrap();
        // Marked by the step, then by the coupled probability.
        let ce = [" ce:step", "", "", "", " ce:coupled", "", "", ""][k];
        writeln!(log, "{t:.3} - 1500 1.000 1{ce} l").unwrap();
        packet(&mut log, t + 1.0, 10.0, 2);
    }
    log.push_str("50.500 d 1500 dualpi2 2\n");
    let dir = tempfile::tempdir().unwrap();
    let a = analyze(&write_log(&dir, "d.log", &log), &window(0.1)).unwrap();
    let l = a.aggregate.l4s_queue.as_ref().expect("L queue");
    let c = a.aggregate.classic_queue.as_ref().expect("C queue");
    assert_eq!((l.packets, l.ce_marks, c.packets, c.ce_marks), (8, 2, 8, 0));
    assert_eq!(
        (l.avg_ms, l.p99_ms, c.p50_ms),
        (Some(1.0), Some(1.0), Some(10.0))
    );
    assert_eq!(a.aggregate.p99_queue_delay_ms, Some(10.0));
    assert_eq!(a.aggregate.drops.get("dualpi2"), Some(&1));
    // The marks by cause, as sch_dualpi2's step_marks; zeros left out.
    let causes: Vec<(&str, u64)> = a
        .aggregate
        .marks
        .iter()
        .map(|(k, v)| (k.as_str(), *v))
        .collect();
    assert_eq!(causes, [("coupled", 1), ("step", 1)]);
    let json = serde_json::to_value(&a.aggregate).unwrap();
    assert_eq!(json["marks"]["step"], 1);
    let flow2 = a.flows.iter().find(|f| f.id == Some(2)).unwrap();
    let l2 = flow2.metrics.l4s_queue.as_ref().unwrap();
    assert_eq!(
        (l2.packets, l2.avg_ms),
        (0, None),
        "flow 2 took no L packet"
    );
    // A single-queue log has neither.
    let plain = analyze(&write_log(&dir, "p.log", &single_flow_log()), &window(0.1)).unwrap();
    assert!(plain.aggregate.l4s_queue.is_none() && plain.aggregate.classic_queue.is_none());
}
