"""Computed slots for the Mandarin shopping exchanges: discounts, coupons and unit prices, exactly."""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal

import numpy as np

from ..engine import Slots
from ..loader import BankData
from .numbers import count, money, number, percent

_DIGITS = "零一二三四五六七八九"


def discount_words(tenths: str) -> str:
    """A 折 as said: '8' -> 八折, '8.5' -> 八五折, '7.5' -> 七五折."""
    return "".join(_DIGITS[int(c)] for c in tenths if c.isdigit()) + "折"


def _fen(x: Decimal) -> Decimal:
    return x.quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)


def shopping_discount(s: Slots, data: BankData) -> Slots:
    """The price after the 折, what it saves; with a coupon the user has, whether it applies, what is paid."""
    price = Decimal(int(s["price"]))  # type: ignore[call-overload]
    disc = str(s["disc"])
    after = _fen(price * Decimal(disc) / 10)
    if "coupon" not in s:   # the user has no coupon: nothing to apply
        return {"price_w": money(price), "disc_w": discount_words(disc), "after_w": money(after),
                "saved_w": money(price - after), "off_pct": _pct(price, after)}
    thr, cut = (int(v) for v in s["coupon"])  # type: ignore[attr-defined]
    if after >= thr:
        coupon_note = f"折后{money(after)}，够满{number(thr)}了，还能再减{money(cut)}"
        final = after - cut
    else:
        coupon_note = f"折后{money(after)}，还不够满{number(thr)}，差{money(thr - after)}才能用"
        final = after
    return {
        "price_w": money(price), "disc_w": discount_words(disc), "after_w": money(after),
        "saved_w": money(price - after), "thr_w": number(thr), "cut_w": number(cut),
        "coupon_note": coupon_note, "final_w": money(final), "total_saved_w": money(price - final),
        "off_pct": _pct(price, final),
    }


def _pct(price: Decimal, paid: Decimal) -> str:
    """What share of the price is saved, in whole percent (百分之三十)."""
    return percent(int(((price - paid) * 100 / price).quantize(Decimal(1), rounding=ROUND_HALF_UP)))


def shopping_unit_price(s: Slots, data: BankData) -> Slots:
    """Two pack sizes with prices drawn around the product's base price, and which is cheaper per unit."""
    p = data.tables["products"][str(s["product"])]
    r = np.random.default_rng(int(s["seed"]))  # type: ignore[call-overload]
    base = Decimal(p.base)
    price_a = int((base * p.small * Decimal(str(round(r.uniform(0.95, 1.3), 2)))).to_integral_value(ROUND_HALF_UP))
    price_b = int((base * p.big * Decimal(str(round(r.uniform(0.8, 1.15), 2)))).to_integral_value(ROUND_HALF_UP))
    per_a, per_b = _fen(Decimal(price_a) / p.small), _fen(Decimal(price_b) / p.big)
    small_s, big_s = count(p.small, p.pack), count(p.big, p.pack)
    if per_a == per_b:
        cheaper_s, diff_s = "两种单价一样，买哪个都行", f"每{p.unit}都是{money(per_a)}"
    else:
        cheap = big_s if per_b < per_a else small_s
        cheaper_s = f"{cheap}的更划算"
        diff_s = f"{cheap}的每{p.unit}便宜{money(abs(per_a - per_b))}"
    return {
        "small_s": small_s, "big_s": big_s, "price_a_w": money(price_a), "price_b_w": money(price_b),
        "unit": p.unit, "per_a_w": money(per_a), "per_b_w": money(per_b), "cheaper_s": cheaper_s, "diff_s": diff_s,
    }


FUNCTIONS = (shopping_discount, shopping_unit_price)
