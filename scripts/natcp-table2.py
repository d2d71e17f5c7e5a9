#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""NATCP's Table 2 (HotEdge 2019, section 3) from a bench of scenarios/natcp-table2.toml.

Power = throughput / mean queueing delay, power95 = throughput / p95 queueing
delay (as the paper defines them). For each trace, NATCP's power divided by
the scheme's ("NATCP's improvement"), then averaged over the traces that
have both, as the paper normalises per trace and averages. Retransmissions:
each scheme's total over the traces divided by NACubic's. Every row is
printed beside the paper's figure; a scheme without runs prints "not run".
Reads each run's run.json and metrics.json (only runs whose status is
"done"; a failed or missing run is reported, never skipped silently).

One table per NetAssist feedback mode the bench ran (`make bench` runs
`--set feedback=replay`, the authors' oracle, and `--set feedback=live`):
NATCP, NACubic and TG with that mode, the other schemes as they ran.

Usage: scripts/natcp-table2.py BENCH_DIR
"""
import sys
from pathlib import Path

from bench_runs import config, labels, load, mean, per_trace

# The paper's Table 2: (P, P95) of NATCP over the scheme, and the normalised
# retransmission counts (NACubic = 1).
PAPER_POWER = {
    "natcp": (1.0, 1.0),
    "nacubic": (1.09, 1.1),
    "abc": (2.71, 1.83),
    "c2tcp": (2.79, 4.83),
    "bbr": (3.46, 3.76),
    "tg": (3.86, 5.65),
    "cubic-codel": (1.63, 1.66),
    "sprout": (4.8, 3.98),
    "verus": (7.01, 6.67),
    "cubic": (22.85, 23.85),
    "westwood": (17.68, 19.60),
    "vivace": (28.61, 35.54),
}
# The schemes NetAssist feeds: each mode is its own configuration of them.
NETASSISTED = {"natcp", "nacubic", "tg"}
# Our UDP transports have no retransmissions to count (their metrics say 0).
UDP = {"sprout", "sprout-ewma", "verus"}
PAPER_RETRANS = {"nacubic": 1, "natcp": 4, "cubic": 20, "bbr": 25, "cubic-codel": 54, "tg": 1470}


def fmt(x, digits=2):
    return "–" if x is None else f"{x:.{digits}f}x"


def table(runs, label):
    """Table 2 and the retransmissions with NetAssist's `label` mode."""
    name = {s: config(s, label) if s in NETASSISTED else s for s in PAPER_POWER}
    ref = {k: per_trace(runs, name["natcp"], k) for k in ("power", "power95")}
    print(f"### NetAssist {label or 'as the scenario sets it'} "
          f"({len(ref['power'])} traces with NATCP runs)\n")
    print("| scheme | P (ours) | P (paper) | P95 (ours) | P95 (paper) | traces |")
    print("| --- | --- | --- | --- | --- | --- |")
    for s in PAPER_POWER:
        if name[s] not in runs:
            paper = PAPER_POWER[s]
            print(f"| {s} | not run | {paper[0]}x | not run | {paper[1]}x | 0 |")
            continue
        cols, n = [], 0
        for k in ("power", "power95"):
            mine = per_trace(runs, name[s], k)
            ratios = [ref[k][t] / v for t, v in mine.items() if v and ref[k].get(t)]
            n = max(n, len(ratios))
            cols.append(mean(ratios))
        paper = PAPER_POWER[s]
        print(f"| {name[s]} | {fmt(cols[0])} | {paper[0]}x | {fmt(cols[1])} | {paper[1]}x | {n} |")

    print("\nTCP retransmissions over all traces, normalised to NACubic's total\n")
    print("| scheme | retransmissions | normalised (ours) | normalised (paper) |")
    print("| --- | --- | --- | --- |")
    totals = {}
    for s in PAPER_POWER:
        if s in UDP:
            continue
        per = per_trace(runs, name[s], "retransmits")
        if per and all(v is not None for v in per.values()):
            totals[s] = sum(per.values())
    base = totals.get("nacubic")
    for s in sorted(totals, key=lambda s: (s not in PAPER_RETRANS, PAPER_RETRANS.get(s, 0), s)):
        norm = "–" if not base else f"{totals[s] / base:.1f}x"
        paper = PAPER_RETRANS.get(s)
        print(f"| {name[s]} | {totals[s]:.0f} | {norm} | {'–' if paper is None else f'{paper}x'} |")
    print()


def main(argv):
    if len(argv) != 2 or argv[1] in ("-h", "--help"):
        print(__doc__.strip())
        return 0 if len(argv) == 2 else 2
    bench = Path(argv[1])
    runs, bad = load(bench)
    modes = labels(runs, "natcp")
    if not modes:
        print(f"{bench}: no finished natcp runs to normalise to", file=sys.stderr)
        return 1
    print(f"NATCP's Table 2 from {bench}\n")
    for label in modes:
        table(runs, label)
    if bad:
        print("\nRuns that did not finish (left out above):", file=sys.stderr)
        for b in bad:
            print(f"  {b}", file=sys.stderr)
        return 3
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
