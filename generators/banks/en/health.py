"""Computed slots for the health exchanges (health.yaml names them under ``derive`` / ``sample``)."""

from __future__ import annotations

import math

from ..engine import Slots, number_words, row_prose, spoken_time
from ..loader import BankData


def _sub_minutes(h: int, m: int, minutes: int) -> tuple[int, int]:
    total = (h * 60 + m - minutes) % (24 * 60)
    return divmod(total, 60)


def health_sleep(s: Slots, data: BankData) -> Slots:
    h, m = s["wake"]  # type: ignore[misc]
    hours = int(s["hours"])  # type: ignore[arg-type]
    st = int(s["tstyle"])  # type: ignore[arg-type]
    bed = _sub_minutes(h, m, hours * 60 + 15)
    wind = _sub_minutes(bed[0], bed[1], 45)
    caffeine = _sub_minutes(bed[0], bed[1], 8 * 60)
    return {
        "wake_t": spoken_time(h, m, st),
        "hours_w": number_words(hours),
        "bed_t": spoken_time(*bed, st),
        "wind_t": spoken_time(*wind, st),
        "caffeine_t": spoken_time(*caffeine, st),
    }


def health_steps(s: Slots, data: BankData) -> Slots:
    now = int(s["now"])  # type: ignore[arg-type]
    goal = int(s["goal"])  # type: ignore[arg-type]
    if goal <= now:
        goal = now + 2000
    inc = int(s["inc"])  # type: ignore[arg-type]
    weeks = math.ceil((goal - now) / inc)
    minutes = round(inc / 100)
    return {
        "now_s": f"{now:,}",
        "goal_s": f"{goal:,}",
        "inc_s": f"{inc:,}",
        "weeks": weeks,
        "weeks_w": number_words(weeks),
        "walk_min": minutes,
        "gap": f"{goal - now:,}",
    }


def health_stretch(s: Slots, data: BankData) -> Slots:
    b = data.tables["body_parts"][str(s["part"])]
    minutes = int(s["minutes"])  # type: ignore[arg-type]
    hold = 20 if minutes <= 5 else 30
    reps = max(1, (minutes * 60) // (3 * (hold + 10)))
    return {
        "x1": b.stretches[0],
        "x2": b.stretches[1],
        "x3": b.stretches[2],
        "cause": b.cause,
        "hold": hold,
        "reps_w": number_words(int(reps)),
        "minutes_w": number_words(minutes),
    }


def health_water(s: Slots, data: BankData) -> Slots:
    kg = int(s["kg"])  # type: ignore[arg-type]
    ex = int(s["exercise"])  # type: ignore[arg-type]
    base_ml = kg * 33
    extra_ml = ex * 12  # about 350 ml per half hour
    total_ml = base_ml + extra_ml
    liters = round(total_ml / 1000, 1)
    glasses = math.ceil(total_ml / 250)
    return {
        "base_l": f"{base_ml / 1000:.1f}".rstrip("0").rstrip("."), "extra": extra_ml,
        "liters": f"{liters:g}", "glasses": glasses, "glasses_w": number_words(glasses),
        "bottle": math.ceil(total_ml / 500),
    }


def health_heart(s: Slots, data: BankData) -> Slots:
    age = int(s["age"])  # type: ignore[arg-type]
    mx = 220 - age
    return {
        "max": mx, "z2a": round(mx * 0.6), "z2b": round(mx * 0.7), "z3a": round(mx * 0.7), "z3b": round(mx * 0.8),
        "z4a": round(mx * 0.8), "z4b": round(mx * 0.9), "age_w": number_words(age),
    }


def health_remedy(s: Slots, data: BankData) -> Slots:
    """The remedy scenario: the drawn row's own prose fields (and lower-case-first copies for mid-sentence use)."""
    row = s["ailment"]
    return row_prose(row, ('ailment', 'first', 'also', 'doctor'), ('first', 'doctor'))


def health_swap(s: Slots, data: BankData) -> Slots:
    """The swap scenario: the drawn row's own prose fields (and lower-case-first copies for mid-sentence use)."""
    row = s["habit"]
    return row_prose(row, ('habit', 'swap', 'why', 'tip'), ('swap', 'why', 'tip'))


FUNCTIONS = (health_sleep, health_steps, health_stretch, health_water, health_heart, health_remedy, health_swap,)
