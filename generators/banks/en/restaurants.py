"""Computed slots for the restaurants exchanges (restaurants.yaml names them under ``derive`` / ``sample``)."""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal

from ..engine import Rng, Slots, money, number_words, spoken_time
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


def tipping_country(rng: Rng, slots: Slots, data: BankData) -> str:
    """A country of the tipping table; redrawn for a correction ("we're in Italy, not Spain"), one that pays
    in the same money, so the bill the user already said stays a bill in that country's currency."""
    table = data.tables["tipping"]
    keys = list(table.keys())
    if "country" in slots:
        keys = [k for k in keys if table[k].currency == table[str(slots["country"])].currency]
    return str(keys[int(rng.integers(len(keys)))])


def say_amount(x: Decimal, cur: object) -> str:
    """``x`` of currency row ``cur`` as said: "7 euros and 50 cents", "1 pound", "2,400 yen"."""
    return money(float(x), cur.one, cur.many, cur.minor)  # type: ignore[attr-defined]


def restaurants_tipping(s: Slots, data: BankData) -> Slots:
    """The tip on the bill, in the money of the country where it is paid: "Do people tip in Spain? We've
    got a 150 dollar bill" (issue #28) is a 150 euro bill; a currency without a said minor unit (yen, won,
    pesos) rounds the tip to whole units."""
    t = data.tables["tipping"][str(s["country"])]
    cur = data.tables["currencies"][t.currency]
    bill = int(s["bill"]) * int(cur.scale)  # type: ignore[arg-type]
    tip = Decimal(bill * t.pct) / 100
    tip = tip.quantize(Decimal("0.01") if cur.minor else Decimal("1"), ROUND_HALF_UP)
    return {
        "rule": t.rule, "how": t.how, "note": t.note, "pct": t.pct,
        "bill_n": f"{bill:,}", "bill_s": say_amount(Decimal(bill), cur), "cur_one": cur.one,
        "tip": say_amount(tip, cur) if tip else "nothing extra", "with_tip": say_amount(bill + tip, cur),
    }


def restaurants_occasion(s: Slots, data: BankData) -> Slots:
    o = data.tables["occasions"][str(s["occasion"])]
    party = min(o.hi, max(o.lo, int(s["party"])))  # type: ignore[arg-type]
    per = int(s["per_head"])  # type: ignore[arg-type]
    return {"party_n": party, "style": o.style, "lead": o.lead, "ask": o.ask, "avoid": o.avoid, "total": money(party * per), "party_w": number_words(party)}


def restaurants_dish(s: Slots, data: BankData) -> Slots:
    row = data.tables["menu_dishes"][str(s["dish"])]
    return {"what": row.what, "taste": row.taste, "tip": row.tip}


FUNCTIONS = (restaurants_booking, restaurants_order, tipping_country, restaurants_tipping, restaurants_occasion, restaurants_dish,)
