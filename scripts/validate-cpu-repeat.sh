#!/usr/bin/env bash
# The CPU validation loop run RUNS times in a row (scripts/validate-cpu-loop.sh into OUT_DIR/run-01, -02, ...)
# and its results tabulated in OUT_DIR/summary.md: how often the predictions meet issue 11's targets on a
# machine whose pace changes from one run to the next. Usage: scripts/validate-cpu-repeat.sh RUNS OUT_DIR
# [SCENARIO]. ITERATIONS, BUILD, STRATEGIES and MAX_BYTES pass through to the loop (ITERATIONS defaults to
# 40 here: the pair test needs rounds to tell strategies apart).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ $# -lt 2 ] || ! [[ $1 =~ ^[1-9][0-9]*$ ]]; then
  echo "usage: scripts/validate-cpu-repeat.sh RUNS OUT_DIR [SCENARIO] (RUNS a whole number from 1)" >&2
  exit 2
fi
runs=$1
out=$2
scenario=${3:-validate/scenarios/cpu-2rank-accumulate.yaml}
export ITERATIONS=${ITERATIONS:-40}
mkdir -p "$out"

# One run's row from its compare.md: the iteration and peak rows' errors, Spearman, the pair line's counts.
row() {
  awk -v run="$1" '
    /^\| iteration \|/ { split($0, c, "|"); mape = c[3]; max = c[4]; sim = c[6] }
    /^\| peak_memory \|/ { split($0, c, "|"); peak = c[4] }
    /^Spearman/ { sub(/.*planner /, ""); sub(/,.*/, ""); rho = $0 }
    /^Strategy pairs/ {
      line = $0; sub(/.*\): /, "", line); split(line, w, " ")
      sub(/;$/, "", w[3]); ordered = w[1] " of " w[3]; agrees = w[9]
    }
    END {
      gsub(/^ +| +$/, "", mape); gsub(/^ +| +$/, "", max); gsub(/^ +| +$/, "", sim); gsub(/^ +| +$/, "", peak)
      printf "| %s | %s | %s | %s | %s | %s | %s | %s |\n", run, mape, max, sim, peak, rho, ordered, agrees
    }' "$2"
}

{
  echo "# $runs runs of the CPU validation loop on $scenario"
  echo
  echo "Written by \`ITERATIONS=$ITERATIONS scripts/validate-cpu-repeat.sh $runs $out $scenario\` on $(date -u +%Y-%m-%d)."
  echo "Each run: micro-benchmarks, the fit on them alone, the plans run ($ITERATIONS rounds), the comparison."
  echo "Targets: iteration MAPE <= 10 %, peak within 2 %, Spearman >= 0.9."
  echo
  echo "| run | iteration MAPE (planner) | largest error | MAPE (simulator) | peak largest error | Spearman | pairs the rounds order | of them ordered as measured |"
  echo "|---|---:|---:|---:|---:|---:|---:|---:|"
} >"$out/summary.md"
met=0
for n in $(seq 1 "$runs"); do
  i=$(printf %02d "$n")
  dir=$out/run-$i
  echo "validate-cpu-repeat: run $i of $runs into $dir" >&2
  scripts/validate-cpu-loop.sh "$dir" "$scenario" >"$out/run-$i.log" 2>&1 || {
    echo "validate-cpu-repeat: run $i failed; its log: $out/run-$i.log" >&2
    tail -20 "$out/run-$i.log" >&2
    exit 1
  }
  line=$(row "$i" "$dir/compare.md")
  echo "$line" >>"$out/summary.md"
  # Every target at once: MAPE and peak error in per cent, Spearman as a number.
  if echo "$line" | awk -F'|' '{ m = $3 + 0; p = $6 + 0; r = $7 + 0; exit !(m <= 10 && p <= 2 && r >= 0.9) }'; then
    met=$((met + 1))
  fi
done
{
  echo
  echo "Every target met together in $met of $runs runs."
} >>"$out/summary.md"
cat "$out/summary.md"
