"""Functions delegation_calendar.yaml names: the booking's times, and reading the calendar's answers."""

from __future__ import annotations

import re

from ..delegations import Result, segments
from ..engine import Rng, Slots, number_words, spoken_time
from ..loader import BankData
from .delegation import clock, say_time


def booking_time(s: Slots, data: BankData) -> Slots:
    h, m = s["at"]  # type: ignore[misc]
    return {"time_t": spoken_time(h, m, int(s["style"])), "clock": clock(h, m)}  # type: ignore[call-overload]


def read_booking(rng: Rng, res: Result, s: Slots, data: BankData) -> dict[str, object]:
    m = re.match(r"Booked (.+?) on (\w+day)\b", res.text)
    if not m:
        return {}
    out: dict[str, object] = {"b_title": m.group(1), "b_day": m.group(2)}
    if at := re.search(r" at (\d\d:\d\d)\b", res.text):
        out["b_time"] = say_time(rng, at.group(1))
    if mins := re.search(r" for (\d+) minutes", res.text):
        out["b_minutes"] = int(mins.group(1))
    return out


def read_agenda(rng: Rng, res: Result, s: Slots, data: BankData) -> dict[str, object]:
    if re.fullmatch(r"Nothing is booked on \w+day", res.text):
        return {"free": True}
    items = [m.groups() for seg, _ in segments(res) if (m := re.fullmatch(r"(.+) at (\d\d:\d\d)", seg))]
    if not items:
        return {}
    spoken = [f"{t} at {say_time(rng, c)}" for t, c in items]
    listing = spoken[0] if len(spoken) == 1 else ", ".join(spoken[:-1]) + " and " + spoken[-1]
    if not res.complete:   # more entries may be missing: no count
        return {"some": listing}
    return {"listing": listing, "n_w": number_words(len(items)), "things": "thing" if len(items) == 1 else "things"}


FUNCTIONS = (booking_time, read_booking, read_agenda)
