"""Functions zh/delegation_calculator.yaml names: the amounts said the Mandarin way, and reading the answer.

The calculator takes digits and English operator words ("(386 plus 10 percent of 386) divided by 4")
and answers in English ("... = 106.15"); generators/banks/results.py finds the value and the reader
says it in Mandarin (zh/numbers.py: 一百零六块一毛五分), so the number said is the one the result
states (DESIGN §2 rule 6). Money is yuan (块); the user's amounts are spelt here for the templates.
"""

from __future__ import annotations

from decimal import Decimal

from ..delegations import Result
from ..engine import Rng, Slots
from ..loader import BankData
from ..results import calculation_value
from .numbers import count, money, number, percent, quantity
from .shopping import discount_words


def yuan(x: float | Decimal) -> str:
    """An amount of yuan to the fen, rounded half up from its decimal text (as the English readers round)."""
    return money(Decimal(str(x)))


def split_words_zh(s: Slots, data: BankData) -> Slots:
    """A bill shared between ``n`` people, with the service charge when the spec has one."""
    out: Slots = {"bill_s": yuan(int(s["bill"])), "n_s": count(int(s["n"]), "个人")}  # type: ignore[call-overload]
    if "pct" in s:
        out["pct_s"] = percent(int(s["pct"]))  # type: ignore[call-overload]
    return out


def savings_words_zh(s: Slots, data: BankData) -> Slots:
    return {"amount_s": yuan(int(s["amount"])), "months_s": count(int(s["months"]), "个月")}  # type: ignore[call-overload]


def discount_words_zh(s: Slots, data: BankData) -> Slots:
    """The price and the 折 as said (八五折 is 85% of the price: the call multiplies by 8.5 and divides by 10)."""
    return {"price_s": yuan(int(s["price"])), "zhe_s": discount_words(str(s["zhe"]))}  # type: ignore[call-overload]


def installment_words_zh(s: Slots, data: BankData) -> Slots:
    return {"price_s": yuan(int(s["price"])), "n_s": count(int(s["n"]), "期")}  # type: ignore[call-overload]


def grocery_prices_zh(rng: Rng, slots: Slots, data: BankData) -> tuple[tuple[str, Decimal], ...]:
    """Three or four different things from the market, each at a price of its range (to the 毛)."""
    rows = data.tables["market_items"].rows
    picked = [rows[int(i)] for i in rng.choice(len(rows), size=int(rng.integers(3, 5)), replace=False)]
    return tuple((str(r.name), Decimal(int(rng.integers(r.lo, r.hi + 1))) / 10) for r in picked)


def grocery_listing_zh(s: Slots, data: BankData) -> Slots:
    """排骨三十八块五毛、青菜六块和鸡蛋十二块八毛; the call adds the prices as digits."""
    items = s["prices"]
    assert isinstance(items, tuple)
    said = [f"{name}{yuan(price)}" for name, price in items]
    return {"listing": "、".join(said[:-1]) + "，还有" + said[-1], "n_s": count(len(items), "样"),
            "expression": "加".join(str(price) for _, price in items)}   # 38.5加6加12.8: the request is Mandarin


def recipe_words_zh(s: Slots, data: BankData) -> Slots:
    return {"grams_s": quantity(int(s["grams"]), 0, "克"), "serves_s": count(int(s["serves"]), "个人"),  # type: ignore[call-overload]
            "people_s": count(int(s["people"]), "个人")}  # type: ignore[call-overload]


def bmi_words_zh(s: Slots, data: BankData) -> Slots:
    """Height in centimetres as said, and in metres as the call takes it (172 -> "1.72")."""
    cm = int(s["cm"])  # type: ignore[call-overload]
    return {"kg_s": quantity(int(s["kg"]), 0, "公斤"), "cm_s": number(cm) + "厘米",  # type: ignore[call-overload]
            "m": str(Decimal(cm) / 100)}


def read_calculation_zh(rng: Rng, res: Result, s: Slots, data: BankData, fact: str, say: str,
                        decimals: int = 2, unit: str = "") -> dict[str, object]:
    """The calculator's value as ``fact``: ``money`` (yuan to the fen) or a ``number`` rounded to
    ``decimals`` with its ``unit``; nothing when the value did not arrive."""
    v = calculation_value(res)
    if v is None:
        return {}
    return {fact: yuan(v) if say == "money" else quantity(v, decimals, unit)}


FUNCTIONS = (split_words_zh, savings_words_zh, discount_words_zh, installment_words_zh, grocery_prices_zh,
             grocery_listing_zh, recipe_words_zh, bmi_words_zh, read_calculation_zh)
