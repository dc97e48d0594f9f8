#!/usr/bin/env bash
# Checks the public API of every library product Package.swift declares (read from `swift package
# dump-package`, so a new product is checked from the start): the facades users import,
# MediaPipeTasksVision (the Tasks API) and MLKit (the ML Kit API), the interpreter Inference, and
# the modules whose types those APIs name or that other packages link (Tensor, FlatBufferReader,
# Kernels, ImageIO; the benchmark package links the first three). It also checks that Pipeline,
# the graph machinery below the facades, which is no product, has none. Each module's public
# symbols, from its symbol graph (`swift package dump-symbol-graph`, public only, synthesized
# members skipped), are listed one a line as `<kind> <path>` and compared with the committed list
# Tests/PublicAPI/<Module>.txt (empty for Pipeline); any difference fails the check, so a
# machinery type made public (a graph, a filter, the zip reader) shows up as a leak, and a product
# without a committed list fails too. The machinery uses `package` access, which the symbol graph
# leaves out. A symbol graph does not list what a module re-exports, so an `@_exported import` in
# these modules fails the check too.
#
# Usage: scripts/check_public_api.sh [--update]
#   --update  rewrite the committed lists from the current sources (after an intended API change)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

update=0
case "${1:-}" in
  "") ;;
  --update) update=1 ;;
  *) echo "usage: $0 [--update]" >&2; exit 2 ;;
esac

log="$(mktemp)"
listed="$(mktemp -d)"
trap 'rm -rf "$log" "$listed"' EXIT

# The modules of the library products, in the order Package.swift declares them.
if ! manifest="$(swift package dump-package 2> "$log")"; then
  cat "$log" >&2
  echo "check_public_api: swift package dump-package failed" >&2
  exit 1
fi
products=()
while IFS= read -r module; do products+=("$module"); done < <(python3 -c '
import json, sys
seen = []
for product in json.load(sys.stdin)["products"]:
    if "library" in product["type"]:
        seen += [target for target in product["targets"] if target not in seen]
print("\n".join(seen))
' <<< "$manifest")
if (( ${#products[@]} == 0 )); then
  echo "check_public_api: no library product in Package.swift" >&2
  exit 1
fi
# Modules that are no product and must have no public API.
unpublished=(Pipeline)
modules=("${products[@]}" "${unpublished[@]}")
echo "library products: ${products[*]}; no public API: ${unpublished[*]}"

if reexports="$(grep -rn --include='*.swift' '@_exported' "${modules[@]/#/Sources/}")"; then
  echo "$reexports" >&2
  echo "check_public_api: a module re-exports another (above), whose public symbols would join its API." >&2
  exit 1
fi

if ! swift package dump-symbol-graph --minimum-access-level public --skip-synthesized-members > "$log" 2>&1; then
  cat "$log" >&2
  echo "check_public_api: swift package dump-symbol-graph failed" >&2
  exit 1
fi
graphs="$(sed -n 's/^Files written to //p' "$log" | tail -1)"
if [[ -z "$graphs" || ! -d "$graphs" ]]; then
  cat "$log" >&2
  echo "check_public_api: no symbol graph folder in the output above" >&2
  exit 1
fi

# `<kind> <path>` per public symbol of the module, including its public extensions of other
# modules' types (the `<Module>@<Other>.symbols.json` files).
list_symbols() {
  python3 - "$graphs" "$1" <<'EOF'
import glob, json, os, sys
folder, module = sys.argv[1], sys.argv[2]
files = [os.path.join(folder, f"{module}.symbols.json")] + sorted(
    glob.glob(os.path.join(folder, f"{module}@*.symbols.json")))
lines = set()
for path in files:
    with open(path) as f:
        graph = json.load(f)
    for symbol in graph["symbols"]:
        kind = symbol["kind"]["identifier"].removeprefix("swift.")
        lines.add(f"{kind} {'.'.join(symbol['pathComponents'])}")
sys.stdout.write("".join(line + "\n" for line in sorted(lines)))
EOF
}

status=0
for module in "${modules[@]}"; do
  if [[ ! -f "$graphs/$module.symbols.json" ]]; then
    echo "check_public_api: no symbol graph for $module in $graphs" >&2
    exit 1
  fi
  list_symbols "$module" > "$listed/$module.txt"
  expected="Tests/PublicAPI/$module.txt"
  if (( ! update )) && [[ ! -f "$expected" ]]; then
    echo "check_public_api: no committed list $expected for $module." >&2
    echo "  Review its public symbols, then run scripts/check_public_api.sh --update and commit the list." >&2
    status=1
    continue
  fi
  types="$(grep -cvE '^(func|method|property|init|type\.method|type\.property|type\.subscript|subscript|enum\.case|func\.op|associatedtype|deinit) ' "$listed/$module.txt" || true)"
  echo "$module: $(wc -l < "$listed/$module.txt") public symbols, $types of them types"
  if (( update )); then
    mkdir -p Tests/PublicAPI
    cp "$listed/$module.txt" "$expected"
  elif ! diff -u "$expected" "$listed/$module.txt"; then
    echo "check_public_api: the public API of $module is not $expected (diff above: + public now, - no longer public)." >&2
    echo "  A type or member that is not part of the $module API must not be public: make it \`package\`." >&2
    echo "  For an intended API change, run scripts/check_public_api.sh --update and commit the list." >&2
    status=1
  fi
done
exit "$status"
