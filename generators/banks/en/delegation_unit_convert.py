"""Functions delegation_unit_convert.yaml names: the amount to convert, unit names, and reading the result."""

from __future__ import annotations

from decimal import Decimal

from ..delegations import Result
from ..engine import Rng, Slots, pick
from ..loader import BankData
from ..results import body_temp_band, conversion_value
from .delegation import capitalised, say_number


def conversion_amount(rng: Rng, slots: Slots, data: BankData) -> int:
    """An amount on the grid of the drawn ``conversion`` row (lo to hi in steps of step)."""
    c = slots["conversion"]
    return int(c.lo + c.step * int(rng.integers(0, (c.hi - c.lo) // c.step + 1)))  # type: ignore[attr-defined]


def conversion_units(s: Slots, data: BankData) -> Slots:
    """The harness unit names of the conversion, and how the assistant says them."""
    c = s["conversion"]
    names = data.tables["unit_names"]
    say = {u: names[u].say if u in names.keys() else u for u in (c.src, c.dst)}  # type: ignore[attr-defined]
    return {"src": c.src, "dst": c.dst, "dec": c.dec, "src_s": say[c.src], "dst_s": say[c.dst]}  # type: ignore[attr-defined]


def fever_reading(rng: Rng, slots: Slots, data: BankData) -> str:
    """A thermometer reading of 97.0 to 104.4 Fahrenheit."""
    return str(Decimal(int(rng.integers(970, 1045))) / 10)


def fever_who(s: Slots, data: BankData) -> Slots:
    return {"who_c": capitalised(s["who"])}


def read_conversion(rng: Rng, res: Result, s: Slots, data: BankData, decimals: int | None = None) -> dict[str, object]:
    """The converted value, rounded to ``decimals`` (default: the conversion row's own)."""
    v = conversion_value(res)
    if v is None:
        return {}
    return {"y": say_number(v, int(s["conversion"].dec) if decimals is None else decimals)}  # type: ignore[attr-defined]


def read_body_temp(rng: Rng, res: Result, s: Slots, data: BankData, bands: str) -> dict[str, object]:
    """The reading in Celsius (one decimal) and ``verdict``: what that temperature means, worded by the
    ``bands`` table's row for its band (results.body_temp_band), so 97 Fahrenheit is called normal."""
    out = read_conversion(rng, res, s, data, decimals=1)
    v = conversion_value(res)
    if v is not None:
        out["verdict"] = pick(rng, data.tables[bands][body_temp_band(v)].say)
    return out


FUNCTIONS = (conversion_amount, conversion_units, fever_reading, fever_who, read_conversion, read_body_temp)
