#!/usr/bin/env bash
# Regenerates Tests/Fixtures: the golden tests' MediaPipe outputs (scripts/make_fixtures.py and, for
# the legacy Face Mesh and Holistic graphs, scripts/make_face_fixtures.py and
# scripts/make_holistic_fixtures.py), the
# OpenCV 4.10 crops of its images (scripts/make_opencv_crops.py) and the LiteRT outputs of its model
# inputs (scripts/make_model_references.sh). Creates the venvs Benchmarks/.venv-mediapipe (mediapipe)
# and Benchmarks/.venv-opencv (opencv-python-headless 4.10) from PyPI when missing, fetches the
# models and the sample photos, then runs the scripts. Rerunning it on the same inputs rewrites the same
# numbers (only the dates change).
#
# Usage: scripts/make_fixtures.sh
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
venv="$root/Benchmarks/.venv-mediapipe"
cd "$root"

if ! "$venv/bin/python" -c 'import mediapipe' 2>/dev/null; then
  echo "make_fixtures: creating $venv with mediapipe from PyPI" >&2
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet -r Benchmarks/peer/requirements-mediapipe.txt
fi
models/fetch_models.sh
scripts/fetch_samples.sh
"$venv/bin/python" scripts/make_fixtures.py
"$venv/bin/python" scripts/make_face_fixtures.py
"$venv/bin/python" scripts/make_holistic_fixtures.py
opencv="$root/Benchmarks/.venv-opencv"
if ! "$opencv/bin/python" -c 'import cv2' 2>/dev/null; then
  echo "make_fixtures: creating $opencv with OpenCV 4.10 from PyPI" >&2
  python3 -m venv "$opencv"
  "$opencv/bin/pip" install --quiet -r Benchmarks/peer/requirements-opencv.txt
fi
"$opencv/bin/python" scripts/make_opencv_crops.py
scripts/make_model_references.sh
