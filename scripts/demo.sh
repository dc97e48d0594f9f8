#!/usr/bin/env bash
# The main job: installs the system packages the build needs (as root; without
# root it names them and stops), fetches the models and a sample photo if
# needed, builds the CLI in release mode (scripts/build_release.sh), and runs the
# pose landmarker on the photo. Writes out/bus_pose.json (landmarks),
# out/bus_pose.png (skeleton drawn over the photo) and out/bus_mask.png
# (segmentation mask).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
scripts/system_packages.sh
models/fetch_models.sh
scripts/fetch_samples.sh
echo "demo: building the landmarker CLI (release)" >&2
bin="$(scripts/build_release.sh)"
mkdir -p out
"$bin" pose samples/bus.jpg --json --annotate out/bus_pose.png --mask out/bus_mask.png > out/bus_pose.json
"$bin" pose samples/bus.jpg
echo "demo: wrote out/bus_pose.json, out/bus_pose.png and out/bus_mask.png" >&2
