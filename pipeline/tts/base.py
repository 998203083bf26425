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

from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

import numpy as np

from schemas.script import VoiceSpec

__all__ = ["WordTiming", "Synthesis", "TTSBackend", "CachedTTS"]


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
