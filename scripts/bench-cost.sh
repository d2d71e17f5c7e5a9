#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# C2TCP's cost beside the kernel's Cubic (issue 27): `c2tcp cost` at 1 and at
# 1 000 connections per congestion control, REPEATS times each, then one
# Markdown table of every repetition (the spread is the point on a shared
# machine). Each run: ns per ACK of C2TCP's programs and of the kernel's
# Cubic functions (both timed by bpf_stats, the same empty per-ACK hook
# measuring the timer), and CPU per GB of cubic, cost_cubic (Cubic behind
# BPF hooks) and cost_c2tcp at one capped rate over veth.
#
#   sudo scripts/bench-cost.sh            (COST_OUT, default bench-out/cost)
#
# Env: COST_POINTS (connections, default "1 1000"), REPEATS (default 3),
# COST_SECONDS (per phase and CPU segment, default 10), COST_RATE_MBIT
# (default 1000), COST_ROUNDS (CPU segments per congestion control, default 2).
# Leaves nothing registered: the two congestion controls it registers are
# links held by the command; the shared c2tcp is not touched.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${BIN:-target/release/c2tcp}
OUT=${COST_OUT:-bench-out/cost}
POINTS=${COST_POINTS:-"1 1000"}
REPEATS=${REPEATS:-3}
SECONDS_PER=${COST_SECONDS:-10}
RATE=${COST_RATE_MBIT:-1000}
ROUNDS=${COST_ROUNDS:-2}
[ "$(id -u)" = 0 ] || { echo "bench-cost.sh needs root (BPF, network namespaces)" >&2; exit 1; }
mkdir -p "$OUT"
for n in $POINTS; do
  for rep in $(seq 1 "$REPEATS"); do
    f="$OUT/cost-n$n-rep$rep.json"
    if [ -s "$f" ]; then echo "== $f exists, kept"; continue; fi
    echo "== $BIN cost --connections $n --seconds $SECONDS_PER --rate-mbit $RATE --rounds $ROUNDS --json $f"
    nice -n 10 "$BIN" cost --connections "$n" --seconds "$SECONDS_PER" --rate-mbit "$RATE" \
      --rounds "$ROUNDS" --json "$f.tmp" > "$OUT/cost-n$n-rep$rep.txt"
    mv "$f.tmp" "$f"
  done
done
python3 - "$OUT" > "$OUT/cost.md" <<'PY'
import glob, json, os, re, sys
out = sys.argv[1]
rows = []
for f in glob.glob(os.path.join(out, "cost-n*-rep*.json")):
    n, rep = map(int, re.search(r"cost-n(\d+)-rep(\d+)\.json$", f).groups())
    rows.append((n, rep, json.load(open(f))))
rows.sort(key=lambda r: (r[0], r[1]))
def hook(side, h):
    for x in side["hooks"]:
        if x["hook"] == h:
            return x["ns_per_call"]
def cpu(r, cc):
    return next(c for c in r["cpu"] if c["cc"] == cc)
f1 = lambda v: "-" if v is None else f"{v:.0f}"
print("| connections | rep | load avg | ns per ACK: Cubic / C2TCP (ratio) | less the empty hook (empty ns) | pkts_acked ns: Cubic / C2TCP | cong_avoid ns: Cubic / C2TCP | CPU s per GB: cubic / cost_cubic / cost_c2tcp | C2TCP ÷ cubic CPU | Mbit/s cubic / c2tcp |")
print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
for n, rep, r in rows:
    cu, c2 = r["cubic"], r["c2tcp"]
    k, b, c = cpu(r, "cubic"), cpu(r, "cost_cubic"), cpu(r, "cost_c2tcp")
    print(f"| {n} | {rep} | {r['loadavg_before'].split()[0]} | {f1(cu['ns_per_ack'])} / {f1(c2['ns_per_ack'])} ({r['ratio']:.2f}) "
          f"| {f1(cu['net_ns_per_ack'])} / {f1(c2['net_ns_per_ack'])} ({r['net_ratio']:.2f}; {f1(cu['empty_ns'])} / {f1(c2['empty_ns'])}) "
          f"| {f1(hook(cu, 'pkts_acked'))} / {f1(hook(c2, 'pkts_acked'))} | {f1(hook(cu, 'cong_avoid'))} / {f1(hook(c2, 'cong_avoid'))} "
          f"| {k['cpu_s_per_gb']:.3f} / {b['cpu_s_per_gb']:.3f} / {c['cpu_s_per_gb']:.3f} | {r['cpu_ratio_c2tcp_to_cubic']:.2f} "
          f"| {k['mbit_s']:.0f} / {c['mbit_s']:.0f} |")
PY
cat "$OUT/cost.md"
