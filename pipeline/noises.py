"""Noise components of the user channel: coloured noise, babble, mains hum, noise files.

Each component is a unit-RMS signal over the whole session, rebuilt by `noise_signal` from its
record in the microphone scene (schemas/timeline.Noise) alone (plus the TTS backend for babble, the folder for files), so render, validation
and `stats` all produce the identical samples. The SNR gain is applied by the caller.

* colour: 1/f^alpha noise (pipeline/acoustics.colored_noise), from a recorded seed.
* babble: 3-6 background talkers from a fixed bank of TTS voices reading fixed sentences (the
  bank is a function of the TTS backend, sample rate and the row's language only: a Mandarin row
  hears Mandarin talkers in `cmn` voices; cached per process), each looped
  from a drawn offset at a drawn level, summed. Several overlapping voices with no words the
  model could follow: the "cafe" noise of DNS / MUSAN babble.
* hum: 50 or 60 Hz mains hum with decaying odd-heavy harmonics and drawn phases.
* file: any wav/flac under a folder (MUSAN `noise/`, DNS `noise_fullband/`, ...), looped from a
  drawn offset, resampled to the session rate. Meta keeps the relative path and sha256.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

from generators.banks.loader import babble_sentences
from pipeline import acoustics as ac
from pipeline.rooms import list_audio, load_audio
from schemas.timeline import BabbleNoise, ColourNoise, FileNoise, HumNoise, Noise

BABBLE_BANK_TALKERS = 12
BABBLE_BANK_SECONDS = 24.0
BABBLE_BANK_VERSION = 1
_BANKS: dict[str, list[np.ndarray]] = {}


def babble_bank(tts: Any, sample_rate: int, language: str = "en") -> list[np.ndarray]:
    """The fixed talker bank: a pure function of the TTS backend identity, the sample rate and the
    language (its sentences, read by voices of its own pool: generators/voices.py)."""
    from generators import voices as vx

    sentences = babble_sentences(language)   # generators/banks/<language>/babble.yaml
    ident = tts.identity() if hasattr(tts, "identity") else {"name": getattr(tts, "name", "?")}
    key = json.dumps([ident, sample_rate, BABBLE_BANK_VERSION, language], sort_keys=True)
    if key in _BANKS:
        return _BANKS[key]
    people = vx.pools_for(language).people
    rng = np.random.default_rng(20260101)
    bank = []
    for _ in range(BABBLE_BANK_TALKERS):
        voice = vx.draw_voice(rng, people)
        order = rng.permutation(len(sentences))
        parts: list[np.ndarray] = []
        total = 0
        for i in order:
            audio = np.asarray(tts.synthesize(sentences[int(i)], voice, sample_rate).audio, dtype=np.float64)
            gap = np.zeros(int(rng.uniform(0.15, 0.5) * sample_rate))
            parts += [audio, gap]
            total += len(audio) + len(gap)
            if total >= BABBLE_BANK_SECONDS * sample_rate:
                break
        x = np.concatenate(parts)
        bank.append(x / (np.sqrt(np.mean(x**2)) + 1e-12))
    _BANKS[key] = bank
    return bank


def _loop(x: np.ndarray, offset: int, n: int) -> np.ndarray:
    reps = int(np.ceil((offset + n) / len(x))) + 1
    return np.tile(x, reps)[offset: offset + n]


def _unit_rms(x: np.ndarray) -> np.ndarray:
    r = float(np.sqrt(np.mean(x.astype(np.float64) ** 2)))
    if r <= 0:
        raise ValueError("noise component is silent")
    return (x / r).astype(np.float64)


def hum_signal(seed: int, n: int, sample_rate: int, f0: float) -> np.ndarray:
    """Mains hum: f0 (50/60 Hz) and harmonics with drawn levels and phases; one second, tiled
    (every harmonic of an integer f0 completes whole cycles in a second)."""
    rng = np.random.default_rng(seed)
    t = np.arange(sample_rate) / sample_rate
    x = np.zeros(sample_rate)
    for k in range(1, 9):
        if k * f0 >= sample_rate / 2:
            break
        amp = (1.0 / k ** rng.uniform(0.8, 1.6)) * (1.0 if k % 2 else rng.uniform(0.2, 0.6))
        x += amp * np.sin(2 * np.pi * k * f0 * t + rng.uniform(0, 2 * np.pi))
    return _unit_rms(np.tile(x, n // sample_rate + 1)[:n])


def draw_noise(kind: str, rng: np.random.Generator, cfg: Any, sample_rate: int, snr: Any,
               language: str = "en") -> Noise:
    """Draw a component's parameters from the acoustics config, then its SNR from the range `snr`.
    Babble records `language` (the row's), whose talkers it is made of; it draws nothing."""
    def snr_db() -> float:
        return float(round(rng.uniform(snr.lo, snr.hi), 3))

    if kind == "babble":
        lo, hi = cfg.babble_talkers
        k = int(rng.integers(lo, hi + 1))
        talkers = tuple(sorted(int(i) for i in rng.choice(BABBLE_BANK_TALKERS, size=k, replace=False)))
        offsets = tuple(float(round(rng.uniform(0, BABBLE_BANK_SECONDS), 4)) for _ in talkers)
        gains = tuple(float(round(rng.uniform(-6.0, 0.0), 3)) for _ in talkers)
        return BabbleNoise(talkers=talkers, offsets_s=offsets, gains_db=gains, bank_version=BABBLE_BANK_VERSION,
                           snr_db=snr_db(), language=language)
    if kind == "hum":
        f0 = float([50.0, 60.0][int(rng.integers(2))])
        return HumNoise(f0_hz=f0, seed=int(rng.integers(2**31)), snr_db=snr_db())
    if kind == "file":
        files = list_audio(cfg.noise_dir)
        if not files:
            raise ValueError(f"no wav/flac noise files under {cfg.noise_dir}")
        rel = files[int(rng.integers(len(files)))]
        x, sha = load_audio(str(Path(cfg.noise_dir) / rel), sample_rate)
        return FileNoise(root=str(Path(cfg.noise_dir).resolve()), path=rel, sha256=sha,
                         offset=int(rng.integers(max(len(x), 1))), snr_db=snr_db())
    raise ValueError(f"unknown noise component {kind!r}")


def noise_signal(noise: Noise, n: int, sample_rate: int, tts: Any = None) -> np.ndarray:
    """The unit-RMS signal a noise of the microphone scene describes, length n (float32 for the
    coloured noise, float64 for the others, as they have always been mixed)."""
    if isinstance(noise, ColourNoise):
        return ac.colored_noise(np.random.default_rng(noise.seed), n, noise.color, sample_rate)
    if isinstance(noise, BabbleNoise):
        if tts is None:
            raise ValueError("babble needs the TTS backend to rebuild its talker bank")
        bank = babble_bank(tts, sample_rate, noise.language)
        x = np.zeros(n)
        for t, off, g in zip(noise.talkers, noise.offsets_s, noise.gains_db):
            x += ac.db_to_amp(g) * _loop(bank[t], int(round(off * sample_rate)) % len(bank[t]), n)
        return _unit_rms(x)
    if isinstance(noise, HumNoise):
        return hum_signal(noise.seed, n, sample_rate, noise.f0_hz)
    assert isinstance(noise, FileNoise)
    x, sha = load_audio(str(Path(noise.root) / noise.path), sample_rate)
    if sha != noise.sha256:
        raise ValueError(f"noise file {noise.path} changed since rendering (sha256 {sha} != {noise.sha256})")
    return _unit_rms(_loop(x, noise.offset % len(x), n))
