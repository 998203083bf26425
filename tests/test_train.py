"""Export -> train 40 steps (loss halves, val loss falls), kill at 20 + `--resume auto` (bit-exact), eval-decisions."""
from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

from jobs.cli import main as cli
from model.train import TrainArgs, lr_at, train
from model.config import CONFIG_DIR, load_run_spec
from tests.generated import export_dataset

ROOT = Path(__file__).resolve().parents[1]


VAL_EVERY = 10


def _losses(out: Path) -> dict[int, float]:
    return {r["step"]: r["loss"] for r in map(json.loads, (out / "metrics.jsonl").read_text().splitlines())}


@pytest.fixture(scope="module")
def data(tmp_path_factory, generated) -> Path:
    """8 rows of 4 families, one of each in val (4 train rows)."""
    return export_dataset(tmp_path_factory.mktemp("t"), generated, rows=8, val_fraction=0.5)


@pytest.fixture(scope="module")
def tiny(tmp_path_factory) -> str:
    """tiny without activation checkpointing, for every run of this module: recomputing the forward
    pass changes no number (the losses are the same), it only costs time, and what these tests
    check is the mechanics (steps, checkpoints, kill and resume). tests/test_end_to_end.py trains
    tiny.yaml as shipped, checkpointing on."""
    import yaml

    spec = yaml.safe_load((CONFIG_DIR / "tiny.yaml").read_text())
    assert spec["train"]["activation_checkpointing"] is True
    spec["train"]["activation_checkpointing"] = False
    spec["train"]["val_every"] = VAL_EVERY     # validation is no_grad, eval mode: it changes no training number
    spec["train"]["loggers"] = ["jsonl", "tensorboard"]   # read back by test_tensorboard_events_equal_the_jsonl
    p = tmp_path_factory.mktemp("cfg") / "tiny.yaml"
    p.write_text(yaml.safe_dump(spec))
    return str(p)


@dataclass(frozen=True)
class KilledRun:
    """What a `duplexsynth train` SIGKILLed after step 20 left, as seen right after the kill."""

    out: Path
    log: str                        # its output up to the kill
    returncode: int | None          # None: it ended on its own before the kill
    latest: str                     # checkpoints/latest at the kill ("" if none)
    losses: dict[int, float]        # metrics.jsonl at the kill


@dataclass(frozen=True)
class Runs:
    run40: Path
    killed: KilledRun


@pytest.fixture(scope="module")
def runs(data, tiny, tmp_path_factory) -> Runs:
    """The uninterrupted reference (40 steps of the tiny config, checkpoints at 20 and 40) and a CLI
    run of the same command killed after step 20.

    The killed run trains its first half in its own process while the reference trains here (one
    CPU thread each, so both are bit-reproducible): on 2 cores the two cost the time of one. What
    the killed run did is recorded, not asserted here: the kill test judges it.
    """
    killed = tmp_path_factory.mktemp("killed") / "run"
    log = killed.parent / "train.log"
    cmd = [sys.executable, "-m", "jobs.cli", "train", "--config", tiny, "--data", str(data), "--out", str(killed),
           "--max-steps", "40", "--save-every", "20", "--hang-after-step", "20"]
    with open(log, "w") as f:
        proc = subprocess.Popen(cmd, cwd=ROOT, stdout=f, stderr=subprocess.STDOUT)
    try:
        run40 = tmp_path_factory.mktemp("run40")
        summary = train(TrainArgs(config=tiny, data=str(data), out=str(run40), max_steps=40, save_every=20))
        assert summary["step"] == 40
        deadline = time.time() + 300
        while "waiting to be killed" not in log.read_text() and proc.poll() is None and time.time() < deadline:
            time.sleep(0.2)
    finally:
        ended_alone = proc.poll() is not None
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    latest = killed / "checkpoints" / "latest"
    metrics = killed / "metrics.jsonl"
    return Runs(run40, KilledRun(killed, log.read_text(), None if ended_alone else proc.returncode,
                                 latest.read_text().strip() if latest.is_file() else "",
                                 _losses(killed) if metrics.is_file() else {}))


@pytest.fixture(scope="module")
def run40(runs) -> Path:
    """The uninterrupted reference run (tests must not write into it)."""
    return runs.run40


def test_loss_falls_below_half_in_40_steps(run40):
    losses = _losses(run40)
    assert sorted(losses) == list(range(1, 41))
    start, end = losses[1], losses[40]
    print(f"loss {start:.4f} -> {end:.4f} ({end / start:.1%})")
    assert end < 0.5 * start


def test_val_loss_is_logged_on_the_val_rows_and_falls(run40, data):
    import pyarrow.parquet as pq

    recs = [json.loads(line) for line in (run40 / "metrics.jsonl").read_text().splitlines()]
    val = {r["step"]: r for r in recs if "val_loss" in r}
    assert sorted(val) == list(range(VAL_EVERY, 41, VAL_EVERY))
    # every target token of the val rows is counted, once (and none of the train rows')
    val_targets = sum(sum(m) for p in sorted((data / "val").glob("*.parquet"))
                      for m in pq.read_table(p, columns=["loss_mask"]).column("loss_mask").to_pylist())
    train_targets = sum(sum(m) for p in sorted((data / "train").glob("*.parquet"))
                        for m in pq.read_table(p, columns=["loss_mask"]).column("loss_mask").to_pylist())
    assert val_targets != train_targets
    for r in val.values():
        assert sum(v for k, v in r.items() if k.startswith("val_loss_tokens_")) == val_targets
        assert r["val_samples"] == 4
    first, last = val[VAL_EVERY]["val_loss"], val[40]["val_loss"]
    print(f"val loss {first:.4f} -> {last:.4f}; train loss {recs[VAL_EVERY - 1]['loss']:.4f} -> {recs[-1]['loss']:.4f}")
    assert last < 0.9 * first
    # per-class losses are reported for train and val, and the class token counts add up
    for r in (recs[-1], val[40]):
        pre = "val_" if r is val[40] else ""
        assert {f"{pre}loss_decision", f"{pre}loss_text", f"{pre}loss_speech", f"{pre}loss_chunk_eos"} <= set(r)
    assert sum(v for k, v in recs[-1].items() if k.startswith("loss_tokens_")) == recs[-1]["loss_tokens"]


def test_tensorboard_events_equal_the_jsonl(run40):
    """train.loggers tensorboard: the event file, read by tensorboard's own EventAccumulator, holds
    every step's loss and every validation step's val loss, as in metrics.jsonl."""
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    acc = EventAccumulator(str(run40 / "tensorboard"))
    acc.Reload()
    recs = [json.loads(line) for line in (run40 / "metrics.jsonl").read_text().splitlines()]
    for tag in ("loss", "val_loss", "loss_decision", "lr"):
        events = {e.step: e.value for e in acc.Scalars(tag)}
        want = {r["step"]: r[tag] for r in recs if tag in r}
        assert sorted(events) == sorted(want) and len(want) >= 4, tag
        assert all(abs(events[s] - want[s]) <= 1e-6 * max(1.0, abs(want[s])) for s in want), tag


def test_checkpoint_holds_weights_optimizer_config_and_cursor(run40):
    ck = run40 / "checkpoints"
    assert (ck / "latest").read_text().strip() == "step-00000040"
    for step in (20, 40):
        d = ck / f"step-{step:08d}"
        assert (d / ".metadata").is_file() and list(d.glob("*.distcp"))
        assert (d / "config.yaml").is_file() and (d / "protocol.json").is_file() and (d / "rng-rank00000.pt").is_file()
        state = json.loads((d / "trainer_state.json").read_text())
        assert state["step"] == step
        cur = state["cursor"]
        assert {"samples_consumed", "epoch", "epoch_seed", "shard", "row", "seed"} <= set(cur)
        assert cur["samples_consumed"] == step * 4      # tiny: micro_batch 2 x grad_accum 2
    assert not list(ck.glob("*.tmp"))


def test_kill_and_resume_auto_matches_the_uninterrupted_run(data, tiny, runs, tmp_path):
    killed = runs.killed
    assert "waiting to be killed" in killed.log, killed.log[-3000:]     # it reached step 20 and hung there
    assert "memory estimate per GPU (" in killed.log and "device memory: " in killed.log   # printed at start
    assert killed.returncode == -signal.SIGKILL
    assert killed.latest == "step-00000020"
    assert sorted(killed.losses) == list(range(1, 21))
    out = tmp_path / "run"
    shutil.copytree(killed.out, out)                  # the module's killed run stays as the kill left it
    summary = train(TrainArgs(config=tiny, data=str(data), out=str(out), resume="auto", max_steps=40, save_every=20))
    assert summary["step"] == 40
    ref, got = _losses(runs.run40), _losses(out)
    assert sorted(got) == list(range(1, 41))
    diff = max(abs(ref[s] - got[s]) for s in ref)
    print(f"resume max |loss diff| over 40 steps: {diff:.3g}")
    assert diff <= 1e-5


def test_resume_auto_without_checkpoint_starts_fresh_and_past_max_is_a_noop(data, tiny, run40, tmp_path):
    s = train(TrainArgs(config=tiny, data=str(data), out=str(run40), resume="auto", max_steps=40))
    assert s["step"] == 40 and s["checkpoint"].endswith("step-00000040")
    from model.train import TrainError

    with pytest.raises(TrainError, match="different model config"):
        train(TrainArgs(config="tiny-omni", data=str(data), out=str(run40), resume="auto", max_steps=41))
    with pytest.raises(TrainError, match="not a complete checkpoint"):
        train(TrainArgs(config=tiny, data=str(data), out=str(tmp_path), resume=str(tmp_path / "nope"), max_steps=1))


def test_eval_decisions_reports_per_family(data, run40, tmp_path, capsys):
    report = tmp_path / "eval.json"
    assert cli(["eval-decisions", str(run40 / "checkpoints" / "step-00000040"), "--data", str(data / "val"),
                "--out", str(report)]) == 0
    rep = json.loads(report.read_text())
    assert rep["step"] == 40
    assert set(rep["families"]) == {"turn_taking", "backchannel", "interruption_discard", "delegation"}
    # the metrics are what the model predicts: recomputed here from the full logits at every
    # position before a listen/speak token (an independent scan, not decision_slots)
    import torch

    from model.dataset import TrainSplit, collate
    from model.eval_decisions import load_model
    from model.protocol import LISTEN, SPEAK

    model, vocab, _ = load_model(run40 / "checkpoints" / "step-00000040")
    split = TrainSplit(data, max_seq_len=2048, split="val")
    want: dict[str, list[tuple[int, int]]] = {}
    with torch.no_grad():
        for item in dict.fromkeys(split.items):
            b = collate([split.load(item)])
            logits = model.logits(model.hidden_states(b["input_ids"], b["attention_mask"], b["audio_features"])[0])
            ids = b["input_ids"][0]
            at = torch.nonzero((ids == vocab[LISTEN]) | (ids == vocab[SPEAK])).flatten()
            pred = (logits[at - 1, vocab[SPEAK]] > logits[at - 1, vocab[LISTEN]]).long()
            want.setdefault(b["scenarios"][0], []).extend(zip((ids[at] == vocab[SPEAK]).long().tolist(), pred.tolist()))
    for fam, pairs in want.items():
        got = rep["families"][fam]
        assert got["units"] == len(pairs) and got["speak_units"] == sum(t for t, _ in pairs)
        assert got["decision_accuracy"] == pytest.approx(sum(t == p for t, p in pairs) / len(pairs), abs=1e-12)
    every = [x for pairs in want.values() for x in pairs]
    tp = sum(t == p == 1 for t, p in every)
    speak_f1 = 2 * tp / (2 * tp + sum(t != p for t, p in every)) if tp else 0.0
    assert rep["all"]["speak_f1"] == pytest.approx(speak_f1, abs=1e-12)
    assert rep["all"]["units"] == sum(f["units"] for f in rep["families"].values()) == len(every) > 0
    import pyarrow.parquet as pq

    from model.protocol import TURN_EOS, ProtocolVocab

    eos_id = ProtocolVocab.load(data / "tokenizer" / "protocol.json")[TURN_EOS]
    val_ids = [i for p in (data / "val").glob("*.parquet") for row in pq.read_table(p).column("input_ids").to_pylist()
               for i in row]
    assert rep["all"]["turn_eos_true"] == val_ids.count(eos_id) > 0
    # a run folder works too (its latest checkpoint is used)
    assert cli(["eval-decisions", str(run40), "--data", str(data / "val")]) == 0


def test_lr_schedule_warmup_then_cosine():
    spec = load_run_spec("tiny")
    t = spec.train
    assert lr_at(1, spec) == pytest.approx(t.lr / t.warmup_steps)
    assert lr_at(t.warmup_steps, spec) == pytest.approx(t.lr)
    assert lr_at(t.max_steps, spec) == pytest.approx(t.lr * t.min_lr_ratio)
    mids = [lr_at(s, spec) for s in range(t.warmup_steps, t.max_steps + 1)]
    assert all(a >= b for a, b in zip(mids, mids[1:]))


def test_cli_rejects_missing_data(tmp_path, capsys):
    assert cli(["train", "--config", "tiny", "--data", str(tmp_path / "none"), "--out", str(tmp_path / "o")]) == 2
    assert "holds no training split" in capsys.readouterr().err


class _Payload:
    """A pickle that creates a marker file when unpickled: what a tampered run folder could hold."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self):
        return (open, (str(self.marker), "w"))


def _tampered_run(run40: Path, tmp_path: Path) -> tuple[Path, Path]:
    """A copy of run40 whose latest checkpoint is step 20 (so resume has work to do)."""
    out = tmp_path / "run"
    (out / "checkpoints").mkdir(parents=True)
    shutil.copytree(run40 / "checkpoints" / "step-00000020", out / "checkpoints" / "step-00000020")
    (out / "checkpoints" / "latest").write_text("step-00000020\n")
    return out, out / "checkpoints" / "step-00000020"


@pytest.mark.parametrize("target", ["rng-rank00000.pt", ".metadata"])
def test_resume_refuses_a_checkpoint_file_holding_a_pickled_object(data, tiny, run40, tmp_path, capsys, target):
    import pickle

    import torch

    out, ck = _tampered_run(run40, tmp_path)
    marker = tmp_path / "pwned"
    if target.endswith(".pt"):
        torch.save(_Payload(marker), ck / target)
    else:
        (ck / target).write_bytes(pickle.dumps(_Payload(marker)))
    capsys.readouterr()
    assert cli(["train", "--config", tiny, "--data", str(data), "--out", str(out), "--resume", "auto",
                "--max-steps", "21"]) == 2
    err = [ln for ln in capsys.readouterr().err.splitlines() if ln.startswith("train failed")]
    assert len(err) == 1 and str(ck / target) in err[0] and "refusing to load" in err[0], err
    assert not marker.exists()
    assert not (out / "checkpoints" / "step-00000021").exists()
    # the payload is live: the unrestricted loaders the trainer used before would have run it
    if target.endswith(".pt"):
        torch.load(ck / target, weights_only=False)
    else:
        pickle.loads((ck / target).read_bytes())
    assert marker.exists()


def test_rng_state_round_trips_through_a_weights_only_file(tmp_path):
    import random

    import numpy as np
    import torch

    from model.train import _load_rng_state, _rng_state, _set_rng_state

    random.seed(3), np.random.seed(4), torch.manual_seed(5)
    random.gauss(0, 1), np.random.standard_normal()          # non-trivial gauss caches
    torch.save(_rng_state(), tmp_path / "rng.pt")
    want = (random.random(), random.gauss(0, 1), np.random.standard_normal(3).tolist(), torch.rand(3).tolist())
    random.seed(0), np.random.seed(0), torch.manual_seed(0)
    _set_rng_state(_load_rng_state(tmp_path / "rng.pt"))
    got = (random.random(), random.gauss(0, 1), np.random.standard_normal(3).tolist(), torch.rand(3).tolist())
    assert got == want


def test_checkpoint_items_load_weights_only(tmp_path):
    """A non-tensor DCP item (optimizer hyper-parameters live there) is loaded with weights_only=True."""
    import warnings

    import torch
    import torch.distributed.checkpoint as dcp

    from model.train import Env, TrainError, _dcp_load

    marker = tmp_path / "pwned"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        dcp.save({"w": torch.ones(2), "extra": _Payload(marker), "lr": 0.5}, checkpoint_id=str(tmp_path / "ck"),
                 no_dist=True)
    sd = {"w": torch.zeros(2), "lr": 0.0}
    _dcp_load(sd, tmp_path / "ck", Env())
    assert sd["lr"] == 0.5 and sd["w"].tolist() == [1.0, 1.0]
    with pytest.raises(TrainError, match=r"refusing to load checkpoint item extra"):
        _dcp_load({"w": torch.zeros(2), "extra": None}, tmp_path / "ck", Env())
    assert not marker.exists()


def test_checkpoint_metadata_cannot_reach_through_an_allowed_module(tmp_path):
    """`.metadata` may name DCP's metadata classes, not what that module imported (metadata.os.open)."""
    import pickle

    from model.train import TrainError, _read_metadata

    def su(s: str) -> bytes:                       # SHORT_BINUNICODE
        b = s.encode()
        return b"\x8c" + bytes([len(b)]) + b

    marker = tmp_path / "pwned"
    # protocol 4: STACK_GLOBAL("torch.distributed.checkpoint.metadata", "os.open")(marker, O_CREAT | O_WRONLY)
    payload = (b"\x80\x04" + su("torch.distributed.checkpoint.metadata") + su("os.open") + b"\x93"
               + su(str(marker)) + b"J" + (os.O_CREAT | os.O_WRONLY).to_bytes(4, "little") + b"\x86R.")
    (tmp_path / ".metadata").write_bytes(payload)
    with pytest.raises(TrainError, match=r"\.metadata: refusing to load .*os\.open is not checkpoint metadata"):
        _read_metadata(tmp_path)
    assert not marker.exists()
    os.close(pickle.loads(payload))                # the payload is live for a plain unpickler
    assert marker.exists()
