"""RHVoice's LGPL English voices (alan, bdl, clb, slt) behind ``TTSBackend``, from a worker process.

Why RHVoice: it installs offline from Debian (``librhvoice5`` + ``rhvoice-english``, non-free
component), its English voices are HTS statistical parametric voices trained on the CMU ARCTIC
speakers (not formant synthesis), and it runs at ~0.04-0.1 real time on a core. Only the LGPL
voices are in the bank: ``evgeniy-eng`` and ``lyubov`` are CC BY-NC-ND and must not be used.
It runs in ``native_worker.py`` (its C engine and callbacks, isolated), not for its licence.

Voices are named ``rhvoice:<voice>``. ``rate`` (wpm, 170 = the voice's pace) and ``pitch`` (50 =
the voice's own) map onto RHVoice's absolute rate and pitch in -1..1.

Word timings are the engine's own: every token starts on the sample where RHVoice's HTS engine
starts its first phoneme and ends where its last one ends (native_worker.py says how they are read:
RHVoice's word callbacks alone only name the 100 ms audio block a word starts in). The engine runs
at RHVoice's ``quality=max`` (its HTS engine, the one that reports its labels) and a rate other
than the voice's own stretches HTS frames rather than running sonic over the audio. The text is the
spoken form (pipeline/tts/spoken.py) and ``spoken.word_timings`` maps the onsets back to the
written tokens, as for every engine.

Determinism: RHVoice's HTS synthesis draws nothing at random; the same request gives the same
bytes in any process and call order (tests/test_tts_rhvoice.py checks it).
"""
from __future__ import annotations

import ctypes.util
from pathlib import Path
from typing import Any

from schemas.language import ENGLISH
from schemas.script import VoiceSpec
from schemas.thresholds import SPEECH_FLOOR_DBFS

from .base import Synthesis, deb_version, dist_version, end_at_phonemes, level_and_trim
from .spoken import spoken_form, word_timings
from .worker import NATIVE_WORKER, NativeEngineBackend

__all__ = ["RHVOICE_VOICES", "RHVoiceBackend", "RHVoiceUnavailable", "rhvoice_available", "rhvoice_request"]

WORKER = NATIVE_WORKER
PROTOCOL = 2   # 2: exact starts from the HTS labels (quality=max, no sonic); 1: 100 ms blocks
RHVOICE_VOICES = ("alan", "bdl", "clb", "slt")   # LGPL-2.1+ voices of rhvoice-english
VOICE_DIR = Path("/usr/share/RHVoice/voices")
_BASE_RATE = 170.0


class RHVoiceUnavailable(RuntimeError):
    """librhvoice5 / rhvoice-english are not installed here (scripts/setup.sh installs them with apt)."""


def rhvoice_available() -> bool:
    """Whether RHVoice's C library and its English voices are installed."""
    return ctypes.util.find_library("RHVoice") is not None and all((VOICE_DIR / v).is_dir() for v in RHVOICE_VOICES)


def rhvoice_request(text: str, name: str, voice: VoiceSpec) -> dict[str, Any]:
    """The worker request that says ``text`` (already in spoken form) with RHVoice voice ``name`` at
    ``voice``'s rate and pitch."""
    return {"engine": "rhvoice", "voice": name, "text": text,
            "rate": round(min(1.0, max(-1.0, voice.rate / _BASE_RATE - 1.0)), 6),
            "pitch": round(min(1.0, max(-1.0, (voice.pitch - 50) / 50)), 6)}


class RHVoiceBackend(NativeEngineBackend):
    """``TTSBackend`` over an RHVoice worker process. Picklable: it holds settings; the process is per-process."""

    name, voices, label, worker_name = "rhvoice", RHVOICE_VOICES, "an RHVoice", "the RHVoice worker"

    def require_installed(self) -> None:
        if not rhvoice_available():
            raise RHVoiceUnavailable("librhvoice5 / rhvoice-english are not installed (scripts/setup.sh installs them)")

    def synthesize(self, text: str, voice: VoiceSpec, sample_rate: int) -> Synthesis:
        """Speak ``text`` with the RHVoice voice ``voice.name``; see the module docstring for the contract."""
        name = self.voice_of(text, voice)
        form = spoken_form(text, ENGLISH.code)
        head, audio = self._engine.ask(rhvoice_request(form.text, name, voice))
        if not head.get("ok") or audio is None:
            raise ValueError(f"RHVoice could not speak this: {head.get('error')}")
        sr, native_rate = int(sample_rate), int(head["sample_rate"])
        y, loud, first = level_and_trim(audio, native_rate, sr, self.target_rms_dbfs, self.peak_limit, "RHVoice", text)
        n, scale = len(y), sr / native_rate

        def at(native_sample: int) -> int:
            return min(max(round(native_sample * scale) - first, 0), n)

        onsets = [(off, at(start)) for off, _length, start, _end in head["tokens"] if start >= 0]
        ends = [(off, at(end)) for off, _length, start, end in head["tokens"] if start >= 0 and end > start]
        words = word_timings(form, onsets, loud, n, sr, [at(p) for p in head["phones"]])
        return Synthesis(audio=y, sample_rate=sr, words=end_at_phonemes(words, form.spans, ends, loud, sr))

    def identity(self) -> dict[str, Any]:
        """Everything that determines the output, for dataset manifests."""
        return {"backend": self.name, "librhvoice": deb_version("librhvoice5"),
                "rhvoice_english": deb_version("rhvoice-english"), "protocol": PROTOCOL,
                "resampler": f"soxr {dist_version('soxr')} HQ", "silence_dbfs": SPEECH_FLOOR_DBFS,
                "word_timing": "engine (HTS phoneme labels)", "settings": "quality=max, min_sonic_rate=6",
                "text": "spoken form", "target_rms_dbfs": self.target_rms_dbfs, "peak_limit": self.peak_limit}
