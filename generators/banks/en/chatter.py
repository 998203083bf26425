"""Computed slots for chatter.yaml."""

from __future__ import annotations

from ..engine import Slots, number_words
from ..loader import BankData


def timer_words(s: Slots, data: BankData) -> Slots:
    """The timer's seconds in words, and the drawn label row split into its fields."""
    row = s["label"]
    return {"seconds_w": number_words(int(s["seconds"])), "label": row.label, "action": row.action}  # type: ignore[arg-type, attr-defined]


FUNCTIONS = (timer_words,)
