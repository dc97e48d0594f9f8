#!/usr/bin/env bash
# Measures how far our YUV → RGB conversion (libyuv, YUVConversion and Y4MReader) is from
# ffmpeg's on the same frames. ffmpeg is needed only here, never by the test suite.
#
# For each fixture photo (and an odd-sized crop of one), ffmpeg writes YUV frames:
#   - a yuv420p Y4M stream (what `ffmpeg -f yuv4mpegpipe` pipes to the CLI), BT.601 limited range;
#   - raw yuv420p (I420), nv12 and yuyv422 (YUYV) frames in BT.601 and BT.709, limited and full range;
# then converts each back to RGB with `-pix_fmt rgb24` (ffmpeg's default scaler: BT.601 unless
# told otherwise, chroma replicated), and once more with `-sws_flags
# bicubic+accurate_rnd+full_chroma_int` (exact rounding, chroma interpolated). The frames go to
# a temporary folder that `FFmpegComparisonTests` reads (LANDMARKER_FFMPEG_REFERENCE); the test
# converts every frame both ways (linear and nearest chroma) and prints the largest and mean
# difference per case, and the share of values more than 1 grey level apart.
#
# Usage: scripts/compare_yuv_ffmpeg.sh [image.png ...]   (default: four golden-test images, made
#   from the sample photos by scripts/fetch_samples.sh)
#   KEEP_WORK=1 keeps the frames folder (its path is printed) instead of deleting it.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
say() { echo "compare_yuv_ffmpeg: $*" >&2; }
command -v ffmpeg >/dev/null || { say "needs ffmpeg on the PATH (the Debian package ffmpeg; the test suite never needs it)"; exit 1; }

if (($# > 0)); then
  images=("$@")
else
  scripts/fetch_samples.sh
  images=(samples/fixtures/images/{bus_man,bus,astronaut,t1_cards_left}.png)
fi
work="$(mktemp -d)"
trap '[[ -n "${KEEP_WORK:-}" ]] || rm -rf "$work"' EXIT
manifest="$work/manifest.tsv"
: > "$manifest"
ff() { ffmpeg -hide_banner -loglevel error -nostdin -y "$@"; }
size_of() { ffprobe -v error -select_streams v:0 -show_entries stream=width,height -of csv=p=0:s=x "$1"; }

# One source per photo, plus an odd-sized crop of the first (4:2:0 with odd width and height).
sources=()
for image in "${images[@]}"; do
  [[ -f "$image" ]] || { say "missing $image"; exit 1; }
  sources+=("$image")
done
ff -i "${images[0]}" -vf "crop=333:251:17:9" "$work/odd_crop.png"
sources+=("$work/odd_crop.png")

# convert_back NAME FORMAT PIXFMT SIZE MATRIX RANGE YUVFILE: ffmpeg's rgb24 of a raw frame,
# default flags and accurate flags; one manifest line per flavour.
convert_back() {
  local name="$1" format="$2" pixfmt="$3" size="$4" matrix="$5" range="$6" yuv="$7"
  local scale="scale=in_color_matrix=$matrix:in_range=$range"
  ff -f rawvideo -pix_fmt "$pixfmt" -s "$size" -i "$yuv" -vf "$scale,format=rgb24" -f rawvideo "$work/$name.default.rgb"
  ff -f rawvideo -pix_fmt "$pixfmt" -s "$size" -i "$yuv" \
    -vf "$scale:flags=bicubic+accurate_rnd+full_chroma_int,format=rgb24" -f rawvideo "$work/$name.accurate.rgb"
  local width="${size%x*}" height="${size#*x}"
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$name" "$format" "$width" "$height" "$matrix" "$range" "$yuv" \
    "$work/$name.default.rgb" >> "$manifest"
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$name+accurate" "$format" "$width" "$height" "$matrix" "$range" "$yuv" \
    "$work/$name.accurate.rgb" >> "$manifest"
}

for source in "${sources[@]}"; do
  stem="$(basename "${source%.*}")"
  size="$(size_of "$source")"
  # The Y4M stream the CLI reads, and ffmpeg's own RGB of it.
  ff -i "$source" -pix_fmt yuv420p -f yuv4mpegpipe "$work/$stem.y4m"
  ff -i "$work/$stem.y4m" -pix_fmt rgb24 -f rawvideo "$work/$stem.y4m.default.rgb"
  ff -i "$work/$stem.y4m" -vf "scale=flags=bicubic+accurate_rnd+full_chroma_int,format=rgb24" -f rawvideo \
    "$work/$stem.y4m.accurate.rgb"
  printf '%s\ty4m\t%s\t%s\tbt601\ttv\t%s\t%s\n' "$stem.y4m" "${size%x*}" "${size#*x}" "$work/$stem.y4m" \
    "$work/$stem.y4m.default.rgb" >> "$manifest"
  printf '%s\ty4m\t%s\t%s\tbt601\ttv\t%s\t%s\n' "$stem.y4m+accurate" "${size%x*}" "${size#*x}" "$work/$stem.y4m" \
    "$work/$stem.y4m.accurate.rgb" >> "$manifest"
  for matrix in bt601 bt709; do
    for range in tv pc; do
      for pixfmt in yuv420p nv12 yuyv422; do
        [[ "$pixfmt" == yuyv422 && "$stem" == odd_crop ]] && continue  # YUYV needs an even width
        format="$pixfmt"
        [[ "$pixfmt" == yuv420p ]] && format=i420
        [[ "$pixfmt" == yuyv422 ]] && format=yuyv
        name="$stem.$format.$matrix.$range"
        ff -i "$source" -vf "scale=out_color_matrix=$matrix:out_range=$range,format=$pixfmt" -f rawvideo \
          "$work/$name.yuv"
        convert_back "$name" "$format" "$pixfmt" "$size" "$matrix" "$range" "$work/$name.yuv"
      done
    done
  done
done
say "$(wc -l < "$manifest") cases from ${#sources[@]} images ($(ffmpeg -version | head -1))"
[[ -z "${KEEP_WORK:-}" ]] || say "frames kept in $work"
swift build --build-tests >&2
status=0
LANDMARKER_FFMPEG_REFERENCE="$work" swift test --skip-build --filter FFmpegComparisonTests > "$work/test.log" 2>&1 \
  || status=$?
grep -E '^(case|summary)' "$work/test.log" || true
((status == 0)) || { cat "$work/test.log" >&2; say "FFmpegComparisonTests failed"; }
exit "$status"
