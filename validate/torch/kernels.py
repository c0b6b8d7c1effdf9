#!/usr/bin/env python3
"""The kernel efficiencies of one GPU at a model's shapes: what a cluster's `gpu.kernels` block stands for.

For a model YAML of scenarios/models/ and its micro-batches, times on this GPU (CUDA events, operands random,
never zeros): every matrix product of one block and of the head (forward, data gradient, weight gradient) in
bf16 and, where the GPU has it, the forward products in fp8 (torch._scaled_mm, one scale per tensor);
causal attention through each scaled_dot_product_attention back end, forward and backward, with key/value
heads repeated (as step.py builds it) and grouped (enable_gqa); the block's element-wise kernels (RMSNorm or
LayerNorm, the MLP's activation, the residual add, rotary positions, the loss's cross-entropy on fp32
logits) by bytes moved; a device copy; the host time to launch one small kernel. Each entry states its
FLOPs or bytes, seconds and rate, and the fraction of --peak-tflops or --hbm-gbps it reached.

    python3 validate/torch/kernels.py --model scenarios/models/llama3.1-8b.yaml --micro-batch 1 2 --out k.json
"""
import argparse
import json
import statistics
import sys

from step import EXIT_BAD_INPUT, EXIT_NO_DEVICE, InputError, cuda_torch, read_yaml, resolve_spec, write_json

CAUSAL_SHARE = 0.5        # flash attention skips the masked half of the scores
ATTENTION_BACKWARD = 2.5  # its backward's FLOPs over the forward's (FlashAttention-2, Dao 2023, section 3)


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--model", required=True, help="model YAML (scenarios/models/*.yaml)")
    p.add_argument("--micro-batch", type=int, nargs="+", default=[1], help="samples per pass (one or more)")
    p.add_argument("--peak-tflops", type=float, default=989.0, help="dense bf16 peak the fractions divide by")
    p.add_argument("--hbm-gbps", type=float, default=3350.0, help="memory bandwidth the fractions divide by")
    p.add_argument("--min-seconds", type=float, default=0.05, help="timed repetitions last at least this long")
    p.add_argument("--out", default="-", help="result JSON (- for standard output)")
    a = p.parse_args(argv)
    if any(m < 1 for m in a.micro_batch):
        p.error("--micro-batch: expected positive integers")
    if a.peak_tflops <= 0 or a.hbm_gbps <= 0 or a.min_seconds <= 0:
        p.error("--peak-tflops, --hbm-gbps, --min-seconds: expected positive numbers")
    return a


def timed(torch, fn, min_seconds):
    """Median seconds of one call of fn over three trials, each repeating it for at least min_seconds."""
    for _ in range(3):
        fn()
    torch.cuda.synchronize()
    start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    fn()
    stop.record()
    torch.cuda.synchronize()
    once = max(start.elapsed_time(stop) / 1e3, 1e-6)
    reps = max(1, min(1000, int(min_seconds / once)))
    trials = []
    for _ in range(3):
        start.record()
        for _ in range(reps):
            fn()
        stop.record()
        torch.cuda.synchronize()
        trials.append(start.elapsed_time(stop) / 1e3 / reps)
    return statistics.median(trials)


def block_products(spec):
    """(name, K, N) of each product of one block and the head: y[T, N] = x[T, K] @ w[K, N]."""
    h, f, v = spec["hidden"], spec["ffn_hidden"], spec["vocab"]
    q, kv = spec["heads"] * spec["head_dim"], spec["kv_heads"] * spec["head_dim"]
    up = 2 * f if spec["mlp"] == "gated" else f
    return [("qkv", h, q + 2 * kv), ("attention_out", q, h), ("mlp_up", h, up), ("mlp_down", f, h),
            ("head", h, v)]


def products(torch, spec, tokens, a):
    out = []
    for name, k, n in block_products(spec):
        x = torch.randn(tokens, k, device="cuda", dtype=torch.bfloat16)
        w = torch.randn(k, n, device="cuda", dtype=torch.bfloat16)
        dy = torch.randn(tokens, n, device="cuda", dtype=torch.bfloat16)
        cases = (("forward", lambda: x @ w), ("data_gradient", lambda: dy @ w.t()),
                 ("weight_gradient", lambda: x.t() @ dy))
        for role, fn in cases:
            flops = 2.0 * tokens * k * n
            s = timed(torch, fn, a.min_seconds)
            out.append({"product": name, "role": role, "tokens": tokens, "k": k, "n": n, "flops": flops,
                        "seconds": s, "tflops": flops / s / 1e12, "fraction_of_peak": flops / s / 1e12 / a.peak_tflops})
        del x, w, dy
    return out


def fp8_products(torch, spec, tokens, a):
    """Forward products in float8 e4m3 with one scale per tensor, bf16 out (Float8 training's forward)."""
    if not hasattr(torch, "_scaled_mm") or not hasattr(torch, "float8_e4m3fn"):
        return {"skipped": "this PyTorch has no torch._scaled_mm or float8_e4m3fn"}
    out = []
    one = torch.ones((), device="cuda", dtype=torch.float32)
    for name, k, n in block_products(spec):
        x = torch.randn(tokens, k, device="cuda", dtype=torch.bfloat16).to(torch.float8_e4m3fn)
        w = torch.randn(n, k, device="cuda", dtype=torch.bfloat16).to(torch.float8_e4m3fn)
        try:
            fn = lambda: torch._scaled_mm(x, w.t(), scale_a=one, scale_b=one, out_dtype=torch.bfloat16)  # noqa: E731
            s = timed(torch, fn, a.min_seconds)
        except RuntimeError as e:
            return {"skipped": f"torch._scaled_mm failed: {str(e).splitlines()[0]}"}
        flops = 2.0 * tokens * k * n
        out.append({"product": name, "role": "forward", "tokens": tokens, "k": k, "n": n, "flops": flops,
                    "seconds": s, "tflops": flops / s / 1e12, "fraction_of_bf16_peak": flops / s / 1e12 / a.peak_tflops})
        del x, w
    return out


def attention(torch, spec, batch, a):
    import torch.nn.functional as F
    from torch.nn.attention import SDPBackend, sdpa_kernel
    h, kvh, d, s = spec["heads"], spec["kv_heads"], spec["head_dim"], spec["sequence_length"]
    q = torch.randn(batch, h, s, d, device="cuda", dtype=torch.bfloat16, requires_grad=True)
    k = torch.randn(batch, kvh, s, d, device="cuda", dtype=torch.bfloat16, requires_grad=True)
    v = torch.randn(batch, kvh, s, d, device="cuda", dtype=torch.bfloat16, requires_grad=True)
    grad = torch.randn(batch, h, s, d, device="cuda", dtype=torch.bfloat16)
    forward_flops = 4.0 * batch * h * s * s * d * CAUSAL_SHARE
    out = []
    backends = [(n, getattr(SDPBackend, n)) for n in ("FLASH_ATTENTION", "CUDNN_ATTENTION", "EFFICIENT_ATTENTION")
                if hasattr(SDPBackend, n)]
    for layout in ("repeated", "grouped") if kvh != h else ("repeated",):
        def run(backward):
            with sdpa_kernel([backend]):
                if layout == "repeated":
                    kk, vv = k.repeat_interleave(h // kvh, dim=1), v.repeat_interleave(h // kvh, dim=1)
                    y = F.scaled_dot_product_attention(q, kk, vv, is_causal=True)
                else:
                    y = F.scaled_dot_product_attention(q, k, v, is_causal=True, enable_gqa=True)
                if backward:
                    y.backward(grad)
        for name, backend in backends:
            entry = {"backend": name.lower(), "layout": layout, "batch": batch, "heads": h, "kv_heads": kvh,
                     "head_dim": d, "sequence": s, "forward_flops": forward_flops}
            try:
                fwd = timed(torch, lambda: run(False), a.min_seconds)
                both = timed(torch, lambda: run(True), a.min_seconds)
            except RuntimeError as e:
                entry["skipped"] = str(e).splitlines()[0][:200]
                out.append(entry)
                continue
            bwd = max(both - fwd, 1e-9)
            entry.update({"forward_seconds": fwd, "backward_seconds": bwd,
                          "forward_fraction_of_peak": forward_flops / fwd / 1e12 / a.peak_tflops,
                          "backward_fraction_of_peak": ATTENTION_BACKWARD * forward_flops / bwd / 1e12 / a.peak_tflops})
            out.append(entry)
    return out


def elementwise(torch, spec, tokens, a):
    """Each kernel with the bytes it must move at least (bf16 activations, fp32 logits for the loss)."""
    import torch.nn.functional as F
    h, f, v = spec["hidden"], spec["ffn_hidden"], spec["vocab"]
    x = torch.randn(tokens, h, device="cuda", dtype=torch.bfloat16, requires_grad=True)
    y = torch.randn(tokens, h, device="cuda", dtype=torch.bfloat16)
    weight = torch.ones(h, device="cuda", dtype=torch.bfloat16, requires_grad=True)
    gate = torch.randn(tokens, f, device="cuda", dtype=torch.bfloat16, requires_grad=True)
    up = torch.randn(tokens, f, device="cuda", dtype=torch.bfloat16, requires_grad=True)
    logits = torch.randn(tokens, v, device="cuda", dtype=torch.bfloat16, requires_grad=True)
    targets = torch.randint(0, v, (tokens,), device="cuda")
    norm = (lambda t: F.rms_norm(t, (h,), weight)) if spec["norm"] == "rmsnorm" else (lambda t: F.layer_norm(t, (h,), weight))
    act = (lambda: F.silu(gate) * up) if spec["mlp"] == "gated" else (lambda: F.gelu(gate))
    act_inputs = 2 if spec["mlp"] == "gated" else 1
    g_h, g_f = torch.randn_like(y), torch.randn(tokens, f, device="cuda", dtype=torch.bfloat16)
    cases = [
        ("norm_forward", lambda: norm(x), 2 * tokens * h * 2),
        ("norm_forward_backward", lambda: norm(x).backward(g_h), 5 * tokens * h * 2),
        ("activation_forward", act, (act_inputs + 1) * tokens * f * 2),
        ("activation_forward_backward", lambda: act().backward(g_f), (3 * act_inputs + 2) * tokens * f * 2),
        ("residual_add", lambda: x.detach() + y, 3 * tokens * h * 2),
        ("loss_forward_backward", lambda: F.cross_entropy(logits.float(), targets).backward(),
         tokens * v * (2 + 4 + 4 + 4 + 2)),  # read bf16, fp32 copy, its log-softmax, fp32 gradient, bf16 out
        ("device_copy", lambda: y.clone(), 2 * tokens * h * 2),
    ]
    out = []
    for name, fn, nbytes in cases:
        s = timed(torch, fn, a.min_seconds)
        out.append({"kernel": name, "tokens": tokens, "bytes": nbytes, "seconds": s, "gbps": nbytes / s / 1e9,
                    "fraction_of_hbm": nbytes / s / 1e9 / a.hbm_gbps})
    return out


def launch_floor(torch):
    """Host seconds per launch of a one-element add, issued back to back (the host is the limit)."""
    import time
    t = torch.zeros(1, device="cuda")
    for _ in range(100):
        t.add_(1)
    torch.cuda.synchronize()
    n = 5000
    start = time.perf_counter()
    for _ in range(n):
        t.add_(1)
    host = (time.perf_counter() - start) / n
    torch.cuda.synchronize()
    total = (time.perf_counter() - start) / n
    return {"launches": n, "host_seconds_per_launch": host, "seconds_per_launch_to_completion": total}


def main(argv):
    a = parse_args(argv)
    try:
        spec = resolve_spec(read_yaml(a.model), a.model)
    except InputError as e:
        print(f"kernels.py: error: {e}", file=sys.stderr)
        return EXIT_BAD_INPUT
    torch = cuda_torch("kernels.py")
    if torch is None:
        return EXIT_NO_DEVICE
    from step_model import device_description
    torch.manual_seed(1234)
    doc = {"model": spec["name"], "spec": spec, "peak_tflops": a.peak_tflops, "hbm_gbps": a.hbm_gbps,
           "device": device_description(), "micro_batches": []}
    for mb in a.micro_batch:
        tokens = mb * spec["sequence_length"]
        entry = {"micro_batch": mb, "tokens": tokens}
        for key, fn in (("products", lambda: products(torch, spec, tokens, a)),
                        ("fp8_products", lambda: fp8_products(torch, spec, tokens, a)),
                        ("attention", lambda: attention(torch, spec, mb, a)),
                        ("elementwise", lambda: elementwise(torch, spec, tokens, a))):
            try:
                entry[key] = fn()
            except torch.cuda.OutOfMemoryError as e:
                entry[key] = {"skipped": "out of memory: " + str(e).splitlines()[0]}
            torch.cuda.empty_cache()
        doc["micro_batches"].append(entry)
        if not isinstance(entry["products"], list):
            continue
        flops = sum(p["flops"] for p in entry["products"])
        secs = sum(p["seconds"] for p in entry["products"])
        print(f"kernels.py: {spec['name']} micro-batch {mb}: bf16 products {flops / secs / 1e12:.0f} TFLOP/s "
              f"({flops / secs / 1e12 / a.peak_tflops:.3f} of peak, FLOP-weighted)", file=sys.stderr)
    doc["launch"] = launch_floor(torch)
    write_json(a.out, doc)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
