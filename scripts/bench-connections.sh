#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# The 1 000-connection benchmark of issue 17: N concurrent c2tcp connections
# between two namespaces over veth, each with its own Target, transferring on
# all of them; every connection's C2TCP_INFO and `c2tcp top` row must report
# its own Target. Records c2tcp_pkts_acked's cost per ACK (run_time_ns /
# run_cnt, as `c2tcp status` shows it) at 1 and at 1 000 connections, and the
# memory of c2tcp's maps and of each socket's storage.
#
#   sudo scripts/bench-connections.sh [OUT.jsonl]     (default: bench-connections.jsonl)
#
# Env: C2TCP_BENCH_SECS (transfer seconds per point, default 10),
# C2TCP_BENCH_POINTS (default "1 1000"). Needs root; turns
# kernel.bpf_stats_enabled on for the run and restores it.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-bench-connections.jsonl}
points=${C2TCP_BENCH_POINTS:-"1 1000"}
[ "$(id -u)" = 0 ] || { echo "bench-connections.sh needs root" >&2; exit 1; }
# Two sockets per connection, plus the test harness's own.
need=$(( $(echo "$points" | tr ' ' '\n' | sort -n | tail -1) * 2 + 256 ))
[ "$(ulimit -n)" -ge "$need" ] || ulimit -n "$need" || {
    echo "ulimit -n is $(ulimit -n); $need file descriptors are needed" >&2; exit 1; }
stats_was=$(cat /proc/sys/kernel/bpf_stats_enabled)
trap 'echo "$stats_was" > /proc/sys/kernel/bpf_stats_enabled' EXIT INT TERM
echo 1 > /proc/sys/kernel/bpf_stats_enabled
nice -n 10 cargo test --release -q -p c2tcp --test cgroup_targets --no-run
: > "$out"
log=$(mktemp)
for n in $points; do
    if ! C2TCP_BENCH_CONNECTIONS=$n nice -n 10 cargo test --release -q -p c2tcp --test cgroup_targets \
        thousand_connections_benchmark -- --ignored --nocapture --exact >"$log" 2>&1; then
        tail -30 "$log" >&2
        rm -f "$log"
        echo "the benchmark failed at $n connections" >&2
        exit 1
    fi
    sed -n 's/^BENCH //p' "$log" | tee -a "$out"
done
rm -f "$log"
echo "results in $out"
