#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Where a C2TCP run's throughput went (docs/c2tcp.md, "C2TCP on today's cells").

For every finished run under the bench directories given (their runs/ trees),
reads timeseries.csv (the bottleneck's capacity and the flow's throughput per
100-ms bin), tcpinfo.csv (cwnd, ssthresh, retransmissions, C2TCP's Bad events
and blind-window skips every 100 ms) and setup.json (tail drops, the
emulator's scheduling error), within the run's measured window (metrics.json),
and says which state each bin's unused capacity (capacity - throughput) fell in,
first match wins:

  dip       the link's capacity in the bin is under 10 % of the run's median
            bin: the recording's restarts and outages, which no sender can use
  bad       a Bad (imaginary drop) within the last 0.5 s
  loss      a retransmission (a real loss, or a timeout) within the last 0.5 s
  small     cwnd below half of the bin's BDP (capacity x min RTT): a window
            still regrowing, e.g. Cubic's slow climb from a low ssthresh
  other     the rest (a full window that still leaves capacity unused)

Prints one Markdown row per scheme/label and trace (mean over repetitions):
throughput and its share of capacity, mean queueing delay, Bad events and
retransmissions per minute, tail drops, the share of time with cwnd <= 4
while the link offered over 20 Mbit/s (the blind-window stall), the share of
RTT samples the blind window skipped, the median ssthresh over the median
BDP, the share of samples in slow start (cwnd below a set ssthresh: after a
Bad that kept ssthresh, the window doubles per round trip back to it) and
the median cwnd over the bin's BDP, then each state's share of the unused
capacity. --runs prints every run.

Usage: scripts/c2tcp-mechanism.py BENCH_DIR... [--runs] [--scheme S] [--label L]
"""
import csv
import json
import statistics
import sys
from collections import defaultdict
from pathlib import Path

STATES = ["dip", "bad", "loss", "small", "other"]
MSS_BITS = 1448 * 8


def rows(path):
    with open(path) as f:
        return list(csv.DictReader(f))


def analyse(run):
    """Figures of one finished run directory, or None."""
    try:
        info = json.loads((run / "run.json").read_text())
        if info.get("status") != "done":
            return None
        metrics = json.loads((run / "metrics.json").read_text())
        setup = json.loads((run / "setup.json").read_text())
        ts = rows(run / "timeseries.csv")
        tcp = [r for r in rows(run / "tcpinfo.csv") if r["flow"] == "0"]
    except (OSError, ValueError, KeyError):
        return None
    w0, w1 = metrics["window"]["start_s"], metrics["window"]["end_s"]
    agg = metrics["aggregate"]
    caps = [float(r["capacity_mbps"]) for r in ts if w0 <= float(r["t_s"]) < w1]
    median_cap = statistics.median(caps) if caps else 0.0
    # tcpinfo as events in time
    t = [float(r["t_s"]) for r in tcp]
    bads = [int(r["c2tcp_bad_events"] or 0) for r in tcp]
    retrans = [int(r["retrans"] or 0) for r in tcp]
    skipped = [int(r["c2tcp_skipped_samples"] or 0) for r in tcp]
    bad_times = [t[i] for i in range(1, len(t)) if bads[i] > bads[i - 1]]
    loss_times = [t[i] for i in range(1, len(t)) if retrans[i] > retrans[i - 1]]

    def recent(times, at, span=0.5):
        return any(at - span < x <= at + 0.1 for x in times)

    def sample_at(at):
        # the last tcpinfo sample at or before the bin's end
        best = None
        for i, x in enumerate(t):
            if x <= at + 0.1:
                best = i
            else:
                break
        return tcp[best] if best is not None else None

    unused = dict.fromkeys(STATES, 0.0)
    stall_bins = bins = slow_bins = 0
    bdps, ssths, cwnd_bdp = [], [], []
    for r in ts:
        at = float(r["t_s"])
        if not w0 <= at < w1:
            continue
        bins += 1
        cap, thr = float(r["capacity_mbps"]), float(r["throughput_mbps"])
        s = sample_at(at)
        if s is None:
            continue
        cwnd, ssth = int(s["cwnd"]), int(s["ssthresh"])
        min_rtt = float(s["min_rtt_ms"]) / 1000.0
        bdp = cap * 1e6 * min_rtt / MSS_BITS
        bdps.append(bdp)
        if ssth < 1 << 30:
            ssths.append(ssth)
            if cwnd < ssth:
                slow_bins += 1
        if bdp > 0:
            cwnd_bdp.append(cwnd / bdp)
        if cwnd <= 4 and cap > 20:
            stall_bins += 1
        lost = max(cap - thr, 0.0)
        if cap < 0.1 * median_cap:
            state = "dip"
        elif recent(bad_times, at):
            state = "bad"
        elif recent(loss_times, at):
            state = "loss"
        elif cwnd < 0.5 * bdp:
            state = "small"
        else:
            state = "other"
        unused[state] += lost
    total_unused = sum(unused.values())
    minutes = (w1 - w0) / 60.0
    in_window = [i for i, x in enumerate(t) if w0 <= x < w1]
    n_bad = bads[in_window[-1]] - bads[in_window[0]] if in_window else 0
    n_rtx = retrans[in_window[-1]] - retrans[in_window[0]] if in_window else 0
    n_skip = skipped[in_window[-1]] - skipped[in_window[0]] if in_window else 0
    delivered = [int(r["delivered"] or 0) for r in tcp]
    n_del = delivered[in_window[-1]] - delivered[in_window[0]] if in_window else 0
    emu = setup.get("emulator", {}).get("downlink", {})
    return {
        "trace": info["trace"],
        "scheme": info["scheme"],
        "label": info.get("label") or "",
        "rep": info["rep"],
        "tput": agg["throughput_mbps"],
        "util": agg["throughput_mbps"] / agg["capacity_mbps"] if agg["capacity_mbps"] else 0.0,
        "qdelay": agg["avg_queue_delay_ms"],
        "bad_per_min": n_bad / minutes,
        "rtx_per_min": n_rtx / minutes,
        "tail_drops": emu.get("drops", {}).get("tail", 0),
        "stall": stall_bins / bins if bins else 0.0,
        "blind": n_skip / (n_skip + n_del) if n_skip + n_del else 0.0,
        "ssth_bdp": statistics.median(ssths) / statistics.median(bdps)
        if ssths and bdps and statistics.median(bdps) > 0
        else float("nan"),
        "slow": slow_bins / bins if bins else 0.0,
        "cwnd_bdp": statistics.median(cwnd_bdp) if cwnd_bdp else float("nan"),
        "p99_sched_us": emu.get("sched_error", {}).get("p99_us"),
        "unused": {k: v / total_unused if total_unused else 0.0 for k, v in unused.items()},
    }


def fmt(x, nd=2):
    return "–" if x != x else f"{x:.{nd}f}"


HEAD = (
    "| trace | scheme | label | reps | Mbit/s | ÷ capacity | queueing ms | Bads/min | rtx/min "
    "| tail drops | cwnd ≤ 4 at > 20 Mbit/s | blind | ssthresh ÷ BDP | slow start | cwnd ÷ BDP | unused: "
    + " / ".join(STATES)
    + " |"
)


def row(trace, scheme, label, runs):
    def mean(k):
        return statistics.mean(r[k] for r in runs)

    unused = " / ".join(f"{statistics.mean(r['unused'][s] for r in runs):.2f}" for s in STATES)
    ssth = [r["ssth_bdp"] for r in runs if r["ssth_bdp"] == r["ssth_bdp"]]
    cb = [r["cwnd_bdp"] for r in runs if r["cwnd_bdp"] == r["cwnd_bdp"]]
    return (
        f"| {trace} | {scheme} | {label} | {len(runs)} | {fmt(mean('tput'), 1)} | {fmt(mean('util'))} "
        f"| {fmt(mean('qdelay'), 1)} | {fmt(mean('bad_per_min'), 0)} | {fmt(mean('rtx_per_min'), 0)} "
        f"| {fmt(mean('tail_drops'), 0)} | {fmt(mean('stall'))} | {fmt(mean('blind'))} "
        f"| {fmt(statistics.mean(ssth)) if ssth else '–'} | {fmt(mean('slow'))} "
        f"| {fmt(statistics.mean(cb)) if cb else '–'} | {unused} |"
    )


def main(argv):
    if len(argv) < 2 or argv[1] in ("-h", "--help"):
        print(__doc__.strip())
        return 0 if len(argv) >= 2 else 2
    args = argv[1:]
    per_run = "--runs" in args
    want_scheme = args[args.index("--scheme") + 1] if "--scheme" in args else None
    want_label = args[args.index("--label") + 1] if "--label" in args else None
    dirs = [
        Path(a)
        for i, a in enumerate(args)
        if not a.startswith("--") and (i == 0 or args[i - 1] not in ("--scheme", "--label"))
    ]
    groups = defaultdict(list)
    for d in dirs:
        for run_json in sorted(d.glob("runs/*/*/*/rep*/run.json")):
            r = analyse(run_json.parent)
            if r is None:
                continue
            if want_scheme and r["scheme"] != want_scheme:
                continue
            if want_label is not None and r["label"] != want_label:
                continue
            groups[(r["trace"], r["scheme"], r["label"])].append(r)
    if not groups:
        print("no finished runs found", file=sys.stderr)
        return 1
    print(HEAD)
    print("|" + " --- |" * (HEAD.count("|") - 1))
    for (trace, scheme, label), runs in sorted(groups.items()):
        if per_run:
            for r in sorted(runs, key=lambda r: r["rep"]):
                print(row(trace, scheme, f"{label} rep{r['rep']}", [r]))
        else:
            print(row(trace, scheme, label, runs))
    worst = max((r["p99_sched_us"] or 0) for runs in groups.values() for r in runs)
    print(f"\n(emulator downlink p99 scheduling error, worst run: {worst} µs)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
