"""CosyVoice 2 through the real actor path: a tiny random-init model, real inference code, real Ray.

The model folder is built here (tests/cosyvoice_fixtures.py, in the CosyVoice venv that
``scripts/setup.sh --test`` makes); the actors run in that venv through ``py_executable``. A
real-weights test runs only when DUPLEXSYNTH_COSYVOICE_DIR names a CosyVoice2-0.5B folder.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
import soundfile as sf

from jobs.cosyvoice_actor import CosyVoiceClient, check_model_dir, default_python
from pipeline.tts.cosyvoice import NATIVE_RATE, TOKENS_PER_S, CosyVoiceBackend
from schemas.language import LANGUAGES
from schemas.script import VoiceSpec

ROOT = Path(__file__).resolve().parent.parent
PYTHON = os.environ.get("DUPLEXSYNTH_COSYVOICE_PYTHON") or default_python(ROOT)
SAMPLES_PER_TOKEN = NATIVE_RATE // TOKENS_PER_S

if PYTHON is None:
    if os.environ.get("CI"):
        raise RuntimeError("CI: .venv-cosyvoice is missing (scripts/setup.sh --test makes it)")
    pytest.skip("no .venv-cosyvoice (scripts/setup.sh --cosyvoice makes it)", allow_module_level=True)


def _prompt_bank(root: Path) -> Path:
    """A voice bank with an English and a Mandarin prompt (a voiced, vibrato tone: the tiny model
    only needs a waveform to run its real front end on)."""
    sr = 16000
    t = np.arange(int(1.2 * sr)) / sr
    (root / "prompts").mkdir(parents=True)
    for i, (name, text) in enumerate([("alice", "the weather in paris is sunny."), ("mei", "你好，今天天气怎么样？")]):
        f0 = 140 + 60 * i + 10 * np.sin(2 * np.pi * 5 * t)
        wav = 0.3 * np.sin(2 * np.pi * np.cumsum(f0) / sr) * np.minimum(1, 8 * t)
        sf.write(root / "prompts" / f"{name}.wav", wav.astype(np.float32), sr)
        (root / "prompts" / f"{name}.txt").write_text(text, encoding="utf-8")
    return root


@pytest.fixture(scope="module")
def bank(tmp_path_factory) -> Path:
    return _prompt_bank(tmp_path_factory.mktemp("bank"))


@pytest.fixture(scope="module")
def client(tmp_path_factory):
    """One local Ray and one actor for the module (the crash test kills and Ray restarts it). The
    tiny model folder is built in the CosyVoice venv while Ray starts: neither waits on the other."""
    import ray
    assert not ray.is_initialized()
    out = tmp_path_factory.mktemp("cosy") / "CosyVoice2-tiny"
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    build = subprocess.Popen([PYTHON, "-m", "tests.cosyvoice_fixtures", str(out)], cwd=ROOT, env=env,
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    try:
        try:
            ray.init(address="local", num_cpus=2, include_dashboard=False, log_to_driver=False,
                     object_store_memory=200 * 1024 * 1024)
            log, _ = build.communicate(timeout=300)
        finally:
            if build.poll() is None:
                build.kill()
                build.wait()
        assert build.returncode == 0, log.decode(errors="replace")[-3000:]
        yield CosyVoiceClient(check_model_dir(out), python=PYTHON, actors=1)
    finally:
        ray.shutdown()


def _req(backend: CosyVoiceBackend, text: str, speaker: str = "alice") -> dict:
    return backend.request(text, VoiceSpec(name=f"cosyvoice:{speaker}"))


def test_native_tokens_match_24k_audio_en_zh(client, bank):
    """The LLM's own tokens come back with audio of exactly 960 samples (24 kHz / 25 tokens/s) each;
    the backend then gives the session rate and one word timing per written token."""
    backend = CosyVoiceBackend(client, bank)
    en, zh = CosyVoiceBackend(client, bank, language="en"), CosyVoiceBackend(client, bank, language="zh")
    lines = [(en, "hi, bob.", "alice"), (zh, "你好。", "mei")]
    results = client([_req(b, text, speaker) for b, text, speaker in lines])
    for (b, text, _), res in zip(lines, results):
        tokens = res["speech_tokens"]
        assert res["sample_rate"] == NATIVE_RATE == 24000
        assert res["audio"].dtype == np.float32 and res["audio"].ndim == 1
        assert len(tokens) > 0 and tokens.min() >= 0 and tokens.max() < 6561
        assert len(res["audio"]) == SAMPLES_PER_TOKEN * len(tokens)
        syn = b.shape(text, res, 16000)
        assert syn.sample_rate == 16000 and 0 < syn.duration_s <= len(tokens) / TOKENS_PER_S + 1e-6
        assert [w.word for w in syn.words] == LANGUAGES[b.language].words(text)
        assert all(a.end_s <= b2.start_s + 1e-9 for a, b2 in zip(syn.words, syn.words[1:]))
    assert backend.identity()["speech_tokens"] == "native"
    assert CosyVoiceBackend(client, bank, speed=1.2).identity()["speech_tokens"] == "retokenized"


def test_seeded_determinism_and_batching(client, bank):
    """Same line, same bytes; a batch of lines in one actor call equals them one by one, and the
    backend's batched call hands back those same native tokens."""
    backend = CosyVoiceBackend(client, bank)
    r1, r2, r3 = (_req(backend, t) for t in ("hello bob.", "good night.", "hello bob."))
    assert r1["seed"] == r3["seed"] and r1["seed"] != r2["seed"]
    batch = client([r1, r2])
    single = [client([r])[0] for r in (r1, r2)]
    for got, want in zip(batch, single):
        assert got["audio"].tobytes() == want["audio"].tobytes()
        assert np.array_equal(got["speech_tokens"], want["speech_tokens"])
    assert batch[0]["audio"].tobytes() != batch[1]["audio"].tobytes()
    [(syn, native)] = backend.synthesize_many([("hello bob.", VoiceSpec(name="cosyvoice:alice"))], 16000)
    assert np.array_equal(native, single[0]["speech_tokens"])
    assert syn.audio.tobytes() == backend.shape("hello bob.", single[0], 16000).audio.tobytes()


def test_killed_actor_is_restarted_and_the_call_retried(client, bank):
    """SIGKILL the actor's process: Ray restarts it (a fresh model load) and the call still answers,
    with the same bytes as before the crash."""
    backend = CosyVoiceBackend(client, bank)
    req = _req(backend, "one more.")  # a fresh line: no cached result to hide the retry
    [before] = client([req])
    [info] = client.info()
    os.kill(info["pid"], signal.SIGKILL)
    time.sleep(0.5)
    [after] = client([req])
    assert after["audio"].tobytes() == before["audio"].tobytes()
    assert client.info()[0]["pid"] != info["pid"]


def test_missing_model_folder_and_voice_are_one_line_errors(tmp_path, bank):
    with pytest.raises(ValueError, match="does not exist"):
        check_model_dir(tmp_path / "nope")
    (tmp_path / "half").mkdir()
    with pytest.raises(ValueError, match="lacks cosyvoice2.yaml"):
        check_model_dir(tmp_path / "half")
    backend = CosyVoiceBackend(lambda reqs: [], bank)
    with pytest.raises(ValueError, match="bob.wav does not exist"):
        backend.request("hi.", VoiceSpec(name="cosyvoice:bob"))
    with pytest.raises(ValueError, match="not a cosyvoice voice"):
        backend.request("hi.", VoiceSpec(name="en-us"))


@pytest.mark.skipif(not os.environ.get("DUPLEXSYNTH_COSYVOICE_DIR"),
                    reason="set DUPLEXSYNTH_COSYVOICE_DIR to a CosyVoice2-0.5B folder for the real-weights test")
def test_real_weights(bank):
    """Real CosyVoice2-0.5B: speech of plausible length and level, native tokens at 25/s."""
    import ray
    ray.init(address="local", include_dashboard=False, log_to_driver=False)
    try:
        client = CosyVoiceClient(os.environ["DUPLEXSYNTH_COSYVOICE_DIR"], python=PYTHON)
        backend = CosyVoiceBackend(client, os.environ.get("DUPLEXSYNTH_COSYVOICE_BANK", bank))
        speaker = os.environ.get("DUPLEXSYNTH_COSYVOICE_SPEAKER", "alice")
        [res] = client([_req(backend, "The meeting moved to half past three on Thursday.", speaker)])
        assert len(res["audio"]) == SAMPLES_PER_TOKEN * len(res["speech_tokens"])
        assert 1.5 < len(res["audio"]) / NATIVE_RATE < 10.0
        assert 0.01 < float(np.sqrt(np.mean(res["audio"] ** 2))) < 0.5
    finally:
        ray.shutdown()


if __name__ == "__main__":
    sys.exit(pytest.main([__file__, "-q"]))
