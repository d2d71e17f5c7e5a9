// SPDX-License-Identifier: GPL-2.0-only
//! A bench beyond one machine (docs/scale-out.md): `--list` is the same on
//! every call, `--shard K/N` for K = 1..N covers the list exactly once, a
//! job whose trace differs on the worker fails naming it, and the shards of
//! a bench merged with `c2tcp report A B --out M` report like the bench run
//! whole. Kernel CCs only (no BPF), short runs on constant-rate traces.
mod common;

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use common::{c2tcp, json};

/// A constant-rate downlink trace `<name>.down` of `mbps`, one second long.
fn constant_trace(dir: &Path, name: &str, mbps: u32) -> PathBuf {
    let path = dir.join(format!("{name}.down"));
    let (ok, text) = c2tcp(&[
        "trace",
        "synth",
        "-o",
        path.to_str().unwrap(),
        "--constant",
        &mbps.to_string(),
        "--duration",
        "1",
    ]);
    assert!(ok, "{text}");
    path
}

/// A one-flow Cubic scenario of `secs` seconds (the bench replaces the
/// scheme and the downlink).
fn scenario(dir: &Path, secs: u32) -> PathBuf {
    let path = dir.join("s.toml");
    std::fs::write(
        &path,
        format!(
            "name = \"scale\"\n[link]\ndownlink = \"constant:12\"\ndelay_ms = 5\nuplink = \"constant:12\"\n\
             duration_s = {secs}\n[[flows]]\nscheme = \"cubic\"\n"
        ),
    )
    .unwrap();
    path
}

fn list(args: &[&str]) -> Vec<String> {
    let mut all = vec!["bench"];
    all.extend_from_slice(args);
    all.push("--list");
    let out = Command::new(env!("CARGO_BIN_EXE_c2tcp"))
        .args(&all)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect()
}

fn index_of(line: &str) -> u64 {
    serde_json::from_str::<serde_json::Value>(line).unwrap()["index"]
        .as_u64()
        .unwrap()
}

#[test]
fn the_list_is_stable_and_shards_cover_it_exactly_once() {
    let tmp = tempfile::tempdir().unwrap();
    let sc = tmp.path().join("sweep.toml");
    std::fs::write(
        &sc,
        "name = \"t\"\n[link]\ndownlink = \"constant:12\"\nduration_s = 5\n[[flows]]\nscheme = \"c2tcp\"\n\
         target_ms = 50\n[sweep]\ntarget_ms = [25, 50, 75]\n",
    )
    .unwrap();
    let a = constant_trace(tmp.path(), "A", 12);
    let b = constant_trace(tmp.path(), "B", 24);
    let traces = format!("{},{}", a.display(), b.display());
    let out = tmp.path().join("out");
    let args = [
        sc.to_str().unwrap(),
        "--schemes",
        "c2tcp,cubic,bbr",
        "--traces",
        &traces,
        "--reps",
        "2",
        "--out",
        out.to_str().unwrap(),
    ];
    let whole = list(&args);
    // 2 reps x 2 traces x (3 Target values for c2tcp + cubic + bbr).
    assert_eq!(whole.len(), 20);
    assert_eq!(list(&args), whole, "--list changed between calls");
    for (i, line) in whole.iter().enumerate() {
        let job: serde_json::Value = serde_json::from_str(line).unwrap();
        assert_eq!(job["index"], i as u64);
        assert!(
            !out.join(job["run"].as_str().unwrap()).exists(),
            "--list ran something"
        );
        // Traces travel by content: the downlink named with its checksum.
        let t = &job["traces"][0];
        assert!(
            Path::new(t["path"].as_str().unwrap()).is_absolute()
                && t["sha256"].as_str().unwrap().len() == 64,
            "{job}"
        );
        assert_eq!(job["scenario"]["link"]["downlink"], t["path"]);
    }
    for n in [1usize, 2, 3, 7] {
        let mut union: Vec<String> = Vec::new();
        for k in 1..=n {
            let shard = format!("{k}/{n}");
            let mut a = args.to_vec();
            a.extend(["--shard", &shard]);
            let part = list(&a);
            assert!(
                part.iter().all(|l| index_of(l) as usize % n == k - 1),
                "shard {shard} holds a job of another shard"
            );
            union.extend(part);
        }
        union.sort_by_key(|l| index_of(l));
        assert_eq!(
            union, whole,
            "the shards of N = {n} are not the list, once each"
        );
    }
    let (ok, text) = c2tcp(&[
        "bench",
        sc.to_str().unwrap(),
        "--out",
        "x",
        "--list",
        "--shard",
        "3/2",
    ]);
    assert!(!ok && text.contains("1 <= K <= N"), "{text}");
}

#[test]
fn a_scenario_carries_its_experiment_in_its_bench_table() {
    // C2TCP's Fig. 20 from the scenario alone, on every downlink trace as
    // the paper's: six Targets of C2TCP, and Cubic, Cubic+CoDel and
    // Cubic+PIE once each, per trace; a flag overrides the table.
    let sc = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios/target-sweep.toml");
    let sc = sc.to_str().unwrap();
    let jobs: Vec<serde_json::Value> = list(&[sc, "--out", "x"])
        .iter()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let field = |k: &str| -> std::collections::BTreeSet<String> {
        jobs.iter()
            .map(|j| j["id"][k].as_str().unwrap().to_string())
            .collect()
    };
    assert_eq!(
        field("scheme"),
        ["c2tcp", "cubic", "cubic-codel", "cubic-pie"]
            .map(String::from)
            .into()
    );
    let traces = field("trace");
    assert_eq!(traces.len(), 7, "{traces:?}");
    assert!(traces.iter().all(|t| t.ends_with(".down")), "{traces:?}");
    assert_eq!(jobs.len(), 7 * (6 + 3));
    assert_eq!(
        list(&[sc, "--out", "x", "--schemes", "cubic", "--reps", "2"]).len(),
        7 * 2
    );
}

fn run_job(job: &str, out: &Path) -> (bool, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_c2tcp"))
        .args([
            "run",
            "--job",
            "-",
            "--quiet",
            "--out",
            out.to_str().unwrap(),
        ])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(job.as_bytes())
        .unwrap();
    let o = child.wait_with_output().unwrap();
    let text = String::from_utf8_lossy(&o.stderr).into_owned();
    (o.status.success(), text)
}

#[test]
fn a_job_whose_trace_differs_on_the_worker_fails_naming_it() {
    if !testkit::require_root("a_job_whose_trace_differs_on_the_worker_fails_naming_it") {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let sc = scenario(tmp.path(), 2);
    let t = constant_trace(tmp.path(), "W", 12);
    let jobs = list(&[
        sc.to_str().unwrap(),
        "--schemes",
        "cubic",
        "--traces",
        t.to_str().unwrap(),
        "--out",
        tmp.path().join("b").to_str().unwrap(),
    ]);
    // The worker's copy of the trace is another trace under the same name.
    let other = tmp.path().join("other");
    std::fs::create_dir(&other).unwrap();
    std::fs::rename(&t, other.join("W.down")).unwrap();
    constant_trace(tmp.path(), "W", 24);
    let out = tmp.path().join("run");
    let (ok, text) = run_job(&jobs[0], &out);
    assert!(!ok, "a job ran on the wrong trace: {text}");
    let info = json(&out.join("run.json"));
    assert_eq!(info["status"], "failed", "{info}");
    let err = info["error"].as_str().unwrap();
    assert!(
        err.contains("different trace") && err.contains("W.down"),
        "{err}"
    );
    assert!(!out.join("downlink.log").exists(), "the run started anyway");
    // Missing, and not under this machine's trace directories: named too.
    std::fs::remove_file(&t).unwrap();
    let (ok, _) = run_job(&jobs[0], &out);
    assert!(!ok);
    let err = json(&out.join("run.json"))["error"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        err.contains("not on this machine") && err.contains("W.down"),
        "{err}"
    );
}

/// The report's configurations: (trace, scheme, label) -> (reps, means).
fn configs(summary: &Path) -> BTreeMap<(String, String, String), (u64, serde_json::Value)> {
    json(summary)["configs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            let key = |k: &str| c[k].as_str().unwrap_or_default().to_string();
            (
                (key("trace"), key("scheme"), key("label")),
                (c["reps"].as_u64().unwrap(), c["means"].clone()),
            )
        })
        .collect()
}

#[test]
fn merged_shards_report_like_the_whole_bench() {
    if !testkit::require_root("merged_shards_report_like_the_whole_bench") {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let sc = scenario(tmp.path(), 3);
    let traces = format!(
        "{},{}",
        constant_trace(tmp.path(), "A", 12).display(),
        constant_trace(tmp.path(), "B", 24).display()
    );
    let dir = |n: &str| tmp.path().join(n).to_str().unwrap().to_string();
    let bench = |out: &str, extra: &[&str]| {
        let mut args = vec![
            "bench",
            sc.to_str().unwrap(),
            "--schemes",
            "cubic,bbr",
            "--traces",
            &traces,
            "--reference",
            "cubic",
            "--out",
            out,
        ];
        args.extend_from_slice(extra);
        Command::new(env!("CARGO_BIN_EXE_c2tcp"))
            .args(&args)
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap()
    };
    // The whole bench, and its two shards on "two machines" at once.
    let (whole, s1, s2) = (dir("whole"), dir("s1"), dir("s2"));
    for child in [
        bench(&whole, &["--jobs", "2"]),
        bench(&s1, &["--shard", "1/2"]),
        bench(&s2, &["--shard", "2/2"]),
    ] {
        let o = child.wait_with_output().unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    }
    let merged = dir("merged");
    let (ok, text) = c2tcp(&[
        "report",
        &s1,
        &s2,
        "--out",
        &merged,
        "--reference",
        "cubic",
        "--no-plots",
    ]);
    assert!(ok, "{text}");
    assert!(text.contains("4 runs copied"), "{text}");
    assert!(Path::new(&merged).join("report.md").is_file());
    let (w, m) = (
        configs(&Path::new(&whole).join("summary.json")),
        configs(&Path::new(&merged).join("summary.json")),
    );
    assert_eq!(w.len(), 4, "{w:?}");
    assert_eq!(w.keys().collect::<Vec<_>>(), m.keys().collect::<Vec<_>>());
    for (k, (reps, means)) in &w {
        let (mreps, mmeans) = &m[k];
        assert_eq!(reps, mreps, "{k:?}");
        // Separate runs of the same job: the same link, so the same figures
        // within run-to-run noise.
        let tput = |v: &serde_json::Value| v["throughput_mbps"].as_f64().unwrap();
        let ratio = tput(mmeans) / tput(means);
        assert!(
            (0.85..1.15).contains(&ratio),
            "{k:?}: throughput {ratio:.2}x"
        );
    }
    // Merging again is a no-op; a shard that ran a job again disagrees.
    let (ok, text) = c2tcp(&["report", &s1, &s2, "--out", &merged, "--no-plots"]);
    assert!(
        ok && text.contains("0 runs copied, 4 already there"),
        "{text}"
    );
    let (ok, text) = c2tcp(&["report", &s1, &whole, "--out", &dir("m2"), "--no-plots"]);
    assert!(!ok && text.contains("different results"), "{text}");
}
