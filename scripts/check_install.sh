#!/usr/bin/env bash
# Installs the CLI under PREFIX (scripts/install.sh) and checks it as a user of a
# minimal box would run it: from another folder, with an environment holding only
# PATH=/usr/bin:/bin (no Swift toolchain) and a HOME of its own.
#   - `pose PHOTO --json`, `hand PHOTO --json`, `face PHOTO --json` and `holistic PHOTO --json`
#     print results;
#   - `--version` prints the version, the commit, the kernel family, the model folder and the
#     weight cache folder;
#   - the runs save their packed weights in the user's cache, and a second pose run, which maps
#     them, prints the same JSON;
#   - ldd lists no Swift runtime library;
#   - `bench MODEL_NAME --per-layer --json` finds the model in the prefix and gives every
#     operator a mean and a fastest time;
#   - with the models moved away, `pose` fails with a message naming every folder it
#     searched and the fetch command, and a non-zero exit status.
# Leaves the installation in PREFIX (the soak runs of .ci/run use it).
#
# Usage: scripts/check_install.sh PREFIX
set -euo pipefail
if (($# != 1)); then echo "usage: scripts/check_install.sh PREFIX" >&2; exit 2; fi
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$root/scripts/install.sh" "$1"
prefix="$(cd "$1" && pwd)"
bin="$prefix/bin/landmarker"
models="$prefix/share/landmarker/models"
work="$(mktemp -d)"
trap 'rm -rf "$work"; [[ -d "$models.away" ]] && mv "$models.away" "$models"' EXIT
mkdir -p "$work/elsewhere" "$work/home"
cd "$work/elsewhere"

failures=0
fail() { echo "check_install: FAIL: $*" >&2; failures=$((failures + 1)); }
# as_user COMMAND...: runs COMMAND with only PATH and HOME set.
as_user() { env -i PATH=/usr/bin:/bin HOME="$work/home" "$@"; }

as_user sh -c 'command -v swift' >/dev/null && fail "swift is on PATH=/usr/bin:/bin: the check would not show that the binary runs without the toolchain"

if runtime="$(ldd "$bin" | grep -E 'libswift|libFoundation|libdispatch|libBlocksRuntime|_FoundationICU')"; then
  fail "ldd lists Swift runtime libraries: $runtime"
fi
echo "check_install: ldd $bin:"
ldd "$bin" | sed 's/^/  /'

version="$(as_user "$bin" --version)"
echo "$version" | sed 's/^/  /'
grep -qE '^landmarker [0-9]+\.[0-9]+\.[0-9]+$' <<<"$version" || fail "--version has no version line"
grep -qE '^commit: ([0-9a-f]{40}(-dirty)?|unknown)$' <<<"$version" || fail "--version has no commit line"
if git -C "$root" rev-parse HEAD >/dev/null 2>&1; then
  grep -q "^commit: $(git -C "$root" rev-parse HEAD)" <<<"$version" || fail "--version does not name the checkout's commit"
fi
grep -qE '^kernels: (AVX-512|AVX2 \+ FMA|portable)' <<<"$version" || fail "--version has no kernel family"
grep -qxF "models: $models" <<<"$version" || fail "--version does not name $models"
grep -qxF "weight cache: $work/home/.cache/landmarker/weights" <<<"$version" \
  || fail "--version does not name the weight cache in \$HOME/.cache"

# check_json TASK PHOTO: the task's JSON on PHOTO has at least one result.
check_json() {
  local out="$work/$1.json"
  if ! as_user "$bin" "$1" "$2" --json > "$out"; then
    fail "$1 $2 --json exited with status $?"
    return
  fi
  python3 - "$out" "$1" <<'PY' || fail "$1 $2 --json: no result in the output"
import json, sys
path, task = sys.argv[1:]
result = json.load(open(path))
count = len(result["landmarks"])
print(f"check_install: {task}: {count} result(s) with {len(result['landmarks'][0])} landmarks each")
sys.exit(0 if count > 0 else 1)
PY
}
check_json pose "$root/samples/bus.jpg"
check_json hand "$root/samples/t1.jpg"
check_json face "$root/samples/grace_hopper.jpg"

# The packed weights saved by those runs (two models each), and a second run that maps them.
weights="$work/home/.cache/landmarker/weights"
saved="$(find "$weights" -name '*.weights' 2>/dev/null | wc -l)"
echo "check_install: $saved weight cache files in $weights"
((saved == 6)) || fail "the pose, hand and face runs saved $saved weight cache files in $weights, not 6"
cp "$work/pose.json" "$work/pose_first.json"
check_json pose "$root/samples/bus.jpg"
cmp -s "$work/pose.json" "$work/pose_first.json" || fail "pose with its packed weights mapped printed other JSON"
# The installed holistic bundle: a person with body and face on the portrait.
if as_user "$bin" holistic "$root/samples/grace_hopper.jpg" --json > "$work/holistic.json"; then
  python3 - "$work/holistic.json" <<'PY' || fail "holistic --json: no person with a face in the output"
import json, sys
people = json.load(open(sys.argv[1]))["people"]
print(f"check_install: holistic: {len(people)} person(s), face landmarks "
      f"{[len(p['faceLandmarks'] or []) for p in people]}")
sys.exit(0 if people and people[0]["faceLandmarks"] else 1)
PY
else
  fail "holistic --json exited with status $?"
fi

# `bench` finds a model by name in the prefix, and its per-layer report gives every operator
# a mean and a fastest pass (the fastest no slower than the mean).
if as_user "$bin" bench hand_landmark_lite --runs 3 --warmup 1 --per-layer --json > "$work/bench.json"; then
  python3 - "$work/bench.json" <<'PY' || fail "bench hand_landmark_lite --per-layer --json: layers without sound times"
import json, sys
report = json.load(open(sys.argv[1]))
layers = report["perLayer"]
bad = [layer["index"] for layer in layers if not 0 <= layer["fastestMs"] <= layer["ms"] * (1 + 1e-9)]
print(f"check_install: bench: {len(layers)} layers, median {report['medianMs']:.2f} ms")
sys.exit(0 if layers and not bad else 1)
PY
else
  fail "bench hand_landmark_lite exited with status $?"
fi

# Models moved away: a clear error listing the folders searched, and a failure status.
mv "$models" "$models.away"
status=0
as_user "$bin" pose "$root/samples/bus.jpg" --json > "$work/stdout" 2> "$work/stderr" || status=$?
mv "$models.away" "$models"
if ((status == 0)); then
  fail "pose without models exited with status 0"
else
  for expected in "model 'pose_landmarker_full.task' not found" '$LANDMARKER_MODELS: not set' \
                  "install prefix: $models" "beside the executable: $prefix/bin/models" \
                  "current folder: $work/elsewhere/models" "user cache: $work/home/.cache/landmarker/models" \
                  "models/fetch_models.sh $work/home/.cache/landmarker/models"; do
    grep -qF "$expected" "$work/stderr" || fail "the missing-model message lacks '$expected'"
  done
  [[ -s "$work/stdout" ]] && fail "pose without models wrote to standard output"
  echo "check_install: without models, status $status and:"
  sed 's/^/  /' "$work/stderr"
fi

((failures == 0)) || { echo "check_install: $failures failure(s)" >&2; exit 1; }
echo "check_install: $bin runs from another folder without the Swift toolchain"
