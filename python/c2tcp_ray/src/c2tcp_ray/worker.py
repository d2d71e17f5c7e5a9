# SPDX-License-Identifier: GPL-2.0-only
"""One run on a Ray worker: `c2tcp run --job -` into a private temporary
directory, whose result files go back to the driver as bytes.

Raw packet logs (`*.log`, the bulk of a run) stay behind unless asked for;
the metrics, `run.json`, `setup.json`, `flows.json` and the CSVs are what
the report reads. The run needs root on the worker (namespaces, TUN, BPF),
the `c2tcp` binary, and the traces the job names (checked by SHA-256 by
`c2tcp run` itself).
"""
import os
import subprocess
import tempfile

import ray


def collect(run_dir, keep_logs):
    """{relative path: bytes} of the result files under run_dir."""
    files = {}
    for root, _dirs, names in os.walk(run_dir):
        for name in names:
            if name == ".lock" or name.endswith(".tmp"):
                continue
            if name.endswith(".log") and not keep_logs:
                continue
            path = os.path.join(root, name)
            with open(path, "rb") as f:
                files[os.path.relpath(path, run_dir)] = f.read()
    return files


@ray.remote
def run_job(job_line, c2tcp, keep_logs):
    """Runs one listed job; returns its exit status, the tail of its stderr,
    its result files and the node it ran on."""
    import socket

    with tempfile.TemporaryDirectory(prefix="c2tcp-ray-") as tmp:
        out = os.path.join(tmp, "run")
        proc = subprocess.run(
            [c2tcp, "run", "--job", "-", "--quiet", "--out", out],
            input=job_line.encode(),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        files = collect(out, keep_logs) if os.path.isdir(out) else {}
    return {
        "returncode": proc.returncode,
        "stderr": proc.stderr.decode(errors="replace")[-8000:],
        "files": files,
        "node": socket.gethostname(),
    }
