"""Computed slots for the home exchanges (home.yaml names them under ``derive`` / ``sample``)."""

from __future__ import annotations

import math

from ..engine import Rng, Slots, money, number_words, spoken_time
from ..loader import BankData


def home_stain(s: Slots, data: BankData) -> Slots:
    st = data.tables["stains"][str(s["stain"])]
    fabric, note = s["fabric"]  # type: ignore[misc]
    return {"fabric": fabric, "note": note, "first": st.first, "treat": st.treat, "avoid": st.avoid}


def home_paint(s: Slots, data: BankData) -> Slots:
    w = int(s["width"])  # type: ignore[arg-type]
    length = int(s["length"])  # type: ignore[arg-type]
    height = 2.5
    area = 2 * (w + length) * height - 4  # minus a door and a window
    liters = area * 2 / 10  # two coats, ten square metres a litre
    cans = math.ceil(liters / 2.5)
    return {
        "area": int(round(area)),
        "liters": int(math.ceil(liters)),
        "cans": cans,
        "cans_w": number_words(cans),
        "cans_s": "tin" if cans == 1 else "tins",
        "days": "a weekend" if area > 50 else "a day",
    }


def home_plant(s: Slots, data: BankData) -> Slots:
    p = data.tables["plants"][str(s["plant"])]
    return {"water": p.water, "light": p.light, "tip": p.tip, "days": p.days, "days_w": number_words(p.days)}


CLEAN_SHARE = (3, 2, 2)   # the first room gets the biggest share ("the {r0} deserves the biggest chunk")
CLEAN_STEP = 5            # each room's minutes are a multiple of five


def clean_split(minutes: int, share: tuple[int, ...] = CLEAN_SHARE, step: int = CLEAN_STEP) -> list[int]:
    """``minutes`` split about in proportion to ``share``, in multiples of ``step`` that add up to
    ``minutes`` exactly: rounding each room on its own gave "25 minutes" as 10 + 5 + 5. Largest
    remainder first; then the first room is made the biggest (the answer may say it gets "the most
    time"), taking a step from the biggest other room, so the parts never stop adding up."""
    units = minutes // step
    if units * step != minutes or units < len(share) + 1:
        raise ValueError(f"{minutes} minutes cannot be split over {len(share)} rooms in {step} minute steps")
    exact = [units * w / sum(share) for w in share]
    got = [int(x) for x in exact]
    by_remainder = sorted(range(len(share)), key=lambda i: (int(exact[i]) - exact[i], i))
    for i in by_remainder[: units - sum(got)]:
        got[i] += 1
    while got[0] <= max(got[1:]):
        donor = max(range(1, len(got)), key=lambda i: (got[i], i))
        got[donor] -= 1
        got[0] += 1
    return [g * step for g in got]


def home_clean(s: Slots, data: BankData) -> Slots:
    minutes = int(s["minutes"])  # type: ignore[arg-type]
    rooms = list(s["rooms"])  # type: ignore[call-overload]
    mins = clean_split(minutes, CLEAN_SHARE[: len(rooms)])
    guests_h, guests_m = s["arrive"]  # type: ignore[misc]
    out: Slots = {"minutes_w": number_words(minutes), "arrive_t": spoken_time(guests_h, guests_m, int(s["tstyle"]))}  # type: ignore[arg-type]
    for i, room in enumerate(rooms):
        out[f"r{i}"] = room
        out[f"t{i}"] = data.tables["clean_tasks"][room].tasks[(int(s["variant"]) + i) % 3]  # type: ignore[arg-type]
        out[f"m{i}"] = mins[i]
    return out


def clean_rooms(rng: Rng, slots: Slots, data: BankData) -> tuple[str, str, str]:
    keys = list(data.tables["clean_tasks"].keys())
    idx = rng.choice(len(keys), size=3, replace=False)
    return tuple(keys[int(i)] for i in idx)  # type: ignore[return-value]


def home_power(s: Slots, data: BankData) -> Slots:
    name, watts = s["appliance"]  # type: ignore[misc]
    hours = int(s["hours"]) / 2  # type: ignore[arg-type]
    price = int(s["price"]) / 100  # type: ignore[arg-type]
    kwh_day = watts * hours / 1000
    day = kwh_day * price
    month = day * 30
    year = day * 365
    return {
        "appliance_s": name, "watts": watts,
        "hours_s": {0.5: "half an hour", 1.0: "an hour", 1.5: "an hour and a half"}.get(hours, f"{hours:g} hours"), "kwh": f"{kwh_day:.1f}".rstrip("0").rstrip("."),
        "day": money(day), "month": money(month), "year": money(year), "price_s": f"{int(s['price'])} cents",
        "half": money(month / 2),
    }


def home_fix(s: Slots, data: BankData) -> Slots:
    row = data.tables["fixes"][str(s["problem"])]
    return {"cause": row.cause, "fix": row.fix, "part": row.part, "pro": row.pro}


FUNCTIONS = (home_stain, home_paint, home_plant, home_clean, clean_rooms, home_power, home_fix,)
