#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Adds the UCC 5G dataset's download runs (uccmisl/5Gdataset, Raca et al.,
# MMSys 2020) to traces/5g/ (ucc-*.down.gz) with their MANIFEST.tsv rows, from the
# dataset's own zip, checked by its SHA-256:
#
#   scripts/import-ucc-5g.sh 5G-production-dataset.zip [TRACES_DIR]
#
# Each of the 21 runs under Download/{Static,Driving}/ becomes one downlink
# trace, `c2tcp trace import` of its DL_bitrate (rows in State D, the app
# downloading), the WINDOW_S seconds after its first START_S (defaults 120
# and 30: the start-up is skipped, and a whole run, up to 110 min at
# 75 Mbit/s, would be hundreds of MB), evenly spaced, gzip -9 -n. Run again,
# it replaces its own rows and files (the result is the same bytes).
# TRACES_DIR defaults to the repository's traces/; `make test` (the manifest
# test) checks the rows against the files. Needs a built target/release/c2tcp
# (or BIN), unzip, gzip, git and python3.
#
# BRIDGE_RESTARTS=1 makes the same traces with the recorder's download
# restarts cut out (`c2tcp trace import --bridge-restarts`, docs/5g.md): the
# same window of each run, then its restarts bridged, as
# 5g/ucc-*-bridged.down.gz. Derived data: into a folder of your own (it needs
# a MANIFEST.tsv, the header line is enough), never the repository's traces/.
set -euo pipefail
ZIP_SHA256=abc729d696b5e0ba34a9c6ed35a851f2868d2b5071be5efb8a49691c23bb1a9b
SOURCE_REPO=uccmisl/5Gdataset
SOURCE_COMMIT=306d92eba81cb4f1195d8b8eba625666a02a10ec
START_S=${START_S:-30}
WINDOW_S=${WINDOW_S:-120}
BRIDGE_RESTARTS=${BRIDGE_RESTARTS:-}
cd "$(dirname "$0")/.."
BIN=${BIN:-target/release/c2tcp}

zip=${1:?usage: scripts/import-ucc-5g.sh 5G-production-dataset.zip [TRACES_DIR]}
traces=${2:-traces}
got=$(sha256sum "$zip" | cut -d' ' -f1)
if [ "$got" != "$ZIP_SHA256" ]; then
  echo "import-ucc-5g: $zip has SHA-256 $got, not the dataset's $ZIP_SHA256" \
    "($SOURCE_REPO, 5G-production-dataset.zip at commit $SOURCE_COMMIT)" >&2
  exit 1
fi

[ -x "$BIN" ] || { echo "import-ucc-5g: no $BIN: build it first (make build)" >&2; exit 1; }
[ -f "$traces/MANIFEST.tsv" ] || { echo "import-ucc-5g: $traces/MANIFEST.tsv not found" >&2; exit 1; }
bridge=() suffix="" how="even spacing"
if [ -n "$BRIDGE_RESTARTS" ]; then
  if [ "$(realpath "$traces")" = "$(realpath traces)" ]; then
    echo "import-ucc-5g: BRIDGE_RESTARTS makes derived traces: give a folder of your own, not the repository's traces/" >&2
    exit 1
  fi
  bridge=(--bridge-restarts) suffix="-bridged" how="even spacing, the download's restarts bridged (--bridge-restarts)"
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
unzip -q "$zip" '5G-production-dataset/Download/*.csv' -d "$work"
mkdir -p "$traces/5g"
rows="$work/rows.tsv"
: > "$rows"
for csv in "$work"/5G-production-dataset/Download/{Static,Driving}/*.csv; do
  kind=$(basename "$(dirname "$csv")" | tr '[:upper:]' '[:lower:]')
  run=$(basename "$csv" .csv)          # B_2020.02.14_13.21.26: operator B, its start
  name="5g/ucc-$kind-${run#B_}$suffix.down.gz"
  plain="$work/trace"
  report=$("$BIN" trace import "$csv" --start "$START_S" --end $((START_S + WINDOW_S)) "${bridge[@]}" -o "$plain" 2>&1) \
    || { echo "$report" >&2; exit 1; }
  modes=$(sed -n 's/.*rows by NetworkMode: //p' <<<"$report" | head -1)
  gzip -9 -n -c "$plain" > "$traces/$name"
  python3 - "$plain" "$name" "$kind" "$run" "$modes" "$SOURCE_REPO" "$SOURCE_COMMIT" \
    "$START_S" "$WINDOW_S" "$how" "$("$BIN" trace stats --json "$plain")" \
    "$(git hash-object "$plain")" >> "$rows" <<'EOF'
import json, sys
plain, name, kind, run, modes, repo, commit, start, window, how, stats, blob = sys.argv[1:]
s = json.loads(stats)[0]["stats"]
text = open(plain, "rb").read()
mobility = "static" if kind == "static" else "driving"
capture = (f"{mobility}, Cork (Ireland), operator B, run started {run[2:]}; G-NetTrack Pro's 1-s DL_bitrate "
           f"during a file download (State D rows), seconds {start}-{int(start) + int(window)} of the run, "
           f"c2tcp trace import, {how}; rows by NetworkMode over the whole run: {modes}")
print("\t".join([name, "Irish operator B (anonymised in the source)", "5G (G-NetTrack NetworkMode 5G) with LTE/HSPA+ fallback",
                 "downlink", capture, repo, f"5G-production-dataset.zip:5G-production-dataset/Download/"
                 f"{kind.capitalize()}/{run}.csv", commit,
                 "GPL-3.0 (the source repository's LICENSE)", str(text.count(b"\n")), str(len(text)),
                 f"{s['duration_ms'] / 1000:.3f}", f"{s['mean_mbps']:.3f}", blob]))
EOF
  bridged=$(grep -o 'bridged .* after' <<<"$report" || true)
  echo "import-ucc-5g: $name: $(tail -1 "$rows" | cut -f12,13 | tr '\t' ' ') (s, Mbit/s)${bridged:+; $bridged}"
done
# Replace this script's earlier rows of the same files, keep every other row
# in its order.
awk -F'\t' 'NR == FNR { made[$1]; next } !($1 in made)' "$rows" "$traces/MANIFEST.tsv" > "$work/manifest"
sort "$rows" >> "$work/manifest"
cp "$work/manifest" "$traces/MANIFEST.tsv"
echo "import-ucc-5g: $(wc -l < "$rows") traces in $traces/5g, rows in $traces/MANIFEST.tsv"
