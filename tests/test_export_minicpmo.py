"""`duplexsynth export --format minicpm-o`, read back by the MiniCPM-o protocol SDK itself.

Every case is loaded with `O5DuplexTrainingData.load_structure` (the SDK's schema and tool-contract
validators), arranged and tokenized with the SDK's MiniCPM-o 4.5 tokenizer under the SDK's default
timing profile; its spoken-text ids per unit equal those of our trainer's unit encoder, its audio
is the row's, its tool calls and responses are the row's delegations. The source rows are the
consumer exports' (tests/export_source.py: en + zh, delegation and interruption), plus one row the
SDK must refuse: the English delegation with its request moved into the unit that starts its
turn, where it cannot be decoded in time (as the generator placed it before the decode budget).
"""
from __future__ import annotations

import io
import json
import os
from pathlib import Path

import numpy as np
import pytest
import soundfile as sf

from jobs.cli import main as cli
from schemas.config import DEFAULT_TOOLS, RunConfig
from schemas.decode_budget import (
    DECODE_MS_PER_STEP,
    DECODE_PREFILL_S,
    DECODE_TTS_S,
    DELEGATE_FRAME_STEPS,
    decode_steps_available,
    delegate_decode_steps,
    request_token_bound,
)
from schemas.language import language
from schemas.protocol import SPEAK
from schemas.trajectory import TrajectoryRow
from tests.export_source import BROKEN_ID, consumer_rows
from tests.generated import FIXTURE_CONFIG, attrs, find_event, write_dataset

pytest.importorskip("minicpm_o5_sdk")
from minicpm_o5_sdk import (
    O5DuplexTrainingData,
    O5TokenizerID,
    O5UnitPolicy,
    load_builtin_tokenizer,
)

REFUSED_ID = "x-en-delegation-in-speaking-unit"


def _refused(row: TrajectoryRow) -> TrajectoryRow:
    """The delegation row with its request in the turn's first (speaking) unit."""
    row = row.model_copy(deep=True)
    row.id = REFUSED_ID
    d = find_event(row, "delegate")
    k = attrs(d)["unit"]
    assert row.units[k].decision == "listen" and row.units[k + 1].decision == "speak"
    d.attrs = json.dumps({**attrs(d), "unit": k + 1}, sort_keys=True)
    row.units[k + 1].delegate, row.units[k + 1].task_id = row.units[k].delegate, row.units[k].task_id
    row.units[k].delegate = row.units[k].task_id = None
    return row


@pytest.fixture(scope="module")
def source(tmp_path_factory, generated) -> tuple[Path, dict[str, TrajectoryRow]]:
    rows = consumer_rows(generated)
    rows.append(_refused(rows[0]))
    mixed = {k: v for k, v in FIXTURE_CONFIG.model_dump(mode="json").items() if k != "language"}
    cfg = RunConfig.model_validate({**mixed, "languages": {"en": 0.5, "zh": 0.5}})
    src = write_dataset(tmp_path_factory.mktemp("minicpmo") / "src", rows, rows_per_shard=4, cfg=cfg)
    return src, {r.id: r for r in rows if r.id not in (BROKEN_ID, REFUSED_ID)}


@pytest.fixture(scope="module")
def exported(source, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("minicpmo-out") / "minicpmo"
    assert cli(["export", str(source[0]), "--format", "minicpm-o", "--out", str(out)]) == 0
    return out


@pytest.fixture(scope="module")
def sdk_tokenizer():
    return load_builtin_tokenizer(O5TokenizerID.O45_FC)


@pytest.fixture(scope="module")
def loaded(exported, source, sdk_tokenizer) -> dict[str, tuple[O5DuplexTrainingData, object]]:
    """Every case as the SDK loads it, with its tokenization (arrange + tokenize by the SDK)."""
    cases = exported / "cases"
    out = {}
    for path in sorted(cases.glob("*.json")):
        data = O5DuplexTrainingData.load_structure(json.loads(path.read_text(encoding="utf-8")), data_root=cases)
        out[path.stem] = (data, data.tokenize(tokenizer=sdk_tokenizer))
    return out


@pytest.fixture(scope="module")
def trainer_text():
    """The trainer export's default tokenizer (MiniCPM-o 4.5) and its protocol vocabulary."""
    from model.protocol import extend_vocab, load_text_tokenizer

    tok = load_text_tokenizer("minicpm-o45")
    return tok, extend_vocab(tok)


def _trainer_spoken_ids(row: TrajectoryRow, tok, vocab) -> list[list[int]]:
    """Per unit, the spoken-text ids our trainer export writes (model/protocol.py UnitEncoder)."""
    from model.protocol import UnitEncoder

    enc = UnitEncoder(tok, vocab, unit_s=row.unit_s).encode(
        [u.model_dump(mode="json") for u in row.units], word_separator=language(row.language).word_separator)
    bounds = [*enc.unit_offsets, len(enc.input_ids)]
    out = []
    for k in range(len(row.units)):
        ids = enc.input_ids[bounds[k]:bounds[k + 1]]
        spoken: list[int] = []
        if vocab[SPEAK] in ids:
            for tid in ids[ids.index(vocab[SPEAK]) + 1:]:
                if not tok.is_ordinary_id(tid):
                    break
                spoken.append(tid)
        out.append(spoken)
    return out


def _sdk_spoken_ids(result, n_units: int, vocab_size: int) -> list[list[int]]:
    out: list[list[int]] = [[] for _ in range(n_units)]
    td = result.tokenized_data
    for tid, prov in zip(td.input_ids, td.token_provenance):
        if prov.track == "ai_spoken" and prov.unit_index is not None and 0 <= prov.unit_index < n_units \
                and int(tid) < vocab_size:
            out[prov.unit_index].append(int(tid))
    return out


def test_the_sdk_loads_arranges_and_tokenizes_every_case_with_our_spoken_ids_per_unit(loaded, source, sdk_tokenizer,
                                                                                      trainer_text):
    _, rows = source
    assert sorted(loaded) == sorted(rows)
    assert {r.language for r in rows.values()} == {"en", "zh"}
    vocab_size = int(sdk_tokenizer.manifest.base_tokenizer_fingerprint.vocab_size)
    for rid, (data, result) in loaded.items():
        row = rows[rid]
        policy = data.unit_policy
        assert (policy.prefill_second_per_unit, policy.ai_tts_second_per_unit, policy.decode_ms_per_step) == (
            [DECODE_PREFILL_S], [DECODE_TTS_S], [DECODE_MS_PER_STEP])
        assert result.tokenized_data.validation_report is not None
        assert len(result.tokenized_data.input_ids) == len(result.tokenized_data.token_provenance)
        ours, theirs = _trainer_spoken_ids(row, *trainer_text), _sdk_spoken_ids(result, len(row.units), vocab_size)
        assert any(ours) and len(theirs) == len(ours), rid
        # exact ids in every unit: both encode a speech run whole and give a token to the unit of its
        # first character (model/protocol.py UnitEncoder.spoken_ids, the SDK's arrange())
        for k, (a, b) in enumerate(zip(ours, theirs)):
            assert a == b, (rid, k, trainer_text[0].decode_ordinary(a), trainer_text[0].decode_ordinary(b))


def test_the_sdk_and_our_trainer_agree_on_every_units_decision_text_ids_and_turn_end(exported, source):
    """jobs/minicpmo_agreement.py: the SDK's own reading against our trainer layout, unit by unit; a cut
    turn's last unit is the one documented difference (the SDK ends every speech run with a turn end)."""
    from jobs.minicpmo_agreement import compare

    agg = compare(source[0], exported)
    assert agg.rows == len(list((exported / "cases").glob("*.json"))) >= len(source[1])
    assert agg.units >= sum(len(r.units) for r in source[1].values())
    assert agg.disagreements == [], agg.summary()
    assert agg.cut_turn_ends == sum(1 for r in source[1].values() for e in r.events
                                    if e.kind == "assistant_turn" and attrs(e)["interrupted"] and e.end_s > e.start_s)


def test_cases_carry_the_rows_audio_alignment_tool_calls_and_responses(loaded, source):
    _, rows = source
    for rid, (data, _) in loaded.items():
        row = rows[rid]
        tracks = data.tracks
        (user,) = tracks.user_audio.segments
        x, sr = sf.read(io.BytesIO(row.user_audio.bytes), dtype="float32")
        assert sr == 16_000
        got = user.audio.get_tensor().numpy()
        assert got.shape == x.shape and np.allclose(got, x, atol=1e-4)
        sep = language(row.language).word_separator
        voiced = sep.join(w.word for w in sorted(row.words, key=lambda w: w.start_s) if w.role == "assistant")
        assert "".join(s.text for s in tracks.ai_spoken.segments).replace(" ", "") == voiced.replace(" ", "")
        for seg in tracks.ai_spoken.segments:
            assert seg.audio.get_tensor().numel() == round(seg.audio.duration_sec * 16_000)
        delegates = [e for e in row.events if e.kind == "delegate"]
        calls = [s.content for s in tracks.ai_non_spoken.segments]
        assert [(c.tool_call_id, c.name, c.arguments["request"]) for c in calls] == [
            (attrs(e)["task_id"], attrs(e)["tool"], e.text) for e in sorted(delegates, key=lambda e: attrs(e)["unit"])]
        declared = {t.function.name for t in data.system.tools}
        assert set(DEFAULT_TOOLS) <= declared and {c.name for c in calls} <= declared
        responses = {s.event.tool_call_id: s.event.contents[0].text for s in tracks.input_event.segments
                     if s.event.kind == "tool_response"}
        assert responses == {attrs(e)["task_id"]: e.text for e in row.events if e.kind == "backend"}
        if row.scenario == "delegation":
            assert calls and responses


def test_a_row_the_sdk_refuses_is_a_failed_record_with_its_reason(exported, source):
    failed = {f["id"]: f["error"] for f in json.loads((exported / "failed.json").read_text())}
    assert set(failed) == {BROKEN_ID, REFUSED_ID}
    assert "user_audio" in failed[BROKEN_ID]
    assert "minicpm-o5-sdk refuses" in failed[REFUSED_ID]
    assert "non_spoken_actual_timing_capacity_exceeded" in failed[REFUSED_ID]
    assert not list((exported / "cases").glob(f"{REFUSED_ID}*")) and not (exported / "media" / REFUSED_ID).exists()
    m = json.loads((exported / "manifest.json").read_text())
    assert m["format"] == "duplexsynth-minicpm-o-v1" and (m["rows"], m["failed"]) == (len(source[1]), 2)
    assert not [p for p in exported.parent.iterdir() if p.name.startswith(".")]   # no staging folder left


def test_the_decode_budget_is_the_sdks_default_profile_and_over_counts_its_tokenizer(sdk_tokenizer):
    """Our constants are the SDK's defaults; the tool-call framing and the token bound hold for real
    requests the planners draw (en + zh, every delegation family), with the SDK's serializer."""
    from minicpm_o5_sdk.tool_serializer import (
        DEFAULT_TOOL_SERIALIZER_NAME,
        get_o5_tool_serializer,
    )
    from minicpm_o5_sdk.tool_serializer.schema import OpenAIToolCall

    from generators.registry import DELEGATION_FAMILIES, plan_trajectory

    serializer = get_o5_tool_serializer(DEFAULT_TOOL_SERIALIZER_NAME)

    default = O5UnitPolicy(unit_sec=1.0)
    assert (default.prefill_second_per_unit, default.ai_tts_second_per_unit, default.decode_ms_per_step) == (
        [DECODE_PREFILL_S], [DECODE_TTS_S], [DECODE_MS_PER_STEP])
    for speaking in (True, False):
        steps = decode_steps_available(1.0, speaking)
        default.validate_unit_execution_capacity(unit_index=0, is_speaking=speaking, decode_step_count=steps)
        with pytest.raises(ValueError):
            default.validate_unit_execution_capacity(unit_index=0, is_speaking=speaking, decode_step_count=steps + 1)
    seen = set()
    for lang in ("en", "zh"):
        cfg = RunConfig.model_validate({"seed": 0, "num": 1, "language": lang})
        for family in sorted(DELEGATION_FAMILIES):
            for seed in range(int(os.environ.get("DECODE_BUDGET_SEEDS", "6"))):
                for turn in plan_trajectory(cfg, family, seed).turns:
                    if turn.delegate is not None:
                        seen.add((turn.delegate.tool, turn.delegate.request))
    assert len(seen) > 40
    for tool, request in seen:
        text = len(sdk_tokenizer.encode_ordinary(request))
        assert request_token_bound(request) >= text, request
        # the framing: <tool_call>, markup, </tool_call> and the slot's end, as the export writes the call
        body = serializer.serialize_tool_call(OpenAIToolCall.model_validate(
            {"id": "t", "function": {"name": tool, "arguments": {"request": request}}}))
        assert delegate_decode_steps(request) >= 3 + len(sdk_tokenizer.encode_ordinary(body)) >= DELEGATE_FRAME_STEPS, tool


def test_a_case_declares_the_decode_rate_its_row_was_made_at(source, tmp_path):
    """The SDK times each unit's non-spoken budget by `decode_ms_per_step`: a row made at another
    rate (`decode_budget.ms_per_step`, recorded in its meta) is declared at that rate, not the default."""
    from jobs.export_minicpmo import MiniCPMOWriter
    from schemas.arrow import rows_to_table
    from schemas.decode_budget import DECODE_META_KEY

    row = next(r for r in source[1].values() if r.scenario == "delegation" and r.id != REFUSED_ID)
    slow = row.model_copy(deep=True)
    slow.meta = json.dumps({**json.loads(row.meta), DECODE_META_KEY: {"ms_per_step": 40.0}}, sort_keys=True)
    (tmp_path / "stage").mkdir()
    writer = MiniCPMOWriter(tmp_path / "stage")
    rates = []
    for i, r in enumerate((row, slow)):
        media = tmp_path / f"media{i}"
        media.mkdir()
        structure, _ = writer._structure(rows_to_table([r]).to_pylist()[0], f"case{i}", media)
        rates.append(structure["unit_policy"]["decode_ms_per_step"])
    assert rates == [[DECODE_MS_PER_STEP], [40.0]]
