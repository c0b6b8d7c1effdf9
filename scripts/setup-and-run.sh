#!/usr/bin/env bash
# The README's run command: install what is missing, build, then plan and simulate a scenario.
set -euo pipefail
cd "$(dirname "$0")/.."
scenario=${1:-scenarios/default.yaml}
./scripts/install-deps.sh
cmake --preset default >/dev/null
cmake --build --preset default -j "$(nproc)" >/dev/null
tool=./build/default/apps/shardscope/shardscope
"$tool" plan "$scenario" --out build/plan.json
echo
commands=$("$tool" --help)  # whole, then searched: `| grep -q` under pipefail can fail on SIGPIPE
if grep -q simulate <<<"$commands"; then
  "$tool" simulate "$scenario" --plan build/plan.json --compare
else
  echo "(simulate is not built: SimGrid was not found)"
fi
