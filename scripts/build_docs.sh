#!/usr/bin/env bash
# Builds the DocC documentation of the Tasks API (MediaPipeTasksVision), the ML Kit API (MLKit)
# and the runtime (Inference) with the swift-docc-plugin, every warning an error (a broken symbol
# link, an unknown article): one static site per module under OUT (default out/docs), each opened
# at OUT/<module>/documentation/<module>/index.html once served by a web server
# (`python3 -m http.server -d OUT/<module>`; DocC sites need one).
#
# Usage: scripts/build_docs.sh [OUT]
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
out="${1:-out/docs}"
mkdir -p "$out"
for module in MediaPipeTasksVision MLKit Inference; do
  echo "build_docs: $module" >&2
  rm -rf "$out/$module"
  swift package --allow-writing-to-directory "$out" generate-documentation \
    --target "$module" --warnings-as-errors --output-path "$out/$module" \
    --transform-for-static-hosting --hosting-base-path "$module" >&2
  [[ -f "$out/$module/documentation/$(tr '[:upper:]' '[:lower:]' <<< "$module")/index.html" ]] \
    || { echo "build_docs: no index page for $module in $out/$module" >&2; exit 1; }
done
echo "build_docs: MediaPipeTasksVision, MLKit and Inference documented in $out"
