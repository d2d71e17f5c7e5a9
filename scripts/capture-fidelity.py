#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Compares a trace recorded by `c2tcp trace capture` with the trace the
emulator replayed: mean rate over the recorded span, per-100-ms rate
correlation at the best lag (the record starts once the link is saturated,
at an offset into the looping original found here by search), and outage
time (gaps >= 100 ms). Usage: capture-fidelity.py ORIGINAL RECOVERED -> one
JSON line. Standard library only."""
import json
import math
import sys

BIN_MS = 100
OUTAGE_MS = 100


def load(path):
    with open(path) as f:
        return [int(line) for line in f if line.strip()]


def bins(opp, period, lag, n):
    v = [0] * n
    for t in opp:
        rel = (t - lag) % period if period else t
        i = rel // BIN_MS
        if i < n:
            v[i] += 1
    return v


def corr(a, b):
    ma, mb = sum(a) / len(a), sum(b) / len(b)
    sa = math.sqrt(sum((x - ma) ** 2 for x in a))
    sb = math.sqrt(sum((y - mb) ** 2 for y in b))
    if sa == 0 or sb == 0:
        return 0.0
    return sum((x - ma) * (y - mb) for x, y in zip(a, b)) / (sa * sb)


def outage_ms(opp):
    return sum(b - a for a, b in zip(opp, opp[1:]) if b - a >= OUTAGE_MS)


def main():
    orig, rec = load(sys.argv[1]), load(sys.argv[2])
    period = orig[-1]
    span = rec[-1] // BIN_MS * BIN_MS  # whole bins of the record
    n = span // BIN_MS
    got = bins(rec, 0, 0, n)
    # Coarse lag search in whole bins, then 10 ms around the best.
    best = max(range(0, period, BIN_MS), key=lambda lag: corr(got, bins(orig, period, lag, n)))
    best = max(range(max(0, best - BIN_MS), best + BIN_MS, 10),
               key=lambda lag: corr(got, bins(orig, period, lag, n)))
    want = bins(orig, period, best, n)
    window = [((t - best) % period) for t in orig if (t - best) % period < span]
    window.sort()
    print(json.dumps({
        "original": sys.argv[1],
        "recovered": sys.argv[2],
        "span_s": span / 1000,
        "lag_ms": best,
        "original_mean_mbps": sum(want) * 1500 * 8 / (span * 1000),
        "recovered_mean_mbps": sum(got) * 1500 * 8 / (span * 1000),
        "mean_ratio": sum(got) / sum(want),
        "correlation_100ms": corr(got, want),
        "original_outage_s": outage_ms(window) / 1000,
        "recovered_outage_s": outage_ms([t for t in rec if t < span]) / 1000,
    }))


if __name__ == "__main__":
    main()
