#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# CellReplay's model beside Mahimahi's on the same recording, as the
# CellReplay paper (NSDI 2025, §6) compares them: light workloads (short
# downloads of 1 KB, 100 KB and 1 MB, one at a time, Cubic) whose
# completion times differ between the models, and a bulk flow, which
# should not.
#
#   sudo scripts/cellreplay-compare.sh HEAVY [OUT]
#
# HEAVY is a Mahimahi trace (a saturated recording). No CellReplay recording
# of a real cell could be fetched here (the authors' traces zip is not in
# the store this project reads), so the light trace is SYNTHETIC (SEED,
# python3 below): a train every 50 ms of TRAIN packets arriving at
# LIGHT_MBPS (default 20), a base one-way delay of 10 ms plus a slow random
# walk of 0-10 ms. Mahimahi's model gets the same heavy trace and the
# light trace's smallest base delay as a fixed delay, as a Mahimahi user
# takes half the smallest RTT. So the output shows what the model does with
# such a recording, not how close either is to a real cell.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${BIN:-target/release/c2tcp}
heavy=${1:?usage: scripts/cellreplay-compare.sh HEAVY_TRACE [OUT]}
out=${2:-bench-out/cellreplay-compare}
TRAIN=${TRAIN:-20}
LIGHT_MBPS=${LIGHT_MBPS:-20}
SEED=${SEED:-1}
REPS=${REPS:-2}
mkdir -p "$out"
heavy=$(realpath "$heavy")
python3 - "$out/light" "$TRAIN" "$LIGHT_MBPS" "$SEED" <<'EOF'
import random, sys
path, train, mbps, seed = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), int(sys.argv[4])
rnd = random.Random(seed)
gap_ms = 1500 * 8 / (mbps * 1000)  # ms between the train's packets
extra = 5.0
with open(path, "w") as f:
    for t in range(0, 120_001, 50):
        extra = min(10.0, max(0.0, extra + rnd.gauss(0, 0.5)))
        offsets = " ".join(str(int(k * gap_ms)) for k in range(train))
        f.write(f"{t} {10 + round(extra)} {offsets}\n")
EOF
min_delay=$(awk 'NR == 1 || $2 < m { m = $2 } END { print m }' "$out/light")
flows() { # one flow of each size a second, three rounds, then a bulk flow
  local t=1
  for round in 1 2 3; do
    for size in 1000 100000 1000000; do
      printf '[[flows]]\nscheme = "cubic"\nstart_s = %s\nsize_bytes = %s\n\n' "$t" "$size"
      t=$((t + 2))
    done
  done
  printf '[[flows]]\nscheme = "cubic"\nstart_s = %s\n' "$t"
}
for model in mahimahi cellreplay; do
  if [ "$model" = cellreplay ]; then
    down="cellreplay:$out/light,$heavy"; delay=10
  else
    down="$heavy"; delay=$min_delay
  fi
  for rep in $(seq 1 "$REPS"); do
    sc="$out/$model.toml"
    {
      printf 'name = "cellreplay-compare-%s"\n\n[link]\ndownlink = "%s"\nuplink = "constant:48"\n' "$model" "$down"
      printf 'delay_ms = %s\nqueue = "droptail:packets=1000"\nduration_s = 30\nwarmup_s = 0\n\n' "$delay"
      flows
    } > "$sc"
    rm -rf "$out/$model-rep$rep"
    "$BIN" run "$sc" --out "$out/$model-rep$rep" --seed "$rep" > /dev/null
  done
done
python3 - "$out" "$REPS" <<'EOF'
import json, sys, statistics
out, reps = sys.argv[1], int(sys.argv[2])
rows = {}
for model in ("mahimahi", "cellreplay"):
    for rep in range(1, reps + 1):
        d = f"{out}/{model}-rep{rep}"
        for f in json.load(open(f"{d}/flows.json")):
            key = f["size_bytes"] or "bulk"
            val = f["fct_s"] * 1000 if f["size_bytes"] else None
            if key == "bulk":
                m = json.load(open(f"{d}/metrics.json"))
                val = [x for x in m["flows"] if x["label"] == f["label"]][0]["throughput_mbps"]
            rows.setdefault((key, model), []).append(val)
print("| workload | Mahimahi's model | CellReplay's model | ratio |")
print("| --- | --- | --- | --- |")
for key, unit in ((1000, "ms"), (100000, "ms"), (1000000, "ms"), ("bulk", "Mbit/s")):
    a, b = statistics.median(rows[(key, "mahimahi")]), statistics.median(rows[(key, "cellreplay")])
    name = f"{key} B download, median completion" if key != "bulk" else "bulk flow throughput"
    print(f"| {name} | {a:.1f} {unit} | {b:.1f} {unit} | {b / a:.2f} |")
EOF
