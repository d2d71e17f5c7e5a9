#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""The data behind `c2tcp trace import --bridge-restarts` (crates/emu/src/restarts.rs).

    scripts/ucc-restarts.py 5G-production-dataset.zip

Reads the UCC 5G dataset's 21 download logs (G-NetTrack Pro CSVs) straight from
its zip and prints, in Markdown:

1. the restart markers: rows carrying a ping test's result (PINGAVG ... or
   PINGLOSS alone), how far apart they are, and how often a marker row only
   repeats its neighbour's rate;
2. by offset from the nearest marker (rows), the share of rows below half of
   their download's level, per NetworkMode: the cell's own dips are the share
   far from a marker, the restarts the excess near one;
3. how long the runs of such rows are just before and just after a marker
   (what the rule's caps rest on);
4. the same shares once the rule has bridged its rows: what is left near a
   marker should be no more than elsewhere.

The rule is restarts.rs's, restated here (same parameters, same level); the
per-trace seconds bridged and mean rates come from the importer itself
(`BRIDGE_RESTARTS=1 scripts/import-ucc-5g.sh`), not from this script.
"""
import collections
import csv
import io
import statistics
import sys
import zipfile
from datetime import datetime

PING = ("PINGAVG", "PINGMIN", "PINGMAX", "PINGSTDEV", "PINGLOSS")
BELOW, BEFORE, AFTER, EDGE = 0.5, 2, 6, 3  # restarts.rs, Rule::UCC
OFFSETS = range(-6, 7)


def logs(zip_path):
    """(name, rows) per download log; a row is (seconds, Mbit/s, marker, mode)."""
    with zipfile.ZipFile(zip_path) as z:
        for name in sorted(z.namelist()):
            if "/Download/" not in name or not name.endswith(".csv") or "__MACOSX" in name:
                continue
            rows = []
            for r in csv.DictReader(io.TextIOWrapper(z.open(name), encoding="utf-8")):
                t = datetime.strptime(r["Timestamp"], "%Y.%m.%d_%H.%M.%S").timestamp()
                mark = any(r.get(k, "-") not in ("-", "") for k in PING)
                rows.append((t, float(r["DL_bitrate"]) / 1000, mark, r["NetworkMode"]))
            yield name.split("/")[-1], rows


def level(rates, from_marker, to_marker):
    lo = EDGE - 1 if from_marker else 0
    hi = len(rates) - (EDGE - 1 if to_marker else 0)
    body = rates[lo:hi] if lo < hi else rates
    return statistics.median(body) if body else 0.0


def downloads(rates, marks):
    """For each marker index j: (m, level of the download ending at m, level of the one starting)."""
    out = []
    for j, m in enumerate(marks):
        prev = marks[j - 1] if j > 0 else None
        nxt = marks[j + 1] if j + 1 < len(marks) else None
        first = 0 if prev is None else prev + 1
        end = len(rates) if nxt is None else nxt
        out.append((m, first, end, level(rates[first:m], prev is not None, True),
                    level(rates[m + 1:end], True, nxt is not None)))
    return out


def bridge(rates, marks):
    out = [False] * len(rates)
    for m, first, end, ending, starting in downloads(rates, marks):
        out[m] = True
        for k in range(m - 1, max(first, m - BEFORE) - 1, -1):
            if rates[k] >= BELOW * ending:
                break
            out[k] = True
        for k in range(m + 1, min(end, m + 1 + AFTER)):
            if rates[k] >= BELOW * starting:
                break
            out[k] = True
    return out


def mode_group(mode):
    return {"5G": "5G", "LTE": "LTE"}.get(mode, "HSPA+/UMTS")


def pct(a, b):
    return f"{100 * a / b:.1f} %" if b else "-"


def main(zip_path):
    n_marks, gaps, repeats = 0, [], 0
    low = collections.defaultdict(collections.Counter)       # (group, offset) -> counts
    after_rule = collections.defaultdict(collections.Counter)  # offset -> counts
    runs_before, runs_after = collections.Counter(), collections.Counter()
    for _, rows in logs(zip_path):
        rates = [r[1] for r in rows]
        marks = [i for i, r in enumerate(rows) if r[2]]
        n_marks += len(marks)
        gaps += [rows[b][0] - rows[a][0] for a, b in zip(marks, marks[1:])]
        repeats += sum(1 for m in marks if any(0 <= k < len(rows) and rates[k] == rates[m]
                                                for k in (m - 1, m + 1)))
        bridged = bridge(rates, marks)
        for m, first, end, ending, starting in downloads(rates, marks):
            a = next((k - m - 1 for k in range(m + 1, end) if rates[k] >= BELOW * starting), end - m - 1)
            b = next((m - 1 - k for k in range(m - 1, first - 1, -1) if rates[k] >= BELOW * ending), m - first)
            runs_after[min(a, 7)] += 1
            runs_before[min(b, 7)] += 1
            for i in range(max(first, m - 6), min(end, m + 7)):
                off = i - m
                lvl = ending if off < 0 else starting
                if lvl <= 0:
                    continue
                is_low = rates[i] < BELOW * lvl
                c = low[(mode_group(rows[i][3]), off)]
                c["n"] += 1
                c["low"] += is_low
                c2 = after_rule[off]
                c2["n"] += 1
                c2["bridged"] += bridged[i]
                c2["low_left"] += is_low and not bridged[i]
    in_13_16 = sum(1 for g in gaps if 13 <= g <= 16)
    print(f"## Markers\n\n{n_marks} ping test rows in 21 logs; {pct(in_13_16, len(gaps))} of the "
          f"{len(gaps)} gaps between consecutive markers are 13-16 s (median {statistics.median(gaps):.0f} s); "
          f"{repeats} marker rows ({pct(repeats, n_marks)}) repeat a neighbouring row's rate.\n")
    print("## Rows below half their download's level, by offset from the nearest marker (rows)\n")
    groups = ["5G", "LTE", "HSPA+/UMTS"]
    print("| offset | " + " | ".join(groups) + " |\n| --- |" + " --- |" * len(groups))
    for off in OFFSETS:
        cells = [pct(low[(g, off)]["low"], low[(g, off)]["n"]) + f" of {low[(g, off)]['n']}" for g in groups]
        print(f"| {off:+d} | " + " | ".join(cells) + " |")
    print("\n## Runs of such rows next to a marker (rows; 7 = 7 or more)\n")
    print("| length | " + " | ".join(str(k) for k in range(8)) + " |\n| --- |" + " --- |" * 8)
    print("| before | " + " | ".join(str(runs_before[k]) for k in range(8)) + " |")
    print("| after | " + " | ".join(str(runs_after[k]) for k in range(8)) + " |")
    print(f"\n## After the rule (below {BELOW} of the level, at most {BEFORE} rows before and {AFTER} after)\n")
    print("| offset | bridged | below half, of the rows kept |\n| --- | --- | --- |")
    for off in OFFSETS:
        c = after_rule[off]
        print(f"| {off:+d} | {pct(c['bridged'], c['n'])} | {pct(c['low_left'], c['n'] - c['bridged'])} |")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
