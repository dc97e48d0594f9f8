#!/usr/bin/env python3
"""Side-by-side latency of `landmarker bench` and LiteRT (XNNPACK) on the same models.

For each model and thread count, one session alternates K rounds of
  1. `landmarker bench MODEL --threads T --runs R --warmup W --json` (a subprocess), and
  2. LiteRT's `Interpreter(model_path, num_threads=T)` with its default XNNPACK
     delegate, the same input, W untimed and R timed `invoke()` calls in this process,
and reports the median over rounds of each side's per-round median, and their ratio; and
each side's fastest state (the quickest round's 10th percentile) and their ratio, the figure
to read on hosts that switch between a fast and a slow state for seconds at a time.
Both sides also report the CPU time of the calling thread per invocation: at one
thread all of the work runs there, so that ratio does not depend on how much of
the core other processes took (at two threads it leaves out the helper threads).

Each side's whole-model rate is given in GFLOP/s (the model's multiply-adds × 2, as
`landmarker bench` counts them, over the median time) and as a share of the fp32 FMA peak
of the instruction-set family it runs, measured on one core by `landmarker bench`
(`FMAPeak`) and multiplied by the thread count: ours runs the family `--instruction-set`
picks (`avx2` forces the AVX2 kernels with LANDMARKER_NO_AVX512=1; `detected` takes
AVX-512 where the CPU has it); LiteRT's XNNPACK always takes AVX-512 where the CPU has it.
Every row also gives both sides as a share of the AVX2 peak, the figure that does not
depend on whether the machine has AVX-512.

Set up once (from the repository root):
    swift build -c release --product landmarker
    python3 -m venv Benchmarks/.venv
    Benchmarks/.venv/bin/pip install -r Benchmarks/peer/requirements.txt
Run:
    Benchmarks/.venv/bin/python Benchmarks/peer/compare_litert.py [--markdown] [--json]
The script re-runs itself with Benchmarks/.venv/bin/python when started with a
Python that lacks ai_edge_litert and that venv exists.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

from peer_common import REPO_ROOT, add_binary_options, add_report_options, emit_report, fastest_state_ms, machine_description
VENV = REPO_ROOT / "Benchmarks" / ".venv"
VENV_PYTHON = VENV / "bin" / "python"
MODELS = [
    "pose_detection",
    "pose_landmark_full",
    "palm_detection_full",
    "palm_detection_lite",
    "hand_landmark_full",
    "hand_landmark_lite",
    "face_detection_short_range",
    "face_detection_full_range_sparse",
    "face_landmark",
    "hand_recrop",
]


def import_litert():
    """Imports LiteRT, re-executing under the project venv when this Python lacks it."""
    try:
        from ai_edge_litert import interpreter as litert_interpreter
        import numpy
        return litert_interpreter, numpy
    except ImportError:
        if VENV_PYTHON.exists() and Path(sys.prefix).resolve() != VENV.resolve():
            os.execv(str(VENV_PYTHON), [str(VENV_PYTHON), *sys.argv])
        sys.exit(
            "compare_litert.py: ai_edge_litert is not installed. Run:\n"
            "  python3 -m venv Benchmarks/.venv\n"
            "  Benchmarks/.venv/bin/pip install -r Benchmarks/peer/requirements.txt")


def deterministic_input(numpy, count):
    """The input `landmarker bench` uses: element i is ((i * 7919) % 1000) / 1000."""
    index = numpy.arange(count, dtype=numpy.int64)
    return ((index * 7919) % 1000).astype(numpy.float32) / 1000


# The environment that makes `landmarker bench` run each instruction-set choice.
INSTRUCTION_SETS = {"detected": {}, "avx2": {"LANDMARKER_NO_AVX512": "1"}}


def time_ours(landmarker, model_path, threads, runs, warmup, instruction_set):
    """Runs `landmarker bench --json` with `instruction_set`'s environment and returns its report
    (medianMs, p10Ms, p90Ms, gflops, flops, instructionSet, fmaPeakGflopsPerCore...)."""
    command = [str(landmarker), "bench", str(model_path), "--threads", str(threads),
               "--runs", str(runs), "--warmup", str(warmup), "--json"]
    environment = {**os.environ, **INSTRUCTION_SETS[instruction_set]}
    result = subprocess.run(command, cwd=REPO_ROOT, capture_output=True, text=True, env=environment)
    if result.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} failed ({result.returncode}): {result.stderr.strip()}")
    return json.loads(result.stdout)


def time_litert(litert_interpreter, numpy, model_path, threads, runs, warmup):
    """Times LiteRT's invoke on the deterministic input; returns the median and p10/p90 in ms."""
    interpreter = litert_interpreter.Interpreter(model_path=str(model_path), num_threads=threads)
    interpreter.allocate_tensors()
    for detail in interpreter.get_input_details():
        shape = detail["shape"]
        values = deterministic_input(numpy, int(numpy.prod(shape))).reshape(shape)
        interpreter.set_tensor(detail["index"], values.astype(detail["dtype"]))
    for _ in range(warmup):
        interpreter.invoke()
    milliseconds = []
    cpu_milliseconds = []
    for _ in range(runs):
        cpu_start = time.thread_time_ns()
        start = time.perf_counter_ns()
        interpreter.invoke()
        milliseconds.append((time.perf_counter_ns() - start) / 1e6)
        cpu_milliseconds.append((time.thread_time_ns() - cpu_start) / 1e6)
    milliseconds.sort()

    def percentile(p):
        return milliseconds[min(len(milliseconds) - 1, round((len(milliseconds) - 1) * p))]

    return {"medianMs": percentile(0.5), "p10Ms": percentile(0.1), "p90Ms": percentile(0.9),
            "callingThreadCPUMedianMs": statistics.median(cpu_milliseconds)}


def measure_peaks(landmarker, model_path):
    """One core's measured FMA peak in GFLOP/s per family ("avx2", and "avx512" where this CPU
    runs the AVX-512 kernels), from one short `landmarker bench` per family."""
    peaks = {}
    for instruction_set in ("avx2", "detected"):
        report = time_ours(landmarker, model_path, 1, 1, 0, instruction_set)
        if report.get("fmaPeakGflopsPerCore") is None:
            sys.exit(f"compare_litert.py: {landmarker} reports no FMA peak (a portable build, or one older "
                     "than the peak measurement): build it with `swift build -c release --product landmarker`")
        family = "avx512" if report["instructionSet"] == "avx512" else "avx2"
        peaks[family] = report["fmaPeakGflopsPerCore"]
    return peaks


def cpu_has_avx512():
    """Whether /proc/cpuinfo lists avx512f, in which case LiteRT's XNNPACK runs its AVX-512 kernels."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.split(":")[0].strip() == "flags":
                return "avx512f" in line.split(":", 1)[1].split()
    except OSError:
        pass
    return False


def rates(row, threads, peaks, litert_family):
    """Both sides' GFLOP/s and percentages of the FMA peaks (× threads) for a summarized row."""
    litert_gflops = row["flops"] / (row["litertMedianMs"] * 1e-3) / 1e9
    ours_family = row["oursInstructionSet"]
    return {
        "litertGflops": litert_gflops,
        "oursFamily": ours_family,
        "litertFamily": litert_family,
        "oursPercentOfFamilyPeak": 100 * row["oursGflops"] / (threads * peaks[ours_family]),
        "litertPercentOfFamilyPeak": 100 * litert_gflops / (threads * peaks[litert_family]),
        "oursPercentOfAVX2Peak": 100 * row["oursGflops"] / (threads * peaks["avx2"]),
        "litertPercentOfAVX2Peak": 100 * litert_gflops / (threads * peaks["avx2"]),
    }


def summarize(rounds_ours, rounds_litert):
    ours = statistics.median(r["medianMs"] for r in rounds_ours)
    litert = statistics.median(r["medianMs"] for r in rounds_litert)
    # Older `landmarker bench` reports lack the CPU time.
    ours_cpu = (statistics.median(r["callingThreadCPUMedianMs"] for r in rounds_ours)
                if all("callingThreadCPUMedianMs" in r for r in rounds_ours) else None)
    litert_cpu = statistics.median(r["callingThreadCPUMedianMs"] for r in rounds_litert)
    ours_fastest = fastest_state_ms(rounds_ours)
    litert_fastest = fastest_state_ms(rounds_litert)
    return {
        "oursMedianMs": ours,
        "litertMedianMs": litert,
        "ratio": ours / litert,
        "oursCallingThreadCPUMs": ours_cpu,
        "litertCallingThreadCPUMs": litert_cpu,
        "cpuRatio": ours_cpu / litert_cpu if ours_cpu is not None else None,
        "oursFastestMs": ours_fastest,
        "litertFastestMs": litert_fastest,
        "fastestRatio": ours_fastest / litert_fastest,
        "oursRoundMediansMs": [r["medianMs"] for r in rounds_ours],
        "litertRoundMediansMs": [r["medianMs"] for r in rounds_litert],
        "oursRoundP10Ms": [r["p10Ms"] for r in rounds_ours],
        "litertRoundP10Ms": [r["p10Ms"] for r in rounds_litert],
        "oursGflops": statistics.median(r["gflops"] for r in rounds_ours),
        "flops": rounds_ours[0]["flops"],
        "oursInstructionSet": "avx512" if rounds_ours[0]["instructionSet"] == "avx512" else "avx2",
    }


def optional(value, digits=2):
    """`value` with `digits` decimals, or a dash when it is missing."""
    return "–" if value is None else f"{value:.{digits}f}"


def print_table(rows, peaks):
    print("FMA peak of one core (GFLOP/s): " + ", ".join(f"{family} {value:.1f}" for family, value in peaks.items()))
    print(f"{'model':<22}{'threads':>8}{'ours ms':>12}{'LiteRT ms':>12}{'ours/LiteRT':>13}{'fastest':>9}"
          f"{'ours CPU':>10}{'LiteRT CPU':>12}{'CPU ratio':>11}"
          f"{'ours GFLOP/s':>14}{'% peak':>8}{'LiteRT GFLOP/s':>16}{'% peak':>8}{'% AVX2 ours/LiteRT':>20}")
    for row in rows:
        print(f"{row['model']:<22}{row['threads']:>8}{row['oursMedianMs']:>12.2f}"
              f"{row['litertMedianMs']:>12.2f}{row['ratio']:>13.2f}{row['fastestRatio']:>9.2f}"
              f"{optional(row['oursCallingThreadCPUMs']):>10}{row['litertCallingThreadCPUMs']:>12.2f}"
              f"{optional(row['cpuRatio']):>11}"
              f"{row['oursGflops']:>14.1f}{row['oursPercentOfFamilyPeak']:>7.0f}%"
              f"{row['litertGflops']:>16.1f}{row['litertPercentOfFamilyPeak']:>7.0f}%"
              f"{row['oursPercentOfAVX2Peak']:>12.0f}% / {row['litertPercentOfAVX2Peak']:.0f}%")


def print_markdown(rows, machine, settings, peaks):
    print(f"Measured {machine['date']} at commit `{machine['commit']}` on {machine['cpu']} "
          f"({machine['logicalCores']} logical cores; {machine['cpuFlags']}), "
          f"1-minute load average {machine['loadAverage'][0]:.2f} at the start, "
          f"{machine['loadAverageAtEnd'][0]:.2f} at the end.")
    print(f"{machine['swift']}; Python {machine['python']}, ai-edge-litert {machine['aiEdgeLitert']}, "
          f"numpy {machine['numpy']}.")
    print(f"{settings['rounds']} alternating rounds, each {settings['warmup']} warm-up + "
          f"{settings['runs']} timed invocations per side; each figure is the median over rounds "
          f"of the per-round median; fastest states: each side's quickest round's 10th percentile. "
          f"CPU: the calling thread's CPU time per invocation (at 2 threads "
          f"without the helper threads).")
    families = f"ours {rows[0]['oursFamily']}, LiteRT {rows[0]['litertFamily']}" if rows else ""
    print(f"Kernel families: {families} (--instruction-set {settings['instructionSet']}). FMA peak of one "
          "core, measured: " + ", ".join(f"{family} {value:.1f} GFLOP/s" for family, value in peaks.items())
          + "; percentages are of the peak × threads.")
    print()
    print("| model | threads | ours median (ms) | LiteRT median (ms) | ours / LiteRT "
          "| fastest states, ours / LiteRT (ms) | ours CPU (ms) "
          "| LiteRT CPU (ms) | CPU ours / LiteRT | ours GFLOP/s (% of its peak) | LiteRT GFLOP/s (% of its peak) "
          "| % of AVX2 peak, ours / LiteRT | ours per round (ms) | LiteRT per round (ms) |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---|")
    for row in rows:
        ours_rounds = ", ".join(f"{value:.1f}" for value in row["oursRoundMediansMs"])
        litert_rounds = ", ".join(f"{value:.2f}" for value in row["litertRoundMediansMs"])
        print(f"| {row['model']} | {row['threads']} | {row['oursMedianMs']:.2f} | {row['litertMedianMs']:.2f} "
              f"| {row['ratio']:.2f} | {row['fastestRatio']:.2f} ({row['oursFastestMs']:.2f} / "
              f"{row['litertFastestMs']:.2f}) | {optional(row['oursCallingThreadCPUMs'])} "
              f"| {row['litertCallingThreadCPUMs']:.2f} | {optional(row['cpuRatio'])} "
              f"| {row['oursGflops']:.1f} ({row['oursPercentOfFamilyPeak']:.0f} %) "
              f"| {row['litertGflops']:.1f} ({row['litertPercentOfFamilyPeak']:.0f} %) "
              f"| {row['oursPercentOfAVX2Peak']:.0f} % / {row['litertPercentOfAVX2Peak']:.0f} % "
              f"| {ours_rounds} | {litert_rounds} |")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", nargs="+", default=MODELS, choices=MODELS, metavar="MODEL",
                        help="models to run (default: all of them)")
    parser.add_argument("--threads", nargs="+", type=int, default=[1, 2], help="thread counts (default: 1 2)")
    parser.add_argument("--rounds", type=int, default=3, help="alternating rounds K (default: 3)")
    parser.add_argument("--runs", type=int, default=50, help="timed invocations per round and side (default: 50)")
    parser.add_argument("--warmup", type=int, default=5, help="untimed invocations per round and side (default: 5)")
    add_binary_options(parser, INSTRUCTION_SETS)
    parser.add_argument("--build", action="store_true",
                        help="run `swift build -c release --product landmarker` at the repository root first")
    add_report_options(parser)
    args = parser.parse_args()
    for name, value in (("--rounds", args.rounds), ("--runs", args.runs)):
        if value < 1:
            parser.error(f"{name} must be at least 1")
    if args.warmup < 0 or any(t < 1 for t in args.threads):
        parser.error("--warmup must be at least 0 and every thread count at least 1")

    litert_interpreter, numpy = import_litert()
    if args.build:
        subprocess.run(["swift", "build", "-c", "release", "--product", "landmarker"], cwd=REPO_ROOT, check=True)
    if not args.landmarker.exists():
        sys.exit(f"compare_litert.py: {args.landmarker} not found: run `swift build -c release --product landmarker`"
                 " at the repository root, or pass --build")
    paths = {}
    for model in args.models:
        paths[model] = args.models_dir / f"{model}.tflite"
        if not paths[model].exists():
            sys.exit(f"compare_litert.py: missing model {paths[model]}: run models/fetch_models.sh")

    machine = machine_description({"aiEdgeLitert": "ai-edge-litert", "numpy": "numpy"})
    peaks = measure_peaks(args.landmarker, paths[args.models[0]])
    litert_family = "avx512" if cpu_has_avx512() else "avx2"
    if litert_family not in peaks:
        sys.exit("compare_litert.py: this CPU has AVX-512 but the landmarker reports no AVX-512 peak "
                 "(built without its AVX-512 kernels?)")
    pairs = [(model, threads) for model in args.models for threads in args.threads]
    ours = {pair: [] for pair in pairs}
    litert = {pair: [] for pair in pairs}
    for round_index in range(args.rounds):
        for model, threads in pairs:
            print(f"round {round_index + 1}/{args.rounds}: {model}, {threads} thread(s)", file=sys.stderr, flush=True)
            ours[(model, threads)].append(
                time_ours(args.landmarker, paths[model], threads, args.runs, args.warmup, args.instruction_set))
            litert[(model, threads)].append(
                time_litert(litert_interpreter, numpy, paths[model], threads, args.runs, args.warmup))
    machine["loadAverageAtEnd"] = list(os.getloadavg())

    rows = []
    for model, threads in pairs:
        row = {"model": model, "threads": threads, **summarize(ours[(model, threads)], litert[(model, threads)])}
        rows.append({**row, **rates(row, threads, peaks, litert_family)})
    settings = {"rounds": args.rounds, "runs": args.runs, "warmup": args.warmup,
                "instructionSet": args.instruction_set}
    emit_report({"machine": machine, "settings": settings, "fmaPeakGflopsPerCore": peaks, "results": rows}, args,
                lambda: print_markdown(rows, machine, settings, peaks), lambda: print_table(rows, peaks))


if __name__ == "__main__":
    main()
