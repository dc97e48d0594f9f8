#!/usr/bin/env python3
"""Fails when a kernel family goes backwards: our two families and LiteRT, alternating, one thread.

For each model, every round times, one after the other in this one run:
  1. `landmarker bench MODEL --threads 1` with the family this CPU chooses (AVX-512 where it has it),
  2. the same with LANDMARKER_NO_AVX512=1 (the AVX2 family), on CPUs with AVX-512 only,
  3. LiteRT's `Interpreter(model_path, num_threads=1)` with its default XNNPACK delegate,
each side W untimed and R timed invocations on the input `landmarker bench` uses. Each ratio is
taken within a round (the sides ran seconds apart, under the same load) and the check reads the
median over rounds, so a slow moment of the host moves one round, not the verdict.

Checks, on every model:
  (a) on a CPU with AVX-512: ours with AVX-512 / ours with AVX2 <= --max-family-ratio,
  (b) ours (the chosen family) / LiteRT <= --max-litert-ratio.
The bounds are generous on purpose: they catch a family running 1.3-2x slower than it should
(as the AVX-512 landmark models once did, unseen for days), not the host's noise of a few per cent
nor the spread between CPUs: on a Zen 5, hand_landmark_full took 1.02-1.15x LiteRT's time even
before the regression, hence 1.25 against LiteRT; a Zen 4 issues a 512-bit FMA as two 256-bit
halves, so there our AVX-512 family is only 2-12 % faster than our AVX2 family, hence 1.10
between them. The goals are tighter (AVX-512 ahead of AVX2, ours at most 0.8-0.9x LiteRT): the
table shows where each model stands.

Exits 0 when every check holds, 1 when one fails (each failure named on standard error), 2 on a
usage error. The report (machine, date, load, commit, every round) goes to --json-file and as a
table to standard output.

Set up once (from the repository root; scripts/check_speed.sh does all of it):
    swift build -c release --product landmarker
    python3 -m venv Benchmarks/.venv
    Benchmarks/.venv/bin/pip install -r Benchmarks/peer/requirements.txt
Run:
    Benchmarks/.venv/bin/python Benchmarks/peer/check_speed.py [--landmarker PATH] [--json-file FILE]
"""

import argparse
import os
import statistics
import subprocess
import sys
from pathlib import Path

from compare_litert import (MODELS, cpu_has_avx512, import_litert, time_litert,
                            time_ours)
from peer_common import REPO_ROOT, emit_report, machine_description


def positive(text):
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text} is not a whole number of at least 1")
    return value


def positive_ratio(text):
    value = float(text)
    if not value > 0:
        raise argparse.ArgumentTypeError(f"{text} is not a ratio above 0")
    return value


def binary_commit(landmarker):
    """The commit `landmarker --version` reports (the binary timed, which need not be the checkout's)."""
    try:
        output = subprocess.run([str(landmarker), "--version"], capture_output=True, text=True, timeout=60).stdout
    except (OSError, subprocess.TimeoutExpired):
        return "unknown"
    for line in output.splitlines():
        if line.startswith("commit:"):
            return line.split(":", 1)[1].strip()
    return "unknown"


def recorded_path(path):
    """`path` as a report records it: relative to the repository when inside it, else its file name
    alone (a report is committed; a machine's own folders mean nothing elsewhere)."""
    resolved = Path(os.path.abspath(path))
    try:
        return str(resolved.relative_to(REPO_ROOT))
    except ValueError:
        return resolved.name


def sides_for(avx512):
    """The sides each round times, in order: ours with each family this CPU can run, then LiteRT."""
    return (["avx512", "avx2"] if avx512 else ["avx2"]) + ["litert"]


def time_side(side, landmarker, path, runs, warmup, litert_interpreter, numpy):
    """One side's median latency in ms for one round."""
    if side == "litert":
        return time_litert(litert_interpreter, numpy, path, 1, runs, warmup)["medianMs"]
    report = time_ours(landmarker, path, 1, runs, warmup, "detected" if side == "avx512" else "avx2")
    family = "avx512" if report["instructionSet"] == "avx512" else "avx2"
    if family != side:
        sys.exit(f"check_speed.py: {landmarker} ran its {family} kernels where {side} was asked "
                 "(built without its AVX-512 kernels?)")
    return report["medianMs"]


def summarize(model, rounds, avx512, bounds):
    """The model's medians, its per-round ratios and their medians, and which checks failed."""
    ours = "avx512" if avx512 else "avx2"
    row = {"model": model,
           "medianMs": {side: statistics.median(r[side] for r in rounds) for side in rounds[0]},
           "rounds": rounds}
    litert_ratios = [r[ours] / r["litert"] for r in rounds]
    row["oursOverLitert"] = statistics.median(litert_ratios)
    row["oursOverLitertPerRound"] = litert_ratios
    failures = []
    if row["oursOverLitert"] > bounds["litert"]:
        failures.append(f"{model}: ours ({ours}) / LiteRT = {row['oursOverLitert']:.2f} > {bounds['litert']:.2f}")
    if avx512:
        family_ratios = [r["avx512"] / r["avx2"] for r in rounds]
        row["avx512OverAvx2"] = statistics.median(family_ratios)
        row["avx512OverAvx2PerRound"] = family_ratios
        if row["avx512OverAvx2"] > bounds["family"]:
            failures.append(f"{model}: our AVX-512 family / our AVX2 family = {row['avx512OverAvx2']:.2f} "
                            f"> {bounds['family']:.2f}")
    row["failures"] = failures
    return row


def print_table(rows, machine, settings):
    print(f"{machine['date']}, binary of commit {settings['landmarkerCommit'][:12]} (checkout {machine['commit']}), "
          f"{machine['cpu']} ({machine['cpuFlags']}), "
          f"load {machine['loadAverage'][0]:.2f} -> {machine['loadAverageAtEnd'][0]:.2f}; "
          f"{settings['rounds']} rounds of {settings['warmup']} + {settings['runs']} runs per side, 1 thread")
    avx512 = settings["avx512"]
    width = max([len("model")] + [len(row["model"]) for row in rows]) + 2
    header = f"{'model':<{width}}" + (f"{'AVX-512 ms':>12}" if avx512 else "") + f"{'AVX2 ms':>10}{'LiteRT ms':>11}"
    header += (f"{'512/AVX2':>10}" if avx512 else "") + f"{'ours/LiteRT':>13}  verdict"
    print(header)
    for row in rows:
        medians = row["medianMs"]
        line = f"{row['model']:<{width}}" + (f"{medians['avx512']:>12.2f}" if avx512 else "")
        line += f"{medians['avx2']:>10.2f}{medians['litert']:>11.2f}"
        line += (f"{row['avx512OverAvx2']:>10.2f}" if avx512 else "") + f"{row['oursOverLitert']:>13.2f}"
        print(line + ("  FAIL" if row["failures"] else "  ok"))
    print(f"bounds: ours / LiteRT <= {settings['maxLitertRatio']:.2f}"
          + (f"; AVX-512 / AVX2 <= {settings['maxFamilyRatio']:.2f}" if avx512 else
             "; no AVX-512 on this CPU: the family check does not apply"))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", nargs="+", default=MODELS, choices=MODELS, metavar="MODEL",
                        help="models to check (default: all ten)")
    parser.add_argument("--rounds", type=positive, default=7, help="alternating rounds (default: 7)")
    parser.add_argument("--runs", type=positive, default=40, help="timed invocations per round and side (default: 40)")
    parser.add_argument("--warmup", type=positive, default=5, help="untimed invocations per round and side (default: 5)")
    parser.add_argument("--max-litert-ratio", type=positive_ratio, default=1.25,
                        help="the most ours / LiteRT may be on any model (default: 1.25)")
    parser.add_argument("--max-family-ratio", type=positive_ratio, default=1.10,
                        help="the most our AVX-512 / our AVX2 may be on any model (default: 1.10)")
    parser.add_argument("--landmarker", type=Path, default=REPO_ROOT / ".build" / "release" / "landmarker",
                        help="the landmarker executable (default: .build/release/landmarker)")
    parser.add_argument("--models-dir", type=Path, default=REPO_ROOT / "models", help="folder of the .tflite files")
    parser.add_argument("--json", action="store_true", help="print the JSON report instead of the table")
    parser.add_argument("--json-file", type=Path, help="also write the JSON report to this file")
    args = parser.parse_args()
    args.markdown = False

    if not args.landmarker.is_file():
        parser.error(f"{args.landmarker} not found: build it with scripts/build_release.sh")
    paths = {model: args.models_dir / f"{model}.tflite" for model in args.models}
    for path in paths.values():
        if not path.is_file():
            parser.error(f"missing model {path}: run models/fetch_models.sh")
    litert_interpreter, numpy = import_litert()

    avx512 = cpu_has_avx512()
    machine = machine_description({"aiEdgeLitert": "ai-edge-litert", "numpy": "numpy"})
    sides = sides_for(avx512)
    rounds = {model: [] for model in args.models}
    for round_index in range(args.rounds):
        print(f"check_speed: round {round_index + 1}/{args.rounds}", file=sys.stderr, flush=True)
        for model in args.models:
            rounds[model].append({side: time_side(side, args.landmarker, paths[model], args.runs, args.warmup,
                                                  litert_interpreter, numpy) for side in sides})
    machine["loadAverageAtEnd"] = list(os.getloadavg())

    bounds = {"litert": args.max_litert_ratio, "family": args.max_family_ratio}
    rows = [summarize(model, rounds[model], avx512, bounds) for model in args.models]
    settings = {"rounds": args.rounds, "runs": args.runs, "warmup": args.warmup, "threads": 1, "avx512": avx512,
                "maxLitertRatio": args.max_litert_ratio, "maxFamilyRatio": args.max_family_ratio,
                "landmarker": recorded_path(args.landmarker), "landmarkerCommit": binary_commit(args.landmarker)}
    failures = [failure for row in rows for failure in row["failures"]]
    emit_report({"machine": machine, "settings": settings, "results": rows, "passed": not failures}, args,
                None, lambda: print_table(rows, machine, settings))
    if failures:
        for failure in failures:
            print(f"check_speed: {failure}", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
