"""`duplexsynth export --format moshi`, read back the way moshi-finetune documents its dataset.

The reader below follows moshi-finetune's README and finetune/data/ (soundfile + json, no code of
ours): a jsonl index of {"path", "duration"} with paths relative to its folder, a stereo wav per
line (channel 0 the assistant, channel 1 the user, Mimi's 24 kHz), and beside each wav a JSON whose
`alignments` are [word, [start, end], speaker] sorted by start (its loader bisects them), the
assistant being SPEAKER_MAIN, the label its training keeps.
"""
from __future__ import annotations

import io
import json
from pathlib import Path

import numpy as np
import pytest
import soundfile as sf
from scipy.signal import butter, resample_poly, sosfiltfilt

from jobs.cli import main as cli
from schemas.trajectory import TrajectoryRow
from tests.export_source import BROKEN_ID, consumer_dataset

MOSHI_SR = 24_000
MAIN = "SPEAKER_MAIN"


@pytest.fixture(scope="module")
def source(tmp_path_factory, generated) -> tuple[Path, dict[str, TrajectoryRow]]:
    return consumer_dataset(tmp_path_factory.mktemp("moshi"), generated)


@pytest.fixture(scope="module")
def exported(source, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("moshi-out") / "moshi"
    assert cli(["export", str(source[0]), "--format", "moshi", "--out", str(out)]) == 0
    return out


def read_moshi(root: Path) -> list[dict]:
    """Every session as moshi-finetune would see it: index line, stereo audio, alignments."""
    (index,) = list(root.rglob("*jsonl"))      # moshi-finetune takes every *jsonl under a data folder
    sessions = []
    for line in index.read_text(encoding="utf-8").splitlines():
        entry = json.loads(line)
        assert set(entry) == {"path", "duration"}
        wav = index.parent / entry["path"]
        audio, sr = sf.read(wav, dtype="float32", always_2d=True)
        info = json.loads(wav.with_suffix(".json").read_text(encoding="utf-8"))
        sessions.append({"id": wav.stem, "duration": entry["duration"], "audio": audio, "sr": sr,
                         "alignments": info["alignments"]})
    return sessions


def _ours(blob: bytes) -> np.ndarray:
    x, sr = sf.read(io.BytesIO(blob), dtype="float32")
    assert sr == 16_000
    return resample_poly(x, 3, 2).astype(np.float32)   # 16 -> 24 kHz, another resampler than the export's


def _band(x: np.ndarray) -> np.ndarray:
    """Below 6 kHz, where both resamplers pass the signal unchanged (they differ near 8 kHz)."""
    return sosfiltfilt(_LOWPASS, x)


_LOWPASS = butter(8, 6000, fs=MOSHI_SR, output="sos")


def test_sessions_read_back_with_channel_order_rate_duration_and_alignments(exported, source):
    _, rows = source
    sessions = read_moshi(exported)
    assert [s["id"] for s in sessions] == list(rows)          # every good row, in dataset order
    assert {rows[s["id"]].language for s in sessions} == {"en", "zh"}
    for s in sessions:
        row = rows[s["id"]]
        assert s["sr"] == MOSHI_SR and s["audio"].shape == (int(row.duration_s * MOSHI_SR), 2)
        assert s["duration"] == pytest.approx(row.duration_s) == s["audio"].shape[0] / MOSHI_SR
        assistant, user = _band(_ours(row.assistant_audio.bytes)), _band(_ours(row.user_audio.bytes))
        for ch, ref, other in ((0, assistant, user), (1, user, assistant)):
            got = _band(s["audio"][:, ch])
            err = np.sqrt(np.mean((got - ref) ** 2))
            assert err < 0.01 * np.sqrt(np.mean(ref ** 2)) + 1e-4, (s["id"], ch, err)   # the same signal
            assert np.sqrt(np.mean((got - other) ** 2)) > 10 * err                       # not the other one
        # alignments: exactly our words table, in time order, the assistant as SPEAKER_MAIN
        want = sorted(([w.word, [w.start_s, w.end_s], MAIN if w.role == "assistant" else f"SPEAKER_{w.role.upper()}"]
                       for w in row.words), key=lambda a: (a[1][0], a[1][1]))
        got = s["alignments"]
        assert [a[0] for a in got] == [a[0] for a in want] and [a[2] for a in got] == [a[2] for a in want]
        assert np.allclose([a[1] for a in got], [a[1] for a in want], atol=1e-6)
        assert [a[1][0] for a in got] == sorted(a[1][0] for a in got)
        assert all(0 <= a[1][0] <= a[1][1] <= s["duration"] for a in got)
        # the assistant's words are what moshi's keep_main_only keeps: the spoken text of the units
        main = [a[0] for a in got if a[2] == MAIN]
        spoken = [t for u in row.units for t in ([u.spoken_text] if u.spoken_text else [])]
        sep = "" if row.language == "zh" else " "
        assert sep.join(main).replace(" ", "") == sep.join(spoken).replace(" ", "")


def test_a_row_that_cannot_be_converted_is_a_failure_record_and_the_rest_is_exported(exported, source):
    failed = json.loads((exported / "failed.json").read_text())
    assert [f["id"] for f in failed] == [BROKEN_ID] and "user_audio" in failed[0]["error"]
    assert not list((exported / "data_stereo").glob(f"{BROKEN_ID}.*"))
    m = json.loads((exported / "manifest.json").read_text())
    assert m["format"] == "duplexsynth-moshi-v1" and m["rows"] == len(source[1]) and m["failed"] == 1
    assert m["hours"] == pytest.approx(sum(r.duration_s for r in source[1].values()) / 3600, abs=1e-5)
    assert m["layout"]["main_speaker"] == MAIN and m["layout"]["sample_rate"] == MOSHI_SR


def test_a_non_empty_out_is_refused_and_an_earlier_moshi_export_replaced_only_with_overwrite(
        exported, source, tmp_path, capsys):
    before = sorted(p.name for p in exported.iterdir())
    capsys.readouterr()
    assert cli(["export", str(source[0]), "--format", "moshi", "--out", str(exported)]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "not empty" in err and "Traceback" not in err
    assert sorted(p.name for p in exported.iterdir()) == before
    other = tmp_path / "notes"
    other.mkdir()
    (other / "mine.txt").write_text("keep me")
    assert cli(["export", str(source[0]), "--format", "moshi", "--out", str(other), "--overwrite"]) == 2
    assert "refuses to delete" in capsys.readouterr().err and (other / "mine.txt").read_text() == "keep me"
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]     # no staging folder left behind
    assert cli(["export", str(source[0]), "--format", "moshi", "--out", str(exported), "--overwrite"]) == 0
    assert sorted(p.name for p in exported.iterdir()) == before
    assert not [p for p in exported.parent.iterdir() if p.name.startswith(".")]
