#!/usr/bin/env bash
# validate/torch/step.py without PyTorch: its model files are read as shardscope reads them (the parameter count
# of every shipped transformer preset equals `shardscope inspect`'s), bad models and options exit 2 naming the
# file and field, and a machine without PyTorch exits 3 saying so.
#   torch_step_test.sh SOURCE_DIR SHARDSCOPE_BINARY
set -u
root=$1 shardscope=$2
step=$root/validate/torch/step.py
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
python3 -c "import yaml" 2>/dev/null || { echo "skipped: PyYAML is not installed"; exit 77; }
kernels=$root/validate/torch/kernels.py
python3 -m py_compile "$step" "$root/validate/torch/step_model.py" "$root/validate/torch/describe_device.py" "$kernels" \
  || fail "a reference script does not compile"

checked=0
for model in "$root"/scenarios/models/*.yaml; do
  name=$(basename "$model" .yaml)
  grep -q '^  stages:' "$model" && continue  # widths by stage: no PyTorch reference (refused below)
  grep -q '^  experts:' "$model" && continue  # mixture of experts: no PyTorch reference (refused below)
  ours=$(python3 "$step" --model "$model" --spec-only | python3 -c "import json,sys; print(json.load(sys.stdin)['parameters'])") \
    || fail "$name: --spec-only failed"
  theirs=$("$shardscope" inspect "$root/scenarios/default.yaml" --model "$name" --json \
    | python3 -c "import json,sys; print(json.load(sys.stdin)['model']['parameters'])") || fail "$name: inspect failed"
  [ "$ours" = "$theirs" ] || fail "$name: step.py builds $ours parameters, shardscope counts $theirs"
  checked=$((checked + 1))
done
[ "$checked" -ge 8 ] || fail "only $checked models checked"
echo "parameters: step.py and shardscope agree on $checked models"

expect_of() {  # SCRIPT CODE TEXT ARGS...
  local script=$1 code=$2 want=$3; shift 3
  local msg; msg=$(python3 "$script" "$@" 2>&1)
  local status=$?
  [ "$status" = "$code" ] || fail "$(basename "$script") $*: exit $status, expected $code ($msg)"
  case "$msg" in *"$want"*) ;; *) fail "$(basename "$script") $*: said: $msg" ;; esac
}
expect() { expect_of "$step" "$@"; }
m=$tmp/m.yaml
printf 'name: x\ntransformer: {layers: 2, hidden: 64, heads: 4, vocab: 100}\n' >"$m"
expect 2 "$m: transformer.sequence_length: missing" --model "$m" --spec-only
printf 'name: x\ntransformer: {layers: 2, hidden: 64, heads: 4, vocab: 100, sequence_length: -3}\n' >"$m"
expect 2 "$m: transformer.sequence_length: expected a positive integer, got -3" --model "$m" --spec-only
printf 'name: x\ntransformer: {layers: 2, hidden: 64, heads: 4, vocab: 100, sequence_length: 8, mlp: relu}\n' >"$m"
expect 2 "$m: transformer.mlp: expected one of gelu, gated, got 'relu'" --model "$m" --spec-only
printf 'name: x\ntransformer: {layers: 2, hidden: 64, heads: 4, vocab: 100, sequence_length: 8, rope: yes}\n' >"$m"
expect 2 "$m: transformer.rope: not supported by the PyTorch reference" --model "$m" --spec-only
printf 'name: x\ntransformer: {layers: 2, hidden: 64, heads: 4, kv_heads: 3, vocab: 100, sequence_length: 8}\n' >"$m"
expect 2 "$m: transformer.kv_heads: 3 does not divide heads 4" --model "$m" --spec-only
printf 'name: x\ntransformer: {layers: 2, hidden: 64, heads: 4, vocab: 100, sequence_length: 8, experts: 8}\n' >"$m"
expect 2 "$m: transformer.experts: mixture-of-experts layers have no PyTorch reference yet" --model "$m" --spec-only
printf 'name: x\noperators: []\n' >"$m"
expect 2 "$m: transformer: expected a mapping" --model "$m" --spec-only
printf 'name: [x\n' >"$m"
expect 2 "$m: not YAML" --model "$m" --spec-only
expect 2 "$tmp/none.yaml: cannot read" --model "$tmp/none.yaml" --spec-only
expect 2 "transformer.stages: a model whose width changes" --model "$root/scenarios/models/ic-24.yaml" --spec-only
expect 2 "transformer.experts: mixture-of-experts layers have no PyTorch reference yet" \
  --model "$root/scenarios/models/mixtral-8x7b.yaml" --spec-only
expect 2 "--layers: 40 is more than the model's 32 blocks" --model "$root/scenarios/models/llama-7b.yaml" --layers 40 --spec-only
expect 2 "--micro-batch: expected a positive integer" --model "$root/scenarios/models/llama-7b.yaml" --micro-batch 0
expect 2 "--checkpointing: invalid choice: 'selective'" --model "$root/scenarios/models/llama-7b.yaml" --checkpointing selective
expect_of "$kernels" 2 "$m: not YAML" --model "$m"
expect_of "$kernels" 2 "--micro-batch: expected positive integers" --model "$root/scenarios/models/llama-7b.yaml" --micro-batch 1 0
expect_of "$kernels" 2 "--peak-tflops, --hbm-gbps, --min-seconds: expected positive numbers" \
  --model "$root/scenarios/models/llama-7b.yaml" --peak-tflops 0
echo "bad models and options: exit 2 naming the file and field"

if python3 -c "import torch" 2>/dev/null; then
  echo "PyTorch is installed here: the no-PyTorch exit is left out"
else
  expect 3 "PyTorch is not installed here" --model "$root/scenarios/models/llama-7b.yaml" --layers 1
  expect_of "$kernels" 3 "PyTorch is not installed here" --model "$root/scenarios/models/llama3.1-8b.yaml"
  echo "no PyTorch: exit 3 saying so"
fi
