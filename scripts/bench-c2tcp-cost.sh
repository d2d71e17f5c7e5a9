#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Per-call cost of C2TCP's BPF programs, each variant: c2tcp loaded with that
# variant as the load-time default, kernel.bpf_stats_enabled=1, one bulk
# C2TCP flow through the emulator (constant 96 Mbit/s, 10 ms each way,
# 100-packet droptail, Target 50 ms) for DURATION s, then `c2tcp status`'s
# ns per call. Needs root and no other user of c2tcp (it loads and unloads).
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${BIN:-target/release/c2tcp}
DURATION=${DURATION:-20}
OUT=${OUT:-bench-out/c2tcp-cost}
[ "$(id -u)" = 0 ] || { echo "needs root (BPF, network namespaces, TUN)" >&2; exit 1; }
stats_before=$(cat /proc/sys/kernel/bpf_stats_enabled)
restore() { echo "$stats_before" > /proc/sys/kernel/bpf_stats_enabled; $BIN unload c2tcp >/dev/null 2>&1 || true; }
trap restore EXIT
mkdir -p "$OUT"
echo "| variant | program | calls | ns per call |"
echo "| --- | --- | --- | --- |"
for variant in jsac paper; do
  $BIN unload c2tcp >/dev/null 2>&1 || true
  $BIN load c2tcp --variant "$variant" >/dev/null
  echo 1 > /proc/sys/kernel/bpf_stats_enabled
  $BIN run --scheme c2tcp --target 50 --downlink constant:96 --duration "$DURATION" \
    --quiet --out "$OUT/$variant" >/dev/null
  $BIN status --json > "$OUT/$variant/status.json"
  python3 - "$OUT/$variant/status.json" "$variant" <<'PY'
import json, sys
st = json.load(open(sys.argv[1]))
for cc in st["ccs"]:
    if cc["name"] != "c2tcp":
        continue
    for p in sorted(cc["programs"], key=lambda p: p["name"]):
        if p["run_cnt"]:
            print(f"| {sys.argv[2]} | `{p['name']}` | {p['run_cnt']} | {p['avg_ns']} |")
PY
  echo 0 > /proc/sys/kernel/bpf_stats_enabled
done
