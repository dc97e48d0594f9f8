#!/usr/bin/env bash
# Checks the landmarker CLI on real video files, as a user runs it:
#   - `pose CLIP.mp4 --json --annotate OUT.mp4 --mask MASK.mp4` on a clip encoded from the
#     sample clip's frames: one JSON line per frame with the presentation times, landmarks equal
#     to the run on the same video's frames exported as PNG, and videos out with the input's
#     frame count, rate and size; the same for `hand` on the hand clip; every frame's line holds
#     one track id per pose or hand (`trackIds`);
#   - a batch of images with an unreadable one: one line each, an error line, exit status 1, and
#     no track ids; `--smooth-each-track` refused for images; a negative number given to an
#     option that takes a number refused by the option's range (exit status 64);
#   - without ffmpeg on PATH: a video file gives an error naming the package, a Y4M stream
#     still runs.
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
keys = ("timestampMs", "landmarks", "worldLandmarks", "handedness", "trackIds")
same = len(a) == len(b) and all(x.get(k) == y.get(k) for x, y in zip(a, b) for k in keys)
found = sum(1 for x in a if x["landmarks"])
tracked = all(len(x.get("trackIds", [None])) == len(x["landmarks"]) for x in a)
print(f"check_video_cli: {sys.argv[1]}: {len(a)} frames, {found} with a result, "
      f"track ids {sorted({i for x in a for i in x.get('trackIds', [])})}; "
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
status=0
"$bin" pose "$samples/bus.jpg" --smooth-each-track > /dev/null 2> smooth.err || status=$?
((status == 1)) && grep -q "smooth-each-track applies to video input" smooth.err \
  || fail "--smooth-each-track on an image: status $status, $(cat smooth.err)"
# A negative number after an option that takes a number is its value, refused by the option's
# range (a usage error, exit status 64), not read as an option of its own ("Missing value").
for bad in "pose --num-poses -1:--num-poses must be in 1...64" "hand --num-hands -2:--num-hands must be in 1..." \
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

((failures == 0)) || { echo "check_video_cli: $failures failure(s)" >&2; exit 1; }
echo "check_video_cli: video files in and out, batches and the missing-ffmpeg path behave"
