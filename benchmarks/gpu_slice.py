"""Time training steps of a 9B-shaped slice on one GPU: tokens/s and MFU, plus a 36-layer estimate.

The slice is the Realtime-Venus LLM at full width (Qwen3-8B dims: d 4096, FFN 12288, 32 heads /
8 KV heads, head_dim 128) with only 2 and then 4 decoder layers, the full extended vocabulary
(158,464 padded rows) for the embedding and the LM head, bf16 autocast over fp32 master weights,
non-reentrant activation checkpointing per layer, AdamW (fused), and the trainer's loss: LM head +
cross-entropy only on loss-bearing positions (~60% of a duplex sequence), in 4,096-token chunks
recomputed in backward. Timing two depths separates the per-layer cost from the fixed cost
(embedding, LM head, optimizer), which gives an estimate for the full 36-layer model on one GPU
(no FSDP communication; the Whisper encoder, ~0.3B params over 10 embeddings per unit, is left out).

MFU = model FLOPs / (step time x peak). Model FLOPs per step = 6 x (decoder matmul params x tokens
+ LM-head params x loss tokens) + 6 x layers x seq x d x tokens (causal attention: QK^T and AV
forward 2 x 2 x seq/2 x d per token per layer, x3 for backward); recomputation is not counted.
Peak = 989 TFLOP/s dense bf16 (H100/H200 SXM); override with --peak-tflops.

Needs only torch + transformers; no weights are downloaded (random init). ~1-2 minutes on an H200:

    python benchmarks/gpu_slice.py                  # seq 8192, layers 2 and 4, 6 timed steps each
    python benchmarks/gpu_slice.py --smoke          # tiny dims on CPU, to check the script itself
"""
from __future__ import annotations

import argparse
import json
import math
import time

import torch
import torch.nn.functional as F
from torch.utils.checkpoint import checkpoint

VOCAB = 158_464            # 158,338 extended MiniCPM-o 4.5 vocabulary padded to a multiple of 128
FULL_LAYERS = 36


def qwen3_slice(layers: int, smoke: bool):
    from transformers import AutoModelForCausalLM, Qwen3Config

    if smoke:
        cfg = Qwen3Config(vocab_size=1024, hidden_size=64, intermediate_size=192, num_hidden_layers=layers,
                          num_attention_heads=4, num_key_value_heads=2, head_dim=16, tie_word_embeddings=False,
                          attn_implementation="sdpa")
    else:
        cfg = Qwen3Config(vocab_size=VOCAB, hidden_size=4096, intermediate_size=12288, num_hidden_layers=layers,
                          num_attention_heads=32, num_key_value_heads=8, head_dim=128, max_position_embeddings=40960,
                          rms_norm_eps=1e-6, rope_parameters={"rope_type": "default", "rope_theta": 1e6},
                          tie_word_embeddings=False, attn_implementation="sdpa")
    model = AutoModelForCausalLM.from_config(cfg, dtype=torch.float32)
    kw = {"use_reentrant": False}
    if hasattr(model, "activation_checkpointing_enable"):
        model.activation_checkpointing_enable(activation_checkpointing_kwargs=kw)
    else:
        model.gradient_checkpointing_enable(gradient_checkpointing_kwargs=kw)
    return model


def _ce(h: torch.Tensor, y: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
    return F.cross_entropy(F.linear(h, w).float(), y, reduction="sum")


def run_depth(layers: int, args: argparse.Namespace, device: torch.device) -> dict[str, float]:
    torch.manual_seed(0)
    with device:
        model = qwen3_slice(layers, args.smoke)
    model.train()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-5, betas=(0.9, 0.95), weight_decay=0.1,
                            fused=device.type == "cuda")
    cfg = model.config
    seq = args.seq
    g = torch.Generator(device="cpu").manual_seed(1)          # same inputs at every depth
    ids = torch.randint(0, cfg.vocab_size, (1, seq), generator=g).to(device)
    loss_mask = (torch.rand(1, seq, generator=g) < args.loss_fraction).to(device)
    n_loss = int(loss_mask[:, 1:].sum())
    head = model.get_output_embeddings().weight
    autocast = torch.autocast(device.type, dtype=torch.bfloat16, enabled=device.type == "cuda")

    def step() -> float:
        with autocast:
            h = model.model(input_ids=ids, use_cache=False).last_hidden_state
            sel = loss_mask[:, 1:]
            hs, ys = h[:, :-1][sel], ids[:, 1:][sel]
            total = h.new_zeros((), dtype=torch.float32)
            for i in range(0, hs.shape[0], 4096):
                total = total + checkpoint(_ce, hs[i:i + 4096], ys[i:i + 4096], head, use_reentrant=False)
        (total / n_loss).backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        opt.zero_grad(set_to_none=True)
        return float(total.detach()) / n_loss

    for _ in range(args.warmup):
        step()
    if device.type == "cuda":
        torch.cuda.synchronize()
        torch.cuda.reset_peak_memory_stats()
    t0 = time.perf_counter()
    for _ in range(args.steps):
        loss = step()
    if device.type == "cuda":
        torch.cuda.synchronize()
    dt = (time.perf_counter() - t0) / args.steps
    layer_params = sum(p.numel() for p in model.model.layers.parameters() if p.ndim >= 2)
    d = cfg.hidden_size
    flops = 6 * (layer_params * seq + head.numel() * n_loss) + 6 * layers * seq * d * seq
    peak_mem = torch.cuda.max_memory_allocated() / 2**30 if device.type == "cuda" else float("nan")
    del model, opt
    if device.type == "cuda":
        torch.cuda.empty_cache()
    return {"layers": layers, "step_s": dt, "tokens_per_s": seq / dt, "model_tflop_per_step": flops / 1e12,
            "mfu": flops / dt / (args.peak_tflops * 1e12), "peak_mem_gib": peak_mem, "loss": loss,
            "layer_params": layer_params, "head_params": head.numel(), "loss_tokens": n_loss}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seq", type=int, default=8192)
    ap.add_argument("--depths", type=int, nargs=2, default=(2, 4))
    ap.add_argument("--steps", type=int, default=6)
    ap.add_argument("--warmup", type=int, default=2)
    ap.add_argument("--loss-fraction", type=float, default=0.6)
    ap.add_argument("--peak-tflops", type=float, default=989.0)
    ap.add_argument("--smoke", action="store_true", help="tiny dims (runs on CPU) to test the script")
    args = ap.parse_args()
    if args.smoke:
        args.seq, args.steps, args.warmup = min(args.seq, 256), 2, 1
    device = torch.device("cuda") if torch.cuda.is_available() else torch.device("cpu")
    if device.type == "cuda":
        torch.backends.cuda.matmul.allow_tf32 = True
        print(f"device: {torch.cuda.get_device_name()}  torch {torch.__version__}", flush=True)
    elif not args.smoke:
        raise SystemExit("no GPU: run with --smoke to check the script on CPU")
    res = [run_depth(n, args, device) for n in args.depths]
    for r in res:
        print(f"layers={r['layers']}: {r['step_s'] * 1e3:.1f} ms/step  {r['tokens_per_s']:.0f} tokens/s  "
              f"MFU {100 * r['mfu']:.1f}%  peak {r['peak_mem_gib']:.1f} GiB  loss {r['loss']:.3f}", flush=True)
    a, b = res
    per_layer = (b["step_s"] - a["step_s"]) / (b["layers"] - a["layers"])
    fixed = a["step_s"] - a["layers"] * per_layer
    full_s = fixed + FULL_LAYERS * per_layer
    full_flops = 6 * (a["layer_params"] / a["layers"] * FULL_LAYERS * args.seq + a["head_params"] * a["loss_tokens"]) \
        + 6 * FULL_LAYERS * args.seq * (4096 if not args.smoke else 64) * args.seq
    est = {"per_layer_ms": per_layer * 1e3, "fixed_ms": fixed * 1e3, "full_36_layer_step_s": full_s,
           "full_tokens_per_s_per_gpu": args.seq / full_s if full_s > 0 else math.nan,
           "full_mfu": full_flops / full_s / (args.peak_tflops * 1e12) if full_s > 0 else math.nan}
    print(f"36-layer estimate (one GPU's compute, no FSDP comm): {est['full_36_layer_step_s'] * 1e3:.0f} ms per "
          f"{args.seq}-token sequence, {est['full_tokens_per_s_per_gpu']:.0f} tokens/s/GPU, "
          f"MFU {100 * est['full_mfu']:.1f}%", flush=True)
    print(json.dumps({"slices": res, "estimate": est}))


if __name__ == "__main__":
    main()
