#!/usr/bin/env bash
# Builds the model fuzzer (every module instrumented for coverage and
# address-sanitized) and runs it on edits of the six real models.
#
# Usage: Fuzz/run.sh [libFuzzer flags], e.g.
#   Fuzz/run.sh -runs=500000 -jobs=2 -workers=2     # 2 processes, 1,000,000 executions
#   Fuzz/run.sh -max_total_time=600
#   Fuzz/run.sh export FOLDER INPUT...               # write inputs as patch files and
#                                                    # print each one's validate outcome
#
# What one execution checks: Interpreter.validate, i.e. every load-time check of
# a .reference load (verifier, graph validation, constant folding including
# DENSIFY of sparse weights, every operator's operand and option checks, the
# packed weight sizes, the memory plan). It skips only what cannot fail once
# those checks pass: decoding float weights whose byte count matches their
# shape, copying weights into packed panels whose size was checked, and
# allocating the planned arena. Fuzz/README.md has the details and past runs.
#
# Inputs are "skeletons" (ModelSkeleton.swift): a real model's index plus its
# bytes outside the large weight buffers, which decode back to the full file;
# the seeds decode to the six real models byte for byte.
#
# Findings (crash-*, timeout-*, oom-*, slow-unit-*) land in Fuzz/.artifacts/ in
# that encoding; `Fuzz/run.sh export Fuzz/crashes ARTIFACT` turns one into the
# patch file that InferenceTests replays (minimise it first with libFuzzer's
# -minimize_crash=1 -runs=10000 ARTIFACT).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
caller="$PWD"
cd "$here"
flags=(-c release --product ModelFuzzer -Xswiftc -sanitize=fuzzer,address -Xswiftc -parse-as-library)
swift build "${flags[@]}" >&2
binary="$(swift build "${flags[@]}" --show-bin-path)/ModelFuzzer"
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
