#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""The Sprout paper's summary tables (NSDI 2013, section 1) from a bench of
scenarios/sprout-paper.toml, ours beside the paper's.

For each scheme, over the traces where it and the reference (Sprout, then
Sprout-EWMA) both have finished runs (repetitions averaged per trace):

- "speedup": the mean over the traces of reference throughput / scheme
  throughput (the paper: "average relative throughput improvement ...
  averaged over all four cellular networks in both directions");
- "delay reduction": the scheme's self-inflicted delay averaged over the
  traces, divided by the reference's ("Delay reduction (from avg. delay)");
  the scheme's average self-inflicted delay in seconds in brackets, as the
  paper prints it. Self-inflicted delay is metrics.json's
  `self_inflicted_delay_ms` (docs/metrics.md: Sprout section 5.1).

A row is flagged `<< 2x off` when either of our figures is more than twice
or less than half the paper's. webrtc-gcc stands in for Skype, Hangout and
Facetime (docs/webrtc.md); it is compared with Skype's row. Reads each run's
run.json and metrics.json (only runs whose status is "done"; the others are
listed, never skipped silently).

One pair of tables per Sprout sender the bench ran (scenarios/sprout-paper.toml
sweeps `sender`: ours, the paper's rules, and authors, alfalfa's
sproutconn.cc): Sprout and Sprout-EWMA with that sender, the other schemes
as they ran.

Usage: scripts/sprout-table.py BENCH_DIR
"""
import sys
from pathlib import Path

from bench_runs import config, labels, load, mean, per_trace

# The paper's two summary tables, section 1 (Introduction), the averages of
# Fig. 7 over the eight links: scheme -> (speedup of the reference over it,
# delay reduction, the scheme's average self-inflicted delay in s).
PAPER_VS_SPROUT = {
    "sprout": (1.0, 1.0, 0.32),
    "skype": (2.2, 7.9, 2.52),
    "hangout": (4.4, 7.2, 2.28),
    "facetime": (1.9, 8.7, 2.75),
    "compound": (1.3, 4.8, 1.53),
    "vegas": (1.1, 2.1, 0.67),
    "ledbat": (1.0, 2.8, 0.89),
    "cubic": (0.91, 79.0, 25.0),
    "cubic-codel": (0.70, 1.6, 0.50),
}
PAPER_VS_EWMA = {
    "sprout-ewma": (1.0, 1.0, 0.53),
    "sprout": (2.0, 0.60, 0.32),
    "cubic": (1.8, 48.0, 25.0),
    "cubic-codel": (1.3, 0.95, 0.50),
}
# Our scheme for each of the paper's rows.
OURS = {"skype": "webrtc-gcc", "hangout": None, "facetime": None}
ORDER = ["sprout", "sprout-ewma", "skype", "hangout", "facetime", "compound", "vegas",
         "ledbat", "cubic", "cubic-codel"]


def row(runs, ref, scheme):
    """(speedup, delay reduction, average delay s, traces) or None."""
    rt, st = per_trace(runs, ref, "throughput_mbps"), per_trace(runs, scheme, "throughput_mbps")
    rd, sd = (per_trace(runs, ref, "self_inflicted_delay_ms"),
              per_trace(runs, scheme, "self_inflicted_delay_ms"))
    traces = sorted(t for t in rt if t in st and rt[t] is not None and st[t])
    if not traces:
        return None
    speedup = mean([rt[t] / st[t] for t in traces])
    ref_delay = mean([rd.get(t) for t in traces])
    delay = mean([sd.get(t) for t in traces])
    reduction = delay / ref_delay if delay is not None and ref_delay else None
    return speedup, reduction, None if delay is None else delay / 1000.0, traces


def x(v, digits=2):
    return "–" if v is None else f"{v:.{digits}f}x"


def off(ours, paper):
    return ours is not None and paper and (ours > 2 * paper or ours < paper / 2)


SPROUTS = {"sprout", "sprout-ewma"}


def table(runs, ref, paper, title, label):
    print(f"### {title}\n")
    print("| scheme (ours) | speedup vs. ref: ours | paper | delay reduction: ours (avg. s) | paper (avg. s) | traces | |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    flagged = []
    for name in ORDER:
        if name not in paper:
            continue
        ours = OURS.get(name, name)
        if ours in SPROUTS:
            ours = config(ours, label)
        ps, pr, pd = paper[name]
        # `label` is the Sprout sender's, kept for the rows after this one.
        shown = name if ours == name else f"{name} ({ours or 'no stand-in'})"
        r = row(runs, ref, ours) if ours else None
        if r is None:
            print(f"| {shown} | not run | {ps:.2f}x | not run | {pr:.2f}x ({pd:.2f} s) | 0 | |")
            continue
        s, red, d, traces = r
        flag = "<< 2x off" if off(s, ps) or off(red, pr) else ""
        if flag:
            flagged.append(name)
        ds = "–" if d is None else f"{d:.2f} s"
        print(f"| {shown} | {x(s)} | {ps:.2f}x | {x(red)} ({ds}) | {pr:.2f}x ({pd:.2f} s) | {len(traces)} | {flag} |")
    print()
    return flagged


def main(argv):
    if len(argv) != 2 or argv[1] in ("-h", "--help"):
        print(__doc__.strip())
        return 0 if len(argv) == 2 else 2
    bench = Path(argv[1])
    runs, bad = load(bench)
    if not runs:
        print(f"{bench}: no finished runs", file=sys.stderr)
        return 1
    traces = sorted({t for s in runs.values() for t in s})
    print(f"Sprout's summary tables from {bench} ({len(traces)} traces: {', '.join(traces)})\n")
    print("Paper: Sprout NSDI 2013, section 1, the two summary tables (averages of Fig. 7 over "
          "four networks x both directions).\n")
    flagged = []
    for label in labels(runs, "sprout") or [""]:
        for ref, paper, title in [("sprout", PAPER_VS_SPROUT, "vs. Sprout"),
                                  ("sprout-ewma", PAPER_VS_EWMA, "vs. Sprout-EWMA")]:
            ref = config(ref, label)
            title = f"{title} [{label}]" if label else title
            if ref not in runs:
                print(f"### {title}\n\nno finished {ref} runs to normalise to\n")
                continue
            flagged += [f"{n} ({title})" for n in table(runs, ref, paper, title, label)]
    if flagged:
        print("More than 2x off the paper: " + ", ".join(flagged) + "\n")
    if bad:
        print("Runs left out (not done):")
        for b in bad:
            print(f"- {b}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
