#!/usr/bin/env bash
# Regenerates docs/figures/ (docs/reproducing-papers.md): runs the OSDP and PaRO grids of
# scenarios/sweeps/, merges each into a CSV and draws the SVG figures from the CSVs. Needs a build with Qt 6
# (for shardscope-plot beside shardscope) and SimGrid (every point is also simulated, NCCL's collectives
# included); about a minute on two cores. The same build gives the same bytes: the CSVs hold no times or revisions, and the plots are
# deterministic. SHARDSCOPE=path/to/shardscope picks another build; JOBS=N the points run at once.
set -euo pipefail
cd "$(dirname "$0")/.."
shardscope=${SHARDSCOPE:-build/default/apps/shardscope/shardscope}
jobs=${JOBS:-2}
figures=docs/figures
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$figures"

# Sweeps: plan and simulate every point; merge into one CSV per grid.
"$shardscope" sweep scenarios/sweeps/osdp-8gpu.yaml --simulate --jobs "$jobs" --quiet --out "$work/osdp-8gpu.jsonl"
"$shardscope" sweep scenarios/sweeps/osdp-16gpu.yaml --simulate --jobs "$jobs" --quiet --out "$work/osdp-16gpu.jsonl"
"$shardscope" sweep scenarios/sweeps/osdp-8gpu-tp.yaml --simulate --jobs "$jobs" --quiet --out "$work/osdp-8gpu-tp.jsonl"
"$shardscope" sweep scenarios/sweeps/osdp-16gpu-tp.yaml --simulate --jobs "$jobs" --quiet --out "$work/osdp-16gpu-tp.jsonl"
"$shardscope" sweep scenarios/sweeps/paro-llama-7b.yaml --simulate --jobs "$jobs" --quiet --out "$work/paro-llama-7b.jsonl"
"$shardscope" sweep scenarios/sweeps/paro-llama-7b-memory.yaml --simulate --jobs "$jobs" --quiet --out "$work/paro-llama-7b-memory.jsonl"
"$shardscope" sweep scenarios/sweeps/paro-llama-65b.yaml --simulate --jobs "$jobs" --quiet --out "$work/paro-llama-65b.jsonl"
for grid in osdp-8gpu osdp-16gpu osdp-8gpu-tp osdp-16gpu-tp paro-llama-7b paro-llama-7b-memory paro-llama-65b; do
  "$shardscope" merge "$work/$grid.jsonl" --grid "scenarios/sweeps/$grid.yaml" --csv "$figures/$grid.csv"
done

# OSDP Figures 5 and 6: throughput of DP, FSDP, OSDP-base and OSDP per model, one figure per memory limit.
for gpus in 8 16; do
  for limit in 8GB 16GB; do
    "$shardscope" plot "$figures/osdp-${gpus}gpu.csv" --x model --y samples_per_second \
      --where "training.memory_limit=$limit" --strategies ddp,fsdp,osdp-no-split,osdp --width 1000 \
      --title "OSDP, $gpus GPUs, $limit per GPU: predicted samples/s (n/a: does not fit)" \
      --out "$figures/osdp-${gpus}gpu-${limit,,}.svg"
  done
done

# OSDP against the best pure strategy, tensor parallelism included (docs/reproducing-papers.md's table).
python3 scripts/osdp-pure-table.py "$figures" > "$figures/osdp-pure-strategies.md"

# PaRO: speed-up over FSDP (ZeRO-3) against the GPU count (8 GPUs per node), each strategy at its best
# micro-batch and all at micro-batch 1; peak memory per GPU at one fixed micro-batch (its Table 2); LLaMA-65B throughput.
"$shardscope" plot "$figures/paro-llama-7b.csv" --x cluster.nodes --y speedup_over_fsdp \
  --title "PaRO, LLaMA-7B, best micro-batch each: predicted speed-up over FSDP against DGX-A100 nodes" \
  --out "$figures/paro-llama-7b-speedup.svg"
"$shardscope" plot "$figures/paro-llama-7b-memory.csv" --x cluster.nodes --y speedup_over_fsdp \
  --title "PaRO, LLaMA-7B, micro-batch 1: predicted speed-up over FSDP against DGX-A100 nodes" \
  --out "$figures/paro-llama-7b-speedup-mb1.svg"
"$shardscope" plot "$figures/paro-llama-7b-memory.csv" --x cluster.nodes --y peak_memory_bytes --kind bar \
  --width 1000 --title "PaRO, LLaMA-7B, micro-batch 1: predicted peak memory per GPU against DGX-A100 nodes" \
  --out "$figures/paro-llama-7b-memory.svg"
"$shardscope" plot "$figures/paro-llama-65b.csv" --x cluster.nodes --y samples_per_second --kind bar --width 1000 \
  --title "PaRO, LLaMA-65B: predicted samples/s against DGX-A100 nodes (8 GPUs each; n/a: does not fit)" \
  --out "$figures/paro-llama-65b-throughput.svg"
