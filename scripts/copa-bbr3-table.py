#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Issue 43's benchmark tables (docs/peers.md, "Copa and BBRv3") from merged
reports (`c2tcp report DIR... --out MERGED` writes MERGED/summary.json).

For each merged report given (one part: LTE, 5g, 5g-deep, raw or bridged):

(1) every configuration's throughput, mean and p95 queueing delay and power
    ÷ Cubic's on the same trace, and ÷ C2TCP's (jsac, Target 50), each
    averaged over the traces (Table I's normalisation), with the number of
    traces;
(2) the question of the issue: on how many traces does each end-to-end
    scheme's power (throughput ÷ mean queueing delay) reach Cubic over
    CoDel's (in-network), from the repetitions' means, and on how many it
    does in every repetition (rep k against CoDel's rep k), so a verdict that
    holds only on the means shows; each cell also gives the spread, the
    smallest and largest of the per-repetition ratios (rep k ÷ CoDel's rep
    k), and the table the number of repetitions each scheme has;
(3) with --per-trace, the listed configurations' own figures per trace
    (throughput, mean and p95 queueing delay, power: the mean over the
    repetitions, the mean queueing delay with its min–max), to read one
    scheme's behaviour trace by trace (e.g. Copa beside `copafixed`).

Usage: scripts/copa-bbr3-table.py [--only "NAME;..."] [--per-trace "NAME;..."]
                                  NAME=MERGED_DIR [NAME=MERGED_DIR ...]

--only keeps the configurations whose scheme or full name (`c2tcp
[variant=jsac]`) is listed; the references are always kept. Configurations
are matched the same way by --per-trace.
"""
import json
import sys
from collections import defaultdict
from pathlib import Path

METRICS = [
    ("throughput_mbps", "throughput"),
    ("avg_queue_delay_ms", "mean q"),
    ("p95_queue_delay_ms", "p95 q"),
    ("power", "power"),
]
# In-network: Cubic over CoDel changes the queue, not the sender.
IN_NETWORK = {"cubic-codel"}
CUBIC = ("cubic", "")


def config(c):
    return (c["scheme"], c.get("label") or "")


def name(cfg):
    scheme, label = cfg
    return scheme + (f" [{label}]" if label else "")


def c2tcp_ref(configs):
    """C2TCP as released at Target 50: the label naming jsac (and Target 50
    where the Target is swept), else the plain c2tcp runs."""
    labels = {c[1] for c in configs if c[0] == "c2tcp"}
    for want in ("target_ms=50,variant=jsac", "variant=jsac", "target_ms=50", ""):
        if want in labels:
            return ("c2tcp", want)
    return None


def ratio(a, b):
    return a / b if a is not None and b else None


def mean(xs):
    xs = [x for x in xs if x is not None]
    return sum(xs) / len(xs) if xs else None


def fmt(x, d=2):
    return "–" if x is None else f"{x:.{d}f}"


ONLY = None
PER_TRACE = None


def listed(cfg, names):
    return cfg[0] in names or name(cfg) in names


def sig(x):
    """Three significant digits: power spans 0.001 (a slow trace) to 50."""
    return "–" if x is None else f"{x:.3g}"


def spread(xs, d=2):
    """"min–max" of the values present, or "" when fewer than two."""
    xs = [x for x in xs if x is not None]
    return f"{min(xs):.{d}f}–{max(xs):.{d}f}" if len(xs) > 1 else ""


def part(title, merged):
    summary = json.load(open(Path(merged) / "summary.json"))
    by = defaultdict(dict)  # trace -> config -> record
    for c in summary["configs"]:
        by[c["trace"]][config(c)] = c
    configs = sorted({cfg for t in by.values() for cfg in t})
    ref = c2tcp_ref(configs)
    if ONLY:
        configs = [c for c in configs
                   if listed(c, ONLY) or c in (CUBIC, ref, ("cubic-codel", ""))]
    traces = sorted(by)
    print(f"### {title}\n")
    print(f"`{merged}`: {len(traces)} traces; C2TCP reference: {name(ref) if ref else 'none'}.\n")
    for refname, refcfg in (("Cubic", CUBIC), ("C2TCP", ref)):
        if refcfg is None:
            continue
        print(f"Each ÷ {refname}'s on the same trace, averaged over the traces:\n")
        print("| scheme | " + " | ".join(m[1] for m in METRICS) + " | traces |")
        print("| --- " * (len(METRICS) + 2) + "|")
        for cfg in configs:
            rows = [
                [ratio(by[t][cfg]["means"][k], by[t][refcfg]["means"][k]) for k, _ in METRICS]
                for t in traces
                if cfg in by[t] and refcfg in by[t]
            ]
            if not rows:
                continue
            cols = [mean([r[i] for r in rows]) for i in range(len(METRICS))]
            print(f"| {name(cfg)} | " + " | ".join(fmt(x) for x in cols) + f" | {len(rows)} |")
        print()
    if PER_TRACE:
        per_trace(by, traces, [c for c in configs if listed(c, PER_TRACE)])
    codel = ("cubic-codel", "")
    if not any(codel in by[t] for t in traces):
        return
    print("Power ÷ Cubic over CoDel's, per trace: the ratio of the repetitions' means, "
          "then in brackets the smallest and largest per-repetition ratio (rep k ÷ "
          "CoDel's rep k); `reached` counts the traces where the first is at least 1, "
          "`every rep` those where each repetition's power reaches CoDel's same "
          "repetition, `reps` the repetitions of the scheme (fewest on a trace):\n")
    schemes = [c for c in configs if c[0] not in IN_NETWORK]
    print("| scheme | " + " | ".join(short(t) for t in traces)
          + " | reached | every rep | reps |")
    print("| --- " * (len(traces) + 4) + "|")
    for cfg in schemes:
        cells, reached, every, nreps = [], 0, 0, []
        for t in traces:
            if cfg not in by[t] or codel not in by[t]:
                cells.append("–")
                continue
            r = ratio(by[t][cfg]["means"]["power"], by[t][codel]["means"]["power"])
            reached += r is not None and r >= 1
            mine = {p["rep"]: p["values"]["power"] for p in by[t][cfg]["per_rep"]}
            theirs = {p["rep"]: p["values"]["power"] for p in by[t][codel]["per_rep"]}
            reps = sorted(set(mine) & set(theirs))
            every += bool(reps) and all(mine[k] >= theirs[k] for k in reps)
            nreps.append(len(mine))
            sp = spread([ratio(mine[k], theirs[k]) for k in reps])
            cells.append(fmt(r) + (f" ({sp})" if sp else ""))
        print(f"| {name(cfg)} | " + " | ".join(cells)
              + f" | {reached}/{len(traces)} | {every}/{len(traces)} | {min(nreps) if nreps else 0} |")
    print()


def short(trace):
    return trace.replace(".down", "").replace(".gz", "")


def per_trace(by, traces, configs):
    """Each listed configuration's own figures, trace by trace."""
    print("Per trace, the mean over the repetitions (mean queueing delay with its "
          "min–max over the repetitions); throughput in Mbit/s, delays in ms, "
          "power = throughput ÷ mean queueing delay:\n")
    print("| trace | scheme | throughput | mean q | p95 q | power | reps |")
    print("| --- " * 7 + "|")
    for t in traces:
        for cfg in configs:
            if cfg not in by[t]:
                continue
            c = by[t][cfg]
            m = c["means"]
            q = spread([p["values"]["avg_queue_delay_ms"] for p in c["per_rep"]], 1)
            print(f"| {short(t)} | {name(cfg)} | {fmt(m['throughput_mbps'])} | "
                  f"{fmt(m['avg_queue_delay_ms'], 1)}" + (f" ({q})" if q else "")
                  + f" | {fmt(m['p95_queue_delay_ms'], 1)} | {sig(m['power'])} | {len(c['per_rep'])} |")
    print()


def main():
    global ONLY
    args = sys.argv[1:]
    global PER_TRACE
    while len(args) >= 2 and args[0] in ("--only", "--per-trace"):
        names = set(args[1].split(";"))
        if args[0] == "--only":
            ONLY = names
        else:
            PER_TRACE = names
        args = args[2:]
    if not args or any("=" not in a for a in args):
        sys.exit(__doc__)
    for arg in args:
        title, merged = arg.split("=", 1)
        part(title, merged)


if __name__ == "__main__":
    main()
