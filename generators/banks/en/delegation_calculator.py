"""Functions delegation_calculator.yaml names: spoken forms of the amounts, and reading the calculator's answer."""

from __future__ import annotations

from decimal import Decimal

from ..delegations import Result
from ..engine import Rng, Slots, money, number_words
from ..loader import BankData
from ..results import calculation_value
from .delegation import say_money, say_number


def grocery_prices(rng: Rng, slots: Slots, data: BankData) -> tuple[Decimal, ...]:
    """Three or four prices of 0.99 to 24.99."""
    n = int(rng.integers(3, 5))
    return tuple(Decimal(int(rng.integers(99, 2500))) / 100 for _ in range(n))


def bill_words(s: Slots, data: BankData) -> Slots:
    out: Slots = {"bill_s": money(float(s["bill"]))}  # type: ignore[arg-type]
    if "n" in s:
        out["n_w"] = number_words(int(s["n"]))  # type: ignore[call-overload]
    return out


def grocery_listing(s: Slots, data: BankData) -> Slots:
    prices = s["prices"]
    assert isinstance(prices, tuple)
    listing = ", ".join(str(p) for p in prices[:-1]) + f" and {prices[-1]}"
    return {"listing": listing, "n_w": number_words(len(prices)), "expression": " plus ".join(str(p) for p in prices)}


def discount_price(s: Slots, data: BankData) -> Slots:
    return {"price_s": money(float(s["price"]))}  # type: ignore[arg-type]


def read_calculation(rng: Rng, res: Result, s: Slots, data: BankData, fact: str, say: str,
                     decimals: int = 2) -> dict[str, object]:
    """The calculator's value as ``fact``, said as ``money`` or as a ``number`` rounded to ``decimals``."""
    v = calculation_value(res)
    if v is None:
        return {}
    return {fact: say_money(v) if say == "money" else say_number(v, decimals)}


FUNCTIONS = (grocery_prices, bill_words, grocery_listing, discount_price, read_calculation)
