"""MediaPipe's Python Tasks API, set up from this repository's models: the project venv and the
`.task` bundles that PoseLandmarker / HandLandmarker load.

Google's `.task` bundles are not on PyPI, so they are built here from `models/*.tflite` (the
legacy models inside the `mediapipe==0.10.21` wheel) under the member names the task graphs look
up, with mediapipe's own `model_asset_bundle_utils`. Models without TFLite metadata
(pose_landmark_full, palm_detection_lite) first get image-input NormalizationOptions metadata,
mean 0 and std 255 (pixels to [0, 1], the range the legacy graphs use), because the Tasks API
refuses a float32 image input without it. Shared by `compare_mediapipe.py` and
`scripts/make_references.py`."""

import os
import sys
from pathlib import Path

from peer_common import REPO_ROOT

VENV = REPO_ROOT / "Benchmarks" / ".venv-mediapipe"
VENV_PYTHON = VENV / "bin" / "python"
REQUIREMENTS = REPO_ROOT / "Benchmarks" / "peer" / "requirements-mediapipe.txt"

# Bundle name -> {member name the task graph looks up: source model in models/}.
BUNDLES = {
    "pose": {"pose_detector.tflite": "pose_detection", "pose_landmarks_detector.tflite": "pose_landmark_full"},
    "hand": {"hand_detector.tflite": "palm_detection_full", "hand_landmarks_detector.tflite": "hand_landmark_full"},
    "hand_lite": {"hand_detector.tflite": "palm_detection_lite", "hand_landmarks_detector.tflite": "hand_landmark_lite"},
}
# Models that need image-input normalization metadata before MediaPipe accepts them.
NEEDS_IMAGE_METADATA = {"pose_landmark_full", "palm_detection_lite"}


def import_mediapipe(script):
    """Imports mediapipe and numpy, re-executing under the project venv when this Python lacks them."""
    try:
        import mediapipe
        import numpy
        return mediapipe, numpy
    except ImportError:
        if VENV_PYTHON.exists() and Path(sys.prefix).resolve() != VENV.resolve():
            os.execv(str(VENV_PYTHON), [str(VENV_PYTHON), *sys.argv])
        sys.exit(
            f"{script}: mediapipe is not installed. Run:\n"
            f"  python3 -m venv {VENV.relative_to(REPO_ROOT)}\n"
            f"  {VENV_PYTHON.relative_to(REPO_ROOT).parent}/pip install -r {REQUIREMENTS.relative_to(REPO_ROOT)}")


def with_image_metadata(model_name, model_bytes):
    """The model with image-input metadata (NormalizationOptions mean 0, std 255: pixels to [0, 1])."""
    from mediapipe.tasks.python.metadata.metadata_writers import metadata_writer
    writer = metadata_writer.MetadataWriter.create(bytearray(model_bytes))
    writer.add_general_info(model_name, "MediaPipe model with image-input metadata.")
    writer.add_image_input(norm_mean=[0.0], norm_std=[255.0])
    model_with_metadata, _ = writer.populate()
    return model_with_metadata


def build_bundle(bundle, models_dir, folder, script):
    """Writes `<bundle>_landmarker.task` in `folder` from models/*.tflite and returns its path."""
    from mediapipe.tasks.python.metadata.metadata_writers import model_asset_bundle_utils
    members = {}
    for member, model in BUNDLES[bundle].items():
        path = Path(models_dir) / f"{model}.tflite"
        if not path.exists():
            sys.exit(f"{script}: missing model {path}: run models/fetch_models.sh")
        data = path.read_bytes()
        members[member] = with_image_metadata(model, data) if model in NEEDS_IMAGE_METADATA else data
    output = Path(folder) / f"{bundle}_landmarker.task"
    model_asset_bundle_utils.create_model_asset_bundle(members, str(output))
    return output
