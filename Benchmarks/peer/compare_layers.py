#!/usr/bin/env python3
"""Layer by layer, `landmarker bench` against LiteRT (XNNPACK): where a model's time goes on each side.

Each layer of the model (a computing operator with the PAD before it and the ADD and PRELU after
it that our interpreter folds into it; `model_slices.py`) is cut out as a model of its own, in a
temporary folder, and timed as `compare_litert.py` times whole models: K alternating rounds, each
`landmarker bench SLICE --json` (a subprocess) then LiteRT's `Interpreter` in this process on the
same input, the median over rounds of each side's per-round median. The table gives each layer's
two times, their ratio and their difference, and the ratio of each side's fastest state (its
quickest round's 10th percentile), the one to read on a host that switches between a fast and a
slow state.

A layer timed alone reads its input from wherever the previous run left it and writes an output
nobody reads, so the sum over layers is not the whole model's time: compare layers with each
other, and the whole model with `compare_litert.py`. `layer_summary.py` sums a report's layers by
kind and bounds what faster convolutions could still give. pose_detection's sparse 1×1 convolutions
run alone in a channel-major region of one operator, with its layout conversions.

Run (from the repository root, after `compare_litert.py`'s one-time set-up):
    Benchmarks/.venv/bin/python Benchmarks/peer/compare_layers.py hand_landmark_lite \
        --instruction-set avx2 [--threads 1] [--rounds 5] [--runs 200] [--markdown]
"""

import argparse
import statistics
import sys
import tempfile
from pathlib import Path

from compare_litert import INSTRUCTION_SETS, MODELS, import_litert, measure_peaks, time_litert, time_ours
from peer_common import REPO_ROOT, add_binary_options, add_report_options, emit_report, fastest_state_ms, machine_description
import model_slices


def compare_layer(litert, numpy, arguments, path):
    """Both sides' medians over rounds and fastest states for the slice at `path`, alternating."""
    ours, theirs = [], []
    for _ in range(arguments.rounds):
        ours.append(time_ours(arguments.landmarker, path, arguments.threads, arguments.runs,
                              arguments.warmup, arguments.instruction_set))
        theirs.append(time_litert(litert, numpy, path, arguments.threads, arguments.runs, arguments.warmup))
    return {
        "oursMedianMs": statistics.median(r["medianMs"] for r in ours),
        "litertMedianMs": statistics.median(r["medianMs"] for r in theirs),
        "oursFastestMs": fastest_state_ms(ours),
        "litertFastestMs": fastest_state_ms(theirs),
        "multiplyAccumulates": ours[0]["flops"] // 2,
    }


def print_table(rows):
    print(f"{'#':>3}  {'layer':<34}{'output':<20}{'MMAC':>8}{'ours ms':>10}{'LiteRT ms':>11}"
          f"{'ratio':>7}{'ours - LiteRT':>15}{'fastest':>9}")
    for row in rows:
        print(f"{row['layer']:>3}  {row['name']:<34}{str(row['outputShape']):<20}"
              f"{row['multiplyAccumulates'] / 1e6:>8.2f}{row['oursMedianMs']:>10.3f}"
              f"{row['litertMedianMs']:>11.3f}{row['ratio']:>7.2f}"
              f"{row['oursMedianMs'] - row['litertMedianMs']:>+12.3f} ms"
              f"{row['oursFastestMs'] / row['litertFastestMs']:>9.2f}")
    ours = sum(row["oursMedianMs"] for row in rows)
    litert = sum(row["litertMedianMs"] for row in rows)
    print(f"sum of layers: ours {ours:.3f} ms, LiteRT {litert:.3f} ms, ratio {ours / litert:.2f}")


def print_markdown(rows, machine, arguments):
    print(f"Measured {machine['date']} at commit `{machine['commit']}` on {machine['cpu']} "
          f"({machine['logicalCores']} logical cores; {machine['cpuFlags']}), 1-minute load average "
          f"{machine['loadAverage'][0]:.2f} at the start; ai-edge-litert {machine['aiEdgeLitert']}. "
          f"{arguments.model}, {arguments.threads} thread(s), --instruction-set {arguments.instruction_set}, "
          f"{arguments.rounds} alternating rounds of {arguments.warmup} + {arguments.runs} invocations "
          "per side and layer; median over rounds of the per-round medians.")
    print()
    print("| # | layer | output | MMAC | ours (ms) | LiteRT (ms) | ours / LiteRT | ours − LiteRT (ms) |")
    print("|---:|---|---|---:|---:|---:|---:|---:|")
    for row in rows:
        print(f"| {row['layer']} | {row['name']} | {row['outputShape']} | {row['multiplyAccumulates'] / 1e6:.2f} "
              f"| {row['oursMedianMs']:.3f} | {row['litertMedianMs']:.3f} | {row['ratio']:.2f} "
              f"| {row['oursMedianMs'] - row['litertMedianMs']:+.3f} |")
    ours = sum(row["oursMedianMs"] for row in rows)
    litert = sum(row["litertMedianMs"] for row in rows)
    print(f"| | sum of layers | | | {ours:.3f} | {litert:.3f} | {ours / litert:.2f} | {ours - litert:+.3f} |")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("model", choices=MODELS, help="the model to cut into layers")
    parser.add_argument("--layers", help="only these layers, e.g. 0-12 or 5 (default: all)")
    parser.add_argument("--threads", type=int, default=1, help="thread count (default: 1)")
    parser.add_argument("--rounds", type=int, default=5, help="alternating rounds K (default: 5)")
    parser.add_argument("--runs", type=int, default=200, help="timed invocations per round and side (default: 200)")
    parser.add_argument("--warmup", type=int, default=10, help="untimed invocations per round and side (default: 10)")
    add_binary_options(parser, INSTRUCTION_SETS)
    add_report_options(parser)
    arguments = parser.parse_args()
    if arguments.threads < 1 or arguments.rounds < 1 or arguments.runs < 1 or arguments.warmup < 0:
        parser.error("--threads, --rounds and --runs must be at least 1, --warmup at least 0")
    model_path = arguments.models_dir / f"{arguments.model}.tflite"
    if not model_path.is_file():
        sys.exit(f"compare_layers.py: {model_path} not found (run models/fetch_models.sh)")
    if not arguments.landmarker.is_file():
        sys.exit(f"compare_layers.py: {arguments.landmarker} not found (swift build -c release --product landmarker)")

    litert, numpy = import_litert()
    model = model_slices.load_model(model_path)
    all_layers = model_slices.layers(model)
    chosen = list(enumerate(all_layers))
    if arguments.layers:
        first, _, last = arguments.layers.partition("-")
        try:
            low, high = int(first), int(last or first)
        except ValueError:
            parser.error(f"--layers {arguments.layers}: expected N or N-M")
        chosen = [(number, layer) for number, layer in chosen if low <= number <= high]
        if not chosen:
            parser.error(f"--layers {arguments.layers}: the model has layers 0-{len(all_layers) - 1}")
    machine = machine_description({"aiEdgeLitert": "ai-edge-litert", "numpy": "numpy"})
    # The FMA peak of the family our side runs, for `layer_summary.py`'s rates.
    peaks = measure_peaks(arguments.landmarker, model_path)
    family = "avx512" if arguments.instruction_set == "detected" and "avx512" in peaks else "avx2"
    rows = []
    with tempfile.TemporaryDirectory(prefix="compare_layers.") as folder:
        for number, layer in chosen:
            path = Path(folder) / f"layer{number}.tflite"
            path.write_bytes(model_slices.slice_model(model, layer))
            row = {"layer": number, "name": layer.name, "outputShape": model_slices.output_shape(model, layer),
                   **compare_layer(litert, numpy, arguments, path)}
            row["ratio"] = row["oursMedianMs"] / row["litertMedianMs"]
            rows.append(row)
            if not (arguments.json or arguments.markdown):
                print(f"layer {number} {layer.name}: ours {row['oursMedianMs']:.3f} ms, "
                      f"LiteRT {row['litertMedianMs']:.3f} ms", file=sys.stderr)
    report = {"machine": machine, "model": arguments.model, "threads": arguments.threads,
              "instructionSet": arguments.instruction_set, "rounds": arguments.rounds,
              "runs": arguments.runs, "warmup": arguments.warmup, "fmaPeakGflopsPerCore": peaks[family],
              "layers": rows}
    emit_report(report, arguments, lambda: print_markdown(rows, machine, arguments), lambda: print_table(rows))


if __name__ == "__main__":
    main()
