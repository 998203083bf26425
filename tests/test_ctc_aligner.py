"""The CTC forced aligner: the Viterbi path on known log-probs, and a tiny random-init wav2vec2
CTC model (built here with its character tokenizer) timing CosyVoice-backend words."""

from __future__ import annotations

import numpy as np
import pytest

from pipeline.tts.aligner import CtcAligner, ctc_forced_path
from pipeline.tts.cosyvoice import CosyVoiceBackend
from schemas.script import VoiceSpec
from tests.ctc_fixtures import build_tiny_ctc


def test_forced_path_follows_the_peaks():
    """Frames peaking on blank, a, a, blank, b, b, c: a starts at 1, b at 4, c at 6."""
    blank, a, b, c = 0, 1, 2, 3
    peaks = [blank, a, a, blank, b, b, c]
    logp = np.full((len(peaks), 4), np.log(0.01))
    logp[np.arange(len(peaks)), peaks] = np.log(0.97)
    assert ctc_forced_path(logp, [a, b, c], blank) == [1, 4, 6]
    # a repeated label needs a blank between its two copies: "aa" in 2 frames cannot be aligned
    with pytest.raises(ValueError, match="too short"):
        ctc_forced_path(logp[:2], [a, a], blank)


@pytest.fixture(scope="module")
def tiny_ctc(tmp_path_factory):
    return CtcAligner(build_tiny_ctc(tmp_path_factory.mktemp("ctc")))


def test_aligner_times_backend_words(tiny_ctc, tmp_path):
    """Through the backend: one word per token, starts where the aligner put each first letter,
    monotone, inside the audio; identity says the times are the aligner's."""
    import soundfile as sf

    (tmp_path / "prompts").mkdir()
    sf.write(tmp_path / "prompts" / "alice.wav", np.zeros(1600, np.float32) + 0.1, 16000)
    (tmp_path / "prompts" / "alice.txt").write_text("hello.", encoding="utf-8")
    rng = np.random.default_rng(0)
    audio = (0.2 * rng.standard_normal(24000 * 2)).astype(np.float32)

    def client(reqs):
        return [{"audio": audio, "sample_rate": 24000, "speech_tokens": np.zeros(50, np.int32), "speed": 1.0}
                for _ in reqs]

    backend = CosyVoiceBackend(client, tmp_path, aligner=tiny_ctc)
    text = "set a timer for ten minutes."
    syn = backend.synthesize(text, VoiceSpec(name="cosyvoice:alice"), 16000)
    assert [w.word for w in syn.words] == text.split()
    starts = [w.start_s for w in syn.words]
    assert starts == sorted(starts) and starts[0] == 0.0 and syn.words[-1].end_s <= syn.duration_s + 1e-9
    onsets = tiny_ctc.char_onsets(syn.audio, 16000, text)
    word_starts = [0] + [i + 1 for i, ch in enumerate(text) if ch == " "]
    by_off = dict(onsets)
    assert all(off in by_off for off in word_starts)
    # every word after the first starts at its first letter's aligned sample
    assert [round(w.start_s * 16000) for w in syn.words[1:]] == [by_off[o] for o in word_starts[1:]]
    assert backend.identity()["word_timing"] == f"aligner (CTC, {tiny_ctc.model_dir.name})"


def test_aligner_chosen_from_run_config(tiny_ctc, tmp_path):
    """`voices.aligner: {kind: ctc, model_dir}` times the CosyVoice voices' words with that model; the
    identity records the aligner and its folder, and the backend rebuilt from it (validate) times alike."""
    import soundfile as sf

    from jobs.cosyvoice_actor import REQUIRED_FILES
    from pipeline.tts import tts_for_voices, tts_from_identity
    from schemas.config import RunConfig

    d = tmp_path / "CosyVoice2-x"
    (d / "prompts").mkdir(parents=True)
    for f in REQUIRED_FILES:
        (d / f).touch()
    sf.write(d / "prompts" / "alice.wav", np.full(1600, 0.1, np.float32), 16000)
    (d / "prompts" / "alice.txt").write_text("hello.", encoding="utf-8")
    audio = (0.2 * np.random.default_rng(1).standard_normal(24000 * 2)).astype(np.float32)

    def client(reqs):
        return [{"audio": audio, "sample_rate": 24000, "speech_tokens": np.zeros(50, np.int32), "speed": 1.0}
                for _ in reqs]

    voices = RunConfig.model_validate({"voices": {"cast": "espeak", "assistant": "cosyvoice:alice",
                                                  "cosyvoice": {"model_dir": str(d)},
                                                  "aligner": {"kind": "ctc", "model_dir": str(tiny_ctc.model_dir)}}}).voices
    tts = tts_for_voices(voices, lambda model_dir: client)
    text, voice = "set a timer for ten minutes.", VoiceSpec(name="cosyvoice:alice")
    syn = tts.synthesize(text, voice, 16000)
    want = CosyVoiceBackend(client, d, aligner=tiny_ctc).synthesize(text, voice, 16000)
    estimate = CosyVoiceBackend(client, d).synthesize(text, voice, 16000)
    assert syn.words == want.words != estimate.words
    ident = tts.identity()["engines"]["cosyvoice"]
    assert ident["word_timing"] == f"aligner (CTC, {tiny_ctc.model_dir.name})"
    assert ident["aligner_dir"] == str(tiny_ctc.model_dir)
    rebuilt = tts_from_identity(tts.identity(), lambda model_dir: client)
    assert rebuilt.synthesize(text, voice, 16000).words == syn.words
    assert "aligner_dir" not in CosyVoiceBackend(client, d).identity()   # rows without an aligner: meta as before
