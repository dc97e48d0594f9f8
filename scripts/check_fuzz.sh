#!/usr/bin/env bash
# A short run of every libFuzzer target of Fuzz/ (docs/TESTING.md, "Fuzzing"): builds them all
# (release, -sanitize=fuzzer,address), then runs each from its seeds (and the corpus kept by
# earlier runs, if any) for SECONDS seconds (default 20) with Fuzz/run.sh's limits. Any finding
# (a crash, a sanitizer report, a broken invariant, a hang, an allocation over the limits) fails
# the check, with the fuzzer's report and the input saved under Fuzz/.artifacts/TARGET/.
# ModelFuzzer needs the models (models/fetch_models.sh).
#
# Usage: scripts/check_fuzz.sh [SECONDS]
set -euo pipefail
seconds="${1:-20}"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
logs="$(mktemp -d)"
trap 'rm -rf "$logs"' EXIT

started=$SECONDS
(cd "$root/Fuzz" && swift build -c release -Xswiftc -sanitize=fuzzer,address -Xswiftc -parse-as-library)
echo "check_fuzz: built in $((SECONDS - started)) s"

failures=0
for target in models inputs manifests probes yuv y4m; do
  status=0
  "$root/Fuzz/run.sh" "$target" -max_total_time="$seconds" -print_final_stats=1 > "$logs/$target.log" 2>&1 \
    || status=$?
  runs="$(sed -n 's/^stat::number_of_executed_units: *//p' "$logs/$target.log" | tail -n 1)"
  if ((status != 0)); then
    failures=$((failures + 1))
    echo "check_fuzz: FAIL: $target (exit status $status); the end of its log:" >&2
    tail -n 60 "$logs/$target.log" >&2
  else
    echo "check_fuzz: $target: ${runs:-?} executions in $seconds s, no finding"
  fi
done
((failures == 0)) || { echo "check_fuzz: $failures target(s) found something; inputs under Fuzz/.artifacts/" >&2; exit 1; }
echo "check_fuzz: every target ran ${seconds} s without a finding (in $((SECONDS - started)) s with the build)"
