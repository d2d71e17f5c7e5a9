#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Emulator benchmark (make bench-emulator): constant-rate links (constant:MBPS),
# one saturating TCP flow (iperf3 -R, cubic) through a deep droptail queue and
# 1 ms of delay each way, REPS times per rate. Three modes per rate and rep:
#   single  one emulated link;
#   pair    two emulated links at once, each at the full rate with its own flow
#           (does one starve the other? each row is one link);
#   veth    the reference: the same flow over a veth pair with no emulator, i.e.
#           what the kernel's own TCP delivers on these cores (capacity column
#           is then the rate asked of the emulator, for comparison).
# Reports delivered ÷ capacity, the p50/p99/max scheduling error (a packet's
# write time minus the opportunity it used) and the machine's CPU-seconds per
# gigabit delivered (all cores, /proc/stat: the kernel's TCP, iperf3 and the
# emulator together). Everything runs in private network namespaces (unshare -n),
# so nothing touches the host's.
# Bar (docs/emulator.md): delivered/capacity >= 0.98 up to 500 Mbit/s, >= 0.95 at
# 1 Gbit/s, p99 <= 200 us; the 5G-Advanced aim is >= 0.95 at 8-10 Gbit/s.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${C2TCP_BIN:-target/release/c2tcp}
RATES=${RATES:-"12 100 500 1000 2000 4000 8000 10000"}
REPS=${REPS:-5}
MODES=${MODES:-"single pair veth"}
SECS=${SECS:-8}          # measured seconds per run (after 2 s of warm-up)
OUT=bench-out
mkdir -p "$OUT"
[ "$(id -u)" = 0 ] || { echo "bench-emulator needs root (namespaces, TUN)"; exit 1; }
[ -x "$BIN" ] || { echo "no $BIN: run make build first"; exit 1; }
for tool in iperf3 python3 unshare ip; do
  command -v $tool >/dev/null || { echo "bench-emulator needs $tool"; exit 1; }
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Busy and total jiffies of all cores.
cpu() { awk '/^cpu /{print $2+$3+$4+$7+$8, $2+$3+$4+$5+$6+$7+$8}' /proc/stat; }

# One emulated link with its iperf3 pair, in a private namespace: $1 rate, $2 file prefix, $3 port.
link_run() {
  unshare -n sh -c '
    ip link set lo up
    iperf3 -s -1 -p "$4" >/dev/null 2>&1 &
    sleep 0.3
    "$0" emulate -q --downlink "constant:$1" --uplink "constant:$1" --delay 1 \
      --downlink-queue droptail --downlink-queue-args packets=20000 \
      --uplink-queue droptail --uplink-queue-args packets=20000 --stats "$2.stats" \
      -- sh -c "iperf3 -c \$MAHIMAHI_BASE -p $4 -R -t $3 -O 2 -C cubic --json" > "$2.iperf" 2>/dev/null
    wait
  ' "$BIN" "$1" "$2" "$((SECS + 2))" "$3" || true
}

# The reference: the same flow over a veth pair between two fresh namespaces.
veth_run() {
  unshare -n sh -c '
    ip link set lo up
    ip link add c2bv0 type veth peer name c2bv1
    ip addr add 100.127.255.1/30 dev c2bv0 && ip link set c2bv0 up
    unshare -n sleep 30 & pid=$!
    sleep 0.2
    ip link set c2bv1 netns $pid
    nsenter -t $pid -n sh -c "ip link set lo up; ip addr add 100.127.255.2/30 dev c2bv1; ip link set c2bv1 up"
    iperf3 -s -1 -p 5201 -B 100.127.255.1 >/dev/null 2>&1 &
    sleep 0.3
    nsenter -t $pid -n iperf3 -c 100.127.255.1 -p 5201 -R -t "$1" -O 2 -C cubic --json > "$0.iperf" 2>/dev/null
    kill $pid 2>/dev/null; wait
  ' "$1" "$((SECS + 2))" || true
}

rows="$work/rows"
: > "$rows"
for rate in $RATES; do
  for rep in $(seq 1 "$REPS"); do
    for mode in $MODES; do
      echo "== $rate Mbit/s, rep $rep, $mode: ${SECS}s of iperf3 -R (cubic), droptail:packets=20000, 1 ms each way" >&2
      before=$(cpu)
      case $mode in
        single) link_run "$rate" "$work/$mode-$rate-$rep-a" 5201 ;;
        pair)
          link_run "$rate" "$work/$mode-$rate-$rep-a" 5201 &
          link_run "$rate" "$work/$mode-$rate-$rep-b" 5202
          wait ;;
        veth) veth_run "$work/$mode-$rate-$rep-a" ;;
      esac
      after=$(cpu)
      for f in "$work/$mode-$rate-$rep"-*.iperf; do
        echo "$rate $rep $mode ${f%.iperf} $before $after" >> "$rows"
      done
    done
  done
done

SECS=$SECS python3 - "$rows" "$OUT/emulator.json" <<'PY'
import json, os, sys
rows, out = [], []
for line in open(sys.argv[1]):
    rate, rep, mode, base, b_busy, b_total, a_busy, a_total = line.split()
    rate = float(rate)
    try:
        ip = json.load(open(base + ".iperf"))
        goodput = ip["end"]["sum_received"]["bits_per_second"] / 1e6
    except Exception as e:
        print(f"{rate:g} {mode} rep {rep}: no iperf3 result ({e})", file=sys.stderr)
        continue
    # iperf3 reports TCP payload; on the link each 1448-byte segment is a 1500-byte packet.
    delivered = goodput * 1500 / 1448
    st = {}
    if os.path.exists(base + ".stats"):
        st = json.load(open(base + ".stats"))["downlink"]
    se = st.get("sched_error") or {}
    hz = os.sysconf("SC_CLK_TCK")
    busy_s = (float(a_busy) - float(b_busy)) / hz
    links = 2 if mode == "pair" else 1
    gbits = delivered * (int(os.environ["SECS"]) + 2) / 1000
    row = dict(mode=mode, rate_mbps=rate, rep=int(rep), delivered_mbps=round(delivered, 1),
               delivered_over_capacity=round(delivered / rate, 3),
               sched_error_p50_us=se.get("p50_us"), sched_error_p99_us=se.get("p99_us"),
               sched_error_max_us=se.get("max_us"), write_errors=st.get("write_errors"),
               # Whole machine, shared by the links of a pair.
               cpu_s_per_gbit=round(busy_s / links / max(gbits, 1e-9), 3))
    out.append(row)
print(f'{"mode":6} {"rate":>6} {"rep":>3} {"delivered":>10} {"ratio":>6} {"p50us":>6} {"p99us":>6} {"maxus":>6} {"cpu s/Gbit":>10}')
for r in out:
    print(f'{r["mode"]:6} {r["rate_mbps"]:6g} {r["rep"]:3} {r["delivered_mbps"]:10.1f} {r["delivered_over_capacity"]:6.3f} '
          f'{str(r["sched_error_p50_us"]):>6} {str(r["sched_error_p99_us"]):>6} {str(r["sched_error_max_us"]):>6} {r["cpu_s_per_gbit"]:10.3f}')
json.dump({"benchmark": "emulator", "flow": "iperf3 -R, cubic", "queue": "droptail:packets=20000",
           "delay_ms_each_way": 1, "cpu": "machine CPU-seconds (all cores) per Gbit delivered, per link",
           "results": out}, open(sys.argv[2], "w"), indent=2)
PY
echo "wrote $OUT/emulator.json"
