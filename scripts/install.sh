#!/usr/bin/env bash
# Installs the landmarker CLI under a prefix:
#   PREFIX/bin/landmarker                       the release binary, Swift runtime linked statically
#   PREFIX/share/landmarker/models/             the ten .tflite models of the pose, hand, face and
#                                               holistic landmarkers and their seven .task bundles
#   PREFIX/share/landmarker/models/fetch_models.sh   fetches the models again (into its folder, or DEST)
# Installs the system packages the build needs first (as root; without root it
# names them and stops) and fetches the models when they are missing. The
# installed binary finds its models in PREFIX/share/landmarker/models from any
# folder, and needs only the system's C libraries (libc, libm, libstdc++, libpng,
# libturbojpeg, zlib). Each file is copied to a temporary name and renamed, so an
# interrupted install leaves no half-written file.
#
# Usage: scripts/install.sh PREFIX
set -euo pipefail
say() { echo "install: $*" >&2; }
if (($# != 1)) || [[ -z "$1" ]]; then
  echo "usage: scripts/install.sh PREFIX   (e.g. /usr/local, or \$HOME/.local)" >&2
  exit 2
fi
mkdir -p "$1"
prefix="$(cd "$1" && pwd)"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

scripts/system_packages.sh
models/fetch_models.sh
say "building the release binary (Swift runtime linked statically)"
bin="$(scripts/build_release.sh)"

# ldd must list no Swift runtime library: the binary has to run without the toolchain.
if swift_libraries="$(ldd "$bin" | grep -E 'libswift|libFoundation|libdispatch|libBlocksRuntime|_FoundationICU')"; then
  say "the binary still links Swift runtime libraries dynamically:"
  echo "$swift_libraries" >&2
  exit 1
fi

# Temporary names end in .part.<pid>; whatever stops the script removes them.
trap 'rm -f "$prefix"/bin/*.part.$$ "$prefix"/share/landmarker/models/*.part.$$' EXIT
# put SOURCE DEST MODE: copies SOURCE to DEST through a temporary name in DEST's folder.
put() {
  mkdir -p "$(dirname "$2")"
  cp "$1" "$2.part.$$"
  chmod "$3" "$2.part.$$"
  mv -f "$2.part.$$" "$2"
}
models=(pose_detection pose_landmark_full palm_detection_full palm_detection_lite hand_landmark_full hand_landmark_lite
        face_detection_short_range face_landmark face_landmark_with_attention hand_recrop)
for model in "${models[@]}"; do
  put "models/$model.tflite" "$prefix/share/landmarker/models/$model.tflite" 644
done
for bundle in pose_landmarker_full hand_landmarker_full hand_landmarker_lite face_landmarker face_landmarker_refined holistic_landmarker \
  holistic_landmarker_refined; do
  put "models/$bundle.task" "$prefix/share/landmarker/models/$bundle.task" 644
done
put models/fetch_models.sh "$prefix/share/landmarker/models/fetch_models.sh" 755
# The release build carries DWARF debug information; the installed copy keeps the symbol table
# (function names in crash backtraces) and drops the rest.
mkdir -p "$prefix/bin"
strip --strip-debug -o "$prefix/bin/landmarker.part.$$" "$bin"
chmod 755 "$prefix/bin/landmarker.part.$$"
mv -f "$prefix/bin/landmarker.part.$$" "$prefix/bin/landmarker"

say "installed $prefix/bin/landmarker ($(du -k "$prefix/bin/landmarker" | cut -f1) KiB) and the models in $prefix/share/landmarker/models"
"$prefix/bin/landmarker" --version
