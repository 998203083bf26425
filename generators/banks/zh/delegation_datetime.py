"""Functions zh/delegation_datetime.yaml names: the dates and times the user gives, and reading the date calculator.

The harness takes ISO dates and 24-hour clock times ("2026-03-05", "16:30") and answers in English
("30 days after 2026-03-03 is Thursday, April 2, 2026"); the readers take the values
generators/banks/results.py finds in that text and say them the Mandarin way (四月二号，星期四), so
every number said is one the result states (DESIGN §2 rule 6). Dates are said with numbers.py's
numerals: 三月五号 (号, the spoken form, not the written 日), years digit by digit (二零二六年).
"""

from __future__ import annotations

import datetime as dt

from ..delegations import Result
from ..engine import Rng, Slots, pick
from ..en.delegation import YEAR   # the assistant's "this year", one value for every language
from ..loader import BankData
from ..results import clock_after, day_count, result_date, result_weekday
from .numbers import clock, count, duration, number, say_weekday


def say_date(d: dt.date) -> str:
    """A date as said, without its year: 三月五号, 十二月三十一号."""
    return f"{number(d.month)}月{number(d.day)}号"


def say_year(year: int) -> str:
    """A year read digit by digit, as Mandarin says years: 二零二六年."""
    return "".join(number(int(c)) for c in str(year)) + "年"


def say_weekday_full(day: str) -> str:
    """A harness weekday ("Thursday") as the answer to 星期几: 星期四, 星期日."""
    return "星期" + say_weekday(day).removeprefix("周")


def hhmm(h: int, m: int) -> str:
    """A clock time as the harness reads it: "07:30"."""
    return f"{h:02d}:{m:02d}"


def draw_date(rng: Rng, year: int = YEAR, months: tuple[int, int] = (1, 12)) -> dt.date:
    """A day 1-28 of a month in ``months`` (so every month has it)."""
    return dt.date(year, int(rng.integers(months[0], months[1] + 1)), int(rng.integers(1, 29)))


# --------------------------------------------------------------------------- clock times


def clock_times_zh(s: Slots, data: BankData) -> Slots:
    """The start time as said and as the harness takes it, and the minutes as a length of time."""
    h, m = s["start"]  # type: ignore[misc]
    return {"start_t": clock(int(h), int(m)), "start_clock": hhmm(int(h), int(m)),  # type: ignore[call-overload]
            "mins": duration(int(s["minutes"]))}  # type: ignore[call-overload]


def cook_times_zh(s: Slots, data: BankData) -> Slots:
    """:func:`clock_times_zh`, and how the dish goes in, cooks and comes out (放进烤箱 / 烤 / 出炉)."""
    row = data.tables["timed_dishes"][s["dish"]]
    return {**clock_times_zh(s, data), "put": row.put, "how": row.how, "done": row.done}


def read_clock_time_zh(rng: Rng, res: Result, s: Slots, data: BankData) -> dict[str, object]:
    """The clock time the result ends on, said with its part of the day: 晚上六点零五分."""
    t = clock_after(res)
    if t is None:
        return {}
    h, m = t.split(":")
    return {"done_t": clock(int(h), int(m))}


# --------------------------------------------------------------------------- trips


def trip_start_zh(rng: Rng, slots: Slots, data: BankData) -> dt.date:
    """A first night between January and November of this year."""
    return draw_date(rng, YEAR, (1, 11))


def trip_end_zh(rng: Rng, slots: Slots, data: BankData) -> dt.date:
    """The day of leaving: 2 to 24 days after ``start``."""
    return slots["start"] + dt.timedelta(days=int(rng.integers(2, 25)))  # type: ignore[operator]


def trip_dates_zh(s: Slots, data: BankData) -> Slots:
    start, end = s["start"], s["end"]
    assert isinstance(start, dt.date) and isinstance(end, dt.date)
    return {"start_s": say_date(start), "end_s": say_date(end), "start_iso": start.isoformat(), "end_iso": end.isoformat()}


def read_nights_zh(rng: Rng, res: Result, s: Slots, data: BankData) -> dict[str, object]:
    """The day count of the result as nights: 七晚 / 七个晚上."""
    n = day_count(res)
    return {} if n is None else {"nights": count(n, "晚"), "nights_n": count(n, "个晚上")}


# --------------------------------------------------------------------------- a date plus some days


def date_this_year_zh(rng: Rng, slots: Slots, data: BankData) -> dt.date:
    return draw_date(rng)


def start_date_zh(s: Slots, data: BankData) -> Slots:
    """The start date as said and as the harness takes it, and the days as a count: 三十天."""
    start = s["start"]
    assert isinstance(start, dt.date)
    return {"start_s": say_date(start), "start_iso": start.isoformat(), "days_t": count(int(s["days"]), "天")}  # type: ignore[call-overload]


def read_date_zh(rng: Rng, res: Result, s: Slots, data: BankData) -> dict[str, object]:
    """The date and weekday the result names: 四月二号, 星期四 (the year is the user's, not said)."""
    found = result_date(res)
    if found is None:
        return {}
    weekday, d = found
    return {"weekday": say_weekday_full(weekday), "date_s": say_date(d)}


# --------------------------------------------------------------------------- the weekday of a date


def date_this_or_next_year_zh(rng: Rng, slots: Slots, data: BankData) -> dt.date:
    return draw_date(rng, int(pick(rng, (YEAR, YEAR + 1))), (1, 12))


def date_same_year_zh(rng: Rng, slots: Slots, data: BankData) -> dt.date:
    """Another date in the year of ``date``."""
    return draw_date(rng, slots["date"].year)  # type: ignore[attr-defined]


def weekday_date_zh(s: Slots, data: BankData) -> Slots:
    d = s["date"]
    assert isinstance(d, dt.date)
    return {"date_s": say_date(d), "year_t": say_year(d.year), "date_iso": d.isoformat()}


def read_weekday_zh(rng: Rng, res: Result, s: Slots, data: BankData) -> dict[str, object]:
    w = result_weekday(res)
    return {} if w is None else {"weekday": say_weekday_full(w)}


FUNCTIONS = (clock_times_zh, cook_times_zh, read_clock_time_zh, trip_start_zh, trip_end_zh, trip_dates_zh, read_nights_zh,
             date_this_year_zh, start_date_zh, read_date_zh, date_this_or_next_year_zh, date_same_year_zh,
             weekday_date_zh, read_weekday_zh)
