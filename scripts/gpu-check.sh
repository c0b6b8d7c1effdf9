#!/usr/bin/env bash
# The one-call GPU check: on a bare one-GPU machine (CUDA driver, PyTorch; none of our Debian libraries, no
# network, no MPI), runs what a bundle from scripts/gpu-bundle.sh lists and writes JSON to an output folder.
#
#   scripts/gpu-check.sh --bundle DIR --out DIR [--budget SECONDS] [--step-timeout SECONDS] [--cases FILE]
#                        [--dry-run]
#
# Steps, each under its own timeout inside the budget (default 450 s), each logged to OUT/logs/STEP.log; a
# failed step is recorded and the next one runs:
#   libraries  find libcudart / libcublas / libcublasLt / libnccl on the target (bundle, CUDA_HOME, /usr/local/cuda,
#              Python's nvidia-* and torch wheels) and check the bundled binary loads (--help)
#   device     nvidia-smi -q and PyTorch's device description -> device.json, nvidia-smi.txt
#   gemms-*    cuBLAS times of every distinct product of a scenario's plans at their micro-batches, element-wise
#              and copy bandwidth -> gemms-NAME.json (shardscope-validate --no-mpi bench --emulate-rank 0)
#   run-*      rank 0 of a scenario's plans emulated on this GPU: per-task times, emulated collectives, the
#              allocator's peaks -> run-NAME.json
#   torch-*    validate/torch/step.py: one training step of the same shapes in PyTorch -> torch-NAME.json
#              (and trace-NAME.json.gz for the case that asks for a profiler trace)
#   kernels-*  validate/torch/kernels.py: products (bf16, fp8), attention back ends, element-wise kernels and
#              the launch floor at a model's shapes -> kernels-NAME.json
#   probe-*    a bundled probe (bin/shardscope-NAME-probe: how the CUDA pool counts bytes) -> probe-NAME.json
# OUT/check.json lists every step (status ok | failed | timeout | skipped, exit code, seconds, the last
# line of its log); the exit code is 0 when every step passed, 1 when one failed, 2 for bad arguments.
# --cases runs another case file (a path inside the bundle, or any path) instead of the bundle's cases.tsv.
# --dry-run checks the bundle and prints each step's command without running any of them.
set -uo pipefail

usage() { echo "usage: $0 --bundle DIR --out DIR [--budget SECONDS] [--step-timeout SECONDS] [--cases FILE] [--dry-run]" >&2; exit 2; }
bundle="" out="" budget=450 step_timeout=0 dry_run=0 cases=
while [ $# -gt 0 ]; do
  case "$1" in
    --bundle) [ $# -ge 2 ] || usage; bundle="$2"; shift 2 ;;
    --out) [ $# -ge 2 ] || usage; out="$2"; shift 2 ;;
    --budget) [ $# -ge 2 ] || usage; budget="$2"; shift 2 ;;
    --step-timeout) [ $# -ge 2 ] || usage; step_timeout="$2"; shift 2 ;;
    --cases) [ $# -ge 2 ] || usage; cases="$2"; shift 2 ;;
    --dry-run) dry_run=1; shift ;;
    -h|--help) sed -n '2,25p' "$0"; exit 0 ;;
    *) echo "gpu-check: unknown argument '$1'" >&2; usage ;;
  esac
done
[ -n "$bundle" ] && [ -n "$out" ] || usage
case "$budget" in ''|*[!0-9]*) echo "gpu-check: --budget: expected whole seconds, got '$budget'" >&2; exit 2 ;; esac
case "$step_timeout" in ''|*[!0-9]*) echo "gpu-check: --step-timeout: expected whole seconds, got '$step_timeout'" >&2; exit 2 ;; esac
[ -d "$bundle" ] || { echo "gpu-check: --bundle $bundle: no such folder (make one with scripts/gpu-bundle.sh)" >&2; exit 2; }
bundle=$(cd "$bundle" && pwd)
for f in cases.tsv validate/torch/step.py MANIFEST; do
  [ -e "$bundle/$f" ] || { echo "gpu-check: $bundle/$f: missing from the bundle (rebuild it with scripts/gpu-bundle.sh)" >&2; exit 2; }
done
# A bundle made with --torch-only has no binary: its gemms, run and probe cases are recorded as skipped.
has_binary=0
[ -e "$bundle/bin/shardscope-validate" ] && has_binary=1
if [ -z "$cases" ]; then cases="$bundle/cases.tsv"; elif [ -e "$bundle/$cases" ]; then cases="$bundle/$cases"; fi
[ -r "$cases" ] || { echo "gpu-check: --cases $cases: cannot read it" >&2; exit 2; }
command -v python3 >/dev/null || { echo "gpu-check: python3 not found: the check needs it (and PyTorch for the torch steps)" >&2; exit 2; }
mkdir -p "$out/logs" || { echo "gpu-check: --out $out: cannot create the folder" >&2; exit 2; }
out=$(cd "$out" && pwd)
: >"$out/steps.tsv"
start=$(date +%s)
bin="$bundle/bin/shardscope-validate"

remaining() { echo $(( budget - ($(date +%s) - start) )); }

# unrunnable NAME: one steps.tsv row for a step a torch-only bundle cannot run.
unrunnable() {
  printf '%s\tskipped\t-\t0\tthe bundle has no shardscope-validate (made with gpu-bundle.sh --torch-only)\n' "$1" >>"$out/steps.tsv"
  echo "gpu-check: $1: skipped (no shardscope-validate in the bundle)" >&2
}

# step NAME CAP_SECONDS COMMAND...: runs COMMAND from the bundle folder under timeout (the cap, or what is
# left of the budget), its output in logs/NAME.log; one steps.tsv row.
step() {
  local name="$1" cap="$2"; shift 2
  local left; left=$(remaining)
  [ "$step_timeout" -gt 0 ] && [ "$step_timeout" -lt "$cap" ] && cap=$step_timeout
  local limit=$(( cap < left ? cap : left ))
  local log="$out/logs/$name.log"
  if [ "$dry_run" = 1 ]; then
    printf '%s\tdry-run\t0\t0\t%s\n' "$name" "$*" >>"$out/steps.tsv"
    echo "gpu-check: would run ($limit s) $*"
    return 0
  fi
  if [ "$limit" -lt 1 ] || { [ "$limit" -lt 5 ] && [ "$limit" -lt "$cap" ]; }; then
    printf '%s\tskipped\t-\t0\tthe %s s budget is spent\n' "$name" "$budget" >>"$out/steps.tsv"
    echo "gpu-check: $name: skipped (budget spent)" >&2
    return 1
  fi
  local t0; t0=$(date +%s.%N)
  (cd "$bundle" && timeout -k 10 "$limit" "$@") >"$log" 2>&1 </dev/null
  local rc=$?
  local t1; t1=$(date +%s.%N)
  local secs; secs=$(python3 -c "print(f'{$t1 - $t0:.1f}')")
  local status=ok
  if [ $rc -eq 124 ] || [ $rc -eq 137 ]; then status=timeout; elif [ $rc -ne 0 ]; then status=failed; fi
  local last; last=$(grep -v '^[[:space:]]*$' "$log" | tail -n 1 | tr '\t' ' ' | cut -c1-300)
  [ "$status" = timeout ] && last="no end after $limit s (killed): $last"
  printf '%s\t%s\t%s\t%s\t%s\n' "$name" "$status" "$rc" "$secs" "$last" >>"$out/steps.tsv"
  echo "gpu-check: $name: $status (exit $rc, $secs s)${last:+: $last}" >&2
  [ "$status" = ok ]
}

# The CUDA libraries the binary was linked against but the bundle leaves to the target.
find_cuda_libraries() {
  local dirs=() d lib
  [ -n "${CUDA_HOME:-}" ] && dirs+=("$CUDA_HOME/lib64" "$CUDA_HOME/lib")
  dirs+=(/usr/local/cuda/lib64 /usr/local/cuda/lib /usr/lib/x86_64-linux-gnu)
  while IFS= read -r d; do dirs+=("$d"); done < <(python3 - <<'EOF' 2>/dev/null
import glob, importlib.util, os
for pkg in ("nvidia", "torch"):
    spec = importlib.util.find_spec(pkg)
    for root in (spec.submodule_search_locations or []) if spec else []:
        for lib in sorted(glob.glob(os.path.join(root, "*", "lib")) + [os.path.join(root, "lib")]):
            if os.path.isdir(lib): print(lib)
EOF
)
  local path="$bundle/lib" missing=""
  for lib in $(cat "$bundle/target-libraries"); do
    local found=""
    for d in "${dirs[@]}"; do
      if [ -e "$d/$lib" ]; then found="$d"; break; fi
    done
    if [ -z "$found" ]; then missing="$missing $lib"; continue; fi
    case ":$path:" in *":$found:"*) ;; *) path="$path:$found" ;; esac
    echo "gpu-check: $lib from $found"
  done
  echo "$path" >"$out/library-path"
  if [ -n "$missing" ]; then
    echo "gpu-check: not found on this machine:$missing (looked in ${dirs[*]}); set CUDA_HOME or install them"
    return 1
  fi
}

echo "$bundle/lib" >"$out/library-path"  # the libraries step adds the CUDA folders it finds
if [ "$dry_run" = 1 ]; then
  echo "gpu-check: dry run of $(grep -cv '^#' "$cases") cases of $cases"
elif [ "$has_binary" = 1 ]; then
  step libraries 60 bash -c "$(declare -f find_cuda_libraries); bundle='$bundle' out='$out' find_cuda_libraries"
fi
# Only the bundled binary sees the bundled libraries: Python and PyTorch keep the machine's own (an older
# bundled libz or libudev must not replace theirs).
bin=(env "LD_LIBRARY_PATH=$(cat "$out/library-path")${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" "$bin")
if [ "$has_binary" = 1 ]; then step binary 30 "${bin[@]}" --no-mpi --help; fi
step device 60 bash -c "nvidia-smi -q >'$out/nvidia-smi.txt' && python3 validate/torch/describe_device.py --out '$out/device.json'"

# cases.tsv: kind, name, scenario or model, then kind-specific fields (validate/gpu-cases.tsv says which).
while IFS=$'\t' read -r kind name input a b c d; do
  case "$kind" in
    gemms|run|probe) [ "$has_binary" = 1 ] || { unrunnable "$kind-$name"; continue; } ;;&
    gemms) strategies=()
           [ -n "$a" ] && strategies=(--strategy $a)
           step "gemms-$name" 45 "${bin[@]}" --no-mpi --backend cuda-nccl bench --scenario "$input" --emulate-rank 0 \
             "${strategies[@]}" --min-seconds 0.02 --timeout 60 --out "$out/gemms-$name.json" ;;
    run) step "run-$name" 90 "${bin[@]}" --no-mpi --backend cuda-nccl run "$input" --emulate-rank 0 --strategy $a \
           --iterations "$b" --warmup 1 --timeout 60 --out "$out/run-$name.json" ;;
    torch) trace=() compile=() cap=60
           [ "$d" = trace ] && trace=(--trace "$out/trace-$name.json")
           framework=eager
           case "$name" in *-fsdp2) framework=fsdp2 ;; esac
           case "$name" in *-compile*) compile=(--compile) cap=180 ;; esac
           case "$name" in *-separate*) compile+=(--layout separate) ;; esac
           case "$name" in *-flash*) compile+=(--attention-backend flash) ;; *-cudnn*) compile+=(--attention-backend cudnn) ;; esac
           allocator=()  # torchtitan's launch script sets expandable segments
           case "$name" in *-expandable*) allocator=(PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True) ;; esac
           step "torch-$name" $cap env "${allocator[@]}" python3 validate/torch/step.py --model "$input" --micro-batch "$a" \
             --checkpointing "$b" --layers "$c" --framework $framework "${compile[@]}" "${trace[@]}" \
             --out "$out/torch-$name.json" \
             && [ "$d" = trace ] && [ "$dry_run" = 0 ] && gzip -f "$out/trace-$name.json" ;;
    kernels) step "kernels-$name" 120 python3 validate/torch/kernels.py --model "$input" --micro-batch $a \
               --out "$out/kernels-$name.json" ;;
    probe) step "probe-$name" 30 bash -c "'$bundle/bin/shardscope-$name-probe' >'$out/probe-$name.json'" ;;
    '#'*|'') ;;
    *) echo "gpu-check: cases.tsv: unknown kind '$kind'" >&2 ;;
  esac
done <"$cases"

python3 - "$out" "$budget" "$(( $(date +%s) - start ))" "$bundle/MANIFEST" <<'EOF'
import json, sys
out, budget, elapsed, manifest = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
steps = []
for line in open(f"{out}/steps.tsv", encoding="utf-8"):
    name, status, rc, secs, last = (line.rstrip("\n").split("\t") + [""] * 5)[:5]
    steps.append({"step": name, "status": status, "exit_code": None if rc == "-" else int(rc),
                  "seconds": float(secs), "last_line": last})
doc = {"bundle": open(manifest, encoding="utf-8").read().splitlines()[:3], "budget_seconds": budget,
       "elapsed_seconds": elapsed, "passed": sum(s["status"] in ("ok", "dry-run") for s in steps),
       "steps": steps}
json.dump(doc, open(f"{out}/check.json", "w", encoding="utf-8"), indent=2)
print(f"\ngpu-check: {doc['passed']} of {len(steps)} steps passed in {elapsed} s (budget {budget} s)")
for s in steps:
    print(f"  {s['step']:<28} {s['status']:<8} {s['seconds']:>7.1f} s  {s['last_line'][:90]}")
EOF
grep -qv $'\t\(ok\|dry-run\)\t' "$out/steps.tsv" && exit 1
exit 0
