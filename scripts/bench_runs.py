# SPDX-License-Identifier: GPL-2.0-only
"""A bench directory's finished runs, for the table scripts beside it
(sprout-table.py, natcp-table2.py): each run's metrics.json aggregate by
configuration and trace, and per-trace means over repetitions. A
configuration is named as the report names it: the scheme, with its label
in brackets when the bench set or swept a knob (`sprout [sender=authors]`,
`natcp [feedback=replay]`). Runs whose run.json status is not "done" are
returned as reasons, never dropped silently."""
import json
from collections import defaultdict


def config(scheme, label=""):
    """A configuration's name: `scheme` or `scheme [label]`."""
    return f"{scheme} [{label}]" if label else scheme


def load(bench):
    """(configuration -> trace -> [aggregate, ...], [why a run was left out, ...])."""
    runs = defaultdict(lambda: defaultdict(list))
    bad = []
    for info_path in sorted(bench.glob("runs/**/run.json")):
        info = json.load(open(info_path))
        where = info_path.parent
        if info.get("status") != "done":
            bad.append(f"{where}: status {info.get('status')}")
            continue
        agg = json.load(open(where / "metrics.json"))["aggregate"]
        runs[config(info["scheme"], info.get("label", ""))][info["trace"]].append(agg)
    return runs, bad


def mean(xs):
    xs = [x for x in xs if x is not None]
    return sum(xs) / len(xs) if xs else None


def per_trace(runs, name, key):
    """trace -> the mean of `key` over the configuration's repetitions there."""
    return {t: mean([a.get(key) for a in aggs]) for t, aggs in runs.get(name, {}).items()}


def labels(runs, scheme):
    """The labels `scheme` ran with ("" for unlabelled runs)."""
    out = []
    for name in runs:
        if name == scheme:
            out.append("")
        elif name.startswith(scheme + " [") and name.endswith("]"):
            out.append(name[len(scheme) + 2:-1])
    return sorted(out)
