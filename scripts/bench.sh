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
#
# BENCH_OUT (default bench-out) holds one directory per part with its report;
# BENCH_JOBS (default 2) runs at a time; BENCH_PARTS selects parts.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${BIN:-target/release/c2tcp}
OUT=${BENCH_OUT:-bench-out}
JOBS=${BENCH_JOBS:-2}
PARTS=${BENCH_PARTS:-"table1 ablation full-length target-sweep buffer-sweep friendliness sprout natcp dfcsd"}
TRACES=${C2TCP_TRACES:-traces}

[ "$(id -u)" = 0 ] || { echo "make bench needs root (BPF, network namespaces, TUN): run it with sudo" >&2; exit 1; }
[ -d "$TRACES/mahimahi" ] || { echo "make bench needs the traces in $TRACES/mahimahi (set C2TCP_TRACES)" >&2; exit 1; }
mkdir -p "$OUT"

part() { case " $PARTS " in *" $1 "*) return 0 ;; *) return 1 ;; esac; }

if part table1; then
  echo "== table1: the authors' set-up over every downlink trace, C2TCP jsac and paper"
  $BIN bench scenarios/c2tcp-variants.toml \
    --schemes "${TABLE1_SCHEMES:-cubic,bbr,cubic-codel,westwood,vegas,vivace,sprout,sprout-ewma,verus,c2tcp}" \
    --traces all --reference c2tcp --reference-label variant=jsac --jobs "$JOBS" --out "$OUT/table1"
fi
if part ablation; then
  echo "== ablation: C2TCP paper + each behaviour, jsac - each behaviour, vs Cubic"
  $BIN bench scenarios/c2tcp-ablation.toml --schemes cubic,c2tcp --traces all \
    --reference cubic --jobs "$JOBS" --out "$OUT/ablation"
  ./scripts/c2tcp-ablation.py "$OUT/ablation" > "$OUT/ablation/ablation.md"
  cat "$OUT/ablation/ablation.md"
fi
if part full-length; then
  echo "== full-length: whole traces (the authors ran TMobile-LTE-driving for 480 s)"
  $BIN bench scenarios/c2tcp-variants.toml --schemes cubic,bbr,cubic-codel,c2tcp \
    --traces "${FULL_LENGTH_TRACES:-all}" --duration trace \
    --reference c2tcp --reference-label variant=jsac --jobs "$JOBS" --out "$OUT/full-length"
fi
if part target-sweep; then
  echo "== target-sweep (C2TCP Fig. 20)"
  $BIN bench scenarios/target-sweep.toml --schemes c2tcp,cubic,cubic-codel \
    --reference-label target_ms=50 --jobs "$JOBS" --out "$OUT/target-sweep"
fi
if part buffer-sweep; then
  echo "== buffer-sweep (C2TCP Fig. 21)"
  $BIN bench scenarios/buffer-sweep.toml --schemes c2tcp,cubic \
    --reference-label buffer_bytes=150000 --jobs "$JOBS" --out "$OUT/buffer-sweep"
fi
if part friendliness; then
  echo "== friendliness (C2TCP Fig. 18)"
  $BIN bench scenarios/tcp-friendliness.toml --schemes cubic,bbr,westwood,c2tcp \
    --reference cubic --jobs "$JOBS" --out "$OUT/friendliness"
fi
if part sprout; then
  echo "== sprout (Sprout NSDI'13 set-up)"
  $BIN bench scenarios/sprout-paper.toml --schemes cubic,sprout,sprout-ewma \
    --traces all --reference cubic --jobs "$JOBS" --out "$OUT/sprout"
fi
if part natcp; then
  echo "== natcp (NATCP MEC set-up, live NetAssist)"
  $BIN bench scenarios/natcp-mec.toml --schemes natcp,nacubic,c2tcp,cubic \
    --traces all --reference c2tcp --reps 3 --jobs "$JOBS" --out "$OUT/natcp"
fi
if part dfcsd; then
  echo "== dfcsd (receiver-side short-vs-long and variants)"
  DFCSD_OUT="$OUT/dfcsd" JOBS="$JOBS" BIN="$BIN" ./scripts/bench-dfcsd.sh
fi
echo "reports: $(ls -d "$OUT"/*/report.md 2>/dev/null | tr '\n' ' ')"
