#!/usr/bin/env bash
# The main job: fetches the models if needed, builds the CLI in release mode,
# then runs the pose detector model and prints its inspection and timing.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
models/fetch_models.sh
swift build -c release --product landmarker >&2
bin="$(swift build -c release --show-bin-path)/landmarker"
"$bin" inspect pose_detection
"$bin" bench pose_detection --runs 20 --warmup 3
