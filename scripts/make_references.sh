#!/usr/bin/env bash
# Regenerates the MediaPipe references in Tests/References (all but xnnpack_outputs.json) with
# MediaPipe 0.10.21 (see scripts/make_references.py): creates the venv Benchmarks/.venv-mediapipe
# with mediapipe from PyPI if it is missing, fetches the models and the sample photos, then runs
# the script. Idempotent; rerunning it on the same inputs rewrites the same numbers (only the date
# in the files changes).
#
# Usage: scripts/make_references.sh [make_references.py options]
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
venv="$root/Benchmarks/.venv-mediapipe"
cd "$root"

if ! "$venv/bin/python" -c 'import mediapipe' 2>/dev/null; then
  echo "make_references: creating $venv with mediapipe from PyPI" >&2
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet -r Benchmarks/peer/requirements-mediapipe.txt
fi
models/fetch_models.sh
scripts/fetch_samples.sh
"$venv/bin/python" scripts/make_references.py "$@"
