"""MiniCPM-o 4.5 -> DuplexModel name map on a tiny random checkpoint written in 4.5's own layout.

The 4.5 key list below is written from 4.5's model code (see model/minicpmo_weights.py for the
source), independently of our modules, so a wrong name map shows up as missing/unexpected keys.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import pytest
import torch
import yaml
from safetensors.torch import save_file

from model.config import CONFIG_DIR, parse_run_spec
from model.minicpmo_weights import CheckpointError, load_init_from, load_minicpmo45
from model.modeling import DuplexModel
from model.protocol import AUDIO_PH, IMAGE_PH

CKPT_ROWS, OUR_ROWS = 300, 384          # 4.5's vocabulary is smaller than our extended one


@dataclass(frozen=True)
class _Vocab:
    """The three things DuplexModel reads from a ProtocolVocab."""

    vocab_size: int = 360

    @property
    def ids(self) -> dict[str, int]:
        return {AUDIO_PH: 298, IMAGE_PH: 299}

    @property
    def speech_offset(self) -> int:      # recipe venus: no speech rows in this stand-in
        return self.vocab_size

    def __getitem__(self, tok: str) -> int:
        return self.ids[tok]


def _spec(name: str) -> dict:
    d = yaml.safe_load((CONFIG_DIR / f"{name}.yaml").read_text())
    d["model"]["audio"]["projector"] = "minicpmo"
    return d


def _o45_state(omni: bool, tts: bool = True) -> dict[str, torch.Tensor]:
    """4.5's key names (MiniCPMO: llm, apm, audio_projection_layer, vpm, resampler, tts) at tiny.yaml dims."""
    g = torch.Generator().manual_seed(1)
    sd: dict[str, list[int]] = {}
    D, F, H, KV, HD = 64, 128, 4, 2, 16
    sd["llm.model.embed_tokens.weight"] = [CKPT_ROWS, D]
    sd["llm.lm_head.weight"] = [CKPT_ROWS, D]
    sd["llm.model.norm.weight"] = [D]
    for i in range(2):
        p = f"llm.model.layers.{i}."
        sd |= {p + "self_attn.q_proj.weight": [H * HD, D], p + "self_attn.k_proj.weight": [KV * HD, D],
               p + "self_attn.v_proj.weight": [KV * HD, D], p + "self_attn.o_proj.weight": [D, H * HD],
               p + "self_attn.q_norm.weight": [HD], p + "self_attn.k_norm.weight": [HD],
               p + "mlp.gate_proj.weight": [F, D], p + "mlp.up_proj.weight": [F, D],
               p + "mlp.down_proj.weight": [D, F],
               p + "input_layernorm.weight": [D], p + "post_attention_layernorm.weight": [D]}
    A = 64
    sd |= {"apm.conv1.weight": [A, 80, 3], "apm.conv1.bias": [A], "apm.conv2.weight": [A, A, 3],
           "apm.conv2.bias": [A], "apm.embed_positions.weight": [50, A],
           "apm.layer_norm.weight": [A], "apm.layer_norm.bias": [A]}
    for i in range(2):
        p = f"apm.layers.{i}."
        sd[p + "self_attn.k_proj.weight"] = [A, A]                 # Whisper's k_proj has no bias
        for n in ("v_proj", "q_proj", "out_proj"):
            sd |= {p + f"self_attn.{n}.weight": [A, A], p + f"self_attn.{n}.bias": [A]}
        for n in ("self_attn_layer_norm", "final_layer_norm"):
            sd |= {p + f"{n}.weight": [A], p + f"{n}.bias": [A]}
        sd |= {p + "fc1.weight": [128, A], p + "fc1.bias": [128], p + "fc2.weight": [A, 128], p + "fc2.bias": [A]}
    # audio_output_dim = encoder_ffn_dim // 4 = d_model for Whisper; MultiModalProjector(in, out)
    sd |= {"audio_projection_layer.linear1.weight": [D, A], "audio_projection_layer.linear1.bias": [D],
           "audio_projection_layer.linear2.weight": [D, D], "audio_projection_layer.linear2.bias": [D]}
    if omni:
        V = 32
        sd |= {"vpm.embeddings.patch_embedding.weight": [V, 3, 8, 8], "vpm.embeddings.patch_embedding.bias": [V],
               "vpm.embeddings.position_embedding.weight": [16, V],
               "vpm.post_layernorm.weight": [V], "vpm.post_layernorm.bias": [V]}
        p = "vpm.encoder.layers.0."
        for n in ("k_proj", "v_proj", "q_proj", "out_proj"):
            sd |= {p + f"self_attn.{n}.weight": [V, V], p + f"self_attn.{n}.bias": [V]}
        for n in ("layer_norm1", "layer_norm2"):
            sd |= {p + f"{n}.weight": [V], p + f"{n}.bias": [V]}
        sd |= {p + "mlp.fc1.weight": [64, V], p + "mlp.fc1.bias": [64], p + "mlp.fc2.weight": [V, 64],
               p + "mlp.fc2.bias": [V]}
        sd |= {"resampler.query": [4, D], "resampler.kv_proj.weight": [D, V],
               "resampler.attn.in_proj_weight": [3 * D, D], "resampler.attn.in_proj_bias": [3 * D],
               "resampler.attn.out_proj.weight": [D, D], "resampler.attn.out_proj.bias": [D],
               "resampler.proj": [D, D]}
        for n in ("ln_q", "ln_kv", "ln_post"):
            sd |= {f"resampler.{n}.weight": [D], f"resampler.{n}.bias": [D]}
    if tts:
        T = 16
        sd |= {"tts.emb_text.weight": [50, T], "tts.emb_code.0.weight": [33, T],
               "tts.head_code.0.parametrizations.weight.original0": [33, 1],
               "tts.head_code.0.parametrizations.weight.original1": [33, T],
               "tts.model.embed_tokens.weight": [40, T], "tts.model.norm.weight": [T],
               "tts.model.layers.0.self_attn.q_proj.weight": [T, T],
               "tts.model.layers.0.mlp.gate_proj.weight": [32, T],
               "tts.model.layers.0.input_layernorm.weight": [T]}
        for n in ("projector_spk", "projector_semantic"):
            sd |= {f"tts.{n}.linear1.weight": [T, D], f"tts.{n}.linear1.bias": [T],
                   f"tts.{n}.linear2.weight": [T, T], f"tts.{n}.linear2.bias": [T]}
    return {k: torch.randn(s, generator=g) for k, s in sd.items()}


def _write(folder: Path, state: dict[str, torch.Tensor], shards: int = 3, pool: int = 5,
           tts_config: dict | None = None) -> Path:
    """HF layout: config.json + model-0000i-of-0000n.safetensors + model.safetensors.index.json."""
    folder.mkdir(parents=True)
    keys = sorted(state)
    names = [f"model-{i + 1:05d}-of-{shards:05d}.safetensors" for i in range(shards)]
    wm = {k: names[i % shards] for i, k in enumerate(keys)}
    for n in names:
        save_file({k: state[k].contiguous() for k in keys if wm[k] == n}, str(folder / n))
    (folder / "model.safetensors.index.json").write_text(json.dumps({"metadata": {}, "weight_map": wm}))
    (folder / "config.json").write_text(json.dumps({"architectures": ["MiniCPMO"], "model_type": "minicpmo",
                                                    "hidden_size": 64, "audio_pool_step": pool,
                                                    "query_num": 4, "version": "4.5",
                                                    **({"tts_config": tts_config} if tts_config else {})}))
    return folder


def _model(name: str, vocab_rows: int = 360) -> DuplexModel:
    torch.manual_seed(0)
    return DuplexModel(parse_run_spec(_spec(name)).model, _Vocab(vocab_rows))


@pytest.mark.parametrize("name", ["tiny", "tiny-omni"])
def test_name_map_loads_every_key_and_a_forward_runs(tmp_path, name):
    omni = name == "tiny-omni"
    state = _o45_state(omni)
    folder = _write(tmp_path / "o45", state)
    model = _model(name)
    init_rows = model.llm.get_input_embeddings().weight[CKPT_ROWS:].clone()
    rep = load_init_from(model, "minicpm-o-4.5", folder)
    ours = model.state_dict()
    a = ours["llm.model.embed_tokens.weight"]
    assert a.shape[0] == OUR_ROWS > CKPT_ROWS
    # every mapped tensor equals its source (the vocabulary matrices on their first rows)
    n = 0
    for k, src in state.items():
        if k.startswith(("tts.", "resampler.")):
            continue
        dst = {"apm.": "audio.", "vpm.": "vision.", "audio_projection_layer.linear1.": "audio_proj.fc1.",
               "audio_projection_layer.linear2.": "audio_proj.fc2.", "llm.": "llm."}
        pre = next(p for p in dst if k.startswith(p))
        got = ours[dst[pre] + k[len(pre):]]
        assert torch.equal(got[: src.shape[0]], src), k
        n += 1
    assert n == len(rep.loaded) and sorted(rep.row_copied) == ["llm.lm_head.weight", "llm.model.embed_tokens.weight"]
    assert torch.equal(model.llm.get_input_embeddings().weight[CKPT_ROWS:], init_rows)   # added rows keep init
    # TTS (and the resampler for Omni) come back aside, prefix stripped, bit-equal
    assert set(rep.aside["tts"]) == {k[4:] for k in state if k.startswith("tts.")}
    assert all(torch.equal(rep.aside["tts"][k[4:]], v) for k, v in state.items() if k.startswith("tts."))
    assert ("resampler" in rep.aside) == omni
    assert rep.kept_init == sorted(k for k in ours if k.startswith(("vision_proj.", "vision.head.")))
    assert bool(rep.kept_init) == omni
    # a forward pass on the loaded weights: 2 units of audio (10 slots each) in a 40-token row
    ids = torch.randint(0, 290, (1, 40))
    ids[0, 5:25] = 298
    feats = torch.randn(2, 80, 100)
    kw = {}
    if omni:
        ids[0, 30:34] = 299
        kw["pixel_values"] = torch.randn(1, 3, 32, 32)
    mask = torch.ones_like(ids)
    out = model(ids, mask, mask.bool(), torch.zeros_like(ids), feats, **kw)
    assert torch.isfinite(out.weighted_sum) and int(out.class_count.sum()) == 39


def test_audio_only_model_skips_vision_and_minicpmo_projector_pools_after_relu(tmp_path):
    state = _o45_state(omni=True)
    folder = _write(tmp_path / "o45", state)
    model = _model("tiny")
    rep = load_minicpmo45(model, folder)
    assert rep.skipped and all(k.startswith("vpm.") for k in rep.skipped)
    # 4.5's order: its projector (Linear-ReLU-Linear) on the encoder output, then 5x average pooling
    feats = torch.randn(2, 80, 100)
    with torch.no_grad():
        h = model.audio(feats).last_hidden_state                       # [2, 50, 64]
        p = model.audio_proj
        ref = p.fc2(torch.relu(p.fc1(h))).reshape(2, 10, 5, 64).mean(2).reshape(20, 64)
        tol = 1e-5 * float(ref.abs().max())                             # random-weight activations ~1e2
        assert torch.allclose(model.encode_audio(feats), ref, atol=tol)
        pool_first = p.fc2(torch.relu(p.fc1(h.reshape(2, 10, 5, 64).mean(2)))).reshape(20, 64)
        assert not torch.allclose(pool_first, ref, atol=tol)            # the order matters with ReLU


def _err(model: DuplexModel, folder: Path) -> str:
    with pytest.raises(CheckpointError) as e:
        load_minicpmo45(model, folder)
    msg = str(e.value)
    assert "\n" not in msg and str(folder) in msg
    return msg


def test_a_renamed_key_is_named_both_ways(tmp_path):
    state = _o45_state(omni=False)
    state["apm.layers.0.fc1.weight_renamed"] = state.pop("apm.layers.0.fc1.weight")
    folder = _write(tmp_path / "bad", state)
    model = _model("tiny")
    before = model.audio.layers[1].fc2.weight.clone()
    msg = _err(model, folder)
    assert "unexpected" in msg and "apm.layers.0.fc1.weight_renamed" in msg
    assert torch.equal(model.audio.layers[1].fc2.weight, before)     # refused before writing anything
    del state["apm.layers.0.fc1.weight_renamed"]
    msg = _err(_model("tiny"), _write(tmp_path / "bad2", state))
    assert "lacks" in msg and "audio.layers.0.fc1.weight" in msg


def test_missing_shard_wrong_shape_and_recipe_are_one_line_errors(tmp_path):
    state = _o45_state(omni=False)
    folder = _write(tmp_path / "o45", state)
    (folder / "model-00002-of-00003.safetensors").unlink()
    assert "model-00002-of-00003.safetensors" in _err(_model("tiny"), folder)
    state["apm.embed_positions.weight"] = torch.randn(1500, 64)
    assert "[1500, 64]" in _err(_model("tiny"), _write(tmp_path / "shape", state))
    state = _o45_state(omni=False)
    msg = _err(_model("tiny", vocab_rows=200), _write(tmp_path / "rows", state))
    assert "llm.model.embed_tokens.weight" in msg
    assert "audio_pool_step" in _err(_model("tiny"), _write(tmp_path / "pool", state, pool=4))
    torch.manual_seed(0)
    venus = DuplexModel(parse_run_spec(yaml.safe_load((CONFIG_DIR / "tiny.yaml").read_text())).model, _Vocab())
    assert "projector: minicpmo" in _err(venus, _write(tmp_path / "venus", state))


def test_trainer_build_model_applies_init_from(tmp_path, capsys):
    from model.train import Env, build_model

    state = _o45_state(omni=False)
    folder = _write(tmp_path / "o45", state)
    d = _spec("tiny")
    d["model"]["init_from"] = {"kind": "minicpm-o-4.5", "path": str(folder)}
    model, mode = build_model(parse_run_spec(d), _Vocab(), Env())
    assert mode == "none"
    assert torch.equal(model.audio.layers[1].fc2.weight, state["apm.layers.1.fc2.weight"])
    assert torch.equal(model.audio_proj.fc1.bias, state["audio_projection_layer.linear1.bias"])
    assert "not read (no module yet): ['tts']" in capsys.readouterr().err
    d["model"]["init_from"]["kind"] = "minicpm-o-2.6"
    with pytest.raises(Exception, match="init_from.kind"):
        parse_run_spec(d)


# ----------------------------------------------------------------------------- 4.5's resampler and TTS, ported
def _resampler_reference(sd: dict[str, torch.Tensor], x: torch.Tensor, side: int) -> torch.Tensor:
    """4.5's Resampler.forward written out from its tensors (one full square frame, no key padding):
    2-D sin-cos positions on the keys only, multi-head attention from the in_proj rows, ln_post, proj."""
    import numpy as np

    def ln(t, pre):
        return torch.nn.functional.layer_norm(t, t.shape[-1:], sd[pre + ".weight"], sd[pre + ".bias"], eps=1e-6)

    d = sd["query"].shape[1]
    omega = 1.0 / 10000 ** (np.arange(d // 4, dtype=np.float32) / (d / 4))
    gw, gh = np.meshgrid(np.arange(side, dtype=np.float32), np.arange(side, dtype=np.float32))   # (H, W) each

    def one(g):
        o = np.einsum("hw,k->hwk", g, omega)
        return np.concatenate([np.sin(o), np.cos(o)], -1)
    pos = torch.from_numpy(np.concatenate([one(gw), one(gh)], -1).reshape(side * side, d))
    kv = ln(x @ sd["kv_proj.weight"].T, "ln_kv")                       # [F, P, d]
    q = ln(sd["query"], "ln_q")                                         # [Q, d]
    wq, wk, wv = sd["attn.in_proj_weight"].chunk(3)
    bq, bk, bv = sd["attn.in_proj_bias"].chunk(3)
    att = torch.softmax((q @ wq.T + bq) @ ((kv + pos) @ wk.T + bk).transpose(1, 2) / d ** 0.5, -1)   # one head
    out = (att @ (kv @ wv.T + bv)) @ sd["attn.out_proj.weight"].T + sd["attn.out_proj.bias"]
    return ln(out, "ln_post") @ sd["proj"]


def test_resampler_loads_by_name_and_equals_4_5s_computation(tmp_path):
    state = _o45_state(omni=True, tts=False)
    folder = _write(tmp_path / "o45", state)
    d = _spec("tiny-omni")
    d["model"]["vision"]["projector"] = "resampler"
    torch.manual_seed(0)
    model = DuplexModel(parse_run_spec(d).model, _Vocab())
    rep = load_minicpmo45(model, folder)
    assert "resampler" not in rep.aside and rep.kept_init == sorted(k for k in model.state_dict()
                                                                    if k.startswith("vision.head."))
    sd = {k[len("resampler."):]: v for k, v in state.items() if k.startswith("resampler.")}
    ours = model.vision_proj.state_dict()
    assert set(ours) == set(sd) and all(torch.equal(ours[k], v) for k, v in sd.items())   # none missing or extra
    x = torch.randn(2, 16, 32)
    with torch.no_grad():
        got = model.vision_proj(x, 4, 4)
        assert got.shape == (2, 4, 64)
        assert torch.allclose(got, _resampler_reference(sd, x, 4), atol=1e-5)
        assert model.encode_frames(torch.randn(3, 3, 32, 32)).shape == (3 * 4, 64)


def test_a_smaller_tower_takes_4_5s_navit_position_rows(tmp_path):
    state = _o45_state(omni=True, tts=False)
    d = _spec("tiny-omni")
    d["model"]["vision"]["config"]["image_size"] = 16            # 2 x 2 patches against 4.5's 4 x 4 table
    torch.manual_seed(0)
    model = DuplexModel(parse_run_spec(d).model, _Vocab())
    load_minicpmo45(model, _write(tmp_path / "o45", state))
    # fractional coordinates 0 and 1/2 fall in buckets 0 and 2 of 4: rows (0, 0) (0, 2) (2, 0) (2, 2)
    table = state["vpm.embeddings.position_embedding.weight"]
    assert torch.equal(model.vision.embeddings.position_embedding.weight, table[[0, 2, 8, 10]])


TTS = {"hidden_size": 16, "num_layers": 2, "num_heads": 4, "num_kv_heads": 2, "intermediate_size": 24,
       "text_eos_token_id": 7, "audio_bos_token_id": 9, "max_cond_tokens": 8, "max_speech_tokens": 6,
       "num_text_tokens": 384}
TTS_CONFIG = {"backbone_model": "llama", "projector_type": "mlp", "condition_type": "hidden_text_merge",
              "normalize_projected_hidden": True, "hidden_size": 16, "num_hidden_layers": 2, "num_attention_heads": 4,
              "num_key_value_heads": 2, "intermediate_size": 24, "num_audio_tokens": 6562, "num_text_tokens": 384,
              "num_vq": 1, "llm_dim": 64, "text_eos_token_id": 7, "audio_bos_token_id": 9}


def _tts_state() -> dict[str, torch.Tensor]:
    """4.5's MiniCPMTTS keys (LlamaModel backbone, MultiModalProjector projectors, weight-normed head)."""
    g = torch.Generator().manual_seed(2)
    T, F, KV, A = 16, 24, 8, 6562
    sd: dict[str, list[int]] = {"tts.emb_text.weight": [384, T], "tts.emb_code.0.weight": [A, T],
                                "tts.head_code.0.parametrizations.weight.original0": [A, 1],
                                "tts.head_code.0.parametrizations.weight.original1": [A, T],
                                "tts.model.embed_tokens.weight": [32000, T], "tts.model.norm.weight": [T]}
    for i in range(2):
        p = f"tts.model.layers.{i}."
        sd |= {p + "self_attn.q_proj.weight": [T, T], p + "self_attn.k_proj.weight": [KV, T],
               p + "self_attn.v_proj.weight": [KV, T], p + "self_attn.o_proj.weight": [T, T],
               p + "mlp.gate_proj.weight": [F, T], p + "mlp.up_proj.weight": [F, T], p + "mlp.down_proj.weight": [T, F],
               p + "input_layernorm.weight": [T], p + "post_attention_layernorm.weight": [T]}
    for n in ("projector_spk", "projector_semantic"):
        sd |= {f"tts.{n}.linear1.weight": [T, 64], f"tts.{n}.linear1.bias": [T],
               f"tts.{n}.linear2.weight": [T, T], f"tts.{n}.linear2.bias": [T]}
    out = {k: torch.randn(s, generator=g) for k, s in sd.items()}
    out["tts.head_code.0.parametrizations.weight.original0"] = out["tts.head_code.0.parametrizations.weight.original0"].abs()
    return out


def _venus_o45_model(**tts) -> DuplexModel:
    d = _spec("tiny")
    d["model"]["recipe"] = "venus"
    d["model"]["speech_decoder"] = {"backbone": "minicpmtts", **TTS, **tts}
    torch.manual_seed(0)
    return DuplexModel(parse_run_spec(d).model, _Vocab())


def _tts_reference(sd: dict[str, torch.Tensor], h: torch.Tensor, ids: torch.Tensor, codes: torch.Tensor) -> torch.Tensor:
    """4.5's teacher-forced TTS for one unit: [emb_text(id) + normalize(projector_semantic(h))] per
    condition token, emb_text(text_eos), emb_text(audio_bos), emb_code(previous codes), through a
    transformers LlamaModel holding the checkpoint's tensors (its unused embed_tokens too), then the
    weight-normed head."""
    from transformers import LlamaConfig, LlamaModel

    conf = LlamaConfig(hidden_size=16, intermediate_size=24, num_attention_heads=4, num_hidden_layers=2,
                       num_key_value_heads=2, bos_token_id=None, eos_token_id=None, pad_token_id=None)
    conf._attn_implementation = "eager"
    llama = LlamaModel(conf)
    llama.load_state_dict({k[len("model."):]: v for k, v in sd.items() if k.startswith("model.")}, strict=True)
    proj = torch.relu(h @ sd["projector_semantic.linear1.weight"].T + sd["projector_semantic.linear1.bias"])
    proj = proj @ sd["projector_semantic.linear2.weight"].T + sd["projector_semantic.linear2.bias"]
    emb = sd["emb_text.weight"]
    x = torch.cat([emb[ids] + torch.nn.functional.normalize(proj, dim=-1), emb[[7, 9]], sd["emb_code.0.weight"][codes[:-1]]])
    y = llama(inputs_embeds=x[None]).last_hidden_state[0, -len(codes):]
    g, v = sd["head_code.0.parametrizations.weight.original0"], sd["head_code.0.parametrizations.weight.original1"]
    return y @ (g * v / v.norm(dim=1, keepdim=True)).T


def test_tts_loads_into_the_minicpmtts_decoder_and_equals_4_5s_computation(tmp_path):
    state = _o45_state(omni=False, tts=False) | _tts_state()
    folder = _write(tmp_path / "o45", state, tts_config=TTS_CONFIG)
    model = _venus_o45_model()
    rep = load_minicpmo45(model, folder)
    assert "tts" not in rep.aside and not rep.kept_init
    assert sorted(rep.unused) == sorted(k for k in state if k.startswith(("tts.model.embed_tokens.", "tts.projector_spk.")))
    sd = {k[4:]: v for k, v in state.items() if k.startswith("tts.") and "embed_tokens" not in k and "spk" not in k}
    ours = model.speech_decoder.state_dict()
    assert set(ours) == set(sd) and all(torch.equal(ours[k], v) for k, v in sd.items())   # none missing or extra
    # two units batched: conditions of 3 and 1 positions in a 12-token row (left padding inside the decoder)
    hidden, ids = torch.randn(1, 12, 64), torch.randint(0, 300, (1, 12))
    pos = torch.tensor([[2, 3, 4], [9, -1, -1]])
    codes = torch.randint(0, 6561, (2, 5))
    with torch.no_grad():
        got = model.speech_decoder(hidden, ids, pos, codes)
        assert got.shape == (2, 5, 6562)
        for u, at in enumerate(([2, 3, 4], [9])):
            ref = _tts_reference({k[4:]: v for k, v in state.items() if k.startswith("tts.")}, hidden[0, at],
                                 ids[0, at], codes[u])
            assert torch.allclose(got[u], ref, atol=1e-4), u


def test_tts_config_the_decoder_does_not_match_is_one_line(tmp_path):
    state = _o45_state(omni=False, tts=False) | _tts_state()
    msg = _err(_venus_o45_model(audio_bos_token_id=8), _write(tmp_path / "bos", state, tts_config=TTS_CONFIG))
    assert "tts_config.audio_bos_token_id is 9" in msg and "model.speech_decoder.audio_bos_token_id" in msg
    msg = _err(_venus_o45_model(num_layers=1), _write(tmp_path / "layers", state, tts_config=TTS_CONFIG))
    assert "unexpected" in msg and "tts.model.layers.1." in msg
    # the venus backbone keeps its own decoder: 4.5's TTS is set aside, not an error
    d = _spec("tiny")
    d["model"]["recipe"] = "venus"
    d["model"]["speech_decoder"] = {"hidden_size": 16, "num_layers": 1, "num_heads": 4}
    torch.manual_seed(0)
    venus = DuplexModel(parse_run_spec(d).model, _Vocab())
    rep = load_minicpmo45(venus, _write(tmp_path / "venus", state, tts_config=TTS_CONFIG))
    assert set(rep.aside["tts"]) == {k[4:] for k in state if k.startswith("tts.")}
    assert rep.kept_init == sorted(k for k in venus.state_dict() if k.startswith("speech_decoder."))


def _o45_shapes_vision_tts(text_rows: int) -> dict[str, list[int]]:
    """4.5's vision and TTS keys at its own dims (SigLIP so400m 980 px with its last layer dropped,
    64-query resampler into a 4096-wide LLM, MiniCPMTTSConfig's TTS), shapes only."""
    V = 1152
    sd: dict[str, list[int]] = {
        "vpm.embeddings.patch_embedding.weight": [V, 3, 14, 14], "vpm.embeddings.patch_embedding.bias": [V],
        "vpm.embeddings.position_embedding.weight": [4900, V],
        "vpm.post_layernorm.weight": [V], "vpm.post_layernorm.bias": [V]}
    for i in range(26):
        p = f"vpm.encoder.layers.{i}."
        for n in ("k_proj", "v_proj", "q_proj", "out_proj"):
            sd |= {p + f"self_attn.{n}.weight": [V, V], p + f"self_attn.{n}.bias": [V]}
        for n in ("layer_norm1", "layer_norm2"):
            sd |= {p + f"{n}.weight": [V], p + f"{n}.bias": [V]}
        sd |= {p + "mlp.fc1.weight": [4304, V], p + "mlp.fc1.bias": [4304], p + "mlp.fc2.weight": [V, 4304],
               p + "mlp.fc2.bias": [V]}
    sd |= {"resampler.query": [64, 4096], "resampler.kv_proj.weight": [4096, V], "resampler.proj": [4096, 4096],
           "resampler.attn.in_proj_weight": [3 * 4096, 4096], "resampler.attn.in_proj_bias": [3 * 4096],
           "resampler.attn.out_proj.weight": [4096, 4096], "resampler.attn.out_proj.bias": [4096]}
    for n in ("ln_q", "ln_kv", "ln_post"):
        sd |= {f"resampler.{n}.weight": [4096], f"resampler.{n}.bias": [4096]}
    T, C = 768, 6562
    sd |= {"tts.emb_text.weight": [text_rows, T], "tts.emb_code.0.weight": [C, T], "tts.model.norm.weight": [T],
           "tts.head_code.0.parametrizations.weight.original0": [C, 1],
           "tts.head_code.0.parametrizations.weight.original1": [C, T], "tts.model.embed_tokens.weight": [32000, T]}
    for n in ("projector_spk", "projector_semantic"):
        sd |= {f"tts.{n}.linear1.weight": [T, 4096], f"tts.{n}.linear1.bias": [T],
               f"tts.{n}.linear2.weight": [T, T], f"tts.{n}.linear2.bias": [T]}
    for i in range(20):
        p = f"tts.model.layers.{i}."
        sd |= {p + f"self_attn.{n}_proj.weight": [T, T] for n in "qkvo"}
        sd |= {p + "mlp.gate_proj.weight": [3072, T], p + "mlp.up_proj.weight": [3072, T],
               p + "mlp.down_proj.weight": [T, 3072], p + "input_layernorm.weight": [T],
               p + "post_attention_layernorm.weight": [T]}
    return sd


def _vision_tts_keys(name: str) -> dict[str, torch.Tensor]:
    """The vision tower, vision projector and speech decoder of config `name`, built on the meta
    device as DuplexModel builds them (the LLM and audio parts are covered at tiny dims above)."""
    from model.config import load_run_spec
    from model.modeling import Projector, build_vision_encoder
    from model.resampler import Resampler
    from model.speech_decoder import build_speech_decoder

    m = load_run_spec(name).model
    with torch.device("meta"):
        parts = {"vision": build_vision_encoder(m.vision),
                 "vision_proj": Resampler(64, 4096, 32, 1152) if m.vision.projector == "resampler"
                 else Projector(1152, 4096, 4096),
                 "speech_decoder": build_speech_decoder(m.speech_decoder, 4096, 151_777)}
    return {f"{p}.{k}": v for p, mod in parts.items() for k, v in mod.state_dict().items()}


def test_venus_omni_9b_o45_fits_4_5s_vision_and_tts_and_venus_omni_9b_does_not():
    """Every 4.5 vision / resampler / TTS tensor has a place of its shape, none of ours is missing."""
    from model.minicpmo_weights import plan_load

    ours = _vision_tts_keys("venus-omni-9b-o45")
    assert ours["vision.embeddings.position_embedding.weight"].shape[0] == 32 * 32    # 448 px frames
    size = {p: sum(v.numel() for k, v in ours.items() if k.startswith(p + ".")) / 1e9
            for p in ("vision", "vision_proj", "speech_decoder")}
    # the parts of the parameter count the config states (tower + its unused head, resampler, decoder)
    assert (round(size["vision"], 4), round(size["vision_proj"], 3), round(size["speech_decoder"], 3)) == \
        (0.4133, 0.089, 0.319)
    shapes = _o45_shapes_vision_tts(ours["speech_decoder.emb_text.weight"].shape[0])
    targets, rep = plan_load(ours, shapes, "4.5", shapes)
    assert len(targets) + len(rep.unused) == len(shapes) and not rep.skipped
    assert sorted(rep.unused) == sorted(k for k in shapes if k.startswith(("tts.model.embed_tokens", "tts.projector_spk")))
    assert set(rep.kept_init) == {k for k in ours if k.startswith("vision.head.")}
    # venus-omni-9b (384 px, 27 layers, pooled grid + MLP, our own decoder): the first gap is named
    with pytest.raises(CheckpointError, match="vision.encoder.layers.26"):
        plan_load(_vision_tts_keys("venus-omni-9b"), shapes, "4.5", shapes)
