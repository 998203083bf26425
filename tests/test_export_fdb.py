"""`duplexsynth export --format fdb`, read back the way Full-Duplex-Bench v1.5 documents its data.

The reader below follows the benchmark's v1_v1.5/dataset/README.md and its clients (soundfile +
json, no code of ours): a folder per sample under its task (user_interruption, user_backchannel,
talking_to_other, background_speech) holding input.wav, clean_input.wav (the glob its inference
clients use with prefix "" / "clean_") and metadata.json {context_text, current_turn_text,
timestamps: [start, end]} (eval_general_before_after.py reads timestamps[1]; get_timing.py takes
every voiced stretch of input.wav as the user's). The source rows are real generated rows
(run_shard with clean twins, ToneTTS for speed) in a room with the assistant's echo on every row,
plus a row of a run without twins and a base whose clean twin is left out.

What a sample must be, each checked from the files alone against the source rows:
- exactly one overlap event: a base with an overlap no later than the benchmarked one is a failed
  record (its twin leaves out only one), and input.wav ends where the next user turn or overlap starts;
- clean_input.wav equal to input.wav sample for sample outside `overlap_span_s`, and inside it the
  base's timeline re-rendered without the event (within 16-bit rounding); no echo in either.
"""
from __future__ import annotations

import io
import json
import math
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq
import pytest
import soundfile as sf

import jobs.twins
from generators.twins import Moment, TwinDraw, derive, overlay_turn
from jobs.cli import main as cli
from jobs.shards import ShardPlan, run_shard
from pipeline.mixer import render_audio
from schemas.arrow import row_from_dict
from schemas.config import AcousticsConfig, RunConfig, Scenario, TwinsConfig
from schemas.replace import replace
from schemas.script import Script
from schemas.timeline import BabbleNoise, TimelineSpec
from schemas.trajectory import AudioBlob, TrajectoryRow
from schemas.twins import OVERLAP_KINDS, TwinKind, TwinSide, twin_meta
from tests.conftest import ToneTTS
from tests.generated import FAST_VOICES, with_frames, write_dataset

TASKS = {"interruption": "user_interruption", "backchannel": "user_backchannel", "other_directed": "talking_to_other",
         "background_speech": "background_speech"}
FAMILIES = (Scenario.BACKCHANNEL, Scenario.INTERRUPTION_DISCARD, Scenario.OTHER_DIRECTED,
            Scenario.BACKGROUND_SPEECH, Scenario.TURN_TAKING)
KEYS = {"context_text", "current_turn_text", "timestamps", "overlap_span_s"}
ROOM = AcousticsConfig(reverb_prob=1.0, echo_prob=1.0)   # every row: a room tail and our assistant's echo


def _rows(out: Path, share: float, num: int, seed: int = 0) -> list[TrajectoryRow]:
    cfg = RunConfig(seed=seed, num=num, shard_size=num, scenarios={s: 1.0 for s in FAMILIES}, acoustics=ROOM,
                    twins=TwinsConfig(share=share, kinds=[TwinKind.CLEAN]), voices=FAST_VOICES)
    s = run_shard(cfg, ShardPlan(0, 0, num), out, tts=ToneTTS())
    return [row_from_dict(d) for d in pq.read_table(out / s.path).to_pylist()]


def _is_base(r: TrajectoryRow) -> bool:
    return (m := twin_meta(r.meta)) is not None and m.side == TwinSide.BASE


def _event(base: TrajectoryRow):
    m = twin_meta(base.meta)
    return next(e for e in base.events if e.id == m.event)


def expected_end(base: TrajectoryRow) -> float | None:
    """Where a base's sample must end, read from its events alone: the start of the next user turn or
    overlap after its event (its duration when none); None when it can be no sample (an overlap no later
    than the event, or the next one starting inside it)."""
    ev = _event(base)
    others = [e for e in base.events if e.kind in OVERLAP_KINDS and e.id != ev.id]
    if any(e.start_s <= ev.start_s for e in others):
        return None
    nxt = [e.start_s for e in base.events if e.start_s > ev.start_s and (e.kind == "user_turn" or e in others)]
    end = min(nxt, default=base.duration_s)
    return None if end < ev.end_s else end


def _leave_out_the_last(base: Script, draw: TwinDraw, moment: Moment | None = None) -> Script:
    """A clean twin as an older generator made it: of several overlays it left out a later one, not the
    first, so the base keeps an overlap before the one the pair differs in (generators/twins.derive now
    leaves out the first)."""
    turns = list(base.turns)
    if draw.kind != TwinKind.CLEAN or any(t.interruption is not None for t in turns):
        return derive(base, draw, moment)
    i = overlay_turn(base)
    ovs = turns[i].overlays
    drop = max(range(len(ovs)), key=lambda j: (ovs[j].boundary, ovs[j].offset_s))
    turns[i] = replace(turns[i], overlays=ovs[:drop] + ovs[drop + 1:])
    return replace(base, turns=tuple(turns))


@pytest.fixture(scope="module")
def source(tmp_path_factory) -> tuple[Path, list[TrajectoryRow], str, str]:
    tmp = tmp_path_factory.mktemp("fdb")
    paired = _rows(tmp / "twins", 1.0, 10)
    plain = next(r for r in _rows(tmp / "plain", 0.0, 2) if r.scenario != Scenario.TURN_TAKING)
    plain = replace(plain, id="x-no-twin")
    orphan = next(r for r in paired if _is_base(r) and r.scenario == Scenario.INTERRUPTION_DISCARD
                  and expected_end(r) == r.duration_s)   # a sample but for its missing twin
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(jobs.twins, "derive", _leave_out_the_last)
        older = _rows(tmp / "older", 1.0, 10, seed=1)
    later = {r.id for r in older if _is_base(r) and _event(r).kind != "interruption" and expected_end(r) is None}
    later |= {twin_meta(r.meta).partner for r in older if r.id in later}
    rows = ([r for r in paired if r.id != twin_meta(orphan.meta).partner] + [plain]   # the orphan's twin left out
            + [r for r in older if r.id in later])
    return write_dataset(tmp / "src", rows, rows_per_shard=3), rows, orphan.id, plain.id


@pytest.fixture(scope="module")
def exported(source, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("fdb-out") / "fdb"
    assert cli(["export", str(source[0]), "--format", "fdb", "--out", str(out)]) == 0
    return out


def read_fdb(root: Path) -> list[dict]:
    """Every sample as the benchmark reads it: task folder, the two wavs (16-bit integers), metadata.json."""
    samples = []
    for inp in sorted(root.glob("*/*/input.wav")):
        folder = inp.parent
        meta = json.loads((folder / "metadata.json").read_text(encoding="utf-8"))
        assert KEYS <= set(meta) <= KEYS | {"frames"}
        x, sr = sf.read(inp, dtype="int16")
        c, csr = sf.read(folder / "clean_input.wav", dtype="int16")
        assert sf.info(inp).subtype == "PCM_16" and x.ndim == 1 and c.ndim == 1 and sr == csr
        samples.append({"task": folder.parent.name, "id": folder.name, "input": x, "clean": c, "sr": sr, "meta": meta})
    return samples


def outside_span_problem(x: np.ndarray, c: np.ndarray, span_s: list[float], sr: int) -> str | None:
    """The check a reader makes: the two files are as long, and equal sample for sample outside the
    event's span (None), else where they first differ."""
    if len(x) != len(c):
        return f"input.wav has {len(x)} samples, clean_input.wav {len(c)}"
    a, b = (int(round(t * sr)) for t in span_s)
    bad = np.flatnonzero(x != c)
    bad = bad[(bad < a) | (bad >= b)]
    return None if not len(bad) else f"{len(bad)} samples differ outside [{a}, {b}), first at {bad[0]}"


def _pcm(x: np.ndarray) -> np.ndarray:
    """The renderer's float samples as the 16-bit integers it stores (pipeline.io.encode_flac)."""
    return np.clip(np.round(x.astype(np.float64) * 32767.0), -32768, 32767).astype(np.int64)


def test_each_base_is_a_sample_of_one_overlap_or_a_failed_record_saying_why(source, exported) -> None:
    _, rows, orphan, _ = source
    samples = {s["id"]: s for s in read_fdb(exported)}
    failed = {f["id"]: f["error"] for f in json.loads((exported / "failed.json").read_text())}
    bases = [r for r in rows if _is_base(r) and r.id != orphan]
    want = {r.id for r in bases if expected_end(r) is not None}
    assert set(samples) == want and len(want) >= 4
    assert {s["task"] for s in samples.values()} == {"user_interruption", "user_backchannel", "talking_to_other",
                                                             "background_speech"}
    refused = [r for r in bases if expected_end(r) is None]
    two = [r for r in refused if any(e.kind in OVERLAP_KINDS and e.id != _event(r).id and e.start_s <= _event(r).start_s
                                     for e in r.events)]   # a base whose twin left out a later overlap
    assert two and all("its clean twin leaves out only" in failed[r.id] for r in two)
    assert all("inside the benchmarked" in failed[r.id] for r in refused if r not in two)
    assert all(failed[twin_meta(r.meta).partner].startswith(f"is the clean twin of {r.id}, which is no sample")
               for r in refused)
    for r in bases:
        if r.id not in want:
            assert not list(exported.glob(f"*/{r.id}"))   # nothing of a failed sample is written


def test_a_sample_ends_before_the_next_user_turn_or_overlap(source, exported) -> None:
    """input.wav holds the benchmarked overlap and no other, and stops where the next user turn (or a
    later overlap) starts: get_timing.py would score a reply to it, which the metadata cannot name."""
    _, rows, _, _ = source
    by_id = {r.id: r for r in rows}
    cut_at = []
    for s in read_fdb(exported):
        base, ev = by_id[s["id"]], _event(by_id[s["id"]])
        dur = len(s["input"]) / s["sr"]
        assert dur == pytest.approx(expected_end(base), abs=0.5 / s["sr"])
        assert [e.id for e in base.events if e.kind in OVERLAP_KINDS and e.start_s < dur] == [ev.id]
        later = [e for e in base.events if e.start_s > ev.start_s and (e.kind == "user_turn" or e.kind in OVERLAP_KINDS)]
        assert all(e.start_s >= dur for e in later)
        cut_at += [e.kind for e in later if e.start_s == pytest.approx(dur, abs=0.5 / s["sr"])]
        assert s["task"] == TASKS[ev.kind] and s["sr"] == base.sample_rate == 16_000
        assert s["meta"]["timestamps"] == [pytest.approx(ev.start_s), pytest.approx(ev.end_s)]
        assert s["meta"]["current_turn_text"] == ev.text
        assert s["meta"]["context_text"].startswith(next(e.text for e in base.events if e.kind == "user_turn"))
    assert "user_turn" in cut_at and set(cut_at) & {"other_directed", "background_speech"}   # both crops happen


def test_clean_input_is_input_without_the_event_and_equal_outside_its_span(source, exported) -> None:
    """Outside the span the files are equal to the sample (no whole-channel gain, no other noise draw);
    inside it clean_input.wav is the base's timeline re-rendered without the event's track, and
    input.wav is the whole timeline, both without the echo, each within one 16-bit step."""
    _, rows, _, _ = source
    by_id = {r.id: r for r in rows}
    tts = ToneTTS()
    for s in read_fdb(exported):
        x, c, sr, span = s["input"].astype(np.int64), s["clean"].astype(np.int64), s["sr"], s["meta"]["overlap_span_s"]
        assert outside_span_problem(x, c, span, sr) is None
        base, ev = by_id[s["id"]], _event(by_id[s["id"]])
        assert span[0] == pytest.approx(ev.start_s) and span[1] >= ev.end_s - 1e-6
        spec = TimelineSpec.from_meta(json.loads(base.meta))
        assert spec.mic.echo is not None and spec.mic.room is not None
        mic = replace(spec.mic, echo=None)
        whole, _ = render_audio(replace(spec, mic=mic), tts)
        bare, _ = render_audio(replace(spec, mic=mic, tracks=tuple(t for t in spec.tracks if t.event_id != ev.id)), tts)
        n = len(x)
        assert np.abs(_pcm(whole)[:n] - x).max() <= 1 and np.abs(_pcm(bare)[:n] - c).max() <= 1
        stored = np.round(sf.read(io.BytesIO(base.user_audio.bytes), dtype="float64")[0][:n] * 32768).astype(np.int64)
        assert np.abs(stored - x).max() > 8   # the echo was in the stored channel, and is not in input.wav
        a, b = (int(round(t * sr)) for t in span)
        assert np.abs(x[a:b] - c[a:b]).max() > 300   # the event is only in input


def test_the_outside_check_catches_one_sample_or_a_0_1_db_gain(exported) -> None:
    s = next(s for s in read_fdb(exported) if s["task"] == "user_interruption")
    x, c, sr, span = s["input"].astype(np.int64), s["clean"].astype(np.int64), s["sr"], s["meta"]["overlap_span_s"]
    assert outside_span_problem(x, c, span, sr) is None
    one = c.copy()
    one[int(round(span[0] * sr)) - 1] += 1   # one step, the sample before the onset
    assert "1 samples differ outside" in outside_span_problem(x, one, span, sr)
    gain = np.round(c * 10 ** (0.1 / 20)).astype(np.int64)   # the clip guard's kind of change, 0.1 dB
    assert outside_span_problem(x, gain, span, sr) is not None
    assert outside_span_problem(x, c[:-1], span, sr) is not None


def _with_user_pcm(row: TrajectoryRow, pcm: np.ndarray) -> TrajectoryRow:
    buf = io.BytesIO()
    sf.write(buf, pcm.astype(np.int16), row.sample_rate, format="FLAC", subtype="PCM_16")
    return replace(row, user_audio=AudioBlob(bytes=buf.getvalue()))


def test_a_clean_twin_that_is_not_the_same_session_fails_the_pair(source, exported, tmp_path) -> None:
    """The export takes out the base's own speech minus its twin's: where those differ outside the event
    by more than 16-bit rounding (here 4 steps on one twin sample before the onset) the twin was not the
    same session, and both rows are failed records naming the time."""
    _, rows, _, _ = source
    base = next(r for r in rows if r.id in {s["id"] for s in read_fdb(exported)} and r.scenario == Scenario.OTHER_DIRECTED)
    twin_id = twin_meta(base.meta).partner
    at = int(round(_event(base).start_s * base.sample_rate)) - 800
    broken = []
    for r in rows:
        if r.id == twin_id:
            pcm = sf.read(io.BytesIO(r.user_audio.bytes), dtype="int16")[0].astype(np.int64)
            pcm[at] += 4
            r = _with_user_pcm(r, pcm)
        broken.append(r)
    src = write_dataset(tmp_path / "src", broken, rows_per_shard=3)
    out = tmp_path / "fdb"
    assert cli(["export", str(src), "--format", "fdb", "--out", str(out)]) == 0
    failed = {f["id"]: f["error"] for f in json.loads((out / "failed.json").read_text())}
    assert "differs from it outside the overlap's audio" in failed[base.id]
    assert f"first at {at / base.sample_rate:.3f} s" in failed[base.id]
    assert failed[twin_id].startswith(f"is the clean twin of {base.id}, whose sample failed")
    assert not list(out.glob(f"*/{base.id}"))
    assert {p.parent.name for p in out.glob("*/*/input.wav")} == {s["id"] for s in read_fdb(exported)} - {base.id}


def test_a_row_with_babble_is_a_failed_record(source, exported, tmp_path) -> None:
    """Background talkers all through the session are other speech the metadata cannot name (and
    get_timing.py's VAD takes them for the user's): such a base and its twin are failed records."""
    _, rows, _, _ = source
    base = next(r for r in rows if r.id in {s["id"] for s in read_fdb(exported)})
    meta = json.loads(base.meta)
    babble = BabbleNoise(snr_db=10.0, gain=0.1, talkers=(0, 1, 2), offsets_s=(0.0, 1.0, 2.0), gains_db=(0.0, 0.0, 0.0),
                         bank_version=1)
    meta["timeline"]["mic"]["noises"].append(babble.model_dump(mode="json"))
    src = write_dataset(tmp_path / "src", [replace(r, meta=json.dumps(meta)) if r.id == base.id else r for r in rows],
                        rows_per_shard=3)
    out = tmp_path / "fdb"
    assert cli(["export", str(src), "--format", "fdb", "--out", str(out)]) == 0
    failed = {f["id"]: f["error"] for f in json.loads((out / "failed.json").read_text())}
    assert "its mic holds babble (3 background talkers" in failed[base.id]
    assert failed[twin_meta(base.meta).partner].startswith(f"is the clean twin of {base.id}, which is no sample")
    assert not list(out.glob(f"*/{base.id}"))


def test_rows_without_a_clean_twin_are_failed_records(source, exported) -> None:
    _, rows, orphan, plain = source
    failed = {f["id"]: f["error"] for f in json.loads((exported / "failed.json").read_text())}
    turn_taking = {r.id for r in rows if r.scenario == Scenario.TURN_TAKING}
    samples = {s["id"] for s in read_fdb(exported)}
    pairs = {i for r in rows if _is_base(r) and r.id in samples for i in (r.id, twin_meta(r.meta).partner)}
    assert set(failed) == {r.id for r in rows} - pairs and {orphan, plain} | turn_taking <= set(failed) and turn_taking
    assert "clean twin" in failed[orphan] and "not in the dataset" in failed[orphan]
    assert "no clean twin" in failed[plain]
    assert all("no overlap" in failed[i] for i in turn_taking)
    manifest = json.loads((exported / "manifest.json").read_text())
    assert manifest["rows"] + manifest["failed"] == len(rows) and manifest["failed"] == len(failed)
    assert manifest["rows"] == len(pairs)
    assert not list(exported.glob(f"*/{orphan}"))   # nothing of a failed sample is written


def test_an_omni_base_rows_frames_go_in_its_sample_folder(source, exported, tmp_path) -> None:
    """The same pairs with frames on each base (one JPEG per unit): each sample folder holds the frames
    of input.wav's units as frames/000000.jpg, ... and metadata.json names them; the keys the benchmark
    reads are unchanged."""
    _, rows, _, _ = source
    with_jpegs = [with_frames(r) if _is_base(r) else r for r in rows]
    src = write_dataset(tmp_path / "src", with_jpegs, rows_per_shard=3)
    out = tmp_path / "fdb"
    assert cli(["export", str(src), "--format", "fdb", "--out", str(out)]) == 0
    by_id = {r.id: r for r in with_jpegs}
    metas = sorted(out.glob("*/*/metadata.json"))
    assert len(metas) == len(list(exported.glob("*/*/metadata.json")))
    cropped = 0
    for path in metas:
        meta, base = json.loads(path.read_text(encoding="utf-8")), by_id[path.parent.name]
        assert set(meta) == KEYS | {"frames"}
        assert meta["frames"]["dir"] == "frames" and meta["frames"]["unit_s"] == base.unit_s
        got = [(path.parent / "frames" / name).read_bytes() for name in meta["frames"]["files"]]
        units = math.ceil(sf.info(path.parent / "input.wav").frames / (base.unit_s * base.sample_rate))
        assert got == base.frames[:units] and units <= len(base.units)
        cropped += units < len(base.units)
    assert cropped

