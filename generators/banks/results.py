"""Reading the harness's result texts into values: what every language's readers start from.

The harness answers in English whatever the dialogue's language (generators/harness/registry.py
writes its texts); a reader in ``generators/banks/<lang>/delegation_<tool>.py`` takes the values
found here and says them in its language. Only the received text is read, never the harness
fields (DESIGN §2 rule 6), and in a partial result only the segments that arrived whole.
"""

from __future__ import annotations

import datetime as dt
import re
from decimal import ROUND_HALF_UP, Decimal

from .delegations import Result, segments, value


# A body temperature's band by the Celsius reading the assistant says (one decimal): the first band, top
# down, whose floor the reading reaches: from 37.5 raised, from 38.0 a fever (100.4 F), from 39.5 a high fever
# (103.1 F); below 37.5 normal. Each language's unit_convert bank words every band (its `body_temps` table).
BODY_TEMP_BANDS: tuple[tuple[Decimal, str], ...] = (
    (Decimal("39.5"), "high_fever"), (Decimal("38.0"), "fever"), (Decimal("37.5"), "raised"))
BODY_TEMP_NORMAL = "normal"


def body_temp_band(celsius: float | Decimal) -> str:
    """The band of a body temperature: "Is 97 Fahrenheit high?" was answered "call a doctor if it doesn't
    come down" at every reading; the remark now follows the value."""
    said = Decimal(str(celsius)).quantize(Decimal("0.1"), ROUND_HALF_UP)
    return next((band for floor, band in BODY_TEMP_BANDS if said >= floor), BODY_TEMP_NORMAL)


def degrees_value(said: str) -> int:
    """A temperature as the harness writes it ("minus 3", "12") as an integer."""
    return -int(said.removeprefix("minus ")) if said.startswith("minus ") else int(said)


def forecast_values(res: Result) -> dict[str, object]:
    """The forecast's parts the text states: ``cond`` (the condition phrase, only if whole), ``low``
    and ``high`` and ``evening`` (as written: "minus 3"), ``rain`` and ``wind`` (ints)."""
    out: dict[str, object] = {}
    for i, (seg, whole) in enumerate(segments(res, ", ")):
        if i == 0:
            if whole:
                out["cond"] = seg
        elif m := re.fullmatch(r"((?:minus )?\d+) to ((?:minus )?\d+) degrees Celsius", seg):
            out["low"], out["high"] = m.group(1), m.group(2)
        elif m := re.fullmatch(r"((?:minus )?\d+) in the evening", seg):
            out["evening"] = m.group(1)
        elif m := re.fullmatch(r"(\d+)% chance of rain", seg):
            out["rain"] = int(m.group(1))
        elif m := re.fullmatch(r"wind (\d+) km/h", seg):
            out["wind"] = int(m.group(1))
    return out


# --------------------------------------------------------------------------- datetime

_WEEKDAY = r"(?:Mon|Tues|Wednes|Thurs|Fri|Satur|Sun)day"


def _last(res: Result, pattern: str) -> str | None:
    m = re.search(pattern, res.text)
    return m.group(1) if m else None


def clock_after(res: Result) -> str | None:
    """The clock time an ``add_minutes`` result ends on ("90 minutes after 16:30 is 18:00" -> "18:00")."""
    return _last(res, r"is (\d\d:\d\d)$")


def day_count(res: Result) -> int | None:
    """The count of a ``days_between`` result ("From 2026-03-05 to 2026-03-12 is 7 days" -> 7)."""
    n = _last(res, r"is (-?\d+) days$")
    return None if n is None else int(n)


def result_date(res: Result) -> tuple[str, dt.date] | None:
    """The weekday and date an ``add_days`` result names ("... is Thursday, April 2, 2026"), as written:
    the weekday name and the date it spells (month names as the harness writes them, ``%B``)."""
    said = _last(res, rf"is ({_WEEKDAY}, \w+ \d+, \d{{4}})$")
    if said is None:
        return None
    weekday, rest = said.split(", ", 1)
    return weekday, dt.datetime.strptime(rest, "%B %d, %Y").date()


def result_weekday(res: Result) -> str | None:
    """The weekday a ``weekday`` result names ("2026-05-01 is a Friday" -> "Friday")."""
    return _last(res, rf"is an? ({_WEEKDAY})$")


# --------------------------------------------------------------------------- calendar


def booking(res: Result) -> dict[str, object]:
    """What a ``book`` result states: ``title`` and ``day`` ("Monday"), and where they arrived ``clock``
    ("09:30") and ``minutes`` (int). Empty when the text does not say what was booked."""
    m = re.match(rf"Booked (.+?) on ({_WEEKDAY})\b", res.text)
    if not m:
        return {}
    out: dict[str, object] = {"title": m.group(1), "day": m.group(2)}
    if at := re.search(r" at (\d\d:\d\d)\b", res.text):
        out["clock"] = at.group(1)
    if mins := re.search(r" for (\d+) minutes", res.text):
        out["minutes"] = int(mins.group(1))
    return out


def agenda_free(res: Result) -> bool:
    """An ``agenda`` result saying the day is empty ("Nothing is booked on Monday")."""
    return re.fullmatch(rf"Nothing is booked on {_WEEKDAY}", res.text) is not None


def agenda_items(res: Result) -> list[tuple[str, str]]:
    """The (title, clock) entries an ``agenda`` result lists, in its order; in a partial result only
    the entries that arrived with their clock time (an entry ends in one, so a cut one does not match)."""
    return [(m.group(1), m.group(2)) for seg, _ in segments(res) if (m := re.fullmatch(r"(.+) at (\d\d:\d\d)", seg))]


def calculation_value(res: Result) -> float | None:
    """The calculator's answer, the number after the final " = " ("(120 plus 15 percent of 120) divided
    by 4 = 34.5"); None when it did not arrive (a partial result is cut before it). A complete result
    gives the number its text was formatted from, unrounded (the text rounds to 4 places), so a
    relay rounds once, from the exact value."""
    return value(res, r"= (-?\d+(?:\.\d+)?)$", "value")


def conversion_value(res: Result) -> float | None:
    """The converted amount, the number between " = " and the unit name ("5 miles = 8.05 kilometers");
    None when it did not arrive."""
    return value(res, r"= (-?\d+(?:\.\d+)?) [a-z ]+$", "value")


# --------------------------------------------------------------------------- lookup


def first_value(res: Result) -> str | None:
    """The whole first segment of a lookup's answer ("capital of peru: Lima" -> "Lima"); None if cut."""
    segs = segments(res)
    return segs[0][0] if segs and segs[0][1] else None


def measure(res: Result) -> tuple[bool, str, str] | None:
    """The first segment of a lookup's answer as a measure: (said "about", the number as written, the unit):
    "about 6,650 kilometers" -> (True, "6,650", "kilometers"). None if it is not one."""
    segs = segments(res)
    m = re.fullmatch(r"(about )?(\d[\d,]*(?:\.\d+)?) ([a-z]+)", segs[0][0]) if segs else None
    return None if m is None else (m.group(1) is not None, m.group(2), m.group(3))
