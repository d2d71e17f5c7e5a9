// SPDX-License-Identifier: GPL-2.0-only
//! metrics.json is read back through its schema: a file that is not a
//! whole analysis of this version is an error naming the file and the
//! field, never a run at 0 Mbit/s (issue 29: a `done` run whose metrics.json
//! was `{"foo":1}` used to count as a finished run at 0.00 Mbit/s).
use std::fmt::Write;

use metrics::{analyze, Analysis, AnalysisConfig};

/// A real analysis of a small hand-written log, as JSON.
fn real_metrics_json() -> serde_json::Value {
    let dir = tempfile::tempdir().unwrap();
    let mut log = String::from(
        "# base timestamp: 1000\n\
         # c2tcp-emu v1 direction=downlink opportunity_bytes=1500 delay_ms=10 queue=droptail:packets=100 loss=0\n",
    );
    for t in 0..=100 {
        writeln!(log, "{t}.000 # 1500").unwrap();
        writeln!(log, "{t}.000 + 1500 1").unwrap();
        writeln!(log, "{t}.000 - 1500 0.000 1").unwrap();
    }
    let path = dir.path().join("downlink.log");
    std::fs::write(&path, log).unwrap();
    let a = analyze(&path, &AnalysisConfig::default()).unwrap();
    serde_json::to_value(&a).unwrap()
}

fn parse(v: &serde_json::Value) -> Result<Analysis, String> {
    Analysis::parse_json(&v.to_string()).map_err(|(_, m)| m)
}

#[test]
fn a_real_analysis_reads_back_equal() {
    let v = real_metrics_json();
    let a = parse(&v).unwrap();
    assert_eq!(serde_json::to_value(&a).unwrap(), v);
}

#[test]
fn a_foreign_object_is_refused_by_its_missing_version() {
    let e = parse(&serde_json::json!({"foo": 1})).unwrap_err();
    assert!(e.contains("format"), "{e}");
}

#[test]
fn another_version_is_refused_by_name() {
    let mut v = real_metrics_json();
    v["format"] = "c2tcp-metrics v9".into();
    let e = parse(&v).unwrap_err();
    assert!(
        e.contains("c2tcp-metrics v9") && e.contains("field `format`"),
        "{e}"
    );
}

#[test]
fn a_missing_measurement_names_its_field() {
    let mut v = real_metrics_json();
    v["aggregate"]
        .as_object_mut()
        .unwrap()
        .remove("throughput_mbps");
    let e = parse(&v).unwrap_err();
    assert!(
        e.contains("aggregate") && e.contains("throughput_mbps"),
        "{e}"
    );
}

#[test]
fn an_unknown_field_is_named() {
    let mut v = real_metrics_json();
    v["surprise"] = 1.into();
    let e = parse(&v).unwrap_err();
    assert!(e.contains("surprise"), "{e}");
}

#[test]
fn a_negative_throughput_is_not_a_measurement() {
    let mut v = real_metrics_json();
    v["aggregate"]["throughput_mbps"] = (-1.0).into();
    let e = parse(&v).unwrap_err();
    assert!(e.contains("aggregate.throughput_mbps"), "{e}");
}

#[test]
fn read_json_names_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("metrics.json");
    std::fs::write(&path, "{\"foo\":1}").unwrap();
    let e = Analysis::read_json(&path).unwrap_err().to_string();
    assert!(e.contains("metrics.json") && e.contains("format"), "{e}");
}
