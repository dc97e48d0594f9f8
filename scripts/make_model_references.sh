#!/usr/bin/env bash
# Regenerates the LiteRT outputs of the golden tests' model inputs (scripts/make_model_references.py)
# and XNNPACK's outputs on held-out inputs (scripts/make_xnnpack_references.py): creates the venv
# Benchmarks/.venv with LiteRT from PyPI if it is missing and fetches the models. On a CPU with
# AVX-512 both scripts run under QEMU as an AVX2 + FMA CPU (scripts/avx2_emulation.py).
#
# Usage: scripts/make_model_references.sh
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
venv="$root/Benchmarks/.venv"
cd "$root"

if ! "$venv/bin/python" -c 'import ai_edge_litert' 2>/dev/null; then
  echo "make_model_references: creating $venv with LiteRT from PyPI" >&2
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet -r Benchmarks/peer/requirements.txt
fi
models/fetch_models.sh
"$venv/bin/python" scripts/make_model_references.py
"$venv/bin/python" scripts/make_xnnpack_references.py
