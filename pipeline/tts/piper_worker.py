"""The Piper worker: a separate process that speaks a small line protocol over stdin/stdout.

Why a process of its own: Piper (PyPI ``piper-tts``) is GPL-3.0, so duplexsynth never imports it;
``pipeline/tts/piper.py`` starts this script with the same Python, one per generation worker, and
talks to it by pipes. This file imports nothing of duplexsynth (it is run as a script).

Protocol (one request at a time, UTF-8 JSON lines):

* request: ``{"model": path, "speaker": int|null, "length_scale": f, "noise_scale": f, "noise_w": f,
  "seed": int, "groups": [[token, ...], ...], "pauses": [samples after group i, ...]}``
* reply: a JSON line ``{"ok": true, "sample_rate": int, "n": samples, "starts": [...], "ends": [...],
  "version": str}`` followed by exactly ``4*n`` bytes of little-endian float32 audio; or
  ``{"ok": false, "error": str}``. ``starts``/``ends`` are per token (all groups in order), in samples
  of the returned audio, from Piper's phoneme alignments (samples per phoneme id).

Determinism: a Piper voice draws its duration and prior noise with ONNX ``RandomNormalLike``, which
onnxruntime seeds from the clock. The model is patched on load so both noises come from graph inputs
instead, filled by ``numpy.random.default_rng(seed)`` for each request (the seed is the caller's
hash of text and voice), with one intra-op thread: the same request gives the same bytes in any
process, in any order.
"""
from __future__ import annotations

import json
import os
import sys
from importlib import metadata
from typing import Any, BinaryIO

import numpy as np

_NOISE_INPUTS = ("ds_noise_dp", "ds_noise_prior")   # graph inputs replacing the two RandomNormalLike ops
_SENTENCE_END = ".?!"


def _patch_noise(model: Any) -> list[str]:
    """Replace each RandomNormalLike(x) by Reshape(Slice(input_buffer, 0, Size(x)), Shape(x))."""
    from onnx import TensorProto, helper

    g = model.graph
    names: list[str] = []
    nodes = list(g.node)
    for node in nodes:
        if node.op_type != "RandomNormalLike":
            continue
        k = len(names)
        buf = _NOISE_INPUTS[k] if k < len(_NOISE_INPUTS) else f"ds_noise_{k}"
        names.append(buf)
        g.input.append(helper.make_tensor_value_info(buf, TensorProto.FLOAT, ["ds_noise_len"]))
        x, y, p = node.input[0], node.output[0], f"ds_noise{k}"
        new = [
            helper.make_node("Size", [x], [f"{p}_size"]),
            helper.make_node("Constant", [], [f"{p}_one"], value=helper.make_tensor(f"{p}_one_t", TensorProto.INT64, [1], [1])),
            helper.make_node("Constant", [], [f"{p}_zero"], value=helper.make_tensor(f"{p}_zero_t", TensorProto.INT64, [1], [0])),
            helper.make_node("Reshape", [f"{p}_size", f"{p}_one"], [f"{p}_end"]),
            helper.make_node("Slice", [buf, f"{p}_zero", f"{p}_end"], [f"{p}_flat"]),
            helper.make_node("Shape", [x], [f"{p}_shape"]),
            helper.make_node("Reshape", [f"{p}_flat", f"{p}_shape"], [y]),
        ]
        at = list(g.node).index(node)
        g.node.remove(node)
        for i, n in enumerate(new):
            g.node.insert(at + i, n)
    return names


class _Voice:
    """One loaded Piper model: phonemizer config, id map, a one-thread patched ONNX session."""

    def __init__(self, model_path: str) -> None:
        import onnx
        import onnxruntime
        from piper import PiperVoice
        from piper.patch_voice_with_alignment import add_alignment_output

        voice = PiperVoice.load(model_path)   # config and phonemizer; its session is replaced below
        model = onnx.load(model_path)
        add_alignment_output(model)
        self.noise_inputs = _patch_noise(model)
        opts = onnxruntime.SessionOptions()
        opts.intra_op_num_threads = 1
        opts.inter_op_num_threads = 1
        voice.session = onnxruntime.InferenceSession(model.SerializeToString(), sess_options=opts,
                                                     providers=["CPUExecutionProvider"])
        self.voice = voice
        self.hop = int(voice.config.hop_length)

    def _phonemes(self, text: str) -> list[str]:
        return [p for sent in self.voice.phonemize(text) for p in (sent + [" "])]

    def token_phonemes(self, tokens: list[str]) -> list[list[str]]:
        """Phonemes per token: from the whole group (context kept) when its words line up, else per token."""
        alone = [self._phonemes(t) for t in tokens]
        alone = [_strip(p) for p in alone]
        counts = [len(_words(p)) for p in alone]
        whole = _words(_strip(self._phonemes(" ".join(tokens))))
        if sum(counts) != len(whole) or 0 in counts:
            return alone
        out, i = [], 0
        for c in counts:
            out.append([ph for j, w in enumerate(whole[i : i + c]) for ph in ([" "] if j else []) + w])
            i += c
        return out

    def speak(self, req: dict[str, Any]) -> tuple[np.ndarray, list[int], list[int]]:
        id_map = self.voice.config.phoneme_id_map
        pad, bos, eos = id_map.get("_", []), id_map.get("^", []), id_map.get("$", [])
        audio: list[np.ndarray] = []
        starts: list[int] = []
        ends: list[int] = []
        offset = 0
        for g, (group, pause) in enumerate(zip(req["groups"], req["pauses"])):
            ids: list[int] = list(bos) + list(pad)
            spans: list[tuple[int, int]] = []
            for k, phs in enumerate(self.token_phonemes(list(group))):
                if k:
                    ids += id_map.get(" ", []) + pad
                first = len(ids)
                for ph in phs:
                    if ph in id_map:
                        ids += id_map[ph] + pad
                spans.append((first, len(ids)))
            ids += eos
            wav, per_id = self._run(ids, req, [int(req["seed"]), g])
            cum = np.concatenate([[0], np.cumsum(per_id)])
            for a, b in spans:
                starts.append(offset + int(cum[a]))
                ends.append(offset + int(cum[max(a, b)]))
            gap = int(pause)
            audio += [wav, np.zeros(gap, np.float32)]
            offset += len(wav) + gap
        return np.concatenate(audio) if audio else np.zeros(0, np.float32), starts, ends

    def _run(self, ids: list[int], req: dict[str, Any], stream: list[int]) -> tuple[np.ndarray, np.ndarray]:
        cfg = self.voice.config
        args: dict[str, np.ndarray] = {
            "input": np.array([ids], dtype=np.int64),
            "input_lengths": np.array([len(ids)], dtype=np.int64),
            "scales": np.array([req["noise_scale"], req["length_scale"], req["noise_w"]], dtype=np.float32),
        }
        if cfg.num_speakers > 1:
            sid = req.get("speaker")
            args["sid"] = np.array([cfg.default_speaker_id if sid is None else int(sid)], dtype=np.int64)
        size = 192 * 24 * len(ids)   # room for 24 frames of 192 channels per phoneme id; grown when short
        while True:
            # one stream per noise input, a prefix-stable draw, so a larger buffer keeps the same values
            for k, name in enumerate(self.noise_inputs):
                args[name] = np.random.default_rng(stream + [k]).standard_normal(size, dtype=np.float32)
            try:
                out = self.voice.session.run(None, args)
                break
            except Exception as err:   # noqa: BLE001 - a noise buffer too short for this utterance
                if "Reshape" not in str(err) or size > 1 << 28:
                    raise
                size *= 4
        wav = np.asarray(out[0], dtype=np.float32).reshape(-1)
        per_id = (np.asarray(out[1]).reshape(-1) * self.hop).astype(np.int64)
        return wav, per_id


def _strip(phs: list[str]) -> list[str]:
    while phs and phs[-1] == " ":
        phs = phs[:-1]
    while phs and phs[0] == " ":
        phs = phs[1:]
    return phs


def _words(phs: list[str]) -> list[list[str]]:
    out: list[list[str]] = [[]]
    for ph in phs:
        if ph == " ":
            out.append([])
        else:
            out[-1].append(ph)
    return [w for w in out if w]


def serve(inp: BinaryIO, out: BinaryIO) -> None:
    """Answer requests until stdin closes; one loaded model per path, kept for the process's life."""
    voices: dict[str, _Voice] = {}
    try:
        version = metadata.version("piper-tts")
    except metadata.PackageNotFoundError:
        version = "?"
    for line in inp:
        if not line.strip():
            continue
        try:
            req = json.loads(line)
            path = str(req["model"])
            if path not in voices:
                voices[path] = _Voice(path)
            voice = voices[path]
            wav, starts, ends = voice.speak(req)
            head = {"ok": True, "sample_rate": int(voice.voice.config.sample_rate), "n": int(len(wav)),
                    "starts": starts, "ends": ends, "version": version}
            out.write(json.dumps(head).encode() + b"\n")
            out.write(np.ascontiguousarray(wav, dtype="<f4").tobytes())
        except Exception as err:   # noqa: BLE001 - reported to the caller, who raises it
            out.write(json.dumps({"ok": False, "error": f"{type(err).__name__}: {err}"}).encode() + b"\n")
        out.flush()


def main() -> None:
    # Run as a script, this folder comes first on sys.path, and its piper.py (ours) would shadow Piper.
    here = os.path.dirname(os.path.abspath(__file__))
    sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != here]
    # The protocol owns the real stdout; anything a library prints goes to stderr instead.
    proto = os.fdopen(os.dup(sys.stdout.fileno()), "wb")
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())
    serve(sys.stdin.buffer, proto)


if __name__ == "__main__":
    main()
