# SPDX-License-Identifier: GPL-2.0-only
"""`c2tcp-ray bench [c2tcp bench args] --address ray://HEAD:10001 --out DIR`.

1. Lists the bench's jobs with `c2tcp bench ARGS --out DIR --list` (on this
   machine: it needs the scenario and the traces, whose checksums go into
   every job).
2. Skips the runs DIR already holds as done (resuming, as `c2tcp bench`
   does), and submits one Ray task per remaining job, each needing one unit
   of the custom resource `c2tcp`, so a node runs at most as many as it
   offers.
3. Writes each run's files into DIR/runs/... as its task finishes, with a
   progress bar; a task that raised (its worker or node died and Ray gave
   up, the binary was missing) becomes that run's `failed` run.json with
   the error, never a lost run.
4. Ends with the bench's report (`c2tcp bench ARGS --out DIR --report-only`,
   so the reference comes from the flags or the scenario's [bench] table).

Ray does the scheduling, placement, retries of tasks whose node died and
the transport; nothing here queues, retries or talks to workers itself.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys

from . import benchdir

EPILOG = """Every argument not listed above goes to `c2tcp bench` (scenario, --schemes, --traces,
--reps, --duration, --seed, --reference, ...). The cluster's nodes each need root, the c2tcp binary
(--worker-c2tcp, default: the same as --c2tcp) and the traces the jobs name (same path,
or the same file under $C2TCP_TRACES; checked by SHA-256). Rerun the same command to
resume: finished runs are kept.

Example:
  c2tcp-ray bench scenarios/c2tcp-default.toml --schemes cubic,bbr,c2tcp --traces all \\
      --address ray://head:10001 --out bench-out
"""


def parse(argv):
    p = argparse.ArgumentParser(
        prog="c2tcp-ray",
        description="Run a c2tcp bench on a Ray cluster, one Ray task per run.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("command", choices=["bench"], help="what to run (only `bench` for now)")
    p.add_argument("--out", required=True, metavar="DIR", help="bench directory (as c2tcp bench --out)")
    p.add_argument("--address", default=None,
                   help="Ray cluster: ray://HEAD:10001, HOST:6379 or auto "
                        "(default: a local Ray with --local-slots units of c2tcp)")
    p.add_argument("--local-slots", type=int, default=os.cpu_count() or 1, metavar="N",
                   help="runs at a time on a local Ray started without --address [default: cores]")
    p.add_argument("--c2tcp", default=os.environ.get("C2TCP_BIN") or shutil.which("c2tcp") or "c2tcp",
                   metavar="PATH", help="the c2tcp binary on this machine [default: $C2TCP_BIN, or c2tcp on PATH]")
    p.add_argument("--worker-c2tcp", default=None, metavar="PATH",
                   help="the c2tcp binary on the workers [default: --c2tcp]")
    p.add_argument("--keep-logs", action="store_true",
                   help="ship the raw packet logs (downlink.log, uplink.log) back too")
    p.add_argument("--no-report", action="store_true", help="skip the report at the end")
    args, bench_args = p.parse_known_args(argv)
    for a in bench_args:
        if a in ("--list", "--shard", "--report-only") or a.startswith("--shard="):
            p.error("%s: the driver lists and places the jobs itself" % a)
    return args, bench_args


def list_jobs(args, bench_args):
    cmd = [args.c2tcp, "bench", *bench_args, "--out", args.out, "--list"]
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if proc.returncode != 0:
        sys.exit("c2tcp-ray: %s failed:\n%s" % (" ".join(cmd), proc.stderr.decode().strip()))
    lines = [l for l in proc.stdout.decode().splitlines() if l.strip()]
    return [(l, json.loads(l)) for l in lines]


def outcome_files(job, result):
    """The files to write for a finished task: the run's own, or a failed
    run.json when the run left none."""
    files = dict(result["files"])
    if result["stderr"]:
        files["stderr.log"] = result["stderr"].encode()
    if benchdir.RUN_JSON not in files:
        err = "the run on %s left no run.json (exit status %s): %s" % (
            result["node"], result["returncode"], result["stderr"].strip()[-2000:])
        files[benchdir.RUN_JSON] = benchdir.failed_run_json(job, err)
    return files


def status_in(files):
    try:
        return json.loads(files[benchdir.RUN_JSON]).get("status")
    except (KeyError, ValueError):
        return None


def main(argv=None):
    args, bench_args = parse(sys.argv[1:] if argv is None else argv)
    import ray
    from tqdm import tqdm

    from . import worker

    try:
        owner = benchdir.claim(args.out)
    except benchdir.Busy as e:
        sys.exit("c2tcp-ray bench: %s" % e)
    jobs = list_jobs(args, bench_args)
    todo = [(line, job) for line, job in jobs
            if benchdir.status_of(os.path.join(args.out, job["run"])) != "done"]
    print("c2tcp-ray bench: %d runs (%d already done) into %s"
          % (len(jobs), len(jobs) - len(todo), args.out), file=sys.stderr)

    failed = []
    if todo:
        if args.address:
            ray.init(address=args.address, log_to_driver=False)
        else:
            ray.init(resources={"c2tcp": args.local_slots}, log_to_driver=False)
        # Workers need only Ray and the c2tcp binary, not this package.
        import ray.cloudpickle
        ray.cloudpickle.register_pickle_by_value(worker)
        exe = args.worker_c2tcp or args.c2tcp
        task = worker.run_job.options(num_cpus=0, resources={"c2tcp": 1})
        pending = {task.remote(line, exe, args.keep_logs): job for line, job in todo}
        bar = tqdm(total=len(jobs), initial=len(jobs) - len(todo), unit="run",
                   desc="c2tcp-ray", file=sys.stderr)
        while pending:
            ready, _ = ray.wait(list(pending), num_returns=1)
            for ref in ready:
                job = pending.pop(ref)
                try:
                    files = outcome_files(job, ray.get(ref))
                except Exception as e:  # the task raised: Ray gave up on it
                    files = {benchdir.RUN_JSON: benchdir.failed_run_json(job, "%s: %s" % (type(e).__name__, e))}
                run_dir = os.path.join(args.out, job["run"])
                benchdir.write_run(run_dir, files)
                status = status_in(files)
                if status != "done":
                    err = json.loads(files[benchdir.RUN_JSON]).get("error") or status
                    failed.append((job, err))
                    bar.write("c2tcp-ray bench: %s: %s: %s" % (status, job["run"], err))
                bar.update(1)
        bar.close()
    for job, err in failed:
        print("c2tcp-ray bench: failed: %s: %s" % (job["run"], err), file=sys.stderr)
    if not args.no_report:
        # The bench's own report step: its reference from the flags or the
        # scenario's [bench] table.
        cmd = [args.c2tcp, "bench", *bench_args, "--out", args.out, "--report-only"]
        if subprocess.run(cmd).returncode != 0:
            sys.exit("c2tcp-ray bench: the report failed")
    owner.close()
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
