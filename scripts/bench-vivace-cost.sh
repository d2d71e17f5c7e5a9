#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Per-call cost of PCC Vivace's BPF programs: vivace loaded,
# kernel.bpf_stats_enabled=1, one bulk Vivace flow through the emulator
# (constant RATE Mbit/s, 10 ms each way, 100-packet droptail) for DURATION s,
# then `c2tcp status`'s ns per call, for each rate in RATES. Needs root and no
# other user of vivace (it loads and unloads it).
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${BIN:-target/release/c2tcp}
DURATION=${DURATION:-20}
RATES=${RATES:-"12 96"}
OUT=${OUT:-bench-out/vivace-cost}
[ "$(id -u)" = 0 ] || { echo "needs root (BPF, network namespaces, TUN)" >&2; exit 1; }
stats_before=$(cat /proc/sys/kernel/bpf_stats_enabled)
restore() { echo "$stats_before" > /proc/sys/kernel/bpf_stats_enabled; $BIN unload vivace >/dev/null 2>&1 || true; }
trap restore EXIT
mkdir -p "$OUT"
echo "| link | program | calls | ns per call |"
echo "| --- | --- | --- | --- |"
for rate in $RATES; do
  # A fresh load per rate: the counters start at zero.
  $BIN unload vivace >/dev/null 2>&1 || true
  $BIN load vivace >/dev/null
  echo 1 > /proc/sys/kernel/bpf_stats_enabled
  $BIN run --scheme vivace --downlink "constant:$rate" --duration "$DURATION" \
    --quiet --out "$OUT/$rate" >/dev/null
  $BIN status --json > "$OUT/$rate/status.json"
  python3 - "$OUT/$rate/status.json" "$rate" <<'PY'
import json, sys
st = json.load(open(sys.argv[1]))
for cc in st["ccs"]:
    if cc["name"] != "vivace":
        continue
    for p in sorted(cc["programs"], key=lambda p: p["name"]):
        if p["run_cnt"]:
            print(f"| {sys.argv[2]} Mbit/s | `{p['name']}` | {p['run_cnt']} | {p['avg_ns']} |")
PY
done
