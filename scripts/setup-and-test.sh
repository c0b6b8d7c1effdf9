#!/usr/bin/env bash
# The README's test command: install what is missing, build every preset CI checks, run all tests.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/install-deps.sh
jobs=$(nproc)

echo "== default preset: build and test"
cmake --preset default >/dev/null
cmake --build --preset default -j "$jobs"
ctest --preset default -j "$jobs"

echo "== core-only preset (SimGrid, Qt, CUDA, MPI off): build and test"
cmake --preset core-only >/dev/null
cmake --build --preset core-only -j "$jobs"
ctest --preset core-only -j "$jobs"
