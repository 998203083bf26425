"""The timeline is one serialisable description (schemas/timeline.py), and the one renderer
(pipeline/mixer.py) turns it into exactly the audio a row stores.

Rows come from the real generator with espeak-ng; every acoustic component is switched on where
it matters (babble, hum, a noise file, a room, an echo through the room), so each part of the
scene is re-rendered from what meta records and compared sample for sample after the same 16-bit
quantisation FLAC applies.
"""
from __future__ import annotations

import json

import numpy as np
import pytest
import soundfile as sf

from generators.registry import plan_trajectory
from pipeline import acoustics as ac
from pipeline import mixer, rooms
from pipeline.io import decode_audio
from pipeline.render import render_trajectory
from schemas.config import AcousticsConfig, RunConfig
from schemas.timeline import (FD_BENCH_RECIPES, META_KEY, Cut, FileSource, Gain, SpeechSource, Stem, TimelineSpec,
                              Track)
from schemas.vocab import EventKind
from tests.generated import FAST_VOICES

SR = 16_000
EVERYTHING = dict(noise_prob=1.0, babble_prob=1.0, hum_prob=1.0, reverb_prob=1.0, echo_prob=1.0, gain_prob=1.0,
                  noise_file_prob=1.0)


@pytest.fixture(scope="module")
def noise_dir(tmp_path_factory):
    root = tmp_path_factory.mktemp("noise")
    sf.write(root / "fan.flac", 0.1 * np.random.default_rng(2).standard_normal(3 * 22050), 22050)
    return root


def _row(espeak, scenario: str, seed: int, **acoustics):
    cfg = RunConfig(acoustics=AcousticsConfig(**acoustics), voices=FAST_VOICES)
    return render_trajectory(cfg=cfg, traj_id="t", script=plan_trajectory(cfg, scenario, seed), tts=espeak)


def _stored(row):
    return decode_audio(row.user_audio.bytes)[0], decode_audio(row.assistant_audio.bytes)[0]


@pytest.mark.parametrize("scenario,seed", [("interruption_repair", 1), ("other_directed", 2), ("delegation", 3),
                                           ("background_speech", 4)])
def test_a_row_re_renders_from_its_description_sample_for_sample(espeak, noise_dir, scenario, seed):
    row = _row(espeak, scenario, seed, noise_dir=noise_dir, **EVERYTHING)
    spec = TimelineSpec.from_meta(json.loads(row.meta))
    mic = spec.mic
    assert [x.kind for x in mic.noises] == ["colour", "babble", "hum", "file"]
    assert mic.room is not None and mic.echo is not None and mic.echo.room is not None
    assert spec.num_units == len(row.units) and spec.sample_rate == row.sample_rate
    user, asst = mixer.render_audio(spec, espeak)
    got_user, got_asst = _stored(row)
    assert np.array_equal(rooms.quantise_like_flac(asst), got_asst.astype(np.float64))
    assert np.array_equal(rooms.quantise_like_flac(user), got_user.astype(np.float64))
    # and the description is plain JSON that reads back to itself
    assert TimelineSpec.model_validate_json(spec.model_dump_json()) == spec


def test_every_utterance_is_a_track_of_its_event(espeak):
    row = _row(espeak, "other_directed", 2)
    spec = TimelineSpec.from_meta(json.loads(row.meta))
    by_event = {e.id: e for e in row.events}
    spoken = {e.id for e in row.events if e.kind in (EventKind.USER_TURN, EventKind.ASSISTANT_TURN,
                                                       EventKind.INTERRUPTION, EventKind.BACKCHANNEL,
                                                       EventKind.OTHER_DIRECTED, EventKind.BACKGROUND_SPEECH)}
    assert {t.event_id for t in spec.tracks} == spoken
    for t in spec.tracks:
        ev = by_event[t.event_id]
        if ev.kind != EventKind.USER_TURN:   # a user turn with a pause is two tracks; the first starts it
            assert t.offset == int(round(ev.start_s * SR))
        if ev.kind == EventKind.OTHER_DIRECTED:
            assert t.stem == Stem.OVERLAY and t.ops == FD_BENCH_RECIPES[EventKind.OTHER_DIRECTED]


def test_an_interrupted_turn_is_a_cut_operation_at_its_recorded_cut(espeak):
    row = _row(espeak, "interruption_repair", 1)
    spec = TimelineSpec.from_meta(json.loads(row.meta))
    cut_turn = next(e for e in row.events if e.kind == EventKind.ASSISTANT_TURN and json.loads(e.attrs)["interrupted"])
    a = json.loads(cut_turn.attrs)
    track = next(t for t in spec.tracks if t.event_id == cut_turn.id)
    (op,) = track.ops
    assert isinstance(op, Cut)
    assert track.offset + op.at == int(round(a["cut_s"] * SR)) and op.fade == int(round(a["fade_s"] * SR))
    # the assistant channel fades out after the cut and is silent from the fade's end until the next track
    nxt = min(t.offset for t in spec.tracks if t.stem == Stem.ASSISTANT and t.offset > track.offset)
    asst = _stored(row)[1]
    assert float(np.max(np.abs(asst[track.offset + op.at + op.fade: nxt]))) == 0.0


def test_a_file_source_renders_the_recording_through_its_operations(tmp_path, espeak):
    x = (0.3 * np.sin(2 * np.pi * 300 * np.arange(2 * 8000) / 8000)).astype(np.float32)
    path = tmp_path / "said.wav"
    sf.write(path, x, 8000)
    sha = rooms.load_audio(str(path), SR)[1]
    track = Track(event_id="u1", stem=Stem.USER, offset=SR // 2, source=FileSource(path=str(path), sha256=sha),
                  ops=(Cut(at=SR, fade=480), Gain(db=-6.0)))
    y = mixer.track_audio(track, mixer.cached_speaker(espeak, SR), SR)
    want = ac.cut_and_fade_out(rooms.load_audio(str(path), SR)[0].astype(np.float32), SR, 480) * ac.db_to_amp(-6.0)
    assert len(y) == SR + 480 and np.allclose(y, want, atol=1e-7)   # the fade follows the cut
    stem = mixer.mix_stem([track], [y], Stem.USER, 2 * SR)
    assert not stem[: SR // 2].any() and np.array_equal(stem[SR // 2: SR // 2 + len(y)], y)
    # a changed recording is refused by name, never rendered silently
    rooms.load_audio.cache_clear()
    sf.write(path, x[::-1].copy(), 8000)
    with pytest.raises(ValueError, match="said.wav changed since rendering"):
        mixer.track_audio(track, mixer.cached_speaker(espeak, SR), SR)
    rooms.load_audio.cache_clear()


def test_speech_tracks_use_the_tts_cache_once_per_line(espeak):
    calls = []

    class Counting:
        def synthesize(self, text, voice, sample_rate):
            calls.append(text)
            return espeak.synthesize(text, voice, sample_rate)

    row = _row(espeak, "backchannel", 1)
    spec = TimelineSpec.from_meta(json.loads(row.meta))
    mixer.render_audio(spec, Counting())
    lines = {(t.source.text, t.source.voice) for t in spec.tracks if isinstance(t.source, SpeechSource)}
    assert len(calls) == len(lines)


def test_the_description_replaces_the_old_acoustics_record(espeak):
    meta = json.loads(_row(espeak, "turn_taking", 1).meta)
    assert META_KEY in meta and "acoustics" not in meta
    with pytest.raises(ValueError):   # a description with an unknown operation is refused when read
        bad = json.loads(json.dumps(meta[META_KEY]))
        bad["tracks"][0]["ops"] = [{"op": "reverse"}]
        TimelineSpec.model_validate(bad)
