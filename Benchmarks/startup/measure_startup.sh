#!/usr/bin/env bash
# Process start to first result, and peak resident memory, of `landmarker pose PHOTO --json`
# and `landmarker hand PHOTO --json`.
#
# Usage: Benchmarks/startup/measure_startup.sh LANDMARKER_BINARY [RUNS] [POSE_PHOTO] [HAND_PHOTO]
#   RUNS        runs per command (default 20)
#   POSE_PHOTO  default samples/bus.jpg      HAND_PHOTO  default samples/t1.jpg
# Run from the repository root (the binary's default models are models/*.task). Needs bash 5
# (EPOCHREALTIME) and GNU time (/usr/bin/time).
#
# Each run is one process: the wall time from just before it starts to its exit, right after it
# prints the JSON result (so process start, loading both models, decoding the photo, one
# detection, printing, and exit), and its peak resident set size ("Maximum resident set size"
# of /usr/bin/time). Prints the median, minimum and maximum of both over RUNS runs, after one
# untimed run per command that brings the files into the page cache.
set -euo pipefail

if [[ $# -lt 1 ]]; then
    sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'
    exit 2
fi
binary=$1
runs=${2:-20}
pose_photo=${3:-samples/bus.jpg}
hand_photo=${4:-samples/t1.jpg}
[[ -x $binary ]] || { echo "not an executable: $binary" >&2; exit 2; }
[[ -x /usr/bin/time ]] || { echo "needs GNU time at /usr/bin/time" >&2; exit 2; }

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

# The median of the numbers on standard input (the lower middle one for an even count).
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

measure() {
    local label=$1; shift
    "$binary" "$@" > /dev/null  # warm the page cache
    : > "$scratch/ms"; : > "$scratch/kib"
    for ((i = 0; i < runs; i++)); do
        local start=$EPOCHREALTIME
        /usr/bin/time -f '%M' -o "$scratch/rss" "$binary" "$@" > /dev/null
        local end=$EPOCHREALTIME
        awk -v s="$start" -v e="$end" 'BEGIN { printf "%.1f\n", (e - s) * 1000 }' >> "$scratch/ms"
        tail -n 1 "$scratch/rss" >> "$scratch/kib"
    done
    local ms_median ms_min ms_max kib_median kib_min kib_max
    ms_median=$(median < "$scratch/ms"); ms_min=$(sort -n "$scratch/ms" | head -1); ms_max=$(sort -n "$scratch/ms" | tail -1)
    kib_median=$(median < "$scratch/kib"); kib_min=$(sort -n "$scratch/kib" | head -1); kib_max=$(sort -n "$scratch/kib" | tail -1)
    printf '%-36s %8s ms (min %s, max %s)   peak RSS %6.1f MiB (min %.1f, max %.1f)\n' \
        "$label" "$ms_median" "$ms_min" "$ms_max" \
        "$(awk -v k="$kib_median" 'BEGIN { print k / 1024 }')" \
        "$(awk -v k="$kib_min" 'BEGIN { print k / 1024 }')" \
        "$(awk -v k="$kib_max" 'BEGIN { print k / 1024 }')"
}

echo "$runs runs each, median (min, max); $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //'), load average $(cut -d' ' -f1-3 /proc/loadavg)"
measure "pose $(basename "$pose_photo") --json" pose "$pose_photo" --json
measure "hand $(basename "$hand_photo") --json" hand "$hand_photo" --json
