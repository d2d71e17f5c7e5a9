// SPDX-License-Identifier: GPL-2.0-only
//! The experiment runner end to end: real TCP through the real emulator
//! between two namespaces, C2TCP in the real kernel, and a bench that is
//! interrupted and resumed.
mod common;

use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::{assert_no_process_mentions, c2tcp, json, metrics};

fn status(dir: &Path) -> String {
    json(&dir.join("run.json"))["status"]
        .as_str()
        .unwrap()
        .to_string()
}

fn net_namespaces() -> usize {
    let out = Command::new("lsns")
        .args(["-t", "net", "-n"])
        .output()
        .unwrap();
    String::from_utf8_lossy(&out.stdout).lines().count()
}

fn our_tun_devices() -> usize {
    let out = Command::new("ip")
        .args(["-o", "link", "show", "type", "tun"])
        .output()
        .unwrap();
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter(|l| l.contains("c2e"))
        .count()
}

/// C2TCP and Cubic on the same real trace in the same test: C2TCP's mean
/// queueing delay is below half of Cubic's (the paper: ~9x lower on average).
#[test]
fn c2tcp_keeps_queueing_delay_below_half_of_cubics_on_a_real_trace() {
    let test = "c2tcp_keeps_queueing_delay_below_half_of_cubics_on_a_real_trace";
    if !testkit::require_root(test) {
        return;
    }
    let Some(traces) = testkit::traces_dir(test) else {
        return;
    };
    let _kernel = testkit::kernel_lock();
    let was_loaded = common::registered("c2tcp");
    let tmp = tempfile::tempdir().unwrap();
    let trace = traces.join("mahimahi/Verizon-LTE-short.down");
    let mut delays = Vec::new();
    for scheme in ["cubic", "c2tcp"] {
        let out = tmp.path().join(scheme);
        let (ok, text) = common::run_authors_setup(scheme, &trace, 15, &out);
        assert!(ok, "c2tcp run --scheme {scheme} failed: {text}");
        assert_eq!(status(&out), "done");
        for f in [
            "downlink.log",
            "uplink.log",
            "metrics.json",
            "flows.csv",
            "timeseries.csv",
            "tcpinfo.csv",
            "report.md",
        ] {
            assert!(out.join(f).is_file(), "{scheme}: {f} missing");
        }
        let m = metrics(&out);
        let agg = &m["aggregate"];
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
            "self_inflicted_delay_ms",
            "avg_rtt_ms",
        ] {
            assert!(
                agg[field].is_number(),
                "{scheme}: aggregate.{field} = {}",
                agg[field]
            );
        }
        assert_eq!(m["flows"].as_array().unwrap().len(), 1, "{scheme}");
        let util = agg["utilization"].as_f64().unwrap();
        assert!(util > 0.3, "{scheme} used only {util} of the link");
        delays.push(agg["avg_queue_delay_ms"].as_f64().unwrap());
    }
    // The default C2TCP is the authors' (jsac): its module really went blind
    // behind the kernel Cubic's epoch starts (C2TCP_INFO v2's count).
    let tcpinfo = std::fs::read_to_string(tmp.path().join("c2tcp/tcpinfo.csv")).unwrap();
    let last = tcpinfo.lines().last().unwrap();
    let skipped: u64 = last.rsplit(',').next().unwrap().parse().unwrap();
    assert!(skipped > 0, "no sample was skipped in Cubic's blind window: {last}");
    let (cubic, c2) = (delays[0], delays[1]);
    assert!(
        c2 < 0.5 * cubic,
        "C2TCP mean queueing delay {c2:.1} ms is not below half of Cubic's {cubic:.1} ms"
    );
    // The run loaded c2tcp for itself and left the kernel as it found it.
    assert_eq!(common::registered("c2tcp"), was_loaded);
}

/// A bench interrupted with SIGINT (Ctrl-C reaches the whole process group)
/// leaves no namespaces, TUN devices or processes, marks the unfinished run,
/// and the same command resumes: done runs are kept, the rest redone.
#[test]
fn an_interrupted_bench_cleans_up_and_resumes() {
    if !testkit::require_root("an_interrupted_bench_cleans_up_and_resumes") {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let scenario = tmp.path().join("s.toml");
    std::fs::write(
        &scenario,
        "name = \"interrupt\"\n[link]\ndownlink = \"constant:12\"\ndelay_ms = 5\nduration_s = 4\n\
         [[flows]]\nscheme = \"cubic\"\n",
    )
    .unwrap();
    let out = tmp.path().join("bench");
    let bench_args = [
        "bench",
        scenario.to_str().unwrap(),
        "--schemes",
        "cubic,reno,bbr",
        "--out",
        out.to_str().unwrap(),
        "--no-report",
    ];
    let ns_before = net_namespaces();

    let child = Command::new(env!("CARGO_BIN_EXE_c2tcp"))
        .args(bench_args)
        .process_group(0)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Let the first run finish and the second start, then Ctrl-C.
    let first = out.join("runs/constant:12/cubic/default/rep1");
    let start = Instant::now();
    while !(first.join("run.json").exists() && status(&first) == "done") {
        assert!(
            start.elapsed() < Duration::from_secs(30),
            "the first run never finished"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    std::thread::sleep(Duration::from_millis(1500));
    // SAFETY: signalling the process group we created.
    unsafe { libc::kill(-(child.id() as i32), libc::SIGINT) };
    let out_status = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out_status.stderr);
    assert_eq!(out_status.status.code(), Some(130), "bench exit: {stderr}");
    assert!(stderr.contains("interrupted"), "{stderr}");
    assert_eq!(status(&first), "done");
    let second = out.join("runs/constant:12/reno/default/rep1");
    assert_eq!(
        status(&second),
        "interrupted",
        "the run cut short must be marked"
    );
    // Nothing left behind.
    assert_eq!(our_tun_devices(), 0, "TUN devices left");
    assert_eq!(net_namespaces(), ns_before, "network namespaces left");
    assert_no_process_mentions(&out);

    // Resume: the done run is not redone, the others finish.
    let before = std::fs::metadata(first.join("metrics.json"))
        .unwrap()
        .modified()
        .unwrap();
    let (ok, text) = c2tcp(&bench_args);
    assert!(ok, "resumed bench failed: {text}");
    assert!(text.contains("(1 already done)"), "{text}");
    assert_eq!(
        std::fs::metadata(first.join("metrics.json"))
            .unwrap()
            .modified()
            .unwrap(),
        before
    );
    for scheme in ["cubic", "reno", "bbr"] {
        let dir = out.join(format!("runs/constant:12/{scheme}/default/rep1"));
        assert_eq!(status(&dir), "done", "{scheme}");
        assert!(
            metrics(&dir)["aggregate"]["throughput_mbps"]
                .as_f64()
                .unwrap()
                > 5.0,
            "{scheme}"
        );
    }
}

#[test]
fn bad_input_is_named() {
    let (ok, text) = c2tcp(&[
        "run",
        "--scheme",
        "tcp-foo",
        "--downlink",
        "constant:12",
        "--out",
        "/tmp/x",
    ]);
    assert!(!ok);
    // Non-root machines stop at the privilege check first.
    if testkit::require_root("bad_input_is_named") {
        assert!(
            text.contains("unknown scheme `tcp-foo`") && text.contains("c2tcp"),
            "{text}"
        );
        let (ok, text) = c2tcp(&[
            "run",
            "--scheme",
            "cubic",
            "--downlink",
            "no-such-trace.down",
            "--out",
            "/tmp/x",
        ]);
        assert!(
            !ok && text.contains("trace `no-such-trace.down` not found"),
            "{text}"
        );
        let (ok, text) = c2tcp(&[
            "run",
            "--scheme",
            "cubic",
            "--downlink",
            "constant:12",
            "--queue",
            "droptial:packets=5",
            "--out",
            "/tmp/x",
        ]);
        assert!(!ok && text.contains("droptial"), "{text}");
        let tmp = tempfile::tempdir().unwrap();
        let bad = tmp.path().join("bad.toml");
        std::fs::write(
            &bad,
            "[link]\ndownlink = \"constant:1\"\ndelay_ms = -3\n[[flows]]\nscheme = \"cubic\"\n",
        )
        .unwrap();
        let (ok, text) = c2tcp(&["run", bad.to_str().unwrap(), "--out", "/tmp/x"]);
        assert!(
            !ok && text.contains("link.delay_ms") && text.contains("bad.toml"),
            "{text}"
        );
        std::fs::write(
            &bad,
            "[link]\ndownlink = \"constant:1\"\n[[flows]]\nscheme = \"c2tcp\"\nvariant = \"jsac+warp\"\n",
        )
        .unwrap();
        let (ok, text) = c2tcp(&["run", bad.to_str().unwrap(), "--out", "/tmp/x"]);
        assert!(
            !ok && text.contains("variant") && text.contains("`warp` is not a C2TCP behaviour"),
            "{text}"
        );
        let (ok, text) = c2tcp(&["run", "--downlink", "constant:1", "--duration", "0", "--out", "/tmp/x"]);
        assert!(!ok && text.contains("or `trace`"), "{text}");
    }
}

/// `--duration trace` runs one pass of the downlink trace and says so in
/// run.json.
#[test]
fn duration_trace_runs_the_trace_s_own_length() {
    let test = "duration_trace_runs_the_trace_s_own_length";
    if !testkit::require_root(test) {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    // 4.5 s of a 6 Mbit/s link: one opportunity every 2 ms.
    let trace = tmp.path().join("short.down");
    let lines: String = (1..=2250).map(|i| format!("{}\n", 2 * i)).collect();
    std::fs::write(&trace, lines).unwrap();
    let out = tmp.path().join("run");
    let started = Instant::now();
    let (ok, text) = c2tcp(&[
        "run", "--scheme", "cubic", "--downlink", trace.to_str().unwrap(), "--duration", "trace",
        "--warmup", "1", "--out", out.to_str().unwrap(),
    ]);
    assert!(ok, "{text}");
    let info = json(&out.join("run.json"));
    assert_eq!(info["duration_s"], 4.5, "{info}");
    assert_eq!(info["duration_from_trace"], true, "{info}");
    assert!(started.elapsed() < Duration::from_secs(30));
    let window = &metrics(&out)["window"];
    assert!((window["end_s"].as_f64().unwrap() - 4.5).abs() < 0.3, "{window}");
}
