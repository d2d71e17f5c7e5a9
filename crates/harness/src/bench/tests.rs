// SPDX-License-Identifier: GPL-2.0-only
//! The bench's tests: the matrix, resuming, busy runs, stopping, names.
use std::fs;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;
use std::time::Duration;

use anyhow::Result;
use results::RunInfo;

use super::*;
use crate::ownership::{self, Claim, Ownership};
use crate::plan::CheckedScenario;

fn plan(out: &Path) -> Matrix {
    let sc = CheckedScenario::parse(
        r#"
        name = "t"
        [link]
        downlink = "constant:12"
        duration_s = 5
        [[flows]]
        scheme = "c2tcp"
        target_ms = 50
        [sweep]
        target_ms = [25, 75]
    "#,
    )
    .unwrap();
    Matrix {
        scenario: sc,
        scenario_dir: None,
        traces: vec![],
        schemes: vec!["c2tcp".into(), "cubic".into()],
        set: vec![],
        reps: 2,
        seed: 1,
        out: out.to_path_buf(),
    }
}

#[test]
fn the_matrix_is_schemes_by_sweep_by_reps() {
    let tmp = tempfile::tempdir().unwrap();
    let jobs = expand(&plan(tmp.path())).unwrap();
    // c2tcp: 2 sweep values; cubic takes no target_ms and runs once.
    assert_eq!(jobs.len(), 6);
    let c2 = jobs
        .iter()
        .find(|j| {
            j.id.scheme == "c2tcp"
                && j.id.params.get("target_ms") == Some(&serde_json::json!(25))
                && j.id.rep == 1
        })
        .unwrap();
    assert_eq!(c2.scenario.flows[0].param_f64("target_ms"), Some(25.0));
    assert!(c2.scenario.sweep.is_empty());
    assert!(
        c2.dir.ends_with("runs/constant:12/c2tcp/target_ms=25/rep1"),
        "{}",
        c2.dir.display()
    );
    let cubic: Vec<_> = jobs.iter().filter(|j| j.id.scheme == "cubic").collect();
    assert_eq!(cubic.len(), 2);
    assert!(cubic
        .iter()
        .all(|j| j.id.params.is_empty() && j.scenario.flows[0].params.is_empty()));
    assert!(cubic[0]
        .dir
        .ends_with("runs/constant:12/cubic/default/rep1"));
    // Repetition is the outer loop.
    assert!(jobs[..3].iter().all(|j| j.id.rep == 1));
}

#[test]
fn finished_runs_are_skipped_and_unfinished_ones_redone() {
    let tmp = tempfile::tempdir().unwrap();
    let jobs = expand(&plan(tmp.path())).unwrap();
    // Pretend a previous bench finished job 0 and was interrupted in job 1.
    for (j, status) in [(&jobs[0], "done"), (&jobs[1], "interrupted")] {
        fs::create_dir_all(&j.dir).unwrap();
        let mut info = RunInfo::started(j.id.clone());
        if status == "done" {
            info.finished(None);
        }
        info.write(&j.dir).unwrap();
        fs::write(j.dir.join("leftover"), "x").unwrap();
    }
    let ran = Mutex::new(Vec::new());
    let run = |j: &Job, _: &Ownership| -> Result<RunStatus> {
        assert!(
            !j.dir.join("leftover").exists(),
            "an unfinished run's files must be cleared"
        );
        let mut info = RunInfo::started(j.id.clone());
        info.finished(None);
        info.write(&j.dir)?;
        ran.lock().unwrap().push(j.label());
        Ok(RunStatus::Done)
    };
    let stop = AtomicBool::new(false);
    let s = exec(jobs.clone(), 2, WhenBusy::Wait, &stop, &run);
    assert_eq!(s.skipped_done, 1);
    assert_eq!(s.done, 5);
    assert!(!ran.lock().unwrap().contains(&jobs[0].label()));
    assert!(ran.lock().unwrap().contains(&jobs[1].label()));
    // A second pass has nothing left to do.
    let s = exec(jobs, 2, WhenBusy::Wait, &stop, &run);
    assert_eq!((s.skipped_done, s.done), (6, 0));
}

fn exec(
    jobs: Vec<Job>,
    n: usize,
    when_busy: WhenBusy,
    stop: &AtomicBool,
    run: &(dyn Fn(&Job, &Ownership) -> Result<RunStatus> + Sync),
) -> Summary {
    execute(jobs, n, when_busy, stop, run, &|_, _| {}, &|_| {}).unwrap()
}

/// What a run that finished writes, in the order the runner writes it.
fn finish_run(j: &Job) -> Result<RunStatus> {
    wholefile::write(&j.dir.join(results::METRICS_JSON), b"{\"aggregate\": {}}\n")?;
    let mut info = RunInfo::started(j.id.clone());
    info.finished(None);
    info.write(&j.dir)?;
    Ok(RunStatus::Done)
}

#[test]
fn a_run_left_with_a_half_written_metrics_json_is_redone() {
    let tmp = tempfile::tempdir().unwrap();
    let jobs = expand(&plan(tmp.path())).unwrap();
    // A crash mid-write: run.json still says what it said at the start,
    // metrics.json stops half-way (as a plain write could leave it).
    let j = &jobs[0];
    fs::create_dir_all(&j.dir).unwrap();
    RunInfo::started(j.id.clone()).write(&j.dir).unwrap();
    fs::write(
        j.dir.join(results::METRICS_JSON),
        "{\"aggregate\": {\"throughput_mb",
    )
    .unwrap();
    // Another without even a run.json.
    let k = &jobs[1];
    fs::create_dir_all(&k.dir).unwrap();
    fs::write(k.dir.join(results::METRICS_JSON), "{\"aggr").unwrap();
    let redone = Mutex::new(Vec::new());
    let run = |j: &Job, _: &Ownership| -> Result<RunStatus> {
        assert!(
            !j.dir.join(results::METRICS_JSON).exists(),
            "not cleared first"
        );
        redone.lock().unwrap().push(j.dir.clone());
        finish_run(j)
    };
    let stop = AtomicBool::new(false);
    let s = exec(jobs.clone(), 1, WhenBusy::Wait, &stop, &run);
    assert_eq!((s.skipped_done, s.done), (0, 6));
    assert!(redone.lock().unwrap().contains(&j.dir));
    assert!(redone.lock().unwrap().contains(&k.dir));
    for d in [&j.dir, &k.dir] {
        assert_eq!(status_of(d), Some(RunStatus::Done));
        let text = fs::read_to_string(d.join(results::METRICS_JSON)).unwrap();
        serde_json::from_str::<serde_json::Value>(&text).unwrap();
    }
}

#[test]
fn a_busy_run_is_skipped_or_waited_for_and_never_cleared() {
    let tmp = tempfile::tempdir().unwrap();
    let jobs = expand(&plan(tmp.path())).unwrap();
    let j = jobs[0].clone();
    let Claim::Owned(held) = ownership::try_claim(&j.dir, "c2tcp run").unwrap() else {
        panic!()
    };
    fs::write(j.dir.join(results::DOWNLINK_LOG), "still being written").unwrap();
    let run = |j: &Job, _: &Ownership| finish_run(j);
    let stop = AtomicBool::new(false);
    let said = Mutex::new(Vec::new());
    let say = |m: String| said.lock().unwrap().push(m);
    let s = execute(
        jobs.clone(),
        2,
        WhenBusy::Skip,
        &stop,
        &run,
        &|_, _| {},
        &say,
    )
    .unwrap();
    assert_eq!((s.done, s.busy.len()), (5, 1));
    assert!(s.busy[0].1.contains("c2tcp run"), "{:?}", s.busy);
    assert!(
        j.dir.join(results::DOWNLINK_LOG).exists(),
        "a busy run was cleared"
    );
    assert!(said.lock().unwrap()[0].starts_with("skipping "), "{said:?}");
    // Waiting: the holder lets go a moment later, then the run is done.
    said.lock().unwrap().clear();
    let releaser = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(500));
        drop(held);
    });
    let s = execute(jobs, 2, WhenBusy::Wait, &stop, &run, &|_, _| {}, &say).unwrap();
    releaser.join().unwrap();
    assert_eq!((s.skipped_done, s.done, s.busy.len()), (5, 1, 0));
    assert!(!j.dir.join(results::DOWNLINK_LOG).exists());
    assert_eq!(status_of(&j.dir), Some(RunStatus::Done));
    let said = said.lock().unwrap();
    assert!(
        said.len() == 1 && said[0].starts_with("waiting for ") && said[0].contains("c2tcp run"),
        "{said:?}"
    );
    assert!(j.dir.join(ownership::LOCK_FILE).exists());
}

#[test]
fn a_stop_request_halts_scheduling() {
    let tmp = tempfile::tempdir().unwrap();
    let jobs = expand(&plan(tmp.path())).unwrap();
    let stop = AtomicBool::new(false);
    let run = |j: &Job, _: &Ownership| -> Result<RunStatus> {
        stop.store(true, Ordering::Relaxed);
        RunInfo::started(j.id.clone()).write(&j.dir)?;
        Ok(RunStatus::Interrupted)
    };
    let s = exec(jobs, 1, WhenBusy::Wait, &stop, &run);
    assert!(s.interrupted);
    assert_eq!(s.done, 0);
}

#[test]
fn a_swept_queue_is_named_by_its_size() {
    let q = |s: &str| param_of("queue", &toml::Value::String(s.into()));
    assert_eq!(
        q("droptail:bytes=75000"),
        ("buffer_bytes".into(), serde_json::json!(75000))
    );
    assert_eq!(
        q("codel:target=5,packets=100"),
        ("buffer_packets".into(), serde_json::json!(100))
    );
    assert_eq!(
        param_of("target_ms", &toml::Value::Integer(25)),
        ("target_ms".into(), serde_json::json!(25))
    );
}

#[test]
fn swept_flows_and_rates_are_named_by_the_number_they_plot() {
    let s = |x: &str| toml::Value::String(x.into());
    assert_eq!(
        param_of("downlink", &s("constant:54")),
        ("downlink_mbps".into(), serde_json::json!(54))
    );
    assert_eq!(
        param_of("downlink", &s("constant:1.5")),
        ("downlink_mbps".into(), serde_json::json!(1.5))
    );
    assert_eq!(
        param_of("downlink", &s("/t/Verizon-LTE-short.down")),
        (
            "downlink".into(),
            serde_json::json!("Verizon-LTE-short.down")
        )
    );
    let n = toml::Value::Integer(65536);
    assert_eq!(
        param_of("short.size_bytes", &n),
        ("short_bytes".into(), serde_json::json!(65536))
    );
    assert_eq!(
        param_of("short.count", &toml::Value::Integer(3)),
        ("short_flows".into(), serde_json::json!(3))
    );
}

#[test]
fn a_swept_downlink_is_its_own_trace_label() {
    let tmp = tempfile::tempdir().unwrap();
    let mut p = plan(tmp.path());
    let mut sc = p.scenario.into_scenario();
    sc.sweep.clear();
    let rates = ["constant:1", "constant:54"].map(|r| toml::Value::String(r.into()));
    sc.sweep.insert("downlink".into(), rates.to_vec());
    p.scenario = CheckedScenario::check(sc).unwrap();
    p.reps = 1;
    let jobs = expand(&p).unwrap();
    assert_eq!(jobs.len(), 4);
    let j = jobs
        .iter()
        .find(|j| {
            j.id.scheme == "cubic"
                && j.id.params.get("downlink_mbps") == Some(&serde_json::json!(54))
        })
        .unwrap();
    assert_eq!(
        (j.id.trace.as_str(), j.scenario.link.downlink.as_str()),
        ("downlink-sweep", "constant:54")
    );
    assert!(
        j.dir
            .ends_with("runs/downlink-sweep/cubic/downlink_mbps=54/rep1"),
        "{}",
        j.dir.display()
    );
    p.traces = vec![tmp.path().join("X.down")];
    assert!(expand(&p)
        .unwrap_err()
        .to_string()
        .contains("sweep.downlink"));
}

#[test]
fn traces_replace_the_downlink_and_find_uplink_siblings() {
    let tmp = tempfile::tempdir().unwrap();
    let down = tmp.path().join("X.down");
    fs::write(&down, "1\n").unwrap();
    fs::write(tmp.path().join("X.up"), "1\n").unwrap();
    let mut p = plan(tmp.path());
    p.traces = vec![down.clone()];
    p.reps = 1;
    let jobs = expand(&p).unwrap();
    assert!(jobs.iter().all(|j| j.id.trace == "X.down"));
    assert_eq!(
        jobs[0].scenario.link.uplink.as_deref(),
        Some(tmp.path().join("X.up").to_str().unwrap())
    );
}
