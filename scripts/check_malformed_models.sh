#!/usr/bin/env bash
# Runs the real `landmarker inspect` and `landmarker run` binaries on truncated
# and bit-flipped copies of each model (made in a temporary folder, never kept)
# and fails if any of them
#   - is killed by a signal (exit status >= 128) or runs past the time limit,
#   - fails (non-zero exit) without a message on standard error,
#   - succeeds (exit 0) without output on standard output,
#   - succeeds on a copy cut short inside the model, where an error is expected.
# Usage: scripts/check_malformed_models.sh [seed]   (the seed is printed; pass it to replay)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

seed="${1:-$((RANDOM * 32768 + RANDOM))}"
echo "check_malformed_models: seed $seed (replay with scripts/check_malformed_models.sh $seed)"
RANDOM=$seed
limit=120

swift build --product landmarker >&2
bin="$(swift build --show-bin-path)/landmarker"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

failures=0 cases=0 loaded=0
fail() {
  echo "FAIL: $*" >&2
  failures=$((failures + 1))
}

# check NAME EXPECT COMMAND...: runs COMMAND under the time limit; EXPECT is
# "error" when only a failure with a message is acceptable, "any" otherwise.
check() {
  local name="$1" expect="$2"; shift 2
  local status=0
  timeout "$limit" "$@" > "$work/stdout" 2> "$work/stderr" || status=$?
  cases=$((cases + 1))
  if ((status == 124)); then
    fail "$name: still running after ${limit}s"
  elif ((status >= 128)); then
    fail "$name: killed by signal $((status - 128)); stderr: $(tail -c 300 "$work/stderr")"
  elif ((status == 0)); then
    loaded=$((loaded + 1))
    echo "$name: exit 0, $(wc -l < "$work/stdout") lines of output"
    [[ -s "$work/stdout" ]] || fail "$name: exit 0 without output"
    [[ "$expect" == any ]] || fail "$name: exit 0 where an error was expected"
  else
    echo "$name: exit $status: $(head -n 1 "$work/stderr" | cut -c 1-200)"
    [[ -s "$work/stderr" ]] || fail "$name: exit $status without a message on stderr"
  fi
}

# A byte offset below $1, from bash's seeded generator.
random_below() {
  echo $(( (RANDOM * 32768 + RANDOM) % $1 ))
}

# flip_bit FILE OFFSET BIT: flips one bit in place.
flip_bit() {
  local byte
  byte=$(od -An -tu1 -j "$2" -N1 "$1" | tr -d ' ')
  printf "$(printf '\\%03o' $((byte ^ (1 << $3))))" | dd of="$1" bs=1 seek="$2" conv=notrunc status=none
}

for model in pose_detection pose_landmark_full palm_detection_full palm_detection_lite \
  hand_landmark_full hand_landmark_lite; do
  original="models/$model.tflite"
  [[ -f "$original" ]] || { echo "missing $original: run models/fetch_models.sh" >&2; exit 1; }
  size=$(wc -c < "$original")

  # A zero input of the model's input size, from `inspect`'s "input 0: NAME [d, ...] float32".
  dims=$("$bin" inspect "$original" | sed -n 's/^input 0: .*\[\(.*\)\] float32$/\1/p')
  elements=1
  for d in ${dims//,/ }; do elements=$((elements * d)); done
  head -c $((elements * 4)) /dev/zero > "$work/input.bin"

  # Cut inside the flatbuffer an error is expected. MediaPipe appends a zip of
  # associated files (labels) after it, so the last bytes may be unused: cut
  # there, a model that still loads is fine.
  copies=()
  for length in 0 4 8 16 64 1024 $((size / 2)) $((size - 64)) $((size - 1)); do
    head -c "$length" "$original" > "$work/$model-truncated-$length.tflite"
    expect=error
    ((length <= size / 2)) || expect=any
    copies+=("$work/$model-truncated-$length.tflite:$expect")
  done
  # Single bits flipped in the first 4 KiB (root table, buffer table) and the
  # last 64 KiB (tensors, operators) where the structure lies, and anywhere.
  for k in $(seq 12); do
    case $((k % 3)) in
      0) offset=$(random_below 4096) ;;
      1) offset=$((size - 1 - $(random_below 65536))) ;;
      2) offset=$(random_below "$size") ;;
    esac
    bit=$((RANDOM % 8))
    copy="$work/$model-bit$bit-at-$offset.tflite"
    cp "$original" "$copy"
    flip_bit "$copy" "$offset" "$bit"
    copies+=("$copy:any")
  done

  for entry in "${copies[@]}"; do
    copy="${entry%:*}" expect="${entry##*:}"
    label="$(basename "$copy" .tflite)"
    check "inspect $label" "$expect" "$bin" inspect "$copy"
    check "run $label" "$expect" "$bin" run "$copy" --input "$work/input.bin" --output-dir "$work/out"
    rm -f "$copy"
  done
done

echo "check_malformed_models: $cases runs, $loaded succeeded, $((cases - loaded)) failed with a message, $failures problems"
((failures == 0))
