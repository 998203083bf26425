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
import re
from typing import Any

from schemas.language import ENGLISH
from schemas.script import VoiceSpec
from schemas.thresholds import SPEECH_FLOOR_DBFS

from .base import Synthesis, content_seed, deb_version, dist_version, end_at_phonemes, level_and_trim
from .spoken import spoken_form, word_timings
from .worker import NATIVE_WORKER, NativeEngineBackend

__all__ = ["FLITE_VOICES", "FliteBackend", "FliteUnavailable", "WORKER", "flite_available"]

WORKER = NATIVE_WORKER
PROTOCOL = 1
FLITE_VOICES = ("slt", "awb", "rms")
_BASE_RATE = 170.0   # VoiceSpec.rate at which flite speaks at its voice's own pace


class FliteUnavailable(RuntimeError):
    """libflite1 is not installed here (scripts/setup.sh installs it with apt)."""


def flite_available() -> bool:
    """Whether Debian's libflite1 (the library and its clustergen voices) can be loaded."""
    return ctypes.util.find_library("flite") is not None and ctypes.util.find_library("flite_cmu_us_slt") is not None


class FliteBackend(NativeEngineBackend):
    """``TTSBackend`` over a flite worker process. Picklable: it holds settings; the process is per-process."""

    name, voices, label, worker_name = "flite", FLITE_VOICES, "a flite", "the flite worker"

    def require_installed(self) -> None:
        if not flite_available():
            raise FliteUnavailable("libflite1 is not installed (scripts/setup.sh installs it)")

    def synthesize(self, text: str, voice: VoiceSpec, sample_rate: int) -> Synthesis:
        """Speak ``text`` with the flite voice ``voice.name``; see the module docstring for the contract."""
        name = self.voice_of(text, voice)
        form = spoken_form(text, ENGLISH.code)
        request: dict[str, Any] = {"engine": "flite", "voice": name, "text": form.text, "stretch": round(_BASE_RATE / voice.rate, 6)}
        request["seed"] = content_seed(request)
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
                "resampler": f"soxr {dist_version('soxr')} HQ", "silence_dbfs": SPEECH_FLOOR_DBFS,
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
