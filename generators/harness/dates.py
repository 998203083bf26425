"""Date and time arithmetic on ISO dates and 24-hour clock times."""
from __future__ import annotations

import datetime as dt

WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")

# The day names the tools understand (the weather service forecasts each), as (bare form, "on"
# form) so templates can say "for Saturday" and "on Saturday" / "tomorrow". Text banks draw their
# days from here (generators/banks/en/common.yaml and the delegation bank), so a user only ever asks about a day the harness knows.
DAYS: tuple[tuple[str, str], ...] = tuple((d, f"on {d}") for d in WEEKDAYS) + (
    ("tomorrow", "tomorrow"),
    ("the day after tomorrow", "the day after tomorrow"),
    ("next Monday", "next Monday"),
    ("next Friday", "next Friday"),
    ("this Saturday", "this Saturday"),
    ("this Sunday", "this Sunday"),
)


class DateError(ValueError):
    pass


def parse_date(s: str) -> dt.date:
    try:
        return dt.date.fromisoformat(s.strip())
    except ValueError:
        raise DateError(f"not an ISO date: {s!r}") from None


def add_days(date: str, days: int) -> dt.date:
    if abs(days) > 36_500:
        raise DateError("that is more than a hundred years away")
    return parse_date(date) + dt.timedelta(days=days)


def days_between(a: str, b: str) -> int:
    return (parse_date(b) - parse_date(a)).days


def weekday(date: str) -> str:
    return parse_date(date).strftime("%A")


def add_minutes(clock: str, minutes: int) -> str:
    """'17:45' + 50 -> '18:35' (wraps past midnight)."""
    try:
        h, m = (int(x) for x in clock.strip().split(":"))
    except ValueError:
        raise DateError(f"not a clock time: {clock!r}") from None
    if not (0 <= h < 24 and 0 <= m < 60):
        raise DateError(f"not a clock time: {clock!r}")
    total = (h * 60 + m + minutes) % (24 * 60)
    return f"{total // 60:02d}:{total % 60:02d}"


def spoken_date(d: dt.date) -> str:
    return f"{d.strftime('%A')}, {d.strftime('%B')} {d.day}, {d.year}"
