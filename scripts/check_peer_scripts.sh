#!/usr/bin/env bash
# Checks the peer-comparison scripts in Benchmarks/peer without LiteRT or
# MediaPipe (neither is imported before a measurement starts):
#   - every script with a command line prints its --help and exits 0;
#   - layer_summary.py sums a small report into a table, JSON and Markdown,
#     and answers a missing, malformed or peakless report and out-of-range
#     options with a one-line message and a non-zero exit, never a traceback;
#   - check_speed.py refuses bad options the same way, and its verdicts on made-up
#     rounds fail a family or a runtime 1.5x too slow and pass a few per cent of noise;
#   - thread_scaling.py refuses bad options the same way, and on a made-up binary's
#     layer times gives each layer's ratio and excess and the model's speed-up.
# Usage: scripts/check_peer_scripts.sh
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

python="${LANDMARKER_PYTHON:-python3}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
failures=0
fail() {
  echo "FAIL: $*" >&2
  failures=$((failures + 1))
}

for script in check_speed compare_layers compare_litert compare_mediapipe layer_summary thread_scaling xnnpack_divergence; do
  if ! "$python" "Benchmarks/peer/$script.py" --help > "$work/help.txt" 2>&1; then
    fail "$script.py --help exited with $?: $(tail -1 "$work/help.txt")"
  elif ! grep -q '^usage:' "$work/help.txt"; then
    fail "$script.py --help printed no usage line"
  fi
done

summary=Benchmarks/peer/layer_summary.py
# Two layers: a convolution of 1 MMAC at 0.02 ms against 0.025, a depthwise layer of 0.1 MMAC at
# 0.01 ms against 0.02; a peak of 100 GFLOP/s.
cat > "$work/report.json" <<'EOF'
{"model": "example", "threads": 1, "instructionSet": "avx2", "fmaPeakGflopsPerCore": 100.0,
 "machine": {"date": "2026-11-28 21:00 UTC", "commit": "0000000", "cpu": "example CPU", "cpuFlags": "avx2 fma"},
 "layers": [
  {"layer": 0, "name": "CONV_2D", "outputShape": [1, 8, 8, 16], "oursMedianMs": 0.02,
   "litertMedianMs": 0.025, "multiplyAccumulates": 1000000},
  {"layer": 1, "name": "DEPTHWISE_CONV_2D", "outputShape": [1, 8, 8, 16], "oursMedianMs": 0.01,
   "litertMedianMs": 0.02, "multiplyAccumulates": 100000}]}
EOF
if ! "$python" "$summary" "$work/report.json" > "$work/table.txt" 2>&1; then
  fail "layer_summary.py on a valid report: $(tail -1 "$work/table.txt")"
else
  # All: 0.03 ms against 0.045, a ratio of 0.67; the convolution's 2 MFLOP in 0.02 ms is 100 % of the peak.
  grep -Eq '^all +2 +0\.030 +0\.045 +0\.67' "$work/table.txt" || fail "layer_summary.py: no 'all' row of 0.67"
  grep -Eq '^CONV_2D +1 .* 100%' "$work/table.txt" || fail "layer_summary.py: the convolution is not at 100 % of the peak"
fi
"$python" "$summary" --json "$work/report.json" | "$python" -c 'import json, sys; json.load(sys.stdin)' \
  || fail "layer_summary.py --json does not print JSON"
"$python" "$summary" --markdown "$work/report.json" | grep "^|" > /dev/null || fail "layer_summary.py --markdown prints no table"

echo '{"layers": [' > "$work/truncated.json"
"$python" -c 'import json, sys; r = json.load(open(sys.argv[1])); del r["fmaPeakGflopsPerCore"]; print(json.dumps(r))' \
  "$work/report.json" > "$work/peakless.json"
"$python" -c 'import json, sys; r = json.load(open(sys.argv[1])); r["layers"][0]["litertMedianMs"] = 0; print(json.dumps(r))' \
  "$work/report.json" > "$work/zero.json"
"$python" -c 'import json, sys; r = json.load(open(sys.argv[1])); del r["machine"]["cpu"]; print(json.dumps(r))' \
  "$work/report.json" > "$work/cpuless.json"
# expect_script_refusal SCRIPT NAME ARGUMENTS...: SCRIPT must exit non-zero with a message and no
# traceback.
expect_script_refusal() {
  local script="$1" name="$2"; shift 2
  local status=0
  "$python" "$script" "$@" > "$work/out.txt" 2> "$work/err.txt" || status=$?
  if [[ $status -eq 0 ]]; then
    fail "$(basename "$script") accepted $name"
  elif grep -q Traceback "$work/err.txt"; then
    fail "$(basename "$script") answered $name with a traceback"
  elif [[ ! -s "$work/err.txt" ]]; then
    fail "$(basename "$script") refused $name without a message"
  else
    echo "-- $name: $(tail -1 "$work/err.txt")"
  fi
}
expect_refusal() { expect_script_refusal "$summary" "$@"; }
expect_refusal "a missing report" "$work/missing.json"
expect_refusal "a truncated report" "$work/truncated.json"
expect_refusal "a report without a peak" "$work/peakless.json"
expect_refusal "a report without its CPU" "$work/cpuless.json"
expect_refusal "a layer timed at 0 ms" "$work/zero.json"
expect_refusal "--at 0" --at 0 "$work/report.json"
expect_refusal "--at 150" --at 150 "$work/report.json"
expect_refusal "--goal -1" --goal -1 "$work/report.json"

speed=Benchmarks/peer/check_speed.py
expect_script_refusal "$speed" "a missing landmarker" --landmarker "$work/missing-landmarker"
expect_script_refusal "$speed" "--rounds 0" --rounds 0
expect_script_refusal "$speed" "--max-litert-ratio 0" --max-litert-ratio 0
# The speed check's verdicts on made-up rounds: a family 1.5x slower than the other, or ours 1.5x
# LiteRT's time, fails; the noise of a few per cent passes, and so does a host whose slow state
# (1.7x) fell on our side in most rounds but not in all.
PYTHONPATH=Benchmarks/peer "$python" - <<'EOF' || fail "check_speed.py's verdicts on made-up rounds"
from check_speed import summarize
bounds = {"litert": 1.25, "family": 1.10}
def side(ms, state):
    return {"medianMs": ms * state * 1.02, "p10Ms": ms * state}
def rounds(avx512, avx2, litert, states=((1.0, 1.0, 1.0), (1.03, 1.03, 1.03), (0.98, 0.98, 0.98))):
    return [{"avx512": side(avx512, a), "avx2": side(avx2, b), "litert": side(litert, c)} for a, b, c in states]
slow_on_our_side = ((1.7, 1.7, 1.0), (1.7, 1.0, 1.0), (1.0, 1.7, 1.0), (1.7, 1.7, 1.0))
cases = [(rounds(9.0, 9.5, 10.0), True, 0), (rounds(15.0, 10.0, 16.0), True, 1),
         (rounds(15.0, 16.0, 10.0), True, 1), (rounds(15.0, 10.0, 10.0), True, 2),
         (rounds(10.4, 10.0, 10.0), True, 0), ([{"avx2": side(15.0, 1), "litert": side(10.0, 1)}], False, 1),
         (rounds(9.0, 9.5, 10.0, slow_on_our_side), True, 0), (rounds(15.0, 10.0, 10.0, slow_on_our_side), True, 2)]
for model_rounds, avx512, expected in cases:
    row = summarize("m", model_rounds, avx512, bounds)
    assert len(row["failures"]) == expected, (model_rounds[0], row["failures"])
row = summarize("m", rounds(9.0, 9.5, 10.0, slow_on_our_side), True, bounds)
assert row["oursOverLitertMedianOfRounds"] > 1.25, "the made-up slow state would have failed the median of rounds"
import tempfile
from pathlib import Path
from check_speed import recorded_path
from peer_common import REPO_ROOT
outside = Path(tempfile.gettempdir()) / "elsewhere" / "landmarker"
assert recorded_path(outside) == "landmarker", "a path outside the repository is recorded by its file name alone"
assert recorded_path(REPO_ROOT / ".build" / "release" / "landmarker") == ".build/release/landmarker"
print("-- check_speed.py: verdicts on made-up rounds as expected; recorded paths name no machine folder")
EOF

scaling=Benchmarks/peer/thread_scaling.py
expect_script_refusal "$scaling" "a missing landmarker" hand_recrop --landmarker "$work/missing-landmarker"
expect_script_refusal "$scaling" "--threads 1" hand_recrop --threads 1
# A made-up binary: at one thread a 100 µs convolution and a 10 µs PAD, at two 60 µs and 10 µs;
# invokes of 0.2 ms and 0.125 ms.
mkdir -p "$work/models"
touch "$work/models/hand_recrop.tflite"
cat > "$work/fake-landmarker" <<'EOF'
#!/usr/bin/env bash
threads=1
while [[ $# -gt 0 ]]; do [[ $1 == --threads ]] && threads=$2; shift; done
if [[ $threads == 1 ]]; then conv=0.100 median=0.2; else conv=0.060 median=0.125; fi
cat <<JSON
{"medianMs": $median, "perLayer": [
 {"index": 0, "op": "CONV_2D", "outputShape": "[1, 8, 8, 16]", "multiplyAccumulates": 1000, "ms": $conv, "fastestMs": $conv},
 {"index": 1, "op": "PAD", "outputShape": "[1, 9, 9, 16]", "multiplyAccumulates": 0, "ms": 0.011, "fastestMs": 0.010}]}
JSON
EOF
chmod +x "$work/fake-landmarker"
expect_script_refusal "$scaling" "an unknown model" no_such_model --landmarker "$work/fake-landmarker"
# No model named: all ten, of which the folder holds one.
expect_script_refusal "$scaling" "models missing from the folder" --landmarker "$work/fake-landmarker" \
  --models-dir "$work/models"
if ! "$python" "$scaling" hand_recrop --landmarker "$work/fake-landmarker" --models-dir "$work/models" --rounds 2 \
    --runs 1 --json-file "$work/scaling.json" > "$work/scaling.txt" 2>&1; then
  fail "thread_scaling.py on a made-up binary: $(tail -1 "$work/scaling.txt")"
else
  # The convolution: 60 µs at two threads against 100 at one, a ratio of 0.6 and 10 µs of excess;
  # the PAD, 10 against 10: ratio 1, excess 5; the model's speed-up 0.2 / 0.125 = 1.6.
  "$python" - "$work/scaling.json" <<'EOF' || fail "thread_scaling.py's ratios and excess on a made-up binary"
import json, sys
result = json.load(open(sys.argv[1]))["results"][0]
conv, pad = result["layers"]
assert (conv["ratio"], conv["excessUs"]) == (0.6, 10.0), conv
assert (pad["ratio"], pad["excessUs"]) == (1.0, 5.0), pad
assert result["speedUp"] == 1.6, result["speedUp"]
print("-- thread_scaling.py: ratios, excess and speed-up of a made-up binary as expected")
EOF
  grep -q '^  by operator: CONV_2D 10, PAD 5' "$work/scaling.txt" || fail "thread_scaling.py: no excess by operator"
fi

if [[ $failures -gt 0 ]]; then
  echo "check_peer_scripts: $failures failure(s)" >&2
  exit 1
fi
echo "check_peer_scripts: every --help, layer_summary.py's table and refusals, check_speed.py's refusals and verdicts, thread_scaling.py's refusals and figures, as expected"
