"""Computed slots for the shopping exchanges (shopping.yaml names them under ``derive`` / ``sample``)."""

from __future__ import annotations

import math

from ..engine import Slots, money, number_words
from ..loader import BankData


def shopping_product(s: Slots, data: BankData) -> Slots:
    p = data.tables["products"][str(s["product"])]
    frac = int(s["frac"]) / 10  # type: ignore[arg-type]
    budget = int(round((p.low + frac * (p.high - p.low)) / 10.0) * 10)
    mid = (p.low + p.high) / 2
    tier = "entry level" if budget < p.low + (p.high - p.low) * 0.25 else "mid range" if budget < mid else "premium"
    advice = {
        # said after the price range, so each names the budget it is about
        "entry level": "[at your budget you'll get the basics, so focus on the one feature that matters most to you|your budget covers the essentials, so pick the one feature you care about most|at your budget expect the basics, so put your money on the feature you'd miss most]",
        "mid range": "[your budget is in the sweet spot where quality jumps without paying for the brand|your budget sits where you get real quality without a brand markup|at your budget you get most of the quality of the expensive ones for a lot less]",
        "premium": "[your budget reaches the top models, so don't let a salesperson push you past it|at your budget the best models are within reach, just don't get talked into spending more|your budget opens up the top of the range, so stick to your limit in the shop]",
    }[tier]
    name = p.name.removeprefix("pair of ")
    return {
        "budget": budget,
        "f1": p.features[0],
        "f2": p.features[1],
        "f3": p.features[2],
        "tier": tier,
        "advice": advice,
        "tip": p.tip,
        "low": p.low,
        "high": p.high,
        "item": name,
    }


def shopping_gift(s: Slots, data: BankData) -> Slots:
    h = data.tables["hobbies"][str(s["hobby"])]
    budget = int(s["budget"])  # type: ignore[arg-type]
    within = sorted((i for i in h.ideas if i[1] <= budget), key=lambda i: -i[1])
    over = sorted((i for i in h.ideas if i[1] > budget), key=lambda i: i[1])
    if not within:   # the top pick must fit what the user said they can spend (shopping.yaml: an idea <= the lowest budget)
        raise ValueError(f"shopping.yaml hobbies: no {h.name} idea fits a budget of {budget} dollars")
    a = within[0]
    b = within[1] if len(within) > 1 else (over[0] if over else within[0])
    left = budget - a[1]
    if left >= 5:
        left_note = f"[that leaves about {left} dollars for a card and wrapping paper|you'd still have about {left} dollars for wrapping and a card|about {left} dollars are left over for the wrapping]"
    else:
        left_note = f"[that uses up pretty much all of the {budget} dollars|that takes nearly the whole {budget} dollars]"
    return {
        "left_note": left_note,
        "gift1": a[0],
        "price1": a[1],
        "gift2": b[0],
        "price2": b[1],
        "left": max(0, left),
        "stretch": over[0][0] if over else "a combination of two of these",
    }


def shopping_rent(s: Slots, data: BankData) -> Slots:
    item, buy, rent = s["item"]  # type: ignore[misc]
    uses = int(s["uses"])  # type: ignore[arg-type]
    days = int(s["days"])  # type: ignore[arg-type]
    rent_total = rent * days * uses
    if rent_total == buy:   # the assistant's own price estimate: never a tie ("you'd save 0 dollars")
        buy += 10
    break_even = math.ceil(buy / (rent * days))
    verdict = "renting is the better deal" if rent_total < buy else "buying pays off"
    return {
        "uses_s": {1: "once", 2: "twice"}.get(uses, f"{uses} times"),
        "item_s": item, "buy": buy, "rent": rent, "rent_total": money(rent_total),
        "break_even": break_even, "break_even_w": number_words(break_even), "verdict": verdict,
        "uses_w": number_words(uses), "days_s": "a day" if days == 1 else f"{number_words(days)} days",
        "saving": money(abs(buy - rent_total)),
    }


def shopping_unit(s: Slots, data: BankData) -> Slots:
    item, unit, small, big = s["pack"]  # type: ignore[misc]
    p1 = int(s["p_small"]) / 100  # type: ignore[arg-type]
    ratio = big / small
    disc = int(s["disc"]) / 100  # type: ignore[arg-type]
    p2 = round(p1 * ratio * disc, 2)
    per = 100 if unit in ("grams", "millilitres") else 1
    per_word = f"100 {unit}" if per == 100 else unit[:-1]
    u1 = p1 / small * per
    u2 = p2 / big * per
    cheaper = "big" if u2 < u1 else "small"
    saving = abs(u1 - u2) * big / per
    return {
        "item": item, "unit": unit, "small": small, "big": big, "p_small_s": money(p1), "p_big_s": money(p2),
        "u1": money(u1), "u2": money(u2), "per_word": per_word, "cheaper": cheaper,
        "saving": money(saving), "pct": abs(round((u2 / u1 - 1) * 100)),
    }


def shopping_secondhand(s: Slots, data: BankData) -> Slots:
    row = data.tables["secondhand"][str(s["item"])]
    return {"verdict": row.verdict, "check": row.check, "avoid": row.avoid}


FUNCTIONS = (shopping_product, shopping_gift, shopping_rent, shopping_unit, shopping_secondhand,)
