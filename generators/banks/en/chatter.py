"""Computed slots for chatter.yaml."""

from __future__ import annotations

from ..engine import Rng, Slots, number_words
from ..loader import BankData


def timer_seconds(rng: Rng, slots: Slots, data: BankData) -> int:
    """A timer length within the range its task plausibly takes (the drawn label row's ``seconds``)."""
    lo, hi = slots["label"].seconds  # type: ignore[attr-defined]
    return int(rng.integers(lo, hi + 1))


def timer_words(s: Slots, data: BankData) -> Slots:
    """The timer's seconds in words, and the drawn label row split into its fields."""
    row = s["label"]
    return {"seconds_w": number_words(int(s["seconds"])), "label": row.label, "action": row.action}  # type: ignore[arg-type, attr-defined]


def smalltalk_moods(s: Slots, data: BankData) -> Slots:
    """The drawn low and good mood rows split into their fields (a feeling with the reason that fits it)."""
    low, high = s["low"], s["high"]
    return {"low_feeling": low.feeling, "low_reason": low.reason,  # type: ignore[attr-defined]
            "high_feeling": high.feeling, "high_reason": high.reason}  # type: ignore[attr-defined]


FUNCTIONS = (timer_seconds, timer_words, smalltalk_moods)
