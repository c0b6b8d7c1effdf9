#!/usr/bin/env bash
# The CPU validation loop end to end on this machine (docs/calibration.md, "Calibrate on your hardware"): micro-benchmarks,
# the machine as a cluster file, the calibration fit on the micro-benchmarks only, the plans run, and the
# comparison of predicted with measured. Usage: scripts/validate-cpu-loop.sh OUT_DIR [SCENARIO] [RANKS].
# SCENARIO defaults to validate/scenarios/cpu-2rank.yaml (its `cluster: file:` is replaced by the
# described machine), RANKS to 2. Run it on a quiet machine: every other busy core shows up as error.
# BUILD=path picks another build folder; STRATEGIES="..." the plans run (default below); ITERATIONS=N the
# measured iterations per plan (default 5).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ $# -lt 1 ]; then
  echo "usage: scripts/validate-cpu-loop.sh OUT_DIR [SCENARIO] [RANKS]" >&2
  exit 2
fi
out=$1
scenario=${2:-validate/scenarios/cpu-2rank.yaml}
ranks=${3:-2}
build=${BUILD:-build/default}
validate=$build/validate/shardscope-validate
shardscope=$build/apps/shardscope/shardscope
strategies=${STRATEGIES:-shardscope ddp zero-1 zero-2 zero-3 mics osdp split}
for tool in "$validate" "$shardscope"; do
  [ -x "$tool" ] || { echo "validate-cpu-loop: $tool is missing: build with MPI and Eigen first" >&2; exit 2; }
done
[ -f "$scenario" ] || { echo "validate-cpu-loop: $scenario: no such scenario" >&2; exit 2; }
command -v mpirun >/dev/null || { echo "validate-cpu-loop: mpirun not found (apt-get install openmpi-bin)" >&2; exit 2; }
if [ "$(id -u)" = 0 ]; then export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1; fi
mkdir -p "$out"
run() { echo "+ $*" >&2; "$@"; }

# 1. Micro-benchmarks, with the product shapes of the scenario's plans (on its shipped cluster file), and
# collectives up to the largest message the plans send (MAX_BYTES, default 8 MiB: the scenario's embedding and
# head): on a CPU, sizes beyond the caches run at another rate than the plans' collectives ever see.
run mpirun -n "$ranks" --oversubscribe "$validate" bench --scenario "$scenario" --max-bytes "${MAX_BYTES:-8388608}" \
  --out "$out/bench.json"
# 2. The machine as a cluster file, and the scenario pointed at it.
run mpirun -n 1 "$validate" describe --measurements "$out/bench.json" --out "$out/machine.yaml"
sed -E 's|^(  file: ).*$|\1machine.yaml|' "$scenario" >"$out/scenario.yaml"
# 3. The fit, on the micro-benchmarks only.
run "$shardscope" calibrate "$out/bench.json" --cluster "$out/machine.yaml" --out "$out/calibration.yaml" \
  --report "$out/fit.json" | tee "$out/fit.txt"
# 4. The plans, run on every rank (the fit never sees these).
# shellcheck disable=SC2086
run mpirun -n "$ranks" --oversubscribe "$validate" run "$out/scenario.yaml" --strategy $strategies \
  --iterations "${ITERATIONS:-5}" --out "$out/run.json"
# 5. Predicted (planner and simulator, with the fitted calibration) against measured.
run "$shardscope" compare "$out/scenario.yaml" --measured "$out/run.json" --calibration "$out/calibration.yaml" \
  --json "$out/compare.json" --markdown "$out/compare.md"
echo "validate-cpu-loop: wrote $out/{bench.json,machine.yaml,scenario.yaml,calibration.yaml,fit.json,run.json,compare.md,compare.json}" >&2
