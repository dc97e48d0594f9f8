#!/usr/bin/env python3
"""Side-by-side time per frame of the whole pose, hand, face and holistic landmarkers: ours and MediaPipe's.

For each task (pose, hand, face, holistic), running mode (image, video) and thread count, one session
alternates K rounds of
  1. `landmarker pipeline-bench TASK --frames DIR --mode MODE --threads T --runs R --json`
     (a subprocess; frames decoded before timing), and
  2. MediaPipe's `PoseLandmarker` / `HandLandmarker` from `create_from_options` in this process,
     running mode IMAGE (`detect`) or VIDEO (`detect_for_video`, timestamps frame index x 40 ms,
     a fresh landmarker per pass), R passes over the same frames, loaded beforehand as RGB numpy
     arrays, each call timed with `time.perf_counter`; for face, MediaPipe's legacy Face Mesh
     (`mp.solutions.face_mesh.FaceMesh`, max_num_faces 1, refine_landmarks off,
     static_image_mode in image mode), the graph our face landmarker reproduces; for holistic,
     MediaPipe's legacy Holistic (`mp.solutions.holistic.Holistic`, model_complexity 1,
     refine_face_landmarks off, static_image_mode in image mode, a fresh graph per pass),
and reports the median over rounds of each side's per-round median ms per frame, and their ratio.

MediaPipe's Python Tasks API has no thread-count option (`BaseOptions` takes a model and a
delegate only), so its column is the same configuration at every `--threads` value; only ours
changes. MediaPipe's graphs run their calculators on threads of their own (legacy Holistic runs
the face and the hands beside the body), so "1 thread" above is ours on one thread against
MediaPipe on every CPU; `--cpus N` pins the whole session, both sides, to N CPUs (the first N
this process may use), so that `--threads 1 --cpus 1` compares one core with one core.

Both sides run the same six `models/*.tflite` weights. MediaPipe's bundles are built in a
temporary folder with mediapipe's own tools: pose_detection + pose_landmark_full (the latter
given image-input NormalizationOptions metadata, mean 0 and std 255, which PoseLandmarker
requires for a float32 input), palm_detection_full + hand_landmark_full.

Set up once (from the repository root):
    swift build -c release --product landmarker
    python3 -m venv Benchmarks/.venv-mediapipe
    Benchmarks/.venv-mediapipe/bin/pip install -r Benchmarks/peer/requirements-mediapipe.txt
Run:
    Benchmarks/.venv-mediapipe/bin/python Benchmarks/peer/compare_mediapipe.py [--markdown] [--json]
The script re-runs itself with Benchmarks/.venv-mediapipe/bin/python when started with a
Python that lacks mediapipe and that venv exists.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from mediapipe_bundles import build_bundle, import_mediapipe
from peer_common import REPO_ROOT, emit_report, machine_description

# The golden tests' clip, made from a sample photo by scripts/fetch_samples.sh.
DEFAULT_FRAMES = REPO_ROOT / "samples" / "fixtures" / "video" / "t1_sweep"
TASKS = ["pose", "hand", "face", "holistic"]
DEFAULT_TASKS = ["pose", "hand", "face"]
MODES = ["image", "video"]
FRAME_INTERVAL_MS = 40  # 25 fps, as `landmarker pipeline-bench` uses
SCRIPT = "compare_mediapipe.py"


def load_frames(numpy, folder):
    """The PNG/JPEG frames of `folder`, sorted by name, as RGB uint8 arrays [H, W, 3]."""
    from PIL import Image
    names = sorted(p for p in folder.iterdir() if p.suffix.lower() in (".png", ".jpg", ".jpeg"))
    if not names:
        sys.exit(f"compare_mediapipe.py: no PNG or JPEG frames in {folder}")
    return [numpy.ascontiguousarray(numpy.asarray(Image.open(p).convert("RGB"))) for p in names]


def percentiles(milliseconds):
    milliseconds = sorted(milliseconds)

    def percentile(p):
        return milliseconds[min(len(milliseconds) - 1, round((len(milliseconds) - 1) * p))]

    return {"medianMs": percentile(0.5), "p10Ms": percentile(0.1), "p90Ms": percentile(0.9)}


def time_ours(landmarker, task, frames_dir, mode, threads, runs):
    """Runs `landmarker pipeline-bench --json` and returns its report."""
    command = [str(landmarker), "pipeline-bench", task, "--frames", str(frames_dir), "--mode", mode,
               "--threads", str(threads), "--runs", str(runs), "--json"]
    result = subprocess.run(command, cwd=REPO_ROOT, capture_output=True, text=True)
    if result.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} failed ({result.returncode}): {result.stderr.strip()}")
    return json.loads(result.stdout)


def time_legacy_solution(open_graph, found, frames, runs):
    """Times a legacy solution graph per frame over `runs` passes, a fresh graph (`open_graph()`)
    per pass; `found(result)` tells whether a frame gave a result. Returns percentiles in ms."""
    milliseconds = []
    frames_with_result = 0
    for _ in range(runs):
        frames_with_result = 0
        with open_graph() as graph:
            for frame in frames:
                start = time.perf_counter()
                result = graph.process(frame)
                milliseconds.append((time.perf_counter() - start) * 1e3)
                if found(result):
                    frames_with_result += 1
    return {**percentiles(milliseconds), "framesWithResultLastRun": frames_with_result}


def time_face_mesh(mediapipe, frames, mode, runs):
    """Times MediaPipe's legacy Face Mesh per frame (see `time_legacy_solution`)."""
    return time_legacy_solution(
        lambda: mediapipe.solutions.face_mesh.FaceMesh(
            static_image_mode=mode == "image", max_num_faces=1, refine_landmarks=False,
            min_detection_confidence=0.5, min_tracking_confidence=0.5),
        lambda result: bool(result.multi_face_landmarks), frames, runs)


def time_holistic(mediapipe, frames, mode, runs):
    """Times MediaPipe's legacy Holistic per frame (see `time_legacy_solution`)."""
    return time_legacy_solution(
        lambda: mediapipe.solutions.holistic.Holistic(
            static_image_mode=mode == "image", model_complexity=1, refine_face_landmarks=False,
            min_detection_confidence=0.5, min_tracking_confidence=0.5),
        lambda result: result.pose_landmarks is not None, frames, runs)


def time_mediapipe(mediapipe, task, bundle, frames, mode, runs):
    """Times MediaPipe's landmarker per frame over `runs` passes; returns percentiles in ms."""
    if task == "face":
        return time_face_mesh(mediapipe, frames, mode, runs)
    if task == "holistic":
        return time_holistic(mediapipe, frames, mode, runs)
    from mediapipe.tasks.python import vision
    from mediapipe.tasks.python.core.base_options import BaseOptions
    running_mode = vision.RunningMode.IMAGE if mode == "image" else vision.RunningMode.VIDEO

    def create():
        base = BaseOptions(model_asset_path=str(bundle))
        if task == "pose":
            return vision.PoseLandmarker.create_from_options(
                vision.PoseLandmarkerOptions(base_options=base, running_mode=running_mode, num_poses=1))
        return vision.HandLandmarker.create_from_options(
            vision.HandLandmarkerOptions(base_options=base, running_mode=running_mode, num_hands=2))

    images = [mediapipe.Image(image_format=mediapipe.ImageFormat.SRGB, data=frame) for frame in frames]
    milliseconds = []
    frames_with_result = 0
    landmarker = create() if mode == "image" else None
    for _ in range(runs):
        if mode == "video":
            if landmarker is not None:
                landmarker.close()
            landmarker = create()
        frames_with_result = 0
        for index, image in enumerate(images):
            start = time.perf_counter()
            if mode == "image":
                result = landmarker.detect(image)
            else:
                result = landmarker.detect_for_video(image, index * FRAME_INTERVAL_MS)
            milliseconds.append((time.perf_counter() - start) * 1e3)
            if result.pose_landmarks if task == "pose" else result.hand_landmarks:
                frames_with_result += 1
    landmarker.close()
    return {**percentiles(milliseconds), "framesWithResultLastRun": frames_with_result}


def summarize(rounds_ours, rounds_mediapipe):
    ours = statistics.median(r["medianMs"] for r in rounds_ours)
    theirs = statistics.median(r["medianMs"] for r in rounds_mediapipe)
    return {
        "oursMedianMs": ours,
        "mediapipeMedianMs": theirs,
        "ratio": ours / theirs,
        "oursRoundMediansMs": [r["medianMs"] for r in rounds_ours],
        "mediapipeRoundMediansMs": [r["medianMs"] for r in rounds_mediapipe],
        "oursFramesWithResult": rounds_ours[-1]["framesWithResultLastRun"],
        "mediapipeFramesWithResult": rounds_mediapipe[-1]["framesWithResultLastRun"],
    }


def print_table(rows):
    print(f"{'task':<10}{'mode':<7}{'threads':>8}{'ours ms':>10}{'MediaPipe ms':>14}{'ours/MP':>9}")
    for row in rows:
        print(f"{row['task']:<10}{row['mode']:<7}{row['threads']:>8}{row['oursMedianMs']:>10.2f}"
              f"{row['mediapipeMedianMs']:>14.2f}{row['ratio']:>9.2f}")


def print_markdown(rows, machine, settings):
    print(f"Measured {machine['date']} at commit `{machine['commit']}` on {machine['cpu']} "
          f"({machine['logicalCores']} logical cores; {machine['cpuFlags']}), "
          f"1-minute load average {machine['loadAverage'][0]:.2f} at the start, "
          f"{machine['loadAverageAtEnd'][0]:.2f} at the end.")
    print(f"{machine['swift']}; Python {machine['python']}, mediapipe {machine['mediapipe']}, "
          f"numpy {machine['numpy']}.")
    print(f"Frames: `{settings['frames']}` ({settings['frameCount']} frames, {settings['size']}). "
          f"{settings['rounds']} alternating rounds, each {settings['runs']} passes over the frames per side; "
          f"each figure is the median over rounds of the per-round median ms per frame. "
          f"MediaPipe's Python Tasks API has no thread option: its column does not depend on `threads`. "
          f"Both sides ran on {settings['cpus']} CPU(s).")
    print()
    print("| task | mode | threads | ours median (ms/frame) | MediaPipe median (ms/frame) | ours / MediaPipe "
          "| frames with a result, ours / MediaPipe | ours per round | MediaPipe per round |")
    print("|---|---|---:|---:|---:|---:|---|---|---|")
    for row in rows:
        ours_rounds = ", ".join(f"{value:.1f}" for value in row["oursRoundMediansMs"])
        theirs_rounds = ", ".join(f"{value:.1f}" for value in row["mediapipeRoundMediansMs"])
        print(f"| {row['task']} | {row['mode']} | {row['threads']} | {row['oursMedianMs']:.2f} "
              f"| {row['mediapipeMedianMs']:.2f} | {row['ratio']:.2f} "
              f"| {row['oursFramesWithResult']} / {row['mediapipeFramesWithResult']} "
              f"| {ours_rounds} | {theirs_rounds} |")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=Path, default=DEFAULT_FRAMES,
                        help=f"folder of PNG/JPEG frames (default: {DEFAULT_FRAMES})")
    parser.add_argument("--tasks", nargs="+", default=DEFAULT_TASKS, choices=TASKS,
                        help="tasks (default: pose hand face)")
    parser.add_argument("--modes", nargs="+", default=MODES, choices=MODES, help="running modes (default: image video)")
    parser.add_argument("--threads", nargs="+", type=int, default=[1, 2], help="our thread counts (default: 1 2)")
    parser.add_argument("--rounds", type=int, default=3, help="alternating rounds K (default: 3)")
    parser.add_argument("--runs", type=int, default=2, help="passes over the frames per round and side (default: 2)")
    parser.add_argument("--landmarker", type=Path, default=REPO_ROOT / ".build" / "release" / "landmarker",
                        help="the landmarker executable (default: .build/release/landmarker)")
    parser.add_argument("--models-dir", type=Path, default=REPO_ROOT / "models", help="folder of the .tflite files")
    parser.add_argument("--build", action="store_true",
                        help="run `swift build -c release --product landmarker` at the repository root first")
    output = parser.add_mutually_exclusive_group()
    output.add_argument("--json", action="store_true", help="print JSON instead of a table")
    output.add_argument("--markdown", action="store_true", help="print a Markdown table with the machine description")
    parser.add_argument("--json-file", type=Path, help="also write the JSON report to this file")
    parser.add_argument("--cpus", type=int,
                        help="pin both sides to this many CPUs (the first this process may use; default: all)")
    args = parser.parse_args()
    for name, value in (("--rounds", args.rounds), ("--runs", args.runs)):
        if value < 1:
            parser.error(f"{name} must be at least 1")
    if any(t < 1 for t in args.threads):
        parser.error("every thread count must be at least 1")
    if not args.frames.is_dir():
        parser.error(f"--frames {args.frames} is not a folder")
    available = sorted(os.sched_getaffinity(0))
    if args.cpus is not None:
        if not 1 <= args.cpus <= len(available):
            parser.error(f"--cpus must be between 1 and {len(available)}, the CPUs this process may use")
        # Before MediaPipe starts any thread: its threads and our subprocesses inherit the mask.
        os.sched_setaffinity(0, set(available[:args.cpus]))

    mediapipe, numpy = import_mediapipe(SCRIPT)
    if args.build:
        subprocess.run(["swift", "build", "-c", "release", "--product", "landmarker"], cwd=REPO_ROOT, check=True)
    if not args.landmarker.exists():
        sys.exit(f"compare_mediapipe.py: {args.landmarker} not found: run `swift build -c release --product landmarker`"
                 " at the repository root, or pass --build")

    frames = load_frames(numpy, args.frames)
    machine = machine_description({"mediapipe": "mediapipe", "numpy": "numpy"})
    frames_folder = args.frames.resolve()
    # Recorded relative to the repository, so that a report names no machine's folders.
    recorded_frames = (str(frames_folder.relative_to(REPO_ROOT)) if frames_folder.is_relative_to(REPO_ROOT)
                       else frames_folder.name)
    settings = {"frames": recorded_frames, "frameCount": len(frames),
                "size": f"{frames[0].shape[1]}x{frames[0].shape[0]}", "rounds": args.rounds, "runs": args.runs,
                "cpus": len(os.sched_getaffinity(0))}
    combos = [(task, mode, threads) for task in args.tasks for mode in args.modes for threads in args.threads]
    ours = {combo: [] for combo in combos}
    theirs = {combo: [] for combo in combos}
    with tempfile.TemporaryDirectory() as folder:
        bundles = {task: build_bundle(task, args.models_dir, Path(folder), SCRIPT) if task in ("pose", "hand") else None
                   for task in args.tasks}
        for round_index in range(args.rounds):
            for task, mode, threads in combos:
                print(f"round {round_index + 1}/{args.rounds}: {task}, {mode} mode, {threads} thread(s)",
                      file=sys.stderr, flush=True)
                ours[(task, mode, threads)].append(
                    time_ours(args.landmarker, task, args.frames, mode, threads, args.runs))
                theirs[(task, mode, threads)].append(
                    time_mediapipe(mediapipe, task, bundles[task], frames, mode, args.runs))
    machine["loadAverageAtEnd"] = list(os.getloadavg())

    rows = [{"task": task, "mode": mode, "threads": threads, **summarize(ours[combo], theirs[combo])}
            for combo in combos for task, mode, threads in [combo]]
    emit_report({"machine": machine, "settings": settings, "results": rows}, args,
                lambda: print_markdown(rows, machine, settings), lambda: print_table(rows))


if __name__ == "__main__":
    main()
