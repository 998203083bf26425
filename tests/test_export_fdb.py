"""`duplexsynth export --format fdb`, read back the way Full-Duplex-Bench v1.5 documents its data.

The reader below follows the benchmark's v1_v1.5/dataset/README.md and its clients (soundfile +
json, no code of ours): a folder per sample under its task (user_interruption, user_backchannel,
talking_to_other, background_speech) holding input.wav, clean_input.wav (the glob its inference
clients use with prefix "" / "clean_") and metadata.json {context_text, current_turn_text,
timestamps: [start, end]} (eval_general_before_after.py reads timestamps[1]). The source rows are
real generated rows (run_shard with clean twins, ToneTTS for speed), plus a row of a run without
twins and a base whose clean twin is left out, both of which must be failed records.
"""
from __future__ import annotations

import io
import json
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq
import pytest
import soundfile as sf

from jobs.cli import main as cli
from jobs.shards import ShardPlan, run_shard
from schemas.arrow import row_from_dict
from schemas.config import RunConfig, Scenario, TwinsConfig
from schemas.trajectory import TrajectoryRow
from schemas.twins import TwinKind, TwinSide, twin_meta
from tests.conftest import ToneTTS
from tests.generated import with_frames, write_dataset
from tests.generated import FAST_VOICES

TASKS = {"interruption": "user_interruption", "backchannel": "user_backchannel", "other_directed": "talking_to_other",
         "background_speech": "background_speech"}
FAMILIES = (Scenario.BACKCHANNEL, Scenario.INTERRUPTION_DISCARD, Scenario.OTHER_DIRECTED,
            Scenario.BACKGROUND_SPEECH, Scenario.TURN_TAKING)


def _rows(out: Path, share: float, num: int) -> list[TrajectoryRow]:
    cfg = RunConfig(seed=0, num=num, shard_size=num, scenarios={s: 1.0 for s in FAMILIES},
                    twins=TwinsConfig(share=share, kinds=[TwinKind.CLEAN]), voices=FAST_VOICES)
    s = run_shard(cfg, ShardPlan(0, 0, num), out, tts=ToneTTS())
    return [row_from_dict(d) for d in pq.read_table(out / s.path).to_pylist()]


@pytest.fixture(scope="module")
def source(tmp_path_factory) -> tuple[Path, list[TrajectoryRow], str, str]:
    tmp = tmp_path_factory.mktemp("fdb")
    paired = _rows(tmp / "twins", 1.0, 6)
    plain = next(r for r in _rows(tmp / "plain", 0.0, 2) if r.scenario != Scenario.TURN_TAKING)
    plain = plain.model_copy(update={"id": "x-no-twin"})
    orphan = next(r for r in paired if (m := twin_meta(r.meta)) is not None and m.side == TwinSide.BASE
                  and r.scenario == Scenario.BACKCHANNEL)
    meta = twin_meta(orphan.meta)
    assert meta is not None
    rows = [r for r in paired if r.id != meta.partner] + [plain]   # the orphan's clean twin left out
    return write_dataset(tmp / "src", rows, rows_per_shard=3), rows, orphan.id, plain.id


@pytest.fixture(scope="module")
def exported(source, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("fdb-out") / "fdb"
    assert cli(["export", str(source[0]), "--format", "fdb", "--out", str(out)]) == 0
    return out


def read_fdb(root: Path) -> list[dict]:
    """Every sample as the benchmark reads it: task folder, the two wavs, metadata.json."""
    samples = []
    for inp in sorted(root.glob("*/*/input.wav")):
        folder = inp.parent
        meta = json.loads((folder / "metadata.json").read_text(encoding="utf-8"))
        assert set(meta) == {"context_text", "current_turn_text", "timestamps"}
        x, sr = sf.read(inp, dtype="float32")
        c, csr = sf.read(folder / "clean_input.wav", dtype="float32")
        assert sf.info(inp).subtype == "PCM_16" and x.ndim == 1 and c.ndim == 1 and sr == csr
        samples.append({"task": folder.parent.name, "id": folder.name, "input": x, "clean": c, "sr": sr, "meta": meta})
    return samples


def _user(row: TrajectoryRow) -> np.ndarray:
    return sf.read(io.BytesIO(row.user_audio.bytes), dtype="float32")[0]


def test_every_clean_pair_is_a_sample_in_its_task(source, exported) -> None:
    _, rows, orphan, _ = source
    by_id = {r.id: r for r in rows}
    samples = read_fdb(exported)
    bases = [r for r in rows if (m := twin_meta(r.meta)) is not None and m.side == TwinSide.BASE and r.id != orphan]
    assert sorted(s["id"] for s in samples) == sorted(r.id for r in bases) and len(samples) >= 3
    assert {s["task"] for s in samples} == {"user_interruption", "talking_to_other", "background_speech"}
    for s in samples:
        base = by_id[s["id"]]
        m = twin_meta(base.meta)
        ev = next(e for e in base.events if e.id == m.event)
        assert s["task"] == TASKS[ev.kind] and s["sr"] == base.sample_rate == 16_000
        assert s["meta"]["timestamps"] == [pytest.approx(ev.start_s), pytest.approx(ev.end_s)]
        assert s["meta"]["current_turn_text"] == ev.text
        assert s["meta"]["context_text"].startswith(next(e.text for e in base.events if e.kind == "user_turn"))
        assert np.array_equal(s["input"], _user(base)) and np.array_equal(s["clean"], _user(by_id[m.partner]))
        a, b = (int(t * s["sr"]) for t in s["meta"]["timestamps"])
        n = min(len(s["input"]), len(s["clean"]))
        assert np.array_equal(s["input"][:a], s["clean"][:a])          # the same session up to the overlap
        assert np.abs(s["input"][a:b] - s["clean"][a:min(b, n)]).max() > 0.01   # the overlap is only in input


def test_rows_without_a_clean_twin_are_failed_records(source, exported) -> None:
    _, rows, orphan, plain = source
    failed = {f["id"]: f["error"] for f in json.loads((exported / "failed.json").read_text())}
    turn_taking = {r.id for r in rows if r.scenario == Scenario.TURN_TAKING}
    assert set(failed) == {orphan, plain} | turn_taking and turn_taking
    assert "clean twin" in failed[orphan] and "not in the dataset" in failed[orphan]
    assert "no clean twin" in failed[plain]
    assert all("no overlap" in failed[i] for i in turn_taking)
    manifest = json.loads((exported / "manifest.json").read_text())
    assert manifest["rows"] + manifest["failed"] == len(rows) and manifest["failed"] == len(failed)
    assert not list(exported.glob(f"*/{orphan}"))   # nothing of a failed sample is written


def test_an_omni_base_rows_frames_go_in_its_sample_folder(source, tmp_path) -> None:
    """The same pairs with frames on each base (one JPEG per unit): each sample folder holds them as
    frames/000000.jpg, ... and metadata.json names them; the keys the benchmark reads are unchanged."""
    _, rows, _, _ = source
    with_jpegs = [with_frames(r) if (m := twin_meta(r.meta)) is not None and m.side == TwinSide.BASE else r
                  for r in rows]
    src = write_dataset(tmp_path / "src", with_jpegs, rows_per_shard=3)
    out = tmp_path / "fdb"
    assert cli(["export", str(src), "--format", "fdb", "--out", str(out)]) == 0
    by_id = {r.id: r for r in with_jpegs}
    metas = sorted(out.glob("*/*/metadata.json"))
    assert metas
    for path in metas:
        meta, base = json.loads(path.read_text(encoding="utf-8")), by_id[path.parent.name]
        assert set(meta) == {"context_text", "current_turn_text", "timestamps", "frames"}
        assert meta["frames"]["dir"] == "frames" and meta["frames"]["unit_s"] == base.unit_s
        got = [(path.parent / "frames" / name).read_bytes() for name in meta["frames"]["files"]]
        assert got == base.frames and len(got) == len(base.units)
