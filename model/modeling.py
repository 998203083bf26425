"""DuplexModel: causal LM + per-unit Whisper encoder (+ optional SigLIP vision) + projectors.

The token sequence (model/protocol.py) holds placeholder ids where audio and image embeddings go.
Audio: each unit's 100 mel frames run through the Whisper encoder on their own (50 positions),
are average-pooled 5x to 10 embeddings and projected to the LLM width. Vision (Omni): each 1 fps
frame runs through SigLIP, its patch grid is pooled to `tokens_per_frame` and projected (or, with
`vision.projector: resampler`, read by MiniCPM-o 4.5's 64-query resampler, model/resampler.py). Speech
tokens are ordinary rows of the extended vocabulary, predicted by the LM head (recipe unified), or
not in the LLM at all (recipe venus: model/recipes.py, the frozen model/speech_decoder.py).

The loss is computed inside `forward` (so FSDP2's root hooks cover the LM head) and only at target
positions, in chunks of `loss_chunk_tokens` recomputed in backward: with a ~158k vocabulary the
full-sequence fp32 logits would otherwise dominate activation memory.
"""
from __future__ import annotations

import math
from typing import Any, NamedTuple

import torch
import torch.nn.functional as F
from torch import nn
from torch.utils.checkpoint import checkpoint

from model.config import AudioConfig, LLMConfig, ModelConfig, VisionConfig
from model.protocol import AUDIO_PH, IMAGE_PH, LOSS_CLASSES, ProtocolVocab
from model.recipes import llm_vocab_size
from model.resampler import Resampler
from model.speech_decoder import build_speech_decoder


def padded_vocab(vocab_size: int, multiple: int) -> int:
    return int(math.ceil(vocab_size / multiple) * multiple)


def build_llm(cfg: LLMConfig, vocab_size: int, read_weights: bool = True) -> nn.Module:
    """AutoModelForCausalLM from a local path (vocab resized) or random-init from a config.

    `read_weights=False` with a path: the same module tree from the folder's config.json only (the
    weights are never read; model/materialize.py fills them from rank 0)."""
    from transformers import AutoConfig, AutoModelForCausalLM

    size = padded_vocab(vocab_size, cfg.pad_vocab_to_multiple_of)
    if cfg.path and not read_weights:
        kw = dict(cfg.config or {})
        attn = kw.pop("attn_implementation", None)
        conf = AutoConfig.from_pretrained(cfg.path, local_files_only=True, **kw)
        conf.vocab_size = max(conf.vocab_size, size)      # as from_pretrained + resize_token_embeddings
        return AutoModelForCausalLM.from_config(conf, dtype=torch.float32,
                                                **({"attn_implementation": attn} if attn else {}))
    if cfg.path:
        model = AutoModelForCausalLM.from_pretrained(cfg.path, local_files_only=True, dtype=torch.float32,
                                                     **(cfg.config or {}))
        if model.get_input_embeddings().num_embeddings < size:   # never shrink a pretrained vocabulary
            model.resize_token_embeddings(size)
        return model
    kw = dict(cfg.config or {})
    model_type = kw.pop("model_type")
    kw["vocab_size"] = size
    conf = AutoConfig.for_model(model_type, **kw)
    return AutoModelForCausalLM.from_config(conf, dtype=torch.float32)


def build_audio_encoder(cfg: AudioConfig, read_weights: bool = True) -> nn.Module:
    from transformers import WhisperConfig, WhisperModel
    from transformers.models.whisper.modeling_whisper import WhisperEncoder

    if cfg.path and not read_weights:
        return WhisperEncoder(WhisperConfig.from_pretrained(cfg.path, local_files_only=True))
    if cfg.path:
        return WhisperModel.from_pretrained(cfg.path, local_files_only=True, dtype=torch.float32).get_encoder()
    return WhisperEncoder(WhisperConfig(**(cfg.config or {})))


def build_vision_encoder(cfg: VisionConfig, read_weights: bool = True) -> nn.Module:
    from transformers import SiglipVisionConfig, SiglipVisionModel

    if cfg.path and not read_weights:
        return SiglipVisionModel(SiglipVisionConfig.from_pretrained(cfg.path, local_files_only=True))
    if cfg.path:
        return SiglipVisionModel.from_pretrained(cfg.path, local_files_only=True, dtype=torch.float32)
    return SiglipVisionModel(SiglipVisionConfig(**(cfg.config or {})))


class Projector(nn.Module):
    """Two-layer MLP from an encoder width to the LLM width."""

    def __init__(self, d_in: int, d_hidden: int, d_out: int):
        super().__init__()
        self.fc1 = nn.Linear(d_in, d_hidden)
        self.fc2 = nn.Linear(d_hidden, d_out)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.fc2(F.gelu(self.fc1(x)))


def _avg_pool(x: torch.Tensor, k: int) -> torch.Tensor:
    """[B, T, d] -> [B, T/k, d], the mean of each k consecutive positions."""
    return F.avg_pool1d(x.transpose(1, 2), k, k).transpose(1, 2)


def _ce_tokens(h: torch.Tensor, y: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor | None) -> torch.Tensor:
    logits = F.linear(h, weight, bias).float()
    return F.cross_entropy(logits, y, reduction="none")


class LossParts(NamedTuple):
    """What one forward pass returns: the weighted loss sum (to backpropagate), and per loss class
    (LOSS_CLASSES order) the unweighted cross-entropy sum and the number of target tokens."""

    weighted_sum: torch.Tensor
    class_loss: torch.Tensor      # [C] float64, detached
    class_count: torch.Tensor     # [C] int64


class DuplexModel(nn.Module):
    """LLM + audio encoder (+ vision) for the unit layout of DESIGN §3."""

    def __init__(self, cfg: ModelConfig, vocab: ProtocolVocab, read_weights: bool = True):
        """`read_weights=False`: components with a local `path` get their shapes from its config
        only (a skeleton that rank 0's weights fill, model/materialize.py)."""
        super().__init__()
        self.cfg = cfg
        self.vocab_size = llm_vocab_size(vocab, cfg.recipe)   # venus: no speech rows
        self.audio_ph = vocab[AUDIO_PH]
        self.image_ph = vocab[IMAGE_PH]
        self.llm = build_llm(cfg.llm, self.vocab_size, read_weights)
        d_llm = self.llm.config.hidden_size
        self.audio = build_audio_encoder(cfg.audio, read_weights)
        self.audio_pool = cfg.audio.pool
        d_a = self.audio.config.d_model
        hid = cfg.projector_hidden or d_llm
        self.audio_proj = Projector(d_a, hid, d_llm)
        self.vision = None
        self.vision_proj = None
        if cfg.vision is not None:
            self.vision = build_vision_encoder(cfg.vision, read_weights)
            self.tokens_per_frame = cfg.vision.tokens_per_frame
            d_v = self.vision.config.hidden_size
            if cfg.vision.projector == "resampler":
                heads = cfg.vision.resampler_heads or max(1, d_llm // 128)
                self.vision_proj = Resampler(cfg.vision.tokens_per_frame, d_llm, heads, d_v)
            else:
                self.vision_proj = Projector(d_v, hid, d_llm)
        # recipe venus: the separate speech decoder, frozen (never in the optimizer, never reduced)
        self.speech_decoder = None
        if cfg.speech_decoder is not None:
            self.speech_decoder = build_speech_decoder(cfg.speech_decoder, d_llm, self.vocab_size, read_weights)
        self.checkpointing = False

    # ------------------------------------------------------------------ structure for FSDP / checkpointing
    def decoder_layers(self) -> list[nn.Module]:
        return list(self.llm.get_decoder().layers)

    def encoder_layers(self) -> list[nn.Module]:
        layers = list(self.audio.layers)
        if self.vision is not None:   # transformers 5 flattened SiglipVisionModel (no .vision_model)
            layers += list(getattr(self.vision, "vision_model", self.vision).encoder.layers)
        return layers

    def enable_activation_checkpointing(self) -> None:
        """Recompute each transformer layer in backward (non-reentrant, FSDP2-compatible)."""
        kw = {"use_reentrant": False}
        for m in (self.llm, self.audio, self.vision):
            if m is None:
                continue
            if hasattr(m, "activation_checkpointing_enable"):      # transformers >= 5.x name
                m.activation_checkpointing_enable(activation_checkpointing_kwargs=kw)
            else:
                m.gradient_checkpointing_enable(gradient_checkpointing_kwargs=kw)
        self.checkpointing = True

    # ------------------------------------------------------------------ encoders
    def encode_audio(self, feats: torch.Tensor) -> torch.Tensor:
        """[U, n_mels, frames] per-unit log-mel -> [U * frames/2/pool, d_llm]."""
        enc = self.audio
        x = F.gelu(enc.conv1(feats.to(enc.conv1.weight.dtype)))
        x = F.gelu(enc.conv2(x)).permute(0, 2, 1)                          # [U, frames/2, d]
        if x.shape[1] > enc.embed_positions.num_embeddings:
            raise ValueError(f"{x.shape[1]} audio positions per unit exceed the encoder's "
                             f"{enc.embed_positions.num_embeddings}")
        x = x + enc.embed_positions.weight[: x.shape[1]]
        for layer in enc.layers:
            x = layer(x, None)
        x = enc.layer_norm(x)
        if x.shape[1] % self.audio_pool:
            raise ValueError(f"{x.shape[1]} encoder positions per unit are not divisible by pool={self.audio_pool}")
        p = self.audio_proj
        if self.cfg.audio.projector == "minicpmo":     # 4.5's recipe: Linear -> ReLU -> pool -> Linear
            x = p.fc2(_avg_pool(F.relu(p.fc1(x)), self.audio_pool))
        else:
            x = p(_avg_pool(x, self.audio_pool))
        return x.reshape(-1, self.llm.config.hidden_size)

    def encode_frames(self, pixels: torch.Tensor) -> torch.Tensor:
        """[Fr, 3, H, W] -> [Fr * tokens_per_frame, d_llm]."""
        assert self.vision is not None and self.vision_proj is not None
        dtype = next(self.vision_proj.parameters()).dtype
        h = self.vision(pixel_values=pixels.to(dtype)).last_hidden_state
        n, p, d = h.shape
        side = int(round(p ** 0.5))
        if isinstance(self.vision_proj, Resampler):      # 4.5's recipe: queries attend to every patch
            return self.vision_proj(h, side, side).reshape(-1, self.llm.config.hidden_size)
        grid = h.transpose(1, 2).reshape(n, d, side, side)
        r = int(round(self.tokens_per_frame ** 0.5))
        pooled = F.adaptive_avg_pool2d(grid, (r, r)).flatten(2).transpose(1, 2)   # [Fr, r*r, d]
        return self.vision_proj(pooled).reshape(-1, self.llm.config.hidden_size)

    def embed(self, input_ids: torch.Tensor, audio_features: torch.Tensor,
              pixel_values: torch.Tensor | None = None) -> torch.Tensor:
        """Token embeddings with audio/image embeddings written into their placeholder slots."""
        emb = self.llm.get_input_embeddings()(input_ids)
        audio_slots = input_ids == self.audio_ph
        audio = self.encode_audio(audio_features)
        if int(audio_slots.sum()) != audio.shape[0]:
            raise ValueError(f"{int(audio_slots.sum())} audio placeholders but {audio.shape[0]} audio embeddings "
                             "(units in the batch do not match its audio features)")
        emb = emb.masked_scatter(audio_slots.unsqueeze(-1), audio.to(emb.dtype))
        image_slots = input_ids == self.image_ph
        n_img = int(image_slots.sum())
        if n_img or pixel_values is not None:
            if self.vision is None:
                raise ValueError("the batch has image slots but this model has no vision encoder "
                                 "(use an Omni config, or export without frames)")
            if pixel_values is None:
                raise ValueError(f"{n_img} image placeholders but no pixel_values")
            img = self.encode_frames(pixel_values)
            if n_img != img.shape[0]:
                raise ValueError(f"{n_img} image placeholders but {img.shape[0]} image embeddings "
                                 f"({pixel_values.shape[0]} frames x {self.tokens_per_frame})")
            emb = emb.masked_scatter(image_slots.unsqueeze(-1), img.to(emb.dtype))
        return emb

    def hidden_states(self, input_ids: torch.Tensor, attention_mask: torch.Tensor, audio_features: torch.Tensor,
                      pixel_values: torch.Tensor | None = None) -> torch.Tensor:
        emb = self.embed(input_ids, audio_features, pixel_values)
        out = self.llm.get_decoder()(inputs_embeds=emb, attention_mask=attention_mask, use_cache=False)
        return out.last_hidden_state

    def logits(self, hidden: torch.Tensor) -> torch.Tensor:
        head = self.llm.get_output_embeddings()
        return head(hidden.to(head.weight.dtype)).float()

    # ------------------------------------------------------------------ training forward
    def forward(self, input_ids: torch.Tensor, attention_mask: torch.Tensor, loss_mask: torch.Tensor,
                loss_class: torch.Tensor, audio_features: torch.Tensor, pixel_values: torch.Tensor | None = None,
                **_: Any) -> LossParts:
        """Cross-entropy of the target tokens, weighted per loss class (ModelConfig.loss_weights).

        Token t is a target when loss_mask[t] is set; it is predicted from position t-1, and
        loss_class[t] (model/protocol.loss_classes) picks its weight.
        """
        hidden = self.hidden_states(input_ids, attention_mask, audio_features, pixel_values)
        sel = loss_mask[:, 1:].bool() & attention_mask[:, 1:].bool()
        h = hidden[:, :-1][sel]
        y = input_ids[:, 1:][sel]
        cls = loss_class[:, 1:][sel].long()
        if cls.numel() and int(cls.min()) < 0:
            raise ValueError("a target token has no loss class (loss_class and loss_mask disagree)")
        w = torch.tensor(self.cfg.loss_weights.as_list(), dtype=torch.float32, device=hidden.device)[cls]
        head = self.llm.get_output_embeddings()
        total = hidden.new_zeros((), dtype=torch.float32)
        per_class = torch.zeros(len(LOSS_CLASSES), dtype=torch.float64, device=hidden.device)
        step = self.cfg.loss_chunk_tokens
        for i in range(0, h.shape[0], step):
            args = (h[i:i + step], y[i:i + step], head.weight, head.bias)
            if self.training and torch.is_grad_enabled():
                ce = checkpoint(_ce_tokens, *args, use_reentrant=False)
            else:
                ce = _ce_tokens(*args)
            total = total + (ce * w[i:i + step]).sum()
            per_class.index_add_(0, cls[i:i + step], ce.detach().double())
        return LossParts(total, per_class, torch.bincount(cls, minlength=len(LOSS_CLASSES)))


def count_parameters(model: nn.Module) -> dict[str, int]:
    parts = {"llm": model.llm, "audio": model.audio, "audio_proj": model.audio_proj}
    if model.vision is not None:
        parts.update(vision=model.vision, vision_proj=model.vision_proj)
    if model.speech_decoder is not None:
        parts.update(speech_decoder=model.speech_decoder)
    out = {k: sum(p.numel() for p in m.parameters()) for k, m in parts.items()}
    out["total"] = sum(out.values())
    return out
