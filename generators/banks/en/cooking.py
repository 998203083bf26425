"""Computed slots for the cooking exchanges (cooking.yaml names them under ``derive`` / ``sample``)."""

from __future__ import annotations

from ..engine import Slots, money, number_words, row_prose, spoken_time
from ..loader import BankData


def cooking_recipe(s: Slots, data: BankData) -> Slots:
    d = data.tables["dishes"][str(s["dish"])]
    n = int(s["servings"])  # type: ignore[arg-type]
    total = d.per_serving * n
    if d.unit == "g":
        main_qty = f"{total} grams of {d.main}" if total < 1000 else f"{total / 1000:g} kilos of {d.main}"
        main_qty = main_qty.replace("kilos", "kilo") if total == 1000 else main_qty
        if d.main.endswith("chickpea") or d.main.endswith("bean") or d.main.endswith("noodle"):
            main_qty += "s"
    else:
        main_qty = f"{total} {d.unit}"
    extra = 5 * ((n - 2) // 2) if n > 4 else 0
    return {
        "servings_w": number_words(n),
        "main_qty": main_qty,
        "ing2": d.ing2,
        "ing3": d.ing3,
        "minutes": d.minutes + extra,
        "prep": d.prep,
        "cook": d.cook,
        "finish": d.finish,
        "serve": d.serve,
    }


def cooking_sub(s: Slots, data: BankData) -> Slots:
    missing, sub, ratio, effect = s["missing"]  # type: ignore[misc]
    return {"missing": missing, "sub": sub, "ratio": ratio, "effect": effect}


def cooking_roast(s: Slots, data: BankData) -> Slots:
    name, per, extra, temp, rest = s["roast"]  # type: ignore[misc]
    kilos = int(s["grams"]) / 1000  # type: ignore[arg-type]
    minutes = round(int(s["grams"]) / 500 * per + extra)  # type: ignore[arg-type]
    hours, mins = divmod(minutes, 60)
    if hours == 0:
        spoken = f"{mins} minutes"
    elif mins == 0:
        spoken = "1 hour" if hours == 1 else f"{hours} hours"
    else:
        spoken = f"{hours} hour{'s' if hours > 1 else ''} and {mins} minutes"
    eat_h, eat_m = s["eat"]  # type: ignore[misc]
    start = eat_h * 60 + eat_m - minutes - rest - 15
    start_h, start_m = divmod(start, 60)
    start_m = 5 * (start_m // 5)
    return {
        "roast": name,
        "weight": f"{kilos:g} kilo" if kilos == 1 else f"{kilos:g} kilos",
        "weight_adj": f"{kilos:g} kilo",
        "roast_time": spoken,
        "minutes": minutes,
        "per": per,
        "extra": extra,
        "temp": temp,
        "rest": rest,
        "eat_t": spoken_time(eat_h, eat_m, int(s["tstyle"])),  # type: ignore[arg-type]
        "start_t": spoken_time(start_h, start_m, int(s["tstyle"])),  # type: ignore[arg-type]
    }


def cooking_prep(s: Slots, data: BankData) -> Slots:
    p = data.tables["preps"][str(s["prep"])]
    n = int(s["portions"])  # type: ignore[arg-type]
    freeze = max(0, n - p.keeps)
    return {
        "base": p.base, "protein": p.protein, "veg": p.veg, "sauce": p.sauce,
        "cost": money(p.cost * n), "unit_cost": money(p.cost), "keeps_w": number_words(p.keeps),
        "freeze": freeze, "freeze_w": number_words(freeze), "portions_w": number_words(n),
        "hours": "about an hour" if n <= 5 else "about an hour and a half",
        "freeze_note": (f"[you'll want to freeze {number_words(freeze)} of them and thaw one the night before|freeze {number_words(freeze)} of them and move one to the fridge the night before]"
                        if freeze else "[you won't need to freeze any of them|none of them need to go in the freezer|the fridge will hold them all]"),
    }


def cooking_timing(s: Slots, data: BankData) -> Slots:
    t = data.tables["timings"][str(s["item"])]
    return {
        "time": t.time, "method": t.method, "check": t.check, "tip": t.tip,
        "take": "take" if t.plural else "takes", "they": "they" if t.plural else "it",
        "theyre": "they're" if t.plural else "it's", "need": "need" if t.plural else "needs",
        "do_they": "do they" if t.plural else "does it",
    }



def cooking_tin(s: Slots, data: BankData) -> Slots:
    """A round cake scaled by the tins' areas: the factor, the scaled amounts, and what happens to the depth."""
    a, b = (int(x) for x in s["tins"])  # type: ignore[attr-defined]
    factor = round((b / a) ** 2, 2)
    pct = round(abs(factor - 1) * 100)
    change = f"about {pct} percent {'more' if b > a else 'less'}"
    eggs = int(s["eggs"]) * factor  # type: ignore[call-overload]
    whole = max(1, round(eggs))
    eggs_n = (f"{whole} egg{'s' if whole != 1 else ''}" if abs(eggs - whole) < 0.25
              else f"{whole} egg{'s' if whole != 1 else ''}, beaten, [minus a spoonful|less a little]" if eggs < whole
              else f"{whole} egg{'s' if whole != 1 else ''} plus a yolk")
    depth_note = ("[The cake comes out the same depth|The batter sits at the same depth], so bake it for the recipe's time, "
                  "[checking|and check] it five minutes early.")
    return {"a": a, "b": b, "factor": f"{factor:g}", "change": change, "eggs_n": eggs_n,
            "flour_n": 5 * round(int(s["flour"]) * factor / 5), "sugar_n": 5 * round(int(s["sugar"]) * factor / 5),  # type: ignore[call-overload]
            "depth_note": depth_note}


def cooking_store(s: Slots, data: BankData) -> Slots:
    """The store scenario: the drawn row's own prose fields (and lower-case-first copies for mid-sentence use)."""
    row = s["food"]
    return row_prose(row, ('food', 'where', 'keeps', 'tip'), ('keeps', 'tip'))


def cooking_done(s: Slots, data: BankData) -> Slots:
    """The done scenario: the drawn row's own prose fields (and lower-case-first copies for mid-sentence use)."""
    row = s["dish"]
    return row_prose(row, ('dish', 'sign', 'check', 'tip'), ('sign', 'check', 'tip'))


FUNCTIONS = (cooking_recipe, cooking_sub, cooking_roast, cooking_prep, cooking_timing, cooking_tin, cooking_store, cooking_done,)
