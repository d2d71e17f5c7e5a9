#!/usr/bin/env bash
# DFCSD's evaluation (docs/receiver-side.md): the short-vs-long experiment and
# the paper's variants (short-flow size, 1-5 short flows, link rate, an LTE
# trace), each a `c2tcp bench` over plain Cubic, DRWA and DFCSD receivers,
# then the short-vs-long table. Resumable like any bench. Benchmarks of
# different people must not overlap (they share the cores):
#   flock /run/c2tcp/bench.lock scripts/bench-dfcsd.sh
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${BIN:-target/release/c2tcp}
OUT=${DFCSD_OUT:-bench-out/dfcsd}
SCHEMES=${SCHEMES:-cubic,drwa,dfcsd}
export C2TCP_TRACES=${C2TCP_TRACES:-$(realpath ../shared/traces)}
[ "$(id -u)" = 0 ] || { echo "needs root (network namespaces, TUN)" >&2; exit 1; }

for s in short-long link-rate short-size many-short short-long-trace; do
  echo "== dfcsd-$s" >&2
  $BIN bench "scenarios/dfcsd-$s.toml" --schemes "$SCHEMES" --reference cubic --jobs 1 --out "$OUT/$s"
done

# The short-vs-long table from each run's flows.csv (label, scheme,
# size_bytes, fct_s and retransmits are columns 2, 3, 6, 14 and 15): the
# long flow's goodput is its size over its completion time.
echo
echo "| receivers | short FCT (s) | vs Cubic | long FCT (s) | long goodput (Mbit/s) | vs Cubic | retransmissions (long + short) |"
echo "| --- | --- | --- | --- | --- | --- | --- |"
for scheme in ${SCHEMES//,/ }; do
  awk -F, 'FNR > 1 { if ($2 == "short") sf = $14; else { lf = $14; ls = $6 }; rt += $15 } END { printf "%s %s %s %s\n", sf, lf, ls, rt }' \
    "$OUT"/short-long/runs/*/"$scheme"/default/rep1/flows.csv
done | awk -v schemes="$SCHEMES" 'BEGIN { n = split(schemes, s, ",") }
  { sf[NR] = $1; lf[NR] = $2; gp[NR] = $3 * 8 / $2 / 1e6; rt[NR] = $4 }
  END { for (i = 1; i <= n; i++) printf "| %s | %.2f | %.2fx | %.1f | %.3f | %.2fx | %d |\n", s[i], sf[i], sf[i] / sf[1], lf[i], gp[i], gp[i] / gp[1], rt[i] }'
echo
echo "reports: $OUT/*/report.md, figures: $OUT/*/plots/"
