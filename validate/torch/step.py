#!/usr/bin/env python3
"""One training step of a shardscope transformer on one GPU in PyTorch (bf16 autocast, AdamW): the reference.

Reads a model YAML of scenarios/models/ (the fields of shardscope's transformer spec, with its defaults),
builds the same decoder from torch primitives and times warm-up + measured steps of one micro-batch with
CUDA events: each block's forward and backward, the head and loss, the optimizer, the whole step; records
torch.cuda's allocated and reserved peaks, and optionally one step under torch.profiler (a Chrome trace with
input shapes, the fixture `shardscope calibrate --torch-trace` reads). Without torch or a GPU it says so and
exits 3; `--spec-only` prints the resolved spec and the analytic parameter count without importing torch.

    python3 validate/torch/step.py --model scenarios/models/nd-48x1536.yaml --micro-batch 8 --out nd.json
"""
import argparse
import json
import math
import statistics
import sys

EXIT_BAD_INPUT = 2
EXIT_NO_DEVICE = 3

# shardscope's TransformerSpec defaults (planner/core/transformer.hpp), applied to a model YAML's
# `transformer:` block.
SPEC_DEFAULTS = {
    "kv_heads": 0, "head_dim": 0, "ffn_hidden": 0, "max_positions": 0, "mlp": "gelu", "norm": "layernorm",
    "positions": "learned", "attention_bias": True, "mlp_bias": True, "tied_embeddings": True,
    "parallel_residual": False, "experts": 0, "experts_per_token": 0, "flash_attention": True, "dropout": True,
    "dtype": "bf16",
}
SPEC_REQUIRED = ("layers", "hidden", "heads", "vocab", "sequence_length")
SPEC_CHOICES = {"mlp": ("gelu", "gated"), "norm": ("layernorm", "rmsnorm"), "positions": ("learned", "rotary")}
DROPOUT_P = 0.1


class InputError(Exception):
    pass


def read_yaml(path):
    try:
        import yaml
    except ImportError as e:
        raise InputError(f"{path}: PyYAML is needed to read model files ({e})")
    try:
        with open(path, encoding="utf-8") as f:
            return yaml.safe_load(f)
    except OSError as e:
        raise InputError(f"{path}: cannot read: {e.strerror}")
    except yaml.YAMLError as e:
        raise InputError(f"{path}: not YAML: {e}")


def resolve_spec(doc, path):
    """The transformer spec of a model document with shardscope's defaults; InputError names the field."""
    if not isinstance(doc, dict) or not isinstance(doc.get("transformer"), dict):
        raise InputError(f"{path}: transformer: expected a mapping of the model's shapes "
                         "(a model given as an operator list has no PyTorch reference)")
    t = doc["transformer"]
    if "stages" in t or "layer_hidden" in t:
        raise InputError(f"{path}: transformer.{'stages' if 'stages' in t else 'layer_hidden'}: a model whose width "
                         "changes from layer to layer has no PyTorch reference (one hidden size only)")
    spec = dict(SPEC_DEFAULTS)
    spec["name"] = str(doc.get("name", path))
    for key in SPEC_REQUIRED:
        if key not in t:
            raise InputError(f"{path}: transformer.{key}: missing (expected a positive integer)")
    known = set(SPEC_DEFAULTS) | set(SPEC_REQUIRED)
    for key, value in t.items():
        if key not in known:
            raise InputError(f"{path}: transformer.{key}: not supported by the PyTorch reference "
                             f"(supported: {', '.join(sorted(known))})")
        spec[key] = value
    for key in SPEC_REQUIRED + ("kv_heads", "head_dim", "ffn_hidden", "max_positions", "experts"):
        v = spec[key]
        if not isinstance(v, int) or isinstance(v, bool) or v < (1 if key in SPEC_REQUIRED else 0):
            raise InputError(f"{path}: transformer.{key}: expected a {'positive' if key in SPEC_REQUIRED else 'non-negative'} integer, got {v!r}")
    for key, choices in SPEC_CHOICES.items():
        if spec[key] not in choices:
            raise InputError(f"{path}: transformer.{key}: expected one of {', '.join(choices)}, got {spec[key]!r}")
    if spec["experts"] > 0:
        raise InputError(f"{path}: transformer.experts: mixture-of-experts layers have no PyTorch reference yet")
    if spec["parallel_residual"]:
        raise InputError(f"{path}: transformer.parallel_residual: not supported by the PyTorch reference")
    spec["kv_heads"] = spec["kv_heads"] or spec["heads"]
    spec["head_dim"] = spec["head_dim"] or spec["hidden"] // spec["heads"]
    spec["ffn_hidden"] = spec["ffn_hidden"] or 4 * spec["hidden"]
    spec["max_positions"] = spec["max_positions"] or spec["sequence_length"]
    if spec["heads"] % spec["kv_heads"]:
        raise InputError(f"{path}: transformer.kv_heads: {spec['kv_heads']} does not divide heads {spec['heads']}")
    return spec


def parameter_count(spec, layers=None):
    """The parameters of the decoder build_model makes (no torch needed), `layers` blocks of it."""
    h, f, v = spec["hidden"], spec["ffn_hidden"], spec["vocab"]
    q = spec["heads"] * spec["head_dim"]
    kv = spec["kv_heads"] * spec["head_dim"]
    norm = h if spec["norm"] == "rmsnorm" else 2 * h
    attention = h * (q + 2 * kv) + q * h + ((q + 2 * kv) + h if spec["attention_bias"] else 0)
    if spec["mlp"] == "gated":
        mlp = 3 * h * f + ((2 * f + h) if spec["mlp_bias"] else 0)
    else:
        mlp = 2 * h * f + ((f + h) if spec["mlp_bias"] else 0)
    block = 2 * norm + attention + mlp
    n = spec["layers"] if layers is None else layers
    embed = v * h + (spec["max_positions"] * h if spec["positions"] == "learned" else 0)
    head = 0 if spec["tied_embeddings"] else v * h
    return embed + n * block + norm + head


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--model", required=True, help="model YAML (scenarios/models/*.yaml)")
    p.add_argument("--micro-batch", type=int, default=1, help="samples per step")
    p.add_argument("--layers", type=int, default=0, help="blocks to build (default: the model's)")
    p.add_argument("--checkpointing", choices=("none", "full", "selective-op"), default="none",
                   help="full: every block recomputed in backward (torch.utils.checkpoint); selective-op: "
                        "torchtitan's op-level policy (attention's and every other product's output kept)")
    p.add_argument("--layout", choices=("fused", "separate"), default="fused",
                   help="fused: one product for Q, K and V and one for a gated MLP's gate and up; separate: "
                        "torchtitan's Llama layout, each its own product (same parameters)")
    p.add_argument("--attention-backend", choices=("default", "flash", "cudnn"), default="default",
                   help="scaled_dot_product_attention's back end (default: PyTorch's choice)")
    p.add_argument("--compile", action="store_true",
                   help="torch.compile each block (after checkpointing, before FSDP2), as torchtitan does")
    p.add_argument("--framework", choices=("eager", "fsdp2"), default="eager",
                   help="eager: fp32 parameters under bf16 autocast; fsdp2: every block and the root under "
                        "fully_shard on a one-rank NCCL group, bf16 compute parameters (MixedPrecisionPolicy), "
                        "fp32 sharded parameters, gradients and optimizer state")
    p.add_argument("--warmup", type=int, default=2, help="untimed steps")
    p.add_argument("--steps", type=int, default=5, help="timed steps")
    p.add_argument("--trace", default="", help="also profile one step into this Chrome trace (.json or .json.gz)")
    p.add_argument("--seed", type=int, default=1234)
    p.add_argument("--out", default="-", help="result JSON (- for standard output)")
    p.add_argument("--spec-only", action="store_true", help="print the resolved spec and parameter count; no torch")
    a = p.parse_args(argv)
    for name in ("micro_batch", "steps"):
        if getattr(a, name) < 1:
            p.error(f"--{name.replace('_', '-')}: expected a positive integer, got {getattr(a, name)}")
    if a.layers < 0 or a.warmup < 0:
        p.error("--layers and --warmup: expected non-negative integers")
    return a


def cuda_torch(program):
    """PyTorch with a CUDA device, or None after saying on stderr which of the two is missing."""
    try:
        import torch
    except ImportError as e:
        print(f"{program}: error: PyTorch is not installed here ({e})", file=sys.stderr)
        return None
    if not torch.cuda.is_available():
        print(f"{program}: error: no CUDA device (torch.cuda.is_available() is False)", file=sys.stderr)
        return None
    return torch


def write_json(path, doc):
    text = json.dumps(doc, indent=2, sort_keys=False) + "\n"
    if path == "-":
        sys.stdout.write(text)
    else:
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)


def main(argv):
    a = parse_args(argv)
    try:
        spec = resolve_spec(read_yaml(a.model), a.model)
        if a.layers > spec["layers"]:
            raise InputError(f"--layers: {a.layers} is more than the model's {spec['layers']} blocks")
    except InputError as e:
        print(f"step.py: error: {e}", file=sys.stderr)
        return EXIT_BAD_INPUT
    layers = a.layers or spec["layers"]
    spec["separate_products"] = a.layout == "separate"
    spec["attention_backend"] = a.attention_backend
    if a.spec_only:
        write_json(a.out, {"spec": spec, "layers_run": layers, "parameters": parameter_count(spec, layers),
                           "parameters_full_model": parameter_count(spec)})
        return 0
    if cuda_torch("step.py") is None:
        return EXIT_NO_DEVICE
    from step_model import run_case
    result = run_case(spec, layers, a)
    result["parameters_expected"] = parameter_count(spec, layers)
    write_json(a.out, result)
    if "error" in result:
        print(f"step.py: error: {result['error']}", file=sys.stderr)
        return 4
    mem = result["memory"]
    print(f"step.py: {spec['name']} x{layers} micro-batch {a.micro_batch} checkpointing {a.checkpointing} {a.framework}"
          f"{' compiled' if a.compile else ''}: "
          f"step {result['step_seconds_median'] * 1e3:.2f} ms, max allocated {mem['max_allocated_bytes'] / 2**30:.2f} GiB, "
          f"max reserved {mem['max_reserved_bytes'] / 2**30:.2f} GiB", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
