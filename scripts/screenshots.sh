#!/usr/bin/env bash
# Regenerates docs/screenshots/*.png: every view of shardscope-gui on a scenario, rendered offscreen.
# Usage: scripts/screenshots.sh [build-dir] [scenario.yaml]   (defaults: build/default, scenarios/default.yaml)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${1:-$root/build/default}"
scenario="${2:-$root/scenarios/default.yaml}"
# The timeline and memory-over-time pictures simulate the plan with the build's own `shardscope` (in a child process).
SHARDSCOPE_BIN="$build/apps/shardscope/shardscope" QT_QPA_PLATFORM=offscreen QT_SCALE_FACTOR=1 "$build/gui/shardscope-gui" --screenshots "$root/docs/screenshots" "$scenario"
# A pipelined scenario's run (planned, not simulated) on the Timeline tab.
pipeline_shots="$(mktemp -d)"
trap 'rm -rf "$pipeline_shots"' EXIT
QT_QPA_PLATFORM=offscreen QT_SCALE_FACTOR=1 "$build/gui/shardscope-gui" --screenshots "$pipeline_shots" \
  "$root/scenarios/pipelines/llama3.1-405b-512gpu-3d.yaml"
cp "$pipeline_shots/timeline.png" "$root/docs/screenshots/pipeline-timeline.png"
