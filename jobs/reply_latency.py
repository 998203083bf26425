"""Replies as fast as people, for a consumer with no unit clock (`export --format moshi --reply-latency`).

On the 1 s unit clock a reply to the user starts no earlier than the window after the user's last
word + eot_s (README "What the unit clock forbids"): p50 0.80 s on `natural`, against ~0.2 s in
human conversation. That wait is the price of the Venus model's decision clock. A model with an
80 ms frame (moshi) trained on that timeline learns it as its own habit and answers slowly.

So an export for such a model may shorten each of those waits to a target drawn per reply from the
row's own seed (the same row gives the same bytes). It does so by *removing* a stretch of silence
from both channels at once, not by moving the assistant channel alone: everything after the cut
(the reply, the user's backchannels placed against its phrase ends, an interruption of it and its
cut, the echo of it in the microphone, the next user turn) keeps its place relative to the reply,
so no relation the generator built is broken and no overlap appears that was not there. The
session gets shorter by what was removed; every word keeps its duration and its audio.

Which waits: an assistant turn whose trigger is the user (an answer, an ack, the reply after an
interruption, whether or not it is itself cut later), measured from the end of the last user word
before it to its first word. Left as they are, each counted in the layout: relays (trigger
backend: their moment is the tool's latency, which the consumer cannot hear), proactive turns
(timer, visual: the cue is not in the audio), follow-ups and repairs the assistant starts on its
own (follow, visual_change: no user turn end to answer). Overlays (backchannels, other-directed
and background speech) are the user side's and are never replies.

Where: the removed stretch holds no word of anyone, no speech event, no assistant audio (the
channel stays below ASSISTANT_SILENCE_DBFS there) and no echo of earlier assistant audio (the
stretch starts after that audio's end + the echo delay). It is placed just before the reply, so
the user's last word keeps its tail; the two edges are joined by an equal-power crossfade of
FADE_MIN_S (the microphone's noise floor continues, no click). A target below one consumer frame
becomes one frame (the human distribution's overlapping starts included: this export never adds
an overlap); a wait already at or under its target, or with no room to cut, is kept (partly
shortened where a word or audio limits the room).
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import yaml
from pydantic import TypeAdapter, ValidationError

from generators.timing.sampling import sample
from schemas.attrs import AssistantTurnAttrs
from schemas.config import Dist, Draw, Range, TimingConfig, load_preset
from schemas.thresholds import ASSISTANT_SILENCE_DBFS, FADE_MIN_S
from schemas.timeline import TimelineSpec
from schemas.trajectory import attrs_of
from schemas.vocab import OVERLAY_KINDS, EventKind, Role, Trigger

# The values of --reply-latency that name a target rather than give one.
CLOCK = "clock"    # keep the unit clock's timeline exactly (no change)
HUMAN = "human"    # the `natural` preset's human floor-transfer offset (timing.user_gap_s)
HUMAN_PRESET = "natural"
_REPLY_STREAM = 0x72706c79      # the trajectory seed's stream for the target draws ("rply")
_SILENT_AMP = 10 ** (ASSISTANT_SILENCE_DBFS / 20)
# events whose span is somebody's voice (a stretch that meets one is not removed)
_SPEECH_KINDS = frozenset({EventKind.USER_TURN, EventKind.ASSISTANT_TURN, EventKind.INTERRUPTION, *OVERLAY_KINDS})


class ReplyLatencyError(ValueError):
    """--reply-latency is not clock, human, [lo, hi] or a timing distribution."""


@dataclass(frozen=True)
class LatencyTarget:
    """What --reply-latency asked for: `draw` None keeps the clock's timeline."""

    name: str
    draw: Range | Dist | None
    floor_s: float          # a draw below this (one consumer frame) becomes this

    def as_json(self) -> dict[str, Any]:
        return {"target": self.name, "floor_s": self.floor_s,
                "draw": None if self.draw is None else self.draw.model_dump(mode="json", exclude_none=True)}


def human_draw() -> Range | Dist:
    """The human turn-offset distribution the repo already models: `natural`'s timing.user_gap_s."""
    return TimingConfig.model_validate(load_preset(HUMAN_PRESET)["timing"]).user_gap_s


def parse_target(text: str, floor_s: float) -> LatencyTarget:
    """`clock`, `human`, `[lo, hi]` or a distribution mapping (the config's timing grammar), in seconds."""
    if text == CLOCK:
        return LatencyTarget(CLOCK, None, floor_s)
    if text == HUMAN:
        return LatencyTarget(HUMAN, human_draw(), floor_s)
    try:
        raw = yaml.safe_load(text)
        draw = TypeAdapter(Draw).validate_python(raw)
    except (yaml.YAMLError, ValidationError) as err:
        first = err.errors()[0]["msg"] if isinstance(err, ValidationError) else str(err).splitlines()[0]
        raise ReplyLatencyError(f"--reply-latency {text!r}: want clock, human, [lo, hi] or a distribution such as "
                                f"{{kind: lognormal, mu: -1.6, sigma: 0.5, hi: 1.5}} (seconds): {first}") from None
    lo, hi = (draw.lo, draw.hi) if isinstance(draw, Range) else draw.support()
    if not np.isfinite(hi) or hi > 10.0 or lo < -10.0:
        raise ReplyLatencyError(f"--reply-latency {text!r}: the draw must lie within [-10, 10] s (give hi)")
    return LatencyTarget(text, draw, floor_s)


@dataclass(frozen=True)
class Cut:
    """`length` samples removed from `start` (samples at `rate`, on the source timeline)."""

    start: int
    length: int
    rate: int


@dataclass
class Reply:
    """One assistant turn and what happened to the wait before it."""

    event_id: str
    trigger: str
    latency_s: float | None     # from the last user word before it to its first word (None: not a reply gap)
    target_s: float | None
    after_s: float | None       # the latency once shortened (== latency_s when kept)
    outcome: str                # shortened | limited | kept:<why>


@dataclass
class Plan:
    cuts: list[Cut] = field(default_factory=list)
    replies: list[Reply] = field(default_factory=list)

    @property
    def removed(self) -> int:
        return sum(c.length for c in self.cuts)


def _voices(row: dict[str, Any]) -> list[tuple[float, float, bool, str]]:
    """(start, end, is the assistant's, event id) of every stretch that is somebody's voice: every word and every
    speech event, an interrupted assistant turn up to the end of its fade."""
    spans = [(float(w["start_s"]), float(w["end_s"]), w["role"] == Role.ASSISTANT, w["event_id"]) for w in row["words"]]
    for e in row["events"]:
        if e["kind"] not in _SPEECH_KINDS:
            continue
        end, mine = float(e["end_s"]), e["kind"] == EventKind.ASSISTANT_TURN
        if mine:
            a = attrs_of(e)
            assert isinstance(a, AssistantTurnAttrs)
            if a.cut_s is not None:
                end = max(end, a.cut_s + (a.fade_s or 0.0))
        spans.append((float(e["start_s"]), end, mine, e["id"]))
    return spans


def _echo_delay(row: dict[str, Any]) -> float:
    spec = TimelineSpec.from_meta(json.loads(row["meta"]) if row.get("meta") else {})
    return spec.mic.echo.delay_s if spec is not None and spec.mic is not None and spec.mic.echo is not None else 0.0


def draw_targets(seed: int, n: int, target: LatencyTarget) -> list[float]:
    """The targets of a row's n replies to the user, in time order: one draw each from the row seed's own
    stream (whether or not the reply can be moved), a draw under the floor raised to it."""
    if target.draw is None:
        return []
    rng = np.random.default_rng([seed, _REPLY_STREAM])
    return [max(sample(rng, target.draw), target.floor_s) for _ in range(n)]


def _trigger(e: dict[str, Any]) -> str:
    return str(attrs_of(e).trigger)  # type: ignore[union-attr]


def plan_cuts(row: dict[str, Any], assistant: np.ndarray, rate: int, target: LatencyTarget) -> Plan:
    """The stretches to remove so each reply to the user starts at its drawn target (see the module doc).

    `assistant` is the assistant channel at `rate`, the samples the export writes.
    """
    plan = Plan()
    if target.draw is None:
        return plan
    turns = sorted((e for e in row["events"] if e["kind"] == EventKind.ASSISTANT_TURN), key=lambda e: e["start_s"])
    targets = iter(draw_targets(int(row["seed"]), sum(_trigger(e) == Trigger.USER for e in turns), target))
    words = sorted(row["words"], key=lambda w: (w["start_s"], w["end_s"]))
    voices = _voices(row)
    echo = _echo_delay(row)
    xfade = round(FADE_MIN_S * rate)
    for e in turns:
        trigger = _trigger(e)
        if trigger != Trigger.USER:
            plan.replies.append(Reply(e["id"], trigger, None, None, None, f"kept:{trigger}"))
            continue
        tau = next(targets)
        own = [w for w in words if w["event_id"] == e["id"]]
        if not own:
            plan.replies.append(Reply(e["id"], trigger, None, tau, None, "kept:no voiced word"))
            continue
        w0 = float(own[0]["start_s"])
        user = [float(w["end_s"]) for w in words if w["role"] == Role.USER and w["start_s"] < w0]
        if not user or max(user) >= w0:
            plan.replies.append(Reply(e["id"], trigger, None, tau, None, "kept:no user word ends before it"))
            continue
        latency = w0 - max(user)
        reply = Reply(e["id"], trigger, latency, tau, latency, "kept:at or under target")
        plan.replies.append(reply)
        want = int(np.floor((latency - tau) * rate))
        if want <= 0:
            continue
        # the room: after every voice that starts before the reply (and the echo of assistant audio)
        free_from = max(end + (echo if mine else 0.0) for s, end, mine, ev in voices if s < w0 and ev != e["id"])
        lo = int(np.ceil(free_from * rate))
        hi = int(np.floor(w0 * rate))
        loud = np.flatnonzero(np.abs(assistant[lo:hi]) > _SILENT_AMP)
        onset = lo + int(loud[0]) if len(loud) else hi     # the reply's audio may start a little before its word
        n = min(want, onset - xfade - lo)
        if n <= 0:
            reply.outcome = "kept:no silent stretch"
            continue
        plan.cuts.append(Cut(onset - xfade - n, n, rate))
        reply.after_s = latency - n / rate
        reply.outcome = "shortened" if n == want else "limited"
    return plan


def apply_cuts(x: np.ndarray, cuts: list[Cut]) -> np.ndarray:
    """`x` (samples x channels) with each cut removed, its edges joined by an equal-power crossfade."""
    if not cuts:
        return x
    xfade = round(FADE_MIN_S * cuts[0].rate)
    ramp = (np.arange(xfade) + 0.5) / xfade
    fade_out = np.cos(ramp * np.pi / 2).astype(x.dtype)[:, None]
    fade_in = np.sin(ramp * np.pi / 2).astype(x.dtype)[:, None]
    parts, pos = [], 0
    for c in sorted(cuts, key=lambda c: c.start):
        a, b = c.start, c.start + c.length
        parts.append(x[pos:a])
        parts.append(x[a:a + xfade] * fade_out + x[b:b + xfade] * fade_in)
        pos = b + xfade
    parts.append(x[pos:])
    return np.concatenate(parts, axis=0)


def map_time(t: float, cuts: list[Cut]) -> float:
    """A source time on the shortened timeline (a time inside a cut goes to the cut's start)."""
    return t - sum(min(max(t * c.rate - c.start, 0), c.length) / c.rate for c in cuts)


def summary(replies: list[Reply], target: LatencyTarget, removed_s: float) -> dict[str, Any]:
    """What the manifest says: the target, every reply's outcome, the latency before and after."""
    def pct(xs: list[float]) -> dict[str, float] | None:
        return {f"p{q}": round(float(np.percentile(xs, q)), 4) for q in (10, 50, 90)} if xs else None

    gaps = [r for r in replies if r.latency_s is not None]
    outcomes: dict[str, int] = {}
    for r in replies:
        outcomes[r.outcome] = outcomes.get(r.outcome, 0) + 1
    return {**target.as_json(), "assistant_turns": len(replies), "outcomes": dict(sorted(outcomes.items())),
            "removed_s": round(removed_s, 4),
            "latency_s": {"n": len(gaps), "before": pct([r.latency_s for r in gaps]),  # type: ignore[misc]
                          "after": pct([r.after_s for r in gaps])}}  # type: ignore[misc]
