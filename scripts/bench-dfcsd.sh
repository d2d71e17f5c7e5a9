#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# DFCSD's evaluation (docs/receiver-side.md): the short-vs-long experiment
# (REPS repetitions, default 3: Cubic's short-flow time depends on where its
# sawtooth is when the short flow arrives) and the paper's variants
# (short-flow size, 1-5 short flows, link rate, an LTE trace; one repetition
# each) and the base-RTT sweep (two repetitions), every one a `c2tcp bench` over plain Cubic, DRWA, RTAC
# and DFCSD receivers (the paper's four), DFCSD over its γ_max, then the short-vs-long table.
# Resumable like any bench.
# Benchmarks of different people must not overlap (they share the cores):
#   flock /run/c2tcp/bench.lock scripts/bench-dfcsd.sh
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${BIN:-target/release/c2tcp}
OUT=${DFCSD_OUT:-bench-out/dfcsd}
SCHEMES=${SCHEMES:-cubic,drwa,rtac,dfcsd}
REPS=${REPS:-3}
JOBS=${JOBS:-1}
[ "$(id -u)" = 0 ] || { echo "needs root (network namespaces, TUN)" >&2; exit 1; }

for s in short-long link-rate short-size many-short short-long-trace base-rtt; do
  echo "== dfcsd-$s" >&2
  reps=1; [ "$s" = short-long ] && reps=$REPS; [ "$s" = base-rtt ] && reps=2
  $BIN bench "scenarios/dfcsd-$s.toml" --schemes "$SCHEMES" --reference cubic --reps "$reps" --jobs "$JOBS" --out "$OUT/$s"
done
# DFCSD alone over its γ_max (the other schemes do not take it).
echo "== dfcsd-gamma" >&2
$BIN bench scenarios/dfcsd-gamma.toml --schemes dfcsd --reference dfcsd --reference-label gamma_max=10 --jobs "$JOBS" --out "$OUT/gamma"

# The short-vs-long table from each run's flows.csv (label, scheme,
# size_bytes, fct_s and retransmits are columns 2, 3, 6, 14 and 15), means
# over the repetitions; the long flow's goodput is its size over its
# completion time.
echo
echo "| receivers | short FCT (s), mean [min-max] | vs Cubic | long FCT (s) | long goodput (Mbit/s) | vs Cubic | retransmissions per run (long + short) |"
echo "| --- | --- | --- | --- | --- | --- | --- |"
for scheme in ${SCHEMES//,/ }; do
  awk -F, -v s="$scheme" 'FNR == 1 { n++ } FNR > 1 {
      if ($2 == "short") { sf += $14; lo = (n == 1 || $14 < lo) ? $14 : lo; hi = (n == 1 || $14 > hi) ? $14 : hi }
      else { lf += $14; gp += $6 * 8 / $14 / 1e6 }
      rt += $15 }
    END { printf "%s %.3f %.3f %.3f %.2f %.4f %.1f %d\n", s, sf / n, lo, hi, lf / n, gp / n, rt / n, n }' \
    "$OUT"/short-long/runs/*/"$scheme"/default/rep*/flows.csv
done | awk '{ if (NR == 1) { sf1 = $2; gp1 = $6 }
  printf "| %s | %.2f [%.2f-%.2f] | %.2fx | %.1f | %.3f | %.3fx | %.1f |\n", $1, $2, $3, $4, $2 / sf1, $5, $6, $6 / gp1, $7 }'
echo
echo "reports: $OUT/*/report.md, figures: $OUT/*/plots/"
