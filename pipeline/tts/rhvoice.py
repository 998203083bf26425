"""RHVoice's LGPL English voices (alan, bdl, clb, slt) behind ``TTSBackend``, from a worker process.

Why RHVoice: it installs offline from Debian (``librhvoice5`` + ``rhvoice-english``, non-free
component), its English voices are HTS statistical parametric voices trained on the CMU ARCTIC
speakers (not formant synthesis), and it runs at ~0.04-0.1 real time on a core. Only the LGPL
voices are in the bank: ``evgeniy-eng`` and ``lyubov`` are CC BY-NC-ND and must not be used.
It runs in ``native_worker.py`` (its C engine and callbacks, isolated), not for its licence.

Voices are named ``rhvoice:<voice>``. ``rate`` (wpm, 170 = the voice's pace) and ``pitch`` (50 =
the voice's own) map onto RHVoice's absolute rate and pitch in -1..1.

Word timings, and how exact they are: RHVoice reports word start/end through its C API's
callbacks, but it hands audio to the caller in 100 ms blocks and fires an event before the block
its word starts in, so an event only says "this word starts in the next 100 ms block". Inside that
block the start is taken from the audio where it can be read off it: a word whose block opens in
silence (after a pause) starts at the first loud 5 ms frame in the block; a word inside running
speech starts at the block's middle (an estimate within +-50 ms, recorded as such in
``identity()["word_timing"]``). Ends: the last loud sample before the next word's start and before
the end of the block its end event names. The text is the spoken form (pipeline/tts/spoken.py)
and ``spoken.word_timings`` maps the onsets back to the written tokens, as for every engine.

Determinism: RHVoice's HTS synthesis draws nothing at random; the same request gives the same
bytes in any process and call order (tests/test_tts_rhvoice.py checks it).
"""
from __future__ import annotations

import ctypes.util
from pathlib import Path
from typing import Any

import numpy as np

from schemas.language import ENGLISH
from schemas.script import VoiceSpec

from .base import SILENCE_DBFS, Synthesis, deb_version, dist_version, end_at_phonemes, level_and_trim
from .spoken import spoken_form, word_timings
from .worker import NATIVE_WORKER, NativeEngineBackend

__all__ = ["RHVOICE_VOICES", "RHVoiceBackend", "RHVoiceUnavailable", "rhvoice_available"]

WORKER = NATIVE_WORKER
PROTOCOL = 1
RHVOICE_VOICES = ("alan", "bdl", "clb", "slt")   # LGPL-2.1+ voices of rhvoice-english
VOICE_DIR = Path("/usr/share/RHVoice/voices")
_BASE_RATE = 170.0
_FRAME_S = 0.005


class RHVoiceUnavailable(RuntimeError):
    """librhvoice5 / rhvoice-english are not installed here (scripts/setup.sh installs them with apt)."""


def rhvoice_available() -> bool:
    """Whether RHVoice's C library and its English voices are installed."""
    return ctypes.util.find_library("RHVoice") is not None and all((VOICE_DIR / v).is_dir() for v in RHVOICE_VOICES)


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
        request = {"engine": "rhvoice", "voice": name, "text": form.text,
                   "rate": round(min(1.0, max(-1.0, voice.rate / _BASE_RATE - 1.0)), 6),
                   "pitch": round(min(1.0, max(-1.0, (voice.pitch - 50) / 50)), 6)}
        head, audio = self._engine.ask(request)
        if not head.get("ok") or audio is None:
            raise ValueError(f"RHVoice could not speak this: {head.get('error')}")
        sr, native_rate = int(sample_rate), int(head["sample_rate"])
        y, loud, first = level_and_trim(audio, native_rate, sr, self.target_rms_dbfs, self.peak_limit, "RHVoice", text)
        n, scale = len(y), sr / native_rate
        block = max(1, round(int(head["block"]) * scale))

        def at(native_sample: int) -> int:
            return min(max(round(native_sample * scale) - first, 0), n)

        frame = max(1, round(_FRAME_S * sr))
        onsets: list[tuple[int, int]] = []
        ends: list[tuple[int, int]] = []
        for off, _length, start, end in head["tokens"]:
            if start < 0:
                continue
            onsets.append((off, _start_in_block(y, at(start), block, frame)))
            if end >= 0:
                ends.append((off, min(n, at(end) + block)))
        words = word_timings(form, onsets, loud, n, sr)
        return Synthesis(audio=y, sample_rate=sr, words=end_at_phonemes(words, form.spans, ends, loud, sr))

    def identity(self) -> dict[str, Any]:
        """Everything that determines the output, for dataset manifests."""
        return {"backend": self.name, "librhvoice": deb_version("librhvoice5"),
                "rhvoice_english": deb_version("rhvoice-english"), "protocol": PROTOCOL,
                "resampler": f"soxr {dist_version('soxr')} HQ", "silence_dbfs": SILENCE_DBFS,
                "word_timing": "engine events (100 ms blocks); in a block: onset after silence, else its middle (estimate)",
                "text": "spoken form", "target_rms_dbfs": self.target_rms_dbfs, "peak_limit": self.peak_limit}


def _start_in_block(y: np.ndarray, block_start: int, block: int, frame: int) -> int:
    """Where a word that RHVoice says starts in the block ``[block_start, block_start + block)`` begins:
    at the block's first loud 5 ms frame when the block opens in silence (a word after a pause),
    else (speech running across the block's start) at the block's middle."""
    thr = 10 ** (SILENCE_DBFS / 20)
    n = len(y)

    def rms(a: int) -> float:
        seg = y[a : min(n, a + frame)]
        return float(np.sqrt(np.mean(np.square(seg, dtype=np.float64)))) if seg.size else 0.0

    if rms(block_start) < thr:
        for a in range(block_start, min(n, block_start + block), frame):
            if rms(a) >= thr:
                seg = np.flatnonzero(np.abs(y[a : a + frame]) >= thr)
                return a + int(seg[0]) if seg.size else a
        return min(n, block_start + block)
    return min(n, block_start + block // 2)
