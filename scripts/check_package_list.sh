#!/usr/bin/env bash
# Checks that the Debian package list lives in one place, scripts/system_packages.sh:
#   - scripts/demo.sh, scripts/install.sh and .ci/run install through it;
#   - no other tracked script runs apt-get or apt itself;
#   - every package a system-library target of Package.swift names (`.apt([...])`) is on it.
# Usage: scripts/check_package_list.sh
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

failures=0
fail() { echo "check_package_list: $*" >&2; failures=$((failures + 1)); }

for consumer in scripts/demo.sh scripts/install.sh .ci/run; do
  grep -qE '^[[:space:]]*scripts/system_packages\.sh([[:space:]]|$)' "$consumer" \
    || fail "$consumer does not run scripts/system_packages.sh"
done

while IFS= read -r script; do
  [[ "$script" == scripts/system_packages.sh ]] && continue
  if grep -nE '(^|[^[:alnum:]_-])apt(-get)?[[:space:]]+install' "$script" | grep -v '^[0-9]*:[[:space:]]*#'; then
    fail "$script installs packages itself (use scripts/system_packages.sh)"
  fi
done < <(git ls-files '*.sh' .ci/run)

listed="$(scripts/system_packages.sh --video --list)"
declared="$(grep -oE '\.apt\(\[[^]]*\]\)' Package.swift | grep -oE '"[^"]+"' | tr -d '"')"
[[ -n "$declared" ]] || fail "found no .apt([...]) providers in Package.swift"
for package in $declared; do
  grep -qxF "$package" <<<"$listed" || fail "Package.swift names $package, which scripts/system_packages.sh does not list"
done

((failures == 0)) || exit 1
echo "check_package_list: demo.sh, install.sh and .ci/run install through scripts/system_packages.sh ($(echo $listed))"
