#!/usr/bin/env bash
# The README's run command: install what is missing, build, and run the main job on a scenario.
set -euo pipefail
cd "$(dirname "$0")/.."
scenario=${1:-scenarios/default.yaml}
./scripts/install-deps.sh
cmake --preset default >/dev/null
cmake --build --preset default -j "$(nproc)" >/dev/null
./build/default/apps/shardscope/shardscope plan "$scenario"
