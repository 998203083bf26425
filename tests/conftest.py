"""Shared fixtures. ToneTTS gives exact, known word timings so unit-boundary cases can be built.

`generated` is the one fixture set for tests that need trajectory rows: rows from the real
planners and composer (tests/generated.py), each validated before use, made once per session.
"""
from __future__ import annotations

import zlib
from dataclasses import dataclass

import numpy as np
import pytest

from pipeline.tts.base import CachedTTS, Synthesis, WordTiming

WORD_S = 0.25
GAP_S = 0.05

# The files that take longest (seconds under `-n 2 --dist loadfile`, measured on the 2-core box), run
# first: xdist hands whole files to the two workers in collection order, and a long file that starts
# last leaves one core idle while it finishes.
LONGEST_FIRST = ("test_train_distributed.py", "test_realism_natural.py", "test_output_safety.py", "test_end_to_end.py",
                 "test_resume.py", "test_tts_cosyvoice.py", "test_train_sync.py", "test_cluster.py", "test_tts_piper.py",
                 "test_zh_end_to_end.py", "test_train.py", "test_ray_cleanup.py", "test_train_recipes.py",
                 "test_llm_writer.py", "test_voice_default.py", "test_train_startup.py", "test_word_timings.py",
                 "test_corpus.py", "test_generate.py", "test_fuzz_inputs.py", "test_minicpmo_weights.py",
                 "test_eval_duplex.py", "test_readers_integrity.py", "test_video_import.py")


def pytest_configure(config: pytest.Config) -> None:
    """Under pytest-xdist, hand files out in LONGEST_FIRST order: by default its file scheduler sorts
    them by how many tests they hold, so a file of two long tests (the natural preset, Ray Train) ran
    last while the other worker sat idle."""
    if hasattr(config.option, "loadscopereorder"):
        config.option.loadscopereorder = False


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Longest files first, every file's own order kept (a stable sort)."""
    rank = {name: i for i, name in enumerate(LONGEST_FIRST)}
    items.sort(key=lambda item: rank.get(item.path.name, len(rank)))


@dataclass
class ToneTTS:
    """A scheduler test double: every word is a 0.25 s tone, words 0.05 s apart, no edge silence."""

    name: str = "tone"

    def synthesize(self, text: str, voice: object, sample_rate: int) -> Synthesis:
        words, chunks, t = [], [], 0
        n_word, n_gap = int(WORD_S * sample_rate), int(GAP_S * sample_rate)
        freq = 150 + zlib.crc32(getattr(voice, "name", "").encode()) % 200   # stable across processes
        for i, w in enumerate(text.split()):
            if i:
                chunks.append(np.zeros(n_gap, np.float32))
                t += n_gap
            tone = 0.1 * np.sin(2 * np.pi * freq * np.arange(n_word) / sample_rate).astype(np.float32)
            tone[0] = tone[-1] = 0.1   # exact edges: first and last samples are active
            chunks.append(tone)
            words.append(WordTiming(w, t / sample_rate, (t + n_word) / sample_rate))
            t += n_word
        return Synthesis(np.concatenate(chunks), sample_rate, tuple(words))

    def identity(self) -> dict:
        return {"backend": "tone"}


@pytest.fixture
def tone_tts() -> ToneTTS:
    return ToneTTS()


@pytest.fixture(scope="session")
def espeak():
    from pipeline.tts.espeak import EspeakBackend
    return EspeakBackend()


@pytest.fixture(scope="session")
def generated(espeak, tmp_path_factory):
    """Rows from the real generator, cached by (scenario, seed, tts, tokens) for the whole session.

    Rows with speech tokens use a tiny random-weight S3 tokenizer (tests/onnx_fixtures.py).
    """
    from tests.generated import Generated
    from tests.onnx_fixtures import build_tiny_s3_onnx

    onnx = build_tiny_s3_onnx(tmp_path_factory.mktemp("s3") / "speech_tokenizer_v2.onnx")
    # each line synthesised once: generating a row, then re-composing and re-rendering it to validate it
    return Generated(tts={"tone": CachedTTS(ToneTTS()), "espeak": CachedTTS(espeak)}, onnx_path=onnx)


@pytest.fixture(scope="session")
def cli_dataset(tmp_path_factory, ray_head):
    """`duplexsynth generate --config fast_voices.yaml --num 4 --shard-size 2`, run once per session
    as the real CLI in its own process, attached to the session's Ray (`ray_head`): the real output folder for the tests
    that only read it (the end-to-end chain, the fuzzed readers). Tests copy it before changing it.
    """
    import json
    import subprocess
    import sys
    from pathlib import Path

    from tests.generated import FAST_VOICES_YAML

    out = tmp_path_factory.mktemp("cli_dataset") / "d"
    proc = subprocess.run([sys.executable, "-m", "jobs.cli", "generate", "--config", str(FAST_VOICES_YAML), "--num", "4", "--shard-size", "2", "--out",
                           str(out), "--address", ray_head, "--no-progress"], cwd=Path(__file__).resolve().parents[1],
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, f"duplexsynth generate:\n{proc.stdout[-2000:]}\n{proc.stderr[-3000:]}"
    m = json.loads((out / "manifest.json").read_text())
    assert (m["rows"], m["failed"], len(m["shards"])) == (4, 0, 2), m
    return out


@pytest.fixture(scope="session")
def ray_head():
    """One loopback Ray head (`ray start --head`, 2 CPUs, its own temp dir and ports) for the whole
    session: CLI runs whose subject is not their own Ray attach to it (`--address`) instead of each
    booting an embedded Ray, which is most of the cost of a small run. Each `generate` is a job of
    its own (own driver, own workers); config+seed fix the bytes on any number of workers. Stopped
    at session end by its own process ids (LocalHead.stop), never a broad `ray stop`.
    Yields the GCS address (HOST:PORT) for `--address`."""
    from jobs.ray_cluster import LocalHead

    head = LocalHead(num_cpus=2).start()
    try:
        yield head.gcs_address
    finally:
        head.stop()
