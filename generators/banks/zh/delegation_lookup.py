"""Functions zh/delegation_lookup.yaml names: the facts table's keys, and reading its answers in Mandarin.

A zh subset of the lookup tool: only facts whose answer is a number (a height, a length) or a name
a table here translates (a capital city). The harness's keys and answers are English ("capital of
peru: Lima", "height of denali: 6,190 meters"); the readers take the values generators/banks/results.py
finds in the text and say them the Mandarin way (利马, 六千一百九十米), so what is said is what the
result states (DESIGN §2 rule 6): a capital the translation table lacks is not said at all.
"""

from __future__ import annotations

from decimal import Decimal

from ..delegations import Result
from ..engine import Rng, Slots
from ..loader import BankData
from ..results import first_value, measure
from .numbers import decimal, number

_UNITS = {"meters": "米", "kilometers": "公里"}


def lookup_key_zh(s: Slots, data: BankData, table: str, slot: str) -> Slots:
    """The English name the facts table knows the user's ``slot`` by (a row of ``table``)."""
    return {f"{slot}_en": data.tables[table][s[slot]].en}


def country_key_zh(s: Slots, data: BankData) -> Slots:
    return lookup_key_zh(s, data, "lookup_countries", "country")


def mountain_key_zh(s: Slots, data: BankData) -> Slots:
    return lookup_key_zh(s, data, "lookup_mountains", "mountain")


def river_key_zh(s: Slots, data: BankData) -> Slots:
    return lookup_key_zh(s, data, "lookup_rivers", "river")


def read_capital_zh(rng: Rng, res: Result, s: Slots, data: BankData) -> dict[str, object]:
    """The capital the answer names, in Mandarin (``world_cities``); nothing for a name it lacks."""
    city = first_value(res)
    cities = data.tables["world_cities"]
    return {"capital": cities[city].zh} if city in cities.keys() else {}


def read_measure_zh(rng: Rng, res: Result, s: Slots, data: BankData) -> dict[str, object]:
    """A height or length as said: 八千八百四十九米, 大约六千六百五十公里 (``about``: 大约 when the table says so)."""
    found = measure(res)
    if found is None or found[2] not in _UNITS:
        return {}
    about, written, unit = found
    x = Decimal(written.replace(",", ""))
    said = number(int(x)) if x == x.to_integral() else decimal(x, -int(x.as_tuple().exponent))
    return {"amount": said + _UNITS[unit], "about": "大约" if about else ""}


FUNCTIONS = (country_key_zh, mountain_key_zh, river_key_zh, read_capital_zh, read_measure_zh)
