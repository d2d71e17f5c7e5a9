#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""The three experiments of docs/l4s.md from a bench root of part `l4s`
(scripts/bench.sh), as Markdown tables.

(1) Table I's set-up over every trace (bench `l4s`): each scheme's
    throughput, mean and p95 queueing delay and power, as means over the
    traces and each ÷ Cubic's on the same trace averaged over the traces
    (Table I's normalisation), with the spread of the per-trace ratio over
    the repetitions (min-max of rep 1's and rep 2's ratios).
(2) Per trace, C2TCP's Target curve (25-75 ms) beside Prague's points: the
    Target whose mean queueing delay is closest to Prague-over-DualPI2's,
    and C2TCP's throughput interpolated at Prague's delay (or why not).
(3) Coexistence (benches `l4s-coexist-{dualpi2,droptail}[-traces]`): each
    flow's throughput, mean and p95 queueing delay (the L4S flow's from the
    L queue's sojourn in the DualPI2 cell), the throughput ratio and Jain's
    index, on the fixed link and over the traces.

Only runs whose run.json status is "done" count; any other is listed.

Usage: scripts/l4s-table.py BENCH_ROOT
"""
import json
import sys
from collections import defaultdict
from pathlib import Path


def runs_of(bench):
    """[(run.json, metrics.json)] of the finished runs; reasons for the rest."""
    out, bad = [], []
    for info_path in sorted(bench.glob("runs/**/run.json")):
        info = json.load(open(info_path))
        if info.get("status") != "done":
            bad.append(f"{info_path.parent}: status {info.get('status')}")
            continue
        out.append((info, json.load(open(info_path.parent / "metrics.json"))))
    return out, bad


def mean(xs):
    xs = [x for x in xs if x is not None]
    return sum(xs) / len(xs) if xs else None


def fmt(x, d=2):
    return "–" if x is None else f"{x:.{d}f}"


def config(info):
    return info["scheme"] + (f" [{info['label']}]" if info.get("label") else "")


def short(trace):
    return trace.replace(".down", "")


METRICS = ["throughput_mbps", "avg_queue_delay_ms", "p95_queue_delay_ms", "power"]


def experiment1(bench):
    runs, bad = runs_of(bench)
    by = defaultdict(lambda: defaultdict(dict))  # config -> trace -> rep -> agg
    for info, m in runs:
        by[config(info)][info["trace"]][info["rep"]] = m["aggregate"]
    traces = sorted(by.get("cubic", {}))
    order = ["prague-dualpi2", "prague-l4s-ramp", "c2tcp [target_ms=50]", "cubic-codel", "bbr", "cubic"]
    print("### (1) Table I's set-up over the traces\n")
    print(f"{len(traces)} traces, 60 s each, 5 s warm-up, repetitions averaged. "
          "Ratios are each trace's ÷ Cubic's on that trace, averaged over the traces "
          "(in brackets: the lowest and highest of that average computed from one repetition alone).\n")
    print("| scheme | Mbit/s | mean q ms | p95 q ms | throughput ÷ Cubic | mean q ÷ Cubic | p95 q ÷ Cubic | power ÷ Cubic |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    for c in order:
        if c not in by:
            print(f"| {c} | not run | | | | | | |")
            continue
        absolute = [mean(mean(a.get(k) for a in by[c][t].values()) for t in traces if t in by[c])
                    for k in METRICS[:3]]
        cells = []
        for k in METRICS:
            per_trace = []
            per_rep = defaultdict(list)
            for t in traces:
                if t not in by[c]:
                    continue
                ours = mean(a.get(k) for a in by[c][t].values())
                ref = mean(a.get(k) for a in by["cubic"][t].values())
                if ours is not None and ref:
                    per_trace.append(ours / ref)
                for rep, a in by[c][t].items():
                    r = by["cubic"][t].get(rep)
                    if r and a.get(k) is not None and r.get(k):
                        per_rep[rep].append(a[k] / r[k])
            reps = [mean(v) for v in per_rep.values() if v]
            spread = f" ({min(reps):.2f}-{max(reps):.2f})" if len(reps) > 1 else ""
            cells.append(fmt(mean(per_trace)) + spread)
        print(f"| {c} | {fmt(absolute[0])} | {fmt(absolute[1], 1)} | {fmt(absolute[2], 1)} | " + " | ".join(cells) + " |")
    print()
    print("Per trace (repetitions averaged): throughput Mbit/s / mean queueing delay ms\n")
    print("| trace | " + " | ".join(order) + " |")
    print("| --- |" + " --- |" * len(order))
    for t in traces:
        row = []
        for c in order:
            aggs = by.get(c, {}).get(t, {}).values()
            row.append(f"{fmt(mean(a.get('throughput_mbps') for a in aggs))} / "
                       f"{fmt(mean(a.get('avg_queue_delay_ms') for a in aggs), 1)}")
        print(f"| {short(t)} | " + " | ".join(row) + " |")
    print()
    return by, traces, bad


def interp(points, x):
    """y at x along the curve through (x, y) points sorted by x; None outside."""
    pts = sorted(points)
    for (x0, y0), (x1, y1) in zip(pts, pts[1:]):
        if x0 <= x <= x1:
            return y0 if x1 == x0 else y0 + (y1 - y0) * (x - x0) / (x1 - x0)
    return None


def experiment2(by, traces):
    print("### (2) C2TCP's Target curve beside Prague's point, per trace\n")
    print("C2TCP's mean queueing delay (ms) and throughput (Mbit/s) at each Target; Prague's; "
          "C2TCP's throughput read on its curve at Prague's delay, ÷ Prague's.\n")
    targets = sorted({c for c in by if c.startswith("c2tcp [target_ms=")},
                     key=lambda c: float(c.split("=")[1].rstrip("]")))
    head = " | ".join(c.split("[")[1].rstrip("]").replace("target_ms=", "T") for c in targets)
    print(f"| trace | {head} | Prague/DualPI2 | curve at it ÷ Prague | Prague/ramp | curve at it ÷ Prague |")
    print("| --- |" + " --- |" * (len(targets) + 4))
    for t in traces:
        pts, cells = [], []
        for c in targets:
            aggs = list(by[c].get(t, {}).values())
            q = mean(a.get("avg_queue_delay_ms") for a in aggs)
            x = mean(a.get("throughput_mbps") for a in aggs)
            cells.append(f"{fmt(q, 1)} ms, {fmt(x)}")
            if q is not None and x is not None:
                pts.append((q, x))
        tail = []
        for p in ["prague-dualpi2", "prague-l4s-ramp"]:
            aggs = list(by.get(p, {}).get(t, {}).values())
            q = mean(a.get("avg_queue_delay_ms") for a in aggs)
            x = mean(a.get("throughput_mbps") for a in aggs)
            tail.append(f"{fmt(q, 1)} ms, {fmt(x)}")
            if q is None or not x:
                tail.append("–")
                continue
            y = interp(pts, q)
            if y is not None:
                tail.append(f"{y / x:.2f}")
            elif pts and q < min(p[0] for p in pts):
                tail.append("below the curve's reach")
            else:
                tail.append("above the curve")
        print(f"| {short(t)} | " + " | ".join(cells + tail) + " |")
    print()


def flows_of(m):
    return {f.get("label") or f["name"]: f for f in m["flows"]}


def experiment3(root):
    print("### (3) Coexistence: one L4S or C2TCP flow and one Cubic flow in one cell\n")
    print("Per flow: throughput Mbit/s, mean / p95 queueing delay ms (the flow's packets in "
          "the log; in the DualPI2 cell the L4S flow's packets are the L queue's); the "
          "first flow's throughput ÷ Cubic's, Jain's index; means over repetitions, and over "
          "the traces for the `-traces` rows (Jain's index: the mean of the per-run indices).\n")
    print("| cell, link | flow under test | its Mbit/s | its mean / p95 q | Cubic's Mbit/s | Cubic's mean / p95 q | ratio | Jain | runs |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for cell, under in [("dualpi2", "l4s"), ("droptail", "c2tcp")]:
        for suffix, link in [("", "fixed 24 Mbit/s"), ("-traces", "every trace")]:
            bench = root / f"l4s-coexist-{cell}{suffix}"
            runs, bad = runs_of(bench)
            per = defaultdict(list)
            for info, m in runs:
                if info["scheme"] not in ("prague-dualpi2", "c2tcp"):
                    continue
                f = flows_of(m)
                if under not in f or "classic" not in f:
                    continue
                a, b = f[under], f["classic"]
                per["u_x"].append(a["throughput_mbps"])
                per["u_q"].append(a["avg_queue_delay_ms"])
                per["u_p"].append(a["p95_queue_delay_ms"])
                per["c_x"].append(b["throughput_mbps"])
                per["c_q"].append(b["avg_queue_delay_ms"])
                per["c_p"].append(b["p95_queue_delay_ms"])
                per["ratio"].append(a["throughput_mbps"] / b["throughput_mbps"] if b["throughput_mbps"] else None)
                per["jain"].append(m["aggregate"].get("jain_fairness"))
            if not per:
                print(f"| {cell}, {link} | {under} | not run | | | | | | |")
                continue
            def rng(k):
                v = [x for x in per[k] if x is not None]
                return f" ({min(v):.2f}-{max(v):.2f})" if len(v) > 1 else ""

            print(f"| {cell}, {link} | {under} | {fmt(mean(per['u_x']))} | "
                  f"{fmt(mean(per['u_q']), 1)} / {fmt(mean(per['u_p']), 1)} | {fmt(mean(per['c_x']))} | "
                  f"{fmt(mean(per['c_q']), 1)} / {fmt(mean(per['c_p']), 1)} | "
                  f"{fmt(mean(per['ratio']))}{rng('ratio')} | {fmt(mean(per['jain']), 3)}{rng('jain')} | {len(per['jain'])} |")
            for b in bad:
                print(f"<!-- left out: {b} -->")
    print()


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    root = Path(sys.argv[1])
    by, traces, bad = experiment1(root / "l4s")
    experiment2(by, traces)
    experiment3(root)
    for b in bad:
        print(f"left out: {b}")


if __name__ == "__main__":
    main()
