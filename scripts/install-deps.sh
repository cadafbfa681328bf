#!/usr/bin/env bash
# Installs the Debian packages infer8 needs to build, test and demo. Idempotent: packages
# already present are not reinstalled, and apt-get update runs only when something is missing.
set -euo pipefail
packages=(build-essential cmake pkg-config
          libcjson-dev libjpeg62-turbo-dev libpng-dev libwebp-dev libarchive-dev libdnnl-dev
          libcmocka-dev python3-pil python3-numpy
          libxxhash-dev nettle-dev
          xz-utils               # tools/pack-logs, the device carry (tests/cli/test_pack_logs.sh, test_gpu_env_unpack.sh)
          python3-torchvision)   # PyTorch 1.13 CPU: second logits oracle (tests/py/test_torchvision_oracle.py)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi
echo "install-deps: installing ${missing[*]}"
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
