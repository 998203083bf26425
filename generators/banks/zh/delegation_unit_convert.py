"""Functions zh/delegation_unit_convert.yaml names: amounts and unit names said in Mandarin, and reading the result.

The conversion tool takes digits and English unit names ("60", "miles per hour", "kilometers per hour")
and answers in English ("60 miles per hour = 96.56 kilometers per hour"); generators/banks/results.py
finds the value and the reader says it with the unit's Mandarin name (the `units` table of the YAML:
时速九十六点五六公里), so the number said is the one the result states (DESIGN §2 rule 6).
"""

from __future__ import annotations

from decimal import Decimal

from ..delegations import Result
from ..engine import Rng, Slots, pick
from ..loader import BankData
from ..results import body_temp_band, conversion_value
from .numbers import quantity


def said_amount(x: float | Decimal, places: int, unit: str, data: BankData) -> str:
    """An amount of a harness unit as said: 五十英里, 时速六十英里, 三百五十华氏度."""
    row = data.tables["units"][unit]
    return row.pre + quantity(x, places, row.zh)


def conversion_amount_zh(rng: Rng, slots: Slots, data: BankData) -> int:
    """An amount on the grid of the drawn ``conversion`` row (lo to hi in steps of step)."""
    c = slots["conversion"]
    return int(c.lo + c.step * int(rng.integers(0, (c.hi - c.lo) // c.step + 1)))  # type: ignore[attr-defined]


def conversion_words_zh(s: Slots, data: BankData) -> Slots:
    """The harness's unit names for the call, the amount as said and the target unit's Mandarin name."""
    c = s["conversion"]
    return {"src": c.src, "dst": c.dst, "x_s": said_amount(int(s["x"]), 0, c.src, data),  # type: ignore[attr-defined, call-overload]
            "dst_s": data.tables["units"][c.dst].zh}  # type: ignore[attr-defined]


def fahrenheit_words_zh(s: Slots, data: BankData) -> Slots:
    """A Fahrenheit reading as said (一百零一点三华氏度)."""
    return {"x_s": said_amount(Decimal(str(s["x"])), 1, "fahrenheit", data)}


def fever_reading_zh(rng: Rng, slots: Slots, data: BankData) -> str:
    """A thermometer reading of 97.0 to 104.4 Fahrenheit, as the call takes it ("101.3")."""
    return str(Decimal(int(rng.integers(970, 1045))) / 10)


def feel_of(celsius: float) -> str:
    """How an outdoor temperature feels, for a remark after it is said."""
    return ("挺热的，注意防暑" if celsius >= 30 else "挺舒服的" if celsius >= 20 else "有点凉，带件外套"
            if celsius >= 10 else "挺冷的，多穿点")


def read_conversion_zh(rng: Rng, res: Result, s: Slots, data: BankData, decimals: int | None = None,
                       unit: str | None = None, feel: bool = False) -> dict[str, object]:
    """The converted amount in the target ``unit`` (default: the conversion row's), rounded to
    ``decimals`` (default: the row's); with ``feel``, also how that temperature feels."""
    v = conversion_value(res)
    if v is None:
        return {}
    c = s.get("conversion")
    dst = unit if unit is not None else str(c.dst)  # type: ignore[union-attr]
    places = decimals if decimals is not None else int(c.dec)  # type: ignore[union-attr]
    out: dict[str, object] = {"y": said_amount(v, places, dst, data)}
    if feel:
        out["feel"] = feel_of(v)
    return out


def read_body_temp_zh(rng: Rng, res: Result, s: Slots, data: BankData, bands: str) -> dict[str, object]:
    """The reading in 摄氏度 (one decimal) and ``verdict``: what that temperature means, worded by the
    ``bands`` table's row for its band (results.body_temp_band), so 九十七华氏度 is called 正常体温."""
    out = read_conversion_zh(rng, res, s, data, decimals=1, unit="celsius")
    v = conversion_value(res)
    if v is not None:
        out["verdict"] = pick(rng, data.tables[bands][body_temp_band(v)].say)
    return out


FUNCTIONS = (conversion_amount_zh, conversion_words_zh, fahrenheit_words_zh, fever_reading_zh, read_conversion_zh,
             read_body_temp_zh)
