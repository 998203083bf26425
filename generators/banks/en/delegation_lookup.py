"""Functions delegation_lookup.yaml names: reading the facts table's answers (flights, parcels, outages...)."""

from __future__ import annotations

import re

from ..delegations import Result, segments
from ..engine import Rng, Slots
from ..loader import BankData
from ..results import first_value, measure
from .delegation import capitalised, say_span, say_time


def flight_city(s: Slots, data: BankData) -> Slots:
    """The destination the user knows their flight by."""
    return {"city": data.tables["flights"][s["code"]].city}


def mountain_name(s: Slots, data: BankData) -> Slots:
    return {"mountain_c": capitalised(s["mountain"])}


def read_flight(rng: Rng, res: Result, s: Slots, data: BankData) -> dict[str, object]:
    out: dict[str, object] = {}
    for seg, whole in segments(res):
        if seg == "on time":
            out["on_time"] = True
        elif seg == "cancelled":
            out["cancelled"] = True
        elif m := re.fullmatch(r"delayed (\d+) minutes", seg):
            out["delay"] = int(m.group(1))
        elif m := re.fullmatch(r"scheduled (\d\d:\d\d)", seg):
            out["sched_t"] = say_time(rng, m.group(1))
        elif m := re.fullmatch(r"departs (\d\d:\d\d)", seg):
            out["dep_t"] = say_time(rng, m.group(1))
        elif m := re.fullmatch(r"gate ([A-Z]\d+)", seg):
            out["gate"] = m.group(1)
        elif seg.startswith("rebooking ") and whole:
            out["rebook"] = seg.removeprefix("rebooking ")
    return out


def read_package(rng: Rng, res: Result, s: Slots, data: BankData) -> dict[str, object]:
    out: dict[str, object] = {}
    for seg, whole in segments(res):
        if m := re.fullmatch(r"arriving today between (\d\d:\d\d) and (\d\d:\d\d)", seg):
            out["from_t"], out["to_t"] = say_span(rng, m.group(1), m.group(2))
        elif m := re.fullmatch(r"expected ([A-Z]\w+day)", seg):
            out["due"] = m.group(1)
        elif m := re.fullmatch(r"delivered today at (\d\d:\d\d)", seg):
            out["at_t"] = say_time(rng, m.group(1))
        elif whole and (m := re.fullmatch(r"left (.+)", seg)):
            out["left"] = m.group(1)
        elif seg in ("out for delivery", "in transit", "delivered", "awaiting dispatch"):
            out["state"] = seg
    return out


def read_outage(rng: Rng, res: Result, s: Slots, data: BankData) -> dict[str, object]:
    out: dict[str, object] = {}
    for seg, whole in segments(res):
        if seg == "outage in your area":
            out["outage"] = True
        elif seg == "no outages in your area":
            out["clear"] = True
        elif m := re.fullmatch(r"since (\d\d:\d\d)", seg):
            out["since_t"] = say_time(rng, m.group(1))
        elif m := re.fullmatch(r"estimated fix (\d\d:\d\d)", seg):
            out["fix_t"] = say_time(rng, m.group(1))
        elif whole and (m := re.fullmatch(r"cause (.+)", seg)):
            out["cause"] = m.group(1)
        elif m := re.fullmatch(r"planned maintenance (\w+day) from (\d\d:\d\d) to (\d\d:\d\d)", seg):
            out["mday"] = m.group(1)
            out["m_from"], out["m_to"] = say_span(rng, m.group(2), m.group(3))
    return out


def read_bins(rng: Rng, res: Result, s: Slots, data: BankData) -> dict[str, object]:
    out: dict[str, object] = {}
    for seg, _ in segments(res):
        if m := re.fullmatch(r"(recycling|general waste|garden waste|food waste) (\w+day)", seg):
            out[m.group(1).split()[0]] = m.group(2)
        elif seg in ("every week", "every other week"):
            out["often"] = seg
    return out


def read_first_value(rng: Rng, res: Result, s: Slots, data: BankData, fact: str) -> dict[str, object]:
    """The whole first segment of the answer as ``fact`` ("Lisbon")."""
    v = first_value(res)
    return {} if v is None else {fact: v}


def read_height(rng: Rng, res: Result, s: Slots, data: BankData) -> dict[str, object]:
    found = measure(res)
    return {"height": found[1]} if found and not found[0] and found[2] == "meters" else {}


FUNCTIONS = (flight_city, mountain_name, read_flight, read_package, read_outage, read_bins, read_first_value, read_height)
