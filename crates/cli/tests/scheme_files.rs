// SPDX-License-Identifier: GPL-2.0-only
//! Schemes as files (docs/schemes.md): a `command` scheme written in the
//! test runs through the emulator like the built-in it imitates; a `bpf`
//! scheme loads a user's object from its path for a bench and leaves
//! nothing registered; bad files and bad `--set`s are refused before
//! anything exists.
mod common;

use std::path::{Path, PathBuf};

use common::{assert_no_process_mentions, c2tcp, metrics, registered, serial};

/// The authors' link at a constant rate: 10 ms each way, 100-packet droptail.
fn scenario(dir: &Path, secs: u32) -> PathBuf {
    let path = dir.join("link.toml");
    std::fs::write(
        &path,
        format!(
            "name = \"files\"\n[link]\ndownlink = \"constant:12\"\nuplink = \"constant:12\"\ndelay_ms = 10\n\
             queue = \"droptail:packets=100\"\nduration_s = {secs}\nwarmup_s = 2\n[[flows]]\nscheme = \"cubic\"\n"
        ),
    )
    .unwrap();
    path
}

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

fn throughput(run: &Path) -> f64 {
    metrics(run)["aggregate"]["throughput_mbps"]
        .as_f64()
        .unwrap()
}

/// iperf3 as a `command` scheme (its own command lines, placeholders
/// filled by the runner) against the built-in `iperf3:cubic` on the same
/// link: the same real program through the same emulator, so the same
/// throughput within 10 %, measured from the emulator's logs.
#[test]
fn a_command_scheme_from_a_file_matches_its_built_in_equivalent() {
    let test = "a_command_scheme_from_a_file_matches_its_built_in_equivalent";
    if !testkit::require_root(test) {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let sc = scenario(tmp.path(), 10);
    let file = write(
        tmp.path(),
        "my-iperf.toml",
        "kind = \"command\"\nsummary = \"iperf3 with Cubic, declared in a test\"\n\
         receiver = \"iperf3 -s -1 -B {addr} -p {port}\"\n\
         sender = \"iperf3 -c {addr} -p {port} -t {duration} -C cubic --logfile {out}/client.log\"\n",
    );
    let run = |scheme: &str, extra: &[&str]| {
        let out = tmp.path().join(scheme.replace(':', "-"));
        let mut args = vec![
            "run",
            sc.to_str().unwrap(),
            "--scheme",
            scheme,
            "--out",
            out.to_str().unwrap(),
            "-q",
        ];
        args.extend_from_slice(extra);
        let (ok, text) = c2tcp(&args);
        assert!(ok, "c2tcp run --scheme {scheme}: {text}");
        out
    };
    let mine = run("my-iperf", &["--scheme-file", file.to_str().unwrap()]);
    let builtin = run("iperf3:cubic", &[]);
    let flows = common::json(&mine.join("flows.json"));
    assert!(flows[0]["error"].is_null(), "{flows}");
    let client = std::fs::read_to_string(mine.join("command-flow0/client.log")).unwrap();
    assert!(client.contains("sender"), "iperf3's own log: {client}");
    let (m, b) = (throughput(&mine), throughput(&builtin));
    assert!(
        b > 5.0,
        "the built-in iperf3:cubic moved only {b:.2} Mbit/s"
    );
    assert!(
        (m - b).abs() <= 0.1 * b,
        "command scheme {m:.2} Mbit/s vs iperf3:cubic {b:.2}"
    );
    assert_no_process_mentions(tmp.path());
}

/// A user's struct_ops object (the example CC bpfload builds, registered as
/// `c2t_example`) named by a scheme file: a bench carries the file to its
/// `c2tcp run --job` children, loads the object once for them from its
/// path, and unloads it at the end.
#[test]
fn a_bpf_scheme_loads_a_users_object_for_a_bench_and_unloads_it() {
    let test = "a_bpf_scheme_loads_a_users_object_for_a_bench_and_unloads_it";
    if !testkit::require_root(test) {
        return;
    }
    let _serial = serial();
    let tmp = tempfile::tempdir().unwrap();
    let sc = scenario(tmp.path(), 6);
    let file = write(
        tmp.path(),
        "mine.toml",
        &format!(
            "name = \"my-reno\"\nkind = \"bpf\"\ncc = \"c2t_example\"\nobject = \"{}\"\n",
            bpfload::EXAMPLE_OBJECT
        ),
    );
    assert!(
        !registered("c2t_example"),
        "c2t_example registered before the test"
    );
    let out = tmp.path().join("bench");
    let args = |list: bool| {
        let mut a = vec![
            "bench",
            sc.to_str().unwrap(),
            "--scheme-file",
            file.to_str().unwrap(),
            "--schemes",
            "my-reno,cubic",
            "--out",
            out.to_str().unwrap(),
            "--no-report",
        ];
        if list {
            a.push("--list");
        }
        a
    };
    let (ok, listed) = c2tcp(&args(true));
    assert!(ok, "{listed}");
    let jobs: Vec<serde_json::Value> = listed
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(jobs.len(), 2, "{listed}");
    let carried = |j: &serde_json::Value| j["scheme_files"].as_array().map_or(0, |a| a.len());
    assert_eq!(
        (carried(&jobs[0]), carried(&jobs[1])),
        (1, 1),
        "cubic's file is carried too: {listed}"
    );
    let (ok, text) = c2tcp(&args(false));
    assert!(ok, "{text}");
    assert!(
        !registered("c2t_example"),
        "c2t_example left registered: {text}"
    );
    assert!(
        !Path::new("/sys/fs/bpf/c2tcp/c2t_example").exists(),
        "its pins left behind"
    );
    let run = |scheme: &str| {
        let found: Vec<PathBuf> = walk(&out.join("runs"))
            .into_iter()
            .filter(|p| {
                p.ends_with("metrics.json") && p.to_string_lossy().contains(&format!("/{scheme}/"))
            })
            .collect();
        assert_eq!(found.len(), 1, "{scheme}: {found:?}");
        found[0].parent().unwrap().to_path_buf()
    };
    let (mine, cubic) = (run("my-reno"), run("cubic"));
    // NewReno and Cubic both fill a 12 Mbit/s link.
    let (m, c) = (throughput(&mine), throughput(&cubic));
    assert!(
        m > 0.8 * c && c > 5.0,
        "c2t_example {m:.2} Mbit/s vs Cubic {c:.2}"
    );
    // The sender's socket ran the user's congestion control.
    let tcpinfo = std::fs::read_to_string(mine.join("tcpinfo.csv")).unwrap();
    assert!(tcpinfo.lines().count() > 2, "{tcpinfo}");
    let setup = std::fs::read_to_string(mine.join("flows.json")).unwrap();
    assert!(setup.contains("my-reno"), "{setup}");
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(walk(&p));
        } else {
            out.push(p);
        }
    }
    out
}

/// Each bad file is refused naming the file and the field, before the run
/// made its directory (and so before any namespace or BPF program).
#[test]
fn bad_scheme_files_and_settings_are_refused_before_anything_starts() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("never");
    let refused = |file: &Path, scheme: &str, extra: &[&str]| -> String {
        let mut args = vec![
            "run",
            "--scheme-file",
            file.to_str().unwrap(),
            "--scheme",
            scheme,
            "--downlink",
            "constant:12",
            "--out",
            out.to_str().unwrap(),
        ];
        args.extend_from_slice(extra);
        let (ok, text) = c2tcp(&args);
        assert!(!ok, "{}: accepted: {text}", file.display());
        assert!(!out.exists(), "{}: the run started", file.display());
        text
    };
    let cases: &[(&str, &str, &str)] = &[
        (
            "kind.toml",
            "kind = \"quic\"\n",
            "kind.toml:1: kind: unknown kind `quic`",
        ),
        (
            "nosend.toml",
            "kind = \"command\"\nreceiver = \"nc -l {port}\"\n",
            "nosend.toml: sender",
        ),
        (
            "typo.toml",
            "kind = \"command\"\nreceiver = \"nc -l {port}\"\nsender = \"nc {adress} {port}\"\n",
            "typo.toml:3: sender: unknown placeholder `{adress}`",
        ),
        (
            "noobj.toml",
            "kind = \"bpf\"\ncc = \"mine\"\nobject = \"mine.bpf.o\"\n",
            "noobj.toml:3: object",
        ),
        (
            "field.toml",
            "kind = \"kernel\"\ncc = \"reno\"\nsumary = \"x\"\n",
            "unknown field `sumary`",
        ),
    ];
    for (name, text, want) in cases {
        let f = write(tmp.path(), name, text);
        let e = refused(&f, name.trim_end_matches(".toml"), &[]);
        assert!(
            e.contains(want) && e.contains(&tmp.path().display().to_string()),
            "{name}: {e}"
        );
    }
    let f = write(
        tmp.path(),
        "notcc.toml",
        &format!(
            "kind = \"bpf\"\ncc = \"mine\"\nobject = \"{}\"\n",
            bpfload::NOT_A_CC_OBJECT
        ),
    );
    let e = refused(&f, "notcc", &[]);
    assert!(
        e.contains("notcc.toml:3: object") && e.contains("no struct_ops map"),
        "{e}"
    );
    assert!(!registered("mine"));
    // --set is checked as a scenario's flow fields are.
    let good = write(
        tmp.path(),
        "good.toml",
        "kind = \"kernel\"\ncc = \"reno\"\n",
    );
    let e = refused(&good, "good", &["--set", "alpha=2"]);
    assert!(
        e.contains("--set alpha") && e.contains("takes `alpha`"),
        "{e}"
    );
    let e = refused(&good, "c2tcp", &["--set", "target_ms=0.5"]);
    assert!(
        e.contains("--set target_ms=0.5") && e.contains("out of range"),
        "{e}"
    );
    let e = refused(&good, "c2tcp", &["--set", "variant=papr"]);
    assert!(e.contains("variant"), "{e}");
}

/// `make install DESTDIR=<tmp> PREFIX=/usr`: the installed binary, run from
/// outside the repository with no C2TCP_TRACES, runs a user's `kernel`
/// scheme file (`--scheme-file my.toml --scheme mine`) whose knob is a
/// per-namespace sysctl: a `command` flow beside it reads the sysctl in its
/// own namespace (the value the knob set), and the root namespace's stays
/// as it was.
#[test]
fn an_installed_c2tcp_runs_a_users_scheme_file() {
    let test = "an_installed_c2tcp_runs_a_users_scheme_file";
    if !testkit::require_root(test) {
        return;
    }
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let dest = tempfile::tempdir().unwrap();
    let bin = Path::new(env!("CARGO_BIN_EXE_c2tcp"));
    let mut make = std::process::Command::new("make");
    // The binary under test is built already (cargo holds the build
    // directory while tests run, so make must not call cargo).
    make.arg("-C")
        .arg(&repo)
        .args(["-o", "build", "-o", "deps"]);
    let gcc = bin.with_file_name("webrtc-gcc");
    if gcc.is_file() {
        make.arg("-o").arg(&gcc);
    }
    let out = make
        .arg("install")
        .arg(format!("BIN={}", bin.display()))
        .arg(format!("DESTDIR={}", dest.path().display()))
        .arg("PREFIX=/usr")
        .output()
        .expect("running make");
    assert!(
        out.status.success(),
        "make install: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let installed = dest.path().join("usr/bin/c2tcp");

    let mine = tempfile::tempdir().unwrap();
    let my = write(
        mine.path(),
        "my.toml",
        "name = \"mine\"\nkind = \"kernel\"\ncc = \"reno\"\nsummary = \"NewReno asking for ECN\"\n\
         [knobs.ecn]\nabout = \"net.ipv4.tcp_ecn of the run's namespaces\"\nmin = 0\nmax = 2\ndefault = 1\n\
         sysctl = \"net.ipv4.tcp_ecn\"\n",
    );
    // iperf3, after noting the sysctl as its own namespace has it.
    let probe = write(
        mine.path(),
        "probe.toml",
        "kind = \"command\"\nreceiver = \"iperf3 -s -1 -B {addr} -p {port}\"\n\
         sender = \"sh -c 'cat /proc/sys/net/ipv4/tcp_ecn > {out}/tcp_ecn; exec iperf3 -c {addr} -p {port} -t {duration}'\"\n",
    );
    let sc = write(
        mine.path(),
        "two.toml",
        "name = \"installed\"\n[link]\ndownlink = \"constant:12\"\nuplink = \"constant:12\"\nduration_s = 6\nwarmup_s = 1\n\
         [[flows]]\nscheme = \"cubic\"\n[[flows]]\nscheme = \"probe\"\nkeep_scheme = true\n",
    );
    let root_ecn = std::fs::read_to_string("/proc/sys/net/ipv4/tcp_ecn").unwrap();
    let run = mine.path().join("run");
    let result = std::process::Command::new(&installed)
        .current_dir(mine.path())
        .env_remove("C2TCP_TRACES")
        .env_remove("C2TCP_SCHEMES")
        .arg("run")
        .arg(&sc)
        .arg("--scheme-file")
        .arg(&my)
        .arg("--scheme-file")
        .arg(&probe)
        .args(["--scheme", "mine", "--set", "ecn=1", "-q", "--out"])
        .arg(&run)
        .output()
        .unwrap();
    assert!(
        result.status.success(),
        "installed c2tcp run --scheme-file my.toml --scheme mine: {}",
        String::from_utf8_lossy(&result.stderr)
    );
    let setup = common::json(&run.join("setup.json"));
    assert_eq!(setup["scenario"]["flows"][0]["scheme"], "mine", "{setup}");
    assert!(throughput(&run) > 1.0, "{}", throughput(&run));
    let seen = std::fs::read_to_string(run.join("command-flow1/tcp_ecn")).unwrap();
    assert_eq!(seen.trim(), "1", "the knob's sysctl in the run's namespace");
    assert_eq!(
        std::fs::read_to_string("/proc/sys/net/ipv4/tcp_ecn").unwrap(),
        root_ecn,
        "the root namespace's sysctl changed"
    );
    // The installed share/ has the repository's scheme files: `cubic` is one.
    let (listed, text) = {
        let o = std::process::Command::new(&installed)
            .env_remove("C2TCP_TRACES")
            .args(["run", "--list-schemes"])
            .output()
            .unwrap();
        (
            o.status.success(),
            String::from_utf8_lossy(&o.stdout).into_owned(),
        )
    };
    // Its own line (c2tcp's summary names the kernel's Cubic too).
    let cubic = text
        .lines()
        .any(|l| l.split_whitespace().next() == Some("cubic") && l.contains("the kernel's Cubic"));
    assert!(listed && cubic, "{text}");
}

/// A run that must load a congestion control while another experiment holds
/// the registrations (the shared side of /run/c2tcp/bpf.lock) waits, says
/// why within a few seconds, and stops at Ctrl-C instead of sitting in
/// flock until the other experiment ends (seen: a bench waited for hours
/// behind two others and ignored SIGTERM).
#[test]
fn a_run_waiting_for_the_bpf_lock_says_so_and_stops_at_ctrl_c() {
    let test = "a_run_waiting_for_the_bpf_lock_says_so_and_stops_at_ctrl_c";
    if !testkit::require_root(test) {
        return;
    }
    let _serial = serial();
    let tmp = tempfile::tempdir().unwrap();
    let sc = scenario(tmp.path(), 4);
    let file = write(
        tmp.path(),
        "mine.toml",
        &format!(
            "name = \"my-reno\"\nkind = \"bpf\"\ncc = \"c2t_example\"\nobject = \"{}\"\n",
            bpfload::EXAMPLE_OBJECT
        ),
    );
    assert!(
        !registered("c2t_example"),
        "c2t_example registered before the test"
    );
    // Another experiment: this test holding the shared side.
    let other = bpfload::lock::BpfLock::shared().unwrap();
    let out = tmp.path().join("run");
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_c2tcp"))
        .args([
            "run",
            sc.to_str().unwrap(),
            "--scheme-file",
            file.to_str().unwrap(),
        ])
        .args([
            "--scheme",
            "my-reno",
            "--quiet",
            "--out",
            out.to_str().unwrap(),
        ])
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut stderr = child.stderr.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut text = String::new();
        let _ = std::io::Read::read_to_string(&mut stderr, &mut text);
        let _ = tx.send(text);
    });
    std::thread::sleep(std::time::Duration::from_secs(4));
    assert!(
        child.try_wait().unwrap().is_none(),
        "the run did not wait for the lock"
    );
    let pid = nix::unistd::Pid::from_raw(child.id() as i32);
    nix::sys::signal::kill(pid, nix::sys::signal::Signal::SIGINT).unwrap();
    let started = std::time::Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        assert!(
            started.elapsed() < std::time::Duration::from_secs(5),
            "the run ignored Ctrl-C while waiting for the lock"
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
    };
    drop(other);
    let text = rx.recv_timeout(std::time::Duration::from_secs(5)).unwrap();
    assert!(!status.success(), "{text}");
    assert!(text.contains("waiting for /run/c2tcp/bpf.lock"), "{text}");
    assert!(
        !registered("c2t_example"),
        "the stopped run loaded c2t_example: {text}"
    );
}
