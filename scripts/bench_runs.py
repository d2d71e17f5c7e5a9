# SPDX-License-Identifier: GPL-2.0-only
"""A bench directory's finished runs, for the table scripts beside it
(sprout-table.py, natcp-table2.py): each run's metrics.json aggregate by
scheme and trace, and per-trace means over repetitions. Runs whose
run.json status is not "done" are returned as reasons, never dropped
silently."""
import json
from collections import defaultdict


def load(bench):
    """(scheme -> trace -> [aggregate, ...], [why a run was left out, ...])."""
    runs = defaultdict(lambda: defaultdict(list))
    bad = []
    for info_path in sorted(bench.glob("runs/**/run.json")):
        info = json.load(open(info_path))
        where = info_path.parent
        if info.get("status") != "done":
            bad.append(f"{where}: status {info.get('status')}")
            continue
        agg = json.load(open(where / "metrics.json"))["aggregate"]
        runs[info["scheme"]][info["trace"]].append(agg)
    return runs, bad


def mean(xs):
    xs = [x for x in xs if x is not None]
    return sum(xs) / len(xs) if xs else None


def per_trace(runs, scheme, key):
    """trace -> the mean of `key` over the scheme's repetitions there."""
    return {t: mean([a.get(key) for a in aggs]) for t, aggs in runs.get(scheme, {}).items()}
