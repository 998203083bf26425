"""Computed slots for chatter.yaml: every number said in words (zh/numbers.py)."""

from __future__ import annotations

from ..engine import Rng, Slots
from ..loader import BankData
from .numbers import count, degrees, number


def timer_seconds(rng: Rng, slots: Slots, data: BankData) -> int:
    """A timer length within the range its task plausibly takes (the drawn label row's ``seconds``)."""
    lo, hi = slots["label"].seconds  # type: ignore[attr-defined]
    return int(rng.integers(lo, hi + 1))


def timer_words(s: Slots, data: BankData) -> Slots:
    """The timer's length in words (十五秒) and the drawn label row split into its fields."""
    row = s["label"]
    return {"secs": number(int(s["seconds"])) + "秒", "label": row.label, "action": row.action}  # type: ignore[arg-type, attr-defined]


def other_words(s: Slots, data: BankData) -> Slots:
    """The drawn numbers of other-directed and background lines, said: 十分钟, 第十二页, 零下三度."""
    n = int(s["n"])  # type: ignore[arg-type]
    return {"minutes_w": number(n) + "分钟", "page_w": number(n), "gate_w": number(n),
            "temp_w": degrees(int(s["temp"]))}  # type: ignore[arg-type]


def smalltalk_words(s: Slots, data: BankData) -> Slots:
    """The low and good mood rows' fields, and the drawn day count with its measure word (三天)."""
    low, high = s["low"], s["high"]
    return {"low_feeling": low.feeling, "low_reason": low.reason, "low_comfort": low.comfort,  # type: ignore[attr-defined]
            "high_feeling": high.feeling, "high_reason": high.reason, "high_comfort": high.comfort,  # type: ignore[attr-defined]
            "days_w": count(int(s["n"]), "天")}  # type: ignore[arg-type]


FUNCTIONS = (timer_seconds, timer_words, other_words, smalltalk_words)
