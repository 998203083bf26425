"""CosyVoice 2 zero-shot voices: the TTS backend, with the model behind a callable.

The model runs in long-lived Ray actors in an environment of its own (jobs/cosyvoice_actor.py);
this side only builds requests and shapes results, so pipeline/ imports neither Ray nor cosyvoice.
``client(requests) -> results`` takes a list of plain dicts and returns one dict per request with
``audio`` (float32), ``sample_rate`` (24000), ``speech_tokens`` (the S3 tokens the LLM generated for
exactly this audio) and ``speed``.

Voices come from a voice-bank folder: ``prompts/<speaker>.wav`` and its transcript
``prompts/<speaker>.txt``; ``VoiceSpec.name`` is ``cosyvoice:<speaker>``. The seed of each
utterance is a hash of what is said and who says it, so the same line always gives the same bytes.

At speed 1.0 each Synthesis carries those tokens (``speech_tokens``, and where token 0 falls after
the trim, ``tokens_start_s``), so a row's assistant tokens are native (pipeline/native_tokens.py);
at another speed the audio is time-stretched and they no longer match it, so none are handed on.
``language`` None reads each voice's language off its prompt transcript (a run speaking en and zh).

Word timings come from a CTC forced aligner (pipeline/tts/aligner.py) when one is given, else
they are an estimate (spoken characters spread over the loud span of the audio); identity() says
which, so a manifest never passes an estimate off as an aligner's.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from generators.voice_bank import prompt_language
from schemas.protocol import NATIVE_TOKENS, RETOKENIZED
from schemas.script import VoiceSpec
from schemas.thresholds import SPEECH_FLOOR_DBFS

from .base import Synthesis, content_seed, dist_version, level_and_trim
from .spoken import spoken_form, word_timings

__all__ = ["ALIGNER_DIR", "NATIVE_RATE", "PREFIX", "CosyVoiceBackend", "VoicePrompt", "load_prompt"]

PREFIX = "cosyvoice:"
ALIGNER_DIR = "aligner_dir"   # identity key: the CTC folder that timed the words (only when one did)
NATIVE_RATE = 24000

Client = Callable[[list[dict[str, Any]]], list[dict[str, Any]]]


@dataclass(frozen=True, eq=False)
class VoicePrompt:
    """One prompt recording of the voice bank and what it says (zero-shot cloning needs both)."""

    speaker: str
    wav: np.ndarray
    sample_rate: int
    text: str


def load_prompt(bank: Path, speaker: str) -> VoicePrompt:
    """``bank/prompts/<speaker>.wav`` + ``.txt``; a one-line ValueError names a missing file."""
    import soundfile as sf

    wav_path = bank / "prompts" / f"{speaker}.wav"
    txt_path = wav_path.with_suffix(".txt")
    for p in (wav_path, txt_path):
        if not p.is_file():
            raise ValueError(f"cosyvoice voice {speaker!r}: {p} does not exist")
    audio, rate = sf.read(str(wav_path), dtype="float32", always_2d=False)
    text = txt_path.read_text(encoding="utf-8").strip()
    if not text:
        raise ValueError(f"cosyvoice voice {speaker!r}: {txt_path} is empty")
    return VoicePrompt(speaker, np.asarray(audio, dtype=np.float32), int(rate), text)


class CosyVoiceBackend:
    """A ``TTSBackend`` speaking CosyVoice 2 zero-shot clones of the voice bank's prompts."""

    name = "cosyvoice2"

    def __init__(self, client: Client, voice_bank: str | Path, language: str | None = "en", speed: float = 1.0,
                 instruct: str | None = None, model: str = "CosyVoice2-0.5B", target_rms_dbfs: float = -20.0,
                 peak_limit: float = 0.89, aligner: Any = None, model_dir: str | None = None) -> None:
        if not 0.5 <= speed <= 2.0:
            raise ValueError(f"cosyvoice speed must be within 0.5..2.0, got {speed}")
        self.client = client
        self.bank = Path(voice_bank)
        if not (self.bank / "prompts").is_dir():
            raise ValueError(f"cosyvoice voice bank {str(self.bank)!r} has no prompts/ folder")
        self.language, self.speed, self.instruct, self.model = language, float(speed), instruct, model
        self.target_rms_dbfs, self.peak_limit = target_rms_dbfs, peak_limit
        self.aligner = aligner   # a pipeline.tts.aligner.CtcAligner, or None: estimated word times
        self.model_dir = model_dir   # the folder the client's actors load (recorded, so validate can reload it)
        self._prompts: dict[str, VoicePrompt] = {}

    def speaker_of(self, voice: VoiceSpec) -> str:
        if not voice.name.startswith(PREFIX):
            raise ValueError(f"voice {voice.name!r} is not a cosyvoice voice ({PREFIX}<speaker>)")
        return voice.name[len(PREFIX):]

    def prompt(self, speaker: str) -> VoicePrompt:
        if speaker not in self._prompts:
            self._prompts[speaker] = load_prompt(self.bank, speaker)
        return self._prompts[speaker]

    def request(self, text: str, voice: VoiceSpec) -> dict[str, Any]:
        """The actor request for one line: its seed hashes the line, the speaker and the settings."""
        if not text.strip():
            raise ValueError("cosyvoice cannot speak empty text")
        p = self.prompt(self.speaker_of(voice))
        form = spoken_form(text, self.language_of(voice))
        key = {"text": form.text, "speaker": p.speaker, "speed": self.speed, "instruct": self.instruct}
        seed = content_seed(key)
        req: dict[str, Any] = {"text": form.text, "prompt_text": p.text, "prompt_wav": p.wav,
                               "prompt_rate": p.sample_rate, "seed": seed, "speed": self.speed}
        if self.instruct:
            req["instruct"] = self.instruct
        return req

    def language_of(self, voice: VoiceSpec) -> str:
        """The backend's language, or (None) the one the voice's prompt transcript is written in."""
        return self.language or prompt_language(self.prompt(self.speaker_of(voice)).text)

    def shape(self, text: str, result: dict[str, Any], sample_rate: int, language: str | None = None) -> Synthesis:
        """A result levelled, trimmed and resampled to ``sample_rate`` with estimated word times; at
        speed 1.0 it carries the result's native tokens, placed after the trim."""
        form = spoken_form(text, language or self.language or "en")
        sr = int(sample_rate)
        y, loud, first = level_and_trim(result["audio"], int(result["sample_rate"]), sr, self.target_rms_dbfs,
                                    self.peak_limit, "cosyvoice", text)
        n = len(y)
        span = max(1, len(form.text))
        starts = [m for m in range(len(form.text)) if not form.text[m].isspace()
                  and (m == 0 or form.text[m - 1].isspace() or not form.text[m].isascii())]
        if self.aligner is not None:
            word_starts = set(starts)
            onsets = [(off, smp) for off, smp in self.aligner.char_onsets(y, sr, form.text) if off in word_starts]
        else:
            onsets = [(off, min(n - 1, round(off / span * n))) for off in starts]
        native = np.asarray(result["speech_tokens"], dtype=np.int32) if self.speed == 1.0 else None
        return Synthesis(audio=y, sample_rate=sr, words=word_timings(form, onsets, loud, n, sr),
                         speech_tokens=native, tokens_start_s=-first / sr)

    def synthesize_many(self, items: Sequence[tuple[str, VoiceSpec]], sample_rate: int
                        ) -> list[tuple[Synthesis, np.ndarray]]:
        """Several lines (several trajectories' turns) in one actor call: (synthesis, native S3 tokens)."""
        reqs = [self.request(t, v) for t, v in items]
        results = self.client(reqs)
        return [(self.shape(t, r, sample_rate, self.language_of(v)), np.asarray(r["speech_tokens"], dtype=np.int32))
                for (t, v), r in zip(items, results)]

    def synthesize(self, text: str, voice: VoiceSpec, sample_rate: int) -> Synthesis:
        """Speak ``text`` with the voice bank's prompt ``voice``."""
        return self.synthesize_many([(text, voice)], sample_rate)[0][0]

    def identity(self) -> dict[str, Any]:
        """Everything that determines the output, for dataset manifests."""
        return {"backend": self.name, "model": self.model, "cosyvoice": dist_version("cosyvoice-minicpmo"),
                "voice_bank": str(self.bank), "model_dir": self.model_dir, "language": self.language, "speed": self.speed,
                "instruct": self.instruct, "native_rate": NATIVE_RATE, "silence_dbfs": SPEECH_FLOOR_DBFS,
                "resampler": f"soxr {dist_version('soxr')} HQ", "text": "spoken form",
                "word_timing": self.aligner.identity() if self.aligner is not None
                else "estimate (spoken characters over the loud span)",
                "speech_tokens": NATIVE_TOKENS if self.speed == 1.0 else RETOKENIZED,
                **({ALIGNER_DIR: str(self.aligner.model_dir)} if self.aligner is not None else {})}
