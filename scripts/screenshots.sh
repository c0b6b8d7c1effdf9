#!/usr/bin/env bash
# Regenerates docs/screenshots/*.png: every view of shardscope-gui on a scenario, rendered offscreen.
# Usage: scripts/screenshots.sh [build-dir] [scenario.yaml]   (defaults: build/default, scenarios/default.yaml)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${1:-$root/build/default}"
scenario="${2:-$root/scenarios/default.yaml}"
# The timeline and memory-over-time pictures simulate the plan with the build's own `shardscope` (in a child process).
SHARDSCOPE_BIN="$build/apps/shardscope/shardscope" QT_QPA_PLATFORM=offscreen QT_SCALE_FACTOR=1 "$build/gui/shardscope-gui" --screenshots "$root/docs/screenshots" "$scenario"
