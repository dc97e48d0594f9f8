#!/usr/bin/env python3
"""Sums a `compare_layers.py` report by kind of layer, and bounds what faster convolutions could give.

For each kind of layer (its operator names as `compare_layers.py` gives them, e.g. `CONV_2D+ADD`),
both sides' summed times, their ratio and their rates as a share of one core's FMA peak. Then the
bound: the sum of our layers if every dense convolution (CONV_2D and FULLY_CONNECTED, with whatever
PAD, ADD or PRELU is folded into it; not the depthwise ones) ran at `--at` % of the FMA peak (100 by
default; the best single layer of the six models reaches about 95 % on either side) and every other
layer took what it took, against LiteRT's sum. Outputs stay bit-identical to XNNPACK's only
if every sum keeps its order, so no convolution can do fewer multiply-adds than the model asks:
the bound is what the convolutions alone can still give, and it says how fast everything else
would have to get for a whole-model goal (e.g. `--goal 0.8`).

The sums of slices are not whole-model times (each slice pays its own invoke, LiteRT runs ADD and
PRELU as operators of their own; `compare_layers.py`): read the bound as a ratio of sums.

Run (from the repository root):
    python3 Benchmarks/peer/layer_summary.py Benchmarks/peer/results/2026-11-28-zen3-avx2-layers-hand_landmark_full.json \
        [--peak 103.3] [--at 100] [--goal 0.8] [--markdown]
"""

import argparse
import json
import sys
from pathlib import Path


def is_dense_convolution(name):
    """A layer whose multiply-adds a GEMM does: a CONV_2D or FULLY_CONNECTED, not a depthwise one."""
    operators = name.split("+")
    return "FULLY_CONNECTED" in operators or "CONV_2D" in operators


def summarize(report, peak_gflops, at_percent, goal):
    """Per-kind sums and the bound for a `compare_layers.py` report, with the dense convolutions at
    `at_percent` % of the peak; times in ms, peak in GFLOP/s."""
    threads = report["threads"]
    peak = peak_gflops * threads
    kinds = {}
    for layer in report["layers"]:
        kind = kinds.setdefault(layer["name"], {"kind": layer["name"], "layers": 0, "oursMs": 0.0,
                                                "litertMs": 0.0, "multiplyAccumulates": 0})
        kind["layers"] += 1
        kind["oursMs"] += layer["oursMedianMs"]
        kind["litertMs"] += layer["litertMedianMs"]
        kind["multiplyAccumulates"] += layer["multiplyAccumulates"]

    def percent_of_peak(multiply_accumulates, milliseconds):
        return 100 * 2 * multiply_accumulates / (milliseconds * 1e6) / peak if milliseconds > 0 else 0.0

    rows = sorted(kinds.values(), key=lambda kind: -kind["litertMs"])
    for kind in rows:
        kind["ratio"] = kind["oursMs"] / kind["litertMs"]
        kind["oursPercentOfPeak"] = percent_of_peak(kind["multiplyAccumulates"], kind["oursMs"])
        kind["litertPercentOfPeak"] = percent_of_peak(kind["multiplyAccumulates"], kind["litertMs"])
    ours = sum(kind["oursMs"] for kind in rows)
    litert = sum(kind["litertMs"] for kind in rows)
    dense = [kind for kind in rows if is_dense_convolution(kind["kind"])]
    dense_ours = sum(kind["oursMs"] for kind in dense)
    dense_at_peak = sum(2 * kind["multiplyAccumulates"] / (peak * at_percent / 100 * 1e6) for kind in dense)
    rest_ours = ours - dense_ours
    rest_litert = litert - sum(kind["litertMs"] for kind in dense)
    bound = (dense_at_peak + rest_ours) / litert
    # What the other layers may take, with the convolutions at the peak, for the goal.
    rest_allowed = goal * litert - dense_at_peak
    return {
        "kinds": rows,
        "oursMs": ours, "litertMs": litert, "ratio": ours / litert,
        "denseConvolutionsOursMs": dense_ours, "boundPercentOfPeak": at_percent,
        "denseConvolutionsAtBoundMs": dense_at_peak,
        "denseConvolutionsOursPercentOfPeak": at_percent * dense_at_peak / dense_ours if dense_ours else 0.0,
        "otherOursMs": rest_ours, "otherLitertMs": rest_litert,
        "boundRatio": bound, "goal": goal,
        "otherAllowedMs": rest_allowed,
        "otherAllowedRatio": rest_allowed / rest_litert if rest_litert else float("nan"),
    }


def describe(report, peak_gflops, summary):
    machine = report["machine"]
    return (f"{report['model']}, {report['threads']} thread(s), --instruction-set {report['instructionSet']}, "
            f"measured {machine['date']} at `{machine['commit']}` on {machine['cpu']} "
            f"({machine['cpuFlags']}); FMA peak of one core {peak_gflops:.1f} GFLOP/s.")


def bound_lines(summary):
    goal = summary["goal"]
    allowed = summary["otherAllowedRatio"]
    return [
        f"dense convolutions: ours {summary['denseConvolutionsOursMs']:.3f} ms at "
        f"{summary['denseConvolutionsOursPercentOfPeak']:.0f} % of the peak, "
        f"{summary['denseConvolutionsAtBoundMs']:.3f} ms at {summary['boundPercentOfPeak']:.0f} %",
        f"with them at {summary['boundPercentOfPeak']:.0f} % and every other layer as measured: {summary['boundRatio']:.2f} × LiteRT's sum "
        f"(as measured: {summary['ratio']:.2f})",
        f"for {goal:.2f} × LiteRT's sum with them there, " + (
            "every other layer would have to take no time at all: out of reach"
            if summary["otherAllowedMs"] <= 0 else
            f"the convolutions alone get there (there are no other layers)" if summary["otherLitertMs"] == 0 else
            f"the other layers would have to take {summary['otherAllowedMs']:.3f} ms, {allowed:.2f} × LiteRT's "
            f"{summary['otherLitertMs']:.3f} ms (ours now {summary['otherOursMs'] / summary['otherLitertMs']:.2f} ×)"),
    ]


def print_table(report, peak_gflops, summary):
    print(describe(report, peak_gflops, summary))
    print(f"{'kind':<26}{'layers':>7}{'ours ms':>10}{'LiteRT ms':>11}{'ratio':>7}{'ours % peak':>13}{'LiteRT % peak':>15}")
    for kind in summary["kinds"]:
        print(f"{kind['kind']:<26}{kind['layers']:>7}{kind['oursMs']:>10.3f}{kind['litertMs']:>11.3f}"
              f"{kind['ratio']:>7.2f}{kind['oursPercentOfPeak']:>12.0f}%{kind['litertPercentOfPeak']:>14.0f}%")
    print(f"{'all':<26}{len(report['layers']):>7}{summary['oursMs']:>10.3f}{summary['litertMs']:>11.3f}"
          f"{summary['ratio']:>7.2f}")
    for line in bound_lines(summary):
        print(line)


def print_markdown(report, peak_gflops, summary):
    print(describe(report, peak_gflops, summary))
    print()
    print("| layers | count | ours (ms) | LiteRT (ms) | ours / LiteRT | ours, % of FMA peak | LiteRT, % of FMA peak |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for kind in summary["kinds"]:
        print(f"| {kind['kind']} | {kind['layers']} | {kind['oursMs']:.3f} | {kind['litertMs']:.3f} "
              f"| {kind['ratio']:.2f} | {kind['oursPercentOfPeak']:.0f} | {kind['litertPercentOfPeak']:.0f} |")
    print(f"| all | {len(report['layers'])} | {summary['oursMs']:.3f} | {summary['litertMs']:.3f} "
          f"| {summary['ratio']:.2f} | | |")
    print()
    for line in bound_lines(summary):
        print(f"- {line}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("report", type=Path, help="a JSON report written by compare_layers.py --json-file")
    parser.add_argument("--peak", type=float,
                        help="one core's FMA peak in GFLOP/s (default: the report's fmaPeakGflopsPerCore)")
    parser.add_argument("--at", type=float, default=100.0,
                        help="the dense convolutions' rate for the bound, %% of the FMA peak (default: 100)")
    parser.add_argument("--goal", type=float, default=0.8, help="the whole-model ratio to aim at (default: 0.8)")
    output = parser.add_mutually_exclusive_group()
    output.add_argument("--json", action="store_true", help="print JSON instead of a table")
    output.add_argument("--markdown", action="store_true", help="print a Markdown table")
    arguments = parser.parse_args()
    try:
        report = json.loads(arguments.report.read_text())
        missing = [field for field in ("model", "threads", "instructionSet", "machine") if field not in report]
        missing += [f"machine.{field}" for field in ("date", "commit", "cpu", "cpuFlags")
                    if field not in report.get("machine", {})]
        if missing:
            raise ValueError(f"no {', '.join(missing)}")
        layers = report["layers"]
        fields = ("name", "oursMedianMs", "litertMedianMs", "multiplyAccumulates")
        if not layers or any(field not in layer for layer in layers for field in fields):
            raise ValueError(f"every layer needs {', '.join(fields)}")
        if any(layer["litertMedianMs"] <= 0 or layer["oursMedianMs"] < 0 for layer in layers):
            raise ValueError("a layer has a time that is not positive")
    except (OSError, ValueError, KeyError, TypeError) as error:
        sys.exit(f"layer_summary.py: {arguments.report}: not a compare_layers.py report ({error})")
    peak = arguments.peak or report.get("fmaPeakGflopsPerCore")
    if not peak or peak <= 0:
        sys.exit("layer_summary.py: the report records no FMA peak (one older than the peak field): pass --peak "
                 "(`landmarker bench MODEL --json` reports fmaPeakGflopsPerCore)")
    if not 0 < arguments.goal:
        parser.error("--goal must be positive")
    if not 0 < arguments.at <= 100:
        parser.error("--at must be above 0 and at most 100")
    summary = summarize(report, peak, arguments.at, arguments.goal)
    if arguments.json:
        print(json.dumps({"model": report["model"], "threads": report["threads"], "fmaPeakGflopsPerCore": peak,
                          **summary}, indent=2))
    elif arguments.markdown:
        print_markdown(report, peak, summary)
    else:
        print_table(report, peak, summary)


if __name__ == "__main__":
    main()
