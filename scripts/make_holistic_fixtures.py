#!/usr/bin/env python3
"""Writes the holistic part of Tests/Fixtures: what MediaPipe 0.10.21's legacy Holistic graph
(holistic_landmark_cpu, `mp.solutions.holistic.Holistic`, model_complexity 1, segmentation on)
outputs on the golden-test images and clip of scripts/fixture_images.py, with the graph's
intermediate streams.

- legacy/holistic_{plain,refined}/<image>.json: static images, refine_face_landmarks off
  (face_landmark.tflite, 468 points) and on (face_landmark_with_attention.tflite, 478 points).
- legacy/video/<clip>/holistic_{plain,refined}_tracking/frame_NNNN.json: the clip as a stream
  (smooth_landmarks and use_prev_landmarks on: the pose, face and hand ROIs follow the previous
  frame's landmarks), refine off and on.
- legacy/video/<clip>/holistic_plain_static/frame_NNNN.json: the clip frame by frame (static).

Each file holds the graph's output streams (pose landmarks and world landmarks with visibility and
presence, face landmarks as [x, y, z] triples, left and right hand landmarks, the pose ROI and
detection, the segmentation mask) and the intermediate streams of INTERMEDIATE under their names
in the expanded graph; null where the graph emitted no packet on a stream at that frame. Side inputs and calculator
options are those `mp.solutions.holistic` sets; `Holistic.process` clears the pose landmarks'
presence, this script keeps it. Every confidence is 0.5. The graph runs on SolutionBase's
simulated clock (33333 us per frame, the first frame at 33333 us), recorded per clip frame as
graph_timestamp_us.

The segmentation mask (`enable_segmentation` on; `smooth_segmentation` on in the tracking runs, as
`mp.solutions.holistic` sets it, though in 0.10.21 it changes no mask) is recorded as the FNV-1a
64 hash of its float32 bytes (row-major, little-endian), its mean in float64 and the fraction of pixels above 0.5; for the static images
and every tenth clip frame of the plain tracking run also as an 8-bit grey PNG
(<name>_mask.png beside the JSON, value = round(clip(mask, 0, 1) * 255)).

As scripts/make_face_fixtures.py does, on an AVX-512 host this script runs under QEMU as an AVX2 +
FMA CPU (scripts/avx2_emulation.py), so that XNNPACK inside MediaPipe takes the AVX2 + FMA kernels
this package's kernels reproduce. Run it through scripts/make_fixtures.sh (after make_fixtures.py,
which clears nothing of this script's folders).
"""

import sys
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO_ROOT / "Benchmarks" / "peer"))
sys.path.insert(0, str(REPO_ROOT / "scripts"))
from mediapipe_bundles import import_mediapipe  # noqa: E402
from fixture_images import CLIP, IMAGES  # noqa: E402
import make_fixtures  # noqa: E402
from make_fixtures import INPUTS, LEGACY_FRAME_US, OUTPUT, Runs, image_record, read_rgb, write_json  # noqa: E402
from make_references import CONFIDENCE  # noqa: E402
from fnv1a import fnv1a64  # noqa: E402
from avx2_emulation import describe_cpu, run_as_avx2_cpu  # noqa: E402

SCRIPT = "make_holistic_fixtures.py"
SCHEMA = "landmarker-fixtures/legacy-holistic/1"
GRAPH = "legacy solutions graph holistic_landmark_cpu"
MODEL_COMPLEXITY = 1
# (refined, static) runs on the clip.
CLIP_RUNS = [(False, False), (True, False), (False, True)]
# Every MASK_PNG_STEP-th clip frame of the plain tracking run also gets its mask as a PNG.
MASK_PNG_STEP = 10

HANDS = "handlandmarksleftandrightcpu__"
# Intermediate streams of the expanded graph: stream name -> kind.
INTERMEDIATE = {
    "poselandmarkcpu__pose_rect_from_detection": "rect",
    "poselandmarkcpu__pose_rect": "rect",  # the ROI the pose landmark model ran on
    "facelandmarksfromposecpu__face_roi_from_pose": "rect",
    "facelandmarksfromposecpu__face_detections": "detections",
    "facelandmarksfromposecpu__face_roi_from_detection": "rect",
    "facelandmarksfromposecpu__face_tracking_roi": "rect",  # the ROI the face landmark model ran on
    **{f"{HANDS}{side}_hand_{roi}": "rect" for side in ["left", "right"]
       for roi in ["roi_from_pose", "roi_from_recrop", "tracking_roi"]},  # tracking_roi: the hand model's ROI
    # The hand landmark model's presence score (gated at 0.5) and world landmarks; _1 left, _2 right.
    **{f"{HANDS}handlandmarksfromposecpu_{k}__handlandmarkcpu__hand_{stream}": kind for k in [1, 2]
       for stream, kind in [("presence_score", "float"), ("world_landmarks", "landmarks")]},
    "facelandmarksfromposecpu__facelandmarkcpu__face_presence_score": "float",  # gated at 0.5
}
OUTPUTS = ["pose_landmarks", "pose_world_landmarks", "face_landmarks", "left_hand_landmarks",
           "right_hand_landmarks", "pose_landmarks_roi", "pose_detection", "segmentation_mask"]


class HolisticRuns(Runs):
    def legacy_holistic(self, refined, static):
        return self.SolutionBase(
            binary_graph_path="mediapipe/modules/holistic_landmark/holistic_landmark_cpu.binarypb",
            side_inputs={"model_complexity": MODEL_COMPLEXITY, "smooth_landmarks": not static,
                         "enable_segmentation": True, "smooth_segmentation": not static,
                         "refine_face_landmarks": refined, "use_prev_landmarks": not static},
            calculator_params={
                "poselandmarkcpu__posedetectioncpu__TensorsToDetectionsCalculator.min_score_thresh": CONFIDENCE,
                "poselandmarkcpu__poselandmarkbyroicpu__tensorstoposelandmarksandsegmentation"
                "__ThresholdingCalculator.threshold": CONFIDENCE},
            outputs=OUTPUTS + list(INTERMEDIATE))

    def value(self, kind, packet):
        if packet is None:
            return None
        if kind == "rect":
            return self.rect(packet)
        if kind == "float":
            return self.f32(packet)
        if kind == "detections":
            return [self.detection(d) for d in packet]
        return [self.landmark(p, False) for p in packet.landmark]

    def mask_record(self, mask, png_relative):
        """The segmentation mask's hash, mean and fraction above 0.5; also a PNG at `png_relative` when given."""
        if mask is None:
            return None
        np = self.np
        values = np.ascontiguousarray(np.asarray(mask, dtype=np.float32).reshape(mask.shape[0], mask.shape[1]))
        record = {"width": int(values.shape[1]), "height": int(values.shape[0]),
                  "float32_fnv1a64": fnv1a64(values.astype("<f4").tobytes()),
                  "mean": float(values.mean(dtype=np.float64)), "fraction_gt_0.5": float((values > 0.5).mean())}
        if png_relative:
            from PIL import Image
            Image.fromarray(np.round(np.clip(values, 0, 1) * 255).astype(np.uint8), mode="L").save(
                OUTPUT / png_relative, format="PNG")
            record["file"] = png_relative
            record["encoding"] = "8-bit gray PNG, value = round(clip(mask,0,1)*255)"
        return record

    def holistic_entry(self, result, mask_png=None):
        def landmarks(name, with_scores=False):
            packet = getattr(result, name)
            return None if packet is None else [self.landmark(p, with_scores) for p in packet.landmark]
        face = result.face_landmarks
        return {
            "pose_present": result.pose_landmarks is not None,
            "pose_landmarks": landmarks("pose_landmarks", True),
            "pose_world_landmarks": landmarks("pose_world_landmarks", True),
            "face_landmarks": None if face is None else
            [[self.f32(p.x), self.f32(p.y), self.f32(p.z)] for p in face.landmark],
            "left_hand_landmarks": landmarks("left_hand_landmarks"),
            "right_hand_landmarks": landmarks("right_hand_landmarks"),
            "pose_landmarks_roi": self.value("rect", result.pose_landmarks_roi),
            "pose_detection": None if result.pose_detection is None else self.detection(result.pose_detection),
            "segmentation_mask": self.mask_record(result.segmentation_mask, mask_png),
            "intermediate": {name: self.value(kind, getattr(result, name)) for name, kind in INTERMEDIATE.items()},
        }


def producer(static, refined):
    return {**make_fixtures.producer(
        GRAPH, static_image_mode=static, model_complexity=MODEL_COMPLEXITY, smooth_landmarks=not static,
        enable_segmentation=True, smooth_segmentation=not static, refine_face_landmarks=refined,
        use_prev_landmarks=not static),
        "script": f"scripts/{SCRIPT}", "cpu": describe_cpu()}


def folder_name(refined):
    return f"holistic_{'refined' if refined else 'plain'}"


def main():
    mp, np = import_mediapipe(SCRIPT)
    run_as_avx2_cpu(SCRIPT)
    missing = [name for name in IMAGES if not (INPUTS / "images" / f"{name}.png").exists()]
    if missing or not (INPUTS / "video" / CLIP["name"] / ".complete").exists():
        sys.exit(f"{SCRIPT}: the golden-test images are not in {INPUTS}: run scripts/fetch_samples.sh")
    for old in [*(OUTPUT / "legacy").rglob("*.json"), *(OUTPUT / "legacy").rglob("*.png")]:
        if "holistic_" in str(old.relative_to(OUTPUT)):
            old.unlink()
    runs = HolisticRuns(mp, np, {})
    for name in IMAGES:
        print(f"{SCRIPT}: {name}", file=sys.stderr)
        pixels = read_rgb(INPUTS / "images" / f"{name}.png")
        record = image_record(name, f"images/{name}.png", pixels)
        for refined in [False, True]:
            with runs.legacy_holistic(refined, static=True) as graph:
                png = None if refined else f"legacy/{folder_name(refined)}/{name}_mask.png"
                (OUTPUT / "legacy" / folder_name(refined)).mkdir(parents=True, exist_ok=True)
                entry = runs.holistic_entry(graph.process(pixels), png)
            write_json(f"legacy/{folder_name(refined)}/{name}.json", {
                "schema": SCHEMA, "producer": producer(True, refined), "image": record, **entry})

    clip = CLIP["name"]
    frames = [read_rgb(INPUTS / "video" / clip / f"frame_{i:04d}.png") for i in range(CLIP["frames"])]
    records = [image_record(f"{clip}/frame_{i:04d}", f"video/{clip}/frame_{i:04d}.png", pixels)
               for i, pixels in enumerate(frames)]
    for refined, static in CLIP_RUNS:
        mode = "static" if static else "tracking"
        print(f"{SCRIPT}: clip {clip} {folder_name(refined)} {mode}", file=sys.stderr)
        folder = f"legacy/video/{clip}/{folder_name(refined)}_{mode}"
        (OUTPUT / folder).mkdir(parents=True, exist_ok=True)
        with runs.legacy_holistic(refined, static) as graph:
            for i, pixels in enumerate(frames):
                video = {"clip": clip, "frame_index": i, "graph_timestamp_us": LEGACY_FRAME_US * (i + 1)}
                png = f"{folder}/frame_{i:04d}_mask.png" if (refined, static) == (False, False) and i % MASK_PNG_STEP == 0 else None
                write_json(f"{folder}/frame_{i:04d}.json", {
                    "schema": SCHEMA, "producer": producer(static, refined),
                    "image": records[i], "video": video, **runs.holistic_entry(graph.process(pixels), png)})
    print(f"{SCRIPT}: wrote the holistic fixtures into {OUTPUT.relative_to(REPO_ROOT)}", file=sys.stderr)


if __name__ == "__main__":
    main()
