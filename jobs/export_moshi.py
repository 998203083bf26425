"""`duplexsynth export DIR --format moshi --out OUT`: moshi-finetune's dataset layout.

What kyutai-labs/moshi-finetune reads (its README "Prepare dataset" and finetune/data/):

    OUT/moshi.jsonl                 one line per session: {"path": "data_stereo/<id>.wav", "duration": seconds}
    OUT/data_stereo/<id>.wav        stereo, 24 kHz (Mimi's rate), channel 0 the assistant, channel 1 the user
    OUT/data_stereo/<id>.json       {"alignments": [[word, [start_s, end_s], speaker], ...]} in time order

Paths in the index are relative to its folder, as in moshi-finetune's own example. Speakers: the
assistant's words are ``SPEAKER_MAIN``, the label its training code keeps (`keep_main_only`) and
the one its `annotate.py` writes; words heard on the microphone side keep their role as
``SPEAKER_USER`` / ``SPEAKER_OTHER`` / ``SPEAKER_BACKGROUND`` (dropped by `keep_main_only`, used
for turn changes by `use_bos_eos`). Times come from our `words` table as voiced (a word cut by an
interruption ends at the cut); words never voiced are not there. Audio is our 16 kHz (or the
row's rate) resampled with soxr and written as 16-bit PCM.

Harness events (delegate requests, backend results, timers) have no place in this layout: moshi
hears only the two audio channels and writes only its own text, so a relayed result is in the
assistant channel and its words, and the request and the result text are left out.

Reply latency (`--reply-latency`, jobs/reply_latency.py): moshi has no unit clock, so by default
(`human`) each wait before a reply to the user is shortened to a latency drawn per reply from the
row's seed (the `natural` preset's human turn offsets, p50 0.22 s, at least one Mimi frame) by
removing silence from both channels; word times move with the audio. `clock` keeps the unit
clock's timeline (p50 0.80 s) exactly. The layout says which, and what it did.

Frames (Omni rows) have no place either: moshi-finetune trains on audio and text alone. They are
left out, the manifest's layout counts the rows that had them (`frames_dropped_rows`) and the
export says so in one warning line.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

from jobs.export_common import (
    ASSISTANT_CHANNEL,
    FRAMES_DROPPED,
    USER_CHANNEL,
    RowFailed,
    new_name,
    resample,
    session_audio,
    words_by_event,
)
from jobs.reply_latency import (
    HUMAN,
    LatencyTarget,
    Reply,
    apply_cuts,
    map_time,
    parse_target,
    plan_cuts,
    summary,
)
from schemas.vocab import Role

FORMAT = "duplexsynth-moshi-v1"
SAMPLE_RATE = 24_000      # Mimi's rate: moshi-finetune loads audio at mimi.sample_rate
FRAME_RATE = 12.5         # Mimi's frames per second: moshi hears and speaks in 80 ms steps
INDEX_NAME = "moshi.jsonl"
AUDIO_DIR = "data_stereo"
# moshi-finetune's main-speaker label (finetune/data/interleaver.py, annotate.py); the others are ours
SPEAKERS: dict[str, str] = {Role.ASSISTANT: "SPEAKER_MAIN", Role.USER: "SPEAKER_USER",
                            Role.OTHER: "SPEAKER_OTHER", Role.BACKGROUND: "SPEAKER_BACKGROUND"}


def reply_target(text: str = HUMAN) -> LatencyTarget:
    """--reply-latency for this format: its floor is one Mimi frame."""
    return parse_target(text, floor_s=1 / FRAME_RATE)


def alignments(row: dict[str, Any], duration_s: float, move: Any = None) -> list[list[Any]]:
    """The row's voiced words as moshi-finetune's [word, [start, end], speaker], sorted by start;
    `move` maps a source time onto the exported timeline (None: unchanged)."""
    out: list[list[Any]] = []
    for words in words_by_event(row, duration_s).values():
        for w in words:
            if w["role"] not in SPEAKERS:
                raise RowFailed(f"word {w['word']!r} has role {w['role']!r}, which no audio channel carries")
            a, b = (w["start_s"], w["end_s"]) if move is None else (move(w["start_s"]), move(w["end_s"]))
            out.append([w["word"], [round(a, 6), round(b, 6)], SPEAKERS[w["role"]]])
    out.sort(key=lambda a: (a[1][0], a[1][1]))
    return out


class MoshiWriter:
    """Writes one stereo wav and one alignment JSON per row, and the index at the end."""

    def __init__(self, stage: Path, target: LatencyTarget | None = None):
        self.root = stage
        (stage / AUDIO_DIR).mkdir()
        self.target = target if target is not None else reply_target()
        self.index: list[dict[str, Any]] = []
        self.names: set[str] = set()
        self.frames_dropped = 0
        self.replies: list[Reply] = []
        self.removed_s = 0.0

    def add(self, row: dict[str, Any]) -> float:
        """Write one session; returns its exported seconds (shorter than the row's when replies were brought forward)."""
        import soundfile as sf

        name = new_name(row["id"], self.names)
        channels, sr = session_audio(row)
        duration_s = len(channels[ASSISTANT_CHANNEL]) / sr
        alignments(row, duration_s)          # refuse a bad word before any work
        stereo = np.stack([resample(channels[ASSISTANT_CHANNEL], sr, SAMPLE_RATE),
                           resample(channels[USER_CHANNEL], sr, SAMPLE_RATE)], axis=1)
        plan = plan_cuts(row, stereo[:, ASSISTANT_CHANNEL], SAMPLE_RATE, self.target)
        stereo = apply_cuts(stereo, plan.cuts)
        align = alignments(row, duration_s, (lambda t: map_time(t, plan.cuts)) if plan.cuts else None)
        rel = f"{AUDIO_DIR}/{name}.wav"
        sf.write(self.root / rel, np.clip(stereo, -1.0, 1.0), SAMPLE_RATE, subtype="PCM_16", format="WAV")
        (self.root / AUDIO_DIR / f"{name}.json").write_text(
            json.dumps({"alignments": align}, ensure_ascii=False), encoding="utf-8")
        self.names.add(name)
        self.index.append({"path": rel, "duration": len(stereo) / SAMPLE_RATE})
        self.frames_dropped += bool(row.get("frames"))
        self.replies += plan.replies
        self.removed_s += plan.removed / SAMPLE_RATE
        return len(stereo) / SAMPLE_RATE

    def close(self) -> dict[str, Any]:
        with open(self.root / INDEX_NAME, "w", encoding="utf-8") as f:
            for entry in self.index:
                f.write(json.dumps(entry) + "\n")
        return {"index": INDEX_NAME, "audio_dir": AUDIO_DIR, "sample_rate": SAMPLE_RATE, "subtype": "PCM_16",
                "speakers": dict(SPEAKERS), "main_speaker": SPEAKERS[Role.ASSISTANT],
                FRAMES_DROPPED: self.frames_dropped, "frame_rate": FRAME_RATE,
                "reply_latency": summary(self.replies, self.target, self.removed_s)}
