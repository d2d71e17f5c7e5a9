#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""The bench soak (`make bench` part `soak`, issue #29): a long bench under
random SIGKILLs of its runs and of the bench itself, a full disk for a while,
and a report running beside it. Afterwards every run must be `done` with a
valid metrics.json that is byte-identical to its first write, or `failed`
with a reason; nothing stale; nothing left in the kernel.

    sudo scripts/soak.py --minutes 30 --out bench-out/soak

The bench directory lives on a tmpfs of --disk-mb MiB that the soak mounts
(and unmounts), so that filling it is a real ENOSPC for the runs, not a
simulation. Prints a progress line a minute, then the counts as a table and
writes them to OUT/soak.json. Exits 1 if anything stale or left over was
found, or if a done run's metrics.json changed after its first write.
"""
import argparse
import hashlib
import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def sh(*args, **kw):
    return subprocess.run(args, capture_output=True, text=True, **kw)


def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        h.update(f.read())
    return h.hexdigest()


def pids_of(pattern):
    out = sh("pgrep", "-f", pattern).stdout.split()
    return [int(p) for p in out if int(p) != os.getpid()]


class Soak:
    def __init__(self, args):
        self.a = args
        self.out = Path(args.out).resolve()
        self.fs = self.out / "fs"
        self.bench_dir = self.fs / "bench"
        self.first = {}  # run dir -> sha256 of metrics.json when first seen done
        self.counts = dict(bench_starts=0, bench_kills=0, run_kills=0,
                           disk_full_episodes=0, reports_beside=0,
                           reports_beside_failed=0)
        self.rng = random.Random(args.seed)
        self.bench = None

    # -- the bench under test -------------------------------------------------
    def bench_cmd(self):
        t = REPO / "traces" / "mahimahi"
        traces = f"{t}/Verizon-LTE-short.down,{t}/TMobile-LTE-short.down"
        return [self.a.bin, "bench", "--schemes", self.a.schemes, "--traces", traces,
                "--duration", str(self.a.run_seconds), "--reps", str(self.a.reps),
                "--jobs", str(self.a.jobs), "--no-report", "--out", str(self.bench_dir)]

    def start_bench(self):
        self.bench = subprocess.Popen(self.bench_cmd(), stdout=subprocess.DEVNULL,
                                      stderr=open(self.out / "bench-stderr.log", "a"),
                                      start_new_session=True)
        self.counts["bench_starts"] += 1

    def bench_alive(self):
        return self.bench is not None and self.bench.poll() is None

    def running_children(self):
        return [p for p in pids_of(f"run --job .*{self.bench_dir}")]

    # -- chaos ----------------------------------------------------------------
    def kill_a_run(self):
        kids = self.running_children()
        if kids:
            os.kill(self.rng.choice(kids), signal.SIGKILL)
            self.counts["run_kills"] += 1

    def kill_the_bench(self):
        if self.bench_alive():
            self.bench.send_signal(signal.SIGKILL)
            self.bench.wait()
            self.counts["bench_kills"] += 1
            # Its children die with it (the lock-as-stdin protocol); give
            # them a moment, then resume as a user would.
            time.sleep(self.rng.uniform(1, 5))
        self.start_bench()

    def fill_disk(self):
        filler = self.fs / "filler"
        st = os.statvfs(self.fs)
        free = st.f_bavail * st.f_frsize
        with open(filler, "wb") as f:
            try:
                f.write(b"\0" * max(free - 4096, 0))
                f.write(b"\0" * (1 << 20))  # to ENOSPC
            except OSError:
                pass
        self.counts["disk_full_episodes"] += 1
        time.sleep(self.rng.uniform(10, 30))
        filler.unlink()

    def report_beside(self):
        dest = self.out / "report-beside"
        r = sh(self.a.bin, "report", str(self.bench_dir), "--out", str(dest),
               "--no-plots", "--allow-skipped")
        self.counts["reports_beside"] += 1
        if r.returncode not in (0, 1):
            self.counts["reports_beside_failed"] += 1
            (self.out / "report-beside.err").write_text(r.stderr)

    # -- watching first writes ------------------------------------------------
    def scan(self):
        for rj in self.bench_dir.glob("runs/**/run.json"):
            d = rj.parent
            if d in self.first:
                continue
            try:
                info = json.loads(rj.read_text())
            except (OSError, ValueError):
                continue
            m = d / "metrics.json"
            if info.get("status") == "done" and m.exists():
                self.first[d] = sha256(m)

    # -- the whole soak -------------------------------------------------------
    def run(self):
        self.out.mkdir(parents=True, exist_ok=True)
        self.fs.mkdir(exist_ok=True)
        r = sh("mount", "-t", "tmpfs", "-o", f"size={self.a.disk_mb}m", "c2tcp-soak", str(self.fs))
        if r.returncode:
            sys.exit(f"soak: mounting a tmpfs on {self.fs}: {r.stderr.strip()}")
        try:
            return self._run()
        finally:
            if self.bench_alive():
                self.bench.send_signal(signal.SIGINT)
                self.bench.wait()
            self.save_runs()
            sh("umount", str(self.fs))

    def _run(self):
        actions = [(self.kill_a_run, 6), (self.kill_the_bench, 2),
                   (self.report_beside, 2), (self.fill_disk, 1)]
        weights = [w for _, w in actions]
        end = time.monotonic() + self.a.minutes * 60
        next_line = time.monotonic() + 60
        self.start_bench()
        while time.monotonic() < end:
            time.sleep(self.rng.uniform(5, 30))
            self.scan()
            if not self.bench_alive():
                if self.bench.returncode == 0:
                    break  # every run done before the time was up
                self.start_bench()  # it exited on an error (e.g. ENOSPC): resume
                continue
            act = self.rng.choices(actions, weights)[0][0]
            act()
            if time.monotonic() > next_line:
                next_line += 60
                print(f"soak: {len(self.first)} runs done so far, {self.counts}", flush=True)
        # Calm: let the bench finish what is left, without chaos.
        deadline = time.monotonic() + self.a.settle_minutes * 60
        while time.monotonic() < deadline:
            if not self.bench_alive():
                if self.bench.returncode == 0:
                    break
                self.start_bench()
            time.sleep(5)
            self.scan()
        self.scan()
        return self.verify()

    def save_runs(self):
        # The tmpfs goes with the soak: keep the run records beside it.
        keep = self.out / "runs-kept"
        sh("rm", "-rf", str(keep))
        sh("cp", "-a", str(self.bench_dir), str(keep))

    def verify(self):
        runs = list(self.bench_dir.glob("runs/**/run.json"))
        done = failed = stale = changed = bad_metrics = 0
        problems = []
        for rj in runs:
            d = rj.parent
            try:
                info = json.loads(rj.read_text())
            except (OSError, ValueError) as e:
                stale += 1
                problems.append(f"{d}: unreadable run.json: {e}")
                continue
            st = info.get("status")
            m = d / "metrics.json"
            if st == "done":
                done += 1
                try:
                    met = json.loads(m.read_text())
                    if not str(met.get("format", "")).startswith("c2tcp-metrics"):
                        raise ValueError("no format field")
                except (OSError, ValueError) as e:
                    bad_metrics += 1
                    problems.append(f"{d}: done but metrics.json invalid: {e}")
                    continue
                if d in self.first and self.first[d] != sha256(m):
                    changed += 1
                    problems.append(f"{d}: metrics.json changed after its first write")
            elif st == "failed":
                failed += 1
                if not info.get("error"):
                    stale += 1
                    problems.append(f"{d}: failed without a reason")
                if m.exists():
                    stale += 1
                    problems.append(f"{d}: failed but a metrics.json is there")
            else:
                stale += 1
                problems.append(f"{d}: status {st!r} after the bench ended")
        tmp = [p for p in self.bench_dir.rglob("*") if p.name.endswith((".tmp", ".partial"))]
        stale += len(tmp)
        problems += [f"{p}: temporary file left" for p in tmp]
        leftovers = self.leftovers()
        result = dict(self.counts, runs=len(runs), done=done, failed=failed,
                      stale=stale, changed_after_first_write=changed,
                      done_with_bad_metrics=bad_metrics, leftovers=len(leftovers),
                      problems=problems + leftovers)
        (self.out / "soak.json").write_text(json.dumps(result, indent=2) + "\n")
        print("| runs | bench kills | run kills | disk-full episodes | reports beside | done | failed | stale | changed | leftovers |")
        print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
        c = self.counts
        print(f"| {len(runs)} | {c['bench_kills']} | {c['run_kills']} | {c['disk_full_episodes']} | "
              f"{c['reports_beside']} | {done} | {failed} | {stale} | {changed} | {len(leftovers)} |")
        for p in result["problems"]:
            print("  " + p)
        return 1 if (stale or changed or bad_metrics or leftovers) else 0

    def leftovers(self):
        """What the soak's killed runs left in the kernel and on the machine,
        as `c2tcp cleanup` finds it (it only touches what no live run holds,
        so other benches on the machine are safe). A dead run's slot-lock
        file is harmless (a lock nobody holds) and counted apart."""
        found = []
        if self.bench_alive():
            found.append("the bench is still running")
        found += [f"process {p} still running: {sh('ps', '-o', 'args=', '-p', str(p)).stdout.strip()}"
                  for p in pids_of(str(self.bench_dir))]
        r = sh(self.a.bin, "cleanup")
        removed = [l[len("removed "):] for l in r.stdout.splitlines() if l.startswith("removed ")]
        self.counts["slot_lock_files_of_killed_runs"] = sum(l.startswith("stale slot") for l in removed)
        found += [f"left behind: {l}" for l in removed if not l.startswith("stale slot")]
        return found

def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--minutes", type=float, default=30)
    p.add_argument("--settle-minutes", type=float, default=10,
                   help="after the chaos, how long the bench may take to finish what is left")
    p.add_argument("--out", default="bench-out/soak")
    p.add_argument("--bin", default=str(REPO / "target/release/c2tcp"))
    p.add_argument("--schemes", default="cubic,bbr,c2tcp")
    p.add_argument("--run-seconds", type=int, default=10)
    p.add_argument("--reps", type=int, default=60)
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument("--disk-mb", type=int, default=1024)
    p.add_argument("--seed", type=int, default=1)
    a = p.parse_args()
    if os.geteuid() != 0:
        sys.exit("soak: needs root (mount, BPF, network namespaces)")
    sys.exit(Soak(a).run())


if __name__ == "__main__":
    main()
