"""`duplexsynth export`: unit layout, loss mask, manifest, split and mix, source discovery, errors."""
from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq
import pytest
import soundfile as sf
import io

from jobs.cli import main as cli
from jobs.export import ExportError, ExportOptions, export, parse_mix, plan_rows
from model.protocol import (
    AUDIO_PH, BACKEND, BACKEND_END, CHUNK_EOS, DELEGATE, DELEGATE_END, LISTEN, SPEAK, TURN_EOS, UNIT, UNIT_END,
    ProtocolVocab, load_text_tokenizer, render_input_event,
)
from tests.generated import row_texts, train_tokenizer as _train_tokenizer, write_dataset


@pytest.fixture(scope="module")
def rows(generated) -> list:
    """Eight generated rows (turn_taking, backchannel, interruption_discard, delegation) with speech tokens."""
    return generated.rows(8, seed=10, tokens=True)


@pytest.fixture(scope="module")
def src(tmp_path_factory, rows, generated) -> Path:
    return write_dataset(tmp_path_factory.mktemp("src"), rows, onnx_path=generated.onnx_path)


@pytest.fixture(scope="module")
def train_tokenizer(rows):
    """A BPE trained on the generated rows' own text (ids 0..4 are protocol tokens)."""
    return lambda path: _train_tokenizer(path, row_texts(rows))


@pytest.fixture(scope="module")
def sdk_export(tmp_path_factory, src) -> Path:
    out = tmp_path_factory.mktemp("exp") / "train"
    assert cli(["export", str(src), "--tokenizer", "minicpm-o45", "--out", str(out), "--val-fraction", "0.25",
                "--seed", "3"]) == 0
    return out


def _rows(split_dir: Path) -> list[dict]:
    info = json.loads((split_dir / "split.json").read_text())
    return [r for s in info["shards"] for r in pq.read_table(split_dir / s["path"]).to_pylist()]


def _source_rows(src: Path) -> dict[str, dict]:
    return {r["id"]: r for p in sorted((src / "shards").glob("shard-*.parquet")) for r in pq.read_table(p).to_pylist()}


def test_manifest_records_tokenizer_mix_split_and_source_hash(sdk_export, src):
    m = json.loads((sdk_export / "manifest.json").read_text())
    assert m["format"] == "duplexsynth-train-v1"
    assert m["source"]["manifest_sha256"] == hashlib.sha256((src / "manifest.json").read_bytes()).hexdigest()
    assert m["source"]["shards"] and all(   # the digests the integrity check verified, not re-read
        hashlib.sha256((src / s["path"]).read_bytes()).hexdigest() == s["sha256"] for s in m["source"]["shards"])
    assert m["tokenizer"]["kind"] == "minicpm-o5-sdk" and m["tokenizer"]["bundle_id"] == "o45_fc_duplex_v0_1_0"
    assert m["tokenizer"]["vocab_size"] == 158338
    assert m["tokenizer"]["reused"]["<|turn_eos|>"] == "reused:<|spoken_turn_eos|>"
    assert m["mix"]["weights"] == {} and set(m["mix"]["families"]) == {"turn_taking", "backchannel",
                                                                        "interruption_discard", "delegation"}
    assert m["split"]["seed"] == 3 and m["split"]["val_fraction"] == 0.25
    assert m["split"]["train"]["rows"] + m["split"]["val"]["rows"] == 8
    assert m["audio"]["format"] == "flac" and m["audio"]["why"]
    assert m["layout"]["audio_embeds_per_unit"] == 10 and m["layout"]["speech_tokens"] is True
    for s in ("train", "val"):
        info = json.loads((sdk_export / s / "split.json").read_text())
        for sh in info["shards"]:
            assert hashlib.sha256((sdk_export / s / sh["path"]).read_bytes()).hexdigest() == sh["sha256"]
    assert ProtocolVocab.load(sdk_export / "tokenizer" / "protocol.json").vocab_size == 158338


def test_loss_mask_covers_exactly_the_models_own_outputs(sdk_export, src):
    """Rebuild, independently per unit, what the model writes; the masked tokens must be exactly
    that, in order, and everything else (unit brackets, audio slots, backend results) unmasked."""
    v = ProtocolVocab.load(sdk_export / "tokenizer" / "protocol.json")
    tok = load_text_tokenizer("minicpm-o45")
    source = _source_rows(src)
    rows = _rows(sdk_export / "train") + _rows(sdk_export / "val")
    assert rows
    checked = 0
    for r in rows:
        units = source[r["id"]]["units"]
        ids, mask, offs = r["input_ids"], r["loss_mask"], r["unit_offsets"] + [len(r["input_ids"])]
        assert len(ids) == len(mask) == r["num_tokens"]
        spoken = _spoken_by_first_character(units, tok)
        for k, u in enumerate(units):
            seg_ids, seg_mask = ids[offs[k]:offs[k + 1]], mask[offs[k]:offs[k + 1]]
            own = [v[SPEAK] if u["decision"] == "speak" else v[LISTEN]]
            if u["decision"] == "speak":
                own += spoken[k]
                own += [v.speech_offset + c for c in u["speech_tokens"]]
                if u["turn_eos"]:
                    own.append(v[TURN_EOS])
            if u["delegate"]:
                own += [v[DELEGATE]] + tok.encode_ordinary(u["delegate"]) + [v[DELEGATE_END]]
            own.append(v[CHUNK_EOS])
            inputs = [v[UNIT]] + [v[AUDIO_PH]] * 10
            for e in u["input_events"]:
                inputs += [v[BACKEND]] + tok.encode_ordinary(render_input_event(e["kind"], e["task_id"], e["text"])) \
                    + [v[BACKEND_END]]
            assert [i for i, m in zip(seg_ids, seg_mask) if m] == own, (r["id"], k)
            assert [i for i, m in zip(seg_ids, seg_mask) if not m] == inputs + [v[UNIT_END]], (r["id"], k)
            checked += 1
    assert checked == sum(len(source[r["id"]]["units"]) for r in rows)


def _spoken_by_first_character(units: list[dict], tok) -> list[list[int]]:
    """The SDK's rule, written out: each turn's text (its units joined by a space, up to turn_eos or a
    listen unit) is encoded whole, and a token belongs to the unit its first character came from."""
    out: list[list[int]] = [[] for _ in units]
    owner: list[int] = []     # unit of each character of the run
    text = ""
    for k, u in enumerate(units + [{"decision": "listen"}]):
        if u["decision"] == "speak" and u["spoken_text"]:
            piece = (" " if text else "") + u["spoken_text"]
            text, owner = text + piece, owner + [k] * len(piece)
        if u["decision"] != "speak" or u.get("turn_eos"):
            for tid, first in tok.encode_ordinary_offsets(text):
                out[owner[first]].append(tid)
            text, owner = "", []
    return out


def test_design_literal_loss_rule_leaves_chunk_eos_unmasked(tmp_path, src, train_tokenizer):
    out = tmp_path / "t"
    tokp = train_tokenizer(tmp_path / "tok.json")
    export(src, out, ExportOptions(tokenizer=str(tokp), val_fraction=0.0, chunk_eos_loss=False), progress=False)
    v = ProtocolVocab.load(out / "tokenizer" / "protocol.json")
    assert v[CHUNK_EOS] == 4                          # the trained tokenizer's own id
    for r in _rows(out / "train"):
        ids, mask = r["input_ids"], r["loss_mask"]
        assert ids.count(v[CHUNK_EOS]) == ids.count(v[LISTEN]) + ids.count(v[SPEAK]) == r["num_units"]
        for i, m in zip(ids, mask):
            if i == v[CHUNK_EOS]:
                assert m == 0
            if i in (v[LISTEN], v[SPEAK]):
                assert m == 1


def test_audio_is_the_16k_flac_passed_through(sdk_export, src):
    source = _source_rows(src)
    for r in _rows(sdk_export / "train"):
        assert r["audio"]["bytes"] == source[r["id"]]["user_audio"]["bytes"]
        x, sr = sf.read(io.BytesIO(r["audio"]["bytes"]))
        assert sr == 16000 and len(x) == r["num_units"] * 16000


def test_resampled_and_mel_audio(tmp_path, generated, train_tokenizer):
    rows = [generated.row("turn_taking", 1, tts="tone", sample_rate=24000)]
    n = len(rows[0].units)
    src = write_dataset(tmp_path / "s", rows)
    tokp = str(train_tokenizer(tmp_path / "tok.json"))
    out = tmp_path / "flac"
    export(src, out, ExportOptions(tokenizer=tokp, val_fraction=0.0), progress=False)
    r = _rows(out / "train")[0]
    x, sr = sf.read(io.BytesIO(r["audio"]["bytes"]))
    assert sr == 16000 and len(x) == n * 16000
    out = tmp_path / "mel"
    export(src, out, ExportOptions(tokenizer=tokp, val_fraction=0.0, audio_format="mel"), progress=False)
    r = _rows(out / "train")[0]
    assert r["audio"] is None and r["mel_shape"] == [n, 80, 100]
    mel = np.frombuffer(r["mel"], np.float16).reshape(r["mel_shape"])
    assert np.isfinite(mel).all() and mel.std() > 0


def test_split_is_stratified_and_seeded():
    light = [{"id": f"{f}-{i}", "scenario": f} for f in ("a", "b") for i in range(10)]
    plan, stats = plan_rows(light, {}, 0.2, seed=1)
    assert stats["a"]["val_rows"] == stats["b"]["val_rows"] == 2
    again, _ = plan_rows(list(reversed(light)), {}, 0.2, seed=1)
    assert {k: p.split for k, p in plan.items()} == {k: p.split for k, p in again.items()}   # order-free
    other, _ = plan_rows(light, {}, 0.2, seed=2)
    assert {k for k, p in plan.items() if p.split == "val"} != {k for k, p in other.items() if p.split == "val"}


def test_mix_weights_drop_subsample_and_repeat():
    light = [{"id": f"{f}-{i}", "scenario": f} for f in ("a", "b", "c") for i in range(10)]
    plan, stats = plan_rows(light, parse_mix("a=0, b=0.5, c=2.5"), 0.0, seed=0)
    assert not any(k.startswith("a-") for k in plan)
    assert sum(1 for k in plan if k.startswith("b-")) == 5 and all(plan[k].repeat == 1 for k in plan if k[0] == "b")
    assert sum(plan[k].repeat for k in plan if k.startswith("c-")) == 25
    assert stats["c"]["train_samples"] == 25 and stats["a"]["train_rows"] == 0


def test_mix_through_the_cli_is_recorded(tmp_path, src, train_tokenizer):
    tokp = str(train_tokenizer(tmp_path / "tok.json"))
    out = tmp_path / "mixed"
    assert cli(["export", str(src), "--tokenizer", tokp, "--out", str(out), "--val-fraction", "0",
                "--mix", "backchannel=0,delegation=2"]) == 0
    m = json.loads((out / "manifest.json").read_text())
    assert m["mix"]["weights"] == {"backchannel": 0.0, "delegation": 2.0}
    rows = _rows(out / "train")
    assert {r["scenario"] for r in rows} == {"turn_taking", "interruption_discard", "delegation"}
    assert all(r["repeat"] == (2 if r["scenario"] == "delegation" else 1) for r in rows)
    assert m["split"]["train"]["samples"] == sum(r["repeat"] for r in rows) == 8


def test_without_manifest_globs_parquet_and_skips_failed(tmp_path, rows, train_tokenizer):
    src = write_dataset(tmp_path / "s", rows[:4], manifest=False, failed_shard=True)
    assert not (src / "manifest.json").exists() and (src / "shards" / "failed-00000.parquet").exists()
    assert (src / "failed" / "shard-00000.parquet").exists()
    out = tmp_path / "o"
    tok = str(train_tokenizer(tmp_path / "t.json"))
    with pytest.raises(ExportError, match=r"manifest\.json: missing.*--allow-incomplete"):
        export(src, out, ExportOptions(tokenizer=tok, val_fraction=0), progress=False)   # strict by default
    assert not out.exists()
    m = export(src, out, ExportOptions(tokenizer=tok, val_fraction=0, allow_incomplete=True), progress=False)
    assert m["source"]["manifest_sha256"] is None
    assert [s["path"] for s in m["source"]["shards"]] == ["shards/shard-00000.parquet"]
    assert m["source"]["skipped"]["shards"] == 0 and "manifest.json: missing" in m["source"]["skipped"]["problems"][0]
    assert m["split"]["train"]["rows"] == 4


def test_errors_are_clear(tmp_path, src, rows, train_tokenizer):
    tokp = str(train_tokenizer(tmp_path / "t.json"))
    with pytest.raises(ExportError, match="source folder not found"):
        export(tmp_path / "nope", tmp_path / "o1", ExportOptions(tokenizer=tokp), progress=False)
    with pytest.raises(ExportError, match=r"absent from the dataset; present: \['backchannel'"):
        export(src, tmp_path / "o2", ExportOptions(tokenizer=tokp, mix={"pause": 1.0}), progress=False)
    with pytest.raises(ExportError, match="is not family=weight"):
        parse_mix("backchannel")
    # a shard whose bytes no longer match the manifest
    bad = write_dataset(tmp_path / "bad", rows[:2])
    m = json.loads((bad / "manifest.json").read_text())
    m["shards"][0]["sha256"] = "0" * 64
    (bad / "manifest.json").write_text(json.dumps(m))
    with pytest.raises(ExportError, match="sha256 differs"):
        export(bad, tmp_path / "o3", ExportOptions(tokenizer=tokp), progress=False)
    # an inconsistent unit names its shard and row
    row = rows[0].model_copy(deep=True)
    assert row.units[0].decision == "listen"
    row.units[0].speech_tokens = [1] * 25          # a listen unit carrying tokens
    broken = write_dataset(tmp_path / "broken", [row])
    with pytest.raises(ValueError, match=rf"shards/shard-00000.parquet row 0 \({row.id}\) unit 0"):
        export(broken, tmp_path / "o4", ExportOptions(tokenizer=tokp), progress=False)
    # refuses to overwrite unless asked; the CLI maps errors to exit code 2
    out = tmp_path / "o5"
    export(src, out, ExportOptions(tokenizer=tokp), progress=False)
    assert cli(["export", str(src), "--tokenizer", tokp, "--out", str(out)]) == 2
    assert cli(["export", str(src), "--tokenizer", tokp, "--out", str(out), "--overwrite"]) == 0


def test_parallel_workers_give_identical_shards(tmp_path, src, train_tokenizer):
    tokp = str(train_tokenizer(tmp_path / "t.json"))
    a, b = tmp_path / "a", tmp_path / "b"
    export(src, a, ExportOptions(tokenizer=tokp, rows_per_shard=3), progress=False)
    export(src, b, ExportOptions(tokenizer=tokp, rows_per_shard=3, workers=2), progress=False)
    for s in ("train", "val"):
        ia = json.loads((a / s / "split.json").read_text())["shards"]
        ib = json.loads((b / s / "split.json").read_text())["shards"]
        assert [x["sha256"] for x in ia] == [x["sha256"] for x in ib]


def test_the_written_tokenizer_reexports_to_identical_ids(sdk_export, src, tmp_path):
    """TRAIN_DIR/tokenizer is a valid --tokenizer: every protocol and speech id is reused as is."""
    out = tmp_path / "again"
    assert cli(["export", str(src), "--tokenizer", str(sdk_export / "tokenizer"), "--out", str(out),
                "--val-fraction", "0.25", "--seed", "3"]) == 0
    a = ProtocolVocab.load(sdk_export / "tokenizer" / "protocol.json")
    b = ProtocolVocab.load(out / "tokenizer" / "protocol.json")
    assert a.ids == b.ids and a.speech_offset == b.speech_offset and a.vocab_size == b.vocab_size
    assert b.sources["speech"] == "reused" and all(v != "added" for v in b.sources.values())
    assert [r["input_ids"] for r in _rows(sdk_export / "train")] == [r["input_ids"] for r in _rows(out / "train")]
