#!/usr/bin/env bash
# Checks the landmarker CLI on real video files, as a user runs it:
#   - `pose CLIP.mp4 --json --annotate OUT.mp4 --mask MASK.mp4` on a clip encoded from the
#     sample clip's frames: one JSON line per frame with the presentation times, landmarks equal
#     to the run on the same video's frames exported as PNG, and videos out with the input's
#     frame count, rate and size; the same for `hand`, `face` and `holistic` (with its --mask) on the hand clip; every frame's line holds
#     one track id per pose, hand or face (`trackIds`), or per person (`trackId`);
#   - a batch of images with an unreadable one: one line each, an error line, exit status 1, and
#     no track ids; a single unreadable image with --json: its error object, exit status 1;
#   - usage errors, exit status 64 and nothing written: options that do not apply to the input
#     (`--smooth-each-track`, `--fps`, `--quiet`), no input, an image mixed with a video, a
#     negative number refused by the option's range, an option of another subcommand (named as
#     that subcommand's), and every output that would collide or clobber (two images of one
#     name into one folder without --keep-paths, an output that is the input, --annotate and
#     --mask naming one file, a name of another format, a folder under a file);
#   - SIGINT / SIGTERM during an annotated video run: exit status 130 / 143, one line, no
#     partial file left; a dead run's partial file removed by the next run writing that output;
#   - without ffmpeg on PATH: a video file gives an error naming the package, a Y4M stream
#     still runs;
#   - whole videos only: a half-downloaded MP4 (its index at the front names 90 frames, its
#     data holds fewer) exits with 1 naming the frame it ends at, and writes no video; with
#     --allow-short it runs with a warning and writes its video; a Y4M stream without frames
#     exits with 1.
# Usage: scripts/check_video_cli.sh LANDMARKER_BINARY   (samples from scripts/fetch_samples.sh)
set -euo pipefail
if (($# != 1)); then echo "usage: scripts/check_video_cli.sh LANDMARKER_BINARY" >&2; exit 2; fi
bin="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
samples="$root/samples"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cd "$work"
failures=0
fail() { echo "check_video_cli: FAIL: $*" >&2; failures=$((failures + 1)); }

# compare A B: the two NDJSON runs have the same frames, timestamps and landmarks.
compare() {
  python3 - "$1" "$2" <<'PY'
import json, sys
a, b = ([json.loads(line) for line in open(path)] for path in sys.argv[1:])
keys = ("timestampMs", "landmarks", "worldLandmarks", "handedness", "trackIds", "people")
same = len(a) == len(b) and all(x.get(k) == y.get(k) for x, y in zip(a, b) for k in keys)
found = sum(1 for x in a if x.get("landmarks") or x.get("people"))
# Pose, hand and face lines carry trackIds beside their landmarks; holistic people a trackId each.
tracked = all(len(x.get("trackIds", [None])) == len(x["landmarks"]) if "landmarks" in x
              else all("trackId" in person for person in x["people"]) for x in a)
print(f"check_video_cli: {sys.argv[1]}: {len(a)} frames, {found} with a result, "
      f"track ids {sorted({i for x in a for i in x.get('trackIds', [p['trackId'] for p in x.get('people', [])])})}; "
      f"{'equal to' if same else 'DIFFERENT from'} {sys.argv[2]}")
sys.exit(0 if same and found > 0 and tracked else 1)
PY
}

# probe FILE: "width,height,rate,frames" of its video stream (frames counted by decoding).
probe() { ffprobe -v error -count_frames -select_streams v:0 -show_entries stream=width,height,avg_frame_rate,nb_read_frames -of csv=p=0 "$1"; }

# check_task TASK CLIP_FOLDER OUTPUT_OPTIONS...: the video run against the frame-folder run.
check_task() {
  local task="$1" frames="$samples/$2"; shift 2
  ffmpeg -nostdin -v error -framerate 25 -i "$frames/frame_%04d.png" -c:v libx264 -pix_fmt yuv420p "$task.mp4"
  "$bin" "$task" "$task.mp4" --json --quiet "$@" > "$task.video.ndjson" || fail "$task $task.mp4 exited with $?"
  mkdir "$task.frames"
  ffmpeg -nostdin -v error -i "$task.mp4" "$task.frames/%04d.png"
  "$bin" "$task" "$task.frames" --fps 25 --json --quiet > "$task.folder.ndjson"
  compare "$task.video.ndjson" "$task.folder.ndjson" || fail "$task: the video's results differ from its frames'"
  local expected
  expected="$(probe "$task.mp4")"
  while [[ "$#" -gt 0 ]]; do
    [[ "$1" == --annotate || "$1" == --mask ]] && {
      local written
      written="$(probe "$2")"
      [[ "$written" == "$expected" ]] || fail "$task $1 $2: $written, expected $expected (width,height,rate,frames)"
      echo "check_video_cli: $task $1 $2: $written"
    }
    shift 2
  done
}
check_task pose bus_tilt --annotate pose_annotated.mp4 --mask pose_mask.mkv
check_task hand t1_pan --annotate hand_annotated.webm
check_task face t1_pan --annotate face_annotated.mp4
check_task holistic t1_pan --annotate holistic_annotated.mp4 --mask holistic_mask.mkv

# A batch with an unreadable image: a line per image, an error line, status 1.
head -c 5000 "$samples/bus.jpg" > broken.jpg
status=0
"$bin" pose "$samples/bus.jpg" broken.jpg "$samples/zidane.jpg" --json > batch.ndjson 2> batch.err || status=$?
python3 - batch.ndjson <<'PY' || fail "the batch's lines are not one result, one error, one result"
import json, sys
lines = [json.loads(line) for line in open(sys.argv[1])]
ok = (len(lines) == 3 and "landmarks" in lines[0] and "error" in lines[1] and "landmarks" in lines[2]
      and not any("trackIds" in line for line in lines))
print(f"check_video_cli: batch of 3 with an unreadable image: {len(lines)} lines, error line: {lines[1].get('error') if len(lines) > 1 else None}")
sys.exit(0 if ok else 1)
PY
((status == 1)) || fail "the batch with an unreadable image exited with $status, expected 1"
# A single image that fails gives its error object with --json too.
status=0
"$bin" pose broken.jpg --json > single.json 2> single.err || status=$?
((status == 1)) && python3 -c 'import json, sys; sys.exit("error" not in json.load(open(sys.argv[1])))' single.json \
  || fail "a single unreadable image with --json: status $status, $(cat single.json single.err)"

# Usage errors: exit status 64 with the message, before any work, nothing written. Each case is
# "ARGUMENTS|MESSAGE" (the arguments split on spaces; @ stands for the samples folder).
mkdir -p a b refused
cp "$samples/bus.jpg" a/x.jpg
cp "$samples/zidane.jpg" b/x.jpg
cp "$samples/zidane.jpg" input.png
touch afile
while IFS='|' read -r arguments message; do
  [[ -n "$arguments" ]] || continue
  status=0
  # shellcheck disable=SC2086  # the arguments are words
  "$bin" ${arguments//@/$samples} > usage.out 2> usage.err || status=$?
  ((status == 64)) && grep -qF -- "$message" usage.err || fail "$arguments: status $status, $(cat usage.err)"
done <<'CASES'
pose @/bus.jpg --smooth-each-track|--smooth-each-track applies to video input
pose|give image files, a video file or a folder of frames
pose @/bus.jpg --fps 25|--fps applies to a folder of frames
pose pose.mp4 --fps 25|--fps applies to a folder of frames: pose.mp4 carries its own timing
pose @/bus.jpg --quiet|--quiet applies to video input
pose @/bus.jpg pose.mp4|pose.mp4 is a video
hand --smooth-each-track @/bus.jpg|Unknown option '--smooth-each-track' for 'landmarker hand': an option of 'landmarker pose'
pose --lite @/bus.jpg|Unknown option '--lite' for 'landmarker pose': an option of 'landmarker hand'
face --refine --model face_landmarker.task @/bus.jpg|give --refine or --model, not both
holistic @/bus.jpg --frame-step-us 33333|--frame-step-us applies to a folder of frames, not to images
holistic pose.mp4 --frame-step-us 33333|--frame-step-us applies to a folder of frames: pose.mp4 carries its own timing
holistic @/bus.jpg --num-poses 65|--num-poses must be in 1...64
holistic @/bus.jpg --frame-step-us 0|--frame-step-us must be in 1...10000000
holistic @/bus.jpg --fps 25 --frame-step-us 33333|give --fps or --frame-step-us, not both
pose a/x.jpg b/x.jpg --annotate refused/out|a/x.jpg and b/x.jpg would both be written to refused/out/x.png
pose a/x.jpg b/x.jpg --mask refused/out|give --keep-paths
pose input.png --annotate ./input.png|--annotate ./input.png would overwrite the input input.png
pose a/x.jpg --annotate refused/X.png --mask refused/X.png|--annotate refused/X.png and --mask refused/X.png would both write refused/X.png
pose a/x.jpg --annotate refused/out.jpg|--annotate refused/out.jpg: the name says another format
hand pose.mp4 --annotate refused/out.png|--annotate refused/out.png: the name says another format
pose a/x.jpg --annotate afile/sub/out.png|the folder afile/sub cannot be created: afile is a file
pose a/x.jpg b/x.jpg --annotate afile|names a folder
run pose_detector --input afile --output-dir afile/sub|the folder afile/sub cannot be created: afile is a file
CASES
[[ -z "$(ls -A refused)" ]] || fail "a refused run wrote $(ls -A refused)"
cmp -s input.png "$samples/zidane.jpg" || fail "a refused run changed its input"
# With --keep-paths, images of one name in two folders are written side by side.
"$bin" pose a/x.jpg b/x.jpg --annotate kept --mask kept_masks --keep-paths > /dev/null || fail "--keep-paths exited with $?"
[[ -f kept/a/x.png && -f kept/b/x.png && -f kept_masks/a/x.png && -f kept_masks/b/x.png ]] \
  || fail "--keep-paths wrote $(find kept kept_masks -type f | sort | tr '\n' ' ')"
# A negative number after an option that takes a number is its value, refused by the option's
# range (a usage error, exit status 64), not read as an option of its own ("Missing value").
for bad in "pose --num-poses -1:--num-poses must be in 1...64" "hand --num-hands -2:--num-hands must be in 1..." \
           "face --num-faces 0:--num-faces must be in 1...64" \
           "pose --threads -1:--threads must be in 1...256" \
           "hand --min-detection-confidence -0.5:--min-detection-confidence must be in" \
           "pose --fps -30:--fps must be in (0, 10000]"; do
  status=0
  # shellcheck disable=SC2086  # the subcommand, the option and its value are three words
  "$bin" ${bad%%:*} "$samples/bus.jpg" > /dev/null 2> negative.err || status=$?
  ((status == 64)) && grep -qF -- "${bad#*:}" negative.err || fail "${bad%%:*}: status $status, $(cat negative.err)"
done

# Without ffmpeg: a clear error for a video file; a Y4M stream needs none.
ffmpeg -nostdin -v error -i pose.mp4 -f yuv4mpegpipe -pix_fmt yuv420p clip.y4m
status=0
PATH=/nonexistent "$bin" pose pose.mp4 > /dev/null 2> noffmpeg.err || status=$?
((status != 0)) && grep -q "Debian's ffmpeg package" noffmpeg.err || fail "without ffmpeg: status $status, $(cat noffmpeg.err)"
PATH=/nonexistent "$bin" pose clip.y4m --json --quiet > y4m.ndjson || fail "a Y4M stream without ffmpeg exited with $?"
[[ "$(wc -l < y4m.ndjson)" -eq 30 ]] || fail "the Y4M run gave $(wc -l < y4m.ndjson) lines, expected 30"

# Whole videos only: ffmpeg's test pattern, 90 frames, the index at the front, cut in half.
ffmpeg -nostdin -v error -f lavfi -i testsrc=size=128x96:rate=25:duration=3.6 -c:v libx264 -pix_fmt yuv420p \
  -movflags +faststart whole90.mp4
head -c "$(($(stat -c %s whole90.mp4) / 2))" whole90.mp4 > cut.mp4
status=0
"$bin" pose cut.mp4 --json --quiet --annotate short/out.mp4 > cut.ndjson 2> cut.err || status=$?
((status == 1)) && grep -q "^landmarker: cut.mp4: video ends at frame [0-9]* of 90: cut short or corrupt" cut.err \
  && [[ -z "$(ls -A short 2> /dev/null)" ]] || fail "a video cut short: status $status, wrote '$(ls -A short 2> /dev/null)', $(cat cut.err)"
status=0
"$bin" pose cut.mp4 --json --quiet --allow-short --annotate short/out.mp4 > allowed.ndjson 2> allowed.err || status=$?
((status == 0)) && grep -q "^landmarker: warning: cut.mp4: video ends at frame [0-9]* of 90" allowed.err && [[ -f short/out.mp4 ]] \
  && [[ "$(wc -l < allowed.ndjson)" -eq "$(wc -l < cut.ndjson)" ]] \
  || fail "a video cut short with --allow-short: status $status, $(wc -l < allowed.ndjson) lines, $(cat allowed.err)"
echo "check_video_cli: a video cut short: $(head -n 1 cut.err)"
head -n 1 clip.y4m > empty.y4m
status=0
"$bin" pose empty.y4m --allow-short > /dev/null 2> empty.err || status=$?
((status == 1)) && grep -q "empty.y4m: the video has no frames" empty.err || fail "a Y4M stream without frames: status $status, $(cat empty.err)"

# Interrupted while writing: SIGINT and SIGTERM during an annotated video run (a longer clip,
# the sample frames looped) exit with 130 and 143, say so in one line and leave no partial file;
# a dead run's partial file of the same output (a process id above the kernel's maximum) is
# removed by the next run, another output's is left alone.
ffmpeg -nostdin -v error -stream_loop 9 -framerate 25 -i "$samples/bus_tilt/frame_%04d.png" -c:v libx264 \
  -pix_fmt yuv420p long.mp4
for signal in INT:130 TERM:143; do
  rm -rf interrupted && mkdir interrupted
  touch interrupted/.out.landmarker-partial.9999999.mp4 interrupted/.other.landmarker-partial.9999999.mp4
  "$bin" pose long.mp4 --annotate interrupted/out.mp4 --mask interrupted/mask.mkv --quiet > /dev/null 2> signal.err &
  pid=$!
  for _ in $(seq 600); do
    compgen -G "interrupted/.out.landmarker-partial.$pid.mp4" > /dev/null && break
    sleep 0.1
  done
  [[ -e interrupted/.out.landmarker-partial.9999999.mp4 ]] && fail "SIG${signal%:*}: the dead run's partial file is still there"
  [[ -e interrupted/.other.landmarker-partial.9999999.mp4 ]] || fail "SIG${signal%:*}: another output's partial file was removed"
  sleep 1
  kill "-${signal%:*}" "$pid"
  status=0
  wait "$pid" || status=$?
  left="$(find interrupted -name "*.landmarker-partial.$pid.*")"
  ((status == ${signal#*:})) && [[ -z "$left" ]] && [[ "$(wc -l < signal.err)" -eq 1 ]] \
    && grep -q "interrupted by SIG${signal%:*}" signal.err && [[ ! -e interrupted/out.mp4 ]] \
    || fail "SIG${signal%:*} during a video run: status $status, left '$left', $(cat signal.err)"
  echo "check_video_cli: SIG${signal%:*} during a video run: status $status, $(cat signal.err)"
done

((failures == 0)) || { echo "check_video_cli: $failures failure(s)" >&2; exit 1; }
echo "check_video_cli: video files in and out, batches, usage errors, interrupts and the missing-ffmpeg path behave"
