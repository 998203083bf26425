"""Functions delegation_calendar.yaml names: the booking's times, and reading the calendar's answers."""

from __future__ import annotations

from ..delegations import Result
from ..engine import Rng, Slots, number_words, spoken_time
from ..loader import BankData
from ..results import agenda_free, agenda_items, booking
from .delegation import clock, say_time


def booking_time(s: Slots, data: BankData) -> Slots:
    h, m = s["at"]  # type: ignore[misc]
    return {"time_t": spoken_time(h, m, int(s["style"])), "clock": clock(h, m)}  # type: ignore[call-overload]


def read_booking(rng: Rng, res: Result, s: Slots, data: BankData) -> dict[str, object]:
    found = booking(res)
    if not found:
        return {}
    out: dict[str, object] = {"b_title": found["title"], "b_day": found["day"]}
    if "clock" in found:
        out["b_time"] = say_time(rng, str(found["clock"]))
    if "minutes" in found:
        out["b_minutes"] = found["minutes"]
    return out


def read_agenda(rng: Rng, res: Result, s: Slots, data: BankData) -> dict[str, object]:
    if agenda_free(res):
        return {"free": True}
    items = agenda_items(res)
    if not items:
        return {}
    spoken = [f"{t} at {say_time(rng, c)}" for t, c in items]
    listing = spoken[0] if len(spoken) == 1 else ", ".join(spoken[:-1]) + " and " + spoken[-1]
    if not res.complete:   # more entries may be missing: no count
        return {"some": listing}
    return {"listing": listing, "n_w": number_words(len(items)), "things": "thing" if len(items) == 1 else "things"}


FUNCTIONS = (booking_time, read_booking, read_agenda)
