#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# `make bench`: the papers' trace-driven experiments (long; each part is a
# resumable `c2tcp bench`, so rerunning continues where it stopped).
#
#   table1        C2TCP Table I: the authors' set-up over every downlink trace,
#                 C2TCP as released (jsac, the default) and as printed (paper)
#   ablation      C2TCP: paper + each of the authors' five behaviours, jsac - each
#   full-length   Table I's headline schemes over each whole trace (hours)
#   target-sweep  C2TCP Fig. 20: Target 25-75 ms vs Cubic and Cubic+CoDel
#   buffer-sweep  C2TCP Fig. 21: bottleneck buffer 75 KB - 1.5 MB
#   friendliness  C2TCP Fig. 18: a Cubic flow, then the scheme under test
#   sprout        Sprout NSDI'13 set-up (20 ms each way, unlimited queue)
#   natcp         NATCP/NACubic over live NetAssist, the MEC set-up (Table 2)
#   dfcsd         DFCSD/DRWA short-vs-long and its variants (scripts/bench-dfcsd.sh)
#   ecn           Table I's set-up: Cubic over CoDel with/without ECN, over fq_codel, and ABC
#
# BENCH_OUT (default bench-out) holds one directory per part with its report;
# BENCH_JOBS (default 2) runs at a time; BENCH_PARTS selects parts.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${BIN:-target/release/c2tcp}
OUT=${BENCH_OUT:-bench-out}
JOBS=${BENCH_JOBS:-2}
PARTS=${BENCH_PARTS:-"table1 ablation full-length target-sweep buffer-sweep friendliness sprout natcp dfcsd ecn"}
TRACES=${C2TCP_TRACES:-traces}

[ "$(id -u)" = 0 ] || { echo "make bench needs root (BPF, network namespaces, TUN): run it with sudo" >&2; exit 1; }
[ -d "$TRACES/mahimahi" ] || { echo "make bench needs the traces in $TRACES/mahimahi (set C2TCP_TRACES)" >&2; exit 1; }
mkdir -p "$OUT"

part() { case " $PARTS " in *" $1 "*) return 0 ;; *) return 1 ;; esac; }

# Each part is a scenario that carries its experiment in its [bench] table
# (schemes, traces, reference, repetitions); extra flags follow it.
bench() { # PART SCENARIO [FLAGS...]
  local name=$1 scenario=$2
  shift 2
  part "$name" || return 0
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
bench target-sweep target-sweep
bench buffer-sweep buffer-sweep
bench friendliness tcp-friendliness
bench sprout sprout-paper
bench natcp natcp-mec
bench ecn ecn-aqm
if part dfcsd; then
  echo "== dfcsd (receiver-side short-vs-long and variants)"
  DFCSD_OUT="$OUT/dfcsd" JOBS="$JOBS" BIN="$BIN" ./scripts/bench-dfcsd.sh
fi
echo "reports: $(ls -d "$OUT"/*/report.md 2>/dev/null | tr '\n' ' ')"
