"""The text-to-speech backend interface every speech realizer implements.

The composer (pipeline/compose) only needs three things from a TTS engine: mono audio at the
session's sample rate, a word-level clock (so ``spoken_text`` of each unit and the
``unspoken_text`` of an interrupted turn can be cut at word boundaries) and a stable identity to
record in the dataset manifest. Keeping the interface this small lets the espeak-ng backend
(fast, CPU, deterministic) and a neural backend (CosyVoice) be swapped without touching callers.
The voice a backend speaks with is the script's own ``schemas.script.VoiceSpec`` (the contract),
so what the planner draws is exactly what the backend receives and the row records.

Written vs spoken (issue #18), the same for every engine: a backend synthesises
``pipeline.tts.spoken.spoken_form(text, code).text`` ("8:30" as "eight thirty", "3点" as "三点"),
never the written text, and builds its ``words`` with ``spoken.word_timings(form, onsets, loud,
n, sr, boundaries)`` from its own events: (character offset into ``form.text``, sample) pairs
(phoneme or word events; an engine with durations per phoneme or per spoken word gives their
starts), so each written token is timed by what it says. The stored words stay the written tokens;
``spoken.spoken_words(tokens, language)`` gives what each said, for exporters.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import numpy as np

from schemas.script import VoiceSpec
from schemas.thresholds import SPEECH_FLOOR_AMP


def content_seed(key: Any) -> int:
    """A 32-bit engine seed from what an utterance is (its JSON, keys sorted): the same line in the same
    voice gets the same seed in any process and call order, so a sampling engine stays deterministic."""
    return int.from_bytes(hashlib.sha256(json.dumps(key, sort_keys=True).encode()).digest()[:4], "big")


__all__ = ["WordTiming", "Synthesis", "TTSBackend", "CachedTTS", "loudness_gain", "level_and_trim",
           "end_at_phonemes", "dist_version", "deb_version"]

_GATE_DB = 40.0  # loudness: frames within this many dB of the loudest frame are "active"


@dataclass(frozen=True)
class WordTiming:
    """When one input token is heard in the synthesized audio.

    ``word`` is one token of ``Language.words(text)`` (schemas/language.py) exactly as in the input
    text, punctuation included (e.g. ``"Paris,"``, ``"北京，"``), so joining the ``word``s of a
    prefix with the language's separator reproduces the spoken part of the text. The language is
    the voice's (English: whitespace tokens; Mandarin ``cmn`` voices: jieba words). A token the
    engine did not voice (e.g. a lone ``"-"``) gets ``start_s == end_s`` at the boundary between
    its neighbours.
    """

    word: str
    start_s: float  # seconds from the first sample of Synthesis.audio
    end_s: float  # seconds; start_s <= end_s <= next word's start_s


@dataclass(frozen=True, eq=False)
class Synthesis:
    """The result of one ``synthesize`` call.

    ``words`` has exactly one entry per word token of the input text (see WordTiming), in order,
    with monotone non-overlapping times inside ``[0, len(audio)/sample_rate]``.
    """

    audio: np.ndarray  # float32, mono, in [-1, 1], at sample_rate
    sample_rate: int
    words: tuple[WordTiming, ...]
    # The engine's own S3 speech tokens for this audio (25 Hz; CosyVoice's LLM output), or None
    # when it has none (the speech tokenizer then tokenizes the rendered channel). Token j starts at
    # tokens_start_s + j / 25 s from audio[0]: negative when the engine's leading silence was trimmed.
    speech_tokens: np.ndarray | None = None
    tokens_start_s: float = 0.0

    @property
    def duration_s(self) -> float:
        return len(self.audio) / self.sample_rate


@runtime_checkable
class TTSBackend(Protocol):
    """What a speech realizer must provide.

    Implementations must be picklable (they are shipped to Ray workers) and deterministic: the same
    ``(text, voice, sample_rate)`` gives identical audio bytes, so a dataset can be regenerated
    from its manifest.
    """

    name: str

    def synthesize(self, text: str, voice: VoiceSpec, sample_rate: int) -> Synthesis:
        """Speak ``text`` with ``voice``; raise ValueError on empty text or an unknown voice."""
        ...

    def identity(self) -> dict[str, Any]:
        """Engine name, version and output-shaping settings, recorded in dataset manifests."""
        ...


class CachedTTS:
    """A backend that synthesises each (text, voice, rate) once: re-composing and re-rendering a
    row ask for the same lines again."""

    def __init__(self, tts: TTSBackend) -> None:
        self.tts = tts
        self.name = getattr(tts, "name", "?")
        self._cache: dict[tuple[str, Any, int], Synthesis] = {}

    def synthesize(self, text: str, voice: Any, sample_rate: int) -> Synthesis:
        key = (text, voice, sample_rate)
        if key not in self._cache:
            self._cache[key] = self.tts.synthesize(text, voice, sample_rate)
        return self._cache[key]

    def identity(self) -> dict[str, Any]:
        return self.tts.identity()


# --- the output shaping every engine shares (so voices of different engines mix at one loudness) ---
def loudness_gain(x: np.ndarray, sr: int, target_rms_dbfs: float, peak_limit: float) -> float:
    """The gain that brings the RMS over active 10 ms frames (within 40 dB of the loudest) to
    ``target_rms_dbfs``, unless the peak would pass ``peak_limit``: then the peak limit wins."""
    frame = max(1, sr // 100)
    n = max(1, len(x) // frame) * frame
    padded = np.zeros(n, dtype=np.float64)
    padded[: min(n, len(x))] = x[:n]
    rms = np.sqrt(np.mean(padded.reshape(-1, frame) ** 2, axis=1))
    active = rms[rms >= rms.max() * 10 ** (-_GATE_DB / 20)]
    active_rms = float(np.sqrt(np.mean(active**2)))
    peak = float(np.max(np.abs(x)))
    return min(10 ** (target_rms_dbfs / 20) / active_rms, peak_limit / peak)


def level_and_trim(native: np.ndarray, native_rate: int, sr: int, target_rms_dbfs: float, peak_limit: float,
                   engine: str, text: str, hint: str = "") -> tuple[np.ndarray, np.ndarray, int]:
    """An engine's float audio resampled to ``sr`` (soxr HQ), levelled by ``loudness_gain`` and
    trimmed below ``SPEECH_FLOOR_DBFS`` (schemas/thresholds.py) at both ends: (audio, indices of its
    loud samples, samples cut at the start, at ``sr``). Raises ValueError when the engine said nothing audible (``hint``
    follows the message)."""
    import soxr

    x = np.asarray(native, dtype=np.float32)
    if sr != native_rate:
        x = soxr.resample(x, native_rate, sr, quality="HQ")
    x = np.asarray(x, dtype=np.float64)
    if x.size == 0 or not np.any(x):
        raise ValueError(f"{engine} produced no audio for text {text[:80]!r}{hint}")
    y = (x * loudness_gain(x, sr, target_rms_dbfs, peak_limit)).astype(np.float32)
    loud = np.flatnonzero(np.abs(y) >= np.float32(SPEECH_FLOOR_AMP))
    if loud.size == 0:
        raise ValueError(f"{engine} produced only silence for text {text[:80]!r}{hint}")
    first, last = int(loud[0]), int(loud[-1])
    return np.ascontiguousarray(y[first : last + 1]), loud - first, first


def end_at_phonemes(words: tuple[WordTiming, ...], spans: tuple[tuple[int, int], ...], ends: list[tuple[int, int]],
                    loud: np.ndarray, sr: int) -> tuple[WordTiming, ...]:
    """Each written token ended where the engine's phonemes for it end, never later: the silence
    and breath an engine pads a phrase with belong to no word (rule 8). ``spans``: each token's
    spoken span in the synthesised text (``SpokenForm.spans``); ``ends``: (offset of a spoken word
    in that text, sample where its last phoneme ends). A token ends at the last loud sample before
    the end of its last spoken word's phonemes."""
    out: list[WordTiming] = []
    for w, (a, b) in zip(words, spans):
        limit = max((e for off, e in ends if a <= off < b), default=None)
        if limit is None or w.end_s <= w.start_s:
            out.append(w)
            continue
        start = round(w.start_s * sr)
        hi = int(np.searchsorted(loud, limit)) - 1
        end = int(loud[hi]) + 1 if hi >= 0 and loud[hi] >= start else limit
        out.append(WordTiming(w.word, w.start_s, max(w.start_s, min(w.end_s, end / sr))))
    return tuple(out)


# --- versions an engine's identity() records ----------------------------------------------------
def dist_version(dist: str) -> str | None:
    """An installed Python distribution's version (None when it is not installed)."""
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return None


def deb_version(package: str) -> str | None:
    """An installed Debian package's version (the engines that come from apt), None off Debian."""
    try:
        status = Path("/var/lib/dpkg/status").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    m = re.search(rf"^Package: {re.escape(package)}\n(?:.+\n)*?Version: (.+)$", status, re.MULTILINE)
    return m.group(1).strip() if m else None
