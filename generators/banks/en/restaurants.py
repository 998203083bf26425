"""Computed slots for the restaurants exchanges (restaurants.yaml names them under ``derive`` / ``sample``)."""

from __future__ import annotations

from ..engine import Slots, money, number_words, spoken_time
from ..loader import BankData


def restaurants_booking(s: Slots, data: BankData) -> Slots:
    c = data.tables["cuisines"][str(s["cuisine"])]
    idx = int(s["pick"])  # type: ignore[arg-type]
    party = int(s["party"])  # type: ignore[arg-type]
    hour, minute = s["time"]  # type: ignore[misc]
    bare, on = s["day"]  # type: ignore[misc]
    total = c.price * party
    return {
        "place": c.places[idx % 3],
        "dish": c.dish,
        "price": c.price,
        "party_w": number_words(party),
        "total": money(total),
        "time_t": spoken_time(hour, minute, int(s["tstyle"])),  # type: ignore[arg-type]
        "day": bare,
        "day_on": on,
        "walk": 4 + (idx * 7 + party) % 17,
        "a_cuisine": ("an " if c.name[0] in "AEIOU" else "a ") + c.name,
    }


def restaurants_order(s: Slots, data: BankData) -> Slots:
    cuisine = str(s["cuisine"])
    diet = str(s["diet"])
    items = [m.name for m in data.tables["menus"][cuisine].items if diet in m.tags]
    others = [m.name for m in data.tables["menus"][cuisine].items if diet not in m.tags]
    while len(items) < 2:
        items.append(items[0] if items else "the chef's special adapted for you")
    avoid = others[0] if others else "anything with a creamy sauce"
    return {"pick1": items[0], "pick2": items[1], "avoid": avoid, "a_cuisine": ("an " if cuisine[0] in "AEIOU" else "a ") + cuisine}


def restaurants_tipping(s: Slots, data: BankData) -> Slots:
    t = data.tables["tipping"][str(s["country"])]
    bill = int(s["bill"])  # type: ignore[arg-type]
    tip = bill * t.pct / 100
    return {
        "rule": t.rule, "how": t.how, "note": t.note, "pct": t.pct,
        "tip": money(tip) if tip else "nothing extra", "with_tip": money(bill + tip),
    }


def restaurants_occasion(s: Slots, data: BankData) -> Slots:
    o = data.tables["occasions"][str(s["occasion"])]
    party = min(o.hi, max(o.lo, int(s["party"])))  # type: ignore[arg-type]
    per = int(s["per_head"])  # type: ignore[arg-type]
    return {"party_n": party, "style": o.style, "lead": o.lead, "ask": o.ask, "avoid": o.avoid, "total": money(party * per), "party_w": number_words(party)}


def restaurants_dish(s: Slots, data: BankData) -> Slots:
    row = data.tables["menu_dishes"][str(s["dish"])]
    return {"what": row.what, "taste": row.taste, "tip": row.tip}


FUNCTIONS = (restaurants_booking, restaurants_order, restaurants_tipping, restaurants_occasion, restaurants_dish,)
