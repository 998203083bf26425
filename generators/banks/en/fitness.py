"""Computed slots for the fitness exchanges (fitness.yaml names them under ``derive`` / ``sample``)."""

from __future__ import annotations

import math

from ..engine import Slots, number_words, row_prose
from ..loader import BankData


def fitness_race(s: Slots, data: BankData) -> Slots:
    name, km, min_weeks, base = s["race"]  # type: ignore[misc]
    weeks = max(int(s["weeks"]), int(min_weeks))  # type: ignore[arg-type]
    runs = int(s["runs"])  # type: ignore[arg-type]
    long_run = min(km + 2 if km < 15 else km - 3 if km < 30 else 32, base + weeks)
    easy = max(3, round(long_run * 0.4))
    weekly = long_run + easy * (runs - 1)
    taper = 1 if weeks < 8 else 2
    return {
        "race": name,
        "weeks": weeks,
        "weeks_w": number_words(weeks),
        "runs_w": number_words(runs),
        "long_run": long_run,
        "easy": easy,
        "weekly": weekly,
        "taper": number_words(taper),
        "taper_s": "week" if taper == 1 else "weeks",
        "first_long": base,
    }


def fitness_workout(s: Slots, data: BankData) -> Slots:
    focus, moves = s["focus"]  # type: ignore[misc]
    minutes = int(s["minutes"])  # type: ignore[arg-type]
    rounds = max(2, minutes // 7)
    work = 40 if minutes >= 20 else 30
    return {
        "focus": focus,
        "move1": moves[0],
        "move2": moves[1],
        "move3": moves[2],
        "rounds": rounds,
        "rounds_w": number_words(rounds),
        "work": work,
        "rest": 60 - work,
        "warmup": 3 if minutes <= 15 else 5,
        "minutes_w": number_words(minutes),
    }


def fitness_reps(s: Slots, data: BankData) -> Slots:
    move, unit = s["move"]  # type: ignore[misc]
    now = int(s["now"])  # type: ignore[arg-type]
    goal = int(s["goal"])  # type: ignore[arg-type]
    if goal <= now:
        goal = now + 10
    days = int(s["days"])  # type: ignore[arg-type]
    inc = max(1, round(now * 0.1)) if days >= 3 else max(1, round(now * 0.07))
    weeks = math.ceil((goal - now) / (inc * 1.0))
    sets = 3 if now < 20 else 4
    per_set = max(1, round(now * 0.6))
    return {
        "move_s": move, "unit": unit, "goal_v": goal, "inc": inc, "weeks": weeks, "weeks_w": number_words(weeks),
        "sets": sets, "sets_w": number_words(sets), "per_set": per_set, "days_w": number_words(days),
        "gap": goal - now,
    }


def _min_sec(seconds: float) -> str:
    m, sec = divmod(int(round(seconds)), 60)
    mins = "1 minute" if m == 1 else f"{m} minutes"
    if sec == 0:
        return mins
    return f"{mins} {sec} second{'s' if sec != 1 else ''}"


def fitness_pace(s: Slots, data: BankData) -> Slots:
    label, km = s["dist"]  # type: ignore[misc]
    total = max(15, int(round(int(s["speed"]) * km / 60 / 5.0)) * 5)  # minutes, from seconds per km  # type: ignore[arg-type]
    per_km = total * 60 / km
    m, sec = divmod(int(round(per_km)), 60)
    half_sec = int(round(total * 60 / 2))
    hh, rem = divmod(half_sec, 3600)
    hm, hs = divmod(rem, 60)
    th, tm = divmod(total, 60)
    target_s = (f"{th} hour{'s' if th > 1 else ''}" + (f" {tm} minutes" if tm else "")) if th else f"{tm} minutes"
    half_s = (f"{hh} hour{'s' if hh > 1 else ''} " if hh else "") + f"{hm} minutes" + (f" {hs} seconds" if hs else "")
    mile = per_km * 1.609344
    mm, ms = divmod(int(round(mile)), 60)
    return {
        "dist_s": label, "target_s": target_s, "pace": _min_sec(per_km),
        "half_s": half_s, "mile": _min_sec(mile), "easy_pace": _min_sec(per_km + 60),
    }



def fitness_swim(s: Slots, data: BankData) -> Slots:
    """Lengths of the user's pool in the distance, and the distance as sets of 100 metres."""
    pool, dist = int(s["pool"]), int(s["dist"])  # type: ignore[call-overload]
    km = dist / 1000
    dist_s = f"{dist} metres" if dist < 1000 else f"{km:g} kilometre" + ("" if km == 1 else "s")
    return {"dist_s": dist_s, "lengths": dist // pool, "per100": 100 // pool, "sets": dist // 100,
            "rest_s": f"{int(s['rest'])} seconds"}


def fitness_form(s: Slots, data: BankData) -> Slots:
    """The form scenario: the drawn row's own prose fields (and lower-case-first copies for mid-sentence use)."""
    row = s["exercise"]
    return row_prose(row, ('exercise', 'setup', 'cue', 'mistake'), ('cue',))


def fitness_warmup(s: Slots, data: BankData) -> Slots:
    """The warmup scenario: the drawn row's own prose fields (and lower-case-first copies for mid-sentence use)."""
    row = s["activity"]
    return row_prose(row, ('activity', 'start', 'moves', 'tip'), ('start', 'moves', 'tip'))


FUNCTIONS = (fitness_race, fitness_workout, fitness_reps, fitness_pace, fitness_swim, fitness_form, fitness_warmup,)
