#!/usr/bin/env bash
# Installs the Debian packages shardscope builds with; idempotent, quiet, no standard input needed.
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config git
  libyaml-cpp-dev nlohmann-json3-dev libcli11-dev zlib1g-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  libsimgrid-dev
  libopenmpi-dev openmpi-bin libeigen3-dev
  qt6-base-dev qt6-svg-dev fonts-dejavu-core
  clang libclang-rt-14-dev clang-format
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} Debian packages already installed"
  exit 0
fi

echo "install-deps: installing ${missing[*]}"
sudo_cmd=()
if [ "$(id -u)" -ne 0 ]; then sudo_cmd=(sudo); fi
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -qq </dev/null
"${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" </dev/null >/dev/null
echo "install-deps: done"
