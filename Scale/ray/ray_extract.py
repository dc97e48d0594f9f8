#!/usr/bin/env python3
"""Runs `landmarker extract` over a dataset on a Ray cluster.

One Ray task per manifest entry (or, with --tasks N, per shard of N), each running the
installed `landmarker extract TASK --manifest M --out DIR --shard I/N --threads T` as a child
process and reserving T CPUs (`num_cpus`). Every node must see the landmarker binary, the
manifest, the videos and the output folder at the same paths (a shared filesystem).

What the tool guarantees carries over: each output is written under a temporary name and
renamed when whole, so a task that dies leaves no half-written output; a rerun of a shard
skips what is done. A task whose worker process is lost (killed, out of memory, node gone) is
retried by Ray (--retries); the child process is killed with its worker, and the retry removes
the dead run's temporary files. Outputs are byte-identical to one `landmarker extract` over the
whole manifest, whatever the split.

The last line on standard error sums the tasks' summaries: done / skipped / failed entries
(skipped: finished earlier, including by a lost attempt of the same task). Exit status: 0 when
every entry is done or skipped, 1 when an entry failed or a task was lost after its retries,
2 for a usage error, no cluster at the address, or a landmarker that cannot start (wrong
options, models not found).

Usage:
  ray_extract.py pose|hand|face|holistic --manifest LIST --out DIR [--address ADDR] [--landmarker PATH]
                 [--threads T] [--tasks N] [--retries R] [-- LANDMARKER OPTIONS...]
"""

import argparse
import ctypes
import functools
import os
import re
import shutil
import signal
import subprocess
import sys

import ray

SUMMARY = re.compile(r"extract: shard (\d+)/(\d+): (\d+) done, (\d+) skipped, (\d+) failed")


class LandmarkerKilled(Exception):
    """The landmarker child process ended by a signal while its worker lived: retried by Ray."""


def manifest_entries(path):
    """The manifest's entries as `landmarker extract` numbers them: one per line, empty lines
    and lines starting with '#' skipped (spaces and tabs around a line ignored)."""
    with open(path, encoding="utf-8") as manifest:
        lines = (line.rstrip("\n").strip(" \t") for line in manifest)
        return [line for line in lines if line and not line.startswith("#")]


def die_with_parent(parent_pid):
    """In the child, before exec: ask the kernel to SIGKILL this process when the worker that
    started it dies (PR_SET_PDEATHSIG), so a lost worker leaves no landmarker running."""
    pr_set_pdeathsig = 1
    ctypes.CDLL(None, use_errno=True).prctl(pr_set_pdeathsig, signal.SIGKILL)
    if os.getppid() != parent_pid:  # the worker died before prctl took effect
        os._exit(1)


@ray.remote(max_retries=3, retry_exceptions=[LandmarkerKilled])
def extract_shard(landmarker, task, manifest, out, shard, shards, threads, extra, label):
    """Runs shard `shard`/`shards` of the manifest; returns its summary counts and failures."""
    print(f"task {label}: started in worker pid {os.getpid()}", flush=True)
    command = [landmarker, "extract", task, "--manifest", manifest, "--out", out,
               "--shard", f"{shard}/{shards}", "--threads", str(threads), "--quiet", *extra]
    child = subprocess.run(command, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True,
                           preexec_fn=functools.partial(die_with_parent, os.getpid()))
    if child.returncode < 0:
        raise LandmarkerKilled(f"task {label}: landmarker ended by signal {-child.returncode}")
    lines = child.stderr.splitlines()
    summary = SUMMARY.search(lines[-1]) if lines else None
    return {
        "label": label,
        "status": child.returncode,
        "counts": tuple(int(summary.group(k)) for k in (3, 4, 5)) if summary else None,
        "failures": [line for line in lines if "FAILED" in line],
        "message": "\n".join(lines[-5:]),
    }


def parse_arguments(argv):
    if "--" in argv:
        split = argv.index("--")
        argv, extra = argv[:split], argv[split + 1:]
    else:
        extra = []
    parser = argparse.ArgumentParser(
        description="Runs `landmarker extract` over a manifest on a Ray cluster, one task per "
                    "entry or shard. Options after -- go to landmarker extract.")
    parser.add_argument("task", choices=["pose", "hand", "face", "holistic"])
    parser.add_argument("--manifest", required=True, help="one video or folder of frames per line")
    parser.add_argument("--out", required=True, help="the folder for <name>.ndjson and <name>.error.json")
    parser.add_argument("--address", default=os.environ.get("RAY_ADDRESS", "auto"),
                        help="the Ray cluster (default: $RAY_ADDRESS, else the running local one)")
    parser.add_argument("--landmarker", default=shutil.which("landmarker"),
                        help="the installed landmarker binary (default: the one on PATH)")
    parser.add_argument("--threads", type=int, default=1, help="threads (and Ray CPUs) per task")
    parser.add_argument("--tasks", type=int, help="split into N shards (default: one task per entry)")
    parser.add_argument("--retries", type=int, default=3, help="retries of a task whose worker is lost")
    arguments = parser.parse_args(argv)
    arguments.extra = extra
    if not arguments.landmarker or not os.access(arguments.landmarker, os.X_OK):
        parser.error("no landmarker binary: give --landmarker PATH or put it on PATH")
    if arguments.threads < 1 or (arguments.tasks is not None and arguments.tasks < 1) or arguments.retries < 0:
        parser.error("--threads and --tasks must be at least 1, --retries at least 0")
    return arguments


def main(argv):
    arguments = parse_arguments(argv)
    landmarker = os.path.abspath(arguments.landmarker)
    manifest = os.path.abspath(arguments.manifest)
    out = os.path.abspath(arguments.out)
    try:
        entries = manifest_entries(manifest)
    except (OSError, UnicodeDecodeError) as error:
        print(f"ray_extract: {manifest}: cannot read the manifest: {error}", file=sys.stderr)
        return 2
    if not entries:
        print(f"ray_extract: {manifest}: the manifest lists no video", file=sys.stderr)
        return 2
    os.makedirs(out, exist_ok=True)
    shards = arguments.tasks or len(entries)

    def label(shard):
        return f"{shard}/{shards} ({entries[shard]})" if shards == len(entries) else f"{shard}/{shards}"

    try:
        ray.init(address=arguments.address, log_to_driver=True)
    except ConnectionError as error:
        print(f"ray_extract: no Ray cluster at '{arguments.address}': {error}", file=sys.stderr)
        return 2
    task = extract_shard.options(num_cpus=arguments.threads, max_retries=arguments.retries)
    pending = [task.remote(landmarker, arguments.task, manifest, out, shard, shards,
                           arguments.threads, arguments.extra, label(shard))
               for shard in range(shards)]
    shard_of = {reference: shard for shard, reference in enumerate(pending)}
    done = skipped = failed = 0
    lost = []
    finished = 0
    while pending:
        ready, pending = ray.wait(pending, num_returns=1)
        finished += 1
        shard = shard_of[ready[0]]
        try:
            result = ray.get(ready[0])
        except (ray.exceptions.RayError, LandmarkerKilled) as error:
            lost.append(shard)
            print(f"ray_extract: [{finished}/{shards}] task {label(shard)}: LOST after "
                  f"{arguments.retries} retries: {error}", file=sys.stderr, flush=True)
            continue
        if result["counts"] is None:
            # The tool stopped before its summary: wrong options, unreadable manifest, no models.
            print(f"ray_extract: task {result['label']}: landmarker exited with {result['status']}:\n"
                  f"{result['message']}", file=sys.stderr)
            for reference in pending:
                ray.cancel(reference, force=True)
            return 2
        task_done, task_skipped, task_failed = result["counts"]
        done, skipped, failed = done + task_done, skipped + task_skipped, failed + task_failed
        for line in result["failures"]:
            print(line, file=sys.stderr)
        print(f"ray_extract: [{finished}/{shards}] task {result['label']}: {task_done} done, "
              f"{task_skipped} skipped, {task_failed} failed", file=sys.stderr, flush=True)
    lost_text = f", {len(lost)} tasks lost (shards {', '.join(map(str, sorted(lost)))})" if lost else ""
    print(f"ray_extract: {done} done, {skipped} skipped, {failed} failed{lost_text} "
          f"({len(entries)} entries in {shards} tasks)", file=sys.stderr)
    return 1 if failed or lost else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
