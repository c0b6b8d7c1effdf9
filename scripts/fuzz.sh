#!/usr/bin/env bash
# Builds the `fuzz` preset and runs every parser's libFuzzer target for SECONDS each (default 600), two at a
# time, seeded from the shipped files; prints runs, exec/s, corpus size and findings per target, fails on any.
# Usage: scripts/fuzz.sh [SECONDS] [TARGET ...]   (targets: scenario hf calibration plan measurements nccl-tests
# torch-step torch-trace results published trace-ranks kernels; default: all twelve)
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-600}
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(scenario hf calibration plan measurements nccl-tests torch-step torch-trace results published trace-ranks kernels)

cmake --preset fuzz >/dev/null
cmake --build --preset fuzz

work=build/fuzz/runs
mkdir -p "$work"

# The binary, then the read-only seed folders, of each target.
seeds() {
  case "$1" in
    scenario) echo "scenario_parser_fuzzer scenarios tests/transcripts/inputs tests/hostile/inputs" ;;
    hf) echo "hf_config_fuzzer scenarios/hf tests/transcripts/inputs tests/hostile/inputs" ;;
    calibration) echo "calibration_fuzzer fuzz/corpus/calibration tests/transcripts/inputs tests/hostile/inputs" ;;
    plan) echo "plan_json_fuzzer tests/golden tests/transcripts/inputs tests/hostile/inputs" ;;
    measurements) echo "measurements_fuzzer validate/data tests/transcripts/inputs tests/hostile/inputs" ;;
    nccl-tests) echo "nccl_tests_log_fuzzer tests/fixtures/nccl-tests fuzz/corpus/nccl-tests" ;;
    torch-step) echo "torch_step_fuzzer validate/data/h100 fuzz/corpus/torch-step" ;;
    torch-trace) echo "torch_trace_fuzzer tests/fixtures/torch-trace" ;;
    results) echo "results_fuzzer fuzz/corpus/results tests/hostile/inputs" ;;
    published) echo "published_fuzzer validate/published tests/hostile/inputs" ;;
    trace-ranks) echo "trace_ranks_fuzzer fuzz/corpus/trace-ranks" ;;
    kernels) echo "kernel_bench_fuzzer validate/data/h100/call-6" ;;
    *) echo "fuzz.sh: unknown target '$1' (expected scenario, hf, calibration, plan, measurements, nccl-tests, torch-step, torch-trace, results, published, trace-ranks or kernels)" >&2; exit 2 ;;
  esac
}

run_one() {
  local name=$1
  read -r binary folders <<<"$(seeds "$name")"
  local dir=$work/$name
  mkdir -p "$dir/corpus" "$dir/artifacts"
  local existing=()
  for f in $folders; do [ -d "$f" ] && existing+=("$f"); done
  # -rss_limit_mb: a parser that needs more than 2 GiB for a fuzz input is a finding too (issue 9, finding 14).
  "./build/fuzz/fuzz/$binary" -max_total_time="$seconds" -rss_limit_mb=2048 -timeout=20 -print_final_stats=1 \
    -artifact_prefix="$dir/artifacts/" "$dir/corpus" "${existing[@]}" >"$dir/log" 2>&1 || true
}

pids=()
for name in "${targets[@]}"; do
  seeds "$name" >/dev/null
  run_one "$name" &
  pids+=($!)
  if [ ${#pids[@]} -ge 2 ]; then wait "${pids[0]}"; pids=("${pids[@]:1}"); fi
done
wait

status=0
printf '%-12s %10s %9s %8s %9s  %s\n' target runs exec/s seconds corpus findings
for name in "${targets[@]}"; do
  dir=$work/$name
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$dir/log" | tail -1)
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$dir/log" | tail -1)
  took=$(sed -n 's/^Done [0-9]* runs in \([0-9]*\) second.*/\1/p' "$dir/log" | tail -1)
  corpus=$(find "$dir/corpus" -type f | wc -l)
  found=$(find "$dir/artifacts" -type f | wc -l)
  printf '%-12s %10s %9s %8s %9s  %s\n' "$name" "${runs:-?}" "${rate:-?}" "${took:-?}" "$corpus" "$found"
  if [ "$found" -ne 0 ] || [ -z "$runs" ]; then
    status=1
    echo "fuzz.sh: $name: see $dir/log and $dir/artifacts/" >&2
  fi
done
exit $status
