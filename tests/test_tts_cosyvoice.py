"""CosyVoice 2 through the real actor path: a tiny random-init model, real inference code, real Ray.

The model folder is built here (tests/cosyvoice_fixtures.py, in the CosyVoice venv that
``scripts/setup.sh --test`` makes); the actors run in that venv through ``py_executable``, on the
session's Ray head (conftest `ray_head`), named as a run's shared actors are, so the end-to-end
`generate` + `validate` here finds the loaded model instead of loading its own. A real-weights
test runs only when DUPLEXSYNTH_COSYVOICE_DIR names a CosyVoice2-0.5B folder.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq
import pytest
import soundfile as sf

from jobs.cli import main
from jobs.cosyvoice_actor import CosyVoiceClient, actor_name, check_model_dir, default_python
from pipeline.tts.cosyvoice import NATIVE_RATE, CosyVoiceBackend
from schemas.language import LANGUAGES
from schemas.protocol import NATIVE_TOKENS, SPEECH_TOKEN_SOURCE_KEY, SPEECH_TOKENS_PER_SECOND
from schemas.script import VoiceSpec
from schemas.timeline import META_KEY, Stem
from schemas.vocab import Decision

ROOT = Path(__file__).resolve().parent.parent
PYTHON = os.environ.get("DUPLEXSYNTH_COSYVOICE_PYTHON") or default_python(ROOT)
SAMPLES_PER_TOKEN = NATIVE_RATE // SPEECH_TOKENS_PER_SECOND

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
def client(tmp_path_factory, ray_head):
    """One actor for the module on the session's Ray head (the crash test kills and Ray restarts
    it), named as jobs.cosyvoice_actor.shared_client names a run's. The tiny model folder is built
    in the CosyVoice venv while this process attaches: neither waits on the other."""
    import ray

    from jobs.ray_cluster import prepare_client_auth
    assert not ray.is_initialized()
    out = tmp_path_factory.mktemp("cosy") / "CosyVoice2-tiny"
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    build = subprocess.Popen([PYTHON, "-m", "tests.cosyvoice_fixtures", str(out)], cwd=ROOT, env=env,
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    try:
        try:
            prepare_client_auth()
            ray.init(address=ray_head, log_to_driver=False)
            log, _ = build.communicate(timeout=300)
        finally:
            if build.poll() is None:
                build.kill()
                build.wait()
        assert build.returncode == 0, log.decode(errors="replace")[-3000:]
        c = CosyVoiceClient(check_model_dir(out), python=PYTHON, actors=1, name=actor_name(out))
        yield c
        for a in c.actors:   # its CPU back to the head's other tests now, not at session end
            ray.kill(a, no_restart=True)
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
        assert syn.sample_rate == 16000 and 0 < syn.duration_s <= len(tokens) / SPEECH_TOKENS_PER_SECOND + 1e-6
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
    batch = client([r1, r2], cache=False)
    single = [client([r], cache=False)[0] for r in (r1, r2)]
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


def _channel_tokens(row: dict, per_unit: int) -> np.ndarray:
    """The assistant channel's tokens on the 25 Hz grid, as the units carry them (-1: a listening unit)."""
    out = np.full((len(row["units"]) + 1) * per_unit, -1, dtype=np.int64)
    for u in row["units"]:
        if u["decision"] == Decision.SPEAK:
            k = (u["index"] + 1) * per_unit
            out[k:k + len(u["speech_tokens"])] = u["speech_tokens"]
    return out


def _matches(channel: np.ndarray, native: np.ndarray, at: int) -> int:
    seg = channel[max(0, at):at + len(native)]
    return int(np.sum(seg == native[max(0, -at):max(0, -at) + len(seg)]))


def test_generate_with_a_cosyvoice_assistant_has_native_tokens_and_validates(client, bank, tmp_path, capsys):
    """A run config naming the model folder: the assistant speaks cosyvoice:alice, its rows carry the
    tokens the actor generated for each of its lines where the line sounds, the manifest and the
    rows say native, and `validate` (re-rendering through the same shared actor) passes. No speech
    tokenizer is configured: the model folder's own fills the channel where CosyVoice is silent.
    `voices.aligner` names a (tiny random) CTC folder: the workers time CosyVoice's words with it,
    meta.tts says so, and validate rebuilds it from there."""
    from tests.ctc_fixtures import build_tiny_ctc

    model = Path(client.model_dir)
    shutil.copytree(bank / "prompts", model / "prompts", dirs_exist_ok=True)
    ctc = build_tiny_ctc(tmp_path / "ctc")
    cfg = tmp_path / "cosy.yaml"
    cfg.write_text(json.dumps({"voices": {"cast": "espeak", "assistant": "cosyvoice:alice",
                                          "cosyvoice": {"model_dir": str(model)},
                                          "aligner": {"kind": "ctc", "model_dir": str(ctc)}}}), encoding="utf-8")
    out = tmp_path / "d"
    assert main(["generate", "--config", str(cfg), "--num", "2", "--shard-size", "2", "--scenario", "turn_taking",
                 "--out", str(out), "--no-progress"]) == 0
    assert main(["validate", str(out)]) == 0, capsys.readouterr()
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest[SPEECH_TOKEN_SOURCE_KEY] == {"cosyvoice:alice": NATIVE_TOKENS}
    assert manifest["speech_tokenizer"]["file"] == "speech_tokenizer_v2.onnx"
    rows = pq.read_table(out / "shards" / "shard-00000.parquet").to_pylist()
    assert len(rows) == 2
    backend = CosyVoiceBackend(client, model, language=None)
    for row in rows:
        meta = json.loads(row["meta"])
        assert meta[SPEECH_TOKEN_SOURCE_KEY] == {"cosyvoice:alice": NATIVE_TOKENS}
        timing = meta["tts"]["engines"]["cosyvoice"]
        assert (timing["word_timing"], timing["aligner_dir"]) == ("aligner (CTC, ctc)", str(ctc))
        per_unit = round(SPEECH_TOKENS_PER_SECOND * row["unit_s"])
        channel = _channel_tokens(row, per_unit)
        tracks = [t for t in meta[META_KEY]["tracks"] if t["stem"] == Stem.ASSISTANT]
        assert tracks
        for t in tracks:
            voice = VoiceSpec.model_validate(t["source"]["voice"])
            assert voice.name == "cosyvoice:alice"
            [res] = client([backend.request(t["source"]["text"], voice)])
            native = res["speech_tokens"].astype(np.int64)
            at = round(t["offset"] / row["sample_rate"] * SPEECH_TOKENS_PER_SECOND)   # where the line starts, 25 Hz
            best = max(_matches(channel, native, at + s) for s in range(-2, 3))
            assert best >= len(native) - 2, (best, len(native))   # all but the trimmed edges, in order


class _Counting:
    """The client, counting the lines of each actor call a shard makes."""

    def __init__(self, client) -> None:
        self.client, self.calls = client, []

    def __call__(self, requests, cache=True):
        self.calls.append(len(requests))
        return self.client(requests, cache)


def test_a_shard_batches_its_trajectories_lines_and_the_rows_are_the_same_bytes(client, bank, tmp_path):
    """`voices.cosyvoice.batch_size: 8`: a shard of 3 trajectories renders its CosyVoice lines ahead in
    calls of up to 8 lines, so it makes fewer actor calls than it speaks lines, and writes the same
    Parquet bytes as `batch_size: 1` (each line asked alone, as composition reaches it). They are the
    end-to-end test's two trajectories, so the actor answers their lines from its memory of that run
    (same request, same seed: the bytes a fresh decode gives, as test_seeded_determinism_and_batching
    checks with the cache off); run alone, this test decodes them."""
    from jobs.shards import run_shard, shard_plan
    from pipeline.tts import tts_for_voices
    from schemas.config import parse_config

    model = Path(client.model_dir)
    shutil.copytree(bank / "prompts", model / "prompts", dirs_exist_ok=True)
    summaries, calls = {}, {}
    for batch in (8, 1):
        cfg = parse_config({"voices": {"cast": "espeak", "assistant": "cosyvoice:alice",
                                       "cosyvoice": {"model_dir": str(model), "batch_size": batch}},
                            "scenarios": {"turn_taking": 1.0}})
        counting = _Counting(client)
        tts = tts_for_voices(cfg.voices, lambda d: counting)
        summaries[batch] = run_shard(cfg, shard_plan(0, 2, 2), tmp_path / f"b{batch}", tts=tts)
        calls[batch] = counting.calls
    assert (summaries[8].rows, summaries[8].failed) == (2, 0), summaries[8].failures
    assert summaries[8].sha256 == summaries[1].sha256
    assert set(calls[1]) == {1} and len(calls[1]) >= 2   # unbatched: one actor call per line (one or more per trajectory)
    assert len(calls[8]) < sum(calls[8]) and max(calls[8]) <= 8 and len(calls[8]) < len(calls[1]), calls


def test_instruct_mode_speaks_through_the_actor(client, bank):
    """The tiny CosyVoice 2 folder has instruct mode: an instructed line runs the real
    frontend_instruct2 path, with native tokens at 25/s, and is seeded apart from the plain line."""
    from jobs.cosyvoice_actor import instruct_refusal

    assert instruct_refusal(client.model_dir) is None and client.info()[0]["instruct"] is True
    plain, told = CosyVoiceBackend(client, bank), CosyVoiceBackend(client, bank, instruct="speak slowly.")
    r_plain, r_told = _req(plain, "see you soon."), _req(told, "see you soon.")
    assert r_told["instruct"] == "speak slowly." and r_told["seed"] != r_plain["seed"]
    [res] = client([r_told])
    assert len(res["speech_tokens"]) > 0 and len(res["audio"]) == SAMPLES_PER_TOKEN * len(res["speech_tokens"])


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
        # a run's batches must not change a line's bytes on this device either (each line keeps its seed)
        reqs = [_req(backend, t, speaker) for t in ("Sure, I can do that.", "Set a timer for ten minutes.")]
        batch = client(reqs, cache=False)
        for r, got in zip(reqs, batch):
            [alone] = client([r], cache=False)
            assert got["audio"].tobytes() == alone["audio"].tobytes()
            assert np.array_equal(got["speech_tokens"], alone["speech_tokens"])
    finally:
        ray.shutdown()


if __name__ == "__main__":
    sys.exit(pytest.main([__file__, "-q"]))
