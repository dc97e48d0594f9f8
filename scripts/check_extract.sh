#!/usr/bin/env bash
# Checks `landmarker extract` as a dataset user runs it, on a manifest of short clips encoded
# from the sample clip's frames, a folder of frames and one corrupt file:
#   - every good entry gets one whole <name>.ndjson (header + one line per frame), the
#     corrupt one a <name>.error.json, no temporary file remains, and the exit status is 1;
#   - the bytes are identical for 1 shard and 3 shards run in reverse order, and for 1 and 2
#     threads; a manifest with CRLF line ends and a byte-order mark gives the same frames;
#   - a rerun skips the finished entries and redoes one whose output was removed, removing the
#     temporary files of a dead run on this host and leaving another host's alone;
#   - SIGTERM mid-entry: exit status 143, no temporary file left; --out naming a file: status 64;
#   - a folder, a non-UTF-8 file, an oversized file or a missing file as the manifest, and
#     --shard -1/2: a usage message, exit status 64, no output folder; options out of range: the
#     same;
#   - without libcrypto (hidden in a private mount namespace, as root): a message naming it,
#     exit status 1, no output folder;
#   - a video cut short: its <name>.error.json and no output; with --allow-short its output,
#     whose header records the shortfall;
#   - a folder of frames with a subfolder: the frames `pose FOLDER` reads; a name too long for
#     the file system: a hashed output name, the full name in the header;
#   - `extract holistic`: the same bytes for 1 and 2 shards, 1 and 2 threads, and a redone entry.
# Usage: scripts/check_extract.sh LANDMARKER_BINARY   (needs ffmpeg and scripts/fetch_samples.sh)
set -euo pipefail
if (($# != 1)); then echo "usage: scripts/check_extract.sh LANDMARKER_BINARY" >&2; exit 2; fi
bin="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cd "$work"
failures=0
fail() { echo "check_extract: FAIL: $*" >&2; failures=$((failures + 1)); }

mkdir videos
frames="$root/samples/bus_tilt/frame_%04d.png"
ffmpeg -nostdin -v error -framerate 25 -i "$frames" -frames:v 12 -c:v libx264 -pix_fmt yuv420p videos/first.mp4
ffmpeg -nostdin -v error -framerate 25 -start_number 10 -i "$frames" -frames:v 12 -c:v ffv1 videos/second.mkv
ffmpeg -nostdin -v error -framerate 30 -start_number 20 -i "$frames" -frames:v 10 -c:v libvpx-vp9 videos/third.webm
mkdir videos/folder
cp "$root"/samples/bus_tilt/frame_000[0-7].png videos/folder/
head -c 4000 videos/first.mp4 > videos/corrupt.mp4
printf '# four videos and a corrupt file\nvideos/first.mp4\nvideos/second.mkv\n\nvideos/corrupt.mp4\nvideos/third.webm\nvideos/folder\n' > manifest.txt
good=(first second third folder)

status=0
"$bin" extract pose --manifest manifest.txt --out one --threads 1 2> one.log || status=$?
cat one.log
((status == 1)) || fail "a run with a corrupt entry exited with $status, expected 1"
for name in "${good[@]}"; do
  [[ -f "one/$name.ndjson" ]] || { fail "no one/$name.ndjson"; continue; }
  python3 - "one/$name.ndjson" <<'PY' || fail "one/$name.ndjson is not a header and one line per frame"
import json, sys
lines = [json.loads(line) for line in open(sys.argv[1])]
header, frames = lines[0], lines[1:]
ok = header["format"] == "landmarker-extract/1" and header["frames"] == len(frames) > 0 \
    and len(header["input"]["sha256"]) == 64 and all("landmarks" in f for f in frames)
sys.exit(0 if ok else 1)
PY
done
[[ -f one/corrupt.error.json ]] || fail "no one/corrupt.error.json"
[[ -z "$(find one -name '.*')" ]] || fail "temporary files remain: $(find one -name '.*')"
tail -n 1 one.log | grep -q "4 done, 0 skipped, 1 failed" || fail "the summary is not '4 done, 0 skipped, 1 failed'"

for shard in 2 1 0; do
  "$bin" extract pose --manifest manifest.txt --out three --shard "$shard/3" --threads 2 --quiet 2>> three.log || true
done
for name in "${good[@]}"; do
  cmp -s "one/$name.ndjson" "three/$name.ndjson" || fail "$name.ndjson differs between 1 shard (1 thread) and 3 shards (2 threads)"
done
[[ -f three/corrupt.error.json ]] || fail "no three/corrupt.error.json"

# The same entries as a Windows editor saves them (a byte-order mark, CRLF line ends): the same
# frames as from the LF manifest.
printf '\xef\xbb\xbf# saved on Windows\r\nvideos/first.mp4\r\n\r\nvideos/folder\r\n' > crlf.txt
status=0
"$bin" extract pose --manifest crlf.txt --out crlf --threads 2 --quiet 2> crlf.log || status=$?
((status == 0)) || fail "a CRLF manifest with a byte-order mark: exit $status: $(cat crlf.log)"
for name in first folder; do
  cmp -s <(tail -n +2 "one/$name.ndjson") <(tail -n +2 "crlf/$name.ndjson") 2> /dev/null \
    || fail "$name.ndjson from the CRLF manifest differs from the LF one's"
done

rm one/second.ndjson
# Temporary files of a stopped run: one of a dead process on this host (removed by the rerun),
# one of another host sharing the folder (left alone: its process id means nothing here).
true & dead=$!; wait "$dead"
touch "one/.second.frames.partial.$(hostname).$dead" one/.second.frames.partial.elsewhere.example.1
"$bin" extract pose --manifest manifest.txt --out one --threads 2 2> rerun.log || true
[[ ! -e "one/.second.frames.partial.$(hostname).$dead" ]] || fail "the dead run's temporary file was not removed"
[[ -e one/.second.frames.partial.elsewhere.example.1 ]] || fail "another host's temporary file was removed"
rm -f one/.second.frames.partial.elsewhere.example.1
tail -n 1 rerun.log | grep -q "1 done, 3 skipped, 1 failed" || fail "the rerun's summary is not '1 done, 3 skipped, 1 failed': $(tail -n 1 rerun.log)"
cmp -s one/second.ndjson three/second.ndjson || fail "the redone second.ndjson differs"

# Interrupted mid-entry (a longer clip, the sample frames looped): SIGTERM exits with 143 and one
# line, leaving no temporary file and no output for the entry; an --out that is a file is a usage
# error (exit status 64).
ffmpeg -nostdin -v error -stream_loop 9 -framerate 25 -i "$frames" -c:v libx264 -pix_fmt yuv420p videos/long.mp4
printf 'videos/long.mp4\n' > long.txt
"$bin" extract pose --manifest long.txt --out stopped --quiet 2> stopped.log &
pid=$!
for _ in $(seq 600); do
  compgen -G "stopped/.long.frames.partial.*.$pid" > /dev/null && break
  sleep 0.1
done
sleep 1
kill -TERM "$pid"
status=0
wait "$pid" || status=$?
((status == 143)) && [[ -z "$(ls -A stopped)" ]] && grep -q "interrupted by SIGTERM" stopped.log \
  || fail "SIGTERM during extract: status $status, left '$(ls -A stopped)', $(cat stopped.log)"
status=0
"$bin" extract pose --manifest long.txt --out long.txt 2> refused.log || status=$?
((status == 64)) && grep -q "the folder long.txt cannot be created: long.txt is a file" refused.log \
  || fail "--out naming a file: exit $status, $(cat refused.log)"

# Manifests the run refuses before any work, each a usage error (exit status 64) with its
# message: a folder, a file that is not UTF-8, one over the 64 MiB limit (a sparse file, read up
# to the limit) and a missing one.
mkdir not_a_manifest
printf 'videos/first.mp4\n\xff\xfe\n' > latin1.txt
truncate -s 65M huge.txt
for bad in "not_a_manifest:the manifest is a folder, not a text file" "latin1.txt:the manifest is not UTF-8 text" \
            "huge.txt:the manifest is more than 67108864 bytes" \
            "missing.txt:the manifest missing.txt: cannot be read: No such file or directory"; do
  status=0
  "$bin" extract pose --manifest "${bad%%:*}" --out refused 2> refused.log || status=$?
  ((status == 64)) && grep -q "${bad#*:}" refused.log && grep -q "^Usage: landmarker extract pose" refused.log \
    || fail "manifest ${bad%%:*}: exit $status, expected 64 and '${bad#*:}': $(cat refused.log)"
done
[[ ! -e refused ]] || fail "a refused manifest created the output folder"

# Options the landmarker would refuse are a usage error (exit status 64) before any entry is read.
for bad in "--num-poses 0:--num-poses must be in 1...64" "--min-detection-confidence 1.5:--min-detection-confidence must be in" \
            "--threads 0:--threads must be in 1...256" "--num-poses -1:--num-poses must be in 1...64" \
            "--shard -1/2:the shard I must be in 0...1 (0-based, below N = 2), got -1"; do
  status=0
  # shellcheck disable=SC2086  # the option and its value are two words
  "$bin" extract pose --manifest manifest.txt --out refused ${bad%%:*} 2> refused.log || status=$?
  ((status == 64)) && grep -q -- "${bad#*:}" refused.log \
    || fail "extract pose ${bad%%:*}: exit $status, expected 64 and '${bad#*:}': $(cat refused.log)"
done
[[ ! -e refused ]] || fail "refused options created the output folder"

# Without libcrypto (an empty file bound over it in a private mount namespace: needs root), the
# run stops before any entry with a message naming the library, exit status 1, no output folder.
crypto="$(readlink -f "$(ldconfig -p | awk '/libcrypto\.so\.3 .*x86-64/ { print $NF; exit }')")"
status=0
unshare --mount bash -c 'mount --bind /dev/null "$1" && exec "$2" extract pose --manifest manifest.txt --out nocrypto' \
  _ "$crypto" "$bin" 2> nocrypto.log || status=$?
((status == 1)) && grep -q "libcrypto.so.3 (OpenSSL's libcrypto, Debian's libssl3) is needed to hash files and could not be loaded" nocrypto.log \
  || fail "without libcrypto: exit $status, expected 1 and a message naming the library: $(cat nocrypto.log)"
[[ ! -e nocrypto ]] || fail "a run without libcrypto created the output folder"

# A video cut short (ffmpeg's test pattern, 90 frames, the index at the front, cut in half)
# fails its entry; --allow-short makes it done, the shortfall in its header.
ffmpeg -nostdin -v error -f lavfi -i testsrc=size=128x96:rate=25:duration=3.6 -c:v libx264 -pix_fmt yuv420p \
  -movflags +faststart whole90.mp4
head -c "$(($(stat -c %s whole90.mp4) / 2))" whole90.mp4 > cut.mp4
echo cut.mp4 > short.txt
status=0
"$bin" extract pose --manifest short.txt --out short 2> short.log || status=$?
((status == 1)) && [[ "$(ls -A short)" == cut.error.json ]] && grep -q "of 90: cut short or corrupt" short/cut.error.json \
  || fail "a video cut short: exit $status, wrote $(ls -A short | tr '\n' ' '), $(cat short.log)"
status=0
"$bin" extract pose --manifest short.txt --out short --allow-short 2> short.log || status=$?
((status == 0)) && [[ "$(ls -A short)" == cut.ndjson ]] \
  && head -n 1 short/cut.ndjson | grep -q '"shortfall":{"framesDecoded":[0-9]*,"framesPromised":90}' \
  || fail "a video cut short with --allow-short: exit $status, wrote $(ls -A short | tr '\n' ' '), $(cat short.log)"

# A folder of frames with a subfolder (named like a frame) and a hidden frame: the entry reads the
# frames `pose FOLDER` reads; an entry named with 250 bytes, too long for <name>.ndjson: a prefix
# and a hash for its output's name, and the full name in its header.
long="$(printf 'f%.0s' $(seq 250))"
mkdir -p "videos/$long" videos/mixed/sub.png
cp "$root"/samples/bus_tilt/frame_000[0-2].png "videos/$long/"
cp "$root"/samples/bus_tilt/frame_000[0-2].png videos/mixed/
cp "$root"/samples/bus_tilt/frame_0003.png videos/mixed/sub.png/x.png
cp "$root"/samples/bus_tilt/frame_0003.png videos/mixed/.hidden.png
printf 'videos/mixed\nvideos/%s\n' "$long" > mixed.txt
status=0
"$bin" extract pose --manifest mixed.txt --out mixed --quiet 2> mixed.log || status=$?
((status == 0)) || fail "a folder with a subfolder and a long name: exit $status, $(cat mixed.log)"
"$bin" pose videos/mixed --json --quiet > mixed_pose.ndjson 2> /dev/null || fail "pose on a folder with a subfolder failed"
[[ "$(wc -l < mixed_pose.ndjson)" == 3 && "$(tail -n +2 mixed/mixed.ndjson | wc -l)" == 3 ]] \
  || fail "pose and extract read other frames of a folder with a subfolder: $(wc -l < mixed_pose.ndjson) and $(tail -n +2 mixed/mixed.ndjson | wc -l)"
hashed="$(ls mixed | grep -E "^f{149}-[0-9a-f]{16}\.ndjson$" || true)"
[[ -n "$hashed" ]] && head -n 1 "mixed/$hashed" | grep -q "\"shortenedName\":{\"name\":\"$long\"" \
  || fail "no hashed output for the long name: $(ls mixed)"

# `extract holistic`, the same guarantees: one shard on one thread against two shards in reverse
# order on two threads, and an output removed and redone, byte for byte; every frame a person
# record with 33 pose landmarks and a face of 468.
printf 'videos/first.mp4\nvideos/folder\n' > holistic.txt
"$bin" extract holistic --manifest holistic.txt --out holistic1 --threads 1 --quiet 2> holistic.log \
  || fail "extract holistic: $(cat holistic.log)"
for shard in 1 0; do
  "$bin" extract holistic --manifest holistic.txt --out holistic2 --shard "$shard/2" --threads 2 --quiet 2>> holistic.log \
    || fail "extract holistic, shard $shard/2: $(cat holistic.log)"
done
for name in first folder; do
  cmp -s "holistic1/$name.ndjson" "holistic2/$name.ndjson" \
    || fail "holistic $name.ndjson differs between 1 shard (1 thread) and 2 shards (2 threads)"
done
python3 - holistic1/first.ndjson <<'PY' || fail "holistic1/first.ndjson is not a header and a person with a pose and a face per frame"
import json, sys
lines = [json.loads(line) for line in open(sys.argv[1])]
header, frames = lines[0], lines[1:]
ok = header["frames"] == len(frames) > 0 and all(
    len(f["people"]) == 1 and len(f["people"][0]["poseLandmarks"]) == 33
    and len(f["people"][0]["faceLandmarks"] or []) == 468 for f in frames)
sys.exit(0 if ok else 1)
PY
rm holistic2/folder.ndjson
"$bin" extract holistic --manifest holistic.txt --out holistic2 --threads 2 --quiet 2>> holistic.log \
  || fail "extract holistic, rerun: $(cat holistic.log)"
cmp -s holistic1/folder.ndjson holistic2/folder.ndjson || fail "the redone holistic folder.ndjson differs"

((failures == 0)) || { echo "check_extract: $failures failure(s)" >&2; exit 1; }
echo "check_extract: whole files, failures isolated, resume, identical bytes for 1 and 3 shards and 1 and 2 threads, a clear stop without libcrypto, videos cut short, folders with subfolders, long names, holistic split and resumed byte for byte"
