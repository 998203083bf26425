"""How English says the values delegation readers and derive functions produce (shared by delegation_*.py)."""

from __future__ import annotations

import datetime as dt
from decimal import ROUND_HALF_UP, Decimal

from ..engine import Rng, Slots, money, spoken_time
from ..loader import BankData

YEAR = 2026   # the assistant's "this year", for requests that name a date without one


def clock(h: int, m: int) -> str:
    """A clock time as the harness reads and writes it: "07:30"."""
    return f"{h:02d}:{m:02d}"


def say_time(rng: Rng, hhmm: str) -> str:
    """A harness clock time ("18:30") as speech, in one of the five spoken styles."""
    h, m = hhmm.split(":")
    return spoken_time(int(h), int(m), int(rng.integers(5)))


def say_span(rng: Rng, start: str, end: str) -> tuple[str, str]:
    """Two harness clock times that bound a span ("07:00" to "19:00"), as speech, both in one style: a
    speaker who says "eight o'clock" does not go on "and closes at 9 o'clock". Said without a part of
    the day, 07:00 and 19:00 both are "7 o'clock" ("between 7 o'clock and 7 o'clock"): then both say theirs."""
    (ha, ma), (hb, mb) = ((int(x) for x in t.split(":")) for t in (start, end))
    style = int(rng.integers(5))
    a, b = spoken_time(ha, ma, style), spoken_time(hb, mb, style)
    if (ha % 12, ma) == (hb % 12, mb) and (ha, ma) != (hb, mb):
        a, b = spoken_time(ha, ma, 0), spoken_time(hb, mb, 0)
    return a, b


def _round(x: float, decimals: int) -> Decimal:
    """Half up from the value the float stands for: 180.39 / 6 is 30.064999999999998 as a float but
    30.065 exactly, which rounds to 30.07 (so float noise is dropped at 9 places first)."""
    exact = Decimal(str(x)).quantize(Decimal(1).scaleb(-9))
    return exact.quantize(Decimal(1).scaleb(-decimals), rounding=ROUND_HALF_UP)


def say_number(x: float, decimals: int = 2) -> str:
    """A number as the assistant says it: rounded to ``decimals``, no trailing zeros, no separators."""
    d = _round(x, decimals)
    if d == d.to_integral():
        return str(int(d))
    return format(d.normalize(), "f")


def say_money(x: float) -> str:
    return money(float(_round(x, 2)))


def say_date(d: dt.date, data: BankData) -> str:
    """ "March 4" (the year is said separately where it matters)."""
    return f"{data.lists['months'][d.month - 1]} {d.day}"


def draw_date(rng: Rng, year: int = YEAR, months: tuple[int, int] = (1, 12)) -> dt.date:
    return dt.date(year, int(rng.integers(months[0], months[1] + 1)), int(rng.integers(1, 29)))


def capitalised(text: object) -> str:
    s = str(text)
    return s[0].upper() + s[1:]


# --------------------------------------------------------------------------- samples several tools share


def restaurant_place(rng: Rng, slots: Slots, data: BankData) -> str:
    """A restaurant of the cuisines table (every cuisine's places, in table order)."""
    places = [p for c in data.tables["cuisines"] for p in c.places]
    return str(places[int(rng.integers(len(places)))])


def _item(name: str) -> str:
    return name.removeprefix("pair of ")


def product_item(rng: Rng, slots: Slots, data: BankData) -> str:
    """A product of the products table, named as a shopper says it ("trainers", not "pair of trainers")."""
    products = data.tables["products"].rows
    return _item(products[int(rng.integers(len(products)))].name)


def product_price(rng: Rng, slots: Slots, data: BankData) -> Decimal:
    """A shelf price (ending in .99) in the price range of the product ``item``."""
    p = next(r for r in data.tables["products"] if _item(r.name) == slots["item"])
    return Decimal(int(rng.integers(p.low, p.high + 1))) - Decimal("0.01")


FUNCTIONS = (restaurant_place, product_item, product_price)
