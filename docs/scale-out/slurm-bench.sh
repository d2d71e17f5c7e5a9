#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# A c2tcp bench as a SLURM array job: array task K of N runs the jobs whose
# index is K-1 modulo N (`c2tcp bench --shard K/N`) into its own directory.
# When the array is done, one command joins the shards and writes the report:
#
#   c2tcp report "$OUT"/shard-* --out "$OUT/merged" --reference c2tcp --reference-label variant=jsac
#
# Submit:  OUT=/shared/c2tcp/table1 sbatch --array=1-8 docs/scale-out/slurm-bench.sh
# Each node needs Linux >= 6.x with BTF, the c2tcp binary (make install) with
# its scenarios and traces, and root for the runs (network namespaces, TUN,
# BPF): here through a sudoers rule for c2tcp, e.g.
#   %c2tcp ALL=(root) NOPASSWD: /usr/local/bin/c2tcp
# A shard that stops (time limit, node failure) is resumed by resubmitting
# the same array index: finished runs are kept.
#SBATCH --job-name=c2tcp-bench
#SBATCH --cpus-per-task=2
#SBATCH --time=08:00:00
#SBATCH --output=c2tcp-bench-%A_%a.out
set -euo pipefail
SCENARIO=${SCENARIO:-/usr/local/share/c2tcp/scenarios/c2tcp-variants.toml}
OUT=${OUT:?set OUT to a directory every node can write (one shard-K directory each)}
K=${SLURM_ARRAY_TASK_ID:?submit with sbatch --array=1-N}
N=${SLURM_ARRAY_TASK_COUNT:?submit with sbatch --array=1-N}
# One run per core the task was given; the bench's own report is skipped
# (a shard is a part of the matrix: the merged report is the one to read).
exec sudo -n c2tcp bench "$SCENARIO" --shard "$K/$N" --jobs "${SLURM_CPUS_PER_TASK:-1}" \
  --out "$OUT/shard-$K" --no-report "$@"
