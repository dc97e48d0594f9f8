#!/usr/bin/env python3
"""Regenerates the MediaPipe references in Tests/References (all but xnnpack_outputs.json, which
scripts/make_xnnpack_references.py makes): what MediaPipe 0.10.21 outputs on the sample photos of
scripts/samples.tsv (fetched into samples/ by scripts/fetch_samples.sh) and on two short clips
cut out of them.

- pose_image.json: Tasks PoseLandmarker, IMAGE mode, num_poses 1 and 4, segmentation masks on.
- hands_image.json: legacy `mp.solutions.hands.Hands` (static images, max_num_hands 2) for the
  landmarks, and Tasks HandLandmarker (IMAGE mode, num_hands 2) for counts and handedness, with
  the full and the lite models. The legacy graph is the landmark reference because it rotates
  palm ROIs with the same 90-degree target as this package; the Tasks graph tilts them further
  (see docs/PIPELINE.md, "Detection to rotated rect"), which moves its landmarks by pixels.
- pose_video.json / hands_video.json: a clip of integer crop windows sliding over one sample
  (pure pixel copies, no resampling, so the tests rebuild the frames bit for bit from the windows
  recorded in the file). Pose: Tasks PoseLandmarker VIDEO mode, num_poses 1, timestamps
  frame index x 40 ms. Hands: legacy Hands with tracking (static_image_mode False, max_num_hands
  2, full models) for the landmarks, Tasks HandLandmarker VIDEO mode for the counts.
- pose_video_lost.json: the pose clip with frames blanked to grey (LOST_FRAMES), Tasks
  PoseLandmarker VIDEO mode, num_poses 1: how tracking and smoothing resume after a lost pose.
- pose_video_noise.json: how far MediaPipe's own pose VIDEO-mode output moves when a single frame
  of a clip gets imperceptible noise (every channel of every pixel of that frame plus a seeded
  uniform integer in [-1, 1]), against its output on the clean clip. Run on `bus_tilt` and on the
  golden tests' clip `t1_sweep` (scripts/fixture_images.py, under samples/fixtures/video). Tracking feeds
  each frame's landmarks into the next frame's crop, and the heatmap refinement snaps landmarks
  by whole heatmap cells, so these runs measure how reproducible video-mode output is at all:
  the tests hold our distance from MediaPipe to it.
- pose_clips.json / hands_clips.json: the synthetic clips of scripts/video_clips.py (people or a
  hand cut from the samples, moved, zoomed, turned or hidden on a grey canvas), read from the PNG
  frames that scripts/fetch_samples.sh writes under samples/<clip>/. Pose: Tasks PoseLandmarker
  VIDEO mode, num_poses 1, or the clip's num_poses where it has several people. Hands: legacy
  Hands with tracking (max_num_hands 2, full models) for the landmarks, Tasks HandLandmarker
  VIDEO mode (num_hands 2) for the counts. Landmarks [x, y, z] only; each frame records the
  FNV-1a 64 hash of its RGB bytes.

Each image is decoded with Pillow to RGB (gray replicated) and handed over as uint8 [H, W, 3];
its FNV-1a 64 hash is recorded so that a test can check its own decoder gives the same pixels.
Floats are the shortest decimals that round-trip to the same float32. Masks are stored as the
run lengths of (mask > 0.5) in row-major order, starting with a run of zeros.

Run it through scripts/make_references.sh, which sets up the venv and fetches the inputs.
"""

import argparse
import datetime
import json
import sys
import tempfile
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO_ROOT / "Benchmarks" / "peer"))
from mediapipe_bundles import BUNDLES, NEEDS_IMAGE_METADATA, build_bundle, import_mediapipe  # noqa: E402
from sample_clips import FRAME_INTERVAL_MS, HANDS_CLIP, POSE_CLIP, windows  # noqa: E402
from video_clips import CANVAS, HAND_CLIPS, PATH_CLIPS, POSE_CLIPS, SUBJECTS  # noqa: E402
from fixture_images import CLIP as FIXTURE_CLIP  # noqa: E402
from fnv1a import fnv1a64  # noqa: E402

SCRIPT = "make_references.py"
SCHEMA = "landmarker-references/1"
# Noise runs of pose_video_noise.json: the frames that get the noise, one run each, and the seed
# of run k is NOISE_SEED + k.
NOISE_FRAMES = {"bus_tilt": [1, 2, 3, 5, 8, 12], "t1_sweep": [15, 16, 20, 25, 30, 40]}
NOISE_SEED = 2026
# Every detection, presence and tracking confidence of the references.
CONFIDENCE = 0.5
# Runs of pose_video_lost.json: the frames of the pose clip blanked to grey in each run, so the
# pose is lost for one and for three frames and found again; the grey level of a blanked frame.
LOST_FRAMES = [[10], [10, 11, 12]]
LOST_GREY = 128


def read_manifest():
    """(name, file, package) of each sample in scripts/samples.tsv, in order."""
    samples = []
    for line in (REPO_ROOT / "scripts" / "samples.tsv").read_text().splitlines():
        if not line or line.startswith("#"):
            continue
        file, package = line.split("\t")[:2]
        samples.append((Path(file).stem, file, package))
    return samples



class References:
    def __init__(self, mediapipe, numpy, bundles):
        from mediapipe.tasks.python import vision
        from mediapipe.tasks.python.core.base_options import BaseOptions
        self.mp, self.np, self.vision, self.bundles = mediapipe, numpy, vision, bundles
        self.BaseOptions = BaseOptions

    def f32(self, value):
        """The shortest decimal that round-trips to the same float32, as a Python float."""
        return float(str(self.np.float32(value)))

    def image(self, array):
        return self.mp.Image(image_format=self.mp.ImageFormat.SRGB, data=self.np.ascontiguousarray(array))

    def pose_landmarker(self, num_poses, video, masks):
        vision = self.vision
        return vision.PoseLandmarker.create_from_options(vision.PoseLandmarkerOptions(
            base_options=self.BaseOptions(model_asset_path=str(self.bundles["pose"])),
            running_mode=vision.RunningMode.VIDEO if video else vision.RunningMode.IMAGE,
            num_poses=num_poses, min_pose_detection_confidence=CONFIDENCE,
            min_pose_presence_confidence=CONFIDENCE, min_tracking_confidence=CONFIDENCE,
            output_segmentation_masks=masks))

    def hand_landmarker(self, bundle, video):
        vision = self.vision
        return vision.HandLandmarker.create_from_options(vision.HandLandmarkerOptions(
            base_options=self.BaseOptions(model_asset_path=str(self.bundles[bundle])),
            running_mode=vision.RunningMode.VIDEO if video else vision.RunningMode.IMAGE,
            num_hands=2, min_hand_detection_confidence=CONFIDENCE,
            min_hand_presence_confidence=CONFIDENCE, min_tracking_confidence=CONFIDENCE))

    def legacy_hands(self, complexity, static):
        return self.mp.solutions.hands.Hands(
            static_image_mode=static, max_num_hands=2, model_complexity=complexity,
            min_detection_confidence=CONFIDENCE, min_tracking_confidence=CONFIDENCE)

    def mask(self, mask):
        """Size, mean and run lengths of (mask > 0.5), row-major, first run of zeros."""
        values = self.np.asarray(mask.numpy_view(), dtype=self.np.float32)
        values = values.reshape(values.shape[0], values.shape[1])
        bits = (values > 0.5).ravel().astype(self.np.int8)
        changes = self.np.flatnonzero(self.np.diff(bits)) + 1
        bounds = self.np.concatenate(([0], changes, [bits.size]))
        runs = self.np.diff(bounds).tolist()
        if bits[0] == 1:
            runs = [0] + runs
        return {"width": int(values.shape[1]), "height": int(values.shape[0]),
                "mean": self.f32(values.mean()), "fraction_gt_0.5": self.f32(bits.mean()),
                "runs_gt_0.5": runs}

    def poses(self, result):
        poses = []
        for k, landmarks in enumerate(result.pose_landmarks):
            pose = {
                "landmarks": [[self.f32(v) for v in (p.x, p.y, p.z, p.visibility, p.presence)] for p in landmarks],
                "world_landmarks": [[self.f32(v) for v in (p.x, p.y, p.z)] for p in result.pose_world_landmarks[k]],
            }
            if result.segmentation_masks:
                pose["mask"] = self.mask(result.segmentation_masks[k])
            poses.append(pose)
        return poses

    def legacy_hand_list(self, result):
        hands = []
        for k, classification in enumerate(result.multi_handedness or []):
            category = classification.classification[0]
            hands.append({
                "handedness": {"index": category.index, "score": self.f32(category.score), "label": category.label},
                "landmarks": [[self.f32(v) for v in (p.x, p.y, p.z)] for p in result.multi_hand_landmarks[k].landmark],
                "world_landmarks": [[self.f32(v) for v in (p.x, p.y, p.z)]
                                    for p in result.multi_hand_world_landmarks[k].landmark],
            })
        return hands

    def tasks_handedness(self, result):
        return [{"index": h[0].index, "score": self.f32(h[0].score), "label": h[0].category_name}
                for h in result.handedness]


def clip_frames(clip, pixels):
    """The clip's crop windows and frames (views into `pixels`)."""
    return [({"index": i, "x": x, "y": y, "timestamp_ms": timestamp},
             pixels[y:y + clip["height"], x:x + clip["width"]])
            for i, x, y, timestamp in windows(clip)]


def fixture_clip(folder, count):
    """The fixture clip's frames as (window, RGB array), timestamps frame index x 40 ms (25 fps)."""
    from PIL import Image
    import numpy
    return [({"index": i, "timestamp_ms": i * FRAME_INTERVAL_MS},
             numpy.ascontiguousarray(numpy.asarray(Image.open(folder / f"frame_{i:04d}.png").convert("RGB"))))
            for i in range(count)]


def noise_sensitivity(refs, frames, noisy_frames):
    """MediaPipe's pose VIDEO-mode output on `frames` with one noisy frame per run, against its
    output on the clean frames: mean landmark distance in pixels over the frames where both find
    the same number of poses, and the frames where the counts differ."""
    np = refs.np

    def landmark_pixels(frame_list):
        height, width = frame_list[0][1].shape[:2]
        with refs.pose_landmarker(1, video=True, masks=False) as landmarker:
            return [[np.array([[p.x * width, p.y * height] for p in pose], dtype=np.float64)
                     for pose in landmarker.detect_for_video(refs.image(frame), window["timestamp_ms"]).pose_landmarks]
                    for window, frame in frame_list]

    clean = landmark_pixels(frames)
    runs = []
    for k, noisy in enumerate(noisy_frames):
        seed = NOISE_SEED + k
        noise = np.random.default_rng(seed).integers(-1, 2, size=frames[noisy][1].shape)
        perturbed = [(window, np.clip(frame.astype(np.int16) + noise, 0, 255).astype(np.uint8) if i == noisy else frame)
                     for i, (window, frame) in enumerate(frames)]
        distances, count_mismatches = [], []
        for i, (a, b) in enumerate(zip(clean, landmark_pixels(perturbed))):
            if len(a) != len(b):
                count_mismatches.append(i)
            for pose_a, pose_b in zip(a, b):
                distances.append(np.linalg.norm(pose_a - pose_b, axis=1))
        mean = float(np.concatenate(distances).mean()) if distances else 0.0
        runs.append({"noisy_frame": noisy, "seed": seed, "mean_px": round(mean, 4),
                     "count_mismatches": count_mismatches})
    means = sorted(run["mean_px"] for run in runs)
    return {"frames": len(frames), "runs": runs, "largest_mean_px": means[-1],
            "median_mean_px": round(float(np.median(means)), 4)}


def synthetic_clip(samples, clip):
    """The frames of a scripts/video_clips.py clip, read from samples/<clip>/, as (frame, RGB array)."""
    from PIL import Image
    import numpy
    folder = samples / clip["name"]
    if not (folder / ".complete").exists():
        sys.exit(f"{SCRIPT}: missing {folder}: run scripts/fetch_samples.sh")
    result = []
    for i in range(clip["frames"]):
        array = numpy.ascontiguousarray(numpy.asarray(Image.open(folder / f"frame_{i:04d}.png").convert("RGB")))
        result.append(({"index": i, "timestamp_ms": i * FRAME_INTERVAL_MS, "rgb_fnv1a64": fnv1a64(array.tobytes())},
                       array))
    return result


def synthetic_clips(refs, samples, producer, output):
    """pose_clips.json and hands_clips.json."""
    clips = {}
    for clip in POSE_CLIPS + PATH_CLIPS:
        results = []
        num_poses = clip.get("num_poses", 1)
        with refs.pose_landmarker(num_poses, video=True, masks=False) as landmarker:
            for frame, array in synthetic_clip(samples, clip):
                result = landmarker.detect_for_video(refs.image(array), frame["timestamp_ms"])
                results.append({**frame, "poses": [{
                    "landmarks": [[refs.f32(v) for v in (p.x, p.y, p.z)] for p in pose],
                    "world_landmarks": [[refs.f32(v) for v in (p.x, p.y, p.z)] for p in result.pose_world_landmarks[k]],
                } for k, pose in enumerate(result.pose_landmarks)]})
        clips[clip["name"]] = {"clip": clip, "num_poses": num_poses, "frames": results}
    write_json(output / "pose_clips.json", {
        "schema": SCHEMA, "producer": producer, "canvas": CANVAS, "subjects": SUBJECTS,
        "api": "tasks PoseLandmarker", "running_mode": "VIDEO", "bundle": "pose_landmarker.task", "clips": clips})

    clips = {}
    for clip in HAND_CLIPS:
        frames = synthetic_clip(samples, clip)
        with refs.hand_landmarker("hand", video=True) as landmarker:
            tasks = [refs.tasks_handedness(landmarker.detect_for_video(refs.image(array), frame["timestamp_ms"]))
                     for frame, array in frames]
        with refs.legacy_hands(1, static=False) as hands:
            results = [{**frame, "legacy": refs.legacy_hand_list(hands.process(array)),
                        "tasks": tasks[frame["index"]]} for frame, array in frames]
        clips[clip["name"]] = {"clip": clip, "frames": results}
    write_json(output / "hands_clips.json", {
        "schema": SCHEMA, "producer": producer, "canvas": CANVAS, "subjects": SUBJECTS,
        "legacy": {"api": "mp.solutions.hands.Hands", "static_image_mode": False, "max_num_hands": 2,
                   "model_complexity": 1},
        "tasks": {"api": "tasks HandLandmarker", "running_mode": "VIDEO", "bundle": "hand_landmarker.task",
                  "num_hands": 2},
        "clips": clips})


def write_json(path, value):
    path.write_text(json.dumps(value, separators=(",", ":")) + "\n")
    print(f"{SCRIPT}: wrote {path} ({path.stat().st_size} bytes)", file=sys.stderr)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=Path, default=REPO_ROOT / "samples", help="folder of the sample photos")
    parser.add_argument("--models-dir", type=Path, default=REPO_ROOT / "models", help="folder of the .tflite files")
    parser.add_argument("--output", type=Path, default=REPO_ROOT / "Tests" / "References", help="where the JSON goes")
    args = parser.parse_args()

    mediapipe, numpy = import_mediapipe(SCRIPT)
    from PIL import Image
    import PIL

    samples = read_manifest()
    pixels, images = {}, {}
    for name, file, package in samples:
        path = args.samples / file
        if not path.exists():
            sys.exit(f"{SCRIPT}: missing {path}: run scripts/fetch_samples.sh")
        array = numpy.ascontiguousarray(numpy.asarray(Image.open(path).convert("RGB")))
        pixels[name] = array
        images[name] = {"file": file, "package": package, "width": int(array.shape[1]),
                        "height": int(array.shape[0]), "rgb_fnv1a64": fnv1a64(array.tobytes())}

    args.output.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as folder:
        bundles = {name: build_bundle(name, args.models_dir, folder, SCRIPT) for name in BUNDLES}
        refs = References(mediapipe, numpy, bundles)
        producer = {
            "mediapipe": mediapipe.__version__, "numpy": numpy.__version__, "pillow": PIL.__version__,
            "python": sys.version.split()[0], "script": "scripts/make_references.py",
            "date": datetime.date.today().isoformat(),
            "bundles": {f"{name}_landmarker.task": members for name, members in BUNDLES.items()},
            "image_input_metadata_added_to": sorted(NEEDS_IMAGE_METADATA),
            "confidences": CONFIDENCE,
        }

        configurations = []
        for num_poses in (1, 4):
            with refs.pose_landmarker(num_poses, video=False, masks=True) as landmarker:
                results = {name: refs.poses(landmarker.detect(refs.image(pixels[name]))) for name in pixels}
            configurations.append({"api": "tasks PoseLandmarker", "running_mode": "IMAGE", "bundle": "pose_landmarker.task",
                                   "num_poses": num_poses, "output_segmentation_masks": True, "results": results})
        write_json(args.output / "pose_image.json", {"schema": SCHEMA, "producer": producer, "images": images,
                                                     "configurations": configurations})

        configurations = []
        for variant, complexity, bundle in (("full", 1, "hand"), ("lite", 0, "hand_lite")):
            results = {}
            with refs.hand_landmarker(bundle, video=False) as landmarker:
                tasks = {name: refs.tasks_handedness(landmarker.detect(refs.image(pixels[name]))) for name in pixels}
            with refs.legacy_hands(complexity, static=True) as hands:
                for name in pixels:
                    results[name] = {"legacy": refs.legacy_hand_list(hands.process(pixels[name])), "tasks": tasks[name]}
            configurations.append({"variant": variant, "legacy": {"api": "mp.solutions.hands.Hands",
                                   "static_image_mode": True, "max_num_hands": 2, "model_complexity": complexity},
                                   "tasks": {"api": "tasks HandLandmarker", "running_mode": "IMAGE",
                                             "bundle": f"{bundle}_landmarker.task", "num_hands": 2},
                                   "results": results})
        write_json(args.output / "hands_image.json", {"schema": SCHEMA, "producer": producer, "images": images,
                                                      "configurations": configurations})

        frames = clip_frames(POSE_CLIP, pixels[POSE_CLIP["source"]])
        results = []
        with refs.pose_landmarker(1, video=True, masks=False) as landmarker:
            for window, frame in frames:
                result = landmarker.detect_for_video(refs.image(frame), window["timestamp_ms"])
                results.append({**window, "poses": refs.poses(result)})
        write_json(args.output / "pose_video.json", {
            "schema": SCHEMA, "producer": producer, "image": images[POSE_CLIP["source"]], "clip": POSE_CLIP,
            "api": "tasks PoseLandmarker", "running_mode": "VIDEO", "bundle": "pose_landmarker.task", "num_poses": 1,
            "frames": results})

        runs = []
        for blanked in LOST_FRAMES:
            results = []
            with refs.pose_landmarker(1, video=True, masks=False) as landmarker:
                for window, frame in frames:
                    if window["index"] in blanked:
                        frame = numpy.full_like(frame, LOST_GREY)
                    result = landmarker.detect_for_video(refs.image(frame), window["timestamp_ms"])
                    results.append({**window, "poses": refs.poses(result)})
            runs.append({"blanked": blanked, "frames": results})
        write_json(args.output / "pose_video_lost.json", {
            "schema": SCHEMA, "producer": producer, "image": images[POSE_CLIP["source"]], "clip": POSE_CLIP,
            "api": "tasks PoseLandmarker", "running_mode": "VIDEO", "bundle": "pose_landmarker.task", "num_poses": 1,
            "grey": LOST_GREY, "runs": runs})

        noise = {"noise": "one frame per run: uniform integer in [-1, 1] added to every channel of every pixel, "
                          "numpy.random.default_rng(seed).integers(-1, 2), clipped to [0, 255]",
                 "api": "tasks PoseLandmarker", "running_mode": "VIDEO", "bundle": "pose_landmarker.task",
                 "num_poses": 1, "clips": {}}
        noise["clips"]["bus_tilt"] = noise_sensitivity(refs, frames, NOISE_FRAMES["bus_tilt"])
        sweep = args.samples / "fixtures" / "video" / FIXTURE_CLIP["name"]
        if not (sweep / ".complete").exists():
            sys.exit(f"{SCRIPT}: missing {sweep}: run scripts/fetch_samples.sh")
        noise["clips"]["t1_sweep"] = noise_sensitivity(
            refs, fixture_clip(sweep, FIXTURE_CLIP["frames"]), NOISE_FRAMES["t1_sweep"])
        write_json(args.output / "pose_video_noise.json", {"schema": SCHEMA, "producer": producer, **noise})

        frames = clip_frames(HANDS_CLIP, pixels[HANDS_CLIP["source"]])
        with refs.hand_landmarker("hand", video=True) as landmarker:
            tasks = [refs.tasks_handedness(landmarker.detect_for_video(refs.image(frame), window["timestamp_ms"]))
                     for window, frame in frames]
        with refs.legacy_hands(1, static=False) as hands:
            results = [{**window, "legacy": refs.legacy_hand_list(hands.process(numpy.ascontiguousarray(frame))),
                        "tasks": tasks[window["index"]]} for window, frame in frames]
        write_json(args.output / "hands_video.json", {
            "schema": SCHEMA, "producer": producer, "image": images[HANDS_CLIP["source"]], "clip": HANDS_CLIP,
            "legacy": {"api": "mp.solutions.hands.Hands", "static_image_mode": False, "max_num_hands": 2,
                       "model_complexity": 1},
            "tasks": {"api": "tasks HandLandmarker", "running_mode": "VIDEO", "bundle": "hand_landmarker.task",
                      "num_hands": 2},
            "frames": results})

        synthetic_clips(refs, args.samples, producer, args.output)


if __name__ == "__main__":
    main()
