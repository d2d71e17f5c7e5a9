#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""The Sprout paper's section 5.7 table (SproutTunnel carrying competing
traffic) from two benches: DIRECT_DIR of scenarios/sprout-competing.toml and
TUNNEL_DIR of scenarios/sprout-competing-tunnel.toml, ours beside the paper's.

Rows, each the mean over a bench's finished runs (its repetitions):
- Cubic throughput: the `cubic-bulk` flow's throughput;
- call throughput: the downlink half of the webrtc-gcc call (`call-down`),
  the direction that competes with the download (the paper's Skype);
- call 95% delay: its Sprout "95% end-to-end delay" (e2e_delay_p95_ms, the
  paper's delay metric, section 5.1), and its packets' 95th-percentile
  one-way delay (p95_delay_ms) beside it;
- the uplink half (`call-up`, uplink/metrics.json), which the paper does not
  report, for completeness.
Through the tunnel the flows are measured from the tunnel ends' records
(docs/sprout.md, "SproutTunnel in a scenario"), directly from the link's log.

Usage: scripts/sprout-competing.py DIRECT_DIR TUNNEL_DIR   (benches, or single `c2tcp run` directories)
"""
import json
import sys
from pathlib import Path

# Sprout NSDI 2013, section 5.7, its table: (direct, via Sprout).
PAPER = {
    "cubic_kbps": (8336, 3776),
    "call_kbps": (78, 490),
    "call_delay_s": (6.0, 0.17),
}


def flows_of(path):
    return {f["name"]: f for f in json.load(open(path))["flows"]} if path.exists() else {}


def load(bench):
    """[(run dir, {flow name: metrics})] of the done runs; and the others."""
    runs, bad = [], []
    for info_path in sorted(Path(bench).glob("**/run.json")):  # a bench, or one run
        info = json.load(open(info_path))
        where = info_path.parent
        if info.get("status") != "done":
            bad.append(f"{where}: status {info.get('status')}")
            continue
        flows = flows_of(where / "metrics.json")
        flows.update(flows_of(where / "uplink" / "metrics.json"))
        runs.append((where, flows))
    return runs, bad


def mean_of(runs, flow, key, scale=1.0):
    xs = [f[flow][key] * scale for _, f in runs if flow in f and f[flow].get(key) is not None]
    return sum(xs) / len(xs) if xs else None


def change(a, b):
    return "–" if a is None or b is None or a == 0 else f"{(b - a) / a * 100:+.0f} %"


def num(v, digits=0):
    return "–" if v is None else f"{v:.{digits}f}"


def main(argv):
    if len(argv) != 3 or argv[1] in ("-h", "--help"):
        print(__doc__.strip())
        return 0 if len(argv) == 2 else 2
    (direct, bad_d), (tunnel, bad_t) = load(argv[1]), load(argv[2])
    if not direct or not tunnel:
        print("no finished runs in " + (argv[1] if not direct else argv[2]), file=sys.stderr)
        return 1
    print(f"Sprout section 5.7 from {argv[1]} ({len(direct)} runs, direct) and "
          f"{argv[2]} ({len(tunnel)} runs, via SproutTunnel); webrtc-gcc stands in for Skype\n")
    print("| | direct: ours | via Sprout: ours | change: ours | paper: direct | via Sprout | change |")
    print("| --- | --- | --- | --- | --- | --- | --- |")

    def line(label, flow, key, scale, paper, digits=0):
        d, t = mean_of(direct, flow, key, scale), mean_of(tunnel, flow, key, scale)
        p = "| – | – | – |" if paper is None else \
            f"| {paper[0]} | {paper[1]} | {change(*paper)} |"
        print(f"| {label} | {num(d, digits)} | {num(t, digits)} | {change(d, t)} {p}")

    line("Cubic throughput, kbit/s", "cubic-bulk", "throughput_mbps", 1000, PAPER["cubic_kbps"])
    line("call throughput (down), kbit/s", "call-down", "throughput_mbps", 1000, PAPER["call_kbps"])
    line("call 95% end-to-end delay (down), s", "call-down", "e2e_delay_p95_ms", 1e-3,
         PAPER["call_delay_s"], 2)
    line("call p95 one-way delay (down), s", "call-down", "p95_delay_ms", 1e-3, None, 2)
    line("call throughput (up), kbit/s", "call-up", "throughput_mbps", 1000, None)
    line("call 95% end-to-end delay (up), s", "call-up", "e2e_delay_p95_ms", 1e-3, None, 2)
    for b in bad_d + bad_t:
        print(f"\nleft out (not done): {b}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
