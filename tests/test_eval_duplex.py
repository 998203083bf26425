"""eval-duplex: hand-checked trajectories give the exact metrics; the streaming runtime runs a trained
tiny checkpoint closed-loop on generated rows (KV cache = recomputed prefix); the CLI report counts
every event of the rows."""
from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from jobs.cli import main as cli
from model.config import CONFIG_DIR
from model.duplex_metrics import (PROACTIVE, RELAY, GoldEvent, GoldUnit, ModelUnit, RESPONSE, UNITS, gold_from_row,
                                  merge, score, summarize)
from schemas.vocab import OVERLAY_KINDS, Decision, EventKind, Label
from tests.generated import export_dataset

S, L = Decision.SPEAK, Decision.LISTEN


@pytest.fixture(autouse=True)
def _one_thread():
    """One intra-op thread, as the trainer's CPU runs use (tiny.yaml cpu_threads: 1): per-token decoder
    steps are tiny, and two threads on a shared 2-core box run them ~4x slower, not faster."""
    import torch

    n = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(n)


def _units(pattern: str, labels: dict[int, tuple[str, ...]] | None = None, delegates: tuple[int, ...] = ()
           ) -> list[GoldUnit]:
    """Gold units from a picture: S speak, . listen; labels and delegates by unit."""
    labels = labels or {}
    return [GoldUnit(S if c == "S" else L, frozenset(labels.get(k, ())), k in delegates) for k, c in enumerate(pattern)]


def _model(pattern: str, delegates: tuple[int, ...] = (), eos: tuple[int, ...] = ()) -> list[ModelUnit]:
    return [ModelUnit(S if c == "S" else L, delegate=k in delegates, turn_eos=k in eos) for k, c in enumerate(pattern)]


def _user(*ks: int) -> dict[int, tuple[str, ...]]:
    return {k: (Label.USER_SPEECH,) for k in ks}


# ----------------------------------------------------------------------------- hand-checked metrics
def test_backchannel_continued_and_one_not_and_background_ignored():
    gold = _units("..SSSSSS..")
    events = [GoldEvent(EventKind.BACKCHANNEL, 3, 3), GoldEvent(EventKind.BACKCHANNEL, 5, 6),
              GoldEvent(EventKind.BACKGROUND_SPEECH, 9, 9)]
    rep = summarize(score(gold, events, _model("..SSSS.S..")))
    # the first is spoken through (unit 3 speaks), the second is not (unit 6 listens where gold speaks)
    assert rep[EventKind.BACKCHANNEL] == {"events": 2, "continuation_scored": 2, "continuation_rate": 0.5,
                                          "silent_scored": 0, "ignore_rate": None}
    # background speech while the gold is silent: the model stays silent, so it is ignored
    assert rep[EventKind.BACKGROUND_SPEECH] == {"events": 1, "continuation_scored": 0, "continuation_rate": None,
                                                "silent_scored": 1, "ignore_rate": 1.0}
    assert rep[UNITS]["agreement"] == 0.9 and rep[UNITS]["model_speak_share"] == 0.5
    assert EventKind.INTERRUPTION not in rep and EventKind.DELEGATE not in rep


def test_interruption_stopped_after_two_units_and_the_replies():
    # user 0; gold replies 1-3; the user cuts in at window 4 (speech 4-6); the gold stops at once
    # (unit 4 listens, its stop label) and answers at 7-8
    labels = {**_user(0, 4, 5, 6), 1: (Label.RESPOND,), 7: (Label.RESPOND,)}
    labels[4] = (Label.USER_SPEECH, Label.INTERRUPTION_ONSET, Label.STOP_DISCARD)
    gold = _units(".SSS...SS.", labels)
    events = [GoldEvent(EventKind.INTERRUPTION, 4, 6)]
    rep = summarize(score(gold, events, _model(".SSSSS..S.")))
    assert rep[EventKind.INTERRUPTION] == {"events": 1, "scored": 1, "response_rate": 1.0, "stop_latency_mean": 2.0,
                                           "gold_stop_latency_mean": 0.0}
    # replies: to unit 0 the model starts at 1 (1 unit, as the gold); to the interruption (last user
    # window 6) it starts at 8 (2 units; the gold 1)
    assert rep[RESPONSE] == {"events": 2, "response_rate": 1.0, "latency_mean": 1.5, "gold_latency_mean": 1.0}


def test_interruption_talked_through_is_not_a_response_and_a_silent_model_is_not_scored():
    labels = {**_user(4, 5, 6), 4: (Label.USER_SPEECH, Label.INTERRUPTION_ONSET, Label.STOP_DISCARD)}
    gold = _units(".SSS......", labels)
    ev = [GoldEvent(EventKind.INTERRUPTION, 4, 6)]
    # stops only at unit 8: the window closes one unit after the user's last window (6), so too late
    late = summarize(score(gold, ev, _model(".SSSSSSS..")))[EventKind.INTERRUPTION]
    assert (late["scored"], late["response_rate"], late["stop_latency_mean"]) == (1, 0.0, None)
    # stops at unit 7, the last unit of the window: 3 units
    assert summarize(score(gold, ev, _model(".SSSSSS...")))[EventKind.INTERRUPTION]["stop_latency_mean"] == 3.0
    silent = summarize(score(gold, ev, _model("..........")))[EventKind.INTERRUPTION]
    assert (silent["events"], silent["scored"], silent["response_rate"]) == (1, 0, None)


def test_hesitation_taken_over_and_one_held():
    # user turn 0-4 with a hesitation over windows 2-3, gold reply 5-6; user turn 8-10 with a
    # hesitation in window 9, gold reply at 11
    labels = {**_user(0, 1, 2, 3, 4, 8, 9, 10), 5: (Label.RESPOND,), 11: (Label.RESPOND,)}
    for k in (2, 3, 9):
        labels[k] = (Label.USER_SPEECH, Label.HESITATION_PAUSE)
    gold = _units(".....SS....S", labels)
    events = [GoldEvent(EventKind.PAUSE, 2, 3), GoldEvent(EventKind.PAUSE, 9, 9)]
    rep = summarize(score(gold, events, _model("..S...SS....")))
    assert rep[EventKind.PAUSE] == {"events": 2, "scored": 2, "no_takeover_rate": 0.5}
    # reply 1: last user window 4, the model starts at 6 (its takeover at 2 lies before the turn end);
    # reply 2: the model never starts before the row ends
    assert rep[RESPONSE] == {"events": 2, "response_rate": 0.5, "latency_mean": 2.0, "gold_latency_mean": 1.0}


def test_delegation_routed_and_one_missed():
    gold = _units("..SSS.SSS.", delegates=(2, 6))
    rep = summarize(score(gold, [], _model("..SSS.SSS.", delegates=(3, 9))))
    # 3 is within one unit of 2 (routed, +1); nothing lies within one unit of 6 (9 is spurious)
    assert rep[EventKind.DELEGATE] == {"gold": 2, "emitted": 2, "routed": 1, "routing_rate": 0.5, "precision": 0.5,
                                       "offset_mean": 1.0}
    # one model delegate answers one gold delegate only
    one = summarize(score(_units("....", delegates=(1, 2)), [], _model("....", delegates=(2,))))[EventKind.DELEGATE]
    assert (one["routed"], one["routing_rate"], one["offset_mean"]) == (1, 0.5, 1.0)


def test_a_relay_at_a_pause_and_one_started_over_the_user():
    # result 1 readable at unit 5 while the user speaks (5-6), gold relays at 8; result 2 at 11, the
    # user speaks at 12, gold relays at 14
    labels = {**_user(0, 1, 5, 6, 12), 2: (Label.RESPOND,)}
    labels[5] = (Label.USER_SPEECH, Label.BACKEND_RESULT)
    labels |= {8: (Label.RELAY,), 11: (Label.BACKEND_RESULT,), 14: (Label.RELAY,)}
    gold = _units("..SS....SS....SS", labels)
    rep = summarize(score(gold, [], _model("..SS...SS...SS..")))
    # relay 1: the model's first start after 5 is 7, the user silent there: 2 units from the result;
    # relay 2: its first start after 11 is 12, while the user is heard: not a relay at a pause
    assert rep[RELAY] == {"events": 2, "scored": 2, "relay_rate": 0.5, "latency_mean": 2.0, "gold_latency_mean": 3.0,
                          "started_over_user": 1}
    # a relay straight after the holding reply (result at 2; the reply ends in window 3 and, one turn per
    # unit, the relay starts in window 4): the model that ends its turn at 2 and speaks on relays 1 unit
    # after the result; one that talks straight through without a turn end does not relay
    gold = _units(".SSSS.", {1: (Label.RESPOND,), 2: (Label.BACKEND_RESULT, Label.TURN_EOS), 3: (Label.RELAY,)})
    on = summarize(score(gold, [], _model(".SSSS.", eos=(2, 4))))[RELAY]
    assert on == {"events": 1, "scored": 1, "relay_rate": 1.0, "latency_mean": 1.0, "gold_latency_mean": 1.0,
                  "started_over_user": 0}
    through = summarize(score(gold, [], _model(".SSSS.", eos=(4,))))[RELAY]
    assert (through["relay_rate"], through["latency_mean"]) == (0.0, None)


def test_proactive_after_a_timer_and_a_visual_cue_missed_before_the_user_speaks():
    # timer readable at 2, gold speaks unprompted at 3; a visual change in frame 7, gold speaks at 7;
    # the user speaks at 9
    labels = {2: (Label.TIMER_FIRED,), 3: (Label.PROACTIVE,), 7: (Label.VISUAL_EVENT, Label.PROACTIVE),
              **_user(9)}
    gold = _units("...SS..SS...", labels)
    rep = summarize(score(gold, [], _model(".....S...S..")))
    # the timer: the model starts at 5, within 3 + 2 units: 3 units after the cue; the visual cue:
    # its window closes at 8, before the user's onset at 9, and the model's start at 9 is too late
    assert rep[PROACTIVE] == {"events": 2, "scored": 2, "proactive_rate": 0.5, "latency_mean": 3.0,
                              "gold_latency_mean": 0.5, "timer_cues": 1, "visual_cues": 1}


def test_families_add_up_and_lengths_must_match():
    a = score(_units("..SSSSSS.."), [GoldEvent(EventKind.BACKCHANNEL, 3, 3)], _model("..SSSSSS.."))
    b = score(_units("..SS.."), [GoldEvent(EventKind.BACKCHANNEL, 2, 3)], _model("..S..."))
    rep = summarize(merge(merge({}, a), b))
    assert rep[EventKind.BACKCHANNEL]["events"] == 2 and rep[EventKind.BACKCHANNEL]["continuation_rate"] == 0.5
    assert rep[UNITS]["units"] == 16
    with pytest.raises(ValueError, match="5 model units for 6 gold"):
        score(_units("..SS.."), [], _model("..SS."))


# ----------------------------------------------------------------------------- real rows and a real checkpoint
@pytest.fixture(scope="module")
def data(tmp_path_factory, generated) -> Path:
    """8 rows of 4 families (the rows tests/test_train.py exports), 4 in val."""
    return export_dataset(tmp_path_factory.mktemp("ed"), generated, rows=8, val_fraction=0.5)


def _source_rows(data: Path, split: str) -> list[dict]:
    m = json.loads((data / "manifest.json").read_text())
    ids = {r for p in (data / split).glob("*.parquet") for r in pq.read_table(p, columns=["id"]).column("id").to_pylist()}
    src = Path(m["source"]["dir"])
    return [r for s in m["source"]["shards"] for r in pq.read_table(src / s["path"]).to_pylist() if r["id"] in ids]


def test_gold_events_lie_where_the_pipeline_labels_them(data):
    """gold_from_row's windows agree with the labels pipeline/units.py wrote into the same rows."""
    rows = _source_rows(data, "train") + _source_rows(data, "val")
    label_of = {EventKind.BACKCHANNEL: Label.BACKCHANNEL, EventKind.INTERRUPTION: Label.INTERRUPTION_ONSET}
    seen = Counter()
    for r in rows:
        _, events = gold_from_row(r["units"], r["events"], r["unit_s"], r["sample_rate"])
        for ev in events:
            seen[ev.kind] += 1
            assert ev.first <= ev.last < len(r["units"])
            if ev.kind in OVERLAY_KINDS:
                assert all(label_of.get(ev.kind, ev.kind) in r["units"][k]["labels"] for k in range(ev.first, ev.last + 1))
            elif ev.kind == EventKind.INTERRUPTION:
                assert Label.INTERRUPTION_ONSET in r["units"][ev.first]["labels"]
    assert seen[EventKind.BACKCHANNEL] and seen[EventKind.INTERRUPTION]


def test_the_gold_scored_as_the_model_relays_every_result_it_relays(data):
    """On the pipeline's rows (delegation relays results, some heard while the user talks), the gold
    played back as the model relays each scored result at a pause, at exactly its own latency."""
    seen = 0
    for r in _source_rows(data, "train") + _source_rows(data, "val"):
        gold, events = gold_from_row(r["units"], r["events"], r["unit_s"], r["sample_rate"])
        played = [ModelUnit(u.decision, u.delegate, turn_eos=Label.TURN_EOS in u.labels) for u in gold]
        rep = summarize(score(gold, events, played))
        if RELAY in rep and rep[RELAY]["scored"]:
            seen += rep[RELAY]["scored"]
            assert rep[RELAY]["relay_rate"] == 1.0 and rep[RELAY]["started_over_user"] == 0
            assert rep[RELAY]["latency_mean"] == rep[RELAY]["gold_latency_mean"] >= 1
    assert seen


@pytest.fixture(scope="module")
def ckpt(data, tmp_path_factory) -> Path:
    """venus-tiny trained 1 step: the checkpoint need not be good, only real."""
    import yaml

    from model.train import TrainArgs, train

    spec = yaml.safe_load((CONFIG_DIR / "venus-tiny.yaml").read_text())
    spec["train"]["activation_checkpointing"] = False
    spec["train"].pop("val_every", None)
    out = tmp_path_factory.mktemp("edrun")
    (out / "cfg.yaml").write_text(yaml.safe_dump(spec))
    train(TrainArgs(config=str(out / "cfg.yaml"), data=str(data), out=str(out / "run"), max_steps=1, save_every=1))
    return out / "run" / "checkpoints" / "step-00000001"


def test_eval_duplex_cli_counts_every_event_of_the_rows(data, ckpt, tmp_path, capsys):
    out = tmp_path / "duplex.json"
    assert cli(["eval-duplex", str(ckpt), "--data", str(data / "val"), "--out", str(out), "--max-text-tokens", "2",
                "--max-delegate-tokens", "2"]) == 0
    rep = json.loads(out.read_text())
    err = capsys.readouterr().err
    assert "closed-loop duplex @ step 1" in err and "kv_cache" in err
    rows = _source_rows(data, "val")
    assert set(rep["families"]) == {r["scenario"] for r in rows} and len(rep["rows"]) == len(rows) == 4
    for fam in rep["families"]:
        fam_rows = [r for r in rows if r["scenario"] == fam]
        got = rep["families"][fam]
        kinds = Counter(e["kind"] for r in fam_rows for e in r["events"])
        for kind in (*OVERLAY_KINDS, EventKind.INTERRUPTION, EventKind.PAUSE):
            assert got.get(kind, {}).get("events", 0) == kinds[kind], (fam, kind)
        assert got.get(EventKind.DELEGATE, {}).get("gold", 0) == kinds[EventKind.DELEGATE]
        relays = sum(Label.RELAY in u["labels"] for r in fam_rows for u in r["units"])
        assert got.get(RELAY, {}).get("events", 0) == relays
        assert got[UNITS]["units"] == sum(len(r["units"]) for r in fam_rows)
        gold_speak = sum(u["decision"] == S for r in fam_rows for u in r["units"])
        assert got[UNITS]["gold_speak_share"] * got[UNITS]["units"] == pytest.approx(gold_speak)
        for group in got.values():
            for key, val in group.items():
                if key.endswith(("_rate", "_share", "agreement", "precision")) and val is not None:
                    assert 0.0 <= val <= 1.0, (fam, key, val)
                elif key.endswith("latency_mean") and val is not None:
                    assert val >= 0
    # the model's decisions in the report are the ones it was scored on
    for r in rep["rows"]:
        assert len(r["model"]) == len(r["gold"]) == r["units"] and set(r["model"]) <= {"S", "."}
    agree = sum(a == b for r in rep["rows"] for a, b in zip(r["gold"], r["model"]))
    assert rep["all"][UNITS]["agreement"] * rep["all"][UNITS]["units"] == pytest.approx(agree)
    assert rep["all"][EventKind.DELEGATE]["emitted"] == sum(len(r["model_delegates"]) for r in rep["rows"])
    assert rep["runtime"]["context"] == "kv_cache" and rep["runtime"]["units"] == rep["all"][UNITS]["units"]
    assert any(r["model"] != r["gold"] for r in rep["rows"])     # closed loop: its own decisions, not the gold's


def test_kv_cache_gives_the_recomputed_prefix_outputs(data, ckpt):
    """The trained venus checkpoint (no speech rows): the cached runtime decodes what the one that
    recomputes the whole prefix for every token decodes, on the first units of a val row."""
    from model.dataset import Item, TrainSplit
    from model.duplex_runtime import DuplexRuntime
    from model.eval_decisions import load_model
    from model.eval_duplex import _unit_inputs

    model, vocab, meta = load_model(ckpt)
    split = TrainSplit(data / "val", split="val", recipe=meta["spec"].model.recipe)
    s = split.load(Item(0, 0, 0, 6))
    inputs = _unit_inputs(s["input_ids"], vocab)
    runs = []
    for cache in (True, False):
        rt = DuplexRuntime(model, vocab, speech_per_unit=25, use_cache=cache, max_text_tokens=3, max_delegate_tokens=3)
        runs.append(rt.run(inputs, s["audio_features"], None, emit_speech=True))
        assert rt.stats.tokens_generated > 0 and rt.stats.units == 6
    assert runs[0] == runs[1]
    assert all(o.unit.speech_tokens == 0 for o in runs[0])      # venus: the LLM writes no speech


def test_eval_duplex_bad_input_is_one_line(data, ckpt, tmp_path, capsys):
    import shutil

    assert cli(["eval-duplex", str(ckpt), "--data", str(data / "val"), "--source", str(tmp_path / "gone")]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("eval-duplex failed:") and "gone" in err and len(err.splitlines()) == 1
    # a source whose shard changed since the export: its gold would not be the exported rows' gold
    src = Path(json.loads((data / "manifest.json").read_text())["source"]["dir"])
    copy = shutil.copytree(src, tmp_path / "src")
    for p in (copy / "shards").glob("*.parquet"):
        p.write_bytes(p.read_bytes() + b"\0")
    assert cli(["eval-duplex", str(ckpt), "--data", str(data / "val"), "--source", str(copy)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("eval-duplex failed:") and "sha256 differs" in err and len(err.splitlines()) == 1


def test_unified_runtime_speaks_whole_units_of_speech_and_the_cache_changes_nothing(data):
    """A random-init tiny unified model on the first units of the shortest val row: every speak unit carries exactly one
    unit of speech tokens (the grammar), listen units none, and the KV cache decodes what the
    recomputed prefix decodes."""
    import numpy as np
    import torch
    import yaml

    from model.config import parse_run_spec
    from model.dataset import Item, TrainSplit
    from model.duplex_runtime import DuplexRuntime
    from model.eval_duplex import _unit_inputs
    from model.modeling import DuplexModel

    split = TrainSplit(data / "val", split="val")
    t = pq.read_table(split.paths[0], columns=["num_units"]).column("num_units").to_pylist()
    row = int(np.argmin(t))
    s = split.load(Item(0, row, 0, t[row]))
    spec = parse_run_spec(yaml.safe_load((CONFIG_DIR / "tiny.yaml").read_text()), "tiny.yaml")
    torch.manual_seed(0)
    model = DuplexModel(spec.model, split.vocab).eval()
    inputs = _unit_inputs(s["input_ids"], split.vocab)
    assert len(inputs) == t[row]
    inputs = inputs[:5]            # the first 5 units: the recomputed prefix is quadratic
    runs = {}
    for cache in (True, False):
        rt = DuplexRuntime(model, split.vocab, speech_per_unit=25, use_cache=cache, max_text_tokens=2,
                           max_delegate_tokens=2)
        runs[cache] = rt.run(inputs, s["audio_features"], None, emit_speech=True)
    assert runs[True] == runs[False]
    outs = runs[True]
    assert any(o.unit.decision == S for o in outs)
    for o in outs:
        assert o.unit.speech_tokens == (25 if o.unit.decision == S else 0)
        assert o.unit.text_tokens == len(o.text_ids) <= 2 and len(o.delegate_ids) <= 2
        assert o.unit.delegate or not o.delegate_ids
        assert (o.unit.decision == S) or not (o.text_ids or o.unit.turn_eos)
    # a context that cannot hold two units restarts at each unit boundary, as training samples start
    short = DuplexRuntime(model, split.vocab, speech_per_unit=25, max_text_tokens=2, max_delegate_tokens=2,
                          max_context=len(inputs[0]) + 40)
    first = short.run(inputs[:3], s["audio_features"], None, emit_speech=True)
    assert short.stats.context_resets == 2 and len(first) == 3 and first[0] == outs[0]


def test_omni_runtime_reads_each_units_frame(tmp_path, generated):
    """Omni rows: unit k's input carries its frame's image slots, filled from frame k (a frame
    count that does not match the slots would raise), and the cache still equals the recompute."""
    import torch

    from model.config import load_run_spec
    from model.dataset import Item, TrainSplit
    from model.duplex_runtime import DuplexRuntime
    from model.eval_duplex import _unit_inputs
    from model.modeling import DuplexModel
    from model.protocol import IMAGE_PH

    data = export_dataset(tmp_path, generated, rows=2, val_fraction=0.0, frames=True, image_tokens=4)
    spec = load_run_spec("tiny-omni")
    split = TrainSplit(data, image_size=spec.model.vision.config["image_size"])
    s = split.load(Item(0, 0, 0, 3))
    inputs = _unit_inputs(s["input_ids"], split.vocab)
    assert [u.count(split.vocab[IMAGE_PH]) for u in inputs] == [4, 4, 4] and s["pixel_values"].shape[0] == 3
    torch.manual_seed(0)
    model = DuplexModel(spec.model, split.vocab).eval()
    outs = [DuplexRuntime(model, split.vocab, speech_per_unit=25, use_cache=c, max_text_tokens=2,
                          max_delegate_tokens=2).run(inputs, s["audio_features"], s["pixel_values"], emit_speech=True)
            for c in (True, False)]
    assert outs[0] == outs[1] and len(outs[0]) == 3
    with pytest.raises(ValueError, match="image"):
        DuplexRuntime(model, split.vocab, speech_per_unit=25).run(inputs, s["audio_features"], None, emit_speech=True)
