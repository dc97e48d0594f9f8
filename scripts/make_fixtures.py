#!/usr/bin/env python3
"""Regenerates Tests/Fixtures: what MediaPipe 0.10.21 outputs on the golden-test images and clip
of scripts/fixture_images.py (written into samples/fixtures/ by scripts/fetch_samples.sh), with
the graphs' intermediate results, for the golden tests of Tests/PipelineTests,
Tests/MediaPipeTasksVisionTests and Tests/MLKitTests.

- legacy/pose_full/<image>.json: `mp.solutions.pose` graph (pose_landmark_cpu), static images,
  model_complexity 1, segmentation on: landmarks, world landmarks, and the graph's pose detection,
  ROI from the detection and ROI from the landmarks.
- legacy/hands_{full,lite}/<image>.json: `mp.solutions.hands` graph (hand_landmark_tracking_cpu),
  static images, max_num_hands 2, model_complexity 1 and 0: hands (handedness, landmarks, world
  landmarks), palm detections, ROIs from the detections and from the landmarks.
- legacy/video/<clip>/{pose_full,hands_full}_{static,tracking}/frame_NNNN.json: the same graphs
  on the clip's frames, per frame (static) and as a stream (tracking; smoothing on for pose).
- tasks/pose_full_n1, tasks/pose_full_n4/<image>.json (+ <image>_maskK.png): Tasks
  PoseLandmarker, IMAGE mode, num_poses 1 and 4, segmentation masks on.
- tasks/hands_{full,lite}_n2/<image>.json: Tasks HandLandmarker, IMAGE mode, num_hands 2.
- tasks/video/<clip>/{pose_full_n1_video,hands_full_n2_video}/frame_NNNN.json: Tasks VIDEO mode,
  timestamps frame index x 40 ms.
- tensors/<model>/input.png: one real input per model as 8-bit RGB pixels (the float input is
  pixel / 255, or pixel / 127.5 - 1 for pose_detection, in float32), cut as MediaPipe's
  ImageToTensorCalculator cuts them (its OpenCV arithmetic, scripts/make_opencv_crops.py):
  pose_detection letterboxes `bus`, palm_detection_* `t1_cards_left`, pose_landmark_full warps
  `bus_man` by the legacy graph's ROI from the detection, hand_landmark_* `t1_chip` by the legacy
  graph's first ROI from a palm detection; face_detection_short_range and
  face_detection_full_range_sparse letterbox `grace_hopper` and face_landmark warps it by the legacy face mesh graph's (face_landmark_front_cpu) first ROI
  from a face detection; hand_recrop letterboxes `t1_chip`. Their LiteRT outputs are made by
  scripts/make_model_references.py.
- inputs.json: every image and frame with its size and the FNV-1a 64 hash of its RGB bytes.

Floats are the shortest decimals that round-trip to the same float32. Every confidence is 0.5.
Run it through scripts/make_fixtures.sh, which sets up the venv and fetches the inputs.
"""

import datetime
import json
import sys
import tempfile
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO_ROOT / "Benchmarks" / "peer"))
sys.path.insert(0, str(REPO_ROOT / "scripts"))
from mediapipe_bundles import build_bundle, import_mediapipe  # noqa: E402
from fixture_images import CLIP, IMAGES  # noqa: E402
from sample_clips import FRAME_INTERVAL_MS  # noqa: E402
from make_opencv_crops import F, crop, pad_roi  # noqa: E402
from make_references import CONFIDENCE, References  # noqa: E402
from fnv1a import fnv1a64  # noqa: E402

SCRIPT = "make_fixtures.py"
OUTPUT = REPO_ROOT / "Tests" / "Fixtures"
INPUTS = REPO_ROOT / "samples" / "fixtures"
# The legacy solutions feed frames at a simulated 30 fps clock.
LEGACY_FRAME_US = 33333
# model -> (image, how the input is cut, input side, value range)
TENSOR_INPUTS = {
    "pose_detection": ("bus", "letterbox", 224, (-1, 1)),
    "pose_landmark_full": ("bus_man", "pose_rect_from_detection", 256, (0, 1)),
    "palm_detection_full": ("t1_cards_left", "letterbox", 192, (0, 1)),
    "palm_detection_lite": ("t1_cards_left", "letterbox", 192, (0, 1)),
    "hand_landmark_full": ("t1_chip", "hand_rect_from_palm_detection", 224, (0, 1)),
    "hand_landmark_lite": ("t1_chip", "hand_rect_from_palm_detection", 224, (0, 1)),
    "face_detection_short_range": ("grace_hopper", "letterbox", 128, (-1, 1)),
    "face_detection_full_range_sparse": ("grace_hopper", "letterbox", 192, (-1, 1)),
    "face_landmark": ("grace_hopper", "face_rect_from_detection", 192, (0, 1)),
    "hand_recrop": ("t1_chip", "letterbox", 256, (0, 1)),
}



class Runs(References):
    """MediaPipe's graphs and tasks (the Tasks landmarkers as make_references.py makes them), and
    the JSON forms of what they output."""

    def __init__(self, mp, np, bundles):
        from mediapipe.python.solution_base import SolutionBase
        super().__init__(mp, np, bundles)
        self.SolutionBase = SolutionBase

    # -- legacy graphs, with their intermediate streams

    def legacy_pose(self, static):
        return self.SolutionBase(
            binary_graph_path="mediapipe/modules/pose_landmark/pose_landmark_cpu.binarypb",
            side_inputs={"model_complexity": 1, "smooth_landmarks": not static, "enable_segmentation": True,
                         "smooth_segmentation": not static, "use_prev_landmarks": not static},
            calculator_params={
                "posedetectioncpu__TensorsToDetectionsCalculator.min_score_thresh": CONFIDENCE,
                "poselandmarkbyroicpu__tensorstoposelandmarksandsegmentation__ThresholdingCalculator.threshold":
                    CONFIDENCE},
            outputs=["pose_landmarks", "pose_world_landmarks", "segmentation_mask", "pose_detection",
                     "pose_rect_from_detection", "pose_rect_from_landmarks"])

    def legacy_hands(self, complexity, static):
        return self.SolutionBase(
            binary_graph_path="mediapipe/modules/hand_landmark/hand_landmark_tracking_cpu.binarypb",
            side_inputs={"model_complexity": complexity, "num_hands": 2, "use_prev_landmarks": not static},
            calculator_params={
                "palmdetectioncpu__TensorsToDetectionsCalculator.min_score_thresh": CONFIDENCE,
                "handlandmarkcpu__ThresholdingCalculator.threshold": CONFIDENCE},
            outputs=["multi_hand_landmarks", "multi_hand_world_landmarks", "multi_handedness", "palm_detections",
                     "hand_rects_from_palm_detections", "hand_rects_from_landmarks"])

    def legacy_face_rects(self, pixels):
        """The face mesh graph's (face_landmark_front_cpu, static image, one face) ROIs from
        its face detections, as JSON rects."""
        graph = self.SolutionBase(
            binary_graph_path="mediapipe/modules/face_landmark/face_landmark_front_cpu.binarypb",
            side_inputs={"num_faces": 1, "with_attention": False, "use_prev_landmarks": False},
            calculator_params={
                "facedetectionshortrangecpu__facedetectionshortrange__facedetection__TensorsToDetectionsCalculator"
                ".min_score_thresh":
                    CONFIDENCE,
                "facelandmarkcpu__ThresholdingCalculator.threshold": CONFIDENCE},
            outputs=["multi_face_landmarks", "face_rects_from_detections"])
        with graph:
            result = graph.process(pixels)
        return [self.rect(r) for r in result.face_rects_from_detections or []]

    def landmark(self, p, with_scores):
        point = {"x": self.f32(p.x), "y": self.f32(p.y), "z": self.f32(p.z)}
        if with_scores:
            point["visibility"] = self.f32(p.visibility)
            point["presence"] = self.f32(p.presence)
        return point

    def rect(self, r):
        return {"x_center": self.f32(r.x_center), "y_center": self.f32(r.y_center), "width": self.f32(r.width),
                "height": self.f32(r.height), "rotation": self.f32(r.rotation)}

    def detection(self, d):
        box = d.location_data.relative_bounding_box
        return {"score": [self.f32(s) for s in d.score], "label_id": list(d.label_id),
                "relative_bounding_box": {"xmin": self.f32(box.xmin), "ymin": self.f32(box.ymin),
                                          "width": self.f32(box.width), "height": self.f32(box.height)},
                "relative_keypoints": [{"x": self.f32(k.x), "y": self.f32(k.y)}
                                       for k in d.location_data.relative_keypoints]}

    def legacy_pose_entry(self, result):
        present = result.pose_landmarks is not None
        return {
            "pose_present": present,
            "pose_landmarks": [self.landmark(p, True) for p in result.pose_landmarks.landmark] if present else None,
            "pose_world_landmarks": [self.landmark(p, True) for p in result.pose_world_landmarks.landmark]
            if present else None,
            "intermediate": {
                "pose_detection": self.detection(result.pose_detection) if result.pose_detection else None,
                "pose_rect_from_detection": self.rect(result.pose_rect_from_detection)
                if result.pose_rect_from_detection else None,
                "pose_rect_from_landmarks": self.rect(result.pose_rect_from_landmarks)
                if result.pose_rect_from_landmarks else None,
            },
        }

    def legacy_hands_entry(self, result):
        hands = []
        for k, classification in enumerate(result.multi_handedness or []):
            category = classification.classification[0]
            hands.append({
                "index": k,
                "handedness": [{"index": category.index, "score": self.f32(category.score),
                                "label": category.label}],
                "landmarks": [self.landmark(p, False) for p in result.multi_hand_landmarks[k].landmark],
                "world_landmarks": [self.landmark(p, False) for p in result.multi_hand_world_landmarks[k].landmark],
            })
        return {
            "num_hands": len(hands),
            "hands": hands,
            "intermediate": {
                "palm_detections": [self.detection(d) for d in result.palm_detections or []],
                "hand_rects_from_palm_detections": [self.rect(r) for r in result.hand_rects_from_palm_detections or []],
                "hand_rects_from_landmarks": [self.rect(r) for r in result.hand_rects_from_landmarks or []],
            },
        }

    # -- Tasks

    def tasks_poses(self, result, mask_path):
        """The poses of a PoseLandmarker result; writes mask K to `mask_path(K)` when it is given."""
        from PIL import Image
        np = self.np
        poses = []
        for k, landmarks in enumerate(result.pose_landmarks):
            pose = {"index": k, "landmarks": [self.landmark(p, True) for p in landmarks],
                    "world_landmarks": [self.landmark(p, True) for p in result.pose_world_landmarks[k]]}
            if mask_path and result.segmentation_masks:
                values = np.asarray(result.segmentation_masks[k].numpy_view(), dtype=np.float32)
                values = values.reshape(values.shape[0], values.shape[1])
                relative = mask_path(k)
                Image.fromarray(np.round(np.clip(values, 0, 1) * 255).astype(np.uint8), mode="L").save(
                    OUTPUT / relative, format="PNG")
                pose["segmentation_mask"] = {
                    "file": relative, "encoding": "8-bit gray PNG, value = round(clip(mask,0,1)*255)",
                    "width": int(values.shape[1]), "height": int(values.shape[0]),
                    "float_mean": self.f32(values.mean()), "fraction_gt_0.5": self.f32((values > 0.5).mean())}
            poses.append(pose)
        return {"num_poses": len(poses), "poses": poses}

    def tasks_hands(self, result):
        hands = []
        for k, categories in enumerate(result.handedness):
            category = categories[0]
            hands.append({
                "index": k,
                "handedness": [{"index": category.index, "score": self.f32(category.score),
                                "category_name": category.category_name}],
                "landmarks": [self.landmark(p, False) for p in result.hand_landmarks[k]],
                "world_landmarks": [self.landmark(p, False) for p in result.hand_world_landmarks[k]],
            })
        return {"num_hands": len(hands), "hands": hands}


def producer(api, **options):
    return {"mediapipe": "0.10.21", "api": api, "options": options, "confidences": CONFIDENCE,
            "script": f"scripts/{SCRIPT}", "date": datetime.date.today().isoformat()}


def write_json(relative, value):
    path = OUTPUT / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    # One line per file: ~400 files of generated numbers, compact rather than diff-friendly.
    path.write_text(json.dumps(value, separators=(",", ":")) + "\n")


def read_rgb(path):
    from PIL import Image
    import numpy
    return numpy.ascontiguousarray(numpy.asarray(Image.open(path).convert("RGB")))


def image_record(name, relative, pixels):
    return {"name": name, "file": relative, "width": int(pixels.shape[1]), "height": int(pixels.shape[0]),
            "rgb_fnv1a64": fnv1a64(pixels.tobytes())}


def tensor_input(pixels, how, side, legacy):
    """The model input of `side` x `side` RGB pixels cut from `pixels` as TENSOR_INPUTS says, with
    the arithmetic of MediaPipe's ImageToTensorCalculator (make_opencv_crops.crop): the whole image
    letterboxed (border zero), or the legacy graph's ROI, square of side max(w W, h H) (border
    replicate)."""
    import cv2
    height, width = pixels.shape[:2]
    if how == "letterbox":
        roi_width, roi_height = pad_roi(width, height, side, side)
        return crop(pixels, F(width) / 2, F(height) / 2, roi_width, roi_height, 0, side, side, cv2.BORDER_CONSTANT)
    rect = {"pose_rect_from_detection": lambda: legacy["intermediate"]["pose_rect_from_detection"],
            "hand_rect_from_palm_detection": lambda: legacy["intermediate"]["hand_rects_from_palm_detections"][0],
            "face_rect_from_detection": lambda: legacy["face_rects_from_detections"][0]}[how]()
    roi_side = F(max(rect["width"] * width, rect["height"] * height))
    return crop(pixels, F(rect["x_center"] * width), F(rect["y_center"] * height), roi_side, roi_side,
                rect["rotation"], side, side, cv2.BORDER_REPLICATE)


def main():
    mp, np = import_mediapipe(SCRIPT)
    import cv2
    from PIL import Image
    missing = [name for name in IMAGES if not (INPUTS / "images" / f"{name}.png").exists()]
    if missing or not (INPUTS / "video" / CLIP["name"] / ".complete").exists():
        sys.exit(f"{SCRIPT}: the golden-test images are not in {INPUTS}: run scripts/fetch_samples.sh")
    for folder in ["legacy", "tasks", "tensors"]:
        for old in (OUTPUT / folder).rglob("*"):
            if old.is_file() and old.suffix in {".json", ".png"}:
                old.unlink()
    with tempfile.TemporaryDirectory() as folder:
        bundles = {name: build_bundle(name, REPO_ROOT / "models", folder, SCRIPT)
                   for name in ["pose", "hand", "hand_lite"]}
        runs = Runs(mp, np, bundles)
        images = {name: read_rgb(INPUTS / "images" / f"{name}.png") for name in IMAGES}
        records = {name: image_record(name, f"images/{name}.png", pixels) for name, pixels in images.items()}
        legacy_pose, legacy_hands = {}, {}

        for name, pixels in images.items():
            print(f"{SCRIPT}: {name}", file=sys.stderr)
            with runs.legacy_pose(static=True) as graph:
                legacy_pose[name] = runs.legacy_pose_entry(graph.process(pixels))
            write_json(f"legacy/pose_full/{name}.json", {
                "schema": "landmarker-fixtures/legacy-pose/1",
                "producer": producer("legacy solutions graph pose_landmark_cpu", static_image_mode=True,
                                     model_complexity=1, enable_segmentation=True),
                "image": records[name], **legacy_pose[name]})
            for variant, complexity in [("full", 1), ("lite", 0)]:
                with runs.legacy_hands(complexity, static=True) as graph:
                    entry = runs.legacy_hands_entry(graph.process(pixels))
                legacy_hands[(variant, name)] = entry
                write_json(f"legacy/hands_{variant}/{name}.json", {
                    "schema": "landmarker-fixtures/legacy-hands/1",
                    "producer": producer("legacy solutions graph hand_landmark_tracking_cpu", static_image_mode=True,
                                         max_num_hands=2, model_complexity=complexity),
                    "image": records[name], **entry})
                with runs.hand_landmarker("hand" if variant == "full" else "hand_lite", video=False) as task:
                    result = runs.tasks_hands(task.detect(runs.image(pixels)))
                write_json(f"tasks/hands_{variant}_n2/{name}.json", {
                    "schema": "landmarker-fixtures/tasks-hands/1",
                    "producer": producer("mediapipe.tasks.python.vision.HandLandmarker", running_mode="IMAGE",
                                         num_hands=2, models=variant),
                    "image": records[name], **result})
            for num_poses in [1, 4]:
                folder_name = f"pose_full_n{num_poses}"
                (OUTPUT / "tasks" / folder_name).mkdir(parents=True, exist_ok=True)
                with runs.pose_landmarker(num_poses, video=False, masks=True) as task:
                    result = runs.tasks_poses(task.detect(runs.image(pixels)),
                                              lambda k: f"tasks/{folder_name}/{name}_mask{k}.png")
                write_json(f"tasks/{folder_name}/{name}.json", {
                    "schema": "landmarker-fixtures/tasks-pose/1",
                    "producer": producer("mediapipe.tasks.python.vision.PoseLandmarker", running_mode="IMAGE",
                                         num_poses=num_poses, output_segmentation_masks=True),
                    "image": records[name], **result})

        clip = CLIP["name"]
        frames = [read_rgb(INPUTS / "video" / clip / f"frame_{i:04d}.png") for i in range(CLIP["frames"])]
        frame_records = [image_record(f"{clip}/frame_{i:04d}", f"video/{clip}/frame_{i:04d}.png", pixels)
                         for i, pixels in enumerate(frames)]
        print(f"{SCRIPT}: clip {clip}", file=sys.stderr)
        for static in [True, False]:
            mode = "static" if static else "tracking"
            with runs.legacy_pose(static) as pose_graph, runs.legacy_hands(1, static) as hands_graph:
                for i, pixels in enumerate(frames):
                    video = {"clip": clip, "frame_index": i, "graph_timestamp_us": LEGACY_FRAME_US * (i + 1)}
                    write_json(f"legacy/video/{clip}/pose_full_{mode}/frame_{i:04d}.json", {
                        "schema": "landmarker-fixtures/legacy-pose/1",
                        "producer": producer("legacy solutions graph pose_landmark_cpu", static_image_mode=static,
                                             model_complexity=1, smooth_landmarks=True, enable_segmentation=True),
                        "image": frame_records[i], "video": video,
                        **runs.legacy_pose_entry(pose_graph.process(pixels))})
                    write_json(f"legacy/video/{clip}/hands_full_{mode}/frame_{i:04d}.json", {
                        "schema": "landmarker-fixtures/legacy-hands/1",
                        "producer": producer("legacy solutions graph hand_landmark_tracking_cpu",
                                             static_image_mode=static, max_num_hands=2, model_complexity=1),
                        "image": frame_records[i], "video": video,
                        **runs.legacy_hands_entry(hands_graph.process(pixels))})
        with runs.pose_landmarker(1, video=True, masks=True) as pose_task, runs.hand_landmarker("hand", video=True) as hand_task:
            for i, pixels in enumerate(frames):
                timestamp = i * FRAME_INTERVAL_MS
                video = {"clip": clip, "frame_index": i, "timestamp_ms": timestamp}
                poses = runs.tasks_poses(pose_task.detect_for_video(runs.image(pixels), timestamp), None)
                write_json(f"tasks/video/{clip}/pose_full_n1_video/frame_{i:04d}.json", {
                    "schema": "landmarker-fixtures/tasks-pose/1",
                    "producer": producer("mediapipe.tasks.python.vision.PoseLandmarker", running_mode="VIDEO",
                                         num_poses=1),
                    "image": frame_records[i], "video": video, **poses})
                hands = runs.tasks_hands(hand_task.detect_for_video(runs.image(pixels), timestamp))
                write_json(f"tasks/video/{clip}/hands_full_n2_video/frame_{i:04d}.json", {
                    "schema": "landmarker-fixtures/tasks-hands/1",
                    "producer": producer("mediapipe.tasks.python.vision.HandLandmarker", running_mode="VIDEO",
                                         num_hands=2, models="full"),
                    "image": frame_records[i], "video": video, **hands})

    tensors = {}
    for model, (name, how, side, value_range) in TENSOR_INPUTS.items():
        if how.startswith("face"):
            legacy = {"face_rects_from_detections": runs.legacy_face_rects(images[name])}
        else:
            legacy = legacy_hands[("full", name)] if how.startswith("hand") else legacy_pose[name]
        pixels = tensor_input(images[name], how, side, legacy)
        relative = f"tensors/{model}/input.png"
        (OUTPUT / relative).parent.mkdir(parents=True, exist_ok=True)
        Image.fromarray(pixels, mode="RGB").save(OUTPUT / relative, format="PNG")
        tensors[model] = {"file": relative, "image": name, "cut": how, "side": side, "range": list(value_range),
                          **({"rect": legacy["face_rects_from_detections"][0]} if how.startswith("face") else {}),
                          "to_float": "pixel / 127.5 - 1" if value_range == (-1, 1) else "pixel / 255",
                          "rgb_fnv1a64": fnv1a64(pixels.tobytes())}
    write_json("inputs.json", {
        "schema": "landmarker-fixtures/inputs/1",
        "producer": {"script": f"scripts/{SCRIPT}", "opencv": cv2.__version__, "numpy": np.__version__,
                     "date": datetime.date.today().isoformat()},
        "images": list(records.values()), "videos": {clip: frame_records}, "tensor_inputs": tensors})
    print(f"{SCRIPT}: wrote {OUTPUT.relative_to(REPO_ROOT)}", file=sys.stderr)


if __name__ == "__main__":
    main()
