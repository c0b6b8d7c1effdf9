#!/usr/bin/env bash
# scripts/gpu-bundle.sh and scripts/gpu-check.sh up to the GPU calls: the bundle is complete (every library the
# binary loads is bundled, left to the target's CUDA, or a C/C++ runtime) and under 64 MiB; a dry run lists
# every case; a run without a GPU (a fake nvidia-smi on PATH) records each GPU step as failed with its reason
# and ends; a hanging step is killed at its timeout; a spent budget skips; bad arguments exit 2.
#   gpu_check_test.sh SOURCE_DIR BUILD_DIR
set -u
root=$1 build=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
check=$root/scripts/gpu-check.sh

# --- the bundle
"$root/scripts/gpu-bundle.sh" --build "$build" --out "$tmp/bundle" >"$tmp/bundle.log" 2>&1 \
  || fail "gpu-bundle.sh failed: $(cat "$tmp/bundle.log")"
bytes=$(du -sb "$tmp/bundle" | cut -f1)
[ "$bytes" -le $((64 * 1024 * 1024)) ] || fail "the bundle is $bytes bytes, over 64 MiB"
for f in bin/shardscope-validate bin/shardscope-pool-probe cases.tsv MANIFEST target-libraries validate/torch/step.py scripts/gpu-check.sh; do
  [ -e "$tmp/bundle/$f" ] || fail "the bundle lacks $f"
done
[ "$(sort "$tmp/bundle/target-libraries" | tr '\n' ' ')" = "libcublas.so.13 libcublasLt.so.13 libcudart.so.13 libnccl.so.2 " ] \
  || fail "target-libraries: $(tr '\n' ' ' <"$tmp/bundle/target-libraries")"
# Every DT_NEEDED of the binary and of the bundled libraries, followed through the bundle.
runtime='^(ld-linux-x86-64|libc|libm|libdl|libpthread|librt|libresolv|libstdc\+\+|libgcc_s)\.so'
needed() { readelf -d "$1" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'; }
for f in "$tmp/bundle"/bin/* "$tmp/bundle"/lib/*; do
  for lib in $(needed "$f"); do
    [[ "$lib" =~ $runtime ]] && continue
    grep -qx "$lib" "$tmp/bundle/target-libraries" && continue
    [ -e "$tmp/bundle/lib/$lib" ] || fail "$(basename "$f") needs $lib, which is neither bundled nor left to the target"
  done
done
echo "bundle: $((bytes / 1024)) KiB, complete"

# --- a dry run lists every case of the case file
"$check" --bundle "$tmp/bundle" --out "$tmp/dry" --dry-run >"$tmp/dry.log" 2>&1 || fail "dry run: $(cat "$tmp/dry.log")"
cases=$(grep -cv '^#' "$tmp/bundle/cases.tsv")
rows=$(grep -c $'\tdry-run\t' "$tmp/dry/steps.tsv")
[ "$rows" = $((cases + 2)) ] || fail "dry run: $rows steps for $cases cases (+ binary, device)"
python3 -c "import json,sys; d=json.load(open('$tmp/dry/check.json')); sys.exit(d['passed'] != len(d['steps']))" \
  || fail "dry run: check.json does not pass every step"
echo "dry run: $rows steps"

# --- without a GPU: each GPU step fails with its reason, the rest still run, exit 1
if nvidia-smi -L >/dev/null 2>&1; then
  echo "a real GPU is here: the no-GPU run is left out"
else
  mkdir -p "$tmp/fake"
  printf '#!/bin/sh\necho "GPU 0: Fake GPU (UUID: GPU-0)"\n' >"$tmp/fake/nvidia-smi"
  chmod +x "$tmp/fake/nvidia-smi"
  start=$(date +%s)
  PATH="$tmp/fake:$PATH" "$check" --bundle "$tmp/bundle" --out "$tmp/nogpu" --budget 300 >"$tmp/nogpu.log" 2>&1
  status=$?
  [ "$status" = 1 ] || fail "no GPU: exit $status, expected 1: $(tail -5 "$tmp/nogpu.log")"
  [ $(( $(date +%s) - start )) -lt 200 ] || fail "no GPU: the run took over 200 s"
  grep -q $'^libraries\tok' "$tmp/nogpu/steps.tsv" || fail "no GPU: the libraries step failed: $(grep ^libraries "$tmp/nogpu/steps.tsv")"
  grep -q $'^binary\tok' "$tmp/nogpu/steps.tsv" || fail "no GPU: the bundled binary did not start"
  while IFS=$'\t' read -r name status rc secs last; do
    case "$name" in
      gemms-*|run-*|probe-*)
        [ "$status" = failed ] && [ "$rc" = 4 ] || fail "no GPU: $name: $status exit $rc"
        case "$last" in *"no CUDA device"*) ;; *) fail "no GPU: $name said: $last" ;; esac ;;
      torch-*|device)
        [ "$status" = failed ] || fail "no GPU: $name: $status"
        case "$last" in *"PyTorch is not installed"*|*"no CUDA device"*) ;; *) fail "no GPU: $name said: $last" ;; esac ;;
    esac
  done <"$tmp/nogpu/steps.tsv"
  echo "no GPU: every GPU step failed with its reason"
fi

# --- a hanging step is killed at its timeout; a spent budget skips the rest
cp -r "$tmp/bundle" "$tmp/hang"
printf '#!/bin/sh\nsleep 60\n' >"$tmp/hang/bin/shardscope-validate"
printf 'gemms\thang\tscenarios/default.yaml\n' >"$tmp/hang/cases.tsv"
start=$(date +%s)
"$check" --bundle "$tmp/hang" --out "$tmp/hung" --step-timeout 2 --budget 100 >"$tmp/hung.log" 2>&1
[ $? = 1 ] || fail "a hanging step: not exit 1"
[ $(( $(date +%s) - start )) -lt 40 ] || fail "a hanging step was not killed in time"
grep -q $'^gemms-hang\ttimeout\t' "$tmp/hung/steps.tsv" || fail "a hanging step: $(cat "$tmp/hung/steps.tsv")"
grep -q 'no end after 2 s (killed)' "$tmp/hung/steps.tsv" || fail "a hanging step's reason is not given"
"$check" --bundle "$tmp/hang" --out "$tmp/spent" --budget 0 >/dev/null 2>&1
[ $? = 1 ] || fail "a spent budget: not exit 1"
grep -q $'^gemms-hang\tskipped\t.*budget is spent' "$tmp/spent/steps.tsv" || fail "a spent budget: $(cat "$tmp/spent/steps.tsv")"
echo "timeouts: a hanging step is killed, a spent budget skips"

# --- a torch-only bundle: no build needed, no binary; cases that need it are skipped with the reason
"$root/scripts/gpu-bundle.sh" --torch-only --out "$tmp/torch" >"$tmp/torch.log" 2>&1 \
  || fail "gpu-bundle.sh --torch-only failed: $(cat "$tmp/torch.log")"
[ ! -e "$tmp/torch/bin/shardscope-validate" ] || fail "a torch-only bundle holds the binary"
[ -e "$tmp/torch/validate/torch/kernels.py" ] || fail "a torch-only bundle lacks kernels.py"
grep -q '^torch only: no shardscope-validate' "$tmp/torch/MANIFEST" || fail "MANIFEST: $(head -3 "$tmp/torch/MANIFEST")"
printf 'gemms	g	scenarios/default.yaml
kernels	k	scenarios/models/llama-7b.yaml	1 2
' >"$tmp/torch/cases.tsv"
"$check" --bundle "$tmp/torch" --out "$tmp/torch-dry" --dry-run >"$tmp/torch-dry.log" 2>&1
grep -q $'^gemms-g	skipped	.*no shardscope-validate' "$tmp/torch-dry/steps.tsv" \
  || fail "torch-only: the gemms case: $(cat "$tmp/torch-dry/steps.tsv")"
grep -q 'kernels.py --model scenarios/models/llama-7b.yaml --micro-batch 1 2 --out' "$tmp/torch-dry.log" \
  || fail "torch-only: the kernels case: $(cat "$tmp/torch-dry.log")"
grep -q $'^binary	' "$tmp/torch-dry/steps.tsv" && fail "torch-only: the binary step ran"
echo "torch-only bundle: the binary's cases skipped, kernels run"

# --- bad arguments and bundles: exit 2 with a reason
expect2() {
  local want="$1"; shift
  local msg; msg=$("$@" 2>&1) && fail "accepted: $*"
  local status=$?
  [ "$status" = 2 ] || fail "'$*' exited $status, expected 2"
  case "$msg" in *"$want"*) ;; *) fail "'$*' said: $msg" ;; esac
}
expect2 "usage:" "$check"
expect2 "usage:" "$check" --bundle "$tmp/bundle"
expect2 "no such folder" "$check" --bundle "$tmp/none" --out "$tmp/x"
expect2 "--budget: expected whole seconds" "$check" --bundle "$tmp/bundle" --out "$tmp/x" --budget ten
expect2 "--step-timeout: expected whole seconds" "$check" --bundle "$tmp/bundle" --out "$tmp/x" --step-timeout -1
expect2 "unknown argument" "$check" --bundle "$tmp/bundle" --out "$tmp/x" --fast
cp -r "$tmp/bundle" "$tmp/partial" && rm "$tmp/partial/cases.tsv"
expect2 "cases.tsv: missing from the bundle" "$check" --bundle "$tmp/partial" --out "$tmp/x"
msg=$("$root/scripts/gpu-bundle.sh" --build "$tmp/no-build" --out "$tmp/b2" 2>&1) && fail "a bundle without a build"
case "$msg" in *"not built"*) ;; *) fail "a bundle without a build said: $msg" ;; esac
echo "bad arguments: exit 2 with the reason"
