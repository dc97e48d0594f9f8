#!/usr/bin/env python3
"""Writes the face-mesh part of Tests/Fixtures: what MediaPipe 0.10.21's legacy Face Mesh graph
(face_landmark_front_cpu, `mp.solutions.face_mesh.FaceMesh`) outputs on the golden-test images and
clip of scripts/fixture_images.py, with the graph's intermediate streams.

- legacy/face_mesh_{plain,refined}_n1/<image>.json: static images, max_num_faces 1, refine_landmarks
  off (face_landmark.tflite, 468 points) and on (face_landmark_with_attention.tflite, 478 points).
  (No image has two faces the short-range detector finds; the clip's first frames have two.)
- legacy/video/<clip>/face_mesh_{plain,refined}_n{1,4}_{static,tracking}/frame_NNNN.json: the clip's
  frames one by one (static) and as a stream (tracking: the graph skips the detector while it
  tracks max_num_faces faces), for the combinations listed in CLIP_RUNS.

Each file holds the faces (their landmarks as [x, y, z] triples, in the graph's output order) and the intermediate
streams face_detections, face_rects_from_detections and face_rects_from_landmarks (empty lists when
the graph did not emit them at that frame). Every confidence is 0.5.

MediaPipe runs its models with XNNPACK, whose AVX-512 kernels give other last bits than its AVX2 +
FMA kernels (the ones this package's kernels reproduce). Tracking feeds each frame's landmarks into
the next frame's crop, so a last-bit difference grows over a clip: on an AVX-512 host this script
therefore runs under QEMU as an AVX2 + FMA CPU (scripts/avx2_emulation.py), as the LiteRT scripts do. Run it through
scripts/make_fixtures.sh (after make_fixtures.py, which clears nothing of this script's folders).
"""

import sys
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO_ROOT / "Benchmarks" / "peer"))
sys.path.insert(0, str(REPO_ROOT / "scripts"))
from mediapipe_bundles import import_mediapipe  # noqa: E402
from fixture_images import CLIP, IMAGES  # noqa: E402
import make_fixtures  # noqa: E402
from make_fixtures import INPUTS, OUTPUT, Runs, image_record, read_rgb, write_json  # noqa: E402
from make_references import CONFIDENCE  # noqa: E402
from avx2_emulation import describe_cpu, run_as_avx2_cpu  # noqa: E402

SCRIPT = "make_face_fixtures.py"
SCHEMA = "landmarker-fixtures/legacy-face-mesh/1"
GRAPH = "legacy solutions graph face_landmark_front_cpu"
# (refined, max_num_faces, static) runs on the clip.
CLIP_RUNS = [(False, 4, True), (False, 1, False), (False, 4, False), (True, 1, False)]


class FaceRuns(Runs):
    def legacy_face_mesh(self, refined, num_faces, static):
        return self.SolutionBase(
            binary_graph_path="mediapipe/modules/face_landmark/face_landmark_front_cpu.binarypb",
            side_inputs={"num_faces": num_faces, "with_attention": refined, "use_prev_landmarks": not static},
            calculator_params={
                "facedetectionshortrangecpu__facedetectionshortrange__facedetection__TensorsToDetectionsCalculator"
                ".min_score_thresh": CONFIDENCE,
                "facelandmarkcpu__ThresholdingCalculator.threshold": CONFIDENCE},
            outputs=["multi_face_landmarks", "face_detections", "face_rects_from_detections",
                     "face_rects_from_landmarks"])

    def face_mesh_entry(self, result):
        faces = [{"index": k, "landmarks": [[self.f32(p.x), self.f32(p.y), self.f32(p.z)] for p in landmarks.landmark]}
                 for k, landmarks in enumerate(result.multi_face_landmarks or [])]
        return {
            "num_faces": len(faces),
            "faces": faces,
            "intermediate": {
                "face_detections": [self.detection(d) for d in result.face_detections or []],
                "face_rects_from_detections": [self.rect(r) for r in result.face_rects_from_detections or []],
                "face_rects_from_landmarks": [self.rect(r) for r in result.face_rects_from_landmarks or []],
            },
        }


def producer(**options):
    return {**make_fixtures.producer(GRAPH, **options), "script": f"scripts/{SCRIPT}", "cpu": describe_cpu()}


def folder_name(refined, num_faces):
    return f"face_mesh_{'refined' if refined else 'plain'}_n{num_faces}"


def main():
    mp, np = import_mediapipe(SCRIPT)
    run_as_avx2_cpu(SCRIPT)
    missing = [name for name in IMAGES if not (INPUTS / "images" / f"{name}.png").exists()]
    if missing or not (INPUTS / "video" / CLIP["name"] / ".complete").exists():
        sys.exit(f"{SCRIPT}: the golden-test images are not in {INPUTS}: run scripts/fetch_samples.sh")
    for old in (OUTPUT / "legacy").rglob("*.json"):
        if "face_mesh_" in str(old.relative_to(OUTPUT)):
            old.unlink()
    runs = FaceRuns(mp, np, {})
    for name in IMAGES:
        print(f"{SCRIPT}: {name}", file=sys.stderr)
        pixels = read_rgb(INPUTS / "images" / f"{name}.png")
        record = image_record(name, f"images/{name}.png", pixels)
        for refined in [False, True]:
            for num_faces in [1]:
                with runs.legacy_face_mesh(refined, num_faces, static=True) as graph:
                    entry = runs.face_mesh_entry(graph.process(pixels))
                write_json(f"legacy/{folder_name(refined, num_faces)}/{name}.json", {
                    "schema": SCHEMA,
                    "producer": producer(static_image_mode=True, max_num_faces=num_faces,
                                         refine_landmarks=refined),
                    "image": record, **entry})

    clip = CLIP["name"]
    frames = [read_rgb(INPUTS / "video" / clip / f"frame_{i:04d}.png") for i in range(CLIP["frames"])]
    records = [image_record(f"{clip}/frame_{i:04d}", f"video/{clip}/frame_{i:04d}.png", pixels)
               for i, pixels in enumerate(frames)]
    for refined, num_faces, static in CLIP_RUNS:
        mode = "static" if static else "tracking"
        print(f"{SCRIPT}: clip {clip} {folder_name(refined, num_faces)} {mode}", file=sys.stderr)
        with runs.legacy_face_mesh(refined, num_faces, static) as graph:
            for i, pixels in enumerate(frames):
                video = {"clip": clip, "frame_index": i}
                write_json(f"legacy/video/{clip}/{folder_name(refined, num_faces)}_{mode}/frame_{i:04d}.json", {
                    "schema": SCHEMA,
                    "producer": producer(static_image_mode=static, max_num_faces=num_faces,
                                         refine_landmarks=refined),
                    "image": records[i], "video": video, **runs.face_mesh_entry(graph.process(pixels))})
    print(f"{SCRIPT}: wrote the face-mesh fixtures into {OUTPUT.relative_to(REPO_ROOT)}", file=sys.stderr)


if __name__ == "__main__":
    main()
