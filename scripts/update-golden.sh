#!/usr/bin/env bash
# Regenerates the golden transcripts (tests/transcripts/*.tesh, tests/hostile/*.tesh) and the JSON they keep in tests/golden/, then replays them.
# Usage: scripts/update-golden.sh [PRESET]   (default: default; it must build the simulator, or the
# transcripts marked `! requires sim` are skipped and left as they are). Review the result with git diff.
set -euo pipefail
cd "$(dirname "$0")/.."
preset=${1:-default}
build_dir=build/${preset}

cmake --preset "$preset" >/dev/null
cmake --build --preset "$preset" --target shardscope shardscope_transcript_tests
runner=${build_dir}/tests/transcripts/shardscope_transcript_tests

echo "== rewriting transcripts"
log=$(mktemp)
trap 'rm -f "$log"' EXIT
SHARDSCOPE_UPDATE_GOLDEN=1 "$runner" --gtest_filter='transcript.*:hostile.*' | tee "$log" | grep -E '^(updated |\[  (SKIPPED|FAILED|PASSED) )' || true
if grep -q '^\[  SKIPPED \]' "$log"; then
  echo "update-golden: warning: preset ${preset} builds no simulator; the skipped transcripts were left as they are" >&2
fi
echo "== rewriting the plan exports (tests/golden/export-*)"
cmake --build --preset "$preset" --target shardscope_shipped_scenario_tests
SHARDSCOPE_UPDATE_GOLDEN=1 "${build_dir}/tests/planner/shardscope_shipped_scenario_tests" \
  --gtest_filter='PlanExport.*' --gtest_brief=1
echo "== replaying them"
"$runner" --gtest_brief=1
if [ -e .git ] && command -v git >/dev/null; then
  echo "== changed (review with: git diff -- tests/transcripts tests/hostile tests/golden)"
  git status --short -- tests/transcripts tests/hostile tests/golden
fi
