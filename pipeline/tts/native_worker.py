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
callbacks, with start/end the exact samples where the token's first phoneme starts and its last one
ends; ``phones``: where each non-pause phoneme starts. Why that takes more than the callbacks (read
in RHVoice 1.8 src/core/hts_engine_call.cpp): an event's time is a phoneme label's start, exact in
samples, and fires at that sample in the chain's notifier, but the chain's sink hands audio to
``play_speech`` in blocks of the client's ``get_audio_buffer_size()``, which the C API fixes at
100 ms; so at a callback only "somewhere in the next 100 ms" is known. The labels themselves, with
their sample times, are what the HTS engine writes to ``$RHVOICE_DEBUG_HTS_FILE.lab`` after each
sentence (std_hts_engine_impl::output_debug_info). So the engine runs at ``quality=max`` (the HTS
engine that writes them, not the streaming MAGE one) with ``min_sonic_rate`` above every rate (a
rate stretches the HTS frame period, no sonic time-stretch after the labels), from a config folder
of its own; the sentence_starts callback points the variable at a file per sentence; and each word
event is matched to the word-initial label (HTS fields p6 = 1, b4 = 1) inside the 100 ms its
delivered count names. ``block`` is 0: the times are exact.
"""
from __future__ import annotations

import ctypes
import json
import os
import re
import shutil
import sys
import tempfile
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
                ("word_starts", _POS_CB), ("word_ends", _POS_CB), ("sentence_starts", _POS_CB),
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


#: RHVoice's settings here (our own config folder, so a host's /etc/RHVoice cannot change the output)
_RH_CONFIG = "quality=max\nmin_sonic_rate=6\n"
_RH_DUMP = "RHVOICE_DEBUG_HTS_FILE"
#: an HTS full-context label: p1^p2-p3+p4=p5@p6_p7/A:.../B:b1-b2-b3@b4-b5&...
_HTS_LABEL = re.compile(r"^[^^]*\^[^-]*-(?P<phone>[^+]*)\+[^=]*=[^@]*@(?P<p6>\w+)_(?P<p7>\w+)/A:[^/]*/B:[^@]*@(?P<b4>\w+)-(?P<b5>\w+)")


class _Label:
    """One phoneme label of a sentence: [start, end) in samples from the sentence's first sample."""

    def __init__(self, line: str, rate: int) -> None:
        a, b, name = line.split(maxsplit=2)
        self.start, self.end = round(int(a) * rate / 1e7), round(int(b) * rate / 1e7)
        m = _HTS_LABEL.match(name)
        if m is None:
            raise RuntimeError(f"RHVoice wrote a label this worker cannot read: {name[:60]!r}")
        self.phone = m["phone"]
        self.pause = self.phone == "pau"
        self.word_initial = not self.pause and m["p6"] == "1" and m["b4"] == "1"
        self.word_final = not self.pause and m["p7"] == "1" and m["b5"] == "1"


class _RHVoice:
    """One RHVoice engine for this process; callbacks collect audio, sentence starts and word events."""

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
        self.dir = tempfile.mkdtemp(prefix="duplexsynth-rhvoice-")
        with open(os.path.join(self.dir, "RHVoice.conf"), "w", encoding="utf-8") as f:
            f.write(_RH_CONFIG)
        self.rate = 0
        self.chunks: list[np.ndarray] = []
        self.n = 0
        self.sentences: list[int] = []                    # the sample each sentence starts at
        self.events: list[tuple[str, int, int, int, int]] = []   # (kind, byte pos, byte length, delivered, sentence)
        self.labels: list[list[_Label]] = []              # the last request's labels, per sentence
        self._keep = (_SR_CB(self._on_rate), _SPEECH_CB(self._on_speech), _POS_CB(self._on_start),
                      _POS_CB(self._on_end), _POS_CB(self._on_sentence))
        cbs = _RHCallbacks(set_sample_rate=self._keep[0], play_speech=self._keep[1], word_starts=self._keep[2],
                           word_ends=self._keep[3], sentence_starts=self._keep[4])
        self._init = _RHInit(data_path=b"/usr/share/RHVoice", config_path=self.dir.encode(), callbacks=cbs, options=0)
        self.engine = self.lib.RHVoice_new_tts_engine(ctypes.byref(self._init))
        if not self.engine:
            raise RuntimeError("RHVoice_new_tts_engine failed (is rhvoice-english installed?)")

    def close(self) -> None:
        shutil.rmtree(self.dir, ignore_errors=True)

    def _on_rate(self, rate: int, _: Any) -> int:
        self.rate = int(rate)
        return 1

    def _on_speech(self, samples: Any, count: int, _: Any) -> int:
        self.chunks.append(np.ctypeslib.as_array(samples, shape=(int(count),)).astype(np.float32) / 32768.0)
        self.n += int(count)
        return 1

    def _on_sentence(self, _pos: int, _length: int, _: Any) -> int:
        # fires as the sentence's first samples pass, before its labels are written at its end
        os.environ[_RH_DUMP] = self._dump(len(self.sentences))
        self.sentences.append(self.n)
        return 1

    def _on_start(self, pos: int, length: int, _: Any) -> int:
        self.events.append(("start", int(pos), int(length), self.n, len(self.sentences) - 1))
        return 1

    def _on_end(self, pos: int, length: int, _: Any) -> int:
        self.events.append(("end", int(pos), int(length), self.n, len(self.sentences) - 1))
        return 1

    def _clear_dumps(self) -> None:
        """Remove the label (and parameter) files the last request left."""
        for name in os.listdir(self.dir):
            if name.startswith("sentence-"):
                os.remove(os.path.join(self.dir, name))

    def _dump(self, k: int) -> str:
        return os.path.join(self.dir, f"sentence-{k}")

    def _labels(self, k: int) -> list[_Label]:
        path = self._dump(k) + ".lab"
        try:
            with open(path, encoding="utf-8") as f:
                return [_Label(line, self.rate) for line in f if line.strip()]
        except FileNotFoundError:
            raise RuntimeError(f"RHVoice wrote no labels for sentence {k} (is this librhvoice 1.8?)") from None

    def speak(self, req: dict[str, Any]) -> tuple[dict[str, Any], np.ndarray]:
        text = str(req["text"])
        data = text.encode("utf-8")
        params = _RHParams(voice_profile=str(req["voice"]).encode(), absolute_rate=float(req.get("rate", 0.0)),
                           absolute_pitch=float(req.get("pitch", 0.0)), absolute_volume=0.0, relative_rate=1.0,
                           relative_pitch=1.0, relative_volume=1.0)
        self.chunks, self.n, self.sentences, self.events = [], 0, [], []
        self._clear_dumps()
        msg = self.lib.RHVoice_new_message(self.engine, data, len(data), 0, ctypes.byref(params), None)
        if not msg:
            raise ValueError(f"RHVoice refused the message (voice {req['voice']!r})")
        try:
            if not self.lib.RHVoice_speak(msg):
                raise RuntimeError("RHVoice_speak failed")
        finally:
            self.lib.RHVoice_delete_message(msg)
        audio = np.concatenate(self.chunks) if self.chunks else np.zeros(0, np.float32)
        self.labels = labels = [self._labels(k) for k in range(len(self.sentences))]
        self._clear_dumps()
        for k, (at, labs) in enumerate(zip(self.sentences, labels)):
            end = self.sentences[k + 1] if k + 1 < len(self.sentences) else len(audio)
            if labs and at + labs[-1].end != end:
                raise RuntimeError(f"RHVoice's labels of sentence {k} end at {at + labs[-1].end}, its audio at {end}")
        # byte offsets (RHVoice counts UTF-8 bytes) -> character offsets
        chars = [0] * (len(data) + 1)
        k = 0
        for i, ch in enumerate(text):
            for _ in range(len(ch.encode("utf-8"))):
                chars[k] = i
                k += 1
        chars[len(data)] = len(text)
        tokens = _exact_tokens(self.events, self.sentences, labels, self.rate // 10, text, data, chars)
        phones = [at + lab.start for at, labs in zip(self.sentences, labels) for lab in labs if not lab.pause]
        version = (self.lib.RHVoice_get_version() or b"?").decode()
        head = {"sample_rate": self.rate, "tokens": tokens, "phones": phones, "block": 0, "version": f"RHVoice {version}"}
        return head, audio


def _exact_tokens(events: list[tuple[str, int, int, int, int]], sentences: list[int], labels: list[list[_Label]],
                  block: int, text: str, data: bytes, chars: list[int]) -> list[list[int]]:
    """``[char offset, char length, start, end]`` per RHVoice token, start/end on its phoneme labels.

    A word event fires when the notifier passes its label's start, which lies in ``(delivered -
    frame, delivered + block)`` (``frame``: the notifier's 5 ms input; ``block``: the sink's 100 ms).
    Its token starts at the first word-initial label there after the previous token's (tokens in
    order); a token with nothing to say (no letter or digit: RHVoice gives it no phonemes) gets none.
    It ends at the last word-final label end in its end event's window, not after the next start;
    -1 where no label fits (left to the client's audio)."""
    frame = block // 20
    out: dict[int, list[int]] = {}
    used = [-1] * len(labels)          # per sentence: index of the last word-initial label taken

    def window(delivered: int, k: int) -> tuple[int, int]:
        return delivered - sentences[k] - frame, delivered - sentences[k] + block

    for kind, pos, length, delivered, k in events:
        said = data[pos:pos + length].decode("utf-8", "replace")
        entry = out.setdefault(pos, [chars[min(pos, len(data))], len(said), -1, -1, k, delivered])
        if kind != "start" or k < 0 or not any(c.isalnum() for c in said):
            if kind == "end":
                entry[5] = delivered
            continue
        lo, hi = window(delivered, k)
        for i in range(used[k] + 1, len(labels[k])):
            lab = labels[k][i]
            if lab.start >= hi:
                break
            if lab.word_initial and lab.start > lo:
                entry[2] = sentences[k] + lab.start
                used[k] = i
                break
    rows = [out[p] for p in sorted(out)]
    for j, (_, _, start, _, k, delivered) in enumerate(rows):
        if start < 0:
            continue
        nxt = next((r[2] for r in rows[j + 1:] if r[2] >= 0), None)
        lo, hi = window(delivered, k)
        ends = [sentences[k] + lab.end for lab in labels[k] if lab.word_final and lo < lab.end < hi + frame
                and sentences[k] + lab.end > start and (nxt is None or sentences[k] + lab.end <= nxt)]
        rows[j][3] = max(ends, default=-1)
    return [r[:4] for r in rows]


def serve(inp: BinaryIO, out: BinaryIO) -> None:
    """Answer requests until stdin closes; each engine is loaded on first use, for the process's life."""
    engines: dict[str, Any] = {}
    try:
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
    finally:
        for engine in engines.values():
            getattr(engine, "close", lambda: None)()


def main() -> None:
    # The protocol owns the real stdout; anything flite prints goes to stderr instead.
    proto = os.fdopen(os.dup(sys.stdout.fileno()), "wb")
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())
    serve(sys.stdin.buffer, proto)


if __name__ == "__main__":
    main()
