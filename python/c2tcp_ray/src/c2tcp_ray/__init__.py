# SPDX-License-Identifier: GPL-2.0-only
"""c2tcp-ray: a c2tcp bench on a Ray cluster (docs/scale-out.md).

Ray is the engine: it places one task per run on a node with a free unit of
the custom resource `c2tcp`, retries tasks whose node died, and carries the
results back. This package only lists the jobs (`c2tcp bench --list`), runs
one on a worker (`c2tcp run --job -`) and writes what came back into the
bench directory, in the layout `c2tcp bench` itself writes
(docs/results-layout.md).
"""
__version__ = "0.1.0"
