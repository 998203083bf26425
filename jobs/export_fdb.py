"""`duplexsynth export DIR --format fdb --out OUT`: Full-Duplex-Bench v1.5's overlap layout.

What DanielLin94144/Full-Duplex-Bench v1.5 reads (v1_v1.5/dataset/README.md; its inference clients
glob ``{task}/*/{prefix}input.wav`` with prefix "" or "clean_", eval_general_before_after.py reads
``metadata.json["timestamps"][1]`` and get_timing.py runs a VAD over input.wav as the user's speech):

    OUT/{task}/{id}/input.wav         the user channel (what the microphone heard) with the one overlap event
    OUT/{task}/{id}/clean_input.wav   the same samples without that event (equal outside `overlap_span_s`)
    OUT/{task}/{id}/metadata.json     {"context_text", "current_turn_text", "timestamps": [start_s, end_s],
                                       "overlap_span_s": [start_s, end_s]}

Tasks are v1.5's subsets: user_interruption, user_backchannel, talking_to_other, background_speech,
named by the kind of the overlap the clean twin leaves out (schemas/twins.py). Audio is mono 16-bit
PCM at the row's rate (16 kHz by default, the benchmark's). `context_text` is what the user said
before the overlap, `current_turn_text` the overlap's words, `timestamps` its speech in input.wav.

A sample holds exactly one overlap and nothing the benchmark's metadata cannot describe:
- A base row with another overlap (any kind) that starts no later than the benchmarked one is a
  failed record: the clean twin leaves only one out, so clean_input.wav would not be clean.
- input.wav ends where the next user turn or the next overlap starts (the whole row when none
  does): get_timing.py would otherwise score replies to turns the metadata does not name. One that
  starts before the benchmarked event has ended is a failed record. Times need no rewriting (the
  sample starts where the row does).
- A row whose mic holds babble (background talkers all through the session) is a failed record:
  other speech the metadata cannot name, which get_timing.py's VAD takes for the user's (one such
  52 s sample was a single "user" stretch from 0.07 s to its end).
- The assistant's echo (a mic scene's `echo`, our assistant leaking back) is taken out of the
  user channel: the benchmarked model would hear another assistant's voice, and get_timing.py
  would count it as user speech. It is rebuilt from the stored assistant channel, as validate does.

clean_input.wav is input.wav with the event's own audio taken out, and nothing else changed: the
event's span (`overlap_span_s`: from its onset to the end of its audio, its FD-Bench filter's
reflections and the user's room tail included) is where the two files may differ; everywhere
else they are equal sample for sample. What is taken out is the base row's own speech minus its
clean twin's own speech (each row's noises and echo rebuilt and subtracted, pipeline.mixer.own_speech),
at the base's channel gain, so the clip guard and the noise levelling of the twin's own render
never reach the sample. Outside the span that difference must be 16-bit rounding only, else the
pair is a failed record saying where it differs (the twin was not the same session).

An Omni base row's frames (one JPEG per unit, input.wav's units) go in the sample's own folder,
``OUT/{task}/{id}/frames/000000.jpg, ...``, and metadata.json says so (`"frames": {"dir", "files",
"unit_s"}`); the benchmark's clients read only the audio and `timestamps`, a video-aware one finds them.

A sample needs its clean twin, so only `twins: {kinds: [clean]}` rows become samples. A clean twin
row is used as its base's clean_input (it is converted, but has no folder of its own). Every other
row is a failed record saying why: no overlap, no clean twin in the dataset, or one of the rules
above; a pair that fails fails both rows, and nothing of it is written.
"""
from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from jobs.export_common import (ASSISTANT_CHANNEL, FRAMES_DIR, USER_CHANNEL, LateFailure, RowFailed, frame_names,
                                safe_name, session_audio, write_frames)
from pipeline import mixer, rooms
from schemas.timeline import BabbleNoise, MicScene, Reflections, Stem, TimelineSpec
from schemas.twins import OVERLAP_KINDS, TwinKind, TwinSide, twin_meta
from schemas.vocab import EventKind

FORMAT = "duplexsynth-fdb-v1.5"
INPUT_NAME, CLEAN_NAME, METADATA_NAME = "input.wav", "clean_input.wav", "metadata.json"
SPAN_KEY = "overlap_span_s"   # metadata.json: where clean_input.wav may differ from input.wav
# Full-Duplex-Bench v1.5 subset per overlap kind
TASKS: dict[str, str] = {EventKind.INTERRUPTION: "user_interruption", EventKind.BACKCHANNEL: "user_backchannel",
                         EventKind.OTHER_DIRECTED: "talking_to_other",
                         EventKind.BACKGROUND_SPEECH: "background_speech"}
PCM_SCALE = 32767.0   # the renderer stores round(x * 32767) (pipeline.io.encode_flac)


@dataclass
class _Session:
    """What a pair needs of one row: its microphone as stored (16-bit integers), its assistant channel
    as stored (for the echo) and its mic scene."""

    id: str
    index: int
    duration_s: float
    sr: int
    user: np.ndarray            # int64 PCM of the stored user channel
    assistant: np.ndarray       # float64, the stored assistant channel as decoded (/32768, what the echo used)
    mic: MicScene


@dataclass
class Plan:
    """The sample a base row makes: its task, metadata, and where its event and crop lie (samples)."""

    task: str
    metadata: dict[str, Any]
    start: int                  # the event's onset
    span_end: int               # end of the event's audio in the mic (filter and room tails), <= crop
    crop: int                   # input.wav's length
    frames: list[bytes] | None = None


@dataclass
class _Held:
    """A row of a clean pair waiting for its partner."""

    session: _Session
    plan: Plan | None = None    # the base's (None for the clean twin)


def _samples(t: float, sr: int) -> int:
    return int(round(t * sr))


def plan_sample(row: dict[str, Any], event_id: str, spec: TimelineSpec) -> Plan:
    """Where the base row's overlap `event_id` is and where its sample ends; RowFailed when the row
    holds another overlap no later than it, or the next user turn or overlap starts inside it."""
    sr, n = spec.sample_rate, spec.n_samples
    events = sorted(row["events"], key=lambda e: (e["start_s"], e["id"]))
    ev = next((e for e in events if e["id"] == event_id), None)
    if ev is None or ev["kind"] not in TASKS:
        raise RowFailed(f"its twin record names overlap event {event_id!r}, which the row does not hold")
    where = f"the benchmarked {ev['kind']} {ev['id']} ({ev['start_s']:.2f}-{ev['end_s']:.2f} s)"
    babble = [x for x in (spec.mic.noises if spec.mic is not None else ()) if isinstance(x, BabbleNoise)]
    if babble:
        raise RowFailed(f"its mic holds babble ({len(babble[0].talkers)} background talkers all through, "
                        f"{babble[0].snr_db:.1f} dB SNR) besides {where}: other speech the metadata cannot name, "
                        "which get_timing.py takes for the user's")
    others = [e for e in events if e["kind"] in OVERLAP_KINDS and e["id"] != ev["id"]]
    earlier = [e for e in others if e["start_s"] <= ev["start_s"]]
    if earlier:
        e = earlier[0]
        raise RowFailed(f"holds {len(earlier)} overlap(s) no later than {where}, first {e['kind']} {e['id']} at "
                        f"{e['start_s']:.2f} s; its clean twin leaves out only {ev['id']}, so a sample would hold two")
    other_ids = {e["id"] for e in others}
    later = [e for e in events if e["start_s"] > ev["start_s"]
             and (e["kind"] == EventKind.USER_TURN or e["id"] in other_ids)]
    start, end = _samples(ev["start_s"], sr), _samples(ev["end_s"], sr)
    crop = min((_samples(e["start_s"], sr) for e in later), default=n)
    if crop < end:
        e = later[0]
        raise RowFailed(f"the next {e['kind']} {e['id']} starts at {e['start_s']:.2f} s, inside {where}")
    tracks = [t for t in spec.tracks if t.event_id == ev["id"]]
    if len(tracks) != 1 or tracks[0].offset != start:
        raise RowFailed(f"its timeline holds {len(tracks)} track(s) for {ev['id']}, not one at its onset")
    track = tracks[0]
    tail = sum(int(round(max(d for d, _ in op.taps) * sr)) for op in track.ops if isinstance(op, Reflections))
    if track.stem == Stem.USER and spec.mic is not None and spec.mic.room is not None:
        try:
            tail += len(rooms.room_rir(spec.mic.room, sr)) - 1   # the user's own voice goes through the room
        except (ValueError, OSError) as err:
            raise RowFailed(f"cannot rebuild the room of its mic scene ({err})") from None
    said_before = [e for e in events if e["kind"] == EventKind.USER_TURN and e["end_s"] <= ev["start_s"]]
    span_end = min(end + tail, crop)
    metadata = {"context_text": " ".join(e["text"] for e in said_before), "current_turn_text": ev["text"],
                "timestamps": [round(ev["start_s"], 6), round(ev["end_s"], 6)],
                SPAN_KEY: [round(start / sr, 6), round(span_end / sr, 6)]}
    return Plan(task=TASKS[ev["kind"]], metadata=metadata, start=start, span_end=span_end, crop=crop)


def _own_speech(s: _Session) -> tuple[np.ndarray, float]:
    """(the row's speech as the mic heard it, before the channel gain; that gain): every noise and the
    echo rebuilt from its scene and subtracted (pipeline.mixer.own_speech). The stored integers are
    divided by 32767, the renderer's scale, not 32768: a 1/32768 gain error is one step at full scale."""
    try:
        speech, _ = mixer.own_speech(s.user / PCM_SCALE, s.assistant, s.mic, s.sr)
    except (ValueError, OSError) as err:
        raise RowFailed(f"cannot rebuild the noise and echo of {s.id}'s mic scene ({err})") from None
    return speech, mixer.mic_scale(s.mic)


def _pcm(x: np.ndarray) -> np.ndarray:
    return np.clip(np.round(x), -32768, 32767).astype(np.int16)


def pair_audio(base: _Session, twin: _Session, plan: Plan) -> tuple[np.ndarray, np.ndarray]:
    """(input, clean_input) as 16-bit PCM, `plan.crop` samples each: the base's mic without the echo,
    and the same with the event's own audio taken out over [plan.start, plan.span_end) only."""
    if twin.sr != base.sr:
        raise RowFailed(f"clean twin {twin.id} is at {twin.sr} Hz, its base {base.id} at {base.sr} Hz")
    crop = plan.crop
    user = base.user[:crop].astype(np.float64)
    if base.mic.echo is not None:   # our assistant leaking back is no part of what a user says
        echo = mixer.echo_component(base.mic.echo, base.assistant, base.sr)[:crop]
        user = user - PCM_SCALE * mixer.mic_scale(base.mic) * echo
    own_b, gain_b = _own_speech(base)
    own_t, gain_t = _own_speech(twin)
    delta = own_b[:crop] - np.pad(own_t[:crop], (0, max(0, crop - len(own_t))))
    # 16-bit rounding of each row, undone by its own gain, plus float error of the rebuilt noise
    tol = 0.5 / PCM_SCALE * (1 / gain_b + 1 / gain_t) * 1.01 + 1e-6
    outside = np.ones(crop, dtype=bool)
    outside[plan.start:plan.span_end] = False
    bad = np.flatnonzero(outside & (np.abs(delta) > tol))
    if len(bad):
        raise RowFailed(f"its clean twin {twin.id} differs from it outside the overlap's audio "
                        f"({plan.start / base.sr:.3f}-{plan.span_end / base.sr:.3f} s), first at {bad[0] / base.sr:.3f} s "
                        f"by {abs(delta[bad[0]]) * gain_b * PCM_SCALE:.1f} LSB: not the same session without it")
    inside = delta[plan.start:plan.span_end]
    if not len(inside) or float(np.max(np.abs(inside))) <= tol:
        raise RowFailed(f"its clean twin {twin.id} does not differ from it inside the overlap's audio")
    clean = user.copy()
    clean[plan.start:plan.span_end] -= PCM_SCALE * gain_b * inside
    return _pcm(user), _pcm(clean)


def _session(row: dict[str, Any], index: int) -> tuple[_Session, TimelineSpec]:
    """The row as a pair needs it, and its timeline description (every position in it is in samples)."""
    channels, sr = session_audio(row)
    meta = json.loads(row["meta"])
    try:
        spec = TimelineSpec.from_meta(meta)
    except ValueError as err:
        raise RowFailed(f"meta timeline is malformed ({err})") from None
    if spec is None or spec.mic is None:
        raise RowFailed("meta has no timeline with a mic scene: the overlap's audio cannot be taken out alone")
    if spec.sample_rate != sr or spec.n_samples != len(channels[USER_CHANNEL]):
        raise RowFailed(f"meta timeline is {spec.n_samples} samples at {spec.sample_rate} Hz, the audio "
                        f"{len(channels[USER_CHANNEL])} at {sr} Hz")
    user = np.round(channels[USER_CHANNEL].astype(np.float64) * 32768.0).astype(np.int64)   # exact: k / 32768
    return _Session(id=safe_name(row["id"]), index=index, duration_s=float(row["duration_s"]), sr=sr, user=user,
                    assistant=channels[ASSISTANT_CHANNEL].astype(np.float64), mic=spec.mic), spec


class FdbWriter:
    """Writes one folder per clean pair, once both rows have been read (the generator writes them
    next to each other); rows still waiting at the end, and held rows whose pair failed, are
    reported by `unmatched`."""

    def __init__(self, stage: Path):
        self.root = stage
        self.index = 0
        self.bases: dict[str, _Held] = {}    # by the twin id it waits for
        self.cleans: dict[str, _Held] = {}   # by the base id it waits for
        self.refused: dict[str, str] = {}    # a base that is no sample, by its twin's id: why
        self.late: list[LateFailure] = []    # held rows whose partner failed the pair
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
        if pair.side == TwinSide.BASE:
            self._add_base(row, index, pair.partner, pair.event)
        else:
            self._add_clean(row, index, pair.partner)

    def _add_base(self, row: dict[str, Any], index: int, twin: str, event: str) -> None:
        try:
            session, spec = _session(row, index)
            plan = plan_sample(row, event, spec)
        except RowFailed as err:
            self._fail_partner(self.cleans.pop(row["id"], None), f"is the clean twin of {row['id']}, which is no "
                                                                  f"sample: {err}")
            self.refused[twin] = str(err)
            raise
        if row.get("frames"):
            units = math.ceil(plan.crop / spec.unit_samples)
            plan.frames = list(row["frames"])[:units]
            plan.metadata["frames"] = {"dir": FRAMES_DIR, "files": frame_names(len(plan.frames)),
                                       "unit_s": float(row["unit_s"])}
        held = _Held(session, plan)
        clean = self.cleans.pop(row["id"], None)
        if clean is None:
            self.bases[twin] = held
        else:
            self._pair(held, clean, current=held)

    def _add_clean(self, row: dict[str, Any], index: int, base_id: str) -> None:
        if row["id"] in self.refused:
            raise RowFailed(f"is the clean twin of {base_id}, which is no sample: {self.refused.pop(row['id'])}")
        session, _ = _session(row, index)
        held = _Held(session)
        base = self.bases.pop(row["id"], None)
        if base is None:
            self.cleans[base_id] = held
        else:
            self._pair(base, held, current=held)

    def _pair(self, base: _Held, clean: _Held, current: _Held) -> None:
        """Write the sample; a pair that fails fails the held row too (as a late failure)."""
        try:
            self._write(base, clean)
        except RowFailed as err:
            twin_error = f"is the clean twin of {base.session.id}, whose sample failed: {err}"
            if current is base:
                self._fail_partner(clean, twin_error)
                raise
            self._fail_partner(base, str(err))
            raise RowFailed(twin_error) from None

    def _fail_partner(self, held: _Held | None, error: str) -> None:
        if held is not None:
            s = held.session
            self.late.append(LateFailure(s.id, s.index, error, s.duration_s))

    def _write(self, base: _Held, clean: _Held) -> None:
        import soundfile as sf

        plan = base.plan
        assert plan is not None
        x, c = pair_audio(base.session, clean.session, plan)
        folder = self.root / plan.task / base.session.id
        folder.mkdir(parents=True)
        for name, pcm in ((INPUT_NAME, x), (CLEAN_NAME, c)):
            sf.write(folder / name, pcm, base.session.sr, subtype="PCM_16", format="WAV")
        write_frames(folder / FRAMES_DIR, plan.frames)
        (folder / METADATA_NAME).write_text(json.dumps(plan.metadata, ensure_ascii=False, indent=2), encoding="utf-8")
        self.samples[plan.task] += 1

    def unmatched(self) -> list[LateFailure]:
        """The rows whose partner never came, or whose pair failed: failed records (nothing of them was written)."""
        out = list(self.late)
        out += [LateFailure(h.session.id, h.session.index, f"its clean twin {twin} is not in the dataset",
                            h.session.duration_s) for twin, h in self.bases.items()]
        out += [LateFailure(h.session.id, h.session.index, f"is a clean twin whose base {base} is not in the dataset",
                            h.session.duration_s) for base, h in self.cleans.items()]
        return sorted(out, key=lambda f: f.index)

    def close(self) -> dict[str, Any]:
        return {"tasks": {t: n for t, n in self.samples.items() if n}, "files": [INPUT_NAME, CLEAN_NAME, METADATA_NAME],
                "channels": 1, "subtype": "PCM_16",
                "metadata_keys": ["context_text", "current_turn_text", "timestamps", SPAN_KEY],
                "one_overlap_per_sample": True, "ends_before_next_user_turn": True, "echo_removed": True}
