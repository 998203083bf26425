"""`duplexsynth export --format lhotse`, read back by lhotse itself, and its NeMo manifest.

`CutSet.from_shar` loads the Shar; every cut is a two-channel MultiCut whose audio equals the row's
(channel 0 assistant, 1 user), whose supervisions are the row's voiced events with our word timings
as lhotse alignments, and whose custom fields carry scenario, events (harness included) and units.
The NeMo manifest is read as NeMo's Lhotse adapter reads it: one mono audio file per line's
`audio_filepath` (relative to the manifest), cut at offset for duration, its length the file's.
The nemo-s2s cuts are read as NeMo's DuplexS2SDataset collates them: its target_audio at the
codec's rate (22050 Hz by default), the assistant channel resampled.
"""
from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import lhotse  # the export extra (scripts/setup.sh installs it)
import numpy as np
import pytest
import soundfile as sf
import soxr
from lhotse.utils import compute_num_samples

from jobs.cli import main as cli
from schemas.language import language
from schemas.thresholds import NEMO_S2S_TARGET_RATE
from schemas.trajectory import TrajectoryRow
from tests.export_source import BROKEN_ID, consumer_dataset


@pytest.fixture(scope="module")
def source(tmp_path_factory, generated) -> tuple[Path, dict[str, TrajectoryRow]]:
    return consumer_dataset(tmp_path_factory.mktemp("lhotse"), generated)


@pytest.fixture(scope="module")
def exported(source, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("lhotse-out") / "lhotse"
    assert cli(["export", str(source[0]), "--format", "lhotse", "--out", str(out), "--rows-per-shard", "3"]) == 0
    return out


def _channel(blob: bytes) -> np.ndarray:
    x, sr = sf.read(io.BytesIO(blob), dtype="float32")
    assert sr == 16_000
    return x


def _voiced_events(row: TrajectoryRow) -> dict[str, list]:
    out: dict[str, list] = {}
    for w in row.words:
        out.setdefault(w.event_id, []).append(w)
    return out


def test_lhotse_loads_the_shar_with_audio_supervisions_alignments_and_custom_fields(exported, source):
    _, rows = source
    cuts = list(lhotse.CutSet.from_shar(in_dir=exported / "shar"))
    assert [c.id for c in cuts] == list(rows)
    assert len(list((exported / "shar").glob("cuts.*.jsonl.gz"))) == 2          # 5 cuts, 3 per shard
    assert {c.custom["language"] for c in cuts} == {"en", "zh"}
    for cut in cuts:
        row = rows[cut.id]
        assert isinstance(cut, lhotse.MultiCut) and cut.channel == [0, 1] and cut.sampling_rate == row.sample_rate
        audio = cut.load_audio()
        assert audio.shape == (2, int(row.duration_s * row.sample_rate))
        assert np.allclose(audio[0], _channel(row.assistant_audio.bytes), atol=1e-4)
        assert np.allclose(audio[1], _channel(row.user_audio.bytes), atol=1e-4)
        events = {e.id: e for e in row.events}
        voiced = _voiced_events(row)
        assert [s.custom["event_id"] for s in cut.supervisions] == sorted(
            voiced, key=lambda i: (min(events[i].start_s, voiced[i][0].start_s), i))
        for sup in cut.supervisions:
            ev, words = events[sup.custom["event_id"]], voiced[sup.custom["event_id"]]
            assert sup.speaker == ev.role and sup.custom["kind"] == ev.kind and sup.language == row.language
            assert sup.channel == (0 if ev.role == "assistant" else 1)
            assert sup.text == language(row.language).join([w.word for w in words])
            items = sup.alignment["word"]
            assert [a.symbol for a in items] == [w.word for w in words]
            assert np.allclose([a.start for a in items], [w.start_s for w in words], atol=1e-6)
            assert np.allclose([a.end for a in items], [w.end_s for w in words], atol=2e-6)
            assert sup.start <= items[0].start and items[-1].end <= sup.end + 2e-6 <= cut.duration + 2e-6
        # the harness and the unit record travel as data
        assert cut.custom["scenario"] == row.scenario and cut.custom["seed"] == row.seed
        assert [e["id"] for e in cut.custom["events"]] == [e.id for e in row.events]
        assert [e["attrs"] for e in cut.custom["events"]] == [json.loads(e.attrs) for e in row.events]
        assert cut.custom["units"] == [u.model_dump(mode="json") for u in row.units]
        if row.scenario == "delegation":
            kinds = {e["kind"] for e in cut.custom["events"]}
            assert {"delegate", "backend"} <= kinds
            assert any(u["delegate"] for u in cut.custom["units"])


def nemo_adapter_audio(line: dict, manifest: Path) -> np.ndarray:
    """A manifest line's samples as NeMo's Lhotse adapter (LazyNeMoIterator, non-tarred) loads them: the
    recording is the file at `audio_filepath` (relative to the manifest) and the cut is `duration`
    seconds from `offset`. Its rule for the recording's length: given `sampling_rate` it does not open
    the file but takes the recording to be exactly `duration` long (num_samples from duration);
    without it the recording is read from the file, so its length is the file's."""
    path = str(manifest.parent / line["audio_filepath"])
    if "sampling_rate" in line:
        sr = line["sampling_rate"]
        recording = lhotse.Recording(id=path, sources=[lhotse.AudioSource(type="file", channels=[0], source=path)],
                                     sampling_rate=sr, num_samples=compute_num_samples(line["duration"], sr),
                                     duration=line["duration"], channel_ids=[0])
    else:
        recording = lhotse.Recording.from_file(path)
    cut = recording.to_cut()
    if "offset" in line:
        cut = cut.truncate(offset=line["offset"], duration=line["duration"], preserve_id=True)
    return cut.load_audio()[0]


def _nemo_reads(lines: list[dict], manifest: Path, rows: dict[str, TrajectoryRow]) -> tuple[int, int]:
    """(lines read bit-exact against the row's channel slice, lines the adapter's rule refuses)."""
    exact = refused = 0
    for line in lines:
        row = rows[line["session_id"]]
        sr = row.sample_rate
        x = _channel((row.assistant_audio if line["channel"] == 0 else row.user_audio).bytes)
        a = compute_num_samples(line["offset"], sr)
        want = x[a:a + compute_num_samples(line["duration"], sr)]
        try:
            got = nemo_adapter_audio(line, manifest)
        except AssertionError:   # lhotse: "Recording's duration ... is smaller than the requested offset"
            refused += 1
            continue
        exact += got.shape == want.shape and np.array_equal(got, want)
    return exact, refused


def test_nemo_manifest_lines_point_at_mono_audio_with_offset_duration_and_text(exported, source):
    _, rows = source
    manifest = exported / "nemo" / "manifest.jsonl"
    lines = [json.loads(x) for x in manifest.read_text(encoding="utf-8").splitlines()]
    assert {line["session_id"] for line in lines} == set(rows)
    sups = {s.id: s for c in lhotse.CutSet.from_shar(in_dir=exported / "shar") for s in c.supervisions}
    for line in lines:
        row = rows[line["session_id"]]
        path = manifest.parent / line["audio_filepath"]
        info = sf.info(path)
        assert info.channels == 1 and info.samplerate == row.sample_rate
        column = row.assistant_audio if line["channel"] == 0 else row.user_audio
        assert path.read_bytes() == column.bytes                 # the row's own FLAC, untouched
        assert 0 <= line["offset"] and line["offset"] + line["duration"] <= info.duration + 1e-6
        sup = sups[f"{row.id}-{line['turn_id']}"]
        assert (line["text"], line["speaker"], line["lang"], line["offset"], line["duration"]) == (
            sup.text, sup.speaker, row.language, sup.start, sup.duration)
    assert len(lines) == len(sups)


def test_nemo_adapter_reads_every_manifest_line_bit_exact(exported, source):
    """Read as NeMo's adapter reads (nemo_adapter_audio): every line is its turn's samples of the row's
    channel, bit for bit. The same lines with `sampling_rate` added (what the export wrote before)
    are read wrongly by that rule: a turn past the first `duration` seconds of its file is refused
    ("duration ... smaller than the requested offset"), an earlier one not at 0 loads cut short."""
    _, rows = source
    manifest = exported / "nemo" / "manifest.jsonl"
    lines = [json.loads(x) for x in manifest.read_text(encoding="utf-8").splitlines()]
    assert not any("sampling_rate" in line for line in lines)
    assert _nemo_reads(lines, manifest, rows) == (len(lines), 0)
    with_rate = [{**line, "sampling_rate": rows[line["session_id"]].sample_rate} for line in lines]
    exact, refused = _nemo_reads(with_rate, manifest, rows)
    assert refused > 0 and exact == sum(line["offset"] == 0 for line in lines) < len(lines)


def test_a_row_that_cannot_be_converted_is_a_failure_record(exported, source):
    failed = json.loads((exported / "failed.json").read_text())
    assert [f["id"] for f in failed] == [BROKEN_ID] and "user_audio" in failed[0]["error"]
    assert not list((exported / "nemo" / "audio").glob(f"{BROKEN_ID}.*"))
    m = json.loads((exported / "manifest.json").read_text())
    assert m["format"] == "duplexsynth-lhotse-v1" and (m["rows"], m["failed"]) == (len(source[1]), 1)


def test_lhotse_does_not_import_torchaudio_at_load(tmp_path):
    """A stand-in torchaudio that says when it is imported: loading the export and lhotse never does."""
    stub = tmp_path / "torchaudio"
    stub.mkdir()
    (stub / "__init__.py").write_text("import sys\nsys.stdout.write('torchaudio imported\\n')\n")
    code = "import jobs.export_lhotse, lhotse, lhotse.shar; print('loaded')"
    env_path = f"{tmp_path}:{Path(__file__).resolve().parents[1]}"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env={**os.environ, "PYTHONPATH": env_path})
    assert out.stdout.split() == ["loaded"], out.stdout


# ----------------------------------------------------------------------------- NeMo duplex S2S layout

@pytest.fixture(scope="module")
def exported_s2s(source, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("nemo-s2s-out") / "s2s"
    assert cli(["export", str(source[0]), "--format", "nemo-s2s", "--out", str(out), "--rows-per-shard", "3"]) == 0
    return out


def test_nemo_s2s_cuts_have_the_user_recording_the_assistant_target_audio_and_user_agent_speakers(
        exported_s2s, source):
    """As NeMo speechlm2's DuplexS2SDataset reads a cut: `load_audio()` is its source (the user channel),
    `load_target_audio()` (recording_field="target_audio") its target (the assistant's samples at the
    codec's rate), and supervisions with speaker `user` / `agent` give the text of its input / output
    token channels."""
    _, rows = source
    cuts = list(lhotse.CutSet.from_shar(in_dir=exported_s2s / "nemo_s2s"))
    assert [c.id for c in cuts] == [i for i in rows if i != BROKEN_ID]
    for cut in cuts:
        row = rows[cut.id]
        assert isinstance(cut, lhotse.MonoCut) and cut.sampling_rate == row.sample_rate
        n = round(row.duration_s * row.sample_rate)
        user = cut.load_audio()
        assert user.shape == (1, n)
        assert np.allclose(user[0], _channel(row.user_audio.bytes), atol=1e-4)
        assert cut.target_audio.sampling_rate == NEMO_S2S_TARGET_RATE
        target = cut.load_target_audio()[0]
        assert abs(len(target) - round(row.duration_s * NEMO_S2S_TARGET_RATE)) <= 1
        assistant = _channel(row.assistant_audio.bytes)
        want = soxr.resample(assistant, row.sample_rate, NEMO_S2S_TARGET_RATE, quality="VHQ")
        k = min(len(want), len(target))
        assert np.allclose(target[:k], want[:k], atol=1e-4) and not np.any(target[k:])   # PCM-16 steps
        assert np.any(target)
        events, voiced = {e.id: e for e in row.events}, _voiced_events(row)
        assert {s.custom["event_id"] for s in cut.supervisions} == set(voiced)
        for sup in cut.supervisions:
            ev = events[sup.custom["event_id"]]
            assert sup.channel == 0
            assert sup.speaker == {"assistant": "agent"}.get(ev.role, ev.role)
            assert sup.text == language(row.language).join([w.word for w in voiced[ev.id]])
            assert 0 <= sup.start and sup.end <= cut.duration + 2e-6
        agent = " ".join(s.text for s in cut.supervisions if s.speaker == "agent")
        assert agent.split() == " ".join(e.text for e in row.events if e.kind == "assistant_turn" and e.text).split()
        assert any(s.speaker == "user" for s in cut.supervisions)
        assert cut.custom["units"] == [u.model_dump(mode="json") for u in row.units]
    m = json.loads((exported_s2s / "manifest.json").read_text())
    assert m["format"] == "duplexsynth-nemo-s2s-v1" and (m["rows"], m["failed"]) == (len(rows), 1)


def test_nemo_s2s_target_audio_collates_at_the_codec_rate_as_duplex_s2s_dataset_does(exported_s2s, source):
    """DuplexS2SDataset.__getitem__ resamples the cuts' recording to source_sample_rate and collates
    target_audio as stored (lhotse collate_audio, recording_field="target_audio"): the lengths it
    gets are the session's duration at 22050 Hz (the user recording's own rate is 16 kHz)."""
    from lhotse.dataset.collation import collate_audio

    _, rows = source
    cuts = lhotse.CutSet.from_shar(in_dir=exported_s2s / "nemo_s2s").to_eager()
    _, source_lens = collate_audio(cuts.resample(16_000))
    _, target_lens = collate_audio(cuts.resample(NEMO_S2S_TARGET_RATE), recording_field="target_audio")
    durations = [rows[c.id].duration_s for c in cuts]
    assert source_lens.tolist() == [round(d * 16_000) for d in durations]
    assert target_lens.tolist() == [round(d * NEMO_S2S_TARGET_RATE) for d in durations]
    m = json.loads((exported_s2s / "manifest.json").read_text())
    assert m["layout"]["target_sample_rate"] == NEMO_S2S_TARGET_RATE


@pytest.mark.parametrize("args, why", [(["--format", "nemo-s2s", "--target-sample-rate", "0"], "must be >= 1"),
                                       (["--format", "lhotse", "--target-sample-rate", "24000"], "nemo-s2s only")])
def test_a_bad_target_sample_rate_is_refused_in_one_line(tmp_path, capsys, args, why):
    assert cli(["export", str(tmp_path / "absent"), "--out", str(tmp_path / "out"), *args]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "--target-sample-rate" in err and why in err
    assert not (tmp_path / "out").exists()
