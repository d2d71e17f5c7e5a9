#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Emulator benchmark (make bench-emulator): constant-rate traces of 12, 100,
# 500 and 1000 Mbit/s, one saturating TCP flow (iperf3 -R, cubic) through a
# deep droptail queue and 1 ms of delay each way. Reports delivered ÷ trace
# capacity and the p99 scheduling error (a packet's write time minus the
# opportunity it used). Everything runs in a private network namespace
# (unshare -n), so nothing touches the host's.
# Bar: delivered/capacity >= 0.98 up to 500 Mbit/s, >= 0.95 at 1 Gbit/s; p99 <= 200 us.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${C2TCP_BIN:-target/release/c2tcp}
RATES=${RATES:-"12 100 500 1000"}
SECS=${SECS:-8}          # measured seconds per rate (after 2 s of warm-up)
OUT=bench-out
mkdir -p "$OUT"
[ "$(id -u)" = 0 ] || { echo "bench-emulator needs root (namespaces, TUN)"; exit 1; }
[ -x "$BIN" ] || { echo "no $BIN: run make build first"; exit 1; }
for tool in iperf3 python3 unshare; do
  command -v $tool >/dev/null || { echo "bench-emulator needs $tool"; exit 1; }
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

echo "rate_mbps delivered_mbps delivered/capacity p50_us p99_us max_us write_errors" > "$work/table"
json="["
for rate in $RATES; do
  echo "== $rate Mbit/s: ${SECS}s of iperf3 -R (cubic) through droptail:packets=20000, 1 ms each way" >&2
  "$BIN" trace synth -o "$work/c$rate" --constant "$rate" --duration 1 2>/dev/null
  # In a private namespace: iperf3 server on the caller side, client behind the link.
  unshare -n sh -c '
    ip link set lo up
    iperf3 -s -1 -p 5201 >/dev/null 2>&1 &
    sleep 0.3
    "$0" emulate -q --downlink "$1" --uplink "$1" --delay 1 \
      --downlink-queue droptail --downlink-queue-args packets=20000 \
      --uplink-queue droptail --uplink-queue-args packets=20000 --stats "$2.stats" \
      -- sh -c "iperf3 -c \$MAHIMAHI_BASE -p 5201 -R -t $3 -O 2 -C cubic --json" > "$2.iperf"
    wait
  ' "$BIN" "$work/c$rate" "$work/r$rate" "$((SECS + 2))" || true
  python3 - "$rate" "$work/r$rate" >> "$work/table" <<'PY' || echo "$rate failed" >&2
import json, sys
rate = float(sys.argv[1]); base = sys.argv[2]
ip = json.load(open(base + ".iperf"))
st = json.load(open(base + ".stats"))
# iperf3 reports TCP payload; on the link each 1448-byte segment is a 1500-byte packet.
goodput = ip["end"]["sum_received"]["bits_per_second"] / 1e6
delivered = goodput * 1500 / 1448
se = st["downlink"]["sched_error"] or {}
print(f'{rate:g} {delivered:.1f} {delivered / rate:.3f} {se.get("p50_us")} {se.get("p99_us")} {se.get("max_us")} {st["downlink"]["write_errors"]}')
PY
done
column -t "$work/table"
python3 - "$work/table" > "$OUT/emulator.json" <<'PY'
import json, sys
rows = [l.split() for l in open(sys.argv[1])][1:]
out = [dict(rate_mbps=float(r[0]), delivered_mbps=float(r[1]), delivered_over_capacity=float(r[2]),
            sched_error_p50_us=int(r[3]), sched_error_p99_us=int(r[4]), sched_error_max_us=int(r[5]),
            write_errors=int(r[6])) for r in rows]
json.dump({"benchmark": "emulator", "flow": "iperf3 -R, cubic", "queue": "droptail:packets=20000",
           "delay_ms_each_way": 1, "results": out}, sys.stdout, indent=2)
PY
echo "wrote $OUT/emulator.json"
