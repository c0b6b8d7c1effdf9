#!/usr/bin/env bash
# The README's test command: install what is missing, then build and test every preset CI checks.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/install-deps.sh
jobs=$(nproc)

for preset in default core-only asan; do
  echo "== preset ${preset}: build and test"
  cmake --preset "$preset" >/dev/null
  cmake --build --preset "$preset" -j "$jobs"
  ctest --preset "$preset" -j "$jobs"
done
