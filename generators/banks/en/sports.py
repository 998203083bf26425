"""Computed slots for the sports exchanges (sports.yaml names them under ``derive`` / ``sample``)."""

from __future__ import annotations

import math

from ..engine import Slots, number_words, row_prose, spoken_time
from ..loader import BankData


def sports_start(s: Slots, data: BankData) -> Slots:
    sp = data.tables["sports"][str(s["sport"])]
    bare, on = s["day"]  # type: ignore[misc]
    return {
        "day": bare,
        "day_on": on,
        "gear": sp.gear,
        "first_skill": sp.first_skill,
        "mistake": sp.mistake,
        "venue": sp.venue,
        "session": sp.session,
    }


def sports_party(s: Slots, data: BankData) -> Slots:
    n = int(s["guests"])  # type: ignore[arg-type]
    bare, on = s["day"]  # type: ignore[misc]
    hour, minute = s["kickoff"]  # type: ignore[misc]
    arrive_h, arrive_m = (hour, minute - 30) if minute >= 30 else (hour - 1, minute + 30)
    return {
        "day": bare,
        "day_on": on,
        "guests_w": number_words(n),
        "kickoff_t": spoken_time(hour, minute, int(s["tstyle"])),  # type: ignore[arg-type]
        "arrive_t": spoken_time(arrive_h, arrive_m, int(s["tstyle"])),  # type: ignore[arg-type]
        "wings": n * 6,
        "drinks": n * 3,
        "chairs": max(0, n - 4),
        "pizzas": max(1, (n + 2) // 3),
    }


def sports_rules(s: Slots, data: BankData) -> Slots:
    r = data.tables["rules"][str(s["sport"])]
    return {"win": r.win, "unit": r.unit, "detail": r.detail, "quirk": r.quirk, "length": r.length}


def sports_tourney(s: Slots, data: BankData) -> Slots:
    n = int(s["teams"])  # type: ignore[arg-type]
    courts = int(s["courts"])  # type: ignore[arg-type]
    mins = int(s["game_min"])  # type: ignore[arg-type]
    rr = n * (n - 1) // 2
    ko = n - 1
    rr_slots = math.ceil(rr / min(courts, n // 2))   # a team plays one game at a time: at most n // 2 games a slot
    ko_rounds = math.ceil(math.log2(n)) if n > 1 else 1
    rr_time = rr_slots * (mins + 5)
    hours, rest = divmod(rr_time, 60)
    rr_len = (f"{hours} hour{'s' if hours != 1 else ''}" if hours else "") + (f" and {rest} minutes" if hours and rest else "" if hours else f"{rest} minutes")
    return {
        "teams_w": number_words(n), "rr": rr, "ko": ko, "rr_slots": rr_slots, "rr_len": rr_len,
        "ko_rounds": ko_rounds, "ko_rounds_w": number_words(ko_rounds), "courts_w": number_words(courts),
        "courts_s": "court" if courts == 1 else "courts",
        "byes_s": {0: "no byes", 1: "one bye"}.get((2 ** ko_rounds) - n, f"{(2 ** ko_rounds) - n} byes"),
        "rr_note": ", which is a long day, so a knockout might suit you better" if rr_time > 420 else "",
    }


def sports_drill(s: Slots, data: BankData) -> Slots:
    t = data.tables["skills"][str(s["skill"])]
    return row_prose(t, ("fault", "drill", "cue"))


def sports_warmup(s: Slots, data: BankData) -> Slots:
    t = data.tables["sessions"][str(s["activity"])]
    return row_prose(t, ("warmup", "cooldown", "tip"))


FUNCTIONS = (sports_warmup, sports_drill, sports_start, sports_party, sports_rules, sports_tourney,)
