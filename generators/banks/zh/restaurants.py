"""Computed slots for the Mandarin restaurant exchanges: estimates, hold times and exact shares."""

from __future__ import annotations

import math
from decimal import ROUND_HALF_UP, Decimal

from ..engine import Rng, Slots
from ..loader import BankData
from .numbers import clock_of, count, minutes_of_day, money, number

_HOLD_MINUTES = 15   # the templates say 十五分钟


def place_of_cuisine(rng: Rng, slots: Slots, data: BankData) -> str:
    """One of the drawn cuisine's restaurants."""
    places = data.tables["cuisines"][str(slots["cuisine"])].places
    return str(places[int(rng.integers(len(places)))])


def restaurant_booking(s: Slots, data: BankData) -> Slots:
    """The booking's time, how long the table is held, the seat for the party, the estimate."""
    c = data.tables["cuisines"][str(s["cuisine"])]
    people = int(s["people"])  # type: ignore[call-overload]
    h, m = s["time"]  # type: ignore[misc]
    t = minutes_of_day(int(h), int(m))
    seat = "包间" if people >= 7 else "靠窗的四人桌" if people <= 4 else "大厅里的大圆桌"
    return {
        "people_w": count(people, "个人"), "time_t": clock_of(t), "hold_t": clock_of(t + _HOLD_MINUTES),
        "seat": seat, "dish": c.dish, "per_w": money(c.price), "total_w": money(c.price * people),
    }


def restaurant_split(s: Slots, data: BankData) -> Slots:
    """Each share to the fen, a check of it, rounding up to whole yuan, and what the payer gets back."""
    total, people = int(s["total"]), int(s["people"])  # type: ignore[call-overload]
    per = (Decimal(total) / people).quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)
    if per * people == total:
        check = f"{money(per)}乘以{number(people)}，正好是{money(total)}"
    else:
        check = f"除不尽，{money(per)}是四舍五入到分的结果"
    if per == per.to_integral_value():
        round_note = "每人正好是整数，不用再凑整了"
    else:
        up = math.ceil(Decimal(total) / people)
        round_note = f"想凑个整的话，每人转{money(up)}，一共多出{money(up * people - total)}"
    return {
        "total_w": money(total), "people_w": count(people, "个人"), "people_n": number(people),
        "per_w": money(per), "check": check, "round_note": round_note,
        "others_w": count(people - 1, "个人"), "back_w": money(per * (people - 1)),
    }


FUNCTIONS = (place_of_cuisine, restaurant_booking, restaurant_split)
