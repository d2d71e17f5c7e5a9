// SPDX-License-Identifier: GPL-2.0-only
//! Sprout's self-inflicted delay on a real cellular trace: a sender that fills
//! every delivery opportunity is the omniscient sender shifted by its packets'
//! queueing delay, so its self-inflicted delay is exactly that delay.
use std::fmt::Write;

use metrics::{analyze, AnalysisConfig};

fn log_filling_every_opportunity(trace: &str, seconds: u64, queue_delay_ms: u64) -> String {
    let mut log = String::from(
        "# base timestamp: 0\n\
         # c2tcp-emu v1 direction=downlink opportunity_bytes=1504 delay_ms=10 queue=infinite loss=0\n\
         # flow 1 tcp 10.0.0.1:5000 > 10.0.0.2:6000\n",
    );
    for ms in trace
        .lines()
        .map(|l| l.trim().parse::<u64>().unwrap())
        .take_while(|&ms| ms <= seconds * 1000)
    {
        let t = ms + queue_delay_ms; // the trace starts after the first packets queued
        writeln!(
            log,
            "{t}.000 # 1504\n{ms}.000 + 1500 1\n{t}.000 - 1500 {queue_delay_ms}.000 1"
        )
        .unwrap();
    }
    log
}

#[test]
fn filling_every_opportunity_inflicts_exactly_the_queueing_delay() {
    let Some(traces) = testkit::traces_dir("filling_every_opportunity") else {
        return;
    };
    let trace = std::fs::read_to_string(traces.join("mahimahi/Verizon-LTE-short.down")).unwrap();
    let dir = tempfile::tempdir().unwrap();
    for queue_delay_ms in [0, 20] {
        let path = dir.path().join(format!("fill-{queue_delay_ms}.log"));
        std::fs::write(
            &path,
            log_filling_every_opportunity(&trace, 20, queue_delay_ms),
        )
        .unwrap();
        let config = AnalysisConfig {
            warmup_s: 2.0,
            duration_s: Some(15.0),
            ..AnalysisConfig::default()
        };
        let m = analyze(&path, &config).unwrap().aggregate;
        assert!(
            (m.utilization.unwrap() - 1500.0 / 1504.0).abs() < 1e-9,
            "{:?}",
            m.utilization
        );
        assert_eq!(m.avg_queue_delay_ms, Some(queue_delay_ms as f64));
        let own = m.e2e_delay_p95_ms.unwrap();
        let omniscient = m.omniscient_e2e_delay_p95_ms.unwrap();
        assert!(omniscient >= 10.0, "propagation included: {omniscient}");
        let inflicted = m.self_inflicted_delay_ms.unwrap();
        assert!(
            (inflicted - queue_delay_ms as f64).abs() < 0.01,
            "{own} − {omniscient} = {inflicted}"
        );
    }
}
