"""DuplexModel: random-init from config, audio per unit pooled to 10, chunked loss, Omni, 9B shapes."""
from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F

from model.config import TrainConfigError, load_run_spec, parse_run_spec
from model.dataset import MicroBatches, TrainSplit, collate
from model.modeling import DuplexModel, count_parameters
from model.protocol import (DELEGATE, DELEGATE_END, IMAGE_PH, LISTEN, LOSS_CLASSES, LOSS_DECISION, LOSS_DELEGATE,
                            LOSS_SPEECH, NOT_A_TARGET, SPEAK, extend_vocab, load_text_tokenizer)
from tests.generated import export_dataset


@pytest.fixture(scope="module")
def data(tmp_path_factory, generated):
    return export_dataset(tmp_path_factory.mktemp("m"), generated, rows=4, val_fraction=0.0)


@pytest.fixture(scope="module")
def model_and_split(data):
    split = TrainSplit(data, max_seq_len=2048)
    torch.manual_seed(0)
    return DuplexModel(load_run_spec("tiny").model, split.vocab), split


def test_audio_is_encoded_per_unit_and_pooled_to_ten(model_and_split):
    model, _ = model_and_split
    feats = torch.randn(3, 80, 100)
    out = model.encode_audio(feats)
    assert out.shape == (30, model.llm.config.hidden_size)
    # units are independent: changing unit 2's audio leaves units 0-1 untouched
    feats2 = feats.clone()
    feats2[2] += 1.0
    out2 = model.encode_audio(feats2)
    assert torch.allclose(out[:20], out2[:20], atol=1e-6) and not torch.allclose(out[20:], out2[20:])


def test_forward_loss_equals_full_cross_entropy(model_and_split):
    model, split = model_and_split
    b = MicroBatches(split, 0, 1, world=1, rank=0, micro_batch_size=2, grad_accum=1)[0]
    model.eval()
    with torch.no_grad():
        s, _, n = model(**b)
        h = model.hidden_states(b["input_ids"], b["attention_mask"], b["audio_features"])
        logits = model.logits(h)[:, :-1]
        sel = b["loss_mask"][:, 1:] & b["attention_mask"][:, 1:].bool()
        ref = F.cross_entropy(logits[sel], b["input_ids"][:, 1:][sel], reduction="sum")
    assert int(n.sum()) == int(sel.sum()) > 0
    assert torch.allclose(s, ref, rtol=1e-5)
    # the chunked path (chunks of 7 tokens) gives the same sum and the same gradients
    model.train()
    model.zero_grad()
    s_full = model(**b).weighted_sum
    s_full.backward()
    g_full = model.llm.get_output_embeddings().weight.grad.clone()
    model.zero_grad()
    old = model.cfg
    object.__setattr__(model, "cfg", old.model_copy(update={"loss_chunk_tokens": 7}))
    try:
        s_chunk = model(**b).weighted_sum
        s_chunk.backward()
    finally:
        object.__setattr__(model, "cfg", old)
    assert torch.allclose(s_full, s_chunk, rtol=1e-5)
    g_chunk = model.llm.get_output_embeddings().weight.grad
    # a sum over every loss token of a generated session: float32 summation order differs by chunk
    # (measured: max diff 9e-5 at max |grad| 409, i.e. 2e-7 relative)
    assert torch.allclose(g_full, g_chunk, rtol=1e-5, atol=1e-6 * float(g_full.abs().max()))
    model.zero_grad()


def _delegation_batch(split: TrainSplit) -> dict:
    """One micro-batch of two whole sessions, one of them a delegation (it has every loss class)."""
    items = [next(i for i in split.items if split.scenarios[i.shard][i.row] == "delegation"), split.items[0]]
    return collate([split.load(i) for i in items])


def test_loss_classes_follow_the_token_layout(model_and_split):
    _, split = model_and_split
    b = _delegation_batch(split)
    ids, cls, mask = b["input_ids"], b["loss_class"].long(), b["loss_mask"]
    k = {c: i for i, c in enumerate(LOSS_CLASSES)}
    assert ((cls == NOT_A_TARGET) == ~mask).all()                     # a class exactly where there is loss
    v = split.vocab
    decision = (ids == v[LISTEN]) | (ids == v[SPEAK])
    assert (cls[decision] == k[LOSS_DECISION]).all() and decision.sum() > 0
    speech = (ids >= v.speech_range.start) & (ids < v.speech_range.stop)
    assert (cls[speech] == k[LOSS_SPEECH]).all() and speech.sum() > 0
    # the request's words are ordinary ids, but between the brackets they are the delegate class
    row = ids[0].tolist()
    lo, hi = row.index(v[DELEGATE]), row.index(v[DELEGATE_END])
    assert hi > lo + 1 and (cls[0, lo:hi + 1] == k[LOSS_DELEGATE]).all()
    assert cls[0, hi + 1] != k[LOSS_DELEGATE] and set(cls[0].tolist()) >= set(range(len(LOSS_CLASSES)))


@pytest.mark.parametrize("name", [LOSS_SPEECH, LOSS_DECISION])
def test_loss_weight_zero_is_the_same_as_masking_the_class(model_and_split, name):
    """Weight 0 on a class gives the loss and gradients of a batch whose loss mask drops that class."""
    model, split = model_and_split
    b = _delegation_batch(split)
    c = LOSS_CLASSES.index(name)
    old = model.cfg
    model.train()

    def run(batch: dict, **weights: float) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        cfg = old.model_copy(update={"loss_weights": old.loss_weights.model_copy(update=weights)})
        object.__setattr__(model, "cfg", cfg)
        try:
            model.zero_grad()
            out = model(**batch)
            out.weighted_sum.backward()
        finally:
            object.__setattr__(model, "cfg", old)
        return out.weighted_sum.detach(), out.class_count, model.audio_proj.fc2.weight.grad.clone()

    full, counts, g_full = run(b)
    assert counts[c] > 0
    zero, _, g_zero = run(b, **{name: 0.0})
    masked = dict(b, loss_mask=b["loss_mask"] & (b["loss_class"] != c),
                  loss_class=torch.where(b["loss_class"] == c, NOT_A_TARGET, b["loss_class"]).to(torch.int8))
    ref, ref_counts, g_ref = run(masked)
    assert ref_counts[c] == 0 and ref_counts.sum() == counts.sum() - counts[c]
    assert torch.allclose(zero, ref, rtol=1e-6) and torch.allclose(g_zero, g_ref, rtol=1e-5, atol=1e-7)
    assert not torch.allclose(full, zero, rtol=1e-3)          # the class did carry loss
    half, _, _ = run(b, **{name: 0.5})
    assert float(zero) < float(half) < float(full)
    model.zero_grad()


def test_placeholder_count_mismatch_is_an_error(model_and_split):
    model, split = model_and_split
    b = collate([split.load(split.items[0])])
    with pytest.raises(ValueError, match="audio placeholders but"):
        model.hidden_states(b["input_ids"], b["attention_mask"], b["audio_features"][:-1])
    ids = b["input_ids"].clone()
    ids[0, 0] = split.vocab[IMAGE_PH]          # the <unit> slot, not an audio slot
    with pytest.raises(ValueError, match="no vision encoder"):
        model.hidden_states(ids, b["attention_mask"], b["audio_features"])


def test_omni_tiny_forward_with_frames(tmp_path, generated):
    data = export_dataset(tmp_path, generated, rows=2, val_fraction=0.0, frames=True, image_tokens=4)
    spec = load_run_spec("tiny-omni")
    split = TrainSplit(data, max_seq_len=2048, image_size=spec.model.vision.config["image_size"])
    b = collate([split.load(split.items[0])])
    assert b["pixel_values"].shape[1:] == (3, 32, 32)
    assert int((b["input_ids"] == split.vocab[IMAGE_PH]).sum()) == 4 * b["pixel_values"].shape[0]
    torch.manual_seed(0)
    model = DuplexModel(spec.model, split.vocab)
    s, _, n = model(**b)
    s.backward()
    assert torch.isfinite(s) and n.sum() > 0
    assert model.vision_proj.fc1.weight.grad is not None and model.vision_proj.fc1.weight.grad.abs().sum() > 0


@pytest.mark.parametrize("name,total,trained,has_vision", [("venus-audio-9b", 8.73e9, 8.52e9, False),
                                                            ("venus-omni-9b", 9.18e9, 8.97e9, True)])
def test_9b_configs_have_the_documented_shapes(name, total, trained, has_vision):
    spec = load_run_spec(name)
    assert spec.memory_plan and "FSDP2" in spec.memory_plan and "16 bytes" in spec.memory_plan
    vocab = extend_vocab(load_text_tokenizer("minicpm-o45"))
    with torch.device("meta"):
        model = DuplexModel(spec.model, vocab)
    c = count_parameters(model)
    assert abs(c["total"] - total) / total < 0.005
    # recipe venus: the speech decoder is frozen, the LLM vocabulary stops below the speech rows
    assert spec.model.recipe == "venus"
    n_trained = sum(p.numel() for p in model.parameters() if p.requires_grad)
    assert abs(n_trained - trained) / trained < 0.005 and 0.2e9 < c["speech_decoder"] < 0.23e9
    assert not any(p.requires_grad for p in model.speech_decoder.parameters())
    cfg = model.llm.config
    assert (cfg.hidden_size, cfg.intermediate_size, cfg.num_hidden_layers, cfg.num_key_value_heads) == (4096, 12288, 36, 8)
    assert vocab.speech_offset == 151777
    assert model.llm.get_input_embeddings().weight.shape == (151808, 4096)
    assert model.audio.config.d_model == 1024 and len(model.audio.layers) == 24
    assert (model.vision is not None) == has_vision


def test_config_errors_name_the_field():
    with pytest.raises(TrainConfigError, match="train.lr"):
        load_run_spec("tiny", {"lr": -1})
    with pytest.raises(TrainConfigError, match="config not found: nope"):
        load_run_spec("nope")
    with pytest.raises(TrainConfigError, match="model.audio"):
        parse_run_spec({"name": "x", "model": {"llm": {"config": {"model_type": "qwen3"}}, "audio": {}}})
