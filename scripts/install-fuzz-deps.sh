#!/usr/bin/env bash
# Optional packages for `make fuzz` (libFuzzer needs clang and its runtime library) and the
# valgrind test (tests/cli/test_valgrind.sh skips without it). Not part of the default deps.
# Idempotent, like scripts/install-deps.sh.
set -euo pipefail
packages=(clang libclang-rt-14-dev valgrind)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
echo "install-fuzz-deps: installing ${missing[*]}"
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
