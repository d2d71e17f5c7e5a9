// SPDX-License-Identifier: GPL-2.0-only
//! `c2tcp emulate`, `c2tcp trace` and `c2tcp cleanup` as a user runs them.
//! Each privileged test runs c2tcp inside a namespace of its own, which
//! plays the caller's side, so nothing touches the host's namespace.
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use netns::Netns;

const BIN: &str = env!("CARGO_BIN_EXE_c2tcp");

fn c2tcp(args: &[&str]) -> (bool, String, String) {
    let out = Command::new(BIN).args(args).output().unwrap();
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into(),
        String::from_utf8_lossy(&out.stderr).into(),
    )
}

fn constant_trace(dir: &Path, mbps: u32) -> PathBuf {
    let path = dir.join(format!("c{mbps}"));
    let (ok, _, err) = c2tcp(&[
        "trace",
        "synth",
        "-o",
        path.to_str().unwrap(),
        "--constant",
        &mbps.to_string(),
        "--duration",
        "1",
    ]);
    assert!(ok, "{err}");
    path
}

/// A privileged test's world: a temp dir with a constant 12 Mbit/s trace
/// (its path) and a namespace playing the caller's side.
fn world() -> (tempfile::TempDir, String, Netns) {
    let dir = tempfile::tempdir().unwrap();
    let trace = constant_trace(dir.path(), 12).to_str().unwrap().to_string();
    (dir, trace, Netns::new("caller").unwrap())
}

/// `c2tcp emulate -q` over `trace` both ways, started in `caller`.
fn emulate(caller: &Netns, trace: &str, extra: &[&str]) -> Command {
    let mut cmd = caller.command(BIN);
    cmd.args(["emulate", "-q", "--downlink", trace, "--uplink", trace])
        .args(extra)
        .stdin(Stdio::null());
    cmd
}

fn ip_out(ns: &Netns, args: &[&str]) -> String {
    String::from_utf8(
        netns::run_checked(ns.command("ip").args(args), "ip")
            .unwrap()
            .stdout,
    )
    .unwrap()
}

/// Nothing of an emulator run is left in the caller's namespace.
fn assert_clean(caller: &Netns) {
    let links = ip_out(caller, &["-o", "link"]);
    assert!(!links.contains("c2e"), "TUN device left: {links}");
    let routes = ip_out(caller, &["route", "show", "table", "all"]);
    assert!(!routes.contains("100.96."), "route left: {routes}");
}

fn process_with_arg(arg: &str) -> Option<i32> {
    std::fs::read_dir("/proc").unwrap().flatten().find_map(|e| {
        let pid: i32 = e.file_name().to_str()?.parse().ok()?;
        let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).ok()?;
        cmdline
            .split(|&b| b == 0)
            .any(|a| a == arg.as_bytes())
            .then_some(pid)
    })
}

fn wait_for(what: &str, mut f: impl FnMut() -> bool) {
    let t = Instant::now();
    while !f() {
        assert!(
            t.elapsed() < Duration::from_secs(10),
            "timed out waiting for {what}"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn trace_synth_and_stats() {
    let dir = tempfile::tempdir().unwrap();
    let path = constant_trace(dir.path(), 12);
    let (ok, out, err) = c2tcp(&["trace", "stats", "--json", path.to_str().unwrap()]);
    assert!(ok, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v[0]["stats"]["mean_mbps"].as_f64(), Some(12.0), "{out}");
    let lte = dir.path().join("lte");
    let (ok, _, err) = c2tcp(&["trace", "synth", "-o", lte.to_str().unwrap(), "--seed", "3"]);
    assert!(ok && err.contains("mean"), "{err}");
    let bad = dir.path().join("bad.down");
    std::fs::write(&bad, "1\n3\n2\n").unwrap();
    let (ok, _, err) = c2tcp(&["trace", "stats", bad.to_str().unwrap()]);
    assert!(!ok && err.contains("bad.down:3:"), "{err}");
    let sched = dir.path().join("rates");
    std::fs::write(&sched, "0 12\n0.5 24\n").unwrap();
    let out_trace = dir.path().join("from-rate");
    let (ok, _, err) = c2tcp(&[
        "trace",
        "from-rate",
        sched.to_str().unwrap(),
        "-o",
        out_trace.to_str().unwrap(),
        "--duration",
        "1",
    ]);
    assert!(ok && err.contains("mean 18.00 Mbit/s"), "{err}");
    // Rates past what the emulator is documented to handle: refused, or warned.
    let fast = dir.path().join("fast").to_str().unwrap().to_string();
    let (ok, _, err) = c2tcp(&[
        "trace",
        "synth",
        "-o",
        &fast,
        "--constant",
        "100000",
        "--duration",
        "1",
    ]);
    assert!(!ok && err.contains("above the 10000 Mbit/s"), "{err}");
    assert!(!Path::new(&fast).exists(), "a refused trace is not written");
    let (ok, _, err) = c2tcp(&[
        "trace",
        "synth",
        "-o",
        &fast,
        "--steps",
        "0:12,0.5:20000",
        "--duration",
        "1",
    ]);
    assert!(!ok && err.contains("--steps at 0.5 s"), "{err}");
    let (ok, _, err) = c2tcp(&[
        "trace",
        "synth",
        "-o",
        &fast,
        "--constant",
        "8000",
        "--duration",
        "1",
    ]);
    assert!(
        ok && err.contains("warning") && err.contains("8000 Mbit/s"),
        "{err}"
    );
    // A Mahimahi log converts to pcapng: one record per arrival, departure
    // and drop line, read back by Wireshark's tshark.
    let mm = dir.path().join("mm.log");
    std::fs::write(&mm, "# mahimahi mm-link (Downlink) [x] > mm.log\n# base timestamp: 141\n142 # 1504\n142 + 80\n142 + 1504\n144 # 1504\n144 - 80 2\n144 - 1504 2\n").unwrap();
    let conv = dir.path().join("mm.pcapng");
    let (ok, _, err) = c2tcp(&[
        "trace",
        "log-to-pcap",
        mm.to_str().unwrap(),
        "-o",
        conv.to_str().unwrap(),
    ]);
    assert!(ok && err.contains("4 packet records"), "{err}");
    match Command::new("tshark")
        .args([
            "-r",
            conv.to_str().unwrap(),
            "-T",
            "fields",
            "-e",
            "frame.comment",
            "-e",
            "frame.len",
        ])
        .output()
    {
        Ok(out) => {
            let text = String::from_utf8_lossy(&out.stdout).into_owned();
            assert!(
                out.status.success(),
                "{}",
                String::from_utf8_lossy(&out.stderr)
            );
            let rows: Vec<&str> = text.lines().collect();
            assert_eq!(
                rows,
                [
                    "arrival\t80",
                    "arrival\t1504",
                    "departure queue_delay=2.000ms\t80",
                    "departure queue_delay=2.000ms\t1504"
                ]
            );
        }
        Err(_) => {
            testkit::skip_or_fail(
                "trace_synth_and_stats (tshark part)",
                "no tshark (make deps installs it)",
            );
        }
    }
    // Rate specs are traces wherever one is read.
    let (ok, out, err) = c2tcp(&[
        "trace",
        "stats",
        "--json",
        "constant:24",
        "steps:0:12,1:36@2",
    ]);
    assert!(ok, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v[0]["stats"]["mean_mbps"].as_f64(), Some(24.0), "{out}");
    assert_eq!(v[1]["stats"]["mean_mbps"].as_f64(), Some(24.0), "{out}");
}

#[test]
fn emulate_rejects_bad_input_before_doing_anything() {
    let dir = tempfile::tempdir().unwrap();
    let good = constant_trace(dir.path(), 12);
    let empty = dir.path().join("empty.up");
    std::fs::write(&empty, "").unwrap();
    let g = good.to_str().unwrap();
    let cases: [(&[&str], &str); 7] = [
        (
            &["--downlink", "constant:0", "--uplink", g],
            "--downlink: constant:0",
        ),
        (
            &["--downlink", g, "--uplink", "constant:1e6"],
            "above the 10000 Mbit/s",
        ),
        (
            &["--downlink", "steps:0:12", "--uplink", g],
            "needs its period",
        ),
        (
            &["--downlink", g, "--uplink", empty.to_str().unwrap()],
            "empty.up: no lines",
        ),
        (
            &["--downlink", g, "--uplink", g, "--downlink-queue", "red"],
            "unknown queue `red`",
        ),
        (
            &[
                "--downlink",
                g,
                "--uplink",
                g,
                "--uplink-queue",
                "codel",
                "--uplink-queue-args",
                "target=x",
            ],
            "target=`x`",
        ),
        (
            &["--downlink", g, "--uplink", g, "--delay=-1"],
            "--delay must be",
        ),
    ];
    for (args, want) in cases {
        let mut all = vec!["emulate"];
        all.extend_from_slice(args);
        all.extend(["--", "true"]);
        let (ok, _, err) = c2tcp(&all);
        assert!(!ok && err.contains(want), "{args:?}: {err}");
    }
}

#[test]
fn emulate_gives_command_the_base_address_and_its_exit_status() {
    if !testkit::require_root("emulate_gives_command_the_base_address_and_its_exit_status") {
        return;
    }
    let (_dir, t, caller) = world();
    let out = caller
        .command(BIN)
        .args(["emulate", "--downlink", &t, "--uplink", "constant:12", "--delay", "5", "--downlink-queue=droptail", "--downlink-queue-args=packets=100"])
        .args(["--", "sh", "-c", "ping -n -c 2 -W 2 $MAHIMAHI_BASE >/dev/null && [ \"$C2TCP_BASE\" = \"$MAHIMAHI_BASE\" ] && exit 7"])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(7), "{err}");
    assert!(
        err.contains("droptail:packets=100") && err.contains("MAHIMAHI_BASE"),
        "{err}"
    );
    assert_clean(&caller);
}

#[test]
fn iperf3_reverse_gets_the_trace_rate() {
    if !testkit::require_root("iperf3_reverse_gets_the_trace_rate") {
        return;
    }
    let (dir, t, caller) = world();
    let mut server = caller
        .command("iperf3")
        .args(["-s", "-1", "-p", "5201"])
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(200));
    let log = dir.path().join("down.log");
    let out = emulate(
        &caller,
        &t,
        &[
            "--delay",
            "10",
            "--downlink-queue",
            "droptail",
            "--downlink-queue-args",
            "packets=100",
        ],
    )
    .args(["--downlink-log", log.to_str().unwrap()])
    .args([
        "--",
        "sh",
        "-c",
        "iperf3 -c $MAHIMAHI_BASE -p 5201 -R -t 5 -O 1 --json",
    ])
    .output()
    .unwrap();
    let _ = server.wait();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let mbps = v["end"]["sum_received"]["bits_per_second"]
        .as_f64()
        .unwrap()
        / 1e6;
    // 12 Mbit/s of 1500-byte packets is 11.58 Mbit/s of TCP payload.
    assert!(
        (11.0..=12.1).contains(&mbps),
        "iperf3 -R through a 12 Mbit/s trace: {mbps:.2} Mbit/s"
    );
    let text = std::fs::read_to_string(&log).unwrap();
    assert!(
        text.starts_with("# base timestamp: ")
            && text.contains("direction=downlink")
            && text.contains(" tcp 100.96.")
    );
    assert_clean(&caller);
}

#[test]
fn sigint_tears_everything_down() {
    if !testkit::require_root("sigint_tears_everything_down") {
        return;
    }
    let (_dir, t, caller) = world();
    let mut run = emulate(&caller, &t, &["--", "sleep", "30.123"])
        .spawn()
        .unwrap();
    wait_for("the emulator's TUN device", || {
        ip_out(&caller, &["-o", "link"]).contains("c2e")
    });
    wait_for("COMMAND", || process_with_arg("30.123").is_some());
    unsafe { libc::kill(run.id() as i32, libc::SIGINT) };
    let t0 = Instant::now();
    let status = run.wait().unwrap();
    assert!(t0.elapsed() < Duration::from_secs(5));
    assert_eq!(
        status.code(),
        Some(128 + libc::SIGTERM),
        "COMMAND's status: stopped by SIGTERM"
    );
    assert_clean(&caller);
    assert_eq!(process_with_arg("30.123"), None, "COMMAND is gone");
}

#[test]
fn once_stops_command_when_the_trace_ends() {
    if !testkit::require_root("once_stops_command_when_the_trace_ends") {
        return;
    }
    // The 1 s trace ends after a second; COMMAND would sleep 30.
    let (_dir, t, caller) = world();
    let t0 = Instant::now();
    let status = emulate(&caller, &t, &["--once", "--", "sleep", "30.789"])
        .status()
        .unwrap();
    assert!(t0.elapsed() < Duration::from_secs(5), "{:?}", t0.elapsed());
    assert_eq!(status.code(), Some(128 + libc::SIGTERM));
    assert_clean(&caller);
}

#[test]
fn cleanup_removes_what_a_killed_run_left() {
    if !testkit::require_root("cleanup_removes_what_a_killed_run_left") {
        return;
    }
    let (_dir, t, caller) = world();
    let mut run = emulate(
        &caller,
        &t,
        &["--", "sh", "-c", "sleep 30.456 & sleep 30.457"],
    )
    .spawn()
    .unwrap();
    wait_for("COMMAND", || process_with_arg("30.456").is_some());
    unsafe { libc::kill(run.id() as i32, libc::SIGKILL) };
    run.wait().unwrap();
    // The TUN device died with the process; the guard route stays on
    // purpose (it keeps leftover traffic on this machine), and so does the
    // background sleep, which had no parent-death signal.
    wait_for("the device to vanish", || {
        !ip_out(&caller, &["-o", "link"]).contains("c2e")
    });
    assert!(ip_out(&caller, &["route", "show", "table", "all"]).contains("unreachable 100.96."));
    let out = netns::run_checked(caller.command(BIN).arg("cleanup"), "c2tcp cleanup").unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("unreachable route 100.96."), "{text}");
    assert!(text.contains("(sleep)"), "{text}");
    assert!(text.contains("stale slot"), "{text}");
    assert_clean(&caller);
    wait_for("the orphan to die", || process_with_arg("30.456").is_none());
}
