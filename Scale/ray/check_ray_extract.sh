#!/usr/bin/env bash
# Checks the Ray driver on a real local Ray cluster: a head and a second node process on this
# machine (one CPU each), the driver over nine short clips encoded from the sample clips'
# frames plus one corrupt file, one task per entry, and the Ray worker running the longest
# clip killed (SIGKILL) while its landmarker writes frames. Checks:
#   - (first) the Kubernetes recipe Scale/kubernetes/extract-indexed-job.yaml parses as an Indexed
#     Job whose pods take their shard from JOB_COMPLETION_INDEX;
#   - every good clip has exactly one whole output, byte-identical to a plain single-process
#     `landmarker extract` over the same manifest;
#   - the corrupt file has its error file and the driver's exit status is 1;
#   - the killed task was retried (its start lines name two worker processes);
#   - no temporary file remains, and no process of the cluster runs after the check, whatever
#     happened (`ray stop --force`: on a machine running other Ray clusters of the same user, it
#     stops those too).
# Ray comes from Scale/ray/requirements.txt, installed in its own virtual environment
# ($LANDMARKER_RAY_VENV, default .venv-ray in the checkout).
# Usage: Scale/ray/check_ray_extract.sh LANDMARKER_BINARY   (needs ffmpeg and scripts/fetch_samples.sh)
set -euo pipefail
if (($# != 1)); then echo "usage: Scale/ray/check_ray_extract.sh LANDMARKER_BINARY" >&2; exit 2; fi
bin="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
venv="${LANDMARKER_RAY_VENV:-$root/.venv-ray}"
failures=0
fail() { echo "check_ray_extract: FAIL: $*" >&2; failures=$((failures + 1)); }

[[ -x "$venv/bin/python" ]] || python3 -m venv "$venv"
"$venv/bin/pip" install --quiet --disable-pip-version-check -r "$here/requirements.txt"
ray="$venv/bin/ray"

# The Kubernetes recipe cannot run here; its YAML is checked to parse and to shard by index.
"$venv/bin/python" - "$here/../kubernetes/extract-indexed-job.yaml" <<'PY' || fail "the Kubernetes Indexed Job recipe does not parse as one"
import sys, yaml
job = yaml.safe_load(open(sys.argv[1]))
spec = job["spec"]
container = spec["template"]["spec"]["containers"][0]
shards = next(e["value"] for e in container["env"] if e["name"] == "SHARDS")
ok = job["kind"] == "Job" and spec["completionMode"] == "Indexed" and str(spec["completions"]) == shards \
    and "$JOB_COMPLETION_INDEX/$SHARDS" in " ".join(container["args"])
sys.exit(0 if ok else 1)
PY

work="$(mktemp -d)"
# The cluster's own temporary folder: every process of this cluster names it on its command
# line, which is how the clean-up finds them (and no other Ray on the machine).
cluster="$work/cluster"
stop_cluster() {
  "$ray" stop --force > /dev/null 2>&1 || true
  pkill -KILL -f -- "$cluster" 2> /dev/null || true
  local waited=0
  while pgrep -f -- "$cluster" > /dev/null && ((waited < 50)); do sleep 0.2; waited=$((waited + 1)); done
}
cleanup() {
  local status=$?
  stop_cluster
  if pgrep -f -- "$cluster" > /dev/null; then
    echo "check_ray_extract: FAIL: cluster processes still run: $(pgrep -f -- "$cluster" | tr '\n' ' ')" >&2
    status=1
  fi
  rm -rf "$work"
  exit "$status"
}
trap cleanup EXIT
cd "$work"

echo "check_ray_extract: clips"
mkdir videos
bus="$root/samples/bus_tilt/frame_%04d.png"
hand="$root/samples/t1_pan/frame_%04d.png"
encode() { ffmpeg -nostdin -v error -framerate "$1" -start_number "$2" -i "$3" -frames:v "$4" "${@:6}" "videos/$5"; }
encode 25 0 "$bus" 90 long.mp4 -vf loop=loop=2:size=30 -c:v libx264 -pix_fmt yuv420p
encode 25 0 "$bus" 8 bus_a.mp4 -c:v libx264 -pix_fmt yuv420p
encode 25 8 "$bus" 8 bus_b.mkv -c:v ffv1
encode 30 16 "$bus" 8 bus_c.webm -c:v libvpx-vp9
encode 25 22 "$bus" 8 bus_d.mp4 -c:v libx264 -pix_fmt yuv420p
encode 25 0 "$hand" 8 pan_a.mp4 -c:v libx264 -pix_fmt yuv420p
encode 25 10 "$hand" 8 pan_b.mkv -c:v ffv1
encode 30 20 "$hand" 8 pan_c.webm -c:v libvpx-vp9
encode 25 5 "$hand" 8 pan_d.mp4 -c:v libx264 -pix_fmt yuv420p
head -c 3000 videos/bus_a.mp4 > videos/corrupt.mp4
good=(long bus_a bus_b bus_c bus_d pan_a pan_b pan_c pan_d)
{
  echo "# nine clips and a corrupt file"
  for name in long bus_a bus_b bus_c corrupt bus_d pan_a pan_b pan_c pan_d; do
    ls videos/"$name".*
  done
} > manifest.txt

echo "check_ray_extract: the single-process reference"
status=0
"$bin" extract pose --manifest manifest.txt --out single --threads 1 --quiet 2> single.log || status=$?
((status == 1)) && tail -n 1 single.log | grep -q ": 9 done, 0 skipped, 1 failed" \
  || fail "the single-process run did not end with 9 done, 1 failed (exit $status): $(tail -n 3 single.log)"

echo "check_ray_extract: a head and a second node"
port=$((20000 + RANDOM % 20000))
"$ray" start --head --port "$port" --num-cpus 1 --temp-dir "$cluster" --include-dashboard=false \
  --disable-usage-stats > cluster.log 2>&1 || { cat cluster.log; fail "the head did not start"; exit 1; }
"$ray" start --address "127.0.0.1:$port" --num-cpus 1 --disable-usage-stats >> cluster.log 2>&1 \
  || { cat cluster.log; fail "the second node did not start"; exit 1; }

echo "check_ray_extract: the driver, one task per entry; the worker of the longest clip is killed"
status=0
RAY_ADDRESS="127.0.0.1:$port" RAY_DEDUP_LOGS=0 "$venv/bin/python" "$here/ray_extract.py" pose --manifest manifest.txt --out out \
  --landmarker "$bin" --threads 1 > driver.log 2>&1 &
driver=$!
killed=""
for _ in $(seq 1 1200); do
  partial="$(find out -maxdepth 1 -name '.long.frames.partial.*' 2> /dev/null | head -n 1 || true)"
  if [[ -n "$partial" ]]; then
    tool="${partial##*.}"
    worker="$(ps -o ppid= -p "$tool" | tr -d ' ')" || true
    if [[ -n "$worker" ]] && ps -o args= -p "$worker" | grep -q 'ray::'; then
      kill -KILL "$worker" && killed="$worker"
      echo "check_ray_extract: killed Ray worker $worker while its landmarker ($tool) wrote $partial"
      break
    fi
  fi
  kill -0 "$driver" 2> /dev/null || break
  sleep 0.05
done
wait "$driver" || status=$?
cat driver.log
[[ -n "$killed" ]] || fail "the worker of the long clip was never caught mid-task"
((status == 1)) || fail "the driver exited with $status, expected 1 (the corrupt entry)"

for name in "${good[@]}"; do
  if [[ ! -f "out/$name.ndjson" ]]; then fail "no out/$name.ndjson"; continue; fi
  cmp -s "single/$name.ndjson" "out/$name.ndjson" || fail "out/$name.ndjson differs from the single-process output"
done
[[ -f out/corrupt.error.json ]] || fail "no out/corrupt.error.json"
[[ "$(find out -name '*.ndjson' | wc -l)" -eq "${#good[@]}" ]] || fail "not one output per good clip: $(ls out)"
[[ -z "$(find out -name '.*')" ]] || fail "temporary files remain: $(find out -name '.*')"
# Both node processes of this machine forward the same worker logs, so a start line can show
# twice: the retry is told by a second worker process id.
workers="$(grep -o 'task 0/10 (videos/long.mp4): started in worker pid [0-9]*' driver.log | sort -u | wc -l)"
((workers == 2)) || fail "the long clip's task ran in $workers worker(s), expected 2 (killed, then retried)"
summary="$(grep '^ray_extract: [0-9]* done' driver.log | tail -n 1)"
[[ "$summary" == "ray_extract: 9 done, 0 skipped, 1 failed "* ]] \
  || fail "the driver's summary is not '9 done, 0 skipped, 1 failed': $summary"

((failures == 0)) || { echo "check_ray_extract: $failures failure(s)" >&2; exit 1; }
echo "check_ray_extract: one whole output per clip, identical to one process; the killed task retried; error file; no partials"
