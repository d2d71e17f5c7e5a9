# SPDX-License-Identifier: GPL-2.0-only
"""The Ray driver end to end on a single-node local Ray cluster with two
units of `c2tcp`: a 4-run bench (Cubic and BBR, two repetitions, 3 s on a
constant 12 Mbit/s link) through `c2tcp-ray bench`, the driver killed with
SIGKILL once the first run is in, then rerun: it finishes the rest without
redoing what was done, and every run directory and the report appear.

Needs root (the runs' namespaces and TUN devices), the release c2tcp binary
($C2TCP_BIN or target/release/c2tcp) and Ray. With CI=true a missing one
fails the test; otherwise it is skipped with the reason.
"""
import json
import os
import pathlib
import signal
import subprocess
import sys
import time

import pytest

REPO = pathlib.Path(__file__).resolve().parents[3]
C2TCP = os.environ.get("C2TCP_BIN") or str(REPO / "target" / "release" / "c2tcp")
CI = os.environ.get("CI") == "true"


def need(ok, reason):
    if ok:
        return
    if CI:
        pytest.fail(reason + " (CI=true: a missing capability fails the test)")
    pytest.skip(reason)


@pytest.fixture(scope="module")
def cluster():
    try:
        import ray
    except ImportError:
        need(False, "Ray is not installed (make test-python installs it)")
    ray.init(num_cpus=2, resources={"c2tcp": 2}, include_dashboard=False,
             log_to_driver=False)
    try:
        yield ray.get_runtime_context().gcs_address
    finally:
        ray.shutdown()


def runs(out):
    """{run directory: run.json} of every run with a run.json."""
    found = {}
    for p in pathlib.Path(out).glob("runs/*/*/*/rep*/run.json"):
        try:
            found[str(p.parent.relative_to(out))] = json.loads(p.read_text())
        except ValueError:
            pass  # being written: not yet a run
    return found


def done(out):
    return {k: v for k, v in runs(out).items() if v.get("status") == "done"}


def test_a_bench_through_ray_resumes_after_the_driver_is_killed(cluster, tmp_path):
    need(os.geteuid() == 0, "needs root (network namespaces, TUN devices)")
    need(os.access(C2TCP, os.X_OK), "no c2tcp binary at %s (cargo build --release)" % C2TCP)
    sc = tmp_path / "s.toml"
    sc.write_text('name = "ray"\n[link]\ndownlink = "constant:12"\nuplink = "constant:12"\n'
                  'delay_ms = 5\nduration_s = 3\n[[flows]]\nscheme = "cubic"\n')
    out = tmp_path / "bench"
    cmd = [sys.executable, "-m", "c2tcp_ray.cli", "bench", str(sc), "--schemes", "cubic,bbr",
           "--reps", "2", "--address", cluster, "--out", str(out), "--c2tcp", C2TCP,
           "--reference", "cubic"]

    first = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 120
    while not done(out):
        assert first.poll() is None, "the driver ended early: %s" % first.stderr.read().decode()
        assert time.monotonic() < deadline, "no run finished within 120 s"
        time.sleep(0.1)
    first.send_signal(signal.SIGKILL)
    first.wait()
    first.stderr.close()
    before = done(out)
    assert 1 <= len(before) < 4, "killed mid-way, yet %d runs done" % len(before)

    second = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=180)
    err = second.stderr.decode()
    assert second.returncode == 0, err
    assert "4 runs (%d already done)" % len(before) in err, err
    after = done(out)
    assert len(after) == 4 and len(runs(out)) == 4, sorted(runs(out))
    for run, info in before.items():
        assert after[run]["timings"] == info["timings"], "%s was redone" % run
    for run, info in after.items():
        assert (out / run / "metrics.json").is_file(), run
        assert not (out / run / "downlink.log").exists(), "raw logs shipped without --keep-logs"
        assert info["scheme"] in ("cubic", "bbr") and info["rep"] in (1, 2)
    assert (out / "report.md").is_file() and (out / "summary.json").is_file()
    summary = json.loads((out / "summary.json").read_text())
    assert sorted(c["scheme"] for c in summary["configs"]) == ["bbr", "cubic"]


def test_a_worker_failure_becomes_the_runs_failed_status(cluster, tmp_path):
    need(os.access(C2TCP, os.X_OK), "no c2tcp binary at %s (cargo build --release)" % C2TCP)
    sc = tmp_path / "s.toml"
    sc.write_text('name = "ray"\n[link]\ndownlink = "constant:12"\nduration_s = 3\n'
                  '[[flows]]\nscheme = "cubic"\n')
    out = tmp_path / "bench"
    missing = str(tmp_path / "no-such-c2tcp")
    proc = subprocess.run(
        [sys.executable, "-m", "c2tcp_ray.cli", "bench", str(sc), "--schemes", "cubic,bbr",
         "--address", cluster, "--out", str(out), "--c2tcp", C2TCP, "--worker-c2tcp", missing,
         "--no-report"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=120)
    err = proc.stderr.decode()
    assert proc.returncode == 1, err
    found = runs(out)
    assert sorted(found) == ["runs/constant:12/bbr/default/rep1", "runs/constant:12/cubic/default/rep1"]
    for run, info in found.items():
        assert info["status"] == "failed", info
        assert "no-such-c2tcp" in info["error"], info["error"]
        assert "failed: %s" % run in err, err
