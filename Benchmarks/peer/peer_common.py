"""Helpers shared by the peer comparison scripts: shell output and a description of the
machine a measurement was taken on."""
import datetime
import json
import os
import platform
import subprocess
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]


def command_output(command):
    try:
        return subprocess.run(command, capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def fastest_state_ms(rounds):
    """A side's fastest state over `rounds` (timing reports with "p10Ms"): the quickest round's 10th
    percentile. On a host that switches between a fast and a slow state for seconds at a time, a
    ratio of medians depends on which side the slow seconds fell; a ratio of fastest states does not
    (Benchmarks/JOURNAL.md, 2026-12-06)."""
    return min(r["p10Ms"] for r in rounds)


def machine_description(packages):
    """CPU model, core count, load, versions and commit: what a reader needs to judge the numbers.

    `packages` maps a JSON key to the Python distribution whose version it reports,
    e.g. {"aiEdgeLitert": "ai-edge-litert", "numpy": "numpy"}."""
    model_name = "unknown"
    for line in command_output(["lscpu"]).splitlines():
        if line.startswith("Model name:"):
            model_name = line.split(":", 1)[1].strip()
    flags = ""
    try:
        cpuinfo = {}
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            key, _, value = line.partition(":")
            cpuinfo.setdefault(key.strip(), value.strip())
        present = set(cpuinfo.get("flags", "").split())
        flags = " ".join(f for f in ("avx2", "fma", "avx512f") if f in present)
        if "cpu family" in cpuinfo:
            model_name += f" (family {cpuinfo['cpu family']}, model {cpuinfo.get('model', '?')})"
    except OSError:
        pass
    from importlib.metadata import PackageNotFoundError, version
    versions = {}
    for key, distribution in packages.items():
        try:
            versions[key] = version(distribution)
        except PackageNotFoundError:
            versions[key] = "unknown"
    return {
        "cpu": model_name,
        "cpuFlags": flags,
        "logicalCores": os.cpu_count(),
        "loadAverage": list(os.getloadavg()),
        "swift": command_output(["swift", "--version"]).splitlines()[0],
        "python": platform.python_version(),
        **versions,
        "commit": command_output(["git", "-C", str(REPO_ROOT), "rev-parse", "--short", "HEAD"]),
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
    }


def add_binary_options(parser, instruction_sets):
    """The options of every script that times our binary: `--instruction-set` (a key of
    `instruction_sets`), `--landmarker` and `--models-dir`."""
    parser.add_argument("--instruction-set", choices=sorted(instruction_sets), default="detected",
                        help="our kernels: the family this CPU chooses (default), or avx2 "
                             "(LANDMARKER_NO_AVX512=1) even where the CPU has AVX-512")
    parser.add_argument("--landmarker", type=Path, default=REPO_ROOT / ".build" / "release" / "landmarker",
                        help="the landmarker executable (default: .build/release/landmarker)")
    parser.add_argument("--models-dir", type=Path, default=REPO_ROOT / "models", help="folder of the .tflite files")


def add_report_options(parser):
    """`--json` or `--markdown` (one of them), and `--json-file`: what `emit_report` reads."""
    output = parser.add_mutually_exclusive_group()
    output.add_argument("--json", action="store_true", help="print JSON instead of a table")
    output.add_argument("--markdown", action="store_true", help="print Markdown with the machine description")
    parser.add_argument("--json-file", type=Path, help="also write the JSON report to this file")


def emit_report(report, arguments, print_markdown, print_table):
    """Writes `report` (a JSON-serialisable dict) to `arguments.json_file` when given, then prints
    it as `arguments.json` or `arguments.markdown` ask, or calls `print_table()`."""
    text = json.dumps(report, indent=2)
    if arguments.json_file:
        arguments.json_file.write_text(text + "\n")
    if arguments.json:
        print(text)
    elif arguments.markdown:
        print_markdown()
    else:
        print_table()
