"""Omni rows downstream: export (trainer and minicpm-o layouts), tiny-omni training, eval-decisions'
proactive-speak accuracy, and the visual figures of `duplexsynth stats`.

Rows are the real visual_qa / visual_watch rows (tests/generated.py: the planners, composer, frame
renderer and espeak-ng, validated), the seeds test_omni.py already uses, so a full session makes them once.
"""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq
import pytest
import torch

from jobs.cli import main as cli
from schemas.trajectory import TrajectoryRow, attrs_of
from tests.generated import row_texts, train_tokenizer, write_dataset

# (scenario, seed): two questions about the scene, two "tell me when ..." watches
OMNI = (("visual_qa", 1), ("visual_qa", 7), ("visual_watch", 1), ("visual_watch", 3))
IMAGE_TOKENS = 4   # tiny-omni pools each frame to 4 embeddings


@pytest.fixture(scope="module")
def omni_rows(generated) -> list[TrajectoryRow]:
    return [generated.row(s, seed, row_id=f"s0-00000-{i:07d}") for i, (s, seed) in enumerate(OMNI)]


@pytest.fixture(scope="module")
def omni_src(omni_rows, tmp_path_factory) -> Path:
    return write_dataset(tmp_path_factory.mktemp("omni") / "src", omni_rows)


@pytest.fixture(scope="module")
def omni_train(omni_src, omni_rows, tmp_path_factory) -> Path:
    """`duplexsynth export` of the Omni rows for tiny-omni: one row of each family in val."""
    root = tmp_path_factory.mktemp("omni-train")
    tok = train_tokenizer(root / "tok" / "tokenizer.json", row_texts(omni_rows))
    out = root / "train"
    assert cli(["export", str(omni_src), "--out", str(out), "--tokenizer", str(tok), "--val-fraction", "0.5",
                "--image-tokens", str(IMAGE_TOKENS)]) == 0
    return out


def _proactive_unit(row: TrajectoryRow) -> int:
    """The unit whose output starts the visual_watch announcement: from the events, not the labels."""
    (ann,) = [e for e in row.events if e.kind == "assistant_turn" and attrs_of(e).trigger == "visual"]
    return int(ann.start_s // row.unit_s) - 1


def _training_rows(train: Path) -> dict[str, dict]:
    return {r["id"]: r for split in ("train", "val") for p in sorted((train / split).glob("shard-*.parquet"))
            for r in pq.read_table(p).to_pylist()}


def test_trainer_export_puts_each_frame_before_its_units_audio(omni_train, omni_rows):
    from model.protocol import AUDIO_PH, IMAGE, IMAGE_END, IMAGE_PH, UNIT, ProtocolVocab

    vocab = ProtocolVocab.load(omni_train / "tokenizer" / "protocol.json")
    layout = json.loads((omni_train / "train" / "split.json").read_text())["layout"]
    assert layout["has_frames"] is True and layout["image_tokens_per_frame"] == IMAGE_TOKENS
    got = _training_rows(omni_train)
    assert sorted(got) == sorted(r.id for r in omni_rows)
    for row in omni_rows:
        t = got[row.id]
        assert t["frames"] == row.frames                          # the generated JPEGs, byte for byte
        assert t["unit_labels"] == [u.labels for u in row.units]
        ids, offs = t["input_ids"], t["unit_offsets"]
        assert len(offs) == len(row.units) == len(row.frames)
        for k, at in enumerate(offs):   # <unit> <image> ph x 4 </image> then the 10 audio embeds
            unit = ids[at:at + 1 + IMAGE_TOKENS + 2 + 10]
            assert unit == ([vocab[UNIT], vocab[IMAGE]] + [vocab[IMAGE_PH]] * IMAGE_TOKENS + [vocab[IMAGE_END]]
                            + [vocab[AUDIO_PH]] * 10), (row.id, k)
        assert ids.count(vocab[IMAGE_PH]) == IMAGE_TOKENS * len(row.frames)
        assert not any(t["loss_mask"][i] for i, x in enumerate(ids) if x in (vocab[IMAGE], vocab[IMAGE_PH], vocab[IMAGE_END]))


def test_minicpmo_export_gives_frame_k_to_unit_ks_video_slot(omni_rows, generated, tmp_path):
    """The SDK's own check, arrangement and tokenization of the case the export writes (MiniCPMOWriter,
    what `export --format minicpm-o` runs per row; its tokenizer is the one the test tokenizes with)."""
    pytest.importorskip("minicpm_o5_sdk")
    from minicpm_o5_sdk import O5DuplexTrainingData

    from jobs.export_minicpmo import MiniCPMOWriter
    from schemas.arrow import rows_to_table

    row, audio_only = omni_rows[2], generated.situation("turn_taking", row_id="s0-00000-0000009")
    writer = MiniCPMOWriter(tmp_path)
    for d in rows_to_table([row, audio_only]).to_pylist():
        writer.add(d)
    cases = tmp_path / "cases"
    data = {p.stem: O5DuplexTrainingData.load_structure(json.loads(p.read_text()), data_root=cases)
            for p in cases.glob("*.json")}
    assert data[audio_only.id].tracks.user_video is None
    d = data[row.id]
    segs = d.tracks.user_video.segments
    assert [(cases / s.video.file_path).read_bytes() for s in segs] == row.frames
    seen: dict[int, set] = {}
    first: dict[int, list[str]] = {}
    for prov in d.tokenize(tokenizer=writer.tokenizer).tokenized_data.token_provenance:
        if prov.unit_index is None:
            continue
        tracks = first.setdefault(prov.unit_index, [])
        if prov.track not in tracks:
            tracks.append(prov.track)
        if prov.track == "user_video" and prov.segment_index is not None:
            seen.setdefault(prov.unit_index, set()).add(prov.segment_index)
    assert seen == {k: {k} for k in range(len(row.units))}          # frame k in unit k only
    assert all(t.index("user_video") < t.index("user_audio") for k, t in first.items() if k in seen)


@pytest.fixture(scope="module")
def omni_run(omni_train, tmp_path_factory) -> Path:
    from model.train import TrainArgs, train

    out = tmp_path_factory.mktemp("omni-run")
    s = train(TrainArgs(config="tiny-omni", data=str(omni_train), out=str(out), max_steps=2, save_every=2))
    assert s["step"] == 2
    return out


def test_tiny_omni_trains_on_omni_rows_and_eval_reports_proactive_speak(omni_run, omni_train, omni_rows, tmp_path):
    losses = [json.loads(x)["loss"] for x in (omni_run / "metrics.jsonl").read_text().splitlines()]
    assert len(losses) == 2 and all(np.isfinite(losses))
    report = tmp_path / "eval.json"
    assert cli(["eval-decisions", str(omni_run), "--data", str(omni_train / "val"), "--out", str(report)]) == 0
    rep = json.loads(report.read_text())
    val = {r["id"] for r in pq.read_table(next((omni_train / "val").glob("shard-*.parquet"))).to_pylist()}
    by_family = {r.scenario: r for r in omni_rows if r.id in val}
    assert set(rep["families"]) == set(by_family) == {"visual_qa", "visual_watch"}
    assert rep["families"]["visual_qa"]["proactive_units"] == 0
    watch = rep["families"]["visual_watch"]
    assert watch["proactive_units"] == 1 and watch["proactive_speak_accuracy"] in (0.0, 1.0)
    assert rep["all"]["proactive_units"] == 1


class _Scripted:
    """A stand-in model whose decision at each slot is scripted: the true next token (an oracle),
    except `listen` at the given (row, unit) pairs. hidden_states hands each position's choice on as
    a one-hot over the vocabulary and logits passes it through."""

    def __init__(self, vocab, wrong: set[int]):
        from model.protocol import LISTEN, UNIT
        self.v, self.wrong, self.listen, self.unit = vocab, wrong, vocab[LISTEN], vocab[UNIT]
        self.size = max(vocab.ids.values()) + 1
        self.calls = 0

    def hidden_states(self, input_ids, attention_mask, audio_features, pixel_values=None):
        ids = input_ids[0].tolist()
        h = torch.zeros(1, len(ids), self.size)
        unit = -1
        for p in range(len(ids) - 1):
            if ids[p] == self.unit:
                unit += 1
            nxt = ids[p + 1]
            h[0, p, self.listen if (self.calls, unit) in self.wrong else nxt] = 1.0
        self.calls += 1
        return h

    def logits(self, h):
        return h


def test_proactive_speak_accuracy_on_a_known_case(omni_run, omni_train, omni_rows, monkeypatch):
    """Oracle decisions everywhere give 1.0; the same model silent at the one proactive unit of the
    val split's visual_watch row gives 0.0 there, and that one miss costs decision accuracy 1/units."""
    import model.eval_decisions as ev
    from model.dataset import TrainSplit

    split = TrainSplit(omni_train, split="val", image_size=32)
    order = [split.scenarios[i.shard][i.row] for i in split.items]
    rows = {r.id: r for r in omni_rows}
    (watch,) = [rows[pq.read_table(split.paths[i.shard], columns=["id"]).column("id")[i.row].as_py()]
                for i in split.items if split.scenarios[i.shard][i.row] == "visual_watch"]
    k = _proactive_unit(watch)
    real = ev.load_model
    for wrong, want in ((set(), 1.0), ({(order.index("visual_watch"), k)}, 0.0)):
        def scripted(ckpt, device=None, wrong=wrong):
            _, vocab, meta = real(ckpt, device)
            return _Scripted(vocab, wrong), vocab, meta
        monkeypatch.setattr(ev, "load_model", scripted)
        rep = ev.evaluate(omni_run, omni_train / "val")
        fam = rep["families"]["visual_watch"]
        assert (fam["proactive_units"], fam["proactive_speak_accuracy"]) == (1, want)
        assert fam["decision_accuracy"] == pytest.approx(1.0 - (1 - want) / len(watch.units))
        assert rep["families"]["visual_qa"]["decision_accuracy"] == 1.0


def test_stats_reports_visual_events_per_minute_and_proactive_latency(omni_src, omni_rows, capsys):
    assert cli(["stats", str(omni_src), "--json", "--workers", "1"]) == 0
    vis = json.loads(capsys.readouterr().out)["omni"]
    # computed here from each row's own record: the events, and the script's scene for the watched change
    minutes = sum(r.duration_s for r in omni_rows) / 60
    n_visual = sum(e.kind == "visual" for r in omni_rows for e in r.events)
    latencies = []
    for r in omni_rows:
        scene = json.loads(r.script)["scene"]
        by_id = {e.id: e for e in r.events}
        for ask in scene["asks"]:
            turn = by_id[ask["turn"]]
            if attrs_of(turn).trigger != "visual":
                continue
            (obj,) = [o for o in scene["objects"] if o["id"] == ask["object"]]
            frame = min(c["unit"] for c in obj["timeline"] if c["change"] == ask["change"])
            latencies.append(turn.start_s - frame * r.unit_s)
    assert len(latencies) == 2                                   # one per visual_watch row
    assert (vis["rows"], vis["visual_events"]) == (len(omni_rows), n_visual)
    assert vis["visual_events_per_min"] == pytest.approx(n_visual / minutes, rel=1e-6)
    lat = vis["proactive_latency_s"]
    assert lat["n"] == 2 and lat["mean"] == pytest.approx(np.mean(latencies), abs=1e-5)
    assert (lat["min"], lat["max"]) == pytest.approx((min(latencies), max(latencies)), abs=1e-5)
    assert lat["clock_floor_s"] == 1.0 and lat["min"] >= 1.0    # a reply never starts before window k+1
    assert cli(["stats", str(omni_src), "--workers", "1"]) == 0
    table = capsys.readouterr().out
    assert f"{n_visual / minutes:.1f} visual events per minute" in table and "proactive latency frame->reply   n=2" in table
