"""schemas/ owns the contract (DESIGN §4): every name is defined there once, and a wrong one fails early.

- No stage module spells an event kind, label, decision, trigger, interruption action, task
  outcome, attrs key or protocol token as a quoted string: it names it from schemas (an `ast` scan
  that reports file:line).
- A wrong kind, attrs key or label fails when the object is built.
- The Arrow schema derived from the pydantic models equals the one shards have always had.
- Every event of a real generated row, for every scenario family, parses through its kind's model.
"""
from __future__ import annotations

import ast
import json
from pathlib import Path

import numpy as np
import pyarrow as pa
import pytest
from pydantic import BaseModel, ValidationError

from schemas import attrs as attrs_mod
from schemas import config as config_mod
from schemas import script as script_mod
from schemas import trajectory as trajectory_mod
from schemas.arrow import FAILED_SCHEMA, TRAJECTORY_SCHEMA
from schemas.attrs import ATTRS_MODEL, attrs_keys, dump_attrs, parse_attrs
from schemas.protocol import LEAK_TOKENS
from schemas.trajectory import Event, Unit, attrs_of, make_event
from schemas.vocab import Decision, EventKind, InterruptAction, Label, Role, TaskOutcome, Trigger

ROOT = Path(__file__).resolve().parents[1]
STAGE_DIRS = ("generators", "pipeline", "jobs", "model", "benchmarks")

# Stage files not yet converted to the schemas names. Remove an entry once its file is.
NOT_YET_CONVERTED: tuple[str, ...] = ()
# Content, not stage code: text banks are sentences (DESIGN §6), where "cancelled" is just a word.
CONTENT_DIRS: tuple[str, ...] = ("generators/banks",)
# The same spelling used for a different concept; (file, word) -> why it is not the contract word.
COINCIDENCES: dict[tuple[str, str], str] = {
    ("pipeline/stats.py", "pause"): "a figure name (pause_s) in the report, not the event kind",
    ("pipeline/stats.py", "speak"): "a column header of the report",
    ("generators/harness/registry.py", "timer"): "the harness tool named timer (schemas.config tools)",
    ("generators/harness/registry.py", "cancelled"): "a field of the calendar tool's result",
    ("jobs/export_fdb.py", "background_speech"): "Full-Duplex-Bench v1.5's subset folder name, not the event kind",
}

# Vocabularies whose values are distinct words. Role ("user", "assistant") and TaskStatus ("ok",
# "error") are left out, and so is any value spelt like a role (Trigger.USER): the same words name
# audio channels, result fields and failures everywhere.
VALUE_VOCAB: dict[str, type] = {"event kind": EventKind, "label": Label, "decision": Decision,
                                "trigger": Trigger, "interruption action": InterruptAction,
                                "task outcome": TaskOutcome}


def _model_fields(*modules: object) -> set[str]:
    out: set[str] = set()
    for mod in modules:
        for obj in vars(mod).values():
            if isinstance(obj, type) and issubclass(obj, BaseModel) and obj.__module__ == mod.__name__:
                out.update(obj.model_fields)
    return out


# Field names of the stored and script models: a column or field read by name (u["delegate"],
# d.get("task_id"), a tuple of column names) is a field, not a vocabulary value.
FIELD_NAMES = _model_fields(trajectory_mod, script_mod, config_mod)
# Compound attrs keys (cut_s, relay_turn, react_unit...). One-word keys (action, status, unit) are
# everyday words all over the code; the typed models (extra="forbid") are what guards those.
ATTRS_KEYS = frozenset(k for k in attrs_keys() if "_" in k)


def _vocab() -> dict[str, str]:
    """word -> what it is, for every word the scan looks for."""
    roles = {str(r) for r in Role}
    out: dict[str, str] = {}
    for name, enum in VALUE_VOCAB.items():
        for v in enum:
            if str(v) not in roles:
                out[str(v)] = f"{out[str(v)]}/{name}" if str(v) in out else name
    out.update({k: "attrs key" for k in ATTRS_KEYS if k not in out})
    return out


_LOOKUPS = {"get", "pop", "setdefault", "getattr", "hasattr"}


def _field_positions(tree: ast.AST) -> set[int]:
    """ids of string constants used where a field name goes: subscript, .get(), dict key, tuple item."""
    ok: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Subscript):
            ok.add(id(node.slice))
        elif isinstance(node, ast.Call):
            f = node.func
            name = f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else ""
            if name in _LOOKUPS:
                ok.update(id(a) for a in node.args)
        elif isinstance(node, ast.Dict):
            ok.update(id(k) for k in node.keys if k is not None)
        elif isinstance(node, (ast.Tuple, ast.List)):
            ok.update(id(e) for e in node.elts)
    return ok


def _docstrings(tree: ast.AST) -> set[int]:
    out: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
            out.add(id(node.value))   # docstrings and other bare string statements
    return out


def contract_literals(path: Path, rel: str) -> list[str]:
    """'file:line: what' for every quoted contract name in one stage module."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    vocab, fields, skip = _vocab(), _field_positions(tree), _docstrings(tree)
    found: list[tuple[int, int, str]] = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Constant) or not isinstance(node.value, str) or id(node) in skip:
            continue
        s = node.value
        tokens = [t for t in LEAK_TOKENS if t in s]
        if tokens:
            found.append((node.lineno, node.col_offset, f"{rel}:{node.lineno}: protocol token {tokens[0]} in {s[:40]!r}"))
            continue
        if s not in vocab or (rel, s) in COINCIDENCES:
            continue
        if s in FIELD_NAMES and id(node) in fields:
            continue
        found.append((node.lineno, node.col_offset, f"{rel}:{node.lineno}: {vocab[s]} {s!r}"))
    return [msg for _, _, msg in sorted(found)]


def test_no_contract_literal_in_stage_code():
    files = sorted(p for d in STAGE_DIRS for p in (ROOT / d).rglob("*.py"))
    assert files
    found: list[str] = []
    for p in files:
        rel = p.relative_to(ROOT).as_posix()
        if rel not in NOT_YET_CONVERTED and not rel.startswith(CONTENT_DIRS):
            found += contract_literals(p, rel)
    assert not found, ("stage code spells contract names; import them from schemas "
                       "(schemas/vocab.py, schemas/attrs.py, schemas/protocol.py):\n" + "\n".join(found))


def test_the_scan_finds_what_it_looks_for(tmp_path):
    """The scan itself: a kind comparison, an attrs key read, a label and a token are all reported."""
    src = tmp_path / "stage.py"
    src.write_text('"""Doc mentions interruption and <unit>, which is fine."""\n'
                   'def f(e, a, u):\n'
                   '    if e.kind == "interruption":\n'
                   '        return a["cut_s"], "stop_repair", "<|speak|> hi"\n'
                   '    return u.get("delegate"), ("task_id", u["turn_eos"])\n')
    found = contract_literals(src, "stage.py")
    assert found == ["stage.py:3: event kind 'interruption'", "stage.py:4: attrs key 'cut_s'",
                     "stage.py:4: label 'stop_repair'", "stage.py:4: protocol token <|speak|> in '<|speak|> hi'"]
    for rel in NOT_YET_CONVERTED:
        assert (ROOT / rel).is_file(), f"{rel} is allow-listed but gone: drop it from NOT_YET_CONVERTED"
    for rel, _ in COINCIDENCES:
        assert (ROOT / rel).is_file(), rel


# ------------------------------------------------------------------ wrong names fail when built

def _user_turn_attrs() -> str:
    return dump_attrs(attrs_mod.UserTurnAttrs(eot_s=0.4, voice=script_mod.VoiceSpec(name="en")))


def test_wrong_kind_attrs_key_or_label_fails_at_construction():
    ok = Event(id="u1", kind=EventKind.USER_TURN, role=Role.USER, start_s=0.5, end_s=1.0, text="hi",
               attrs=_user_turn_attrs())
    assert attrs_of(ok).eot_s == 0.4
    with pytest.raises(ValidationError, match="kind"):
        Event(id="u1", kind="user_turns", role="user", start_s=0.5, end_s=1.0, attrs=_user_turn_attrs())
    with pytest.raises(ValidationError, match="acted_unit"):   # a key no writer writes
        Event(id="u1", kind="user_turn", role="user", start_s=0.5, end_s=1.0,
              attrs=json.dumps({**json.loads(_user_turn_attrs()), "acted_unit": 3}))
    with pytest.raises(ValidationError):                         # the right keys for another kind
        Event(id="u1", kind="backend", role="harness", start_s=0.5, end_s=0.5, attrs=_user_turn_attrs())
    with pytest.raises(ValidationError, match="trigger"):
        attrs_mod.AssistantTurnAttrs(trigger="respond", voice=script_mod.VoiceSpec(name="en"), planned_text="x",
                                     interrupted=False, unspoken_text="")
    with pytest.raises(ValueError, match="needs DelegateAttrs"):
        make_event("t1.backend", EventKind.DELEGATE, Role.ASSISTANT, 1.0, 1.0, "", attrs_mod.PauseAttrs(turn="u1", filler=""))
    Unit(index=0, decision=Decision.LISTEN, labels=[Label.USER_SPEECH])
    with pytest.raises(ValidationError, match="labels"):
        Unit(index=0, decision="listen", labels=["user_speech", "acted"])
    with pytest.raises(ValidationError, match="decision"):
        Unit(index=0, decision="talk")
    with pytest.raises(ValidationError, match="kind"):
        script_mod.Overlay(kind="pause", text="mm", role="user", voice=script_mod.VoiceSpec(name="en"), boundary=0,
                           offset_s=0.0)


def test_enums_are_their_strings():
    """Stored values are the plain strings (JSON and Parquet bytes unchanged by the enums)."""
    assert EventKind.USER_TURN == "user_turn" and json.dumps([Label.TURN_EOS]) == '["turn_eos"]'
    assert trajectory_mod.EVENT_KINDS == tuple(k.value for k in EventKind) and len(EventKind) == 12
    assert set(ATTRS_MODEL) == set(EventKind)
    ev = Event(id="x", kind=EventKind.NOISE, role=Role.BACKGROUND, start_s=0, end_s=1,
               attrs=dump_attrs(attrs_mod.NoiseAttrs(color="pink", snr_db=10.0)))
    assert type(ev.kind) is str and ev.model_dump()["kind"] == "noise"


# ------------------------------------------------------------------ Arrow schema

def _frozen_trajectory_schema() -> pa.Schema:
    """The shard schema as it was written by hand before it was derived (do not edit to make a test pass)."""
    audio = pa.struct([("bytes", pa.binary()), ("path", pa.string())])
    event = pa.struct([("id", pa.string()), ("kind", pa.string()), ("role", pa.string()), ("start_s", pa.float64()),
                       ("end_s", pa.float64()), ("text", pa.string()), ("attrs", pa.string())])
    word = pa.struct([("role", pa.string()), ("word", pa.string()), ("start_s", pa.float64()),
                      ("end_s", pa.float64()), ("event_id", pa.string())])
    input_event = pa.struct([("kind", pa.string()), ("task_id", pa.string()), ("text", pa.string())])
    unit = pa.struct([("index", pa.int32()), ("user_text", pa.string()), ("input_events", pa.list_(input_event)),
                      ("decision", pa.string()), ("spoken_text", pa.string()),
                      ("speech_tokens", pa.list_(pa.int16())), ("turn_eos", pa.bool_()), ("delegate", pa.string()),
                      ("task_id", pa.string()), ("labels", pa.list_(pa.string()))])
    return pa.schema([
        ("id", pa.string()), ("seed", pa.int64()), ("scenario", pa.string()), ("language", pa.string()),
        ("unit_s", pa.float32()), ("duration_s", pa.float32()), ("sample_rate", pa.int32()),
        ("user_audio", audio), ("assistant_audio", audio), ("events", pa.list_(event)), ("words", pa.list_(word)),
        ("units", pa.list_(unit)), ("frames", pa.list_(pa.binary())), ("script", pa.string()), ("meta", pa.string()),
    ])


# In the vocabulary datasets 3.x writes (`Sequence`, `[struct]`), which 4.x and 5.x read too; 4.x's own
# `List` is unknown to 3.x (schemas/arrow.py).
FROZEN_HF_FEATURES = (
    '{"info": {"features": {"id": {"dtype": "string", "_type": "Value"}, "seed": {"dtype": "int64", "_type": '
    '"Value"}, "scenario": {"dtype": "string", "_type": "Value"}, "language": {"dtype": "string", "_type": '
    '"Value"}, "unit_s": {"dtype": "float32", "_type": "Value"}, "duration_s": {"dtype": "float32", "_type": '
    '"Value"}, "sample_rate": {"dtype": "int32", "_type": "Value"}, "user_audio": {"_type": "Audio"}, '
    '"assistant_audio": {"_type": "Audio"}, "events": [{"id": {"dtype": "string", "_type": "Value"}, "kind": '
    '{"dtype": "string", "_type": "Value"}, "role": {"dtype": "string", "_type": "Value"}, "start_s": '
    '{"dtype": "float64", "_type": "Value"}, "end_s": {"dtype": "float64", "_type": "Value"}, "text": '
    '{"dtype": "string", "_type": "Value"}, "attrs": {"dtype": "string", "_type": "Value"}}], "words": '
    '[{"role": {"dtype": "string", "_type": "Value"}, "word": {"dtype": "string", "_type": "Value"}, '
    '"start_s": {"dtype": "float64", "_type": "Value"}, "end_s": {"dtype": "float64", "_type": "Value"}, '
    '"event_id": {"dtype": "string", "_type": "Value"}}], "units": [{"index": {"dtype": "int32", "_type": '
    '"Value"}, "user_text": {"dtype": "string", "_type": "Value"}, "input_events": [{"kind": {"dtype": '
    '"string", "_type": "Value"}, "task_id": {"dtype": "string", "_type": "Value"}, "text": {"dtype": '
    '"string", "_type": "Value"}}], "decision": {"dtype": "string", "_type": "Value"}, "spoken_text": '
    '{"dtype": "string", "_type": "Value"}, "speech_tokens": {"feature": {"dtype": "int16", "_type": '
    '"Value"}, "_type": "Sequence"}, "turn_eos": {"dtype": "bool", "_type": "Value"}, "delegate": {"dtype": '
    '"string", "_type": "Value"}, "task_id": {"dtype": "string", "_type": "Value"}, "labels": {"feature": '
    '{"dtype": "string", "_type": "Value"}, "_type": "Sequence"}}], "frames": {"feature": {"dtype": "binary", '
    '"_type": "Value"}, "_type": "Sequence"}, "script": {"dtype": "string", "_type": "Value"}, "meta": '
    '{"dtype": "string", "_type": "Value"}}}}'
)


def test_derived_arrow_schema_equals_the_frozen_one():
    assert TRAJECTORY_SCHEMA.equals(_frozen_trajectory_schema(), check_metadata=False), TRAJECTORY_SCHEMA
    assert TRAJECTORY_SCHEMA.metadata[b"huggingface"].decode() == FROZEN_HF_FEATURES
    assert FAILED_SCHEMA.equals(pa.schema([
        ("id", pa.string()), ("seed", pa.int64()), ("scenario", pa.string()), ("shard", pa.int32()),
        ("index", pa.int32()), ("error", pa.string()), ("traceback", pa.string())]))


# ------------------------------------------------------------------ real rows parse through the models

@pytest.fixture(scope="module")
def generated_rows():
    """One real row per scenario family: the real planner, composer and espeak TTS (as jobs/shards does)."""
    from generators.registry import plan_trajectory, trajectory_seed
    from jobs.shards import load_tts
    from pipeline.render import render_trajectory
    from schemas.config import SCENARIOS, RunConfig
    from tests.generated import FAST_VOICES

    cfg = RunConfig(scenarios={s: 1.0 for s in SCENARIOS}, acoustics={"noise_prob": 1.0, "babble_prob": 1.0},
                    voices=FAST_VOICES)
    tts = load_tts(cfg)
    rows = {}
    for i, scenario in enumerate(SCENARIOS):
        script = plan_trajectory(cfg, scenario, trajectory_seed(cfg.seed, i))
        rows[scenario] = render_trajectory(cfg=cfg, traj_id=f"s0-00000-{i:07d}", script=script, tts=tts)
    return rows


def test_every_generated_event_parses_through_its_model(generated_rows):
    from schemas.config import SCENARIOS

    assert set(generated_rows) == set(SCENARIOS)
    kinds: set[str] = set()
    for scenario, row in generated_rows.items():
        for ev in row.events:
            typed = attrs_of(ev)
            assert type(typed) is ATTRS_MODEL[EventKind(ev.kind)], (scenario, ev.id)
            assert dump_attrs(typed) == ev.attrs, (scenario, ev.id)   # parse -> dump is the stored string
            assert parse_attrs(ev.kind, json.loads(ev.attrs)) == typed
            kinds.add(ev.kind)
        for u in row.units:
            assert set(u.labels) <= set(Label) and u.decision in set(Decision)
    # every kind the generator writes (visual: the Omni families, e.g. visual_qa)
    assert kinds == set(EventKind), kinds


def test_generated_row_round_trips_through_the_derived_schema(generated_rows):
    from schemas.arrow import row_from_dict, rows_to_table

    rows = list(generated_rows.values())[:3]
    table = rows_to_table(rows)
    assert table.schema.equals(TRAJECTORY_SCHEMA, check_metadata=True)
    back = [row_from_dict(d) for d in table.to_pylist()]
    for a, b in zip(rows, back):
        assert [e.attrs for e in a.events] == [e.attrs for e in b.events]
        assert a.units == b.units and np.isclose(a.unit_s, b.unit_s)


# ------------------------------------------------------------------ every threshold once (issue #28)

THRESHOLDS_REL = "schemas/thresholds.py"
# Names that once held a threshold in a stage module (SILENCE_DBFS was -50 in one and -45 in another):
# no module may bring them back, under any value.
RETIRED_NAMES = frozenset({"SILENCE_DBFS", "ACTIVE_THRESHOLD", "DETECT_RANGE_S", "TOKENS_PER_S"})
# Fields whose bounds are DESIGN §2 thresholds -> the bound keywords that are the threshold: a model or
# config that bounds them says the name (eot_s has only a floor; a default draw's hi is a choice).
THRESHOLD_FIELDS: dict[str, frozenset[str]] = {"eot_s": frozenset({"ge", "gt", "lo"}),
                                               "detect_s": frozenset({"ge", "gt", "le", "lt", "lo", "hi"}),
                                               "fade_s": frozenset({"ge", "gt", "le", "lt", "lo", "hi"})}
_BOUND_KEYWORDS = frozenset({"ge", "gt", "le", "lt", "lo", "hi"})


def _central() -> tuple[frozenset[str], frozenset[tuple[float, float]]]:
    """The names schemas/thresholds.py defines, and its (MIN, MAX) interval pairs."""
    from schemas import thresholds as th
    names = frozenset(n for n in vars(th) if n.isupper())
    pairs = frozenset({(th.DETECT_MIN_S, th.DETECT_MAX_S), (th.FADE_MIN_S, th.FADE_MAX_S)})
    return names, pairs


def _number(node: ast.AST) -> float | None:
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        v = _number(node.operand)
        return None if v is None else -v
    if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) and not isinstance(node.value, bool):
        return float(node.value)
    return None


def threshold_redefinitions(path: Path, rel: str) -> list[str]:
    """'file:line: what' for every re-definition of a schemas/thresholds.py name (or a retired one),
    every literal (lo, hi) pair equal to one of its intervals, and every numeric-literal bound on a
    threshold field (eot_s, detect_s, fade_s)."""
    names, pairs = _central()
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        targets: list[ast.AST] = []
        if isinstance(node, ast.Assign):
            targets = [t for tgt in node.targets for t in (tgt.elts if isinstance(tgt, ast.Tuple) else [tgt])]
        elif isinstance(node, (ast.AnnAssign, ast.AugAssign)):
            targets = [node.target]
        for t in targets:
            if isinstance(t, ast.Name) and (t.id in names or t.id in RETIRED_NAMES):
                found.append((node.lineno, f"{rel}:{node.lineno}: {t.id} defined here; import it from {THRESHOLDS_REL}"))
        if isinstance(node, ast.Tuple) and len(node.elts) == 2:
            pair = (_number(node.elts[0]), _number(node.elts[1]))
            if pair in pairs:
                found.append((node.lineno, f"{rel}:{node.lineno}: interval {pair} spelt out; use its names"))
        if isinstance(node, ast.Call):
            kw = {k.arg: _number(k.value) for k in node.keywords if k.arg in _BOUND_KEYWORDS}
            for lo, hi in (("ge", "le"), ("lo", "hi"), ("gt", "lt")):
                if (kw.get(lo), kw.get(hi)) in pairs:
                    found.append((node.lineno, f"{rel}:{node.lineno}: interval ({kw[lo]}, {kw[hi]}) spelt out; "
                                               "use its names"))
        if (isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name)
                and node.target.id in THRESHOLD_FIELDS and node.value is not None):
            for call in (n for n in ast.walk(node.value) if isinstance(n, ast.Call)):
                for k in call.keywords:
                    if k.arg in THRESHOLD_FIELDS[node.target.id] and _number(k.value) is not None:
                        found.append((node.lineno, f"{rel}:{node.lineno}: {node.target.id} bound {k.arg}="
                                                   f"{_number(k.value)} is a literal; use {THRESHOLDS_REL}"))
    return [msg for _, msg in sorted(set(found))]


def test_every_threshold_is_defined_once_in_schemas():
    """schemas/thresholds.py is the only place its names and intervals are written (schemas included)."""
    files = sorted(p for d in ("schemas", *STAGE_DIRS) for p in (ROOT / d).rglob("*.py"))
    assert files
    found: list[str] = []
    for p in files:
        rel = p.relative_to(ROOT).as_posix()
        if rel != THRESHOLDS_REL:
            found += threshold_redefinitions(p, rel)
    assert not found, "a threshold is re-defined outside schemas/thresholds.py:\n" + "\n".join(found)


def test_the_threshold_scan_finds_what_it_looks_for(tmp_path):
    """Each kind of re-definition, one step from the allowed form, is reported; the allowed forms are not."""
    src = tmp_path / "stage.py"
    src.write_text("from schemas.thresholds import DETECT_MIN_S, MIN_EOT_S\n"
                   "SILENCE_DBFS = -50.0\n"
                   "MIN_EOT_S: float = 0.2\n"
                   "DETECT = (0.3, 0.8)\n"
                   "class A:\n"
                   "    fade_s: float = Field(ge=0.02, le=0.05)\n"
                   "    eot_s: float = Field(0.3, ge=0.2)\n"
                   "    detect_s: float = Field(ge=DETECT_MIN_S, le=0.8)\n"
                   "    gap_s: float = Field(ge=0.2)\n"
                   "    eot_s: Range = Range(lo=MIN_EOT_S, hi=0.6)\n"
                   "    lead: tuple = (0.3, 0.9)\n")
    assert threshold_redefinitions(src, "stage.py") == [
        "stage.py:2: SILENCE_DBFS defined here; import it from schemas/thresholds.py",
        "stage.py:3: MIN_EOT_S defined here; import it from schemas/thresholds.py",
        "stage.py:4: interval (0.3, 0.8) spelt out; use its names",
        "stage.py:6: fade_s bound ge=0.02 is a literal; use schemas/thresholds.py",
        "stage.py:6: fade_s bound le=0.05 is a literal; use schemas/thresholds.py",
        "stage.py:6: interval (0.02, 0.05) spelt out; use its names",
        "stage.py:7: eot_s bound ge=0.2 is a literal; use schemas/thresholds.py",
        "stage.py:8: detect_s bound le=0.8 is a literal; use schemas/thresholds.py",
    ]


def test_the_threshold_values_are_design_s():
    """The one definition holds DESIGN §2/§5's numbers (outputs were byte-identical when they moved here)."""
    from schemas import thresholds as th
    assert (th.DEFAULT_UNIT_S, th.DEFAULT_SAMPLE_RATE, th.MIN_EOT_S) == (1.0, 16_000, 0.2)
    assert (th.DETECT_MIN_S, th.DETECT_MAX_S, th.FADE_MIN_S, th.FADE_MAX_S) == (0.3, 0.8, 0.02, 0.05)
    assert (th.ASSISTANT_SILENCE_DBFS, th.SPEECH_FLOOR_DBFS, th.SNR_TOLERANCE_DB) == (-50.0, -45.0, 0.5)
    assert th.SPEECH_FLOOR_AMP == 10 ** (-45 / 20)


# ------------------------------------------------------------------ every update validated (issue #28)

def unvalidated_copies(path: Path, rel: str) -> list[str]:
    """'file:line' for every `x.model_copy(update=...)`: a copy pydantic does not validate."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    return [f"{rel}:{n.lineno}" for n in ast.walk(tree)
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "model_copy"
            and any(k.arg == "update" for k in n.keywords)]


def test_no_unvalidated_model_copy():
    """Stage code and schemas change a model through schemas.replace.replace, which validates."""
    files = sorted(p for d in ("schemas", *STAGE_DIRS) for p in (ROOT / d).rglob("*.py"))
    found = [hit for p in files for hit in unvalidated_copies(p, p.relative_to(ROOT).as_posix())]
    assert not found, ("model_copy(update=...) skips validation (a misspelt key or a string for a float "
                       "passes); use schemas.replace.replace:\n" + "\n".join(found))


def test_the_copy_scan_finds_what_it_looks_for(tmp_path):
    src = tmp_path / "stage.py"
    src.write_text('"""Doc: x.model_copy(update={}) in a docstring is fine."""\n'
                   "a = x.model_copy()\n"
                   "b = x.model_copy(update={'lo': 1.0})\n"
                   "c = replace(x, lo=1.0, hi=y.model_copy(deep=True, update=d))\n")
    assert unvalidated_copies(src, "stage.py") == ["stage.py:3", "stage.py:4"]


def test_replace_validates_like_construction():
    """A correct change is applied; a misspelt key, a wrong type, a bound one step out and a broken
    model invariant each raise ValidationError naming the field, where model_copy took them all."""
    from schemas.config import Range, RunConfig
    from schemas.replace import replace
    from schemas.thresholds import DETECT_MAX_S

    cut = script_mod.Interruption(action=InterruptAction.DISCARD, text="wait", at_fraction=0.5, detect_s=0.4,
                                  fade_s=0.03, eot_s=0.3)
    moved = replace(cut, detect_s=DETECT_MAX_S, text="stop")
    assert (moved.detect_s, moved.text, moved.fade_s, cut.detect_s) == (DETECT_MAX_S, "stop", 0.03, 0.4)
    assert replace(cut, detect_s="0.5").detect_s == 0.5   # lax float: coerced, as Interruption(detect_s="0.5")

    # what model_copy lets through, and replace does not
    assert cut.model_copy(update={"detect_ss": 0.5}).detect_s == 0.4
    assert cut.model_copy(update={"detect_s": DETECT_MAX_S + 0.1}).detect_s > DETECT_MAX_S
    for bad, field in (({"detect_ss": 0.5}, "detect_ss"), ({"detect_s": round(DETECT_MAX_S + 0.1, 6)}, "detect_s"),
                       ({"detect_s": "soon"}, "detect_s"), ({"action": "explode"}, "action")):
        with pytest.raises(ValidationError) as e:
            replace(cut, **bad)
        assert e.value.errors()[0]["loc"] == (field,), bad

    # a strict config number refuses a string, as RunConfig(unit_s="1.0") does
    cfg = RunConfig(languages={"en": 0.5, "zh": 0.5})
    with pytest.raises(ValidationError, match="unit_s"):
        replace(cfg, unit_s="1.0")
    with pytest.raises(ValidationError, match="unit_s"):
        RunConfig(unit_s="1.0")
    # fields left to their default stay unset: languages without language is still one valid config
    again = replace(cfg, num=5)
    assert again.num == 5 and again.model_fields_set == {"languages", "num"}
    assert again.config_hash() == RunConfig(languages={"en": 0.5, "zh": 0.5}, num=5).config_hash()
    # the model's own validators run over the result
    with pytest.raises(ValidationError, match="must be >= lo"):
        replace(Range(lo=0.2, hi=0.6), hi=0.1)


def test_replace_refuses_a_misspelt_key_whatever_the_models_extra():
    """A model that ignores (pydantic's default) or keeps unknown keys still gets no misspelt field."""
    from pydantic import ConfigDict

    from schemas.replace import replace

    class Loose(BaseModel):
        gain: float = 1.0

    class Keeps(BaseModel):
        model_config = ConfigDict(extra="allow")
        gain: float = 1.0

    assert replace(Loose(), gain=2).gain == 2.0
    kept = replace(Keeps(note="x"), gain=3)
    assert (kept.gain, kept.model_extra) == (3.0, {"note": "x"})
    for model in (Loose(), Keeps()):
        with pytest.raises(ValidationError, match="gian"):
            replace(model, gian=2.0)
