#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""The ablation table of docs/c2tcp.md from a bench of scenarios/c2tcp-ablation.toml.

For every C2TCP configuration (the `variant` label of its runs): throughput and
mean / p95 queueing delay divided by Cubic's on the same trace, averaged over
the traces (as Table I averages its ratios), and Bad events (imaginary drops)
per minute from the runs' tcpinfo.csv. Reads the bench's summary.csv (written
by `c2tcp report`) and its run directories; prints Markdown.

Usage: scripts/c2tcp-ablation.py BENCH_DIR [--reference cubic]
"""
import csv
import json
import sys
from collections import defaultdict
from pathlib import Path

ORDER = ["paper", "blind_window", "anchored_tuner", "ms_good_test", "shared_growth", "ack_interval"]


def sort_key(label):
    """paper, paper+each (in C2TCP_B_* order), jsac, jsac-each."""
    v = label.removeprefix("variant=")
    base, _, rest = v.partition("+") if v.startswith("paper") else v.partition("-")
    return (0 if base == "paper" else 1, ORDER.index(rest) if rest in ORDER else 0)


def bad_events_per_minute(run_dir):
    """The last Bad-event count of flow 0 over the run's length, per minute."""
    rows = list(csv.DictReader(open(run_dir / "tcpinfo.csv")))
    rows = [r for r in rows if r["flow"] == "0" and r["c2tcp_bad_events"]]
    if not rows:
        return None
    minutes = float(rows[-1]["t_s"]) / 60.0
    return int(rows[-1]["c2tcp_bad_events"]) / minutes if minutes > 0 else None


def main(argv):
    if len(argv) < 2 or argv[1] in ("-h", "--help"):
        print(__doc__.strip())
        return 0 if len(argv) >= 2 else 2
    bench = Path(argv[1])
    reference = argv[argv.index("--reference") + 1] if "--reference" in argv else "cubic"
    summary = bench / "summary.csv"
    if not summary.is_file():
        print(f"{summary}: no summary.csv (run `c2tcp report {bench}` first)", file=sys.stderr)
        return 1
    rows = list(csv.DictReader(open(summary)))
    ref = {r["trace"]: r for r in rows if r["scheme"] == reference}
    if not ref:
        print(f"{summary}: no `{reference}` runs to normalise to", file=sys.stderr)
        return 1
    ratios = defaultdict(lambda: defaultdict(list))
    for r in rows:
        if r["scheme"] != "c2tcp" or r["trace"] not in ref:
            continue
        c = ref[r["trace"]]
        for key, col in [("tput", "throughput_mbps"), ("avg", "avg_queue_delay_ms"), ("p95", "p95_queue_delay_ms")]:
            if float(c[col]) > 0:
                ratios[r["label"]][key].append(float(r[col]) / float(c[col]))
    bad = defaultdict(list)
    for run_json in bench.glob("runs/**/run.json"):
        info = json.load(open(run_json))
        if info.get("scheme") == "c2tcp" and info.get("status") == "done":
            b = bad_events_per_minute(run_json.parent)
            if b is not None:
                bad[info.get("label", "")].append(b)
    mean = lambda xs: sum(xs) / len(xs) if xs else float("nan")
    print(f"| C2TCP configuration | throughput ÷ {reference} | mean queueing ÷ {reference} | "
          f"p95 queueing ÷ {reference} | Bad events / min | traces |")
    print("| --- | --- | --- | --- | --- | --- |")
    for label in sorted(ratios, key=sort_key):
        r = ratios[label]
        print(f"| {label.removeprefix('variant=')} | {mean(r['tput']):.2f} | {mean(r['avg']):.2f} | "
              f"{mean(r['p95']):.2f} | {mean(bad[label]):.0f} | {len(r['tput'])} |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
