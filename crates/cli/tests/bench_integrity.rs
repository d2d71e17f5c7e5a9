// SPDX-License-Identifier: GPL-2.0-only
//! A bench directory has one owner, no run outlives its bench, and results
//! are whole or absent: two benches into one directory, a bench killed
//! with SIGKILL and resumed at once, and a run whose disk fills up. Cubic
//! only (no BPF), short runs on constant-rate links.
mod common;

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use common::{assert_no_process_mentions, c2tcp, json, metrics};

const SLOT_DIR: &str = "/run/c2tcp/slots";

fn status(dir: &Path) -> String {
    json(&dir.join("run.json"))["status"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

/// A cubic-only scenario of `secs` seconds on a constant 12 Mbit/s link.
fn scenario(dir: &Path, secs: u32) -> PathBuf {
    let path = dir.join("s.toml");
    std::fs::write(
        &path,
        format!(
            "name = \"integrity\"\n[link]\ndownlink = \"constant:12\"\ndelay_ms = 5\nduration_s = {secs}\n\
             [[flows]]\nscheme = \"cubic\"\n"
        ),
    )
    .unwrap();
    path
}

fn spawn(args: &[&str]) -> Child {
    Command::new(env!("CARGO_BIN_EXE_c2tcp"))
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

fn stderr_of(child: &mut Child) -> String {
    let mut s = String::new();
    if let Some(mut e) = child.stderr.take() {
        let _ = e.read_to_string(&mut s);
    }
    s
}

/// Waits (up to `limit`) for `what` to hold.
fn wait_for(what: &str, limit: Duration, mut cond: impl FnMut() -> bool) {
    let start = Instant::now();
    while !cond() {
        assert!(start.elapsed() < limit, "{what}: not within {limit:?}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// The holder a directory's lock file names: (pid, command).
fn holder(dir: &Path) -> Option<(u32, String)> {
    let text = std::fs::read_to_string(dir.join(".lock")).ok()?;
    let field = |k: &str| {
        text.lines()
            .find_map(|l| l.strip_prefix(&format!("{k}=")).map(str::to_string))
    };
    Some((field("pid")?.parse().ok()?, field("command")?))
}

fn alive(pid: u32) -> bool {
    // A zombie has no cmdline left; an exited, reaped process no /proc entry.
    std::fs::read(format!("/proc/{pid}/cmdline")).is_ok_and(|c| !c.is_empty())
}

/// The emulator slots (`/run/c2tcp/slots/N.lock`) these processes hold.
fn slots_of(pids: &[u32]) -> Vec<(PathBuf, u32)> {
    let Ok(rd) = std::fs::read_dir(SLOT_DIR) else {
        return Vec::new();
    };
    rd.flatten()
        .filter_map(|e| {
            let pid: u32 = std::fs::read_to_string(e.path()).ok()?.trim().parse().ok()?;
            pids.contains(&pid).then(|| (e.path(), pid))
        })
        .collect()
}

/// Nothing of these runs is left in the kernel: their processes are gone
/// (their anonymous namespaces, TUN devices and guard routes with them)
/// and every emulator slot they held was given back.
fn assert_kernel_clean(pids: &[u32], slots: &[(PathBuf, u32)], dir: &Path) {
    for &pid in pids {
        wait_for(&format!("run process {pid} to end"), Duration::from_secs(10), || {
            !alive(pid)
        });
    }
    for (path, pid) in slots {
        let held_by = std::fs::read_to_string(path).unwrap_or_default();
        assert_ne!(
            held_by.trim(),
            pid.to_string(),
            "{} still names run process {pid}",
            path.display()
        );
    }
    assert_no_process_mentions(dir);
}

/// Both logs of a run parse through the metrics crate.
fn assert_logs_parse(run: &Path) {
    for log in ["downlink.log", "uplink.log"] {
        metrics::analyze(&run.join(log), &metrics::AnalysisConfig::default())
            .unwrap_or_else(|e| panic!("{}: {e}", run.join(log).display()));
    }
}

#[test]
fn a_second_bench_into_a_busy_directory_is_refused_at_once() {
    if !testkit::require_root("a_second_bench_into_a_busy_directory_is_refused_at_once") {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let sc = scenario(tmp.path(), 4);
    let out = tmp.path().join("bench");
    let args = [
        "bench",
        sc.to_str().unwrap(),
        "--schemes",
        "cubic",
        "--out",
        out.to_str().unwrap(),
        "--no-report",
    ];
    let mut first = spawn(&args);
    let first_pid = first.id();
    wait_for("the first bench to own its directory", Duration::from_secs(20), || {
        holder(&out) == Some((first_pid, "c2tcp bench".into()))
    });
    let started = Instant::now();
    let (ok, text) = c2tcp(&args);
    let took = started.elapsed();
    assert!(!ok, "a second bench ran: {text}");
    assert!(took < Duration::from_secs(5), "refused only after {took:?}");
    assert!(
        text.contains(&format!(
            "c2tcp bench: {} is in use by pid {first_pid} (c2tcp bench, started ",
            out.display()
        )) && text.contains("); wait for it or choose another --out"),
        "{text}"
    );
    eprintln!("second bench refused in {took:?}");

    // A lone run into the first bench's running run is refused the same way.
    let run = out.join("runs/constant:12/cubic/default/rep1");
    wait_for("the first bench's run to start", Duration::from_secs(20), || {
        holder(&run).is_some_and(|(_, c)| c == "c2tcp run")
    });
    let (run_pid, _) = holder(&run).unwrap();
    let (ok, text) = c2tcp(&[
        "run", "--scheme", "cubic", "--downlink", "constant:12", "--duration", "2", "--out",
        run.to_str().unwrap(),
    ]);
    assert!(!ok, "{text}");
    assert!(
        text.contains(&format!(
            "c2tcp run: {} is in use by pid {run_pid} (c2tcp run, started ",
            run.display()
        )),
        "{text}"
    );

    let status_code = first.wait().unwrap();
    let err = stderr_of(&mut first);
    assert!(status_code.success(), "the first bench failed: {err}");
    assert_eq!(status(&run), "done");
    assert!(metrics(&run)["aggregate"]["throughput_mbps"].as_f64().unwrap() > 5.0);
    assert_logs_parse(&run);
}

#[test]
fn a_killed_bench_takes_its_runs_with_it_and_resumes_at_once() {
    if !testkit::require_root("a_killed_bench_takes_its_runs_with_it_and_resumes_at_once") {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    // Runs long enough that an orphan left to itself would outlive the
    // bound below by seconds.
    let sc = scenario(tmp.path(), 6);
    let out = tmp.path().join("bench");
    let args = [
        "bench",
        sc.to_str().unwrap(),
        "--schemes",
        "cubic",
        "--reps",
        "2",
        "--jobs",
        "2",
        "--out",
        out.to_str().unwrap(),
        "--no-report",
    ];
    let runs: Vec<PathBuf> = (1..=2)
        .map(|r| out.join(format!("runs/constant:12/cubic/default/rep{r}")))
        .collect();
    let mut bench = spawn(&args);
    // Both runs under way, their c2tcp run children named in their locks.
    let mut children = Vec::new();
    wait_for("both runs to start", Duration::from_secs(30), || {
        children = runs
            .iter()
            .filter_map(|r| holder(r).filter(|(_, c)| c == "c2tcp run").map(|(p, _)| p))
            .collect();
        children.len() == 2 && runs.iter().all(|r| r.join("run.json").exists())
    });
    std::thread::sleep(Duration::from_millis(1000));
    let slots = slots_of(&children);
    assert_eq!(slots.len(), 2, "each run holds an emulator slot: {slots:?}");
    // SAFETY: SIGKILL to the bench we spawned, and to it alone.
    unsafe { libc::kill(bench.id() as i32, libc::SIGKILL) };
    bench.wait().unwrap();
    let killed = Instant::now();

    // The same command at once: it waits for the runs still winding down,
    // which end within moments of their bench (not at their own end, ~5 s on).
    let mut resumed = spawn(&args);
    wait_for("the killed bench's runs to end", Duration::from_millis(2500), || {
        children.iter().all(|&pid| !alive(pid))
    });
    let orphans_gone = killed.elapsed();
    let code = resumed.wait().unwrap();
    let text = stderr_of(&mut resumed);
    assert!(code.success(), "the resumed bench failed: {text}");
    assert!(text.contains("(0 already done)"), "{text}");
    eprintln!("resumed bench:\n{text}");
    for r in &runs {
        assert_eq!(status(r), "done", "{}", r.display());
        assert!(metrics(r)["aggregate"]["throughput_mbps"].as_f64().unwrap() > 5.0);
        assert_logs_parse(r);
    }
    for &pid in &children {
        assert!(!alive(pid), "run process {pid} of the killed bench is alive");
    }
    eprintln!(
        "killed bench's runs gone {orphans_gone:?} after the kill; resumed bench done {:?} after it",
        killed.elapsed()
    );
    assert_kernel_clean(&children, &slots, &out);
}

/// A tmpfs mounted for one test, unmounted when the test ends, even by a
/// panic.
struct Tmpfs(PathBuf);

impl Tmpfs {
    fn mount(dir: &Path, size: &str) -> Tmpfs {
        std::fs::create_dir_all(dir).unwrap();
        nix::mount::mount(
            Some("tmpfs"),
            dir,
            Some("tmpfs"),
            nix::mount::MsFlags::empty(),
            Some(format!("size={size}").as_str()),
        )
        .expect("mounting a tmpfs");
        Tmpfs(dir.to_path_buf())
    }

    fn free_bytes(&self) -> u64 {
        let s = nix::sys::statvfs::statvfs(&self.0).unwrap();
        s.blocks_available() as u64 * s.fragment_size() as u64
    }
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        let _ = nix::mount::umount2(&self.0, nix::mount::MntFlags::MNT_DETACH);
    }
}

#[test]
fn a_full_disk_fails_the_run_at_once_naming_the_file() {
    if !testkit::require_root("a_full_disk_fails_the_run_at_once_naming_the_file") {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let disk = Tmpfs::mount(&tmp.path().join("small"), "400k");
    let out = disk.0.join("run");
    // ~140 kB/s of logs: the 400 kB fill in about three seconds of ten.
    let mut run = spawn(&[
        "run", "--scheme", "cubic", "--downlink", "constant:12", "--duration", "10", "--out",
        out.to_str().unwrap(),
    ]);
    let pid = run.id();
    let started = Instant::now();
    let mut slots = Vec::new();
    let mut full_at = None;
    let exit = loop {
        if let Some(s) = run.try_wait().unwrap() {
            break s;
        }
        if slots.is_empty() {
            slots = slots_of(&[pid]);
        }
        if full_at.is_none() && disk.free_bytes() < 4096 {
            full_at = Some(Instant::now());
        }
        assert!(started.elapsed() < Duration::from_secs(15), "the run never ended");
        std::thread::sleep(Duration::from_millis(20));
    };
    let ended = Instant::now();
    let text = stderr_of(&mut run);
    assert!(!exit.success(), "the run succeeded on a full disk: {text}");
    let full_at = full_at.expect("the disk never filled");
    let after = ended - full_at;
    eprintln!(
        "disk full {:?} into the run, which failed {after:?} later",
        full_at - started
    );
    assert!(after < Duration::from_secs(2), "failed {after:?} after the disk filled");
    let named = |s: &str| {
        ["downlink.log", "uplink.log"].iter().any(|log| {
            s.contains(&format!("writing {}: No space left on device", out.join(log).display()))
        })
    };
    assert!(named(&text), "{text}");
    let info = json(&out.join("run.json"));
    assert_eq!(info["status"], "failed", "{info}");
    assert!(named(info["error"].as_str().unwrap_or_default()), "{info}");
    assert!(!slots.is_empty(), "the run's emulator slot was never seen");
    assert_kernel_clean(&[pid], &slots, &out);
    drop(disk);
}
