"""espeak-ng speech realization through ctypes (library and data from the ``espeakng-loader`` wheel).

Why espeak-ng: it is tiny, CPU-only, fast (hundreds of times real time) and reports where every
word starts in its own audio, which is exactly what the composer needs to cut ``spoken_text`` at
unit boundaries. Its voices are robotic; a neural backend can replace it behind ``TTSBackend``.

Output contract of :meth:`EspeakBackend.synthesize` (downstream mixing relies on it):

* mono float32 at the requested rate, resampled from espeak's native 22050 Hz with soxr "HQ";
* loudness-normalised: RMS over active 10 ms frames (frames within 40 dB of the loudest one) is
  ``target_rms_dbfs`` (-20 dBFS), unless that would push the peak above ``peak_limit`` (0.9), in
  which case the peak limit wins and the RMS comes out lower;
* trimmed: leading/trailing samples below ``SPEECH_FLOOR_DBFS`` (schemas/thresholds.py, -45 dBFS)
  are removed, so the first and the last sample are themselves at or above it (the utterance starts
  and ends "on speech");
* one :class:`WordTiming` per written token (whitespace tokens, or for voices of a language
  written without spaces, the ``Language`` whose ``espeak_voices`` name the voice file (Mandarin
  ``cmn``): its words (jieba); the voice decides, because it is what the planner drew for the script's language).

What espeak is given is the text's *spoken form* (pipeline/tts/spoken.py: "8:30" as "eight thirty",
"3点" as "三点"), not the written text, and its WORD events (character offsets into that form) and
PHONEME events go to ``spoken.word_timings``, which maps them back to the written tokens: a token
starts at its first event; tokens espeak voiced under one event (an unstressed "the" after "in";
Mandarin dictionary words that span two jieba words, "不对，" on "不") share that stretch in
proportion to what they say, snapped to the nearest phoneme start; a token ends at the last sample
at or above ``SPEECH_FLOOR_DBFS`` before the next token's start, so pauses are no word's.

Determinism: libespeak-ng keeps synthesis state in C statics (pitch flutter phase, resonator and
echo memories, an RNG seeded from the clock), so the same text synthesised twice in one process
gives slightly different samples. Each call therefore loads a fresh, process-private copy of the
library, seeds its RNG, synthesises and unloads it again (about 2 ms overhead), which makes the
output a pure function of ``(text, voice, sample_rate)``.
"""

from __future__ import annotations

import _ctypes
import ctypes
import fnmatch
import functools
import os
import re
import shutil
import tempfile
import threading
import weakref
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Any

import espeakng_loader
import numpy as np

from schemas.language import LANGUAGES, Language
from schemas.languages.base import whitespace_words
from schemas.script import VoiceSpec
from schemas.thresholds import SPEECH_FLOOR_DBFS

from .base import Synthesis, level_and_trim
from .spoken import SpokenForm, spoken_form, word_timings

__all__ = ["EspeakBackend", "DEFAULT_VOICES", "list_voices"]

# --- constants from espeak-ng's speak_lib.h -------------------------------------------------------
_AUDIO_OUTPUT_SYNCHRONOUS = 2
_INITIALIZE_DONT_EXIT = 0x8000  # return an error code instead of calling exit()
_POS_CHARACTER = 1
_CHARS_UTF8 = 1
_EVENT_LIST_TERMINATED = 0
_EVENT_WORD = 1
_EVENT_PHONEME = 7
_INITIALIZE_PHONEME_EVENTS = 0x0001  # phoneme events too (the audio is the same)


def is_pause(phoneme: str) -> bool:
    """espeak's pause and boundary pseudo-phonemes ("_", "_:", "_!", "_|"): no sound starts there."""
    return phoneme.startswith("_")
_PARAM_RATE, _PARAM_PITCH, _PARAM_RANGE = 1, 3, 4
_EE_OK = 0

_RAND_SEED = 1  # espeak seeds its RNG from time(NULL) at initialisation; pin it

_RATE_RANGE = (80, 450)  # espeak-ng's accepted words-per-minute range

def _speaking(voice: VoiceSpec) -> Language | None:
    """The Language whose ``espeak_voices`` patterns match ``voice``'s file (the part of its name
    before "+"): Mandarin for ``cmn``, English for ``en*`` files; None for any other."""
    file = voice.name.partition("+")[0].lower()
    return next((lang for lang in LANGUAGES.values()
                 if any(fnmatch.fnmatchcase(file, p) for p in lang.espeak_voices)), None)


def voice_language(voice: VoiceSpec) -> Language | None:
    """The Language that tokenises text for ``voice``; None for whitespace tokens (English...)."""
    lang = _speaking(voice)
    return lang if lang is not None and lang.segment is not whitespace_words else None


def voice_speech_language(voice: VoiceSpec) -> str | None:
    """The language whose spoken forms ``voice`` is given (pipeline/tts/spoken): "zh" for the
    Mandarin voice files, "en" for English ones, None (text said as written) for the rest."""
    lang = _speaking(voice)
    return lang.code if lang is not None else None


class _Event(ctypes.Structure):
    class _Id(ctypes.Union):
        _fields_ = [("number", ctypes.c_int), ("name", ctypes.c_char_p), ("string", ctypes.c_char * 8)]

    _fields_ = [
        ("type", ctypes.c_int),
        ("unique_identifier", ctypes.c_uint),
        ("text_position", ctypes.c_int),  # 1-based character offset in the input text
        ("length", ctypes.c_int),  # characters
        ("audio_position", ctypes.c_int),  # ms from the start of the utterance
        ("sample", ctypes.c_int),
        ("user_data", ctypes.c_void_p),
        ("id", _Id),
    ]


class _VoiceInfo(ctypes.Structure):
    _fields_ = [
        ("name", ctypes.c_char_p),
        ("languages", ctypes.c_void_p),  # (priority byte, NUL-terminated string)*, then a 0 byte
        ("identifier", ctypes.c_char_p),
        ("gender", ctypes.c_ubyte),
        ("age", ctypes.c_ubyte),
        ("variant", ctypes.c_ubyte),
        ("xx1", ctypes.c_ubyte),
        ("score", ctypes.c_int),
        ("spare", ctypes.c_void_p),
    ]


_SynthCallback = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.POINTER(ctypes.c_short), ctypes.c_int, ctypes.POINTER(_Event))


def _declare(lib: ctypes.CDLL) -> None:
    lib.espeak_Initialize.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_char_p, ctypes.c_int]
    lib.espeak_Initialize.restype = ctypes.c_int
    lib.espeak_ng_SetRandSeed.argtypes = [ctypes.c_long]
    lib.espeak_ng_SetRandSeed.restype = None
    lib.espeak_SetSynthCallback.argtypes = [_SynthCallback]
    lib.espeak_SetSynthCallback.restype = None
    lib.espeak_SetVoiceByName.argtypes = [ctypes.c_char_p]
    lib.espeak_SetVoiceByName.restype = ctypes.c_int
    lib.espeak_SetParameter.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_int]
    lib.espeak_SetParameter.restype = ctypes.c_int
    lib.espeak_Synth.argtypes = [
        ctypes.c_char_p, ctypes.c_size_t, ctypes.c_uint, ctypes.c_int, ctypes.c_uint, ctypes.c_uint,
        ctypes.c_void_p, ctypes.c_void_p,
    ]
    lib.espeak_Synth.restype = ctypes.c_int
    lib.espeak_Info.argtypes = [ctypes.c_void_p]
    lib.espeak_Info.restype = ctypes.c_char_p
    lib.espeak_ListVoices.argtypes = [ctypes.POINTER(_VoiceInfo)]
    lib.espeak_ListVoices.restype = ctypes.POINTER(ctypes.POINTER(_VoiceInfo))
    lib.espeak_Terminate.argtypes = []
    lib.espeak_Terminate.restype = ctypes.c_int


def _dlclose(lib: ctypes.CDLL) -> None:
    close = getattr(_ctypes, "dlclose", None) or getattr(_ctypes, "FreeLibrary")
    close(lib._handle)


@dataclass
class _NativeResult:
    samples: np.ndarray  # int16 at native_rate
    native_rate: int
    word_events: list[tuple[int, int, int]]  # (text_position 1-based, length, audio_position ms)
    phonemes: list[tuple[int, int, str]]  # (text_position 1-based, audio_position ms, mnemonic)


class EspeakBackend:
    """``TTSBackend`` over libespeak-ng.

    Picklable: it holds only settings; the private library copy is made lazily on first use in each
    process. Thread-safe: calls on one instance are serialised by its lock (espeak-ng is not
    thread-safe); separate instances use separate library copies.
    """

    name = "espeak-ng"

    def __init__(self, target_rms_dbfs: float = -20.0, peak_limit: float = 0.9) -> None:
        if not 0.0 < peak_limit <= 1.0:
            raise ValueError(f"peak_limit must be in (0, 1], got {peak_limit}")
        self.target_rms_dbfs = float(target_rms_dbfs)
        self.peak_limit = float(peak_limit)
        self._init_runtime()

    # --- pickling: drop the process-local lock and library copy ----------------------------------
    def _init_runtime(self) -> None:
        self._lock = threading.Lock()
        self._lib_path: str | None = None
        self._lib_pid: int | None = None
        self._version: str | None = None
        # VoiceSpec.name -> the voice path that selects it (_resolve): finding "en-gb+m2" reads every
        # voice file (espeak_ListVoices) on a fresh library copy, a fifth of a render's time per call
        self._resolved: dict[str, str] = {}
        self._data: str | None = None      # the data view _private_data_path made in process _data_pid
        self._data_pid: int | None = None

    def __getstate__(self) -> dict[str, Any]:
        return {"target_rms_dbfs": self.target_rms_dbfs, "peak_limit": self.peak_limit, "_version": self._version}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self._init_runtime()
        self.target_rms_dbfs = state["target_rms_dbfs"]
        self.peak_limit = state["peak_limit"]
        self._version = state.get("_version")

    def __repr__(self) -> str:
        return f"EspeakBackend(target_rms_dbfs={self.target_rms_dbfs}, peak_limit={self.peak_limit})"

    # --- library handling -------------------------------------------------------------------------
    def _private_lib_path(self) -> str:
        """A copy of libespeak-ng only this instance loads, so dlclose really unloads it.

        (Loading the wheel's file directly could share a handle, and thus C state, with any other
        user of espeakng-loader in the process, e.g. a phonemizer.) Caller holds the lock.
        """
        if self._lib_path is not None and self._lib_pid == os.getpid():
            return self._lib_path
        blob = Path(espeakng_loader.get_library_path()).read_bytes()
        path: str | None = None
        if hasattr(os, "memfd_create"):  # Linux: an anonymous in-memory file, nothing left on disk
            fd = os.memfd_create("duplexsynth-libespeak-ng")
            try:
                with open(fd, "wb", closefd=False) as f:
                    f.write(blob)
                path = f"/proc/self/fd/{fd}"
                _dlclose(ctypes.CDLL(path))  # probe that dlopen accepts it (some sandboxes hide /proc)
                weakref.finalize(self, os.close, fd)
            except OSError:
                os.close(fd)
                path = None
        if path is None:
            tmp = tempfile.mkdtemp(prefix="duplexsynth-espeak-")
            path = os.path.join(tmp, "libespeak-ng.so")
            Path(path).write_bytes(blob)
            weakref.finalize(self, shutil.rmtree, tmp, True)
        self._lib_path, self._lib_pid = path, os.getpid()
        return path

    def _private_data_path(self) -> str:
        """espeak-ng's data as the wheel has it, seen through a tree of links in which every voice file
        also answers to its lower-case path ("lang/gmw/en-us" for "lang/gmw/en-US"), once per process.

        Why: espeak_SetVoiceByName lower-cases the name it is given and loads that path directly, or
        else lists (reads) every voice file to find it, ~14 ms on each fresh library copy, which is
        more than synthesising a short line. With this view every voice is selected by a path
        (``_select``), so the list is read once per voice and process; the files, hence the audio,
        are the wheel's own. Caller holds the lock.
        """
        if self._data is not None and self._data_pid == os.getpid():
            return self._data
        src = Path(espeakng_loader.get_data_path())
        root = Path(tempfile.mkdtemp(prefix="duplexsynth-espeak-data-"))
        weakref.finalize(self, shutil.rmtree, str(root), True)
        for entry in src.iterdir():
            if entry.name != "lang":
                (root / entry.name).symlink_to(entry)
        for folder, _dirs, files in os.walk(src / "lang"):
            mirror = root / Path(folder).relative_to(src)
            mirror.mkdir(parents=True, exist_ok=True)
            for f in files:
                (mirror / f).symlink_to(Path(folder) / f)
                if f.lower() not in files:
                    (mirror / f.lower()).symlink_to(Path(folder) / f)
        self._data, self._data_pid = str(root), os.getpid()
        return self._data

    def _open(self) -> tuple[ctypes.CDLL, int]:
        """Load and initialise a pristine library instance. Caller holds the lock."""
        lib = ctypes.CDLL(self._private_lib_path())
        _declare(lib)
        data = self._private_data_path()
        rate = lib.espeak_Initialize(
            _AUDIO_OUTPUT_SYNCHRONOUS, 0, data.encode(), _INITIALIZE_DONT_EXIT | _INITIALIZE_PHONEME_EVENTS,
        )
        if rate <= 0:
            _dlclose(lib)
            raise RuntimeError(f"espeak_Initialize failed (returned {rate}); data path {data}")
        lib.espeak_ng_SetRandSeed(_RAND_SEED)
        return lib, rate

    @staticmethod
    def _close(lib: ctypes.CDLL) -> None:
        lib.espeak_Terminate()
        _dlclose(lib)

    # --- voices -----------------------------------------------------------------------------------
    @staticmethod
    def _voice_ids(lib: ctypes.CDLL) -> list[str]:
        # espeak_SetVoiceByName matches voice *file* names (case-insensitively), not language
        # codes: "en-us" works, "en-gb" does not (British English is the file "en").
        arr = lib.espeak_ListVoices(None)
        out: set[str] = set()
        i = 0
        while arr[i]:
            ident = arr[i].contents.identifier
            if ident:
                out.add(ident.decode("utf-8", "replace").rsplit("/", 1)[-1].lower())
            i += 1
        return sorted(out)

    def _resolve(self, name: str) -> str | None:
        """The path that selects voice ``name`` (``_select_voice``), found once per name and process in a
        library copy of its own, so every synthesis selects its voice the same way, first call or not.
        Caller holds the lock and has no library copy open (a second dlopen would share the first)."""
        if name not in self._resolved:
            probe, _ = self._open()
            try:
                resolved = self._select_voice(probe, name)
            finally:
                self._close(probe)
            if resolved is None:
                return None
            self._resolved[name] = resolved
        return self._resolved[name]

    @staticmethod
    def _select_voice(lib: ctypes.CDLL, name: str) -> str | None:
        """Select ``name`` as a voice file name, else as a language code ("en-gb" -> file "en"): the
        voice's path that selects the same voice file and variant without listing the voices
        ("gmw/en-us+f3" for "en-us+f3", "gmw/en+m2" for "en-gb+m2"), or None."""
        base, plus, variant = name.partition("+")
        if not base:
            return None
        arr = lib.espeak_ListVoices(None)
        files: dict[str, str] = {}     # voice file name -> its identifier (path under lang/), lower case
        by_language: list[tuple[str, str]] = []
        i = 0
        while arr[i]:
            v = arr[i].contents
            p = v.languages
            if v.identifier:
                ident = v.identifier.decode("utf-8", "replace")
                files.setdefault(ident.rsplit("/", 1)[-1].lower(), ident.lower())
                if p and ctypes.c_ubyte.from_address(p).value:
                    by_language.append((ctypes.string_at(p + 1).decode("utf-8", "replace").lower(), ident))
            i += 1
        if lib.espeak_SetVoiceByName(name.encode()) == _EE_OK:
            return f"{files.get(base.lower(), base)}{plus}{variant}"
        for ident in sorted(i.rsplit("/", 1)[-1] for lang, i in by_language if lang == base.lower()):
            if lib.espeak_SetVoiceByName(f"{ident}{plus}{variant}".encode()) == _EE_OK:
                return f"{files.get(ident.lower(), ident)}{plus}{variant}"
        return None

    def list_voices(self) -> list[str]:
        """Voice ids usable as the part of ``VoiceSpec.name`` before ``+`` (e.g. "en", "en-us").

        A voice's primary language code (e.g. "en-gb" for "en") is accepted as well.
        """
        with self._lock:
            lib, _ = self._open()
            try:
                return self._voice_ids(lib)
            finally:
                self._close(lib)

    @staticmethod
    def list_variants() -> list[str]:
        """Variant names usable after ``+`` in ``VoiceSpec.name`` (e.g. "f3", "m2", "steph")."""
        return list(_variants(espeakng_loader.get_data_path()))

    def _unknown_voice(self, voice: VoiceSpec, lib: ctypes.CDLL | None, why: str) -> ValueError:
        ids = self._voice_ids(lib) if lib is not None else []
        english = [x for x in ids if x == "en" or x.startswith("en-")]
        variants = [v for v in self.list_variants() if re.fullmatch(r"[fm]\d", v)]
        return ValueError(
            f"unknown espeak-ng voice {voice.name!r} ({why}); expected '<voice>[+<variant>]', "
            f"e.g. voices {english or ids[:10]} and variants {variants} "
            f"(see EspeakBackend.list_voices() / list_variants())"
        )

    @staticmethod
    def _check_params(voice: VoiceSpec, sample_rate: int) -> None:
        if not _RATE_RANGE[0] <= voice.rate <= _RATE_RANGE[1]:
            raise ValueError(f"voice rate {voice.rate} wpm outside espeak-ng's range {_RATE_RANGE}")
        for field in ("pitch", "pitch_range"):
            if not 0 <= getattr(voice, field) <= 99:
                raise ValueError(f"voice {field}={getattr(voice, field)} outside 0..99")
        if not isinstance(sample_rate, (int, np.integer)) or not 4000 <= sample_rate <= 192000:
            raise ValueError(f"sample_rate must be an integer in 4000..192000 Hz, got {sample_rate!r}")

    # --- synthesis --------------------------------------------------------------------------------
    def _synth_native(self, text: str, voice: VoiceSpec) -> _NativeResult:
        chunks: list[np.ndarray] = []
        events: list[tuple[int, int, int]] = []
        phonemes: list[tuple[int, int, str]] = []

        def on_audio(wav: Any, n: int, ev: Any) -> int:
            if n > 0 and wav:
                chunks.append(np.ctypeslib.as_array(wav, shape=(n,)).copy())
            i = 0
            while ev[i].type != _EVENT_LIST_TERMINATED:
                if ev[i].type == _EVENT_WORD:
                    events.append((ev[i].text_position, ev[i].length, ev[i].audio_position))
                elif ev[i].type == _EVENT_PHONEME:
                    phonemes.append((ev[i].text_position, ev[i].audio_position,
                                     ev[i].id.string.decode("latin-1")))
                i += 1
            return 0  # 0 = continue synthesis

        callback = _SynthCallback(on_audio)  # must stay referenced until synthesis returns
        variant = voice.name.partition("+")[2]
        with self._lock:
            if "+" in voice.name and variant not in _variants(espeakng_loader.get_data_path()):
                lib, _ = self._open()
                try:
                    raise self._unknown_voice(voice, lib, f"no variant {variant!r}")
                finally:
                    self._close(lib)
            resolved = self._resolve(voice.name)
            lib, rate = self._open()
            try:
                if resolved is None or lib.espeak_SetVoiceByName(resolved.encode()) != _EE_OK:
                    raise self._unknown_voice(voice, lib, "espeak_SetVoiceByName failed")
                lib.espeak_SetParameter(_PARAM_RATE, int(voice.rate), 0)
                lib.espeak_SetParameter(_PARAM_PITCH, int(voice.pitch), 0)
                lib.espeak_SetParameter(_PARAM_RANGE, int(voice.pitch_range), 0)
                lib.espeak_SetSynthCallback(callback)
                data = text.encode("utf-8")
                err = lib.espeak_Synth(data, len(data) + 1, 0, _POS_CHARACTER, 0, _CHARS_UTF8, None, None)
                if err != _EE_OK:
                    raise RuntimeError(f"espeak_Synth failed with code {err} for text {text[:60]!r}")
            finally:
                self._close(lib)
        samples = np.concatenate(chunks) if chunks else np.zeros(0, np.int16)
        return _NativeResult(samples, rate, events, phonemes)

    def synthesize(self, text: str, voice: VoiceSpec, sample_rate: int) -> Synthesis:
        """Speak ``text``; see the module docstring for the audio and timing contract.

        ``voice`` is the script's ``VoiceSpec``; its rate and pitches are checked against
        espeak-ng's ranges here (they are backend-specific). Raises ValueError for empty text, an unknown voice,
        out-of-range parameters, or text espeak renders as silence (e.g. only punctuation).
        """
        if not isinstance(text, str) or not text.strip():
            raise ValueError(f"text to synthesize is empty or whitespace only: {text!r}")
        if "\x00" in text:
            raise ValueError("text to synthesize contains a NUL character")
        self._check_params(voice, sample_rate)
        form = spoken_form(text, voice_speech_language(voice))
        native = self._synth_native(form.text, voice)
        return _postprocess(form, native, int(sample_rate), self.target_rms_dbfs, self.peak_limit)

    def identity(self) -> dict[str, Any]:
        """Everything that determines the output, for dataset manifests."""
        if self._version is None:
            with self._lock:
                lib, _ = self._open()
                try:
                    self._version = lib.espeak_Info(None).decode()
                finally:
                    self._close(lib)
        return {
            "backend": self.name,
            "version": self._version,
            "espeakng_loader": _dist_version("espeakng-loader"),
            "resampler": f"soxr {_dist_version('soxr')} HQ",
            "target_rms_dbfs": self.target_rms_dbfs,
            "peak_limit": self.peak_limit,
            "silence_dbfs": SPEECH_FLOOR_DBFS,
        }


@functools.cache   # asked on every synthesis with a variant; the wheel's data does not change under us
def _variants(data_path: str) -> tuple[str, ...]:
    vdir = Path(data_path) / "voices" / "!v"
    return tuple(sorted(p.name for p in vdir.iterdir() if p.is_file()))


def _dist_version(dist: str) -> str | None:
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return None


# --- post-processing (pure functions) ------------------------------------------------------------
def _postprocess(form: SpokenForm, native: _NativeResult, sr: int, target_rms_dbfs: float,
                 peak_limit: float) -> Synthesis:
    """Resample, level and trim espeak's audio; time the written tokens through ``form``."""
    y, loud, first = level_and_trim(native.samples.astype(np.float32) / 32768.0, native.native_rate, sr,
                                    target_rms_dbfs, peak_limit, "espeak-ng", form.text, " (nothing pronounceable?)")
    n = len(y)

    def at(ms: int) -> int:
        return min(max(round(ms * sr / 1000) - first, 0), n)

    # phonemes carry their word's offset and start on the sound itself (a WORD event can come at
    # the previous word's last phoneme: "in all" puts "all" on the n); WORD events if there are none
    sounds = [(max(0, p - 1), at(ms)) for p, ms, name in native.phonemes if not is_pause(name)]
    onsets = sounds or [(max(0, p - 1), at(ms)) for p, _, ms in native.word_events]
    phones = [t for _, t in sounds]
    return Synthesis(audio=y, sample_rate=sr, words=word_timings(form, onsets, loud, n, sr, phones))


def list_voices() -> list[str]:
    """Voice ids espeak-ng offers (the part of ``VoiceSpec.name`` before ``+``)."""
    return EspeakBackend().list_voices()


#: A varied set of English speakers that render with the shipped espeak-ng data (checked by tests).
DEFAULT_VOICES: list[VoiceSpec] = [
    VoiceSpec(name="en-us", rate=170, pitch=50, pitch_range=50),
    VoiceSpec(name="en-us+f3", rate=175, pitch=60, pitch_range=60),
    VoiceSpec(name="en+m3", rate=160, pitch=45, pitch_range=50),
    VoiceSpec(name="en+f2", rate=180, pitch=55, pitch_range=55),
    VoiceSpec(name="en-gb-scotland+m2", rate=155, pitch=40, pitch_range=45),
    VoiceSpec(name="en-gb-x-rp+f4", rate=165, pitch=58, pitch_range=50),
    VoiceSpec(name="en-us+m7", rate=185, pitch=35, pitch_range=40),
    VoiceSpec(name="en-029+f5", rate=170, pitch=62, pitch_range=65),
    VoiceSpec(name="en-gb-x-gbcwmd+m4", rate=150, pitch=48, pitch_range=55),
    VoiceSpec(name="en-us+f1", rate=160, pitch=65, pitch_range=45),
    VoiceSpec(name="en-gb-x-gbclan+m5", rate=188, pitch=50, pitch_range=50),
    VoiceSpec(name="en-us-nyc+m1", rate=178, pitch=42, pitch_range=60),
]
