#!/usr/bin/env bash
# Builds the model fuzzer and runs it from the six real models as seeds.
# Usage: Fuzz/run.sh [extra libFuzzer flags, e.g. -runs=1000000 -jobs=2]
# Crashes are written to Fuzz/crashes/, which the test suite replays.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$here"
swift build -c release --product ModelFuzzer 2>&1 | tail -3 \
  || swift build -c release 2>&1 | tail -3
binary="$(swift build -c release --show-bin-path)/ModelFuzzer"
corpus="$here/.corpus"
mkdir -p "$corpus"
cp -n "$here"/../models/*.tflite "$corpus"/ 2>/dev/null || true
exec "$binary" -max_len=8000000 -rss_limit_mb=4096 -timeout=20 \
  -artifact_prefix="$here/crashes/" "$@" "$corpus"
