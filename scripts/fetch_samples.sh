#!/usr/bin/env bash
# Fetches sample photos from the PyPI wheel ultralytics==8.4.190 (its
# assets bus.jpg and zidane.jpg, AGPL-3.0 like the package) into samples/,
# checks each sha256 and is idempotent. The photos are never committed.
#
# Usage: scripts/fetch_samples.sh [DEST_DIR]   (default: samples/ at the repository root)
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
dest="${1:-$root/samples}"
mkdir -p "$dest"
say() { echo "fetch_samples: $*" >&2; }

# name | path inside the wheel | sha256
samples=(
  "bus.jpg|ultralytics/assets/bus.jpg|c02019c4979c191eb739ddd944445ef408dad5679acab6fd520ef9d434bfbc63"
  "zidane.jpg|ultralytics/assets/zidane.jpg|16d73869e3267a7d4ed00de8e860833bd1657c1b252e94c0c348277adc7b6edb"
)

missing=()
for entry in "${samples[@]}"; do
  IFS='|' read -r name _ sum <<<"$entry"
  if [[ -f "$dest/$name" && "$(sha256sum "$dest/$name" | cut -d' ' -f1)" == "$sum" ]]; then
    say "$name present, checksum ok"
  else
    missing+=("$entry")
  fi
done
((${#missing[@]} == 0)) && exit 0

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
say "downloading ultralytics==8.4.190 (about 1.4 MB) with pip"
python3 -m pip download --quiet --no-deps ultralytics==8.4.190 -d "$work" >&2
for entry in "${missing[@]}"; do
  IFS='|' read -r name path sum <<<"$entry"
  python3 -c 'import sys, zipfile, glob
z = zipfile.ZipFile(glob.glob(sys.argv[1] + "/*.whl")[0])
open(sys.argv[3], "wb").write(z.read(sys.argv[2]))' "$work" "$path" "$dest/$name.part"
  got="$(sha256sum "$dest/$name.part" | cut -d' ' -f1)"
  if [[ "$got" != "$sum" ]]; then
    rm -f "$dest/$name.part"
    say "checksum mismatch for $name: expected $sum, got $got"
    exit 1
  fi
  mv "$dest/$name.part" "$dest/$name"
  say "$name ok"
done
