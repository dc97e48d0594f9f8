#!/usr/bin/env bash
# Builds the release CLI the way it is installed: the Swift runtime, Foundation and
# Dispatch linked statically (--static-swift-stdlib), so the binary needs only the
# system's C libraries; the native fast kernels (AVX2 + FMA, AVX-512 chosen at run
# time); and the git commit for `landmarker --version` ("-dirty" when tracked files
# have changes, "unknown" outside a git checkout). Prints the binary's path on
# standard output; the build's own output goes to standard error.
#
# Usage: scripts/build_release.sh
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

commit=unknown
if head="$(git rev-parse HEAD 2>/dev/null)"; then
  commit="$head"
  git diff --quiet HEAD -- 2>/dev/null || commit="$commit-dirty"
fi
export LANDMARKER_BUILD_COMMIT="$commit"
swift build -c release --static-swift-stdlib --product landmarker >&2
echo "$(swift build -c release --static-swift-stdlib --show-bin-path)/landmarker"
