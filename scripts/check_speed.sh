#!/usr/bin/env bash
# Fails when a kernel family goes backwards, on the machine at hand: one thread, all ten models
# (pose, hand, face and the holistic hand re-crop), rounds alternating our AVX-512 family (where
# the CPU has it), our AVX2 family and LiteRT (Benchmarks/peer/check_speed.py says how and what
# the bounds are). LiteRT 2.3.0 is installed from PyPI into Benchmarks/.venv when it is not there
# yet. Each run's report (CPU, date, load,
# commit, every round) is kept in Benchmarks/peer/results/speed-check/, named after its date and
# the CPU's family and model, and printed as a table.
#
# Usage: scripts/check_speed.sh [LANDMARKER] [check_speed.py options...]
#   LANDMARKER: the binary to time (default: the release build of scripts/build_release.sh,
#   built when missing). Models come from models/ (models/fetch_models.sh).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

landmarker=""
if [[ $# -gt 0 && "$1" != -* ]]; then
  landmarker="$1"
  shift
fi
if [[ -z "$landmarker" ]]; then
  landmarker="$(scripts/build_release.sh)"
fi
if [[ ! -x "$landmarker" ]]; then
  echo "check_speed: $landmarker is not an executable file" >&2
  exit 2
fi

venv=Benchmarks/.venv
if ! "$venv/bin/python" -c 'import ai_edge_litert, numpy' 2> /dev/null; then
  echo "check_speed: installing LiteRT into $venv" >&2
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check -r Benchmarks/peer/requirements.txt
fi

cpu="$(awk -F': ' '/^cpu family/ { family = $2 } /^model\t/ { model = $2 } END { print "family" family "-model" model }' /proc/cpuinfo)"
results=Benchmarks/peer/results/speed-check
mkdir -p "$results"
report="$results/$(date -u +%Y-%m-%d-%H%M)-$cpu.json"
"$venv/bin/python" Benchmarks/peer/check_speed.py --landmarker "$landmarker" --json-file "$report" "$@"
