#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Capture fidelity (`BENCH_PARTS=capture make bench`): `c2tcp trace capture`
# through our emulator replaying each trace's downlink (20 ms each way,
# infinite queue, the ACKs back over the trace's uplink), then
# scripts/capture-fidelity.py: recovered mean rate, per-100-ms correlation
# and outage time against the replayed trace. Everything runs in a network
# namespace of its own (unshare -n): nothing reaches a real interface.
#
# CAPTURE_TRACES (default Verizon-LTE-short; "all" = every .down trace),
# CAPTURE_S (default 60, seconds recorded), CAPTURE_OUT (default bench-out/capture).
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=$(realpath "${BIN:-target/release/c2tcp}")
TRACES=${C2TCP_TRACES:-traces}
OUT=${CAPTURE_OUT:-bench-out/capture}
SECS=${CAPTURE_S:-60}
NAMES=${CAPTURE_TRACES:-Verizon-LTE-short}
[ "$(id -u)" = 0 ] || { echo "the capture bench needs root (namespaces, TUN)" >&2; exit 1; }
if [ "$NAMES" = all ]; then
  NAMES=$(cd "$TRACES/mahimahi" && ls *.down | sed 's/\.down$//')
fi
mkdir -p "$OUT"
OUT=$(realpath "$OUT")
for name in $NAMES; do
  down="$TRACES/mahimahi/$name.down"
  up="$TRACES/mahimahi/$name.up"
  [ -f "$up" ] || up="$down"
  echo "== capture $name ($SECS s)"
  rm -f "$OUT/$name.ue"
  # The receiver behind the link writes its address for the sender, which
  # runs on the caller's side of `c2tcp emulate` (the private namespace).
  unshare -n bash -c "
    ip link set lo up
    '$BIN' emulate -q --delay 20 --downlink '$down' --uplink '$up' -- bash -c '
      echo \$C2TCP_UE > \"$OUT/$name.ue\"
      exec \"$BIN\" trace capture recv -q --listen \$C2TCP_UE:9000 --duration $SECS \
        -o \"$OUT/$name.cap\" --summary \"$OUT/$name.summary.json\"' &
    emu=\$!
    for i in \$(seq 100); do [ -s '$OUT/$name.ue' ] && break; sleep 0.1; done
    '$BIN' trace capture send -q --to \$(cat '$OUT/$name.ue'):9000 --duration $((SECS + 30)) > '$OUT/$name.sender.json' 2> '$OUT/$name.sender.log' &
    send=\$!
    wait \$emu
    kill \$send 2>/dev/null || true
    wait \$send 2>/dev/null || true
  "
  ./scripts/capture-fidelity.py "$down" "$OUT/$name.cap" | tee "$OUT/$name.fidelity.json"
done
