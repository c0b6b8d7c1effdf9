#!/usr/bin/env bash
# Configures, builds and tests each CMake preset named (default, core-only, asan), one after another.
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc)
for preset in "$@"; do
  echo "== preset ${preset}: build and test"
  cmake --preset "$preset" >/dev/null
  cmake --build --preset "$preset" -j "$jobs"
  ctest --preset "$preset" -j "$jobs"
done
