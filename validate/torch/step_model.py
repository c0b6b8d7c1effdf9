"""The PyTorch side of step.py: the decoder from a resolved spec and the timed training steps (needs torch + CUDA),
eager under autocast or under FSDP2 on a one-rank group.

Per step, CUDA events mark: the start, each block's forward end, the head + loss end, each block's backward
(a hook on the block's output gradient starts it, one on its input gradient ends it; with checkpointing the
recompute falls inside), the backward end, the optimizer end. Medians over the measured steps are reported.
"""
import math
import os
import statistics
import time

import torch
import torch.nn.functional as F
from torch import nn
from torch.utils.checkpoint import checkpoint


def norm_layer(spec):
    h = spec["hidden"]
    return nn.RMSNorm(h, eps=1e-5) if spec["norm"] == "rmsnorm" else nn.LayerNorm(h)


def rotary_tables(spec, device):
    d = spec["head_dim"]
    inv = 1.0 / (10000 ** (torch.arange(0, d, 2, device=device, dtype=torch.float32) / d))
    t = torch.arange(spec["sequence_length"], device=device, dtype=torch.float32)
    angles = torch.outer(t, inv)
    return torch.cos(angles), torch.sin(angles)


def apply_rotary(x, cos, sin):  # x: (b, heads, s, d)
    x1, x2 = x[..., 0::2], x[..., 1::2]
    c, s = cos.to(x.dtype), sin.to(x.dtype)
    return torch.stack((x1 * c - x2 * s, x1 * s + x2 * c), dim=-1).flatten(-2)


class Block(nn.Module):
    def __init__(self, spec):
        super().__init__()
        h, q, kv = spec["hidden"], spec["heads"] * spec["head_dim"], spec["kv_heads"] * spec["head_dim"]
        self.spec = spec
        self.norm1, self.norm2 = norm_layer(spec), norm_layer(spec)
        # separate: torchtitan's Llama layout, one product each for Q, K, V and the MLP's gate and up, in
        # that order (what op-level selective checkpointing counts); else one product for Q, K and V and
        # one for gate and up. The parameters are the same.
        self.separate = spec.get("separate_products", False)
        if self.separate:
            self.wq = nn.Linear(h, q, bias=spec["attention_bias"])
            self.wk = nn.Linear(h, kv, bias=spec["attention_bias"])
            self.wv = nn.Linear(h, kv, bias=spec["attention_bias"])
        else:
            self.qkv = nn.Linear(h, q + 2 * kv, bias=spec["attention_bias"])
        self.proj = nn.Linear(q, h, bias=spec["attention_bias"])
        f = spec["ffn_hidden"]
        if spec["mlp"] == "gated" and self.separate:
            self.gate, self.up = nn.Linear(h, f, bias=spec["mlp_bias"]), nn.Linear(h, f, bias=spec["mlp_bias"])
        elif spec["mlp"] == "gated":
            self.fc1 = nn.Linear(h, 2 * f, bias=spec["mlp_bias"])  # gate and up in one product
        else:
            self.fc1 = nn.Linear(h, f, bias=spec["mlp_bias"])
        self.fc2 = nn.Linear(f, h, bias=spec["mlp_bias"])
        self.dropout = spec["dropout"]
        self.rotary = None

    def attention(self, x):
        spec = self.spec
        b, s, _ = x.shape
        nh, nkv, d = spec["heads"], spec["kv_heads"], spec["head_dim"]
        if self.separate:
            q, k, v = self.wq(x), self.wk(x), self.wv(x)
        else:
            q, k, v = self.qkv(x).split([nh * d, nkv * d, nkv * d], dim=-1)
        q = q.view(b, s, nh, d).transpose(1, 2)
        k = k.view(b, s, nkv, d).transpose(1, 2)
        v = v.view(b, s, nkv, d).transpose(1, 2)
        if self.rotary is not None:
            cos, sin = self.rotary
            q, k = apply_rotary(q, cos, sin), apply_rotary(k, cos, sin)
        if nkv != nh:
            k, v = k.repeat_interleave(nh // nkv, dim=1), v.repeat_interleave(nh // nkv, dim=1)
        p = 0.1 if (self.dropout and self.training) else 0.0
        if spec["flash_attention"] and spec.get("attention_backend", "default") != "default":
            from torch.nn.attention import SDPBackend, sdpa_kernel
            backend = {"flash": SDPBackend.FLASH_ATTENTION, "cudnn": SDPBackend.CUDNN_ATTENTION}[spec["attention_backend"]]
            with sdpa_kernel([backend]):
                y = F.scaled_dot_product_attention(q, k, v, dropout_p=p, is_causal=True)
        elif spec["flash_attention"]:
            y = F.scaled_dot_product_attention(q, k, v, dropout_p=p, is_causal=True)
        else:  # the scores are materialised (and kept for backward), as the model's accounting assumes
            scores = (q @ k.transpose(-2, -1)) / math.sqrt(d)
            mask = torch.ones(s, s, dtype=torch.bool, device=x.device).triu(1)
            att = F.softmax(scores.masked_fill(mask, float("-inf")), dim=-1)
            att = F.dropout(att, p=p, training=self.training)
            y = att @ v
        y = y.transpose(1, 2).reshape(b, s, nh * d)
        return F.dropout(self.proj(y), p=0.1 if self.dropout else 0.0, training=self.training)

    def mlp(self, x):
        if self.spec["mlp"] == "gated" and self.separate:
            y = self.fc2(F.silu(self.gate(x)) * self.up(x))
        elif self.spec["mlp"] == "gated":
            gate, up = self.fc1(x).chunk(2, dim=-1)
            y = self.fc2(F.silu(gate) * up)
        else:
            y = self.fc2(F.gelu(self.fc1(x)))
        return F.dropout(y, p=0.1 if self.dropout else 0.0, training=self.training)

    def forward(self, x):
        x = x + self.attention(self.norm1(x))
        return x + self.mlp(self.norm2(x))


def keep_every_other_product():
    """torchtitan's op-level selective checkpointing (parallelize_llama.py at 9dec370, the policy its Llama 3
    rows ran): attention's output and every odd-numbered matrix product's output are kept, the rest
    recomputed. The count restarts in each checkpointed call, for forward and recompute apart."""
    from torch.utils.checkpoint import CheckpointPolicy, create_selective_checkpoint_contexts
    aten = torch.ops.aten
    attention = {getattr(aten, name).default for name in (
        "_scaled_dot_product_flash_attention", "_scaled_dot_product_efficient_attention",
        "_scaled_dot_product_cudnn_attention") if hasattr(aten, name)}
    products = {"forward": 0, "recompute": 0}

    def policy(ctx, func, *args, **kwargs):
        if func in attention:
            return CheckpointPolicy.MUST_SAVE
        if func == aten.mm.default:
            phase = "recompute" if ctx.is_recompute else "forward"
            products[phase] += 1
            if products[phase] % 2 == 1:
                return CheckpointPolicy.MUST_SAVE
        return CheckpointPolicy.PREFER_RECOMPUTE
    return create_selective_checkpoint_contexts(policy)


class CheckpointedBlock(nn.Module):
    """A block recomputed in backward: `full` keeps only its input, `selective-op` what
    keep_every_other_product keeps."""

    def __init__(self, block, mode):
        super().__init__()
        self.block, self.mode = block, mode

    def forward(self, x):
        if self.mode == "full":
            return checkpoint(self.block, x, use_reentrant=False)
        return checkpoint(self.block, x, use_reentrant=False, context_fn=keep_every_other_product)


class Decoder(nn.Module):
    def __init__(self, spec, layers):
        super().__init__()
        h = spec["hidden"]
        self.spec = spec
        self.embed = nn.Embedding(spec["vocab"], h)
        self.positions = nn.Embedding(spec["max_positions"], h) if spec["positions"] == "learned" else None
        self.blocks = nn.ModuleList(Block(spec) for _ in range(layers))
        self.norm = norm_layer(spec)
        self.head = nn.Linear(h, spec["vocab"], bias=False)
        if spec["tied_embeddings"]:
            self.head.weight = self.embed.weight

    def forward(self, tokens, timer):
        """The logits; `timer` gets each block's forward end and backward start and stop."""
        x = self.embed(tokens)
        if self.positions is not None:
            x = x + self.positions(torch.arange(tokens.shape[1], device=tokens.device))
        if self.spec["dropout"]:
            x = F.dropout(x, p=0.1, training=self.training)
        timer.embed_end.record()
        for i, block in enumerate(self.blocks):
            x_in = x
            x = block(x_in)
            x_in.register_hook(lambda g, i=i: timer.backward_stop[i].record())
            x.register_hook(lambda g, i=i: timer.backward_start[i].record())
            timer.forward_end[i].record()
        return self.head(self.norm(x))


class StepTimer:
    """CUDA events of one step, recorded from the forward loop and from gradient hooks."""

    def __init__(self, layers):
        new = lambda: torch.cuda.Event(enable_timing=True)  # noqa: E731
        self.start, self.head_end, self.backward_end, self.optimizer_end = new(), new(), new(), new()
        self.forward_end = [new() for _ in range(layers)]
        self.backward_start = [new() for _ in range(layers)]
        self.backward_stop = [new() for _ in range(layers)]
        self.embed_end = new()

    def seconds(self):
        torch.cuda.synchronize()
        ms = lambda a, b: a.elapsed_time(b) / 1e3  # noqa: E731
        n = len(self.forward_end)
        fwd = [ms(self.embed_end if i == 0 else self.forward_end[i - 1], self.forward_end[i]) for i in range(n)]
        bwd = [ms(self.backward_start[i], self.backward_stop[i]) for i in range(n)]
        return {
            "step": ms(self.start, self.optimizer_end),
            "forward": ms(self.start, self.head_end),
            "head_and_loss_forward": ms(self.forward_end[-1] if n else self.embed_end, self.head_end),
            "backward": ms(self.head_end, self.backward_end),
            "optimizer": ms(self.backward_end, self.optimizer_end),
            "layer_forward": fwd,
            "layer_backward": bwd,
        }


def forward_loss(model, tokens, targets, timer):
    logits = model(tokens, timer)  # through the root module, so FSDP2's hooks run
    loss = F.cross_entropy(logits.float().view(-1, logits.shape[-1]), targets.view(-1))
    timer.head_end.record()
    return loss


def memory_phases(model, optimizer, tokens, targets, layers, autocast):
    """One more (untimed) step with a synchronised reading at each phase's end: allocated bytes, and the
    phase's own allocated peak; forward's growth is what the step keeps for backward."""
    out = {}
    optimizer.zero_grad(set_to_none=True)
    torch.cuda.synchronize()
    out["start_allocated_bytes"] = torch.cuda.memory_allocated()
    for phase in ("forward", "backward", "optimizer"):
        torch.cuda.reset_peak_memory_stats()
        if phase == "forward":
            with torch.autocast("cuda", dtype=torch.bfloat16, enabled=autocast):
                loss = forward_loss(model, tokens, targets, StepTimer(layers))
        elif phase == "backward":
            loss.backward()
            del loss
        else:
            optimizer.step()
        torch.cuda.synchronize()
        out[f"{phase}_end_allocated_bytes"] = torch.cuda.memory_allocated()
        out[f"{phase}_peak_allocated_bytes"] = torch.cuda.max_memory_allocated()
        out[f"{phase}_end_reserved_bytes"] = torch.cuda.memory_reserved()
    return out


def memory_by_stream():
    """The caching allocator's segments after the timed steps, per CUDA stream that allocated them: how many,
    the bytes reserved and the bytes in use (a stream's cached blocks serve only that stream). Stream 0 is the
    default (compute) stream; FSDP2's gathers and reduce-scatters allocate on their own."""
    default = torch.cuda.default_stream().cuda_stream
    streams = {}
    for seg in torch.cuda.memory._snapshot().get("segments", []):
        key = str(seg.get("stream", "unknown"))
        entry = streams.setdefault(key, {"default": seg.get("stream") == default, "segments": 0,
                                         "reserved_bytes": 0, "allocated_bytes": 0, "large_segments": 0})
        entry["segments"] += 1
        entry["reserved_bytes"] += seg.get("total_size", 0)
        entry["large_segments"] += seg.get("segment_type") == "large"
        entry["allocated_bytes"] += sum(b.get("size", 0) for b in seg.get("blocks", [])
                                        if b.get("state") == "active_allocated")
    return streams


def device_description():
    p = torch.cuda.get_device_properties(0)
    return {"name": p.name, "total_memory_bytes": p.total_memory, "multiprocessors": p.multi_processor_count,
            "capability": f"{p.major}.{p.minor}", "torch": torch.__version__, "cuda": torch.version.cuda,
            "cudnn": torch.backends.cudnn.version(),
            "nccl": nccl_version()}


def nccl_version():
    try:
        return ".".join(str(v) for v in torch.cuda.nccl.version())
    except Exception:  # a build without NCCL, or an older tuple form
        return None


def start_one_rank_group():
    """A one-rank NCCL process group on this GPU (FSDP2 needs one), on a free local port."""
    import socket
    import torch.distributed as dist
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    torch.cuda.set_device(0)
    dist.init_process_group("nccl", init_method=f"tcp://127.0.0.1:{port}", rank=0, world_size=1,
                            device_id=torch.device("cuda", 0))


def shard_fsdp2(model):
    """fully_shard on every block, then the root (embedding, norm, head), torchtitan's layout."""
    from torch.distributed.fsdp import MixedPrecisionPolicy, fully_shard
    policy = MixedPrecisionPolicy(param_dtype=torch.bfloat16, reduce_dtype=torch.float32)
    for block in model.blocks:
        fully_shard(block, mp_policy=policy)
    fully_shard(model, mp_policy=policy)
    return model


def run_case(spec, layers, a):
    """Builds the model, runs a.warmup + a.steps steps (and one traced step when a.trace); the result dict."""
    torch.manual_seed(a.seed)
    dev = torch.device("cuda")
    result = {"case": f"{spec['name']}-x{layers}-mb{a.micro_batch}-{a.checkpointing}"
                      f"{'-separate' if spec.get('separate_products') else ''}"
                      f"{'-' + a.attention_backend if a.attention_backend != 'default' else ''}"
                      f"{'-compile' if a.compile else ''}", "spec": spec,
              "layers_run": layers, "micro_batch": a.micro_batch, "sequence_length": spec["sequence_length"],
              "checkpointing": a.checkpointing, "framework": a.framework, "compile": a.compile,
              "layout": a.layout, "attention_backend": a.attention_backend,
              "allocator_config": os.environ.get("PYTORCH_CUDA_ALLOC_CONF", ""),
              "precision": ("bf16 autocast, fp32 parameters and gradients" if a.framework == "eager" else
                            "FSDP2 MixedPrecisionPolicy: bf16 compute parameters, fp32 sharded parameters, "
                            "fp32 gradient reduction"),
              "optimizer": "AdamW (fused, fp32 states)" if a.framework == "eager" else "AdamW (foreach, fp32 states)",
              "device": device_description()}
    fsdp2 = a.framework == "fsdp2"
    if fsdp2:
        start_one_rank_group()
    try:
        torch.cuda.reset_peak_memory_stats()
        with dev:  # parameters made and initialised on the GPU (a CPU init of billions takes minutes)
            model = Decoder(spec, layers)
        if spec["positions"] == "rotary":
            tables = rotary_tables(spec, dev)
            for block in model.blocks:
                block.rotary = tables
        if a.checkpointing != "none":
            for i, block in enumerate(model.blocks):
                model.blocks[i] = CheckpointedBlock(block, a.checkpointing)
        if a.compile:  # per block, as torchtitan compiles (after checkpointing, before sharding)
            for block in model.blocks:
                block.compile()
        model.train()
        result["parameters"] = sum(p.numel() for p in model.parameters())
        if fsdp2:
            shard_fsdp2(model)
            optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4, foreach=True)
        else:
            optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4, fused=True)
        g = torch.Generator(device=dev).manual_seed(a.seed)
        shape = (a.micro_batch, spec["sequence_length"])
        tokens = torch.randint(0, spec["vocab"], shape, device=dev, generator=g)
        targets = torch.randint(0, spec["vocab"], shape, device=dev, generator=g)
        result["memory_after_setup_bytes"] = torch.cuda.memory_allocated()

        def step():
            timer = StepTimer(layers)
            optimizer.zero_grad(set_to_none=True)
            timer.start.record()
            with torch.autocast("cuda", dtype=torch.bfloat16, enabled=not fsdp2):
                loss = forward_loss(model, tokens, targets, timer)
            loss.backward()
            timer.backward_end.record()
            optimizer.step()
            timer.optimizer_end.record()
            return timer

        t0 = time.perf_counter()
        for _ in range(a.warmup):
            step()
        torch.cuda.synchronize()
        result["warmup_seconds"] = time.perf_counter() - t0  # compilation included under --compile
        result["memory_after_warmup_bytes"] = torch.cuda.memory_allocated()
        torch.cuda.reset_peak_memory_stats()
        timings = [step().seconds() for _ in range(a.steps)]
        result["memory"] = {"max_allocated_bytes": torch.cuda.max_memory_allocated(),
                            "max_reserved_bytes": torch.cuda.max_memory_reserved(),
                            "allocated_after_step_bytes": torch.cuda.memory_allocated()}
        try:
            result["memory_by_stream"] = memory_by_stream()
        except Exception as e:  # an allocator without snapshots: the case still counts
            result["memory_by_stream"] = {"error": str(e).splitlines()[0] if str(e) else type(e).__name__}
        med = lambda key: statistics.median(t[key] for t in timings)  # noqa: E731
        result["steps_measured"] = a.steps
        result["step_seconds"] = [t["step"] for t in timings]
        for key in ("step", "forward", "head_and_loss_forward", "backward", "optimizer"):
            result[f"{key}_seconds_median"] = med(key)
        for key in ("layer_forward", "layer_backward"):
            result[f"{key}_seconds_median"] = [statistics.median(t[key][i] for t in timings) for i in range(layers)]
        result["memory_phases"] = memory_phases(model, optimizer, tokens, targets, layers, not fsdp2)
        if a.trace:
            from torch.profiler import ProfilerActivity, profile
            with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA], record_shapes=True) as prof:
                step()
                torch.cuda.synchronize()
            prof.export_chrome_trace(a.trace)
            result["trace"] = a.trace
    except torch.cuda.OutOfMemoryError as e:
        result["error"] = "out of memory: " + str(e).split("\n")[0]
        result["memory"] = {"max_allocated_bytes": torch.cuda.max_memory_allocated(),
                            "max_reserved_bytes": torch.cuda.max_memory_reserved()}
    finally:
        if fsdp2:
            import torch.distributed as dist
            if dist.is_initialized():
                dist.destroy_process_group()
    return result
