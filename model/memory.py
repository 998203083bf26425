"""Per-GPU memory estimate of a training run: parameters, gradients, optimizer, activations.

Printed at the start of every run (next to the device's memory) and by
`duplexsynth train --estimate-memory --config NAME --gpus N --gpu-mem-gb G` without training, so a
team sees before a 9B job starts whether it fits. It is arithmetic on the model's real parameter
counts (built on the meta device when estimating offline) and the config's shapes; allocator
fragmentation, communication buffers and the CUDA context (~1-3 GB) are not in it.

What is counted, per GPU (W = FSDP world size; 1 without FSDP):
- weights: fp32 master copy 4 B/param / W; with FSDP also what is unsharded at a time in the
  compute dtype: the root (embeddings, LM head, norms, projectors) for the whole step, and up to
  three layers (the current one, the prefetched one, and the gradients of one in backward).
- gradients (trained parameters only: a frozen speech decoder has none, and no optimizer state):
  fp32 4 B/param / W; with FSDP and deferred reduction (`defer_grad_sync`, grad_accum > 1)
  the unsharded fp32 accumulation buffers, 4 B/param, between micro-batches.
- optimizer: AdamW m and v, 8 B/param / W.
- activations of one micro-batch of micro_batch_size x max_seq_len tokens: with activation
  checkpointing each decoder layer's input (d values per token) plus one layer's recompute; the
  audio encoder likewise over 50 positions per unit (at most one unit per 14 tokens: <unit>, 10
  audio slots, a decision, <|chunk_eos|>, </unit>); one loss chunk of logits (compute dtype, fp32
  copy and fp32 gradient); the final hidden states and their gradient in fp32. Vision activations
  (Omni) are not counted.
"""
from __future__ import annotations

import os
from dataclasses import dataclass

import torch

from model.config import PARALLEL_FSDP, RunSpec
from model.modeling import padded_vocab
from schemas.replace import replace

GIB = 1024 ** 3
MIN_TOKENS_PER_UNIT = 14            # <unit>, 10 audio slots, decision, <|chunk_eos|>, </unit>
AUDIO_POSITIONS_PER_SECOND = 50     # Whisper: 100 mel frames per second, halved by conv2


@dataclass(frozen=True)
class MemoryEstimate:
    """Bytes per GPU by kind; `world` is the FSDP world size (1 without FSDP)."""

    mode: str
    world: int
    params: int
    trainable: int          # params with a gradient and optimizer state (all but a frozen speech decoder)
    weights: int
    weights_in_flight: int
    grads: int
    grads_accumulation: int
    optimizer: int
    activations: int

    @property
    def total(self) -> int:
        return (self.weights + self.weights_in_flight + self.grads + self.grads_accumulation + self.optimizer
                + self.activations)


def _n(module: torch.nn.Module) -> int:
    return sum(p.numel() for p in module.parameters())


def estimate_memory(spec: RunSpec, model: torch.nn.Module, *, world: int, mode: str, bf16: bool) -> MemoryEstimate:
    """The estimate for `model` (a DuplexModel, on any device, meta included) trained with `spec`.

    `mode` is model/config.parallel_mode's answer; only FSDP shards (over `world`).
    """
    t, m = spec.train, spec.model
    fsdp = mode == PARALLEL_FSDP
    w = world if fsdp else 1
    total = _n(model)
    trainable = sum(p.numel() for p in model.parameters() if p.requires_grad)
    layers = model.decoder_layers() + model.encoder_layers()
    largest = max((_n(layer) for layer in layers), default=0)
    # a frozen speech decoder (recipe venus) is its own FSDP group that no training step gathers
    frozen_group = _n(model.speech_decoder) if getattr(model, "speech_decoder", None) is not None else 0
    root = total - sum(_n(layer) for layer in layers) - frozen_group
    compute = 2 if bf16 else 4
    in_flight = compute * (root + 3 * largest) if fsdp and w > 1 else 0
    accum = 4 * trainable if fsdp and w > 1 and t.defer_grad_sync and t.grad_accum > 1 else 0

    c = model.llm.config
    d, ffn, n_layers = c.hidden_size, c.intermediate_size, c.num_hidden_layers
    head_dim = getattr(c, "head_dim", None) or d // c.num_attention_heads
    q, kv = c.num_attention_heads * head_dim, c.num_key_value_heads * head_dim
    tokens = t.micro_batch_size * t.max_seq_len
    layer_work = 4 * d + 2 * q + 2 * kv + 4 * ffn          # norm outputs, residuals, q/k/v, attention out, MLP
    ac = model.audio.config
    positions = (tokens // MIN_TOKENS_PER_UNIT) * AUDIO_POSITIONS_PER_SECOND
    audio_work = 8 * ac.d_model + 2 * ac.encoder_ffn_dim
    if t.activation_checkpointing:
        llm_act = tokens * (n_layers * d + layer_work)
        audio_act = positions * (ac.encoder_layers * ac.d_model + audio_work)
    else:
        llm_act = tokens * n_layers * layer_work
        audio_act = positions * ac.encoder_layers * audio_work
    vocab = padded_vocab(model.vocab_size, m.llm.pad_vocab_to_multiple_of)
    loss_chunk = min(m.loss_chunk_tokens, tokens) * vocab * (compute + 4 + 4)
    hidden = 2 * tokens * d * 4
    activations = compute * (llm_act + audio_act) + loss_chunk + hidden
    return MemoryEstimate(mode=mode, world=w, params=total, trainable=trainable, weights=4 * total // w,
                          weights_in_flight=in_flight, grads=4 * trainable // w, grads_accumulation=accum,
                          optimizer=8 * trainable // w, activations=activations)


def format_estimate(e: MemoryEstimate, device_bytes: int | None = None) -> str:
    """One line: each part in GiB and the total (against the device's memory when given)."""
    g = lambda b: f"{b / GIB:.2f}" if b < GIB else f"{b / GIB:.1f}"   # noqa: E731
    shard = f"FSDP over {e.world}" if e.mode == PARALLEL_FSDP else e.mode
    parts = [f"weights {g(e.weights)}"]
    if e.weights_in_flight:
        parts.append(f"+ {g(e.weights_in_flight)} unsharded in flight")
    parts.append(f"grads {g(e.grads)}")
    if e.grads_accumulation:
        parts.append(f"+ {g(e.grads_accumulation)} unsharded accumulation")
    parts += [f"optimizer {g(e.optimizer)}", f"activations {g(e.activations)}"]
    n = lambda x: f"{x / 1e9:.2f}B" if x >= 1e9 else f"{x / 1e6:.1f}M"
    size = n(e.params) + (f" params, {n(e.trainable)} trained" if e.trainable != e.params else " params")
    line = (f"memory estimate per GPU ({size}, {shard}): " + ", ".join(parts)
            + f" = {g(e.total)} GiB")
    if device_bytes:
        line += f" of {g(device_bytes)} GiB ({e.total / device_bytes:.0%})"
    return line


def device_memory(device: torch.device) -> int | None:
    """Total memory of a CUDA device, or of the host for a CPU run (None if unknown)."""
    if device.type == "cuda":
        return int(torch.cuda.get_device_properties(device).total_memory)
    try:
        return int(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES"))
    except (ValueError, OSError, AttributeError):
        return None


def describe_device_memory(device: torch.device) -> str:
    b = device_memory(device)
    what = torch.cuda.get_device_name(device) if device.type == "cuda" else "host RAM (CPU run)"
    return f"device memory: {b / GIB:.1f} GiB, {what}" if b else f"device memory: unknown ({device})"


def estimate_offline(config: str, gpus: int, data: str | None = None) -> MemoryEstimate:
    """The estimate for `config` on `gpus` GPUs (bf16 unless the config says fp32), from a model
    built on the meta device (no memory, no weights read). The vocabulary is the export's in `data`,
    else the MiniCPM-o 4.5 tokenizer extended as `duplexsynth export` extends it."""
    from model.config import load_run_spec, parallel_mode
    from model.dataset import read_split_info, resolve_split_dir, split_file
    from model.modeling import DuplexModel
    from model.protocol import ProtocolVocab, extend_vocab, load_text_tokenizer

    spec = load_run_spec(config)
    if data:
        split = resolve_split_dir(data)
        vocab = ProtocolVocab.load(split_file(split, read_split_info(split), "tokenizer", root=split.parent))
    else:
        vocab = extend_vocab(load_text_tokenizer("minicpm-o45"))
    # local weights are never read: the meta model has the shapes of the config
    plain = replace(spec.model, **{c: replace(getattr(spec.model, c), path=None)
                                   for c in ("llm", "audio", "vision") if getattr(spec.model, c) is not None
                                   and getattr(spec.model, c).config})
    if plain.speech_decoder is not None:   # its shapes are all in the config
        plain = replace(plain, speech_decoder=replace(plain.speech_decoder, path=None))
    with torch.device("meta"):
        model = DuplexModel(plain, vocab)
    return estimate_memory(spec, model, world=gpus, mode=parallel_mode(spec, gpus),
                           bf16=spec.train.precision != "fp32")
