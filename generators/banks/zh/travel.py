"""Computed slots for the Mandarin travel exchanges: totals, arrival times and fares, said in words."""

from __future__ import annotations

from decimal import Decimal

from ..engine import Slots
from ..loader import BankData
from .numbers import clock_of, count, duration, minutes_of_day, money


def travel_plan(s: Slots, data: BankData) -> Slots:
    """Days, people and the daily budget per person, the trip's total, and the city's sights."""
    row = data.tables["cities"][str(s["city"])]
    days, people, budget = int(s["days"]), int(s["people"]), int(s["budget"])  # type: ignore[call-overload]
    return {
        "days_w": count(days, "天"), "people_w": count(people, "个人"), "budget_w": money(budget),
        "total_w": money(budget * days * people),
        "sight1": row.sights[0], "sight2": row.sights[1], "sight3": row.sights[2], "food": row.food, "area": row.area,
    }


def travel_train(s: Slots, data: BankData) -> Slots:
    """The train's arrival (departure plus the route's minutes), when to be at the station, the fares."""
    route = data.tables["routes"][str(s["route"])]
    h, m = s["depart"]  # type: ignore[misc]
    depart = minutes_of_day(int(h), int(m))
    people = int(s["people"])  # type: ignore[call-overload]
    return {
        "origin": route.origin, "dest": route.dest, "dur": duration(route.minutes),
        "depart_t": clock_of(depart), "arrive_t": clock_of(depart + route.minutes), "station_t": clock_of(depart - 30),
        "price_w": money(route.price), "people_w": count(people, "个人"),
        "who": "我" if people == 1 else f"我们{count(people, '个人')}",
        "total_w": money(route.price * people),
    }


def travel_hotel(s: Slots, data: BankData) -> Slots:
    """Nightly price per room, per night for all rooms, and the stay's total."""
    row = data.tables["cities"][str(s["city"])]
    nights, rooms, price = int(s["nights"]), int(s["rooms"]), int(s["price"])  # type: ignore[call-overload]
    return {
        "nights_w": count(nights, "晚"), "rooms_w": count(rooms, "间房"), "price_w": money(price),
        "per_night_w": money(price * rooms), "total_w": money(price * rooms * nights),
        "area": row.area, "sight1": row.sights[0],
    }


def travel_taxi(s: Slots, data: BankData) -> Slots:
    """A metered fare from the rules the user read: the start price covers the first kilometres."""
    base, base_km, km = int(s["base"]), int(s["base_km"]), int(s["km"])  # type: ignore[call-overload]
    per = Decimal(str(s["per"]))
    extra_km = max(0, km - base_km)
    extra = per * extra_km
    return {"base_w": money(base), "base_km_w": count(base_km, "公里"), "per_w": money(per), "km_w": count(km, "公里"),
            "extra_km_w": count(extra_km, "公里"), "extra_w": money(extra), "fare_w": money(base + extra)}


FUNCTIONS = (travel_plan, travel_train, travel_hotel, travel_taxi)
