#!/usr/bin/env bash
# Builds the release CLI the way it is installed: the Swift runtime, Foundation and
# Dispatch linked statically (--static-swift-stdlib), so the binary needs only the
# system's C libraries; the native fast kernels (AVX2 + FMA, AVX-512 chosen at run
# time); the code a run executes laid out together; and the git commit for
# `landmarker --version` ("-dirty" when tracked files have changes, "unknown"
# outside a git checkout). Prints the binary's path on
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
# The functions a run executes, together at the start of the binary's code
# (scripts/code_order.txt, made by scripts/make_code_order.sh): every function in
# a section of its own, placed by lld in the list's order. Fewer of the binary's
# pages are then resident (about 2 MiB less for a hand or pose run on a photo).
layout=(-Xswiftc -Xfrontend -Xswiftc -function-sections -Xswiftc -use-ld=lld
        -Xlinker "--symbol-ordering-file=$PWD/scripts/code_order.txt" -Xlinker --no-warn-symbol-ordering)
swift build -c release --static-swift-stdlib "${layout[@]}" --product landmarker >&2
echo "$(swift build -c release --static-swift-stdlib "${layout[@]}" --show-bin-path)/landmarker"
