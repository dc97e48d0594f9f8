#!/usr/bin/env bash
# Writes scripts/code_order.txt: the functions of the release `landmarker` binary that
# a pose run and a hand run on the sample photos execute, one mangled symbol a line,
# in the order the binary had them. scripts/build_release.sh hands the file to the
# linker (lld's --symbol-ordering-file, with every function in a section of its
# own), which puts those functions first and together in the binary's code.
#
# Why: the kernel maps a file's pages into a process up to 64 KiB around each page
# it touches (fault-around), and counts them all as resident. Scattered over the
# 11 MiB of code, the ~1.2 MiB that a run executes kept about 9 MiB of the binary
# resident; packed together, far less. The list only orders code: a function it
# misses (or one renamed since) still links and runs, only away from the others.
#
# Needs valgrind (callgrind) and the fetched models and samples. Run it again when
# the pipeline's code changes much, and commit the new list.
#
# Usage: scripts/make_code_order.sh
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
command -v valgrind > /dev/null || { echo "make_code_order: valgrind is not installed" >&2; exit 1; }

bin="$(scripts/build_release.sh)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
# Callgrind needs the symbol table, not the DWARF debug information.
strip --strip-debug -o "$work/landmarker" "$bin"
export LANDMARKER_MODELS="$PWD/models"
# Valgrind cannot run AVX-512 instructions: the runs take the AVX2 family on every CPU, so the
# list is the same whichever machine makes it (the AVX-512 family's kernels stay where the
# linker puts them).
export LANDMARKER_NO_AVX512=1
for run in "pose samples/bus.jpg" "hand samples/t1.jpg"; do
  # shellcheck disable=SC2086 # the command and its photo
  valgrind --tool=callgrind --demangle=no --callgrind-out-file="$work/callgrind.%p" \
    "$work/landmarker" $run --json > /dev/null 2> "$work/valgrind.log" \
    || { cat "$work/valgrind.log" >&2; exit 1; }
done

python3 - "$work" scripts/code_order.txt <<'PYTHON'
import glob, re, subprocess, sys
work, output = sys.argv[1], sys.argv[2]
executed = set()
for path in glob.glob(f"{work}/callgrind.*"):
    for line in open(path, errors="replace"):
        match = re.match(r"^c?fn=\(\d+\) (.+)$", line.rstrip("\n"))
        if match:
            executed.add(match.group(1))
# The binary's functions and their addresses: the list keeps the binary's order.
address = {}
symbols = subprocess.run(["nm", "--defined-only", f"{work}/landmarker"], capture_output=True, text=True, check=True)
for line in symbols.stdout.splitlines():
    fields = line.split()
    if len(fields) == 3 and fields[1] in "tTwW":
        address[fields[2]] = int(fields[0], 16)
ordered = sorted((name for name in executed if name in address), key=address.get)
with open(output, "w") as file:
    file.write("".join(name + "\n" for name in ordered))
print(f"make_code_order: {len(ordered)} functions in {output}", file=sys.stderr)
PYTHON
