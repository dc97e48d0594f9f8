#!/usr/bin/env bash
# Checks that the generated schema code files (BuiltinOperator.swift, BuiltinOptionsType.swift and
# BuiltinOptionsFields.swift in Sources/FlatBufferReader) are what scripts/generate_schema_codes.py
# makes from the TFLite schema of the pinned ai-edge-litert wheel. Uses $LANDMARKER_PYTHON or
# Benchmarks/.venv/bin/python when it has that wheel; otherwise installs it into a temporary virtual
# environment (network needed).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

version="$(sed -n 's/^WHEEL_VERSION = "\(.*\)"$/\1/p' scripts/generate_schema_codes.py)"
has_wheel() {
  "$1" -c "from importlib import metadata; import sys; sys.exit(metadata.version('ai-edge-litert') != '$version')" \
    2>/dev/null
}

python=""
for candidate in "${LANDMARKER_PYTHON:-}" Benchmarks/.venv/bin/python; do
  if [[ -n "$candidate" && -x "$candidate" ]] && has_wheel "$candidate"; then
    python="$candidate"
    break
  fi
done
if [[ -z "$python" ]]; then
  venv="$(mktemp -d)"
  trap 'rm -rf "$venv"' EXIT
  echo "installing ai-edge-litert==$version into a temporary virtual environment" >&2
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --no-deps "ai-edge-litert==$version"
  python="$venv/bin/python"
fi
"$python" scripts/generate_schema_codes.py --check
echo "schema codes are current (ai-edge-litert $version)"
