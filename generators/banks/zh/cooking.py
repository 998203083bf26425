"""Computed slots for the Mandarin cooking exchanges: quantities scaled, times worked back, counts."""

from __future__ import annotations

import math
from decimal import Decimal

from ..engine import Slots
from ..loader import BankData
from .numbers import clock_of, count, decimal, duration, jin, minutes_of_day, number

_PREP_MINUTES = 15        # washing and cutting before the cooking starts (the templates say 十五分钟)
_DUMPLINGS_PER_POT = 30   # the templates say 三十个左右
_FLOUR_GRAMS = 8          # per dumpling
_MEAT_GRAMS = 5
_VEG_GRAMS = 4


def _amount(n: int, unit: str, in_jin: bool = True) -> str:
    """六百克 (with ``in_jin``: 六百克，差不多一斤二两, from half a 斤 up); 八个, 两碗, 两百毫升."""
    said = number(n) + unit if unit in ("克", "毫升") else count(n, unit)
    if in_jin and unit == "克" and n >= 250:
        said += f"，差不多{jin(n)}"
    return said


def cooking_recipe(s: Slots, data: BankData) -> Slots:
    """The dish's ingredients for the number of servings, its steps and its time."""
    d = data.tables["dishes"][str(s["dish"])]
    n = int(s["servings"])  # type: ignore[call-overload]
    extra = 5 * ((n - 2) // 2) if n > 4 else 0
    second = d.second_per * n
    return {
        "servings_w": count(n, "个人"), "main": d.main, "main_qty": _amount(d.main_per * n, d.main_unit, False),
        "main_amount": _amount(d.main_per * n, d.main_unit),
        "second": d.second,
        "second_amount": number(second) + d.second_unit if d.second_unit in ("克", "毫升") else count(second, d.second_unit),
        "seasoning": d.seasoning, "prep": d.prep, "cook": d.cook, "finish": d.finish,
        "minutes_w": duration(d.minutes + extra),
    }


def cooking_timing(s: Slots, data: BankData) -> Slots:
    """When to start: the meal time less the dish's time and the preparation."""
    d = data.tables["dishes"][str(s["dish"])]
    h, m = s["eat"]  # type: ignore[misc]
    eat = minutes_of_day(int(h), int(m))
    start = eat - d.minutes - _PREP_MINUTES
    return {
        "eat_t": clock_of(eat), "start_t": clock_of(start), "early_t": clock_of(start - 10),
        "minutes_w": duration(d.minutes), "prep": d.prep, "cook": d.cook, "finish": d.finish,
    }


def cooking_dumplings(s: Slots, data: BankData) -> Slots:
    """How many dumplings, the flour, filling and water they take, and how many pots to boil."""
    f = data.tables["fillings"][str(s["filling"])]
    people, per = int(s["people"]), int(s["per"])  # type: ignore[call-overload]
    total = people * per
    flour, meat, veg = (50 * math.ceil(total * g / 50) for g in (_FLOUR_GRAMS, _MEAT_GRAMS, _VEG_GRAMS))
    pots = math.ceil(total / _DUMPLINGS_PER_POT)
    return {
        "people_w": count(people, "个人"), "per_w": count(per, "个"), "total_w": count(total, "个"),
        "flour_w": number(flour) + "克", "flour_jin": jin(flour),
        "meat": f.meat, "meat_w": number(meat) + "克", "veg": f.veg, "veg_w": number(veg) + "克",
        "water_w": number(flour // 2) + "毫升",
        "batches_s": "一锅就能煮完" if pots == 1 else f"要分{count(pots, '锅')}煮",
    }


def cooking_rice(s: Slots, data: BankData) -> Slots:
    """Water for the user's cups of rice: the kind's water-to-rice ratio over 180 ml rice-cooker cups."""
    row = s["rice"]
    cups = int(s["cups"])  # type: ignore[call-overload]
    ratio = Decimal(row.ratio)  # type: ignore[attr-defined]
    water = int(10 * round(cups * 180 * ratio / 10))
    return {"kind": row.kind, "cups_w": count(cups, "杯"), "ratio_w": decimal(ratio),  # type: ignore[attr-defined]
            "water_w": count(water, "毫升"), "people_w": count(2 * cups, "个人"), "soak_s": row.soak}  # type: ignore[attr-defined]


FUNCTIONS = (cooking_recipe, cooking_timing, cooking_dumplings, cooking_rice)
