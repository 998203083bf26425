"""The closed-loop turn-offset controller of `pipeline/compose._place_user`.

NeMo's simulator keeps realised silence and overlap on target the same way: each session draws
targets for gap, overlap and pause seconds per minute; before each user turn composition measures
them on the audio placed so far (dGSLM definitions, generators/intervals.py) and pulls the drawn
assistant->user offset (floor-transfer offset: the user's start minus the assistant's end,
negative when they overlap) and the drawn hesitation length toward the values that cancel the
running deficits. The unit clock fixes every user->assistant offset at `eot_s` plus the wait for
the next window or more, so the loop balances it on the user's side. Pure functions, no draws.
"""
from __future__ import annotations

from dataclasses import dataclass

from schemas.thresholds import DETECT_MIN_S   # the shortest detect_s DESIGN §2 rule 3 allows
from schemas.vocab import CONTROL_ATTR_PREFIX
from schemas.windows import last_window_of, window_start


def max_start_overlap(asst_end: int, unit: int, sample_rate: int) -> float:
    """How long before the assistant's natural end (samples) the user may start, in seconds.

    The earliest window the assistant could act on a user onset t is floor((t + DETECT_MIN_S)/u) + 1
    (rule 3 with the shortest detect_s, 0.3 s). If that window starts at or after the turn's end, the
    turn ends exactly as planned whatever the assistant heard, so its output is unchanged: t may
    lie down to DETECT_MIN_S before the start of the window holding the end (0.3 s to u + 0.3 s).
    """
    last_window_start = window_start(last_window_of(asst_end, unit), unit)
    return max(0.0, (asst_end - last_window_start) / sample_rate + DETECT_MIN_S - 1e-3)


@dataclass(frozen=True)
class ControlSpec:
    """A session's closed-loop timing targets, carried by its user turns (`ScriptTurn.attrs`).

    Targets are seconds per minute of dialogue, as `duplexsynth stats` measures them: gap (silence
    at speaker changes), overlap, pause (silence inside one speaker's talk). `gain` in [0, 1]
    blends each drawn value with the value that would cancel the running deficit.
    """

    gap_pm: float
    overlap_pm: float
    pause_pm: float
    gain: float
    gap_lo: float
    gap_hi: float
    pause_lo: float
    pause_hi: float

    FIELDS = ("gap_pm", "overlap_pm", "pause_pm", "gain", "gap_lo", "gap_hi", "pause_lo", "pause_hi")

    def to_attrs(self) -> dict[str, str]:
        return {f"{CONTROL_ATTR_PREFIX}{k}": repr(float(getattr(self, k))) for k in self.FIELDS}

    @classmethod
    def from_attrs(cls, attrs: dict[str, str]) -> "ControlSpec | None":
        if f"{CONTROL_ATTR_PREFIX}gain" not in attrs:
            return None
        return cls(**{k: float(attrs[f"{CONTROL_ATTR_PREFIX}{k}"]) for k in cls.FIELDS})


def controlled_offset(drawn: float, realised: dict[str, float], spec: ControlSpec, max_overlap: float) -> float:
    """The assistant->user offset to use (< 0: the user starts before the assistant has finished).

    `realised`: minutes, gap_s, overlap_s of the session so far (dGSLM, from the placed audio).
    The ideal offset is the one that leaves the smallest sum of squared relative deficits
    (deficit / target) of gap and overlap: a gap as long as the gap deficit, or an overlapping
    start as long as the overlap deficit (at most `max_overlap`), or 0 when neither lags.
    The result blends the drawn offset with the ideal by `gain`, within the gap distribution's
    support and above -max_overlap.
    """
    m = realised["minutes"]
    d_gap = spec.gap_pm * m - realised["gap_s"]
    d_ov = spec.overlap_pm * m - realised["overlap_s"]
    lo = max(spec.gap_lo, -max_overlap)

    def cost(g: float) -> float:
        return (((d_gap - max(g, 0.0)) / max(spec.gap_pm, 1e-9)) ** 2
                + ((d_ov - max(-g, 0.0)) / max(spec.overlap_pm, 1e-9)) ** 2)

    options = [0.0, min(max(d_gap, 0.0), spec.gap_hi), -min(max(d_ov, 0.0), -lo)]
    ideal = min(options, key=cost)
    g = (1.0 - spec.gain) * drawn + spec.gain * ideal
    return float(round(min(max(g, lo), spec.gap_hi), 4))


def controlled_pause(drawn: float, realised: dict[str, float], turn_minutes: float, spec: ControlSpec) -> float:
    """A hesitation pause's length: the drawn one pulled toward what keeps pause seconds per minute on target.

    `turn_minutes`: the voiced length of the turn it sits in, which the session is about to gain.
    """
    m = realised["minutes"] + turn_minutes
    ideal = min(max(spec.pause_pm * m - realised["pause_s"], spec.pause_lo), spec.pause_hi)
    g = (1.0 - spec.gain) * drawn + spec.gain * ideal
    return float(round(min(max(g, spec.pause_lo), spec.pause_hi), 4))
