#!/usr/bin/env bash
# Checks that AVX-512 code lives only in the KernelsAVX512 module of a built binary, so that no
# AVX-512 instruction can run on a CPU without it: the library calls that module only after
# `KernelInstructionSet` has found AVX-512 at run time, and everything else is built for AVX2.
# A generic specialised (or inlined) into another module with AVX-512 code generation, under a
# name the AVX2 path could also link to, would put AVX-512 instructions outside it.
#
# Disassembles BINARY and lists every function holding an EVEX-encoded instruction (in 64-bit
# code, an instruction whose first byte is 0x62 is EVEX: AVX-512 in any vector width). Fails
# when one of them is not of KernelsAVX512 (its Swift mangled name must mention the module,
# `13KernelsAVX512`), or when no function at all has AVX-512 code in a binary built with the
# AVX-512 kernels (then the check would be checking nothing).
#
# Usage: scripts/check_avx512_isolation.sh BINARY   (needs objdump, from binutils)
set -euo pipefail
if (($# != 1)); then echo "usage: scripts/check_avx512_isolation.sh BINARY" >&2; exit 2; fi
binary="$1"
say() { echo "check_avx512_isolation: $*" >&2; }
command -v objdump >/dev/null || { say "needs objdump (the Debian package binutils)"; exit 1; }
[[ -f "$binary" ]] || { say "no such file: $binary"; exit 1; }

functions="$(objdump -d "$binary" | awk -F'\t' '
  /^[0-9a-f]+ <.*>:$/ { name = $0; sub(/^[0-9a-f]+ </, "", name); sub(/>:$/, "", name); next }
  NF >= 3 { split($2, bytes, " "); if (bytes[1] == "62" && !(name in seen)) { seen[name] = 1; print name } }')"
total="$(grep -c . <<< "$functions" || true)"
outside="$(grep -v '13KernelsAVX512' <<< "$functions" | grep . || true)"
if [[ -n "$outside" ]]; then
  say "AVX-512 instructions outside KernelsAVX512, in:"
  echo "$outside" >&2
  exit 1
fi
if ((total == 0)); then
  say "no AVX-512 code at all in $binary: was it built without the AVX-512 kernels (LANDMARKER_PORTABLE=1)?"
  exit 1
fi
echo "check_avx512_isolation: $total functions with AVX-512 code, all in KernelsAVX512"
