#!/usr/bin/env bash
# Dataset throughput of `landmarker extract TASK`: frames per second and videos per hour with
# 1, 2, ... workers, decoding included. A benchmark, not a test.
#
# Usage: Benchmarks/throughput/measure_throughput.sh LANDMARKER_BINARY [WORKERS...]
#   WORKERS  worker counts to time (default: 1 2)
# Environment:
#   TASK=T         pose (default), hand, face or holistic
#   CLIPS=N        clips in the dataset (default 16)
#   FRAMES=F       frames per clip (default 60)
#   INPUT=mp4|folder  mp4 clips decoded by ffmpeg (default when ffmpeg is on PATH), or folders
#                  of JPEG frames decoded by the landmarker itself
#   SAMPLES=DIR    the sample clips' folder (default samples/, from scripts/fetch_samples.sh);
#                  with INPUT=folder and no ffmpeg it must hold their frames as JPEG, 640
#                  pixels wide: jpeg/bus_tilt/frame_0000.jpg … and jpeg/t1_pan/…
#   RUNNER=shards|entries  shards (default): worker I is one `extract --shard I/W` process over
#                  its share; entries: one process per entry, W at a time, each taking the next
#                  entry when one ends (how the Ray driver schedules its tasks)
#   RAY_VENV=DIR   also time the Ray driver (Scale/ray/ray_extract.py) on a local one-node
#                  cluster with as many CPUs as workers, using the Ray of this environment
#
# The dataset: CLIPS clips of FRAMES frames each, 640 pixels wide, made from the sample clips
# (bus_tilt and t1_pan, looped), so every clip costs about the same. Each worker is one
# `landmarker extract TASK --shard I/W --threads 1` process (the unit the Ray driver and a
# Kubernetes Indexed Job run); the time is from starting the first worker to the last one's
# exit, once per worker count, after one untimed warm-up run over two clips.
set -euo pipefail
if (($# < 1)); then sed -n '2,/^set /p' "$0" | grep '^#' | sed 's/^# \{0,1\}//'; exit 2; fi
bin="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
shift
workers=(1 2)
(($# == 0)) || workers=("$@")
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
samples="${SAMPLES:-$root/samples}"
clips="${CLIPS:-16}"
frames="${FRAMES:-60}"
task="${TASK:-pose}"
case "$task" in pose | hand | face | holistic) ;; *) echo "TASK must be pose, hand, face or holistic, not $task" >&2; exit 2 ;; esac
input="${INPUT:-$(command -v ffmpeg > /dev/null && echo mp4 || echo folder)}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# The sample frames, 640 pixels wide, as JPEG for folder clips.
jpeg_frames() {
  local source=$1
  if [[ -d "$samples/jpeg/$source" ]]; then echo "$samples/jpeg/$source"; return; fi
  mkdir -p "$work/jpeg/$source"
  [[ -e "$work/jpeg/$source/frame_0000.jpg" ]] || ffmpeg -nostdin -v error -i "$samples/$source/frame_%04d.png" \
    -vf scale=640:-2 -q:v 2 -start_number 0 "$work/jpeg/$source/frame_%04d.jpg"
  echo "$work/jpeg/$source"
}

# The dataset and its manifest: clip k starts at frame k mod 30 of its source and loops.
mkdir "$work/clips"
for ((k = 0; k < clips; k++)); do
  source=$([[ $((k % 2)) == 0 ]] && echo bus_tilt || echo t1_pan)
  name=$(printf 'clip_%02d' "$k")
  if [[ "$input" == mp4 ]]; then
    ffmpeg -nostdin -v error -framerate 25 -start_number $((k % 30)) -i "$samples/$source/frame_%04d.png" \
      -vf "loop=loop=-1:size=30,scale=640:-2" -frames:v "$frames" -c:v libx264 -pix_fmt yuv420p \
      "$work/clips/$name.mp4"
    echo "clips/$name.mp4"
  else
    from="$(jpeg_frames "$source")"
    mkdir "$work/clips/$name"
    for ((f = 0; f < frames; f++)); do
      cp "$from/$(printf 'frame_%04d.jpg' $(((k + f) % 30)))" "$work/clips/$name/$(printf 'frame_%04d.jpg' "$f")"
    done
    echo "clips/$name"
  fi
done > "$work/manifest.txt"
total_frames=$((clips * frames))

cpu="$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')"
family="$(grep -qw avx512f /proc/cpuinfo && echo 'AVX-512' || echo 'AVX2 only')"
echo "# $(date -u +%Y-%m-%d) $cpu ($family), $(nproc) cores; load average $(cut -d' ' -f1-3 /proc/loadavg);" \
     "$("$bin" --version | head -n 1); $task, $clips clips x $frames frames ($input)"

runner="${RUNNER:-shards}"

# run_workers W OUT: W processes at once, by shard or by entry; prints the wall time in seconds.
run_workers() {
  local count=$1 out=$2 start end
  start=$EPOCHREALTIME
  if [[ "$runner" == entries ]]; then
    seq 0 $((clips - 1)) | xargs -P "$count" -I{} sh -c '"$0" extract "$4" --manifest "$1" --out "$2" \
      --shard "{}/$3" --threads 1 --quiet 2> "$2.{}.log"' "$bin" "$work/manifest.txt" "$out" "$clips" "$task"
  else
    for ((i = 0; i < count; i++)); do
      "$bin" extract "$task" --manifest "$work/manifest.txt" --out "$out" --shard "$i/$count" --threads 1 --quiet \
        2> "$out.$i.log" &
    done
    wait
  fi
  end=$EPOCHREALTIME
  awk -v s="$start" -v e="$end" 'BEGIN { printf "%.2f", e - s }'
}

# Warm-up: the binary, the models and the first clips in the page cache.
head -n 2 "$work/manifest.txt" > "$work/warm.txt"
"$bin" extract "$task" --manifest "$work/warm.txt" --out "$work/warm" --threads 1 --quiet 2> /dev/null

echo "| workers | runner | wall (s) | frames/s | videos/hour | speed-up |"
echo "|---:|---|---:|---:|---:|---:|"
base=""
for count in "${workers[@]}"; do
  seconds=$(run_workers "$count" "$work/out$count")
  outputs=$(find "$work/out$count" -name '*.ndjson' | wc -l)
  ((outputs == clips)) || { echo "only $outputs of $clips outputs with $count workers" >&2; cat "$work/out$count".*.log >&2; exit 1; }
  base=${base:-$seconds}
  awk -v w="$count" -v r="$runner" -v s="$seconds" -v f="$total_frames" -v c="$clips" -v b="$base" \
    'BEGIN { printf "| %d | %s | %.2f | %.1f | %.0f | %.2f× |\n", w, r, s, f / s, c * 3600 / s, b / s }'
done

if [[ -n "${RAY_VENV:-}" ]]; then
  for count in "${workers[@]}"; do
    cluster="$work/ray$count"
    port=$((20000 + RANDOM % 20000))
    "$RAY_VENV/bin/ray" start --head --port "$port" --num-cpus "$count" --temp-dir "$cluster" --include-dashboard=false \
      --disable-usage-stats > "$work/ray$count.log" 2>&1
    start=$EPOCHREALTIME
    RAY_ADDRESS="127.0.0.1:$port" "$RAY_VENV/bin/python" "$root/Scale/ray/ray_extract.py" "$task" --manifest "$work/manifest.txt" \
      --out "$work/rayout$count" --landmarker "$bin" --threads 1 > "$work/driver$count.log" 2>&1
    end=$EPOCHREALTIME
    "$RAY_VENV/bin/ray" stop --force > /dev/null 2>&1
    awk -v w="$count" -v s="$start" -v e="$end" -v f="$total_frames" -v c="$clips" -v b="$base" \
      'BEGIN { t = e - s; printf "| %d | Ray driver | %.2f | %.1f | %.0f | %.2f× |\n", w, t, f / t, c * 3600 / t, b / t }'
  done
fi
