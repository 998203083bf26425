"""The RHVoice backend through its real worker process and Debian's rhvoice-english LGPL voices (no
mocks): the audio/timing contract, the spoken form ("8:30" timed as "eight thirty"), determinism
across processes and call order, exact word starts where RHVoice's events fire, speed, and the
worker's life. Skipped where librhvoice5 / rhvoice-english are not installed (scripts/setup.sh installs them)."""
from __future__ import annotations

import hashlib
import os
import pickle
import time

import numpy as np
import pytest

from pipeline.tts import VoiceRouter, tts_for_voices, tts_from_identity
from pipeline.tts.rhvoice import RHVOICE_VOICES, RHVoiceBackend, rhvoice_available
from schemas.config import VoicesConfig
from schemas.script import VoiceSpec
from schemas.thresholds import SPEECH_FLOOR_AMP
from tests.cpu_time import engine_rtf

pytestmark = pytest.mark.skipif(not rhvoice_available(),
                                reason="librhvoice5 / rhvoice-english are not installed (scripts/setup.sh installs them)")

VOICES = [VoiceSpec(name=f"rhvoice:{v}", rate=170) for v in RHVOICE_VOICES]
TEXTS = [
    "Sure, I can help with that. The weather in Paris tomorrow looks sunny.",
    "I paid 20 dollars at 3:45 for it. Well - I think so... maybe; yes!",
    "Okay.\n\nSo the train leaves at nine. Do you want me to book it? Great.",
]


@pytest.fixture(scope="module")
def rhvoice():
    b = RHVoiceBackend()
    yield b
    b.close()


def _digest(a: np.ndarray) -> str:
    return hashlib.sha256(np.ascontiguousarray(a).tobytes()).hexdigest()


@pytest.mark.parametrize("sr", [16000, 24000])
def test_contract_one_timing_per_token_inside_the_audio(rhvoice, sr):
    thr = SPEECH_FLOOR_AMP
    for voice in VOICES:
        for text in TEXTS:
            s = rhvoice.synthesize(text, voice, sr)
            assert s.sample_rate == sr and s.audio.dtype == np.float32 and s.audio.ndim == 1
            assert abs(s.audio[0]) >= thr * 0.999 and abs(s.audio[-1]) >= thr * 0.999   # trimmed onto speech
            assert float(np.max(np.abs(s.audio))) <= 0.9 + 1e-6
            assert [w.word for w in s.words] == text.split()
            prev_end = 0.0
            for w in s.words:
                assert prev_end - 1e-9 <= w.start_s <= w.end_s <= s.duration_s + 1e-9
                prev_end = w.end_s
            assert [w.word for w in s.words if w.end_s == w.start_s] in ([], ["-"])


def test_written_numbers_are_said_and_timed_as_spoken(rhvoice):
    """RHVoice is given the spoken form: '8:30' lasts as long as 'eight thirty', not as '8'."""
    for voice in VOICES:
        written = rhvoice.synthesize("I'll wake you at 8:30 in the morning.", voice, 16000)
        spoken = rhvoice.synthesize("I'll wake you at eight thirty in the morning.", voice, 16000)
        assert _digest(written.audio) == _digest(spoken.audio)
        w = {x.word: x for x in written.words}
        s = {x.word: x for x in spoken.words}
        assert w["8:30"].start_s == s["eight"].start_s and w["in"].start_s == s["in"].start_s
        assert w["8:30"].end_s - w["8:30"].start_s > 0.35


def test_deterministic_across_worker_processes_and_call_order(rhvoice):
    first = [_digest(rhvoice.synthesize(t, v, 16000).audio) for v in VOICES for t in TEXTS]
    other = pickle.loads(pickle.dumps(RHVoiceBackend()))   # a fresh worker process, asked in reverse order
    try:
        again = [_digest(other.synthesize(t, v, 16000).audio) for v in reversed(VOICES) for t in reversed(TEXTS)][::-1]
    finally:
        other.close()
    assert first == again
    slow = rhvoice.synthesize(TEXTS[0], VOICES[0].model_copy(update={"rate": 150}), 16000)
    assert slow.duration_s > rhvoice.synthesize(TEXTS[0], VOICES[0], 16000).duration_s * 1.06   # rate: 170/150 = x1.13


def test_exact_starts_lie_where_rhvoice_fires_its_word_events(rhvoice):
    """RHVoice's word callbacks fire as its notifier passes a word's first label, while its sink holds
    up to 100 ms of audio undelivered: each exact start the worker reads off the labels must lie in
    (delivered - 5 ms, delivered + 100 ms) of its callback (every sentence's labels end where its
    audio does: the worker checks it), and most starts are not the delivered count itself (the
    100 ms resolution the callbacks alone give)."""
    from pipeline.tts.native_worker import _RHVoice
    from pipeline.tts.spoken import spoken_form

    engine = _RHVoice()   # the worker's engine, in this process, for its callbacks' own counts
    try:
        checked = off_block = 0
        for voice, rate in [("slt", 0.0), ("bdl", 0.15), ("clb", -0.1)]:
            for text in TEXTS + ["Right. Let me check. It is raining in London. Take an umbrella, and a coat."]:
                said = spoken_form(text, "en").text
                head, _ = engine.speak({"voice": voice, "text": said, "rate": rate, "pitch": 0.0})
                block = head["sample_rate"] // 10
                delivered = {len(said.encode()[:pos].decode()): n for kind, pos, _, n, _ in engine.events if kind == "start"}
                for off, _, start, _ in head["tokens"]:
                    if start >= 0:
                        assert delivered[off] - block // 20 < start < delivered[off] + block, (voice, text, off)
                        checked += 1
                        off_block += start != delivered[off]
        assert checked >= 100 and off_block >= 0.8 * checked, (checked, off_block)
    finally:
        engine.close()
    assert rhvoice.identity()["word_timing"] == "engine (HTS phoneme labels)"


def test_word_starts_after_a_pause_match_the_audio_onset(rhvoice):
    """Words after a pause start at their audio onset: median |start - onset| <= 30 ms against the
    onset detector the other engines' tests use (an acoustic check, independent of the labels). (alan's pauses keep a breath floor above its quiet threshold: none measurable.)"""
    from tests.test_tts_piper import _onset

    texts = TEXTS + ["Right. Let me check. It is raining in London. Take an umbrella, and a coat.",
                     "Good morning. Your meeting moved to ten.\n\nAnything else? No? Okay, bye."]
    for voice in VOICES[1:]:   # bdl, clb, slt
        errors: list[float] = []
        for text in texts:
            s = rhvoice.synthesize(text, voice, 16000)
            for prev, w in zip(s.words, s.words[1:]):
                if w.start_s - prev.end_s >= 0.08 and (onset := _onset(s.audio, 16000, w.start_s)) is not None:
                    errors.append(abs(onset - w.start_s))
        assert len(errors) >= 8, voice.name
        assert float(np.median(errors)) <= 0.030, (voice.name, sorted(errors))


def test_faster_than_real_time(rhvoice):
    """Faster than real time on one core: CPU seconds (the worker's and ours) per audio second, which
    a busy host does not inflate as it does wall time (tests/cpu_time.py)."""
    rhvoice.synthesize(TEXTS[0], VOICES[0], 16000)   # worker and voice loaded
    cpu_rtf, wall_rtf = engine_rtf(rhvoice, lambda: sum(rhvoice.synthesize(t + " Thanks.", VOICES[0], 16000).duration_s
                                                   for t in TEXTS))
    print(f"rhvoice alan RTF {cpu_rtf:.3f} CPU s per audio s ({wall_rtf:.3f} wall s)")
    assert cpu_rtf < 0.5


def test_worker_is_started_lazily_and_ended_by_pid():
    b = RHVoiceBackend()
    assert b._engine.proc is None   # nothing started by construction or pickling
    b.synthesize("Hello there.", VOICES[0], 16000)
    pid = b._engine.proc.pid
    os.kill(pid, 0)   # running
    b.close()
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)
    assert b.synthesize("Hello again.", VOICES[0], 16000).duration_s > 0.3   # a new worker on the next call
    b.close()


def test_router_sends_rhvoice_voices_to_rhvoice_and_rebuilds_from_identity():
    router = tts_for_voices(VoicesConfig(assistant="rhvoice:clb", people={"rhvoice:bdl": 1.0, "flite:rms": 1.0}))
    assert isinstance(router, VoiceRouter) and set(router.engines) == {"espeak-ng", "flite", "rhvoice"}
    try:
        spoken = router.synthesize("Hello there.", VOICES[0], 16000)
        rebuilt = tts_from_identity(router.identity())
        assert isinstance(rebuilt, VoiceRouter)
        try:
            assert _digest(rebuilt.synthesize("Hello there.", VOICES[0], 16000).audio) == _digest(spoken.audio)
        finally:
            rebuilt.close()
        with pytest.raises(ValueError, match="not an RHVoice voice"):
            router.engines["rhvoice"].synthesize("Hi.", VoiceSpec(name="rhvoice:lyubov"), 16000)   # NC: not ours
    finally:
        router.close()


def test_a_generation_process_keeps_one_backend_and_ends_its_worker_at_exit(tmp_path):
    """jobs/shards.load_tts: one backend per process and voices config; its worker ends when the process does."""
    import subprocess
    import sys

    code = ("from jobs.shards import load_tts\n"
            "from schemas.config import RunConfig, VoicesConfig\n"
            "from schemas.script import VoiceSpec\n"
            "cfg = RunConfig(voices=VoicesConfig(assistant='rhvoice:slt'))\n"
            "tts = load_tts(cfg)\n"
            "assert load_tts(cfg.model_copy()) is tts\n"
            "tts.synthesize('Hello there.', VoiceSpec(name='rhvoice:slt'), 16000)\n"
            "print(tts.engines['rhvoice']._engine.proc.pid)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                         cwd=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    assert out.returncode == 0, out.stderr
    pid = int(out.stdout.split()[-1])
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            break
        time.sleep(0.1)
    else:
        pytest.fail(f"the RHVoice worker {pid} outlived its generation process")
