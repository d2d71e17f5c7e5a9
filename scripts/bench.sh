#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# `make bench`: the papers' trace-driven experiments (long; each part is a
# resumable `c2tcp bench`, so rerunning continues where it stopped).
#
#   table1        C2TCP Table I: the authors' set-up over every downlink trace,
#                 C2TCP as released (jsac, the default) and as printed (paper)
#   ablation      C2TCP: paper + each of the authors' five behaviours, jsac - each
#   full-length   Table I's headline schemes over each whole trace (hours)
#   orange        Table I's schemes over the Orange 4G traces in traces/orange
#   5g            Table I's schemes over 5G downlinks (traces/5g, the UCC dataset,
#                 brought by make traces), the authors' 100-packet
#                 buffer (5g) and a 1 000-packet one (5g-deep); C2TCP (jsac and
#                 paper) at Target 50 and 25 ms (docs/5g.md)
#   5g-bridged    the same over the same traces with the recorder's download
#                 restarts bridged (c2tcp trace import --bridge-restarts, made
#                 from the dataset's zip, UCC_ZIP, into $BENCH_OUT/5g-traces-bridged)
#   mobile-edge   C2TCP Fig. 17: 4 ms RTT, Target 10 ms, the trace scaled 3x
#                 (Sprout's rate model up to 100 Mbit/s: the scaled trace
#                 averages 50), three repetitions
#   target-sweep  C2TCP Fig. 20: Target 25-100 ms vs Cubic, Cubic+CoDel and
#                 Cubic+PIE, on every downlink trace
#   buffer-sweep  C2TCP Fig. 21: bottleneck buffer 75 KB - 1.5 MB
#   friendliness  C2TCP Fig. 18-19: a Cubic flow, then the scheme under test
#                 (C2TCP at Targets 50/80/100); NewReno vs C2TCP; two C2TCP
#                 flows; C2TCP vs Cubic in a 5x BDP buffer
#                 (friendliness{,-newreno,-c2tcp-pair,-deep})
#   sprout        Sprout NSDI'13 summary table: its eight schemes (webrtc-gcc for
#                 Skype) over 4 networks x both directions (20 ms each way,
#                 unlimited queue), then scripts/sprout-table.py beside the paper's
#   sprout-confidence  Sprout Fig. 9: confidence 5-75 % beside Sprout-EWMA on the
#                 T-Mobile UMTS uplink, the authors' sender, three repetitions
#   sprout-loss   Sprout 5.6: Verizon LTE both ways with 0, 5 and 10 % loss each
#                 way, the authors' sender, three repetitions
#   competing     Sprout 5.7, Direct: Cubic bulk + a two-way webrtc-gcc call, Verizon LTE
#   competing-tunnel  Sprout 5.7, via Sprout: the same through SproutTunnel, then
#                 scripts/sprout-competing.py (both columns beside the paper's)
#   natcp         NATCP/NACubic over NetAssist (replayed and live), the MEC
#                 set-up, 60 s runs; with the replayed feedback NATCP runs again
#                 with eq. 1 alone (headroom=0) and with the assumed delay cap
#                 (maxdelay=1), as in natcp-fairness and natcp-table2
#   natcp-fairness NATCP Fig. 5: two flows to one UE over TMobile-LTE-driving,
#                 NATCP/NACubic beside Cubic+CoDel, TG, ABC, C2TCP, BBR and Cubic
#   natcp-table2  NATCP Table 2: NATCP and the schemes it is compared with over
#                 four whole traces (about an hour), then scripts/natcp-table2.py
#                 beside the paper's column; NATCP_SCHEMES overrides the list,
#                 NATCP_TRACES the traces (all: the seven, hours more)
#   dfcsd         DFCSD/DRWA/RTAC short-vs-long and its variants (scripts/bench-dfcsd.sh)
#   capture       `c2tcp trace capture` through the emulator vs the replayed trace
#                 (scripts/bench-capture.sh; CAPTURE_TRACES=all for every trace)
#   ecn           Table I's set-up: Cubic over CoDel with/without ECN, over fq_codel, and ABC
#   l4s           L4S beside C2TCP (docs/l4s.md): TCP Prague over DualPI2 and over a cell's
#                 L4S ramp, C2TCP's Target swept 25-75 ms, Cubic+CoDel, BBR and Cubic over
#                 every downlink trace (l4s); one Prague and one Cubic flow in a DualPI2 cell
#                 beside one C2TCP and one Cubic flow in a droptail cell, on a fixed 24 Mbit/s
#                 link and over every trace (l4s-coexist-{dualpi2,droptail}[-traces]); then
#                 scripts/l4s-table.py (the three experiments' tables)
#   cost          C2TCP's ns per ACK beside the kernel's Cubic (timed the same way) and
#                 CPU per GB of both over veth, 1 and 1 000 connections, 3 repetitions
#                 (scripts/bench-cost.sh)
#   soak          scripts/soak.py: a 30-minute bench under random SIGKILLs of its runs
#                 and of itself, a full disk for a while, a report beside it; then
#                 every run must be done (metrics.json as first written) or failed
#                 with a reason, nothing stale, nothing left behind (SOAK_MINUTES)
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
PARTS=${BENCH_PARTS:-"table1 ablation full-length orange 5g 5g-bridged mobile-edge target-sweep buffer-sweep friendliness sprout sprout-confidence sprout-loss competing competing-tunnel natcp natcp-fairness natcp-table2 dfcsd capture ecn l4s cost soak"}
TRACES=${C2TCP_TRACES:-traces}

[ "$(id -u)" = 0 ] || { echo "make bench needs root (BPF, network namespaces, TUN): run it with sudo" >&2; exit 1; }
[ -d "$TRACES/mahimahi" ] || { echo "make bench needs the traces in $TRACES/mahimahi: run make traces (or set C2TCP_TRACES)" >&2; exit 1; }
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
# Table I's schemes over the Orange 4G traces that traces/orange holds (two
# uplinks, 2.4 and 6.8 Mbit/s mean, used as the bottleneck; the 40-220 Mbit/s
# downlinks are not in this repository: traces/README.md), gzip read directly.
bench orange c2tcp-variants \
  --traces "$TRACES/orange/orange-4G-traces-A-up.pps.gz,$TRACES/orange/orange-4G-traces-highway-up.pps.gz"
# Table I's schemes over 5G (docs/5g.md), the UCC dataset's traces (make
# traces brings them: traces/README.md, "5G"). Sprout's rate model tops out
# at 30 Mbit/s by default; 100 is the most it takes.
# C2TCP's printed variant too (`paper`, at both Targets: the scenarios sweep
# the Target), into the same directories.
if part 5g; then
  [ -d "$TRACES/5g" ] || { echo "make bench: part 5g needs the 5G traces in $TRACES/5g: run make traces" >&2; exit 1; }
  for s in 5g 5g-deep; do
    run_bench "$s" "$s" --set max_rate_mbps=100
    run_bench "$s" "$s" --schemes c2tcp --set variant=paper
  done
fi
# The same with the recording's artefact removed: each run's download
# restarts (1-3 s near zero and a ramp every 13-16 s) bridged, from the same
# window of the same runs (docs/5g.md, "The recording's restarts"). Derived
# traces: made here into the bench output, never into traces/.
if part 5g-bridged; then
  # UCC_ZIP: the Makefile's default is the copy beside the checkout.
  [ -n "${UCC_ZIP:-}" ] && [ -f "$UCC_ZIP" ] || { echo "make bench: part 5g-bridged makes its traces from the UCC dataset's zip (SHA-256 in traces/README.md), not found${UCC_ZIP:+ at $UCC_ZIP}: set UCC_ZIP" >&2; exit 1; }
  BRIDGED="$OUT/5g-traces-bridged"
  mkdir -p "$BRIDGED"
  head -1 "$TRACES/MANIFEST.tsv" > "$BRIDGED/MANIFEST.tsv"
  BIN=$BIN BRIDGE_RESTARTS=1 ./scripts/import-ucc-5g.sh "$UCC_ZIP" "$BRIDGED"
  for s in 5g 5g-deep; do
    # The scenario's four traces, bridged.
    list=$(sed -n 's|^ *"5g/\(ucc-[^"]*\)\.down\.gz",*$|'"$BRIDGED"'/5g/\1-bridged.down.gz|p' "scenarios/$s.toml" | paste -sd,)
    run_bench "$s-bridged" "$s" --traces "$list" --set max_rate_mbps=100
    run_bench "$s-bridged" "$s" --traces "$list" --schemes c2tcp --set variant=paper
  done
fi
# Fig. 17 on the trace scaled 3x, as the paper's (c2tcp trace scale).
if part mobile-edge; then
  mkdir -p "$OUT/mobile-edge-traces"
  EDGE_TRACE="$OUT/mobile-edge-traces/TMobile-LTE-short-x3.down"
  $BIN trace scale "$TRACES/mahimahi/TMobile-LTE-short.down" --factor 3 -o "$EDGE_TRACE"
  bench mobile-edge mobile-edge --traces "$EDGE_TRACE" --set max_rate_mbps=100 --reps 3
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
if part sprout; then
  ./scripts/sprout-table.py "$OUT/sprout" | tee "$OUT/sprout/sprout-table.md"
fi
# Fig. 9 and 5.6 with the authors' sender, which the claims read.
bench sprout-confidence sprout-confidence --set sender=authors
bench sprout-loss sprout-loss --set sender=authors
bench competing sprout-competing
bench competing-tunnel sprout-competing-tunnel
if part competing && part competing-tunnel; then
  ./scripts/sprout-competing.py "$OUT/competing" "$OUT/competing-tunnel" | tee "$OUT/competing-tunnel/5.7.md"
fi
# NetAssist both ways (docs/netassist.md): the authors' replayed oracle, which
# the claims read, then live feedback; the second pass runs only the
# NetAssisted schemes (the others' runs are the same runs, already done).
for fb in replay live; do
  bench natcp natcp-mec --set feedback=$fb
  bench natcp-fairness natcp-fairness --set feedback=$fb
  bench natcp-table2 natcp-table2 ${NATCP_SCHEMES:+--schemes "$NATCP_SCHEMES"} \
    ${NATCP_TRACES:+--traces "$NATCP_TRACES"} --set feedback=$fb
done
# NATCP's window as the claims read it (eq. 1 with BBR's headroom, the
# default) beside eq. 1 alone and beside the delay cap we assume of the
# authors' BBR (docs/netassist.md), replayed feedback.
for variant in headroom=0 maxdelay=1; do
  bench natcp natcp-mec --schemes natcp --set feedback=replay --set $variant
  bench natcp-fairness natcp-fairness --schemes natcp --set feedback=replay --set $variant
  bench natcp-table2 natcp-table2 --schemes natcp ${NATCP_TRACES:+--traces "$NATCP_TRACES"} \
    --set feedback=replay --set $variant
done
if part natcp-table2; then
  ./scripts/natcp-table2.py "$OUT/natcp-table2" | tee "$OUT/natcp-table2/table2.md"
fi
bench ecn ecn-aqm
bench l4s l4s
if part l4s; then
  # Issue 41's two answers the claims read in the same part: Prague over the
  # cell-aware marker, and over DualPI2 with the step's queue guard.
  run_bench l4s l4s --schemes prague-l4s-cell
  run_bench l4s l4s --schemes prague-dualpi2 --set dualpi2_min_qlen_step=1
  for cell in dualpi2 droptail; do
    run_bench "l4s-coexist-$cell" "l4s-coexist-$cell"
    run_bench "l4s-coexist-$cell-traces" "l4s-coexist-$cell" --traces all
  done
  ./scripts/l4s-table.py "$OUT" | tee "$OUT/l4s/l4s-table.md"
fi
if part dfcsd; then
  echo "== dfcsd (receiver-side short-vs-long and variants)"
  DFCSD_OUT="$OUT/dfcsd" JOBS="$JOBS" BIN="$BIN" ./scripts/bench-dfcsd.sh
fi
if part capture; then
  echo "== capture (Saturator fidelity through the emulator)"
  CAPTURE_OUT="$OUT/capture" BIN="$BIN" C2TCP_TRACES="$TRACES" ./scripts/bench-capture.sh
fi
if part cost; then
  echo "== cost (C2TCP beside the kernel's Cubic: ns per ACK, CPU per GB)"
  COST_OUT="$OUT/cost" BIN="$BIN" ./scripts/bench-cost.sh
fi
if part soak; then
  echo "== soak (scripts/soak.py, ${SOAK_MINUTES:-30} min)"
  # A failed soak fails `make bench`, after the claims below are written.
  ./scripts/soak.py --minutes "${SOAK_MINUTES:-30}" --bin "$BIN" --out "$OUT/soak" | tee "$OUT/soak.md" || SOAK_FAILED=1
fi
echo "reports: $(ls -d "$OUT"/*/report.md 2>/dev/null | tr '\n' ' ')"
# Every paper's claims against what the parts hold (a part not run: "not run").
$BIN claims "$OUT"
[ -z "${SOAK_FAILED:-}" ] || { echo "soak: FAILED (see $OUT/soak.md)" >&2; exit 1; }
