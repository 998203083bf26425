"""flite's clustergen voices (CMU slt, awb, rms) behind ``TTSBackend``, from a worker process.

Why flite: it installs offline from Debian main (``libflite1``), its three clustergen voices are
statistical parametric voices trained on recorded speakers (not formant synthesis), it runs at
~0.02-0.03 real time on a core, and it reports every phoneme's duration, so word timings are the
engine's own. Its licence is BSD-style (CMU); it runs in ``native_worker.py`` for its C state (one
libc ``rand`` for the process, seeded per request there), not for its licence.

Voices are named ``flite:<voice>`` (generators/voice_bank.py). The voice's ``rate`` sets flite's
``duration_stretch`` as 170/rate (170 wpm = the voice's own pace); flite has no pitch control here.

Output contract (as every engine's, pipeline/tts/base.py): mono float32 at the requested rate,
levelled and trimmed by ``base.level_and_trim``, one WordTiming per whitespace token. flite is
given the text's spoken form (pipeline/tts/spoken.py) and returns one Token item per whitespace
token of it, with where its first phoneme starts; ``spoken.word_timings`` maps those onsets back to
the written tokens, and each token ends where its last phoneme ends (the last loud sample before).

Determinism: the worker seeds ``rand`` from a hash of (text, voice, stretch) before each request,
so the output is a pure function of ``(text, voice, sample_rate)`` in any process and call order.
"""
from __future__ import annotations

import ctypes.util
import hashlib
import json
import re
from pathlib import Path
from typing import Any

from schemas.language import ENGLISH
from schemas.script import VoiceSpec

from .base import SILENCE_DBFS, Synthesis, deb_version, dist_version, end_at_phonemes, level_and_trim
from .spoken import spoken_form, word_timings
from .worker import EngineProcess

__all__ = ["FLITE_VOICES", "FliteBackend", "FliteUnavailable", "WORKER", "flite_available"]

WORKER = Path(__file__).with_name("native_worker.py")
PROTOCOL = 1
FLITE_VOICES = ("slt", "awb", "rms")
_BASE_RATE = 170.0   # VoiceSpec.rate at which flite speaks at its voice's own pace


class FliteUnavailable(RuntimeError):
    """libflite1 is not installed here (scripts/setup.sh installs it with apt)."""


def flite_available() -> bool:
    """Whether Debian's libflite1 (the library and its clustergen voices) can be loaded."""
    return ctypes.util.find_library("flite") is not None and ctypes.util.find_library("flite_cmu_us_slt") is not None


class FliteBackend:
    """``TTSBackend`` over a flite worker process. Picklable: it holds settings; the process is per-process."""

    name = "flite"

    def __init__(self, target_rms_dbfs: float = -20.0, peak_limit: float = 0.9) -> None:
        self.target_rms_dbfs = float(target_rms_dbfs)
        self.peak_limit = float(peak_limit)
        self._engine = EngineProcess(WORKER, "the flite worker")

    def __getstate__(self) -> dict[str, Any]:
        return {"target_rms_dbfs": self.target_rms_dbfs, "peak_limit": self.peak_limit}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__init__(**state)  # type: ignore[misc]

    def __repr__(self) -> str:
        return "FliteBackend()"

    def close(self) -> None:
        """End this process's worker (by its pid); the next synthesis starts a new one."""
        self._engine.close()

    def synthesize(self, text: str, voice: VoiceSpec, sample_rate: int) -> Synthesis:
        """Speak ``text`` with the flite voice ``voice.name``; see the module docstring for the contract."""
        if not isinstance(text, str) or not text.strip():
            raise ValueError(f"text to synthesize is empty or whitespace only: {text!r}")
        engine, sep, name = voice.name.partition(":")
        if engine != self.name or not sep or name not in FLITE_VOICES:
            raise ValueError(f"voice {voice.name!r} is not a flite voice (expected flite:<{'|'.join(FLITE_VOICES)}>)")
        if not 80 <= voice.rate <= 450:
            raise ValueError(f"voice rate {voice.rate} wpm outside 80..450")
        if not flite_available():
            raise FliteUnavailable("libflite1 is not installed (scripts/setup.sh installs it)")
        form = spoken_form(text, ENGLISH.code)
        request: dict[str, Any] = {"engine": "flite", "voice": name, "text": form.text, "stretch": round(_BASE_RATE / voice.rate, 6)}
        request["seed"] = int.from_bytes(hashlib.sha256(json.dumps(request, sort_keys=True).encode()).digest()[:4], "big")
        head, audio = self._engine.ask(request)
        if not head.get("ok") or audio is None:
            raise ValueError(f"flite could not speak this: {head.get('error')}")
        sr = int(sample_rate)
        y, loud, first = level_and_trim(audio, int(head["sample_rate"]), sr, self.target_rms_dbfs, self.peak_limit,
                                        "flite", text)
        n, scale = len(y), sr / int(head["sample_rate"])

        def at(native_sample: int) -> int:
            return min(max(round(native_sample * scale) - first, 0), n)

        said = _align(form.text, head["tokens"])
        onsets = [(off, at(a)) for off, a, b in said if a >= 0 and b > a]
        ends = [(off, at(b)) for off, a, b in said if a >= 0 and b > a]
        phones = [at(p) for p in head["phones"]]
        words = word_timings(form, onsets, loud, n, sr, phones)
        return Synthesis(audio=y, sample_rate=sr, words=end_at_phonemes(words, form.spans, ends, loud, sr))

    def identity(self) -> dict[str, Any]:
        """Everything that determines the output, for dataset manifests."""
        return {"backend": self.name, "libflite": deb_version("libflite1"), "protocol": PROTOCOL,
                "resampler": f"soxr {dist_version('soxr')} HQ", "silence_dbfs": SILENCE_DBFS,
                "word_timing": "engine (segment durations)", "text": "spoken form",
                "target_rms_dbfs": self.target_rms_dbfs, "peak_limit": self.peak_limit}


def _align(text: str, tokens: list[list[Any]]) -> list[tuple[int, int, int]]:
    """(offset in ``text``, start, end) per flite Token, each matched to the next whitespace token
    of ``text`` that holds its name (flite strips a token's punctuation from its name)."""
    spans = [(m.group(), m.start()) for m in re.finditer(r"\S+", text)]
    out: list[tuple[int, int, int]] = []
    k = 0
    for name, start, end in tokens:
        core = str(name).strip()
        j = k
        while j < len(spans) and core not in spans[j][0]:
            j += 1
        if j < len(spans):   # else flite made it up (none of the text holds it): no onset
            out.append((spans[j][1], int(start), int(end)))
            k = j + 1
    return out
