# SPDX-License-Identifier: GPL-2.0-only
"""The bench directory on the driver's side, as `c2tcp bench` keeps it.

One owner at a time: an flock on `DIR/.lock`, the same lock `c2tcp bench`
and `c2tcp report` take, naming its holder the same way. A run's files are
written whole (temporary name, then rename) and `run.json` last, so a run
is done only once every file is in place; a driver killed mid-write leaves
a run that reads as unfinished and is redone on resume.
"""
import fcntl
import json
import os
import shutil
import socket
import tempfile
import time

LOCK = ".lock"
RUN_JSON = "run.json"


class Busy(Exception):
    """Another process owns the bench directory."""


def claim(bench_dir, command="c2tcp-ray bench"):
    """Takes the bench directory for this process's life (the returned file
    must stay open). Raises Busy naming the holder."""
    os.makedirs(bench_dir, exist_ok=True)
    path = os.path.join(bench_dir, LOCK)
    f = open(path, "a+")
    try:
        fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        f.seek(0)
        fields = dict(l.split("=", 1) for l in f.read().splitlines() if "=" in l)
        f.close()
        who = "pid %s (%s, started %s)" % (
            fields.get("pid", "?"),
            fields.get("command", "?"),
            fields.get("started", "?").rsplit(" ", 1)[-1],
        )
        raise Busy("%s is in use by %s; wait for it or choose another --out" % (bench_dir, who))
    f.seek(0)
    f.truncate()
    f.write(
        "pid=%d\ncommand=%s\nstarted=%s\n"
        % (os.getpid(), command, time.strftime("%Y-%m-%d %H:%M:%S"))
    )
    f.flush()
    return f


def status_of(run_dir):
    """What a run's run.json says (done, interrupted, failed), or None."""
    try:
        with open(os.path.join(run_dir, RUN_JSON)) as f:
            return json.load(f).get("status")
    except (OSError, ValueError):
        return None


def _write_whole(path, data):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix="." + os.path.basename(path) + ".", suffix=".tmp",
                               dir=os.path.dirname(path))
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def clear(run_dir):
    """Empties a run directory but for its lock."""
    if not os.path.isdir(run_dir):
        return
    for name in os.listdir(run_dir):
        if name == LOCK:
            continue
        p = os.path.join(run_dir, name)
        if os.path.isdir(p) and not os.path.islink(p):
            shutil.rmtree(p)
        else:
            os.unlink(p)


def write_run(run_dir, files):
    """Writes a run's files ({relative path: bytes}) into run_dir, cleared
    first, run.json last."""
    clear(run_dir)
    for rel in sorted(files, key=lambda r: r == RUN_JSON):
        if os.path.isabs(rel) or ".." in rel.split("/"):
            raise ValueError("a result file outside its run directory: %r" % rel)
        _write_whole(os.path.join(run_dir, rel), files[rel])


def failed_run_json(job, error):
    """run.json of a run that failed before or outside `c2tcp run` (its
    worker died, lacked the binary, ...), in the runner's format."""
    now = time.time()
    info = dict(job["id"])
    info.update(
        status="failed",
        label=job.get("label", ""),
        seed=job.get("seed"),
        timings={"started_unix_s": None, "finished_unix_s": now, "wall_s": None},
        error=error,
    )
    return (json.dumps(info, indent=2) + "\n").encode()


def hostname():
    return socket.gethostname()
