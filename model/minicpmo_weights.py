"""Initialise a DuplexModel from a local MiniCPM-o 4.5 checkpoint folder (`model.init_from`).

Why: 4.5 already speaks our token layout (the export reuses its ids), so its LLM, Whisper encoder and
audio projector are the natural starting point; its vision tower, resampler and TTS too. The
resampler loads when `model.vision.projector: resampler` builds 4.5's (model/resampler.py), the TTS
when the venus recipe's `speech_decoder.backbone: minicpmtts` builds 4.5's (model/speech_decoder.py);
otherwise they are returned aside, prefix stripped.

Key names follow MiniCPM-o 4.5's own model code: repo OpenBMB/MiniCPM-o-Demo, commit
28b60cfb2a4d7156d045121e9ca2d31cd33f5d5d, files MiniCPMO45/modeling_minicpmo.py (class MiniCPMO:
`llm` = Qwen3ForCausalLM, `apm` = MiniCPMWhisperEncoder (a WhisperEncoder), `audio_projection_layer`
= MultiModalProjector linear1/linear2 with ReLU, applied *before* `audio_avg_pooler`, `vpm` =
SiglipVisionTransformer from MiniCPMO45/modeling_navit_siglip.py (no pooling head; its last layer
dropped when config `drop_vision_last_layer`), `resampler` = Resampler (query, kv_proj, attn,
ln_q/ln_kv/ln_post, proj), `tts` = MiniCPMTTS) and MiniCPMO45/configuration_minicpmo.py. The same
files sit at OpenBMB/minicpm-o-4_5-pytorch-simple-demo c7e16605.

Layout read: config.json + model.safetensors.index.json + the shards it names (or one
model.safetensors). Every key is checked against the name map from the index and the shard headers
before any tensor is read; tensors are then read one at a time, shard by shard, straight into the
model's parameters, so the checkpoint is never in memory twice.

What maps and what does not (shapes checked per tensor):
- LLM: same Qwen3 names. 4.5's embed/lm_head have fewer rows than our extended vocabulary (its ids
  are reused; our added rows follow its highest id), so their rows are copied into our first rows and
  the added rows keep their init. A checkpoint with more rows than ours is refused.
- Audio projector: same shapes only with projector_hidden = LLM width, and the same meaning only with
  `model.audio.projector: minicpmo` (ReLU, pooled after the first Linear); anything else is refused.
- Vision tower: same SigLIP names. 4.5's tower is 980 px / patch 14 (4,900 position rows, NaViT
  position ids that equal ours for a full square image), its last layer dropped when
  `drop_vision_last_layer`; so `model.vision.config` needs image_size 980 and the checkpoint's layer
  count (26 of so400m's 27), else the shape / missing-key check names the first mismatch.
  A smaller tower (`image_size` 448, 4.5's own frame size, 32 x 32 patches) takes the rows 4.5's
  NaViT embedding reads for such a frame: row (bh * 70 + bw), bh/bw the bucket of the patch's
  fractional coordinate among 70 (`navit_rows`), so its positions equal 4.5's on the same frame.
- Resampler: `resampler.` -> `vision_proj.` with `vision.projector: resampler` (same names: query,
  kv_proj, attn.in_proj_*/out_proj, ln_q/ln_kv/ln_post, proj). With the default mlp projector our
  recipe pools the grid instead, so `vision_proj` keeps its init and `resampler.*` is set aside.
  Our SigLIP's pooling head (`vision.head.*`, unused by DuplexModel) has no 4.5 counterpart.
- TTS: `tts.` -> `speech_decoder.` with `speech_decoder.backbone: minicpmtts` (same names: emb_text,
  projector_semantic.linear1/2, model.layers.*, model.norm, emb_code.0,
  head_code.0.parametrizations.weight.original0/1). Not read, by design (`UNUSED`):
  tts.model.embed_tokens (4.5 feeds its backbone inputs_embeds) and tts.projector_spk (its duplex
  path conditions on zero speaker rows). config.json's tts_config is checked for what shapes do not
  show (`TTS_FIXED`, `TTS_FIELDS`). With the venus backbone, `speech_decoder.*` keeps its own init or path.
- Components our model does not build (vision for an audio-only config) are skipped, not errors.
"""
from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

import torch
from torch import nn

from schemas.errors import UsageError

KIND = "minicpm-o-4.5"

# 4.5 key prefix -> our DuplexModel key prefix (the rest of the key is the same on both sides).
NAME_MAP: tuple[tuple[str, str], ...] = (
    ("llm.", "llm."),
    ("apm.", "audio."),
    ("audio_projection_layer.linear1.", "audio_proj.fc1."),
    ("audio_projection_layer.linear2.", "audio_proj.fc2."),
    ("vpm.", "vision."),
)
# 4.5 prefix -> our prefix, mapped only when our model builds 4.5's module (its marker key exists);
# otherwise the 4.5 tensors are set aside under the name (LoadReport.aside) and ours keep their init.
PORTED: tuple[tuple[str, str, str, str], ...] = (
    ("resampler.", "vision_proj.", "vision_proj.query", "resampler"),          # vision.projector: resampler
    ("tts.", "speech_decoder.", "speech_decoder.head_code.0.parametrizations.weight.original0", "tts"),
)
# 4.5 keys that nothing reads in 4.5's duplex path: not read when their module is ported.
UNUSED: tuple[str, ...] = ("tts.model.embed_tokens.", "tts.projector_spk.")
# Our prefixes 4.5 has no weights for: they keep their init.
OURS_ONLY: tuple[str, ...] = ("vision.head.",)
# 4.5's SigLIP position table, which a smaller square tower takes by NaViT bucketing.
POS_TABLE = ("vpm.embeddings.position_embedding.weight", "vision.embeddings.position_embedding.weight")
# tts_config fields that change what the TTS weights mean but not their shapes, with
# MiniCPMTTSConfig's defaults: (field, default, the value our decoder computes with) ...
TTS_FIXED: tuple[tuple[str, object, object], ...] = (
    ("backbone_model", "llama", "llama"), ("projector_type", "mlp", "mlp"), ("num_vq", 1, 1),
    ("condition_type", "llm_hidden", "hidden_text_merge"),
)
# ... and (field, default, the model.speech_decoder field it must equal).
TTS_FIELDS: tuple[tuple[str, object, str], ...] = (
    ("normalize_projected_hidden", False, "normalize_projected_hidden"),
    ("text_eos_token_id", 21133, "text_eos_token_id"), ("audio_bos_token_id", 21132, "audio_bos_token_id"),
    ("num_attention_heads", 12, "num_heads"),
)
# Our keys whose first rows come from 4.5 (vocabulary rows; ours may have more).
ROW_PREFIX: frozenset[str] = frozenset({"llm.model.embed_tokens.weight", "llm.lm_head.weight"})
# An our-side module the model may not build: its 4.5 counterpart is then skipped.
OPTIONAL_OURS: tuple[str, ...] = ("vision.",)


class CheckpointError(UsageError, ValueError):
    """A 4.5 checkpoint folder that does not fit the model; one line naming the folder."""


@dataclass
class LoadReport:
    """What a load did: keys copied, keys copied by leading rows (or position rows), 4.5 keys skipped
    (no such module here) or not read by design (`unused`), ours kept at init, tensors aside."""

    loaded: list[str] = field(default_factory=list)
    row_copied: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    kept_init: list[str] = field(default_factory=list)
    unused: list[str] = field(default_factory=list)
    aside: dict[str, dict[str, torch.Tensor]] = field(default_factory=dict)


def our_name(key: str, names: tuple[tuple[str, str], ...] = NAME_MAP) -> str | None:
    """Our key for a 4.5 key, or None when the name map does not cover it."""
    for src, dst in names:
        if key.startswith(src):
            return dst + key[len(src):]
    return None


def _aside(key: str) -> tuple[str, str] | None:
    for src, _, _, name in PORTED:
        if key.startswith(src):
            return name, key[len(src):]
    return None


def _ported(ours: dict[str, torch.Tensor]) -> tuple[tuple[str, str], ...]:
    """The (4.5 prefix, our prefix) pairs whose module this model builds."""
    return tuple((src, dst) for src, dst, marker, _ in PORTED if marker in ours)


def navit_rows(table_side: int, side: int) -> torch.Tensor:
    """Rows of a table_side^2 position table that 4.5's NaViT SigLIP embedding reads for a full
    side x side patch grid (row-major): each patch's fractional coordinate k/side, bucketed among
    table_side buckets (the identity when side == table_side)."""
    bounds = torch.arange(1 / table_side, 1.0, 1 / table_side)
    b = torch.bucketize(torch.arange(0, 1 - 1e-6, 1 / side), bounds, right=True)
    return (b[:, None] * table_side + b).flatten()


def _pos_rows(shape: list[int], want: list[int]) -> torch.Tensor | None:
    """navit_rows for a 4.5 position table of `shape` read into ours of `want`, or None if they do not fit."""
    big, small = round(shape[0] ** 0.5), round(want[0] ** 0.5)
    if big * big != shape[0] or small * small != want[0] or small > big or shape[1:] != want[1:]:
        return None
    return navit_rows(big, small)


def _few(keys: Iterable[str], n: int = 3) -> str:
    keys = sorted(keys)
    more = f" (+{len(keys) - n} more)" if len(keys) > n else ""
    return ", ".join(keys[:n]) + more


def shard_map(folder: Path) -> dict[str, str]:
    """4.5 key -> shard file name, from the index (or the single model.safetensors header)."""
    from safetensors import safe_open

    index, single = folder / "model.safetensors.index.json", folder / "model.safetensors"
    if index.is_file():
        try:
            wm = json.loads(index.read_text())["weight_map"]
        except (ValueError, KeyError, TypeError) as err:
            raise CheckpointError(f"{index}: not a safetensors index with a weight_map ({err})") from None
        missing = sorted({f for f in wm.values() if not (folder / f).is_file()})
        if missing:
            raise CheckpointError(f"{folder}: shard(s) named in model.safetensors.index.json are missing: "
                                  f"{_few(missing)}")
        return dict(wm)
    if single.is_file():
        with safe_open(str(single), framework="pt") as f:
            return dict.fromkeys(f.keys(), single.name)
    raise CheckpointError(f"{folder}: no model.safetensors.index.json or model.safetensors "
                          f"(a MiniCPM-o 4.5 checkpoint folder)")


def _check_config(model: nn.Module, folder: Path, tts: bool) -> None:
    """Settings that are not visible in tensor shapes but change what the weights mean."""
    p = folder / "config.json"
    try:
        conf = json.loads(p.read_text())
    except (OSError, ValueError) as err:
        raise CheckpointError(f"{p}: unreadable config.json ({err})") from None
    cfg = model.cfg
    if cfg.audio.projector != "minicpmo":
        raise CheckpointError(f"{folder}: 4.5's audio projector is Linear-ReLU-pool-Linear; "
                              "set model.audio.projector: minicpmo to load it")
    step = conf.get("audio_pool_step", 5)
    if step != cfg.audio.pool:
        raise CheckpointError(f"{p}: audio_pool_step {step} but model.audio.pool is {cfg.audio.pool}")
    if tts:
        tc, dec = conf.get("tts_config") or {}, cfg.speech_decoder
        checks = [(n, d, want, "") for n, d, want in TTS_FIXED]
        checks += [(n, d, getattr(dec, f), f" (model.speech_decoder.{f})") for n, d, f in TTS_FIELDS]
        for name, default, want, where in checks:
            if tc.get(name, default) != want:
                raise CheckpointError(f"{p}: tts_config.{name} is {tc.get(name, default)!r} but the speech "
                                      f"decoder needs {want!r}{where}")


def plan_load(ours: dict[str, torch.Tensor], keys: Iterable[str], where: Path | str,
              shapes: dict[str, list[int]] | None = None) -> tuple[dict[str, str], LoadReport]:
    """4.5 key -> our key for every tensor to copy, and the report of the rest; refuses unexpected
    and missing keys (and, given `shapes`, a tensor that does not fit) naming the first few.
    Reads nothing, so a meta-device model can be checked against a 4.5 key list."""
    ported = _ported(ours)
    rep = LoadReport()
    built = {p for p in OPTIONAL_OURS if any(k.startswith(p) for k in ours)}
    names = NAME_MAP + ported
    ours_only = OURS_ONLY + tuple(dst for src, dst, _, _ in PORTED if (src, dst) not in ported)
    targets: dict[str, str] = {}
    unexpected = []
    for key in keys:
        dst = our_name(key, names)
        if dst is not None and key.startswith(UNUSED):
            rep.unused.append(key)
        elif dst is not None and dst in ours:
            targets[key] = dst
        elif dst is not None and any(dst.startswith(p) for p in OPTIONAL_OURS) and not \
                any(dst.startswith(p) for p in built):
            rep.skipped.append(key)
        elif _aside(key) is not None and not any(key.startswith(src) for src, _ in ported):
            continue
        else:
            unexpected.append(key)
    if unexpected:
        raise CheckpointError(f"{where}: unexpected 4.5 keys (not in the name map): {_few(unexpected)}")
    covered = set(targets.values())
    missing = [k for k in ours if k not in covered and not k.startswith(ours_only)]
    if missing:
        raise CheckpointError(f"{where}: model keys the checkpoint lacks: {_few(missing)}")
    rep.kept_init = sorted(k for k in ours if k.startswith(ours_only))
    for key, shape in (shapes or {}).items():
        if key in targets:
            _check_shape(key, targets[key], shape, ours, where)
    return targets, rep


def load_minicpmo45(model: nn.Module, folder: str | Path, keep_aside: bool = True) -> LoadReport:
    """Copy a 4.5 checkpoint into an unsharded DuplexModel in place; a TTS/resampler this model has no
    4.5-shaped module for comes back aside (or, with keep_aside=False, is never read: only named)."""
    from safetensors import safe_open

    folder = Path(folder)
    if not folder.is_dir():
        raise CheckpointError(f"{folder}: model.init_from.path is not a folder")
    ours = model.state_dict(keep_vars=True)
    _check_config(model, folder, tts=any(src == "tts." for src, _ in _ported(ours)))
    wm = shard_map(folder)
    targets, rep = plan_load(ours, wm, folder)
    by_shard: dict[str, list[str]] = {}
    for key, shard in wm.items():
        by_shard.setdefault(shard, []).append(key)
    for shard, keys in by_shard.items():                    # shapes first: refuse before writing
        with safe_open(str(folder / shard), framework="pt") as f:
            have = set(f.keys())
            for key in keys:
                if key not in have:
                    raise CheckpointError(f"{folder / shard}: the index names {key} but the shard lacks it")
                if key in targets:
                    _check_shape(key, targets[key], list(f.get_slice(key).get_shape()), ours, folder)
    skipped = set(rep.skipped) | set(rep.unused)
    with torch.no_grad():
        for shard, keys in by_shard.items():
            with safe_open(str(folder / shard), framework="pt") as f:
                for key in keys:
                    if key in skipped:
                        continue
                    if key not in targets:                     # a TTS / resampler tensor
                        name, rest = _aside(key)  # type: ignore[misc]
                        bucket = rep.aside.setdefault(name, {})
                        if keep_aside:
                            bucket[rest] = f.get_tensor(key)
                        continue
                    t, dst = f.get_tensor(key), ours[targets[key]]
                    if key == POS_TABLE[0] and t.shape != dst.shape:
                        dst.copy_(t[_pos_rows(list(t.shape), list(dst.shape))])
                        rep.row_copied.append(targets[key])
                    elif t.shape[0] != dst.shape[0]:
                        dst[: t.shape[0]].copy_(t)
                        rep.row_copied.append(targets[key])
                    else:
                        dst.copy_(t)
                    rep.loaded.append(targets[key])
                    del t
    return rep


def _check_shape(key: str, dst: str, shape: list[int], ours: dict[str, torch.Tensor], folder: Path | str) -> None:
    want = list(ours[dst].shape)
    rows_ok = dst in ROW_PREFIX and shape[1:] == want[1:] and shape[0] <= want[0]
    rows_ok = rows_ok or (key == POS_TABLE[0] and _pos_rows(shape, want) is not None)
    if shape != want and not rows_ok:
        raise CheckpointError(f"{folder}: {key} has shape {shape} but {dst} is {want}")


def load_init_from(model: nn.Module, kind: str, path: str | Path, keep_aside: bool = True) -> LoadReport:
    """Dispatch on `model.init_from.kind` (one kind today)."""
    if kind != KIND:
        raise CheckpointError(f"model.init_from.kind: unknown {kind!r} (known: {KIND})")
    return load_minicpmo45(model, path, keep_aside)
