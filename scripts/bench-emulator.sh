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
#   old     only when OLD_BIN=PATH is given: the single link through an older
#           c2tcp binary (e.g. one built before a change, copied aside), so the
#           gain is a ratio measured in the same session on the same machine.
# Reports delivered ÷ capacity, the p50/p99/max scheduling error (a packet's
# write time minus the opportunity it used), the machine's CPU-seconds per
# gigabit delivered (all cores, /proc/stat: the kernel's TCP, iperf3 and the
# emulator together, and whatever else the machine runs) and the emulator
# process's own CPU-seconds per gigabit (its threads' user + system time from
# /proc/PID/stat, which includes the kernel work done in its TUN reads and
# writes; far less sensitive to other load than the machine's figure). Logs are
# on (LOGS=0 turns them off), as in a real run. Everything runs in private
# network namespaces (unshare -n), so nothing touches the host's.
# Bar (docs/emulator.md): delivered/capacity >= 0.98 up to 500 Mbit/s, >= 0.95 at
# 1 Gbit/s, p99 <= 200 us; the 5G-Advanced aim is >= 0.95 at 8-10 Gbit/s.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${C2TCP_BIN:-target/release/c2tcp}
RATES=${RATES:-"12 100 500 1000 2000 4000 8000 10000"}
REPS=${REPS:-5}
MODES=${MODES:-"single pair veth"}
OLD_BIN=${OLD_BIN:-}     # an older c2tcp to compare with (mode "old")
LOGS=${LOGS:-1}
SECS=${SECS:-8}          # measured seconds per run (after 2 s of warm-up)
OUT=bench-out
mkdir -p "$OUT"
[ "$(id -u)" = 0 ] || { echo "bench-emulator needs root (namespaces, TUN)"; exit 1; }
[ -x "$BIN" ] || { echo "no $BIN: run make build first"; exit 1; }
if [ -n "$OLD_BIN" ]; then
  [ -x "$OLD_BIN" ] || { echo "OLD_BIN=$OLD_BIN is not an executable"; exit 1; }
  case " $MODES " in *" old "*) ;; *) MODES="$MODES old" ;; esac
fi
for tool in iperf3 python3 unshare ip; do
  command -v $tool >/dev/null || { echo "bench-emulator needs $tool"; exit 1; }
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Busy and total jiffies of all cores.
cpu() { awk '/^cpu /{print $2+$3+$4+$7+$8, $2+$3+$4+$5+$6+$7+$8}' /proc/stat; }

# One emulated link with its iperf3 pair, in a private namespace: $1 rate, $2 file
# prefix, $3 port, $4 the c2tcp binary. When iperf3 is done, COMMAND copies its
# parent's (the emulator's) /proc/PID/stat: the emulator's own CPU time.
link_run() {
  local logs=""
  [ "$LOGS" = 1 ] && logs="--downlink-log $2.down.log --uplink-log $2.up.log"
  unshare -n sh -c '
    ip link set lo up
    iperf3 -s -1 -p "$4" >/dev/null 2>&1 &
    sleep 0.3
    "$0" emulate -q --downlink "constant:$1" --uplink "constant:$1" --delay 1 \
      --downlink-queue droptail --downlink-queue-args packets=20000 \
      --uplink-queue droptail --uplink-queue-args packets=20000 --stats "$2.stats" $5 \
      -- sh -c "iperf3 -c \$MAHIMAHI_BASE -p $4 -R -t $3 -O 2 -C cubic --json; cat /proc/\$PPID/stat > $2.emucpu" \
      > "$2.iperf" 2>/dev/null
    wait
  ' "$4" "$1" "$2" "$((SECS + 2))" "$3" "$logs" || true
  rm -f "$2.down.log" "$2.up.log"
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
        single) link_run "$rate" "$work/$mode-$rate-$rep-a" 5201 "$BIN" ;;
        old) link_run "$rate" "$work/$mode-$rate-$rep-a" 5201 "$OLD_BIN" ;;
        pair)
          link_run "$rate" "$work/$mode-$rate-$rep-a" 5201 "$BIN" &
          link_run "$rate" "$work/$mode-$rate-$rep-b" 5202 "$BIN"
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

SECS=$SECS LOGS=$LOGS OLD_BIN=$OLD_BIN python3 - "$rows" "$OUT/emulator.json" <<'PY'
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
    emu_s = None
    if os.path.exists(base + ".emucpu"):
        f = open(base + ".emucpu").read().rsplit(")", 1)[1].split()
        emu_s = (int(f[11]) + int(f[12])) / hz  # utime, stime (fields 14, 15)
    links = 2 if mode == "pair" else 1
    gbits = delivered * (int(os.environ["SECS"]) + 2) / 1000
    row = dict(mode=mode, rate_mbps=rate, rep=int(rep), delivered_mbps=round(delivered, 1),
               delivered_over_capacity=round(delivered / rate, 3),
               sched_error_p50_us=se.get("p50_us"), sched_error_p99_us=se.get("p99_us"),
               sched_error_max_us=se.get("max_us"), write_errors=st.get("write_errors"),
               # Whole machine, shared by the links of a pair.
               cpu_s_per_gbit=round(busy_s / links / max(gbits, 1e-9), 3),
               # The emulator process alone (its threads, user + system).
               emu_cpu_s_per_gbit=None if emu_s is None else round(emu_s / max(gbits, 1e-9), 3))
    out.append(row)
print(f'{"mode":6} {"rate":>6} {"rep":>3} {"delivered":>10} {"ratio":>6} {"p50us":>6} {"p99us":>6} {"maxus":>6} {"cpu s/Gbit":>10} {"emu s/Gbit":>10}')
for r in out:
    emu = "-" if r["emu_cpu_s_per_gbit"] is None else f'{r["emu_cpu_s_per_gbit"]:.3f}'
    print(f'{r["mode"]:6} {r["rate_mbps"]:6g} {r["rep"]:3} {r["delivered_mbps"]:10.1f} {r["delivered_over_capacity"]:6.3f} '
          f'{str(r["sched_error_p50_us"]):>6} {str(r["sched_error_p99_us"]):>6} {str(r["sched_error_max_us"]):>6} {r["cpu_s_per_gbit"]:10.3f} {emu:>10}')
# Per rate and mode: the median over repetitions, so "old" (an older binary)
# and "veth" (no emulator) sit beside this build's "single".
def median(v):
    v = sorted(x for x in v if x is not None)
    return None if not v else (v[len(v) // 2] if len(v) % 2 else (v[len(v) // 2 - 1] + v[len(v) // 2]) / 2)
fmt = lambda x, d=3: "-" if x is None else f"{x:.{d}f}"
print()
print("medians over repetitions (single = this build, old = OLD_BIN, veth = no emulator):")
print(f'{"rate":>6} {"mode":6} {"runs":>4} {"ratio":>6} {"min":>6} {"p99us":>6} {"cpu s/Gbit":>10} {"emu s/Gbit":>10}')
summary = []
for rate in sorted({r["rate_mbps"] for r in out}):
    for mode in ("single", "old", "pair", "veth"):
        rs = [r for r in out if r["rate_mbps"] == rate and r["mode"] == mode]
        if not rs:
            continue
        s = dict(rate_mbps=rate, mode=mode, runs=len(rs),
                 ratio=median([r["delivered_over_capacity"] for r in rs]),
                 ratio_min=min(r["delivered_over_capacity"] for r in rs),
                 p99_us=median([r["sched_error_p99_us"] for r in rs]),
                 cpu_s_per_gbit=median([r["cpu_s_per_gbit"] for r in rs]),
                 emu_cpu_s_per_gbit=median([r["emu_cpu_s_per_gbit"] for r in rs]))
        summary.append(s)
        print(f'{rate:6g} {mode:6} {len(rs):4} {fmt(s["ratio"]):>6} {fmt(s["ratio_min"]):>6} {fmt(s["p99_us"], 0):>6} '
              f'{fmt(s["cpu_s_per_gbit"]):>10} {fmt(s["emu_cpu_s_per_gbit"]):>10}')
json.dump({"benchmark": "emulator", "flow": "iperf3 -R, cubic", "queue": "droptail:packets=20000",
           "delay_ms_each_way": 1, "cpu": "machine CPU-seconds (all cores) per Gbit delivered, per link",
           "emu_cpu": "the emulator process's CPU-seconds (user + system) per Gbit delivered",
           "logs": os.environ["LOGS"] == "1", "old_bin": os.environ.get("OLD_BIN") or None,
           "results": out, "summary": summary}, open(sys.argv[2], "w"), indent=2)
PY
echo "wrote $OUT/emulator.json"
