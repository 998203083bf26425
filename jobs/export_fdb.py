"""`duplexsynth export DIR --format fdb --out OUT`: Full-Duplex-Bench v1.5's overlap layout.

What DanielLin94144/Full-Duplex-Bench v1.5 reads (v1_v1.5/dataset/README.md; its inference clients
glob ``{task}/*/{prefix}input.wav`` with prefix "" or "clean_", and eval_general_before_after.py
reads ``metadata.json["timestamps"][1]``):

    OUT/{task}/{id}/input.wav         the user channel (what the microphone heard) with the overlap event
    OUT/{task}/{id}/clean_input.wav   the same session without the overlap: its clean twin's user channel
    OUT/{task}/{id}/metadata.json     {"context_text", "current_turn_text", "timestamps": [start_s, end_s]}

Tasks are v1.5's subsets: user_interruption, user_backchannel, talking_to_other, background_speech,
named by the kind of the overlap the clean twin leaves out (schemas/twins.py). Audio is mono 16-bit
PCM at the row's rate (16 kHz by default, the benchmark's). `context_text` is what the user said
before the overlap, `current_turn_text` the overlap's words, `timestamps` its window in input.wav.

An Omni base row's frames (one JPEG per unit, input.wav's units) go in the sample's own folder,
``OUT/{task}/{id}/frames/000000.jpg, ...``, and metadata.json says so (`"frames": {"dir", "files",
"unit_s"}`); the benchmark's clients read only the audio and `timestamps`, a video-aware one finds them.

A sample needs its clean twin, so only `twins: {kinds: [clean]}` rows become samples. A clean twin
row is used as its base's clean_input (it is converted, but has no folder of its own). Every other
row is a failed record saying why: no overlap, or no clean twin in the dataset; a base whose clean
twin never comes (or a twin whose base never comes) is one too, and nothing of it is written.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from jobs.export_common import (FRAMES_DIR, USER_CHANNEL, LateFailure, RowFailed, frame_names, safe_name,
                                session_audio, write_frames)
from schemas.twins import OVERLAP_KINDS, TwinKind, TwinSide, twin_meta
from schemas.vocab import EventKind

FORMAT = "duplexsynth-fdb-v1.5"
INPUT_NAME, CLEAN_NAME, METADATA_NAME = "input.wav", "clean_input.wav", "metadata.json"
# Full-Duplex-Bench v1.5 subset per overlap kind
TASKS: dict[str, str] = {EventKind.INTERRUPTION: "user_interruption", EventKind.BACKCHANNEL: "user_backchannel",
                         EventKind.OTHER_DIRECTED: "talking_to_other",
                         EventKind.BACKGROUND_SPEECH: "background_speech"}


@dataclass
class _Held:
    """One row of a clean pair waiting for its partner: what the sample needs of it."""

    id: str
    index: int
    duration_s: float
    user: np.ndarray
    sr: int
    metadata: dict[str, Any] | None = None   # the base's (None for the clean twin)
    task: str = ""
    frames: list[bytes] | None = None        # the base's frames (Omni), written beside its input.wav


def sample_metadata(row: dict[str, Any], event_id: str) -> tuple[str, dict[str, Any]]:
    """(task, metadata.json) of the base row's overlap `event_id`."""
    ev = next((e for e in row["events"] if e["id"] == event_id), None)
    if ev is None or ev["kind"] not in TASKS:
        raise RowFailed(f"its twin record names overlap event {event_id!r}, which the row does not hold")
    said_before = [e for e in sorted(row["events"], key=lambda e: e["start_s"])
                   if e["kind"] == EventKind.USER_TURN and e["end_s"] <= ev["start_s"]]
    return TASKS[ev["kind"]], {"context_text": " ".join(e["text"] for e in said_before),
                               "current_turn_text": ev["text"],
                               "timestamps": [round(ev["start_s"], 6), round(ev["end_s"], 6)]}


class FdbWriter:
    """Writes one folder per clean pair, once both rows have been read (the generator writes them
    next to each other); rows still waiting at the end are reported by `unmatched`."""

    def __init__(self, stage: Path):
        self.root = stage
        self.index = 0
        self.bases: dict[str, _Held] = {}    # by the twin id it waits for
        self.cleans: dict[str, _Held] = {}   # by the base id it waits for
        self.samples: dict[str, int] = {task: 0 for task in TASKS.values()}

    def add(self, row: dict[str, Any]) -> None:
        index, self.index = self.index, self.index + 1
        try:
            pair = twin_meta(row["meta"])
        except ValueError as err:
            raise RowFailed(f"meta twin record is malformed ({err})") from None
        if pair is None or pair.kind != TwinKind.CLEAN:
            if not any(e["kind"] in OVERLAP_KINDS for e in row["events"]):
                raise RowFailed("has no overlap event (interruption, backchannel, other-directed or background "
                                "speech) to benchmark")
            raise RowFailed("has no clean twin in the dataset (generate with twins: {kinds: [clean]}): "
                            f"{CLEAN_NAME} would have nothing to hold")
        channels, sr = session_audio(row)
        held = _Held(id=safe_name(row["id"]), index=index, duration_s=float(row["duration_s"]),
                     user=channels[USER_CHANNEL], sr=sr)
        if pair.side == TwinSide.BASE:
            held.task, held.metadata = sample_metadata(row, pair.event)
            if row.get("frames"):
                held.frames = list(row["frames"])
                held.metadata["frames"] = {"dir": FRAMES_DIR, "files": frame_names(len(held.frames)),
                                           "unit_s": float(row["unit_s"])}
            clean = self.cleans.pop(row["id"], None)
            if clean is None:
                self.bases[pair.partner] = held
            else:
                self._write(held, clean)
        else:
            base = self.bases.pop(row["id"], None)
            if base is None:
                self.cleans[pair.partner] = held
            else:
                self._write(base, held)

    def _write(self, base: _Held, clean: _Held) -> None:
        import soundfile as sf

        if clean.sr != base.sr:
            raise RowFailed(f"clean twin {clean.id} is at {clean.sr} Hz, its base {base.id} at {base.sr} Hz")
        folder = self.root / base.task / base.id
        folder.mkdir(parents=True)
        for name, x in ((INPUT_NAME, base.user), (CLEAN_NAME, clean.user)):
            sf.write(folder / name, np.clip(x, -1.0, 1.0), base.sr, subtype="PCM_16", format="WAV")
        write_frames(folder / FRAMES_DIR, base.frames)
        (folder / METADATA_NAME).write_text(json.dumps(base.metadata, ensure_ascii=False, indent=2), encoding="utf-8")
        self.samples[base.task] += 1

    def unmatched(self) -> list[LateFailure]:
        """The rows whose partner never came: failed records (nothing of them was written)."""
        out = [LateFailure(h.id, h.index, f"its clean twin {twin} is not in the dataset", h.duration_s)
               for twin, h in self.bases.items()]
        out += [LateFailure(h.id, h.index, f"is a clean twin whose base {base} is not in the dataset", h.duration_s)
                for base, h in self.cleans.items()]
        return sorted(out, key=lambda f: f.index)

    def close(self) -> dict[str, Any]:
        return {"tasks": {t: n for t, n in self.samples.items() if n}, "files": [INPUT_NAME, CLEAN_NAME, METADATA_NAME],
                "channels": 1, "subtype": "PCM_16", "metadata_keys": ["context_text", "current_turn_text", "timestamps"]}
