#!/usr/bin/env bash
# Builds a fuzzer (every module instrumented for coverage and address-sanitized)
# and runs it. Six targets:
#
#   models (the default): ModelFuzzer, edits of the six real models through
#     Interpreter.validate;
#   inputs: InputFuzzer, untrusted image-side bytes: PNG and JPEG decoding with
#     the EXIF orientation reader, Y4M streams, .task bundles, raw pixel buffers;
#   manifests: ManifestFuzzer, `landmarker extract` manifests;
#   probes: VideoProbeFuzzer, ffprobe reports and ffmpeg log lines as the video
#     reader reads them, and the shortfalls it finds from them;
#   yuv: YUVFuzzer, YUV frames of fuzzed geometry through YUVConversion;
#   y4m: Y4MFuzzer, YUV4MPEG2 streams through Y4MReader.
#
# Usage: Fuzz/run.sh [models|inputs|manifests|probes|yuv|y4m] [libFuzzer flags], e.g.
#   Fuzz/run.sh -runs=500000 -jobs=2 -workers=2     # models: 2 processes, 1,000,000 executions
#   Fuzz/run.sh -max_total_time=600                 # models, ten minutes
#   Fuzz/run.sh export FOLDER INPUT...               # models: write inputs as patch files and
#                                                    # print each one's validate outcome
#   Fuzz/run.sh inputs -max_total_time=600          # inputs, ten minutes
#   Fuzz/run.sh inputs -max_total_time=600 -jobs=2 -workers=2
#   Fuzz/run.sh inputs ARTIFACT                     # replay one input (libFuzzer runs a file
#                                                    # argument once)
#   Fuzz/run.sh inputs -minimize_crash=1 -runs=10000 ARTIFACT   # minimise a finding
#   Fuzz/run.sh manifests -runs=10000000            # ten million manifests
#   FUZZ_REPORT=1 Fuzz/run.sh yuv ARTIFACT          # replay one, printing its outcome
#
# Models: what one execution checks is Interpreter.validate, i.e. every
# load-time check of a .reference load (verifier, graph validation, constant
# folding including DENSIFY of sparse weights, every operator's operand and
# option checks, the packed weight sizes, the memory plan). It skips only what
# cannot fail once those checks pass: decoding float weights whose byte count
# matches their shape, copying weights into packed panels whose size was
# checked, and allocating the planned arena. Inputs are "skeletons"
# (ModelSkeleton.swift): a real model's index plus its bytes outside the large
# weight buffers, which decode back to the full file; the seeds decode to the
# six real models byte for byte. Findings (crash-*, timeout-*, oom-*,
# slow-unit-*) land in Fuzz/.artifacts/ in that encoding;
# `Fuzz/run.sh export Fuzz/crashes ARTIFACT` turns one into the patch file that
# InferenceTests replays (minimise it first with libFuzzer's
# -minimize_crash=1 -runs=10000 ARTIFACT).
#
# Inputs: the first byte of an input picks the parser (InputKind.swift), the
# rest is its input. Seeds are built in code at start-up. Findings land in
# Fuzz/.artifacts/inputs/; a hang is -timeout=10 s, an allocation over
# -malloc_limit_mb=256 (the fuzzer decodes with a 1-megapixel cap) or a
# resident size over -rss_limit_mb=2048 is a finding. Fuzz/README.md has the
# details and past runs of both.
#
# manifests, probes, yuv, y4m: one parser each; seeds built in code at start-up
# into Fuzz/.corpus-TARGET, findings in Fuzz/.artifacts/TARGET/, the same
# limits as inputs (Fuzz/README.md).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
caller="$PWD"
target=models
case "${1:-}" in
  models | inputs | manifests | probes | yuv | y4m) target="$1"; shift ;;
esac
case "$target" in
  models) product=ModelFuzzer ;;
  inputs) product=InputFuzzer ;;
  manifests) product=ManifestFuzzer; max_len=65536 ;;
  probes) product=VideoProbeFuzzer; max_len=16384 ;;
  yuv) product=YUVFuzzer; max_len=65536 ;;
  y4m) product=Y4MFuzzer; max_len=262144 ;;
esac
cd "$here"
# A trap ends the process at once, reported by libFuzzer (deadly signal) and the address
# sanitizer's stack; the Swift runtime's backtracer would first spend minutes symbolicating every
# thread. Replay a finding with SWIFT_BACKTRACE=enable=yes for the runtime's message.
export SWIFT_BACKTRACE="${SWIFT_BACKTRACE:-enable=no}"
flags=(-c release --product "$product" -Xswiftc -sanitize=fuzzer,address -Xswiftc -parse-as-library)
swift build "${flags[@]}" >&2
binary="$(swift build "${flags[@]}" --show-bin-path)/$product"

# File arguments (a replay) are resolved from the caller's folder.
args=()
for arg in "$@"; do
  if [[ "$arg" != -* && -e "$caller/$arg" ]]; then arg="$(cd "$caller" && realpath "$arg")"; fi
  args+=("$arg")
done

if [[ "$target" != models && "$target" != inputs ]]; then
  corpus="$here/.corpus-$target"
  mkdir -p "$corpus" "$here/.artifacts/$target" "$here/.logs/$target"
  FUZZ_WRITE_SEEDS="$corpus" "$binary"
  cd "$here/.logs/$target"
  limits=(-rss_limit_mb=2048 -malloc_limit_mb=256 -timeout=10 -artifact_prefix="$here/.artifacts/$target/")
  if ((${#args[@]} > 0)) && [[ "${args[-1]}" != -* ]]; then
    exec "$binary" "${limits[@]}" "${args[@]}"
  fi
  exec "$binary" -max_len="$max_len" "${limits[@]}" "${args[@]}" "$corpus"
fi

if [[ "$target" == inputs ]]; then
  corpus="$here/.corpus-inputs"
  mkdir -p "$corpus" "$here/.artifacts/inputs" "$here/.logs/inputs"
  INPUT_FUZZER_WRITE_SEEDS="$corpus" "$binary"
  # -jobs writes one fuzz-N.log per job into the working folder.
  cd "$here/.logs/inputs"
  if ((${#args[@]} > 0)) && [[ "${args[-1]}" != -* ]]; then
    exec "$binary" -rss_limit_mb=2048 -malloc_limit_mb=256 -timeout=10 \
      -artifact_prefix="$here/.artifacts/inputs/" "${args[@]}"
  fi
  exec "$binary" -max_len=262144 -rss_limit_mb=2048 -malloc_limit_mb=256 -timeout=10 \
    -artifact_prefix="$here/.artifacts/inputs/" "${args[@]}" "$corpus"
fi

export MODEL_FUZZER_MODELS="${MODEL_FUZZER_MODELS:-$here/../models}"
if [[ "${1:-}" == export ]]; then
  cd "$caller"
  folder="$(cd "$2" && pwd)"; shift 2
  MODEL_FUZZER_EXPORT="$folder" exec "$binary" "$@"
fi

corpus="$here/.corpus"
mkdir -p "$corpus" "$here/.artifacts" "$here/.logs"
MODEL_FUZZER_WRITE_SEEDS="$corpus" "$binary"
# -jobs writes one fuzz-N.log per job into the working folder.
cd "$here/.logs"
exec "$binary" -max_len=2000000 -rss_limit_mb=3000 -timeout=30 \
  -artifact_prefix="$here/.artifacts/" "$@" "$corpus"
