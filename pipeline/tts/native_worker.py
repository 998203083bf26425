"""The native-engine worker: a process that speaks flite's or RHVoice's voices over a line protocol.

Why a process of its own: these C engines keep synthesis state in the process (flite's clustergen
voices draw their unvoiced excitation from libc ``rand()``, one generator for the whole process;
neither library is thread-safe). Here each is alone: ``pipeline/tts/flite.py`` and ``rhvoice.py``
start this script with the same Python, one per backend and process; flite's ``rand`` is seeded
before every request and nothing else here draws from it, so the same request gives the same bytes
in any process and any order. This file imports nothing of duplexsynth (it is run as a script);
the libraries come from Debian (``libflite1``; ``librhvoice5`` + ``rhvoice-english``).

Protocol (one request at a time, UTF-8 JSON lines, the framing of piper_worker.py):

* request: ``{"engine": "flite"|"rhvoice", "voice": str, "text": str, ...engine settings}``
  (flite: ``stretch``, ``seed``; RHVoice: ``rate`` in -1..1)
* reply: ``{"ok": true, "sample_rate": int, "n": samples, "tokens": [...], "phones": [...],
  "block": int, "version": str}`` then exactly ``4*n`` bytes of little-endian float32; or
  ``{"ok": false, "error": str}``.

flite's ``tokens`` are its Token items in text order (one per whitespace token; the name without
punctuation) as ``[name, start, end]``: the samples where the first phoneme of its first word
starts and where the last phoneme of its last word ends (-1, -1 for a token that says nothing),
from the Segment relation's ``end`` times; ``phones``: where each non-pause phoneme starts.

RHVoice's ``tokens`` are ``[char offset, char length, start, end]`` from its word start/end
callbacks, where start/end are the samples delivered before the callback fired. RHVoice hands
audio over in blocks of ``block`` samples (100 ms) and fires a word's event before the block its
label time falls in, so the word starts in ``[start, start + block)``: the client refines it.
"""
from __future__ import annotations

import ctypes
import json
import sys
from typing import Any, BinaryIO

import numpy as np

_GLOBAL = ctypes.RTLD_GLOBAL
FLITE_VOICES = ("slt", "awb", "rms")   # Debian libflite1's clustergen English voices (kal is a diphone voice)


class _Wave(ctypes.Structure):
    _fields_ = [("type", ctypes.c_char_p), ("sample_rate", ctypes.c_int), ("num_samples", ctypes.c_int),
                ("num_channels", ctypes.c_int), ("samples", ctypes.POINTER(ctypes.c_short))]


class _Flite:
    """libflite and its voices, loaded once for this process's life."""

    def __init__(self) -> None:
        self.lib = ctypes.CDLL("libflite.so.1", mode=_GLOBAL)
        for dep in ("libflite_usenglish.so.1", "libflite_cmulex.so.1"):
            ctypes.CDLL(dep, mode=_GLOBAL)
        vp, cp = ctypes.c_void_p, ctypes.c_char_p
        for name, args, res in [
            ("flite_init", [], ctypes.c_int), ("flite_synth_text", [cp, vp], vp),
            ("utt_wave", [vp], ctypes.POINTER(_Wave)), ("delete_utterance", [vp], None),
            ("utt_relation", [vp, cp], vp), ("relation_head", [vp], vp), ("item_next", [vp], vp),
            ("item_as", [vp, cp], vp), ("item_daughter", [vp], vp), ("item_last_daughter", [vp], vp),
            ("item_feat_string", [vp, cp], cp), ("item_feat_float", [vp, cp], ctypes.c_float),
            ("ffeature_float", [vp, cp], ctypes.c_float), ("ffeature_string", [vp, cp], cp),
            ("feat_set_float", [vp, cp, ctypes.c_float], None),
        ]:
            fn = getattr(self.lib, name)
            fn.argtypes, fn.restype = args, res
        self.libc = ctypes.CDLL(None)
        self.libc.srand.argtypes = [ctypes.c_uint]
        self.lib.flite_init()
        self.voices: dict[str, int] = {}

    def voice(self, name: str) -> int:
        if name not in FLITE_VOICES:
            raise ValueError(f"no flite voice {name!r} (voices: {', '.join(FLITE_VOICES)})")
        if name not in self.voices:
            lib = ctypes.CDLL(f"libflite_cmu_us_{name}.so.1", mode=_GLOBAL)
            register = getattr(lib, f"register_cmu_us_{name}")
            register.argtypes, register.restype = [ctypes.c_char_p], ctypes.c_void_p
            self.voices[name] = int(register(None))
        return self.voices[name]

    def _items(self, utt: int, relation: str) -> list[int]:
        out: list[int] = []
        item = self.lib.relation_head(self.lib.utt_relation(utt, relation.encode()))
        while item:
            out.append(item)
            item = self.lib.item_next(item)
        return out

    def speak(self, req: dict[str, Any]) -> tuple[dict[str, Any], np.ndarray]:
        voice = self.voice(str(req["voice"]))
        features = ctypes.c_void_p.from_address(voice + ctypes.sizeof(ctypes.c_void_p)).value  # cst_voice.features
        self.lib.feat_set_float(features, b"duration_stretch", float(req["stretch"]))
        self.libc.srand(int(req["seed"]) & 0xFFFFFFFF)
        utt = self.lib.flite_synth_text(str(req["text"]).encode("utf-8"), voice)
        if not utt:
            raise RuntimeError("flite_synth_text failed")
        try:
            wave = self.lib.utt_wave(utt).contents
            rate = int(wave.sample_rate)
            audio = np.ctypeslib.as_array(wave.samples, shape=(int(wave.num_samples),)).astype(np.float32) / 32768.0
            lib = self.lib
            tokens: list[list[Any]] = []
            for tok in self._items(utt, "Token"):
                name = (lib.item_feat_string(tok, b"name") or b"").decode("utf-8", "replace")
                first = lib.item_daughter(lib.item_as(tok, b"Token"))
                last = lib.item_last_daughter(lib.item_as(tok, b"Token"))
                start = end = -1
                if first and lib.ffeature_string(first, b"R:SylStructure.daughter1.daughter1.R:Segment.name"):
                    start = round(lib.ffeature_float(first, b"R:SylStructure.daughter1.daughter1.R:Segment.p.end") * rate)
                    end = round(lib.ffeature_float(last, b"R:SylStructure.daughtern.daughtern.R:Segment.end") * rate)
                tokens.append([name, start, end])
            phones = []
            prev_end = 0.0
            for seg in self._items(utt, "Segment"):
                if (lib.item_feat_string(seg, b"name") or b"") != b"pau":
                    phones.append(round(prev_end * rate))
                prev_end = lib.item_feat_float(seg, b"end")
        finally:
            self.lib.delete_utterance(utt)
        return {"sample_rate": rate, "tokens": tokens, "phones": phones, "block": 0, "version": "flite 2"}, audio


# --- RHVoice (its C API, libRHVoice.so.5; structs as in RHVoice.h 1.8) ------------------------------
_SR_CB = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_int, ctypes.c_void_p)
_SPEECH_CB = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.POINTER(ctypes.c_short), ctypes.c_uint, ctypes.c_void_p)
_POS_CB = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_uint, ctypes.c_uint, ctypes.c_void_p)


class _RHCallbacks(ctypes.Structure):
    _fields_ = [("set_sample_rate", _SR_CB), ("play_speech", _SPEECH_CB), ("process_mark", ctypes.c_void_p),
                ("word_starts", _POS_CB), ("word_ends", _POS_CB), ("sentence_starts", ctypes.c_void_p),
                ("sentence_ends", ctypes.c_void_p), ("play_audio", ctypes.c_void_p), ("done", ctypes.c_void_p)]


class _RHInit(ctypes.Structure):
    _fields_ = [("data_path", ctypes.c_char_p), ("config_path", ctypes.c_char_p), ("resource_paths", ctypes.c_void_p),
                ("callbacks", _RHCallbacks), ("options", ctypes.c_uint)]


class _RHParams(ctypes.Structure):
    _fields_ = [("voice_profile", ctypes.c_char_p), ("absolute_rate", ctypes.c_double),
                ("absolute_pitch", ctypes.c_double), ("absolute_volume", ctypes.c_double),
                ("relative_rate", ctypes.c_double), ("relative_pitch", ctypes.c_double),
                ("relative_volume", ctypes.c_double), ("punctuation_mode", ctypes.c_int),
                ("punctuation_list", ctypes.c_char_p), ("capitals_mode", ctypes.c_int), ("flags", ctypes.c_int)]


class _RHVoice:
    """One RHVoice engine for this process; callbacks collect audio and word events per request."""

    def __init__(self) -> None:
        self.lib = ctypes.CDLL("libRHVoice.so.5")
        vp = ctypes.c_void_p
        self.lib.RHVoice_get_version.restype = ctypes.c_char_p
        self.lib.RHVoice_new_tts_engine.argtypes, self.lib.RHVoice_new_tts_engine.restype = [ctypes.POINTER(_RHInit)], vp
        self.lib.RHVoice_new_message.argtypes = [vp, ctypes.c_char_p, ctypes.c_uint, ctypes.c_int,
                                                 ctypes.POINTER(_RHParams), vp]
        self.lib.RHVoice_new_message.restype = vp
        self.lib.RHVoice_speak.argtypes, self.lib.RHVoice_speak.restype = [vp], ctypes.c_int
        self.lib.RHVoice_delete_message.argtypes, self.lib.RHVoice_delete_message.restype = [vp], None
        self.rate = 0
        self.chunks: list[np.ndarray] = []
        self.n = 0
        self.events: list[tuple[str, int, int, int]] = []
        self._keep = (_SR_CB(self._on_rate), _SPEECH_CB(self._on_speech), _POS_CB(self._on_start), _POS_CB(self._on_end))
        cbs = _RHCallbacks(set_sample_rate=self._keep[0], play_speech=self._keep[1], word_starts=self._keep[2],
                           word_ends=self._keep[3])
        self._init = _RHInit(data_path=b"/usr/share/RHVoice", config_path=b"/etc/RHVoice", callbacks=cbs, options=0)
        self.engine = self.lib.RHVoice_new_tts_engine(ctypes.byref(self._init))
        if not self.engine:
            raise RuntimeError("RHVoice_new_tts_engine failed (is rhvoice-english installed?)")

    def _on_rate(self, rate: int, _: Any) -> int:
        self.rate = int(rate)
        return 1

    def _on_speech(self, samples: Any, count: int, _: Any) -> int:
        self.chunks.append(np.ctypeslib.as_array(samples, shape=(int(count),)).astype(np.float32) / 32768.0)
        self.n += int(count)
        return 1

    def _on_start(self, pos: int, length: int, _: Any) -> int:
        self.events.append(("start", int(pos), int(length), self.n))
        return 1

    def _on_end(self, pos: int, length: int, _: Any) -> int:
        self.events.append(("end", int(pos), int(length), self.n))
        return 1

    def speak(self, req: dict[str, Any]) -> tuple[dict[str, Any], np.ndarray]:
        text = str(req["text"])
        data = text.encode("utf-8")
        params = _RHParams(voice_profile=str(req["voice"]).encode(), absolute_rate=float(req.get("rate", 0.0)),
                           absolute_pitch=float(req.get("pitch", 0.0)), absolute_volume=0.0, relative_rate=1.0,
                           relative_pitch=1.0, relative_volume=1.0)
        self.chunks, self.n, self.events = [], 0, []
        msg = self.lib.RHVoice_new_message(self.engine, data, len(data), 0, ctypes.byref(params), None)
        if not msg:
            raise ValueError(f"RHVoice refused the message (voice {req['voice']!r})")
        try:
            if not self.lib.RHVoice_speak(msg):
                raise RuntimeError("RHVoice_speak failed")
        finally:
            self.lib.RHVoice_delete_message(msg)
        # byte offsets (RHVoice counts UTF-8 bytes) -> character offsets
        chars = [0] * (len(data) + 1)
        k = 0
        for i, ch in enumerate(text):
            for _ in range(len(ch.encode("utf-8"))):
                chars[k] = i
                k += 1
        chars[len(data)] = len(text)
        starts: dict[int, list[int]] = {}
        for kind, pos, length, at in self.events:
            entry = starts.setdefault(pos, [chars[min(pos, len(data))], len(data[pos:pos + length].decode("utf-8", "replace")), -1, -1])
            entry[2 if kind == "start" else 3] = at
        audio = np.concatenate(self.chunks) if self.chunks else np.zeros(0, np.float32)
        version = (self.lib.RHVoice_get_version() or b"?").decode()
        head = {"sample_rate": self.rate, "tokens": [starts[p] for p in sorted(starts)], "phones": [],
                "block": self.rate // 10, "version": f"RHVoice {version}"}
        return head, audio


def serve(inp: BinaryIO, out: BinaryIO) -> None:
    """Answer requests until stdin closes; each engine is loaded on first use, for the process's life."""
    engines: dict[str, Any] = {}
    for line in inp:
        if not line.strip():
            continue
        try:
            req = json.loads(line)
            kind = str(req.get("engine", "flite"))
            if kind not in engines:
                engines[kind] = {"flite": _Flite, "rhvoice": _RHVoice}[kind]()
            head, audio = engines[kind].speak(req)
            out.write(json.dumps({"ok": True, "n": int(len(audio)), **head}).encode() + b"\n")
            out.write(np.ascontiguousarray(audio, dtype="<f4").tobytes())
        except Exception as err:   # noqa: BLE001 - reported to the caller, who raises it
            out.write(json.dumps({"ok": False, "error": f"{type(err).__name__}: {err}"}).encode() + b"\n")
        out.flush()


def main() -> None:
    import os

    # The protocol owns the real stdout; anything flite prints goes to stderr instead.
    proto = os.fdopen(os.dup(sys.stdout.fileno()), "wb")
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())
    serve(sys.stdin.buffer, proto)


if __name__ == "__main__":
    main()
