#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""What the UCC recording's download restarts do to the 5G benches (docs/5g.md).

    scripts/5g-restarts.py --zip 5G-production-dataset.zip [--bin target/release/c2tcp] BENCH_DIR...

BENCH_DIRs are `c2tcp bench` directories of scenarios/5g.toml and 5g-deep.toml,
over the raw traces (traces/5g/ucc-*.down.gz) and over the same traces with
their restarts bridged (ucc-*-bridged.down.gz, `BRIDGE_RESTARTS=1
scripts/import-ucc-5g.sh`); each run says which by its trace's name, and its
buffer by its queue. Printed, in Markdown:

1. Table I's ratios (each scheme's mean over its repetitions divided by C2TCP's
   at Target 50 ms, `jsac`, on the same trace, then averaged over the traces)
   per buffer, raw and bridged;
2. per trace, the share of capacity each scheme used and its mean queueing
   delay (the spread over repetitions);
3. on the raw traces, the share of capacity used in the restarts' seconds, in
   the 3 s after each, and in the rest of the run (the restarts found by
   `c2tcp trace import --bridge-restarts` on the dataset's own CSV, seconds
   30-150 of each run as import-ucc-5g.sh imports them);
4. C2TCP's own account (tcpinfo.csv, every 100 ms): Bad events per second and
   the share of time at cwnd <= 4 in those same three parts, and the longest
   stretch at cwnd <= 4 while the link offered 20 Mbit/s or more;
5. the emulator's p99 scheduling error over the runs (did it keep up).
"""
import argparse
import collections
import csv
import json
import re
import statistics
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

REF = "c2tcp jsac T50"
AFTER_S = 3.0
LOW_CWND = 4


def config_of(run):
    p = run["params"]
    if run["scheme"] != "c2tcp":
        return run["scheme"]
    return f"c2tcp {p.get('variant', 'jsac')} T{p.get('target_ms', 50)}"


def load_runs(dirs):
    runs = []
    for d in dirs:
        for rj in sorted(Path(d).glob("runs/*/*/*/rep*/run.json")):
            run = json.loads(rj.read_text())
            if run.get("status") != "done":
                continue
            rd = rj.parent
            job = json.loads((rd / "job.json").read_text())
            queue = job["scenario"]["link"]["queue"]
            m = re.search(r"packets=(\d+)", queue)
            trace = run["trace"]
            bridged = "-bridged." in trace
            runs.append({
                "dir": rd,
                "config": config_of(run),
                "trace": trace.replace("-bridged", ""),
                "form": "bridged" if bridged else "raw",
                "buffer": int(m.group(1)) if m else queue,
                "rep": run["rep"],
                "agg": json.loads((rd / "metrics.json").read_text())["aggregate"],
                "setup": json.loads((rd / "setup.json").read_text()),
            })
    return runs


def restart_spans(zip_path, binary, traces):
    """trace name -> [(start_s, end_s)] of its restarts, in the raw trace's time."""
    spans = {}
    with zipfile.ZipFile(zip_path) as z, tempfile.TemporaryDirectory() as tmp:
        for t in sorted(traces):
            m = re.match(r"ucc-(static|driving)-(.*)\.down\.gz$", t)
            if not m:
                continue
            member = f"5G-production-dataset/Download/{m.group(1).capitalize()}/B_{m.group(2)}.csv"
            csv_path = Path(tmp) / "log.csv"
            csv_path.write_bytes(z.read(member))
            out = subprocess.run([binary, "trace", "import", str(csv_path), "--start", "30", "--end", "150",
                                  "--bridge-restarts", "-o", str(Path(tmp) / "t")],
                                 capture_output=True, text=True, check=True).stderr
            cut = re.search(r"imported part: ([0-9.\- ]*)\)", out).group(1).split()
            spans[t] = [tuple(float(x) for x in s.split("-")) for s in cut]
    return spans


def part_of(t, spans):
    for a, b in spans:
        if a <= t < b:
            return "restart"
        if b <= t < b + AFTER_S:
            return "after"
    return "rest"


def series(path):
    return list(csv.DictReader(open(path)))


def mean(xs):
    xs = list(xs)
    return sum(xs) / len(xs) if xs else float("nan")


def fmt(x, digits=2):
    return "-" if x != x else f"{x:.{digits}f}"


def ratios(runs):
    print("## Table I's ratios: each scheme / C2TCP jsac at Target 50 on the same trace, mean over traces\n")
    keys = sorted({(r["buffer"], r["form"]) for r in runs}, key=lambda k: (str(k[0]), k[1] != "raw"))
    configs = sorted({r["config"] for r in runs}, key=lambda c: (c != REF, c))
    by = collections.defaultdict(list)
    for r in runs:
        by[(r["buffer"], r["form"], r["config"], r["trace"])].append(r["agg"])
    metrics = [("throughput_mbps", "thr."), ("avg_queue_delay_ms", "delay"), ("p95_queue_delay_ms", "p95"),
               ("jitter_mean_deviation_ms", "jitter")]
    head = "| scheme | " + " | ".join(f"{b} pkts {f}: " + " / ".join(n for _, n in metrics) for b, f in keys)
    print(head + " |\n|---|" + "---|" * len(keys))
    for c in configs:
        cells = []
        for b, f in keys:
            vals = []
            for m, _ in metrics:
                per_trace = []
                for t in sorted({r["trace"] for r in runs}):
                    mine, ref = by.get((b, f, c, t)), by.get((b, f, REF, t))
                    if mine and ref:
                        d = mean(a[m] for a in ref)
                        per_trace.append(mean(a[m] for a in mine) / d if d else float("nan"))
                vals.append(fmt(mean(per_trace)))
            reps = sum(len(by.get((b, f, c, t), [])) for t in {r["trace"] for r in runs})
            cells.append(" / ".join(vals) + f" ({reps})")
        print(f"| {c} | " + " | ".join(cells) + " |")
    print("\n(runs per cell in brackets)\n")


def per_trace(runs):
    print("## Per trace: share of capacity used, mean queueing delay (ms); min-max over repetitions\n")
    want = ["cubic", "bbr", "cubic-codel", REF, "c2tcp paper T50", "c2tcp jsac T25"]
    by = collections.defaultdict(list)
    for r in runs:
        by[(r["buffer"], r["form"], r["trace"], r["config"])].append(r["agg"])
    for b, f in sorted({(r["buffer"], r["form"]) for r in runs}, key=lambda k: (str(k[0]), k[1] != "raw")):
        print(f"### {b} packets, {f}\n")
        print("| trace | capacity Mbit/s | " + " | ".join(want) + " |\n|---|---|" + "---|" * len(want))
        for t in sorted({r["trace"] for r in runs}):
            cap = [a["capacity_mbps"] for c in want for a in by.get((b, f, t, c), [])]
            cells = []
            for c in want:
                aggs = by.get((b, f, t, c), [])
                if not aggs:
                    cells.append("-")
                    continue
                u = [a["utilization"] for a in aggs]
                d = [a["avg_queue_delay_ms"] for a in aggs]
                cells.append(f"{min(u):.2f}-{max(u):.2f}, {mean(d):.0f}")
            print(f"| {t.replace('.down.gz', '')} | {fmt(mean(cap), 0)} | " + " | ".join(cells) + " |")
        print()


def restart_parts(runs, spans):
    print(f"## Raw traces: share of capacity used in the restarts, the {AFTER_S:.0f} s after each, and the rest\n")
    print("(sums over every run of the configuration; the measured window only)\n")
    configs = sorted({r["config"] for r in runs}, key=lambda c: (c != REF, c))
    for b in sorted({r["buffer"] for r in runs}, key=str):
        print(f"### {b} packets\n\n| scheme | restarts | after | rest | rest, bridged traces |\n|---|---|---|---|---|")
        for c in configs:
            sums = collections.defaultdict(lambda: [0.0, 0.0])
            for r in runs:
                if r["buffer"] != b or r["config"] != c:
                    continue
                w0 = 5.0  # scenarios/5g*.toml: warmup_s
                for row in series(r["dir"] / "timeseries.csv"):
                    t = float(row["t_s"])
                    if t < w0:
                        continue
                    part = part_of(t, spans.get(r["trace"], [])) if r["form"] == "raw" else "bridged"
                    sums[part][0] += float(row["throughput_mbps"])
                    sums[part][1] += float(row["capacity_mbps"])
            cells = [fmt(sums[p][0] / sums[p][1]) if sums[p][1] else "-" for p in ("restart", "after", "rest", "bridged")]
            print(f"| {c} | " + " | ".join(cells) + " |")
        print()


def c2tcp_account(runs, spans):
    print("## C2TCP's account (tcpinfo.csv): Bad events per second and share of time at cwnd <= 4\n")
    print("| buffer, form | variant | Bads/s restarts | after | rest | cwnd<=4 restarts | after | rest | "
          "longest cwnd<=4 at >= 20 Mbit/s (s), median / max over runs |\n|---|---|---|---|---|---|---|---|---|")
    groups = collections.defaultdict(list)
    for r in runs:
        if r["config"].startswith("c2tcp"):
            groups[(r["buffer"], r["form"], r["config"])].append(r)
    for (b, f, c), rs in sorted(groups.items(), key=lambda k: (str(k[0][0]), k[0][1] != "raw", k[0][2])):
        bads, time, low = collections.Counter(), collections.Counter(), collections.Counter()
        longest = []
        for r in rs:
            cap = {round(float(x["t_s"]), 1): float(x["capacity_mbps"]) for x in series(r["dir"] / "timeseries.csv")}
            prev, run_s, best = None, 0.0, 0.0
            for row in series(r["dir"] / "tcpinfo.csv"):
                t = float(row["t_s"])
                if t < 5.0:
                    prev = int(row["c2tcp_bad_events"])
                    continue
                part = part_of(t, spans.get(r["trace"], [])) if f == "raw" else "rest"
                b_now = int(row["c2tcp_bad_events"])
                bads[part] += b_now - (prev if prev is not None else b_now)
                prev = b_now
                time[part] += 0.1
                is_low = int(row["cwnd"]) <= LOW_CWND
                low[part] += 0.1 * is_low
                offered = cap.get(round(t - t % 0.1, 1), 0.0)
                run_s = run_s + 0.1 if is_low and offered >= 20 else 0.0
                best = max(best, run_s)
            longest.append(best)
        cells = [fmt(bads[p] / time[p], 1) if time[p] else "-" for p in ("restart", "after", "rest")]
        cells += [fmt(low[p] / time[p]) if time[p] else "-" for p in ("restart", "after", "rest")]
        print(f"| {b}, {f} | {c} | " + " | ".join(cells) + f" | {statistics.median(longest):.1f} / {max(longest):.1f} |")
    print()


def sched(runs):
    p99 = [r["setup"]["emulator"]["downlink"]["sched_error"]["p99_us"] for r in runs]
    worst = max(runs, key=lambda r: r["setup"]["emulator"]["downlink"]["sched_error"]["p99_us"])
    errs = sum(r["setup"]["emulator"]["downlink"].get("write_errors", 0) for r in runs)
    print(f"## The emulator\n\nDownlink p99 scheduling error over {len(runs)} runs: median {statistics.median(p99):.0f} us, "
          f"{sum(1 for x in p99 if x > 500)} runs above 500 us, worst {max(p99)} us "
          f"({worst['config']}, {worst['trace']}, {worst['form']}, {worst['buffer']} pkts, rep {worst['rep']}); "
          f"write errors: {errs}.\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--zip", required=True, help="the UCC dataset's 5G-production-dataset.zip")
    ap.add_argument("--bin", default="target/release/c2tcp")
    ap.add_argument("dirs", nargs="+")
    a = ap.parse_args()
    runs = load_runs(a.dirs)
    if not runs:
        sys.exit("no finished runs in " + " ".join(a.dirs))
    spans = restart_spans(a.zip, a.bin, {r["trace"] for r in runs})
    print("Restarts in the first 30 s of each raw trace (s): " + "; ".join(
        f"{t.replace('.down.gz', '')}: " + ", ".join(f"{x:g}-{y:g}" for x, y in s if x < 30) for t, s in spans.items()) + "\n")
    ratios(runs)
    per_trace(runs)
    restart_parts(runs, spans)
    c2tcp_account(runs, spans)
    sched(runs)


if __name__ == "__main__":
    main()
