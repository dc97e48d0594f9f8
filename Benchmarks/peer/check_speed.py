#!/usr/bin/env python3
"""Fails when a kernel family goes backwards: our two families and LiteRT, alternating, one thread.

For each model, every round times, one after the other in this one run:
  1. `landmarker bench MODEL --threads 1` with the family this CPU chooses (AVX-512 where it has it),
  2. the same with LANDMARKER_NO_AVX512=1 (the AVX2 family), on CPUs with AVX-512 only,
  3. LiteRT's `Interpreter(model_path, num_threads=1)` with its default XNNPACK delegate,
each side W untimed and R timed invocations on the input `landmarker bench` uses. Each side's
time is its fastest state: the quickest over all rounds of the round's 10th percentile. Some hosts
switch between a fast and a slow state for seconds at a time (a 2-core Xeon VM, family 6 model
207, ran hand_landmark_full in 5.4 ms in one and 9.1 ms in the other, process after process), and
there the median of per-round ratios depends on which side the slow seconds fell: in two runs
minutes apart on the same binaries, face_detection_short_range's was 1.12 and 0.80 and
hand_landmark_lite's 0.58 and 0.84, while their ratios of fastest states were 0.79 and 0.78, 0.80
and 0.80 (Benchmarks/JOURNAL.md, 2026-12-06). A family that really went backwards is slower in
every state, its fastest included. The per-round ratios of medians stay in the report, and their
median is printed beside each verdict. A model outside a bound is timed for as many rounds again
and judged on all its rounds: seven rounds of a 0.5 ms model last about a second per side, and
once (hand_recrop, 2026-12-06 05:53 UTC, same Xeon) none of the AVX-512 side's seven fell in a
fast state while one of the AVX2 side's did: 1.17 against 0.87-0.91 in the runs before and after.
A family that went backwards stays outside in the second set too.

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
from peer_common import REPO_ROOT, emit_report, fastest_state_ms, machine_description


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
    """One side's latency in ms for one round: {"medianMs", "p10Ms"}."""
    if side == "litert":
        report = time_litert(litert_interpreter, numpy, path, 1, runs, warmup)
    else:
        report = time_ours_family(side, landmarker, path, runs, warmup)
    return {"medianMs": report["medianMs"], "p10Ms": report["p10Ms"]}


def time_ours_family(side, landmarker, path, runs, warmup):
    """Our `landmarker bench` report with family `side` ("avx512" or "avx2"), one thread."""
    report = time_ours(landmarker, path, 1, runs, warmup, "detected" if side == "avx512" else "avx2")
    family = "avx512" if report["instructionSet"] == "avx512" else "avx2"
    if family != side:
        sys.exit(f"check_speed.py: {landmarker} ran its {family} kernels where {side} was asked "
                 "(built without its AVX-512 kernels?)")
    return report


def summarize(model, rounds, avx512, bounds):
    """The model's fastest states and medians per side, the ratios the checks read (fastest state
    over fastest state), the per-round ratios of medians and their medians, and which checks failed.
    Each round is {side: {"medianMs", "p10Ms"}}."""
    ours = "avx512" if avx512 else "avx2"
    sides = list(rounds[0])
    row = {"model": model,
           "fastestMs": {side: fastest_state_ms([r[side] for r in rounds]) for side in sides},
           "medianMs": {side: statistics.median(r[side]["medianMs"] for r in rounds) for side in sides},
           "rounds": rounds}
    fastest = row["fastestMs"]

    def per_round(numerator, denominator):
        return [r[numerator]["medianMs"] / r[denominator]["medianMs"] for r in rounds]

    row["oursOverLitert"] = fastest[ours] / fastest["litert"]
    row["oursOverLitertPerRound"] = per_round(ours, "litert")
    row["oursOverLitertMedianOfRounds"] = statistics.median(row["oursOverLitertPerRound"])
    failures = []
    if row["oursOverLitert"] > bounds["litert"]:
        failures.append(f"{model}: ours ({ours}) / LiteRT = {row['oursOverLitert']:.2f} > {bounds['litert']:.2f} "
                        "(fastest states)")
    if avx512:
        row["avx512OverAvx2"] = fastest["avx512"] / fastest["avx2"]
        row["avx512OverAvx2PerRound"] = per_round("avx512", "avx2")
        row["avx512OverAvx2MedianOfRounds"] = statistics.median(row["avx512OverAvx2PerRound"])
        if row["avx512OverAvx2"] > bounds["family"]:
            failures.append(f"{model}: our AVX-512 family / our AVX2 family = {row['avx512OverAvx2']:.2f} "
                            f"> {bounds['family']:.2f} (fastest states)")
    row["failures"] = failures
    return row


def print_table(rows, machine, settings):
    print(f"{machine['date']}, binary of commit {settings['landmarkerCommit'][:12]} (checkout {machine['commit']}), "
          f"{machine['cpu']} ({machine['cpuFlags']}), "
          f"load {machine['loadAverage'][0]:.2f} -> {machine['loadAverageAtEnd'][0]:.2f}; "
          f"{settings['rounds']} rounds of {settings['warmup']} + {settings['runs']} runs per side, 1 thread")
    timed_again = [row["model"] for row in rows if len(row["rounds"]) > settings["rounds"]]
    if timed_again:
        print(f"timed for {settings['rounds']} more rounds after falling outside a bound: {', '.join(timed_again)}")
    avx512 = settings["avx512"]
    width = max([len("model")] + [len(row["model"]) for row in rows]) + 2
    print("fastest state of each side in ms (the quickest round's 10th percentile), the ratios the check reads, "
          "and in brackets the median over rounds of each round's ratio of medians")
    header = f"{'model':<{width}}" + (f"{'AVX-512 ms':>12}" if avx512 else "") + f"{'AVX2 ms':>10}{'LiteRT ms':>11}"
    header += (f"{'512/AVX2':>17}" if avx512 else "") + f"{'ours/LiteRT':>17}  verdict"
    print(header)
    for row in rows:
        fastest = row["fastestMs"]
        line = f"{row['model']:<{width}}" + (f"{fastest['avx512']:>12.2f}" if avx512 else "")
        line += f"{fastest['avx2']:>10.2f}{fastest['litert']:>11.2f}"
        if avx512:
            line += f"{row['avx512OverAvx2']:>10.2f} ({row['avx512OverAvx2MedianOfRounds']:.2f})"
        line += f"{row['oursOverLitert']:>10.2f} ({row['oursOverLitertMedianOfRounds']:.2f})"
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

    def time_rounds(models, label):
        for round_index in range(args.rounds):
            print(f"check_speed: {label}round {round_index + 1}/{args.rounds}", file=sys.stderr, flush=True)
            for model in models:
                rounds[model].append({side: time_side(side, args.landmarker, paths[model], args.runs, args.warmup,
                                                      litert_interpreter, numpy) for side in sides})

    bounds = {"litert": args.max_litert_ratio, "family": args.max_family_ratio}
    time_rounds(args.models, "")
    outside = [model for model in args.models if summarize(model, rounds[model], avx512, bounds)["failures"]]
    if outside:
        print(f"check_speed: outside a bound after {args.rounds} rounds: {', '.join(outside)}; "
              f"timing {'it' if len(outside) == 1 else 'them'} for {args.rounds} more", file=sys.stderr)
        time_rounds(outside, "second set, ")
    machine["loadAverageAtEnd"] = list(os.getloadavg())
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
