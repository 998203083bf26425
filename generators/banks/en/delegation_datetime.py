"""Functions delegation_datetime.yaml names: dates the user gives, their spoken forms, and reading the result."""

from __future__ import annotations

import datetime as dt

from ..delegations import Result
from ..engine import Rng, Slots, number_words, pick, spoken_time
from ..loader import BankData
from ..results import clock_after, day_count, result_date, result_weekday
from .delegation import YEAR, capitalised, clock, draw_date, say_date, say_time


def roast_times(s: Slots, data: BankData) -> Slots:
    h, m = s["start"]  # type: ignore[misc]
    return {"start_t": spoken_time(h, m, int(s["style"])), "start_clock": clock(h, m)}  # type: ignore[call-overload]


def read_clock_time(rng: Rng, res: Result, s: Slots, data: BankData) -> dict[str, object]:
    t = clock_after(res)
    return {} if t is None else {"done_t": say_time(rng, t)}


def trip_start(rng: Rng, slots: Slots, data: BankData) -> dt.date:
    """A first night between January and November of this year."""
    return draw_date(rng, YEAR, (1, 11))


def trip_end(rng: Rng, slots: Slots, data: BankData) -> dt.date:
    """The day of leaving: 2 to 24 days after ``start``."""
    return slots["start"] + dt.timedelta(days=int(rng.integers(2, 25)))  # type: ignore[operator]


def trip_dates(s: Slots, data: BankData) -> Slots:
    start, end = s["start"], s["end"]
    assert isinstance(start, dt.date) and isinstance(end, dt.date)
    return {"start_s": say_date(start, data), "end_s": say_date(end, data),
            "start_iso": start.isoformat(), "end_iso": end.isoformat()}


def read_nights(rng: Rng, res: Result, s: Slots, data: BankData) -> dict[str, object]:
    n = day_count(res)
    return {} if n is None else {"nights": n, "nights_w": number_words(n)}


def date_this_year(rng: Rng, slots: Slots, data: BankData) -> dt.date:
    return draw_date(rng)


def start_date(s: Slots, data: BankData) -> Slots:
    start = s["start"]
    assert isinstance(start, dt.date)
    return {"start_s": say_date(start, data), "start_iso": start.isoformat()}


def read_date(rng: Rng, res: Result, s: Slots, data: BankData) -> dict[str, object]:
    found = result_date(res)
    if found is None:
        return {}
    weekday, d = found
    return {"weekday": weekday, "date_s": f"{d:%B} {d.day}"}   # as the result spells it: "April 2"


def date_this_or_next_year(rng: Rng, slots: Slots, data: BankData) -> dt.date:
    return draw_date(rng, int(pick(rng, (YEAR, YEAR + 1))), (1, 12))


def date_same_year(rng: Rng, slots: Slots, data: BankData) -> dt.date:
    """Another date in the year of ``date``."""
    return draw_date(rng, slots["date"].year)  # type: ignore[attr-defined]


def weekday_date(s: Slots, data: BankData) -> Slots:
    d = s["date"]
    assert isinstance(d, dt.date)
    what = str(s["what"])
    # the assistant says the user's "my recital" as "your recital" ("Okay, my recital is on a Wednesday" copied it)
    what_you = "your " + what.removeprefix("my ") if what.startswith("my ") else what
    return {"date_s": say_date(d, data), "year": d.year, "date_iso": d.isoformat(), "what_c": capitalised(what),
            "what_you": what_you}


def read_weekday(rng: Rng, res: Result, s: Slots, data: BankData) -> dict[str, object]:
    w = result_weekday(res)
    return {} if w is None else {"weekday": w}


FUNCTIONS = (roast_times, read_clock_time, trip_start, trip_end, trip_dates, read_nights, date_this_year, start_date,
             read_date, date_this_or_next_year, date_same_year, weekday_date, read_weekday)
