#!/usr/bin/env bash
# Builds the model fuzzer (every module instrumented for coverage and
# address-sanitized) and runs it with the six real models as seeds.
# Usage: Fuzz/run.sh [libFuzzer flags, e.g. -runs=1000000 -jobs=2 -workers=2]
# Crashing inputs are written to Fuzz/crashes/, which the test suite replays.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$here"
flags=(-c release --product ModelFuzzer -Xswiftc -sanitize=fuzzer,address -Xswiftc -parse-as-library)
swift build "${flags[@]}" >&2
binary="$(swift build "${flags[@]}" --show-bin-path)/ModelFuzzer"
corpus="$here/.corpus"
mkdir -p "$corpus"
for model in "$here"/../models/*.tflite; do
  [[ -e "$corpus/$(basename "$model")" ]] || cp "$model" "$corpus/"
done
exec "$binary" -max_len=8000000 -rss_limit_mb=6000 -timeout=30 \
  -artifact_prefix="$here/crashes/" "$@" "$corpus"
