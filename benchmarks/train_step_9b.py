"""Full training steps of a 9B config's DuplexModel on one GPU, built by the trainer itself: MFU.

Unlike benchmarks/gpu_slice.py (a bare Qwen3 slice), this runs `model/train.build_model` exactly as
`duplexsynth train` does: meta-device skeleton, FSDP2 `fully_shard` per layer and root (a
one-rank mesh), bf16 MixedPrecisionPolicy over fp32 master weights, non-reentrant activation
checkpointing, the Whisper encoder per unit, the chunked loss, fused AdamW, gradient clipping.
The batch is synthetic but in the unit layout (per 1 s unit: `<unit>`, 10 audio slots, then text;
log-mel features per unit), so nothing but torch + transformers + the offline tokenizer is needed.

A 9B model's fp32 weights + grads + AdamW state (16 B/param, ~140 GB) do not fit one GPU, so the
config is cut to `--depths` decoder layers (default 4 and 8; full width, full vocabulary, full
audio encoder); timing two depths separates the per-layer cost, which gives a full-depth estimate
(no FSDP communication: on 8 GPUs add the all-gather / reduce-scatter, mostly overlapped).

MFU = model FLOPs / (step time x peak); model FLOPs per step = 6 x (LLM layer matmul params x
tokens + LM head x loss tokens + audio layer params x encoder positions) + 6 x layers x seq^2 x d
(causal attention); recomputation not counted. Peak 989 TFLOP/s dense bf16 (H100/H200 SXM),
`--peak-tflops` to change.

    python benchmarks/train_step_9b.py --config venus-audio-9b     # one GPU, ~2-4 min on an H200
    python benchmarks/train_step_9b.py --smoke                     # tiny on CPU: checks the script only
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

import torch
import torch.distributed as dist

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def _batch(vocab, seq: int, loss_fraction: float, device: torch.device) -> dict:
    """One sequence of whole units in the training layout, with random text ids and features."""
    from model.protocol import AUDIO_PH, LOSS_CLASSES, UNIT

    g = torch.Generator().manual_seed(1)
    per_unit = 14 + 6                                   # <unit>, 10 audio slots, then text of the unit
    units = seq // per_unit
    ids = torch.randint(0, 150_000 if vocab.vocab_size > 150_000 else vocab.vocab_size // 2, (units, per_unit),
                        generator=g)
    ids[:, 0] = vocab[UNIT]
    ids[:, 1:11] = vocab[AUDIO_PH]
    ids = ids.reshape(1, -1)
    n = ids.shape[1]
    loss_mask = (torch.rand(1, n, generator=g) < loss_fraction)
    loss_mask[ids == vocab[AUDIO_PH]] = False
    loss_class = torch.where(loss_mask, torch.randint(0, len(LOSS_CLASSES), (1, n), generator=g), -1)
    feats = torch.randn(units, 80, 100, generator=g)
    b = {"input_ids": ids, "attention_mask": torch.ones_like(ids), "loss_mask": loss_mask.long(),
         "loss_class": loss_class, "audio_features": feats}
    return {k: v.to(device) for k, v in b.items()}


def run_depth(config: str, layers: int, args: argparse.Namespace, env, vocab) -> dict:
    from model.config import load_run_spec
    from model.materialize import StartupBytes
    from model.train import build_model, build_optimizer
    from schemas.replace import replace

    spec = load_run_spec(config)
    llm = replace(spec.model.llm, config={**spec.model.llm.config, "num_hidden_layers": layers})
    train = replace(spec.train, fsdp="on", activation_checkpointing=True, max_seq_len=args.seq)
    spec = replace(spec, model=replace(spec.model, llm=llm), train=train)
    if env.device.type == "cuda":
        torch.cuda.reset_peak_memory_stats()
    t0 = time.perf_counter()
    st = StartupBytes()
    model, _ = build_model(spec, vocab, env, st)
    start_s = time.perf_counter() - t0
    opt = build_optimizer(model, spec, env)
    b = _batch(vocab, args.seq, args.loss_fraction, env.device)
    n_loss = int((b["loss_mask"][:, 1:]).sum())

    def step() -> float:
        parts = model(**b)
        (parts.weighted_sum / n_loss).backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        opt.zero_grad(set_to_none=True)
        return float(parts.weighted_sum.detach()) / n_loss

    for _ in range(args.warmup):
        step()
    if env.device.type == "cuda":
        torch.cuda.synchronize()
    t0 = time.perf_counter()
    for _ in range(args.steps):
        loss = step()
    if env.device.type == "cuda":
        torch.cuda.synchronize()
    dt = (time.perf_counter() - t0) / args.steps
    inner = model
    c = inner.llm.config
    layer_params = sum(p.numel() for layer in inner.decoder_layers() for p in layer.parameters() if p.ndim >= 2)
    audio_params = sum(p.numel() for layer in inner.audio.layers for p in layer.parameters() if p.ndim >= 2)
    head = inner.llm.get_output_embeddings().weight.numel()
    tokens = b["input_ids"].numel()
    positions = b["audio_features"].shape[0] * 50
    flops = 6 * (layer_params * tokens + head * n_loss + audio_params * positions) \
        + 6 * layers * tokens * tokens * c.hidden_size
    peak = torch.cuda.max_memory_allocated() / 2**30 if env.device.type == "cuda" else float("nan")
    res = {"layers": layers, "step_s": dt, "tokens_per_s": tokens / dt, "mfu": flops / dt / (args.peak_tflops * 1e12),
           "tflop_per_step": flops / 1e12, "peak_mem_gib": peak, "startup_s": start_s,
           "startup_param_gib": st.peak / 2**30, "loss": loss, "layer_params": layer_params, "head": head,
           "audio_params": audio_params, "tokens": tokens, "loss_tokens": n_loss, "positions": positions,
           "d": c.hidden_size, "full_layers": load_run_spec(config).model.llm.config["num_hidden_layers"]}
    del model, opt
    if env.device.type == "cuda":
        torch.cuda.empty_cache()
    return res


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--config", default="venus-audio-9b")
    ap.add_argument("--seq", type=int, default=8192)
    ap.add_argument("--depths", type=int, nargs=2, default=(4, 8))
    ap.add_argument("--steps", type=int, default=4)
    ap.add_argument("--warmup", type=int, default=2)
    ap.add_argument("--loss-fraction", type=float, default=0.6)
    ap.add_argument("--peak-tflops", type=float, default=989.0)
    ap.add_argument("--smoke", action="store_true", help="tiny config on CPU, to test the script")
    args = ap.parse_args()
    if args.smoke:
        args.config, args.seq, args.steps, args.warmup, args.depths = "tiny", 400, 1, 1, (1, 2)
    elif not torch.cuda.is_available():
        print("NOT RUN: train_step_9b.py needs a CUDA GPU (no GPU here); `--smoke` checks the script on CPU")
        raise SystemExit(0)
    from model.protocol import extend_vocab, load_text_tokenizer
    from model.train import Env

    os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
    os.environ.setdefault("MASTER_PORT", "29533")
    cuda = torch.cuda.is_available() and not args.smoke
    if cuda:
        torch.cuda.set_device(0)
        torch.backends.cuda.matmul.allow_tf32 = True
        print(f"device: {torch.cuda.get_device_name()}  torch {torch.__version__}", flush=True)
    dist.init_process_group("nccl" if cuda else "gloo", rank=0, world_size=1)
    env = Env(0, 1, 0, torch.device("cuda", 0) if cuda else torch.device("cpu"))
    vocab = extend_vocab(load_text_tokenizer("minicpm-o45"))
    try:
        res = [run_depth(args.config, n, args, env, vocab) for n in args.depths]
    finally:
        dist.destroy_process_group()
    for r in res:
        print(f"{args.config} layers={r['layers']}: {r['step_s'] * 1e3:.0f} ms/step  {r['tokens_per_s']:.0f} tokens/s  "
              f"MFU {100 * r['mfu']:.1f}%  peak {r['peak_mem_gib']:.1f} GiB  start-up {r['startup_s']:.1f} s "
              f"(param peak {r['startup_param_gib']:.2f} GiB)  loss {r['loss']:.3f}", flush=True)
    a, b = res
    per_layer = (b["step_s"] - a["step_s"]) / (b["layers"] - a["layers"])
    fixed = a["step_s"] - a["layers"] * per_layer
    L = a["full_layers"]
    full_s = fixed + L * per_layer
    full_flops = 6 * (a["layer_params"] / a["layers"] * L * a["tokens"] + a["head"] * a["loss_tokens"]
                      + a["audio_params"] * a["positions"]) + 6 * L * a["tokens"] ** 2 * a["d"]
    est = {"full_layers": L, "per_layer_ms": per_layer * 1e3, "fixed_ms": fixed * 1e3, "full_step_s": full_s,
           "full_mfu": full_flops / full_s / (args.peak_tflops * 1e12) if full_s > 0 else float("nan")}
    print(f"{L}-layer estimate (one GPU's compute, no FSDP comm): {full_s * 1e3:.0f} ms per {a['tokens']}-token "
          f"sequence, MFU {100 * est['full_mfu']:.1f}%", flush=True)
    print(json.dumps({"config": args.config, "depths": res, "estimate": est}))


if __name__ == "__main__":
    main()
