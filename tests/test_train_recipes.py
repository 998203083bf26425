"""Training recipes (model.recipe): venus and unified each train the tiny model on exported
generated rows and lower the val loss; venus keeps speech out of the LLM and its speech decoder
frozen; a checkpoint exports to safetensors that transformers loads with the same logits."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from jobs.cli import main as cli
from model.config import CONFIG_DIR
from model.train import TrainArgs, TrainHooks, train
from tests.generated import export_dataset

STEPS, VAL_EVERY = 24, 4


@pytest.fixture(scope="module")
def data(tmp_path_factory, generated) -> Path:
    """8 rows of 4 families, 4 in val (as tests/test_train.py)."""
    return export_dataset(tmp_path_factory.mktemp("t"), generated, rows=8, val_fraction=0.5)


def _config(tmp: Path, name: str) -> str:
    """The shipped recipe config, without activation checkpointing (it changes no number, only time)."""
    import yaml

    spec = yaml.safe_load((CONFIG_DIR / f"{name}.yaml").read_text())
    spec["train"].update(activation_checkpointing=False, val_every=VAL_EVERY)
    p = tmp / f"{name}.yaml"
    p.write_text(yaml.safe_dump(spec))
    return str(p)


class _Watch:
    """Snapshots of the speech decoder (venus) when the model is built and after the last step."""

    def __init__(self) -> None:
        self.before: dict | None = None
        self.after: dict | None = None
        self.trainable_names: list[str] = []

    def built(self, model, _mode) -> None:
        self.trainable_names = [n for n, p in model.named_parameters() if p.requires_grad]
        if model.speech_decoder is not None:
            self.before = {k: v.detach().clone() for k, v in model.speech_decoder.state_dict().items()}

    def done(self, model, _mode) -> None:
        if model.speech_decoder is not None:
            self.after = {k: v.detach().clone() for k, v in model.speech_decoder.state_dict().items()}
            self.grads = [p.grad for p in model.speech_decoder.parameters()]


@pytest.fixture(scope="module", params=["tiny", "venus-tiny"])
def run(request, data, tmp_path_factory):
    out = tmp_path_factory.mktemp(request.param)
    w = _Watch()
    train(TrainArgs(config=_config(out.parent, request.param), data=str(data), out=str(out / "run"),
                    max_steps=STEPS, save_every=STEPS), hooks=TrainHooks(on_built=w.built, on_done=w.done))
    return request.param, out / "run", w


def _records(out: Path) -> list[dict]:
    return [json.loads(x) for x in (out / "metrics.jsonl").read_text().splitlines()]


def test_each_recipe_lowers_val_loss(run):
    name, out, _ = run
    val = {r["step"]: r["val_loss"] for r in _records(out) if "val_loss" in r}
    assert sorted(val) == list(range(VAL_EVERY, STEPS + 1, VAL_EVERY))
    first, last = val[VAL_EVERY], val[STEPS]
    print(f"{name}: val loss {first:.4f} (step {VAL_EVERY}) -> {last:.4f} (step {STEPS})")
    assert last < 0.9 * first


def test_venus_keeps_speech_out_of_the_llm_and_its_decoder_frozen(run, data):
    name, out, w = run
    recs = _records(out)
    if name != "venus-tiny":
        # unified: speech is an LLM loss class and the LM head covers the speech rows
        assert all(r["loss_tokens_speech"] > 0 for r in recs) and w.before is None
        return
    import torch
    import torch.distributed.checkpoint as dcp

    from model.dataset import TrainSplit
    from model.protocol import ProtocolVocab

    vocab = ProtocolVocab.load(data / "tokenizer" / "protocol.json")
    # no speech class among the LLM's targets, in training or validation
    assert not any(k.endswith("_speech") for r in recs for k in r), recs[-1]
    # the LLM vocabulary stops below the speech rows (padding to 64 aside)
    ck = out / "checkpoints" / f"step-{STEPS:08d}"
    md = dcp.FileSystemReader(str(ck)).read_metadata()
    emb = md.state_dict_metadata["model.llm.model.embed_tokens.weight"].size
    assert vocab.speech_offset <= emb[0] < vocab.speech_offset + 64 < vocab.vocab_size
    # the decoder's weights are bit-identical after training, it never had a gradient, and neither
    # the optimizer nor the trainable set holds any of its parameters
    assert w.before is not None and w.after is not None and w.before.keys() == w.after.keys()
    assert all(torch.equal(w.before[k], w.after[k]) for k in w.before)
    assert all(g is None for g in w.grads)
    assert not any(n.startswith("speech_decoder.") for n in w.trainable_names)
    assert any(k.startswith("model.speech_decoder.") for k in md.state_dict_metadata)   # saved with the model
    optim_keys = [k for k in md.state_dict_metadata if k.startswith("optim.")]
    assert optim_keys and not any("speech_decoder" in k for k in optim_keys)
    assert any("llm.model.embed_tokens" in k for k in optim_keys)
    # eval-decisions reads a venus checkpoint with the venus loader
    assert cli(["eval-decisions", str(ck), "--data", str(data / "val")]) == 0
    # the venus loader: no speech id in any sample; each speaking unit's codes go to the decoder
    split = TrainSplit(data, max_seq_len=2048, recipe="venus")
    plain = TrainSplit(data, max_seq_len=2048)
    for item in dict.fromkeys(split.items):
        s, p = split.load(item), plain.load(item)
        sp = (p["input_ids"] >= vocab.speech_offset) & (p["input_ids"] < vocab.speech_offset + 6561)
        assert (s["input_ids"] < vocab.speech_offset).all()
        assert s["input_ids"].tolist() == p["input_ids"][~sp].tolist()
        assert sum(len(c) for _, c in s["speech"]) == int(sp.sum())
        assert [int(x) for _, c in s["speech"] for x in c] == (p["input_ids"][sp] - vocab.speech_offset).tolist()


def test_speech_decoder_reads_llm_states_at_speaking_positions(data):
    import torch

    from model.config import load_run_spec
    from model.dataset import TrainSplit, collate
    from model.modeling import DuplexModel
    from model.protocol import SPEAK, ProtocolVocab

    vocab = ProtocolVocab.load(data / "tokenizer" / "protocol.json")
    spec = load_run_spec("venus-tiny")
    torch.manual_seed(0)
    model = DuplexModel(spec.model, vocab)
    split = TrainSplit(data, max_seq_len=2048, recipe="venus")
    items = list(dict.fromkeys(split.items))[:2]
    b = collate([split.load(i) for i in items])
    n, T = b["speech_codes"].shape[0], b["input_ids"].shape[1]
    assert n > 0 and b["speech_codes"].shape[1] == 25
    flat = b["input_ids"].reshape(-1)
    assert (flat[b["speech_pos"][:, 0]] == vocab[SPEAK]).all()      # each condition starts at its <|speak|>
    assert (b["speech_pos"] < 2 * T).all()
    h = model.hidden_states(b["input_ids"], b["attention_mask"], b["audio_features"])
    logits = model.speech_decoder(h, b["input_ids"], b["speech_pos"], b["speech_codes"])
    assert logits.shape == (n, 25, 6561) and torch.isfinite(logits).all()
    # it reads the LLM states: other hidden states at the condition positions change its output
    h2 = h.clone().reshape(-1, h.shape[-1])
    h2[b["speech_pos"][0, 0]] += 1.0
    assert not torch.equal(model.speech_decoder(h2.reshape(h.shape), b["input_ids"], b["speech_pos"],
                                                b["speech_codes"])[0], logits[0])
    # ... and is causal in the codes: the first code's logits do not depend on the codes
    other = (b["speech_codes"] + 1) % 6561
    assert torch.equal(model.speech_decoder(h, b["input_ids"], b["speech_pos"], other)[:, 0], logits[:, 0])
    # each unit's logits are its own: the same in the batch as alone, also when its condition is cut
    from model.speech_decoder import SpeechDecoder

    short = SpeechDecoder(spec.model.speech_decoder.model_copy(update={"max_cond_tokens": 3}), 64, model.vocab_size)
    lens = (b["speech_pos"] >= 0).sum(1)
    assert lens.min() < lens.max() and lens.max() > 3
    with torch.no_grad():
        for dec in (model.speech_decoder, short):
            both = dec(h, b["input_ids"], b["speech_pos"], b["speech_codes"])
            for k in range(n):
                alone = dec(h, b["input_ids"], b["speech_pos"][k:k + 1, :int(lens[k])], b["speech_codes"][k:k + 1])
                assert torch.allclose(both[k], alone[0], atol=1e-5), k
    # the LLM-only loss has no gradient into the decoder
    model.train()
    model(**b).weighted_sum.backward()
    assert all(p.grad is None for p in model.speech_decoder.parameters())


def test_recipe_config_errors_name_the_field(tmp_path, capsys):
    import yaml

    from model.config import TrainConfigError, load_run_spec

    spec = yaml.safe_load((CONFIG_DIR / "venus-tiny.yaml").read_text())
    del spec["model"]["speech_decoder"]
    p = tmp_path / "bad.yaml"
    p.write_text(yaml.safe_dump(spec))
    with pytest.raises(TrainConfigError, match="recipe venus needs a speech_decoder"):
        load_run_spec(p)
    spec["model"]["recipe"] = "moshi"
    p.write_text(yaml.safe_dump(spec))
    with pytest.raises(TrainConfigError, match="model.recipe"):
        load_run_spec(p)


def test_export_checkpoint_loads_in_transformers_with_the_same_logits(run, data, tmp_path, capsys):
    import torch
    from safetensors.torch import load_file
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from model.eval_decisions import load_model

    name, out, _ = run
    ck = out / "checkpoints" / f"step-{STEPS:08d}"
    dest = tmp_path / "hf"
    assert cli(["export-checkpoint", str(ck), "--out", str(dest)]) == 0
    assert not list(tmp_path.glob("*.tmp"))
    man = json.loads((dest / "duplexsynth_components.json").read_text())
    assert man["recipe"] == ("venus" if name == "venus-tiny" else "unified") and man["step"] == STEPS
    ours, vocab, _ = load_model(ck)
    hf = AutoModelForCausalLM.from_pretrained(dest, local_files_only=True, dtype=torch.float32).eval()
    g = torch.Generator().manual_seed(1)
    ids = torch.randint(0, ours.vocab_size, (2, 24), generator=g)
    with torch.no_grad():
        want = ours.logits(ours.llm.get_decoder()(input_ids=ids, use_cache=False).last_hidden_state)
        got = hf(input_ids=ids).logits.float()
    assert got.shape == want.shape and torch.allclose(got, want, atol=1e-5, rtol=1e-5)
    # every other component round-trips bit for bit under its documented name
    expect = {"audio_encoder.safetensors": "audio", "audio_projector.safetensors": "audio_proj"}
    if name == "venus-tiny":
        expect["speech_decoder.safetensors"] = "speech_decoder"
    assert man["components"] == expect
    for f, attr in expect.items():
        sd = load_file(str(dest / f))
        mine = getattr(ours, attr).state_dict()
        assert sd.keys() == mine.keys() and all(torch.equal(sd[k], mine[k]) for k in sd)
    # the run's tokenizer travels along and knows the protocol ids
    tok = AutoTokenizer.from_pretrained(dest, local_files_only=True)
    assert tok.convert_tokens_to_ids("<|speak|>") == vocab["<|speak|>"]
    # a venus decoder export is a valid speech_decoder.path for the next run
    if name == "venus-tiny":
        from model.speech_decoder import SpeechDecoder, load_weights

        dec = SpeechDecoder(ours.cfg.speech_decoder, ours.llm.config.hidden_size, ours.vocab_size)
        load_weights(dec, dest)
        assert all(torch.equal(a, b) for a, b in zip(dec.state_dict().values(), ours.speech_decoder.state_dict().values()))
    # bad input: one line, exit 2, nothing written
    capsys.readouterr()
    assert cli(["export-checkpoint", str(tmp_path / "nope"), "--out", str(tmp_path / "x")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "nope" in err[0] and not (tmp_path / "x").exists()
    assert cli(["export-checkpoint", str(ck), "--out", str(dest)]) == 2
    assert "exists and is not empty" in capsys.readouterr().err
