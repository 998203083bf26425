"""Computed slots for the travel exchanges (travel.yaml names them under ``derive`` / ``sample``)."""

from __future__ import annotations

import math

from generators.harness.weather import CLIMATE

from ..engine import Rng, Slots, money, number_words, row_prose
from ..loader import BankData


def travel_plan(s: Slots, data: BankData) -> Slots:
    city = data.tables["cities"][str(s["city"])]
    n = int(s["n_days"])  # type: ignore[arg-type]
    month = str(s["month"])
    comp_user, comp = s["companion"]  # type: ignore[misc]
    southern = city.country in {"Australia", "New Zealand", "South Africa", "Argentina", "Peru", "Brazil"}
    idx = data.lists["months"].index(month)
    season_idx = ((idx + 1) // 3) % 4  # 0 winter .. 3 autumn (northern)
    if southern:
        season_idx = (season_idx + 2) % 4
    season = ("winter", "spring", "summer", "autumn")[season_idx]
    warm = {"cold": (0, 1, 2, 1), "mild": (1, 2, 3, 2), "hot": (2, 3, 3, 3), "wet": (1, 1, 2, 1)}[CLIMATE[city.name]][season_idx]
    season_weather = (
        "cold and often grey", "cool and changeable", "pleasantly warm", "hot and sunny"
    )[warm]
    pack = ("[a warm coat and gloves|a thick coat, a hat and gloves]", "[layers and a rain jacket|a waterproof and a few warm layers]",
            "[light layers and comfortable shoes|a few light layers and good walking shoes]",
            "[light clothes, a hat and sunscreen|breathable clothes, sunscreen and a sun hat]")[warm]
    days_comment = (
        "just enough for the highlights" if n <= 3 else "a comfortable amount of time" if n <= 5 else "plenty of time to slow down"
    )
    return {
        "companion_user": comp_user,
        "companion": comp,
        "n_days_w": number_words(n),
        "sight1": city.sights[0],
        "sight2": city.sights[1],
        "sight3": city.sights[2],
        "food": city.food,
        "area": city.area,
        "country": city.country,
        "season": season,
        "season_weather": season_weather,
        "pack": pack,
        "days_comment": days_comment,
    }


def travel_packing(s: Slots, data: BankData) -> Slots:
    purpose, key_item = s["purpose"]  # type: ignore[misc]
    n = int(s["n_days"])  # type: ignore[arg-type]
    city = data.tables["cities"][str(s["city"])]
    out = travel_plan({**s, "companion": ("", ""), "month": s["month"]}, data)
    shirts = n if n <= 4 else 4 + (n - 4) // 2
    out.update(
        {
            "purpose": purpose,
            "key_item": key_item,
            "shirts": shirts,
            "socks": n + 1,
            "bag": "a carry on" if n <= 4 else "a medium suitcase",
            "climate_note": CLIMATE[city.name],
        }
    )
    return out


def travel_budget(s: Slots, data: BankData) -> Slots:
    city = data.tables["cities"][str(s["city"])]
    n = int(s["nights"])  # type: ignore[arg-type]
    tier, nightly = s["hotel"]  # type: ignore[misc]
    people = int(s["people"])  # type: ignore[arg-type]
    food = int(s["food"])  # type: ignore[arg-type]
    rooms = math.ceil(people / 2)
    stay = nightly * n * rooms
    eat = food * (n + 1) * people
    extras = 25 * (n + 1) * people
    total = stay + eat + extras
    return {
        "hotel": tier, "nightly": nightly, "rooms": rooms, "rooms_w": number_words(rooms),
        "rooms_s": "room" if rooms == 1 else "rooms", "stay": money(stay), "eat": money(eat),
        "extras": money(extras), "total": money(total), "each": money(total / people),
        "people_w": number_words(people), "nights_w": number_words(n), "days": n + 1,
        "food_s": city.food, "sight1": city.sights[0],
    }


def jetlag_route(rng: Rng, slots: Slots, data: BankData) -> tuple[str, str]:
    """Two cities at least three time zones apart."""
    while True:
        a, b = (str(c) for c in rng.choice(data.tables["cities"].keys(), size=2, replace=False))
        clock = abs(data.tables["utc_offsets"][a].hours - data.tables["utc_offsets"][b].hours)
        if min(clock, 24 - clock) >= 3:
            return a, b


def travel_jetlag(s: Slots, data: BankData) -> Slots:
    a, b = s["route"]  # type: ignore[misc]
    diff = data.tables["utc_offsets"][b].hours - data.tables["utc_offsets"][a].hours
    clock = abs(diff)
    hours = min(clock, 24 - clock)  # the body clock shift actually felt
    east = (diff > 0) == (clock <= 12)
    days = max(1, hours if east else math.ceil(hours * 2 / 3))
    shift = min(3, max(1, hours // 3))
    if hours == 0:
        direction = "[there's no real time difference|the clocks are about the same]"
    else:
        direction = f"{b} is about {number_words(clock)} {'hour' if clock == 1 else 'hours'} {'ahead of' if diff > 0 else 'behind'} {a}"
    return {
        "home": a, "city": b,
        "hours": hours, "hours_w": number_words(hours), "direction": direction,
        "days": days, "days_w": number_words(days), "days_s": "a day" if days == 1 else f"{days} days", "shift": shift, "shift_w": number_words(shift),
        "way": "east" if east else "west",
        "sleep_tip": ("[go to bed an hour earlier each night|shift your bedtime an hour earlier every night]" if east
                      else "[stay up an hour later each night|push your bedtime an hour later every night]"),
        "light": "morning light" if east else "late afternoon light",
    }



def travel_drive(s: Slots, data: BankData) -> Slots:
    """Litres and fuel cost for the drive the user describes, and the driving time at an assumed speed. The
    fuel is priced where it is bought, in euros: "driving 570 kilometres to Lisbon ... 1 dollar and 51 cents
    a litre" named a currency nobody pays at a Lisbon pump."""
    km, speed = int(s["km"]), int(s["speed"])  # type: ignore[call-overload]
    litres = km * float(str(s["l100"])) / 100
    price = float(s["price"])  # type: ignore[arg-type]
    cost = round(litres, 1) * price
    minutes = 5 * round(km / speed * 60 / 5)
    h, m = divmod(minutes, 60)
    drive_t = (f"{h} hour{'s' if h != 1 else ''}" if h else "") + (" and " if h and m else "") + (f"{m} minutes" if m else "")
    stops = minutes // 120
    breaks_s = ("short enough to do in one go" if stops == 0 else
                "so plan one fifteen minute break" if stops == 1 else f"so plan {number_words(stops)} fifteen minute breaks")
    euros = {"one": "euro", "many": "euros"}   # the drive is to a euro area city (travel.yaml drive_cities)
    return {"price_s": money(price, **euros), "litres": f"{litres:.1f}".removesuffix(".0"), "cost": money(cost, **euros),
            "cost2": money(2 * cost, **euros), "drive_t": drive_t, "breaks_s": breaks_s}

def travel_mishap(s: Slots, data: BankData) -> Slots:
    t = data.tables["mishaps"][str(s["mishap"])]
    return row_prose(t, ("short", "first", "then", "tip"))


def travel_tripkind(s: Slots, data: BankData) -> Slots:
    t = data.tables["trip_kinds"][str(s["trip"])]
    return row_prose(t, ("before", "during", "tip"))


FUNCTIONS = (travel_tripkind, travel_mishap, travel_plan, travel_packing, travel_budget, jetlag_route, travel_jetlag, travel_drive,)
