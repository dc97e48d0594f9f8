#!/usr/bin/env bash
# Fetches the MediaPipe models this project runs from the PyPI wheel
# mediapipe==0.10.21 (the six pose and hand models, and the face detectors, the face
# landmark models and the holistic hand re-crop model the runtime is checked on), checks each
# file's sha256, and assembles the .task bundles of the pose, hand, face and holistic landmarkers
# (face_landmarker.task and holistic_landmarker.task: 468 face landmarks; the _refined ones: 478,
# with the attention model). Idempotent: files already present with the right checksum are kept.
#
# Usage: models/fetch_models.sh [DEST_DIR]   (default: the folder of this script)
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
dest="${1:-$here}"
mkdir -p "$dest"

wheel_spec="mediapipe==0.10.21"
wheel_name="mediapipe-0.10.21-cp311-cp311-manylinux_2_28_x86_64.whl"

# name | path inside the wheel | sha256
models=(
  "pose_detection|mediapipe/modules/pose_detection/pose_detection.tflite|9ba9dd3d42efaaba86b4ff0122b06f29c4122e756b329d89dca1e297fd8f866c"
  "pose_landmark_full|mediapipe/modules/pose_landmark/pose_landmark_full.tflite|e9a5c5cb17f736fafd4c2ec1da3b3d331d6edbe8a0d32395855aeb2cdfd64b9f"
  "palm_detection_full|mediapipe/modules/palm_detection/palm_detection_full.tflite|1b14e9422c6ad006cde6581a46c8b90dd573c07ab7f3934b5589e7cea3f89a54"
  "palm_detection_lite|mediapipe/modules/palm_detection/palm_detection_lite.tflite|e9a4aaddf90dda56a87235303cf00e4c2d3fb28725f68fd88772997dac905c18"
  "hand_landmark_full|mediapipe/modules/hand_landmark/hand_landmark_full.tflite|11c272b891e1a99ab034208e23937a8008388cf11ed2a9d776ed3d01d0ba00e3"
  "hand_landmark_lite|mediapipe/modules/hand_landmark/hand_landmark_lite.tflite|048edd3645c9bf7397d19a9f6e3a42957d6e414c9bea6598030a2e9b624156e6"
  "face_detection_short_range|mediapipe/modules/face_detection/face_detection_short_range.tflite|bbff11cebd1eb27a1e004cae0b0e63ec8c551cbf34a4451148b4908b8db3eca8"
  "face_detection_full_range_sparse|mediapipe/modules/face_detection/face_detection_full_range_sparse.tflite|2c3728e6da56f21e21a320433396fb06d40d9088f2247c05e5635a688d45dfe1"
  "face_landmark|mediapipe/modules/face_landmark/face_landmark.tflite|1055cb9d4a9ca8b8c688902a3a5194311138ba256bcc94e336d8373a5f30c814"
  "face_landmark_with_attention|mediapipe/modules/face_landmark/face_landmark_with_attention.tflite|e06a804e0144f9929eda782122916b35d60c697c3c9344013ca2bbe76a6ce2b4"
  "hand_recrop|mediapipe/modules/holistic_landmark/hand_recrop.tflite|67d996ce96f9d36fe17d2693022c6da93168026ab2f028f9e2365398d8ac7d5d"
)

say() { echo "fetch_models: $*" >&2; }

sha_of() { sha256sum "$1" | cut -d' ' -f1; }

missing=()
for entry in "${models[@]}"; do
  IFS='|' read -r name _ sum <<<"$entry"
  file="$dest/$name.tflite"
  if [[ -f "$file" && "$(sha_of "$file")" == "$sum" ]]; then
    say "$name.tflite present, checksum ok"
  else
    missing+=("$entry")
  fi
done

if ((${#missing[@]} > 0)); then
  work="$(mktemp -d)"
  trap 'rm -rf "$work"' EXIT
  wheel="$work/$wheel_name"
  if [[ -n "${MEDIAPIPE_WHEEL:-}" && -f "$MEDIAPIPE_WHEEL" ]]; then
    say "using wheel $MEDIAPIPE_WHEEL"
    wheel="$MEDIAPIPE_WHEEL"
  else
    say "downloading $wheel_spec (about 36 MB) with pip"
    python3 -m pip download --quiet --no-deps --only-binary=:all: \
      --python-version 3.11 --implementation cp --platform manylinux_2_28_x86_64 \
      -d "$work" "$wheel_spec" >&2
  fi
  for entry in "${missing[@]}"; do
    IFS='|' read -r name path sum <<<"$entry"
    say "extracting $name.tflite"
    python3 - "$wheel" "$path" "$dest/$name.tflite.part" <<'PY'
import sys, zipfile
wheel, member, out = sys.argv[1:]
with zipfile.ZipFile(wheel) as z, open(out, "wb") as f:
    f.write(z.read(member))
PY
    got="$(sha_of "$dest/$name.tflite.part")"
    if [[ "$got" != "$sum" ]]; then
      rm -f "$dest/$name.tflite.part"
      say "checksum mismatch for $name.tflite: expected $sum, got $got"
      exit 1
    fi
    mv "$dest/$name.tflite.part" "$dest/$name.tflite"
    say "$name.tflite ok"
  done
fi
# Task bundles: stored (uncompressed) zips under the member names the
# landmarkers look up. Rebuilt only when missing or older than a member.
bundle() {
  # bundle OUT MEMBER=MODEL...: MEMBER is the name inside the bundle, MODEL a .tflite here.
  local out="$dest/$1" fresh=1 pair
  shift
  for pair in "$@"; do
    [[ -f "$out" && "$out" -nt "$dest/${pair#*=}.tflite" ]] || fresh=0
  done
  if ((fresh)); then
    say "$(basename "$out") present"
    return
  fi
  say "assembling $(basename "$out")"
  python3 - "$out" "$dest" "$@" <<'PY'
import sys, zipfile
out, folder, pairs = sys.argv[1], sys.argv[2], sys.argv[3:]
with zipfile.ZipFile(out + ".part", "w", compression=zipfile.ZIP_STORED) as z:
    for pair in pairs:
        name, model = pair.split("=", 1)
        info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
        info.external_attr = 0o644 << 16
        with open(f"{folder}/{model}.tflite", "rb") as f:
            z.writestr(info, f.read())
PY
  mv "$out.part" "$out"
}
bundle pose_landmarker_full.task pose_detector.tflite=pose_detection pose_landmarks_detector.tflite=pose_landmark_full
bundle hand_landmarker_full.task hand_detector.tflite=palm_detection_full hand_landmarks_detector.tflite=hand_landmark_full
bundle hand_landmarker_lite.task hand_detector.tflite=palm_detection_lite hand_landmarks_detector.tflite=hand_landmark_lite
bundle face_landmarker.task face_detector.tflite=face_detection_short_range face_landmarks_detector.tflite=face_landmark
bundle face_landmarker_refined.task face_detector.tflite=face_detection_short_range \
  face_landmarks_detector.tflite=face_landmark_with_attention
for variant in "" _refined; do
  face_model=face_landmark
  [[ -n "$variant" ]] && face_model=face_landmark_with_attention
  bundle "holistic_landmarker$variant.task" pose_detector.tflite=pose_detection \
    pose_landmarks_detector.tflite=pose_landmark_full face_detector.tflite=face_detection_short_range \
    face_landmarks_detector.tflite=$face_model hand_recrop.tflite=hand_recrop \
    hand_landmarks_detector.tflite=hand_landmark_full
done
say "all models in $dest"
