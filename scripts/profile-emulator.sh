#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Where the CPU goes when one Cubic flow (iperf3 -R) crosses the emulator at
# RATE Mbit/s (docs/emulator.md, "Profile"): samples every CPU with perf
# (cpu-clock, call graphs) for PERF_SECS seconds in the middle of the run and
# sorts the samples of this run's processes only — the emulator's threads,
# the iperf3 sender and receiver — into what they were doing: TUN reads and
# writes (with the kernel's copies and the receiver's TCP inside the write),
# the clock, sleeping, our own code, the sender's TCP (and its software
# segmentation/checksum), the receiver's copies. Samples of other processes
# (other people's builds on a shared machine) are counted apart, so the
# split holds on a loaded machine; the absolute rate does not.
#   scripts/profile-emulator.sh [RATE] [BIN]     (defaults 4000, target/release/c2tcp)
#   MODE=veth scripts/profile-emulator.sh        the reference: the same flow over a
#                                                veth pair, no emulator (RATE unused)
# Needs root and perf (Debian: linux-perf). Writes $OUT/profile-RATE.txt.
set -euo pipefail
cd "$(dirname "$0")/.."
RATE=${1:-4000}
BIN=$(readlink -f "${2:-target/release/c2tcp}")
SECS=${SECS:-8}
PERF_SECS=${PERF_SECS:-4}
LOGS=${LOGS:-1}
OUT=${OUT:-bench-out}
PORT=5299
MODE=${MODE:-emu}
mkdir -p "$OUT"
[ "$(id -u)" = 0 ] || { echo "needs root"; exit 1; }
command -v perf >/dev/null || { echo "needs perf (apt-get install linux-perf)"; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
logs=""
[ "$LOGS" = 1 ] && logs="--downlink-log $work/down.log --uplink-log $work/up.log"

if [ "$MODE" = veth ]; then
  unshare -n sh -c '
    ip link set lo up
    ip link add c2pv0 type veth peer name c2pv1
    ip addr add 100.127.254.1/30 dev c2pv0 && ip link set c2pv0 up
    unshare -n sleep 30 & pid=$!
    sleep 0.2
    ip link set c2pv1 netns $pid
    nsenter -t $pid -n sh -c "ip link set lo up; ip addr add 100.127.254.2/30 dev c2pv1; ip link set c2pv1 up"
    iperf3 -s -1 -p "$2" -B 100.127.254.1 >/dev/null 2>&1 &
    sleep 0.3
    nsenter -t $pid -n iperf3 -c 100.127.254.1 -p "$2" -R -t "$1" -C cubic --json > "$0/iperf" 2>/dev/null
    kill $pid 2>/dev/null; wait
  ' "$work" "$SECS" "$PORT" &
else
  unshare -n sh -c '
    ip link set lo up
    iperf3 -s -1 -p "$4" >/dev/null 2>&1 &
    sleep 0.3
    "$0" emulate -q --downlink "constant:$1" --uplink "constant:$1" --delay 1 \
      --downlink-queue droptail --downlink-queue-args packets=20000 \
      --uplink-queue droptail --uplink-queue-args packets=20000 --stats "$2/stats" $5 \
      -- sh -c "iperf3 -c \$MAHIMAHI_BASE -p $4 -R -t $3 -O 2 -C cubic --json" > "$2/iperf" 2>/dev/null
    wait
  ' "$BIN" "$RATE" "$work" "$SECS" "$PORT" "$logs" &
fi
run=$!
sleep 3
emu=$(pgrep -n -f "^$BIN emulate -q --downlink constant:$RATE " || true)
pids=$(pgrep -f "iperf3 .*-p $PORT" | tr '\n' ' ' || true)
[ "$MODE" = veth ] && { emu=none; RATE=veth; }
perf record -q -a -g -e cpu-clock -F 999 -o "$work/perf.data" -- sleep "$PERF_SECS" 2>/dev/null
pids="$pids $(pgrep -f "iperf3 .*-p $PORT" | tr '\n' ' ' || true)"
wait $run || true
perf script -i "$work/perf.data" -F comm,pid,tid,ip,sym 2>/dev/null > "$work/script"
[ "${KEEP:-0}" = 1 ] && cp "$work/script" "$OUT/profile-$RATE.script"

MODE=$MODE python3 - "$work" "$RATE" "$PERF_SECS" "$emu" "$pids" "$BIN" <<'PY' | tee "$OUT/profile-$RATE.txt"
import json, os, sys, collections
work, rate, secs, emu, pids, binary = sys.argv[1], float(sys.argv[2]) if sys.argv[2] != "veth" else 0.0, float(sys.argv[3]), sys.argv[4], sys.argv[5].split(), sys.argv[6]
ours = {emu} | set(pids)
# What a sample was doing: the first rule whose frame appears in its call chain.
RULES = [
    ("TUN read: copy to user space", ["_copy_to_iter", "copy_to_user", "simple_copy_to_iter"], ["tun_chr_read_iter"]),
    ("TUN read: rest of the syscall", ["tun_chr_read_iter"], None),
    ("TUN write: the receiver's IP/TCP (netif_receive_skb)", ["netif_receive_skb", "__netif_receive_skb_one_core", "netif_receive_skb_list_internal"], ["tun_chr_write_iter"]),
    ("TUN write: rest of the syscall", ["tun_chr_write_iter"], None),
    ("receiver's IP/TCP in a softirq (veth: inside the sender's send)", ["__netif_receive_skb_one_core", "__netif_receive_skb", "process_backlog", "net_rx_action"], ["tcp_sendmsg", "tcp_sendmsg_locked", "veth_xmit"]),
    ("sender TCP: software segmentation + checksum", ["tcp_gso_segment", "skb_segment", "__skb_gso_segment"], None),
    ("sender TCP: sendmsg (copy from user, transmit)", ["tcp_sendmsg", "tcp_sendmsg_locked"], None),
    ("receiver TCP: recvmsg (copy to user)", ["tcp_recvmsg", "tcp_recvmsg_locked"], None),
    ("softirqs/timers run in this thread (TCP pacing, TSQ)", ["handle_softirqs", "__irq_exit_rcu", "hrtimer_run_softirq", "do_softirq"], None),
    ("sleeping/waking (ppoll, scheduler)", ["do_sys_poll", "__x64_sys_ppoll", "schedule", "__schedule", "do_select"], None),
    ("clock (clock_gettime)", ["__vdso_clock_gettime", "clock_gettime@@GLIBC_2.17", "clock_gettime"], None),
    ("file writes (the log's writer)", ["vfs_write"], None),
    ("other syscalls", ["do_syscall_64", "entry_SYSCALL_64_after_hwframe"], None),
]
WRAPPERS = ("read", "readv", "write", "__GI___libc_write", "__GI___libc_read", "__libc_readv",
            "__GI___pthread_disable_asynccancel", "__GI___pthread_enable_asynccancel", "ppoll")
def classify(chain):
    frames = set(chain)
    for name, hits, within in RULES:
        if any(h in frames for h in hits) and (within is None or any(w in frames for w in within)):
            if name == "other syscalls" and "do_syscall_64" in chain:
                k = chain.index("do_syscall_64")
                return f"other syscalls ({chain[k - 1] if k else '?'})"
            return name
    leaf = chain[0] if chain else "?"
    if leaf in WRAPPERS:
        return "user space: libc syscall wrappers"
    if "memmove" in leaf or "memcpy" in leaf:
        return "user space: memcpy (splitting, merging)"
    if any("emu::" in f or "__rust_begin_short_backtrace" in f for f in chain):
        return "user space: our code (pipeline, queue, log, batching, split)"
    return "user space: other (" + leaf[:40] + ")"
per = collections.defaultdict(collections.Counter)
total = others = 0
head, chain = None, []
def flush():
    global total, others
    if head is None:
        return
    comm, pid = head
    total += 1
    if pid not in ours:
        others += 1
        return
    who = ("emulator " + comm) if pid == emu else "iperf3 " + ("pid " + pid)
    per[who][classify(chain)] += 1
for line in open(work + "/script"):
    if not line.strip():
        flush(); head, chain = None, []
        continue
    if not line[0].isspace():
        flush()
        parts = line.split()
        comm = " ".join(parts[:-1]) if len(parts) > 1 else parts[0]
        pid = parts[-1].split("/")[0]
        head, chain = (comm, pid), []
    else:
        f = line.split()
        chain.append(f[1] if len(f) > 1 else "?")
flush()
try:
    ip = json.load(open(work + "/iperf"))
    mbps = ip["end"]["sum_received"]["bits_per_second"] / 1e6 * 1500 / 1448
except Exception:
    mbps = float("nan")
st = json.load(open(work + "/stats"))["downlink"] if __import__("os").path.exists(work + "/stats") else {}
hz = 999.0
pkts = mbps * 1e6 / 8 / 1500 * secs
if os.environ.get("MODE") == "veth":
    rate = mbps
    print("veth reference (no emulator)")
print(f"binary {binary}, constant:{rate:g} Mbit/s, logs {'on' if __import__('os').environ.get('LOGS', '1') == '1' else 'off'}")
print(f"delivered {mbps:.0f} Mbit/s = {mbps / rate:.3f} of capacity; p99 scheduling error {(st.get('sched_error') or {}).get('p99_us')} us")
print(f"{total} samples over {secs:g} s on all CPUs ({total / hz / secs:.2f} CPUs busy), {others} of them other processes")
print(f"this run: {(total - others) / hz:.2f} CPU-s = {(total - others) / hz / (mbps * secs / 1000):.3f} CPU-s per Gbit, "
      f"{(total - others) / hz / pkts * 1e6:.2f} us per 1500-byte packet")
for who in sorted(per, key=lambda w: -sum(per[w].values())):
    n = sum(per[who].values())
    print(f"\n{who}: {n / hz:.2f} CPU-s, {n / hz / pkts * 1e6:.2f} us/packet, {100 * n / (total - others):.1f} % of this run")
    for what, c in per[who].most_common():
        if c / n >= 0.01:
            print(f"  {100 * c / n:5.1f} %  {c / hz / pkts * 1e6:6.3f} us/pkt  {what}")
PY
