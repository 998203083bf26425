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
from tests.export_source import BROKEN_ID, consumer_dataset, consumer_rows

MOSHI_SR = 24_000
MAIN = "SPEAKER_MAIN"


@pytest.fixture(scope="module")
def source(tmp_path_factory, generated) -> tuple[Path, dict[str, TrajectoryRow]]:
    return consumer_dataset(tmp_path_factory.mktemp("moshi"), generated)


@pytest.fixture(scope="module")
def exported(source, tmp_path_factory) -> Path:
    """The unit clock's timeline exactly (`--reply-latency clock`): audio and words as the rows hold them."""
    out = tmp_path_factory.mktemp("moshi-out") / "moshi"
    assert cli(["export", str(source[0]), "--format", "moshi", "--out", str(out), "--reply-latency", "clock"]) == 0
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
    assert cli(["export", str(source[0]), "--format", "moshi", "--out", str(exported), "--reply-latency", "clock"]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "not empty" in err and "Traceback" not in err
    assert sorted(p.name for p in exported.iterdir()) == before
    other = tmp_path / "notes"
    other.mkdir()
    (other / "mine.txt").write_text("keep me")
    assert cli(["export", str(source[0]), "--format", "moshi", "--out", str(other), "--overwrite"]) == 2
    assert "refuses to delete" in capsys.readouterr().err and (other / "mine.txt").read_text() == "keep me"
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]     # no staging folder left behind
    assert cli(["export", str(source[0]), "--format", "moshi", "--out", str(exported), "--overwrite",
                "--reply-latency", "clock"]) == 0
    assert sorted(p.name for p in exported.iterdir()) == before
    assert not [p for p in exported.parent.iterdir() if p.name.startswith(".")]


# ----------------------------------------------------------------------------- --reply-latency (issue #29)
#
# A moshi model has an 80 ms frame and no unit clock: the default export brings each reply to the user
# forward to a human latency by removing silence from both channels. The check below reads the export as
# moshi-finetune does (soundfile + json) and holds it against the source row, knowing nothing of how the
# export chose its cuts: every word is there with its duration and its audio, time moved only forward at
# the first word of a reply to the user, never before one frame after the user's last word, never into
# anyone's voice, and the reply's audio starts at its first word.

FRAME_S = 0.08       # Mimi: 12.5 frames a second
RATE_EPS = 2 / MOSHI_SR + 2e-6


def _reply_starts(row: TrajectoryRow) -> dict[tuple[float, float], int]:
    """(start, end) of the first word of every assistant turn that answers the user -> its index among them."""
    firsts: dict[tuple[float, float], int] = {}
    turns = sorted((e for e in row.events if e.kind == "assistant_turn"), key=lambda e: e.start_s)
    for k, e in enumerate(e for e in turns if json.loads(e.attrs)["trigger"] == "user"):
        own = sorted((w.start_s, w.end_s) for w in row.words if w.event_id == e.id)
        if own:
            firsts[own[0]] = k
    return firsts


_SOURCE_BANDS: dict[tuple[str, int], np.ndarray] = {}


def _source_band(row: TrajectoryRow, ch: int) -> np.ndarray:
    """The row's channel at 24 kHz below 6 kHz (resampled by us, not the export), once per row."""
    key = (row.id, ch)
    if key not in _SOURCE_BANDS:
        _SOURCE_BANDS[key] = _band(_ours((row.assistant_audio if ch == 0 else row.user_audio).bytes))
    return _SOURCE_BANDS[key]


def check_session(row: TrajectoryRow, s: dict) -> tuple[list[str], list[tuple[int, float]]]:
    """Problems of one exported session against its source row, and (index among the replies to the user,
    latency) of every reply moved."""
    bad: list[str] = []
    src = sorted(([w.word, [w.start_s, w.end_s], MAIN if w.role == "assistant" else f"SPEAKER_{w.role.upper()}"]
                  for w in row.words), key=lambda a: (a[1][0], a[1][1]))
    got = s["alignments"]
    if [(a[0], a[2]) for a in got] != [(a[0], a[2]) for a in src]:
        return [f"{row.id}: not the source's words and speakers in order"], []
    replies = _reply_starts(row)
    shift = [a[1][0] - b[1][0] for a, b in zip(src, got)]
    lat: list[tuple[int, float]] = []
    for i, (a, b) in enumerate(zip(src, got)):
        if abs((a[1][1] - a[1][0]) - (b[1][1] - b[1][0])) > RATE_EPS:
            bad.append(f"{row.id}: word {i} {a[0]!r} lasts {b[1][1] - b[1][0]:.4f} s, not {a[1][1] - a[1][0]:.4f}")
        step = shift[i] - (shift[i - 1] if i else 0.0)
        if step < -RATE_EPS:
            bad.append(f"{row.id}: word {i} {a[0]!r} moved later than the word before it")
        if step <= RATE_EPS:
            continue
        if a[2] != MAIN or (a[1][0], a[1][1]) not in replies:
            bad.append(f"{row.id}: time removed before word {i} {a[0]!r}, which starts no reply to the user")
            continue
        before = got[:i]
        user_end = max((x[1][1] for x in before if x[2] == "SPEAKER_USER"), default=None)
        if user_end is None or b[1][0] < user_end + FRAME_S - RATE_EPS:
            bad.append(f"{row.id}: reply {a[0]!r} at {b[1][0]:.3f} s starts less than a frame after the user's "
                       f"last word ({user_end})")
        elif b[1][0] < max(x[1][1] for x in before) - RATE_EPS:
            bad.append(f"{row.id}: reply {a[0]!r} moved into earlier speech")
        else:
            lat.append((replies[(a[1][0], a[1][1])], b[1][0] - user_end))
        ch0 = s["audio"][:, 0]
        k0, k1 = int((b[1][0] - FRAME_S) * MOSHI_SR), int((b[1][0] + FRAME_S) * MOSHI_SR)
        own_end = max((x[1][1] for x in before if x[2] == MAIN), default=0.0) + FRAME_S   # its fade and tail
        quiet_from = int(max(b[1][0] - 0.5, own_end) * MOSHI_SR)
        if np.abs(ch0[quiet_from:k0]).max(initial=0) > 10 ** (-50 / 20) or np.abs(ch0[k0:k1]).max() < 10 ** (-45 / 20):
            bad.append(f"{row.id}: reply {a[0]!r}: the assistant audio does not start within a frame of {b[1][0]:.3f} s")
    want_s = row.duration_s - shift[-1] if shift else row.duration_s
    if abs(s["duration"] - want_s) > RATE_EPS or abs(s["audio"].shape[0] / MOSHI_SR - want_s) > RATE_EPS:
        bad.append(f"{row.id}: {s['duration']} s long, the source less what was removed is {want_s}")
    for ch in (0, 1):   # every word's audio on its channel is the source's (below 6 kHz, as above)
        ref, out = _source_band(row, ch), _band(s["audio"][:, ch])
        for i, (a, b) in enumerate(zip(src, got)):
            if (a[2] == MAIN) != (ch == 0) or a[1][1] - a[1][0] < 0.05:
                continue
            r0 = round(a[1][0] * MOSHI_SR)
            g0 = r0 - round(shift[i] * MOSHI_SR)      # the removed samples (times are rounded to 1 us)
            n = round((a[1][1] - a[1][0]) * MOSHI_SR)
            x, y = ref[r0:r0 + n], out[g0:g0 + n]
            if len(y) != n or np.sqrt(np.mean((x - y) ** 2)) > 0.01 * np.sqrt(np.mean(x ** 2)) + 1e-4:
                bad.append(f"{row.id}: word {i} {a[0]!r}: the audio at its exported times is not its source audio")
    return bad, lat


@pytest.fixture(scope="module")
def natural(generated, tmp_path_factory) -> tuple[Path, dict[str, TrajectoryRow]]:
    """Three `natural` conversations (espeak voices): ~35 replies to the user, with the preset's noise, echo,
    rooms, backchannels, hesitations and interruptions, plus the consumer rows (relays, zh)."""
    from schemas.config import RunConfig, load_config
    from tests.generated import FAST_VOICES, Generated, write_dataset

    cfg = RunConfig.model_validate({**load_config(None, {}, preset="natural").model_dump(mode="json"),
                                    "voices": FAST_VOICES.model_dump(mode="json"), "seed": 0, "num": 1})
    gen = Generated(tts=generated.tts, onnx_path=generated.onnx_path, cfg=cfg)
    rows = [gen.row("conversation", seed, row_id=f"x-en-natural-{seed}") for seed in (1, 2, 3)]
    rows += [r for r in consumer_rows(generated) if r.id != BROKEN_ID]
    mixed = {k: v for k, v in cfg.model_dump(mode="json").items() if k != "language"}
    src = write_dataset(tmp_path_factory.mktemp("moshi-natural") / "src", rows, rows_per_shard=4,
                        cfg=RunConfig.model_validate({**mixed, "languages": {"en": 0.5, "zh": 0.5}}))
    return src, {r.id: r for r in rows}


def _export(src: Path, out: Path, *extra: str) -> list[dict]:
    assert cli(["export", str(src), "--format", "moshi", "--out", str(out), *extra]) == 0
    return read_moshi(out)


@pytest.fixture(scope="module")
def human(natural, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("moshi-human") / "moshi"
    _export(natural[0], out)          # the default: --reply-latency human
    return out


def _moved(src: Path, out: Path, rows: dict[str, TrajectoryRow], spec: str) -> list[tuple[float, float]]:
    """(realised latency, drawn target) of every reply the export moved, every session checked."""
    from jobs.export_moshi import reply_target
    from jobs.reply_latency import draw_targets

    pairs = []
    for s in read_moshi(out):
        row = rows[s["id"]]
        bad, lat = check_session(row, s)
        assert not bad, bad[:5]
        targets = draw_targets(row.seed, len(_reply_starts(row)), reply_target(spec))
        pairs += [(x, targets[k]) for k, x in lat]
    return pairs


def test_the_default_brings_replies_forward_to_their_drawn_latency_keeping_words_and_audio_together(human, natural):
    _, rows = natural
    pairs = _moved(natural[0], human, rows, "human")
    assert len(pairs) >= 30                                          # a few dozen replies moved
    assert all(x >= t - RATE_EPS for x, t in pairs)                  # never sooner than drawn
    hit = [x for x, t in pairs if abs(x - t) <= RATE_EPS]
    assert len(hit) >= 0.9 * len(pairs)                              # the rest: no room to cut it all
    assert np.median([x for x, _ in pairs]) == pytest.approx(np.median([t for _, t in pairs]), abs=0.02)
    assert min(x for x, _ in pairs) >= FRAME_S - RATE_EPS
    m = json.loads((human / "manifest.json").read_text())
    rl = m["layout"]["reply_latency"]
    assert rl["target"] == "human" and rl["latency_s"]["before"]["p50"] > 0.6       # the clock's ~0.8 s
    assert rl["outcomes"].get("shortened", 0) + rl["outcomes"].get("limited", 0) == len(pairs)
    assert rl["outcomes"].get("kept:backend", 0) >= 2                             # relays keep their moment
    assert m["hours"] == pytest.approx(sum(s["duration"] for s in read_moshi(human)) / 3600, abs=1e-5)
    assert m["hours"] == pytest.approx(sum(r.duration_s for r in rows.values()) / 3600 - rl["removed_s"] / 3600,
                                       abs=1e-5)


def test_human_targets_are_the_natural_presets_turn_offsets_at_least_a_frame():
    """Over many rows the default draws sit where people answer (~0.2 s, pipeline.stats HUMAN_RESPONSE_S)."""
    from jobs.export_moshi import reply_target
    from jobs.reply_latency import draw_targets
    from pipeline.stats import HUMAN_RESPONSE_S

    t = np.concatenate([draw_targets(seed, 10, reply_target("human")) for seed in range(300)])
    assert abs(np.median(t) - HUMAN_RESPONSE_S) < 0.04 and t.min() == FRAME_S and np.percentile(t, 90) < 1.0
    assert draw_targets(7, 5, reply_target("human")) == draw_targets(7, 5, reply_target("human"))


def test_a_fixed_target_is_met_at_every_moved_reply(natural, tmp_path):
    _, rows = natural
    _export(natural[0], tmp_path / "m", "--reply-latency", "[0.2, 0.2]")
    pairs = _moved(natural[0], tmp_path / "m", rows, "[0.2, 0.2]")
    assert len(pairs) >= 30 and np.median([x for x, _ in pairs]) == pytest.approx(0.2, abs=RATE_EPS)


def test_the_same_rows_give_the_same_bytes(natural, human, tmp_path):
    _export(natural[0], tmp_path / "again")
    files = sorted(p.relative_to(human) for p in human.rglob("*") if p.is_file() and p.name != "manifest.json")
    assert files == sorted(p.relative_to(tmp_path / "again") for p in (tmp_path / "again").rglob("*")
                           if p.is_file() and p.name != "manifest.json")
    assert all((human / f).read_bytes() == (tmp_path / "again" / f).read_bytes() for f in files)
    lay = [json.loads((d / "manifest.json").read_text())["layout"] for d in (human, tmp_path / "again")]
    assert lay[0] == lay[1]


def test_the_check_refuses_a_reply_moved_to_one_frame_before_the_users_end(natural, tmp_path, monkeypatch):
    """The mutant: in each row the first cut reaches back so its reply lands 80 ms before the user's last
    word ends (what a cut taken without the room check would do)."""
    import jobs.export_moshi as em
    from jobs.reply_latency import Cut, plan_cuts

    def mutant(row, assistant, rate, target):
        plan = plan_cuts(row, assistant, rate, target)
        moved = [r for r in plan.replies if r.outcome in ("shortened", "limited")]
        if plan.cuts:
            c, r = plan.cuts[0], moved[0]
            k = round((r.after_s + FRAME_S) * rate)
            plan.cuts[0] = Cut(c.start - k, c.length + k, rate)
        return plan

    monkeypatch.setattr(em, "plan_cuts", mutant)
    _, rows = natural
    sessions = _export(natural[0], tmp_path / "m")
    problems = {s["id"]: check_session(rows[s["id"]], s)[0] for s in sessions}
    assert all(problems.values()), [k for k, v in problems.items() if not v]     # every row has a moved reply
    for bad in problems.values():
        assert any("less than a frame after the user's last word" in p for p in bad), bad
        assert any(" lasts " in p for p in bad), bad           # and the user's last word lost its end


def test_clock_keeps_the_timeline_and_a_bad_target_is_one_line(natural, tmp_path, capsys):
    _, rows = natural
    sessions = _export(natural[0], tmp_path / "c", "--reply-latency", "clock")
    for s in sessions:
        row = rows[s["id"]]
        assert s["duration"] == pytest.approx(row.duration_s) and s["audio"].shape[0] == int(row.duration_s * MOSHI_SR)
        assert sorted(tuple(a[1]) for a in s["alignments"]) == sorted((round(w.start_s, 6), round(w.end_s, 6))
                                                                       for w in row.words)
    rl = json.loads((tmp_path / "c" / "manifest.json").read_text())["layout"]["reply_latency"]
    assert rl["target"] == "clock" and rl["removed_s"] == 0 and rl["outcomes"] == {}
    for bad in ("fast", "[0.3, 0.1]", "{kind: exgauss, mu: 0.2}", "{kind: lognormal, mu: -1}"):
        capsys.readouterr()
        assert cli(["export", str(natural[0]), "--format", "moshi", "--out", str(tmp_path / "x"),
                    "--reply-latency", bad]) == 2
        err = capsys.readouterr().err
        assert len(err.strip().splitlines()) == 1 and "--reply-latency" in err and "Traceback" not in err, err
        assert not (tmp_path / "x").exists()
    assert cli(["export", str(natural[0]), "--format", "lhotse", "--out", str(tmp_path / "l"),
                "--reply-latency", "human"]) == 2
    assert "moshi only" in capsys.readouterr().err
