#!/usr/bin/env python3
"""Layer by layer, where more threads lose: `landmarker bench --per-layer` at one thread and at N.

For each model, K alternating rounds of `landmarker bench MODEL --per-layer --json` at one
thread, then at N (subprocesses of one binary, `--warmup` W + `--runs` R invocations each), and
each operator's fastest pass over all rounds at each thread count: on a host that switches
between a fast and a slow state for seconds at a time, the fastest passes of two runs compare
where their means would not. Per layer, in execution order: both times (µs), their ratio (1/N is
perfect scaling) and the excess, the N-thread time minus 1/N of the one-thread time: what the
threads lose on that layer, whether to hand-overs, to uneven shares, or to data that another
core's cache holds. The text table sums the excess by kind of operator and lists the layers of
largest excess; the whole model's speed-up is the ratio of the fastest rounds' medians.

A profiled pass reads the clock around every operator, so the layers' sum runs a little over the
invoke's time; read the excess as a ranking of layers. Needs only the release binary, not LiteRT.

Run (from the repository root, after `swift build -c release --product landmarker`):
    python3 Benchmarks/peer/thread_scaling.py pose_detection [hand_landmark_full ...] \
        [--threads 2] [--rounds 4] [--runs 60] [--top 10] [--instruction-set avx2] \
        [--markdown | --json] [--json-file F]
"""

import argparse
import json
import os
import subprocess
import sys

from check_speed import binary_commit, recorded_path
from compare_litert import INSTRUCTION_SETS, MODELS
from peer_common import REPO_ROOT, add_binary_options, add_report_options, emit_report, machine_description


def whole_number(minimum):
    """An argparse type: a whole number of at least `minimum`."""
    def parse(text):
        try:
            value = int(text)
        except ValueError:
            value = None
        if value is None or value < minimum:
            raise argparse.ArgumentTypeError(f"{text} is not a whole number of at least {minimum}")
        return value
    return parse


def bench_layers(arguments, model_path, threads):
    """`landmarker bench --per-layer --json` at `threads` threads: its report."""
    command = [str(arguments.landmarker), "bench", str(model_path), "--threads", str(threads),
               "--runs", str(arguments.runs), "--warmup", str(arguments.warmup), "--per-layer", "--json"]
    environment = {**os.environ, **INSTRUCTION_SETS[arguments.instruction_set]}
    result = subprocess.run(command, cwd=REPO_ROOT, capture_output=True, text=True, env=environment)
    if result.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} failed ({result.returncode}): {result.stderr.strip()}")
    return json.loads(result.stdout)


def measure(arguments, model):
    """The model's layers with their fastest passes at one thread and at `--threads`, alternating."""
    path = arguments.models_dir / f"{model}.tflite"
    fastest = {1: {}, arguments.threads: {}}
    medians = {1: [], arguments.threads: []}
    layers = None
    for _ in range(arguments.rounds):
        for threads in fastest:
            report = bench_layers(arguments, path, threads)
            medians[threads].append(report["medianMs"])
            names = [(layer["index"], layer["op"], layer["outputShape"]) for layer in report["perLayer"]]
            if layers is None:
                layers = names
            elif names != layers:
                raise RuntimeError(f"{model}: the operators differ between runs ({threads} threads)")
            for layer in report["perLayer"]:
                best = fastest[threads].get(layer["index"], float("inf"))
                fastest[threads][layer["index"]] = min(best, layer["fastestMs"] * 1000)
    n = arguments.threads
    rows = []
    for index, op, shape in layers:
        one, many = fastest[1][index], fastest[n][index]
        rows.append({"index": index, "op": op, "outputShape": shape, "oneThreadUs": round(one, 2),
                     "threadsUs": round(many, 2), "ratio": round(many / one, 3) if one > 0 else None,
                     "excessUs": round(many - one / n, 2)})
    return {"model": model, "oneThreadMedianMs": min(medians[1]), "threadsMedianMs": min(medians[n]),
            "speedUp": round(min(medians[1]) / min(medians[n]), 3), "layers": rows}


def excess_by_operator(result):
    """The excess summed by kind of operator (the op name before any "(…)"), largest first."""
    sums = {}
    for row in result["layers"]:
        kind = row["op"].split("(")[0]
        sums[kind] = sums.get(kind, 0) + row["excessUs"]
    return sorted(sums.items(), key=lambda item: -item[1])


def largest(result, top):
    return sorted(result["layers"], key=lambda row: -row["excessUs"])[:top]


def print_table(report, top):
    n = report["threads"]
    for result in report["results"]:
        total = sum(row["excessUs"] for row in result["layers"])
        print(f"{result['model']}: median {result['oneThreadMedianMs']:.3f} ms at 1 thread, "
              f"{result['threadsMedianMs']:.3f} at {n} (speed-up {result['speedUp']:.2f}); "
              f"excess {total:.0f} µs")
        print("  by operator: " + ", ".join(f"{kind} {value:.0f}" for kind, value in excess_by_operator(result)))
        print(f"  {'#':>4}  {'op':36} {'output':20} {'1 thread':>9} {f'{n} threads':>10} {'ratio':>6} {'excess':>7}")
        for row in largest(result, top):
            print(f"  {row['index']:>4}  {row['op'][:36]:36} {row['outputShape'][:20]:20} "
                  f"{row['oneThreadUs']:9.1f} {row['threadsUs']:10.1f} {row['ratio']:6.2f} {row['excessUs']:7.1f}")


def print_markdown(report, top):
    machine, n = report["machine"], report["threads"]
    print(f"{machine['cpu']}, {machine['logicalCores']} logical cores, {machine['date']}, commit "
          f"{machine['commit']}, load {machine['loadAverage'][0]:.2f}; {report['rounds']} alternating rounds "
          f"of {report['warmup']} + {report['runs']} runs, fastest passes, µs\n")
    for result in report["results"]:
        print(f"**{result['model']}**: speed-up {result['speedUp']:.2f} at {n} threads; excess by operator: "
              + ", ".join(f"{kind} {value:.0f}" for kind, value in excess_by_operator(result)) + "\n")
        print(f"| # | op | output | 1 thread | {n} threads | ratio | excess |")
        print("|---:|---|---|---:|---:|---:|---:|")
        for row in largest(result, top):
            print(f"| {row['index']} | {row['op']} | {row['outputShape']} | {row['oneThreadUs']:.1f} | "
                  f"{row['threadsUs']:.1f} | {row['ratio']:.2f} | {row['excessUs']:.1f} |")
        print()


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("models", nargs="*", metavar="MODEL",
                        help=f"models to time, of {', '.join(MODELS)} (default: all ten)")
    parser.add_argument("--threads", type=whole_number(2), default=2, help="the thread count set against one (default: 2)")
    parser.add_argument("--rounds", type=whole_number(1), default=4, help="alternating rounds K (default: 4)")
    parser.add_argument("--runs", type=whole_number(1), default=60, help="profiled invocations per round and thread count (default: 60)")
    parser.add_argument("--warmup", type=whole_number(0), default=5, help="untimed invocations before them (default: 5)")
    parser.add_argument("--top", type=whole_number(1), default=10, help="layers of largest excess listed per model (default: 10)")
    add_binary_options(parser, INSTRUCTION_SETS)
    add_report_options(parser)
    arguments = parser.parse_args()
    unknown = [model for model in arguments.models if model not in MODELS]
    if unknown:
        parser.error(f"no model {', '.join(unknown)}: choose from {', '.join(MODELS)}")
    arguments.models = arguments.models or MODELS
    # The binary runs from the repository root: paths given relative to here stay right.
    arguments.landmarker, arguments.models_dir = arguments.landmarker.resolve(), arguments.models_dir.resolve()
    if not arguments.landmarker.is_file():
        parser.error(f"no landmarker binary at {arguments.landmarker}: "
                     "build it (swift build -c release --product landmarker) or pass --landmarker")
    missing = [m for m in arguments.models if not (arguments.models_dir / f"{m}.tflite").is_file()]
    if missing:
        parser.error(f"no {', '.join(missing)} in {arguments.models_dir}: run models/fetch_models.sh")
    results = []
    for model in arguments.models:
        print(f"timing {model} ...", file=sys.stderr)
        try:
            results.append(measure(arguments, model))
        except (RuntimeError, ValueError, KeyError) as error:
            sys.exit(f"thread_scaling.py: {model}: {error}")
    report = {"machine": machine_description({}), "instructionSet": arguments.instruction_set,
              "threads": arguments.threads, "rounds": arguments.rounds, "runs": arguments.runs,
              "warmup": arguments.warmup, "landmarker": recorded_path(arguments.landmarker),
              "landmarkerCommit": binary_commit(arguments.landmarker), "results": results}
    emit_report(report, arguments, lambda: print_markdown(report, arguments.top),
                lambda: print_table(report, arguments.top))


if __name__ == "__main__":
    main()
