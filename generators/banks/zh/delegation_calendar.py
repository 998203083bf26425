"""Functions zh/delegation_calendar.yaml names: the booking's day and time, and reading the calendar's answers.

The calendar takes the harness's weekday names ("Monday", from common.yaml's ``harness_days``) and
24-hour clock times, and answers in English ("Booked 体检 on Monday at 09:00 for 30 minutes.").
An entry's title is the user's own words, stored and echoed as given, so a zh title stays Mandarin
(as a name would) and a calendar clash names it in Mandarin too. The readers take the values
generators/banks/results.py finds in the text and say them the Mandarin way (周一上午九点, 半个小时).
"""

from __future__ import annotations

from ..delegations import Result
from ..engine import Rng, Slots
from ..loader import BankData
from ..results import agenda_free, agenda_items, booking
from .numbers import clock, count, duration, say_time, say_weekday


def booking_time_zh(s: Slots, data: BankData) -> Slots:
    """The day as the harness names it, the time as said and as the harness takes it, the length as said."""
    h, m = s["at"]  # type: ignore[misc]
    return {"day_en": data.tables["harness_days"][s["day"]].harness, "time_t": clock(int(h), int(m)),  # type: ignore[call-overload]
            "clock": f"{int(h):02d}:{int(m):02d}", "mins": duration(int(s["minutes"]))}  # type: ignore[call-overload]


def calendar_day_zh(s: Slots, data: BankData) -> Slots:
    """The day as the harness names it."""
    return {"day_en": data.tables["harness_days"][s["day"]].harness}


def read_booking_zh(rng: Rng, res: Result, s: Slots, data: BankData) -> dict[str, object]:
    """What the calendar says it booked: the title as given, 周一, 上午九点, 四十五分钟."""
    found = booking(res)
    if not found:
        return {}
    out: dict[str, object] = {"b_title": found["title"], "b_day": say_weekday(str(found["day"]))}
    if "clock" in found:
        out["b_time"] = say_time(rng, str(found["clock"]))
    if "minutes" in found:
        out["b_minutes"] = duration(int(found["minutes"]))  # type: ignore[call-overload]
    return out


def read_agenda_zh(rng: Rng, res: Result, s: Slots, data: BankData) -> dict[str, object]:
    """A free day, or the entries listed (上午十点一刻的体检和晚上七点半的聚餐); a partial one gives no count."""
    if agenda_free(res):
        return {"free": True}
    items = agenda_items(res)
    if not items:
        return {}
    spoken = [f"{say_time(rng, c)}的{t}" for t, c in items]
    listing = spoken[0] if len(spoken) == 1 else "、".join(spoken[:-1]) + "和" + spoken[-1]
    if not res.complete:   # more entries may be missing: no count
        return {"some": listing}
    return {"listing": listing, "n_things": count(len(items), "个安排")}


FUNCTIONS = (booking_time_zh, calendar_day_zh, read_booking_zh, read_agenda_zh)
