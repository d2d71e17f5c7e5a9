#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# `make bench`: the papers' trace-driven experiments (long; each part is a
# resumable `c2tcp bench`, so rerunning continues where it stopped).
#
#   table1        C2TCP Table I: the authors' set-up over every downlink trace,
#                 C2TCP as released (jsac, the default) and as printed (paper)
#   ablation      C2TCP: paper + each of the authors' five behaviours, jsac - each
#   full-length   Table I's headline schemes over each whole trace (hours)
#   mobile-edge   C2TCP Fig. 17: 4 ms RTT, Target 10 ms, the trace scaled 3x
#   target-sweep  C2TCP Fig. 20: Target 25-100 ms vs Cubic, Cubic+CoDel and
#                 Cubic+PIE, on every downlink trace
#   buffer-sweep  C2TCP Fig. 21: bottleneck buffer 75 KB - 1.5 MB
#   friendliness  C2TCP Fig. 18-19: a Cubic flow, then the scheme under test
#                 (C2TCP at Targets 50/80/100); NewReno vs C2TCP; two C2TCP
#                 flows; C2TCP vs Cubic in a 5x BDP buffer
#                 (friendliness{,-newreno,-c2tcp-pair,-deep})
#   sprout        Sprout NSDI'13 set-up (20 ms each way, unlimited queue)
#   natcp         NATCP/NACubic over live NetAssist, the MEC set-up (Table 2)
#   dfcsd         DFCSD/DRWA short-vs-long and its variants (scripts/bench-dfcsd.sh)
#
# At the end `c2tcp claims` checks every paper's claims (claims/*.toml)
# against the parts in BENCH_OUT: $BENCH_OUT/claims.{md,html,json}.
#
# BENCH_OUT (default bench-out) holds one directory per part with its report;
# BENCH_JOBS (default 2) runs at a time; BENCH_PARTS selects parts.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${BIN:-target/release/c2tcp}
OUT=${BENCH_OUT:-bench-out}
JOBS=${BENCH_JOBS:-2}
PARTS=${BENCH_PARTS:-"table1 ablation full-length mobile-edge target-sweep buffer-sweep friendliness sprout natcp dfcsd"}
TRACES=${C2TCP_TRACES:-traces}

[ "$(id -u)" = 0 ] || { echo "make bench needs root (BPF, network namespaces, TUN): run it with sudo" >&2; exit 1; }
[ -d "$TRACES/mahimahi" ] || { echo "make bench needs the traces in $TRACES/mahimahi (set C2TCP_TRACES)" >&2; exit 1; }
mkdir -p "$OUT"

part() { case " $PARTS " in *" $1 "*) return 0 ;; *) return 1 ;; esac; }

# Each part is a scenario that carries its experiment in its [bench] table
# (schemes, traces, reference, repetitions); extra flags follow it.
bench() { # PART SCENARIO [FLAGS...]
  part "$1" || return 0
  run_bench "$@"
}
run_bench() { # DIRECTORY SCENARIO [FLAGS...], whatever the parts
  local name=$1 scenario=$2
  shift 2
  echo "== $name: $BIN bench scenarios/$scenario.toml $*"
  $BIN bench "scenarios/$scenario.toml" --jobs "$JOBS" --out "$OUT/$name" "$@"
}

bench table1 c2tcp-variants ${TABLE1_SCHEMES:+--schemes "$TABLE1_SCHEMES"}
bench ablation c2tcp-ablation
if part ablation; then
  ./scripts/c2tcp-ablation.py "$OUT/ablation" > "$OUT/ablation/ablation.md"
  cat "$OUT/ablation/ablation.md"
fi
# Table I's headline schemes over each whole trace (the authors ran
# TMobile-LTE-driving for 480 s).
bench full-length c2tcp-variants --schemes cubic,bbr,cubic-codel,c2tcp \
  --traces "${FULL_LENGTH_TRACES:-all}" --duration trace
# Fig. 17 on the trace scaled 3x, as the paper's (c2tcp trace scale).
if part mobile-edge; then
  mkdir -p "$OUT/mobile-edge-traces"
  EDGE_TRACE="$OUT/mobile-edge-traces/TMobile-LTE-short-x3.down"
  $BIN trace scale "$TRACES/mahimahi/TMobile-LTE-short.down" --factor 3 -o "$EDGE_TRACE"
  bench mobile-edge mobile-edge --traces "$EDGE_TRACE"
fi
bench target-sweep target-sweep
bench buffer-sweep buffer-sweep
bench friendliness tcp-friendliness
if part friendliness; then
  for case in newreno c2tcp-pair deep; do
    run_bench "friendliness-$case" "tcp-friendliness-$case"
  done
fi
bench sprout sprout-paper
bench natcp natcp-mec
if part dfcsd; then
  echo "== dfcsd (receiver-side short-vs-long and variants)"
  DFCSD_OUT="$OUT/dfcsd" JOBS="$JOBS" BIN="$BIN" ./scripts/bench-dfcsd.sh
fi
echo "reports: $(ls -d "$OUT"/*/report.md 2>/dev/null | tr '\n' ' ')"
# Every paper's claims against what the parts hold (a part not run: "not run").
$BIN claims "$OUT"
