"""The venus recipe's separate speech decoder: LLM states + text of a speaking unit -> S3 tokens.

Shaped after how MiniCPM-o 4.5's TTS reads its LLM (its `hidden_text_merge` condition): per
condition token, a text embedding of the LLM's token id plus a projection of the LLM's last hidden
state (L2-normalised), then a text-end and an audio-begin embedding, then the unit's speech codes
teacher-forced through a small causal transformer that predicts the next code. It never sees the
LLM's vocabulary rows for speech (there are none in venus) and the LLM never decodes its tokens.

Batches are left-padded so every unit's speech part ends at the same position; a padded query may
attend to itself only, so no row of the attention is empty.

Two backbones (`speech_decoder.backbone`): `venus`, our own small transformer (learned positions,
learned text-end / audio-begin rows), and `minicpmtts`, 4.5's TTS itself (MiniCPMTTS in
OpenBMB/MiniCPM-o-Demo 28b60cfb MiniCPMO45/modeling_minicpmo.py, condition_type
hidden_text_merge): a Llama backbone with rotary positions; projector_semantic is Linear-ReLU-Linear
(`linear1`, `linear2`); the text-end and audio-begin rows are emb_text rows of the configured ids;
emb_code / head_code are one-codebook lists and head_code is weight-normed (weight = g * v / |v|
per row). Its parameter names are 4.5's, so `tts.*` loads by stripping the prefix. Two 4.5 modules
are not built: the backbone's embed_tokens (4.5 always feeds inputs_embeds) and projector_spk (its
duplex path conditions on zero speaker rows). Unlike 4.5's streaming generator, which keeps one
context across a reply's text chunks, a unit's condition is that unit's own text only.
"""
from __future__ import annotations

from pathlib import Path

import torch
import torch.nn.functional as F
from torch import nn

from model.config import SpeechDecoderConfig
from model.protocol import SPEECH_CODEBOOK
from model.recipes import PAD

WEIGHTS_FILE = "speech_decoder.safetensors"


class _Block(nn.Module):
    """Pre-norm transformer block (causal self-attention + GELU MLP)."""

    def __init__(self, d: int, heads: int, ffn: int):
        super().__init__()
        self.heads = heads
        self.norm1 = nn.LayerNorm(d)
        self.qkv = nn.Linear(d, 3 * d)
        self.out = nn.Linear(d, d)
        self.norm2 = nn.LayerNorm(d)
        self.fc1 = nn.Linear(d, ffn)
        self.fc2 = nn.Linear(ffn, d)

    def forward(self, x: torch.Tensor, allowed: torch.Tensor) -> torch.Tensor:
        n, t, d = x.shape
        q, k, v = self.qkv(self.norm1(x)).view(n, t, 3, self.heads, d // self.heads).permute(2, 0, 3, 1, 4)
        a = F.scaled_dot_product_attention(q, k, v, attn_mask=allowed.unsqueeze(1))
        x = x + self.out(a.transpose(1, 2).reshape(n, t, d))
        return x + self.fc2(F.gelu(self.fc1(self.norm2(x))))


class _Conditioned(nn.Module):
    """What both backbones share: the condition built from the LLM and the teacher-forced loss.
    A subclass defines emb_text, projector_semantic and forward."""

    cfg: SpeechDecoderConfig
    emb_text: nn.Embedding
    projector_semantic: nn.Module

    def condition(self, hidden: torch.Tensor, input_ids: torch.Tensor, speech_pos: torch.Tensor
                  ) -> tuple[torch.Tensor, torch.Tensor]:
        """[N, L, d] condition embeddings, right-aligned (left padding, PAD rows zero) and cut to the
        last max_cond_tokens of each unit, and their validity [N, L]."""
        order = torch.argsort((speech_pos != PAD).int(), dim=1, stable=True)   # valid positions to the end
        pos = speech_pos.gather(1, order)[:, -self.cfg.max_cond_tokens:]
        valid = pos != PAD
        at = pos.clamp(min=0)
        h = hidden.reshape(-1, hidden.shape[-1])[at]
        proj = self.projector_semantic(h.to(self.emb_text.weight.dtype))
        if self.cfg.normalize_projected_hidden:
            proj = F.normalize(proj, p=2, dim=-1)
        cond = self.emb_text(input_ids.reshape(-1)[at]) + proj
        return cond * valid.unsqueeze(-1), valid

    def loss(self, hidden: torch.Tensor, input_ids: torch.Tensor, speech_pos: torch.Tensor,
             speech_codes: torch.Tensor) -> tuple[torch.Tensor, int]:
        """(cross-entropy sum, number of codes) over the batch's speech codes."""
        if speech_codes.numel() == 0:
            return hidden.new_zeros((), dtype=torch.float32), 0
        logits = self(hidden, input_ids, speech_pos, speech_codes)
        y = speech_codes.reshape(-1)
        ce = F.cross_entropy(logits.reshape(-1, logits.shape[-1]), y.clamp(min=0), reduction="none")
        keep = y != PAD
        return (ce * keep).sum(), int(keep.sum())

    def _sequence(self, hidden: torch.Tensor, input_ids: torch.Tensor, speech_pos: torch.Tensor,
                  speech_codes: torch.Tensor, boundary: torch.Tensor, emb_code: nn.Embedding
                  ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """The input rows [N, T, d] (condition, text end, audio begin, the codes but the last), each
        row's positions [N, T] (0 at its first valid row) and the attention it allows [N, T, T]."""
        n, s = speech_codes.shape
        if s > self.cfg.max_speech_tokens:
            raise ValueError(f"{s} speech tokens per unit > speech_decoder.max_speech_tokens {self.cfg.max_speech_tokens}")
        cond, valid = self.condition(hidden, input_ids, speech_pos)
        prev = emb_code(speech_codes[:, :-1].clamp(min=0))
        x = torch.cat([cond, boundary.expand(n, 2, -1), prev], dim=1)
        ok = torch.cat([valid, valid.new_ones(n, 1 + s)], dim=1)               # [N, T]
        t = x.shape[1]
        causal = torch.ones(t, t, dtype=torch.bool, device=x.device).tril()
        allowed = (causal & ok.unsqueeze(1)) | torch.eye(t, dtype=torch.bool, device=x.device)
        return x, (ok.long().cumsum(1) - 1).clamp(min=0), allowed


class SpeechDecoder(_Conditioned):
    """backbone venus: predicts each speaking unit's speech codes from the LLM's states and token
    ids at its condition positions (model/recipes.split_speech)."""

    def __init__(self, cfg: SpeechDecoderConfig, d_llm: int, text_vocab: int):
        super().__init__()
        self.cfg = cfg
        d = cfg.hidden_size
        self.emb_text = nn.Embedding(text_vocab, d)
        self.projector_semantic = nn.Sequential(nn.Linear(d_llm, d), nn.GELU(), nn.Linear(d, d))
        self.boundary = nn.Parameter(torch.randn(2, d) * 0.02)        # text end, audio begin
        self.emb_code = nn.Embedding(SPEECH_CODEBOOK, d)
        self.emb_pos = nn.Embedding(cfg.max_cond_tokens + 2 + cfg.max_speech_tokens, d)
        self.layers = nn.ModuleList(_Block(d, cfg.num_heads, cfg.intermediate_size or 4 * d)
                                    for _ in range(cfg.num_layers))
        self.norm = nn.LayerNorm(d)
        self.head_code = nn.Linear(d, SPEECH_CODEBOOK, bias=False)

    def forward(self, hidden: torch.Tensor, input_ids: torch.Tensor, speech_pos: torch.Tensor,
                speech_codes: torch.Tensor) -> torch.Tensor:
        """Logits [N, S, SPEECH_CODEBOOK] of each unit's codes (teacher-forced)."""
        x, pos, allowed = self._sequence(hidden, input_ids, speech_pos, speech_codes, self.boundary, self.emb_code)
        x = x + self.emb_pos(pos)
        for layer in self.layers:
            x = layer(x, allowed)
        return self.head_code(self.norm(x[:, -speech_codes.shape[1]:])).float()


class _ReluMLP(nn.Module):
    """4.5's MultiModalProjector (projector_type mlp): linear1 -> ReLU -> linear2."""

    def __init__(self, d_in: int, d_out: int):
        super().__init__()
        self.linear1 = nn.Linear(d_in, d_out)
        self.linear2 = nn.Linear(d_out, d_out)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.linear2(F.relu(self.linear1(x)))


class MiniCPMTTSDecoder(_Conditioned):
    """backbone minicpmtts: 4.5's TTS structure and names (see the module docstring)."""

    def __init__(self, cfg: SpeechDecoderConfig, d_llm: int, text_vocab: int):
        from torch.nn.utils.parametrizations import weight_norm
        from transformers import LlamaConfig, LlamaModel

        super().__init__()
        self.cfg = cfg
        d = cfg.hidden_size
        n_text = cfg.num_text_tokens or text_vocab
        for name in ("text_eos_token_id", "audio_bos_token_id"):
            if getattr(cfg, name) >= n_text:
                raise ValueError(f"speech_decoder.{name} {getattr(cfg, name)} is not below its {n_text} emb_text rows")
        self.emb_text = nn.Embedding(n_text, d)
        self.projector_semantic = _ReluMLP(d_llm, d)
        conf = LlamaConfig(hidden_size=d, intermediate_size=cfg.intermediate_size or 4 * d,
                           num_attention_heads=cfg.num_heads, num_hidden_layers=cfg.num_layers,
                           num_key_value_heads=cfg.num_kv_heads or cfg.num_heads, vocab_size=1,
                           bos_token_id=None, eos_token_id=None, pad_token_id=None,
                           max_position_embeddings=cfg.max_cond_tokens + 2 + cfg.max_speech_tokens)
        conf._attn_implementation = "sdpa"
        self.model = LlamaModel(conf)
        del self.model.embed_tokens                      # never used: 4.5 feeds inputs_embeds
        self.emb_code = nn.ModuleList([nn.Embedding(cfg.num_audio_tokens, d)])
        self.head_code = nn.ModuleList([weight_norm(nn.Linear(d, cfg.num_audio_tokens, bias=False), name="weight")])
        self.register_buffer("boundary_ids", torch.tensor([cfg.text_eos_token_id, cfg.audio_bos_token_id]),
                             persistent=False)

    def forward(self, hidden: torch.Tensor, input_ids: torch.Tensor, speech_pos: torch.Tensor,
                speech_codes: torch.Tensor) -> torch.Tensor:
        """Logits [N, S, num_audio_tokens] of each unit's codes (teacher-forced; the last is 4.5's stop code)."""
        x, pos, allowed = self._sequence(hidden, input_ids, speech_pos, speech_codes,
                                         self.emb_text(self.boundary_ids), self.emb_code[0])
        rope = self.model.rotary_emb(x, pos)
        mask = allowed.unsqueeze(1)
        for layer in self.model.layers:
            x = layer(x, attention_mask=mask, position_ids=pos, position_embeddings=rope)
        return self.head_code[0](self.model.norm(x[:, -speech_codes.shape[1]:])).float()


BACKBONES: dict[str, type[_Conditioned]] = {"venus": SpeechDecoder, "minicpmtts": MiniCPMTTSDecoder}


def build_speech_decoder(cfg: SpeechDecoderConfig, d_llm: int, text_vocab: int,
                         read_weights: bool = True) -> _Conditioned:
    """The frozen decoder: weights from `cfg.path` when given (not read with read_weights=False:
    rank 0's are broadcast), else random init (said on stderr)."""
    import sys

    dec = BACKBONES[cfg.backbone](cfg, d_llm, text_vocab)
    if cfg.path:
        if read_weights:
            load_weights(dec, Path(cfg.path))
    elif not any(p.is_meta for p in dec.parameters()):
        print("speech decoder: random init (no model.speech_decoder.path; a checkpoint load replaces it); "
              "it is frozen, so it speaks only once trained weights are given", file=sys.stderr, flush=True)
    dec.requires_grad_(False)
    return dec


def load_weights(dec: _Conditioned, path: Path) -> None:
    """Strict load of a safetensors file (or DIR/speech_decoder.safetensors); a bad path is one line."""
    from safetensors.torch import load_file

    from model.config import TrainConfigError

    f = path / WEIGHTS_FILE if path.is_dir() else path
    if not f.is_file():
        raise TrainConfigError(f"model.speech_decoder.path: {f} not found (a {WEIGHTS_FILE} file or a folder holding one)")
    sd = load_file(str(f))
    try:
        missing, unexpected = dec.load_state_dict(sd, strict=False)
    except RuntimeError as err:   # shapes differ
        raise TrainConfigError(f"model.speech_decoder.path: {f} does not fit the configured decoder "
                               f"({str(err).splitlines()[-1].strip()})") from None
    if missing or unexpected:
        raise TrainConfigError(f"model.speech_decoder.path: {f} does not fit the configured decoder "
                               f"(missing {sorted(missing)[:3]}, unexpected {sorted(unexpected)[:3]})")
