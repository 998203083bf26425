"""The weather service's world: each city's climate and a deterministic forecast per (city, day, seed).

This is the one weather model. The harness's `weather` tool returns `forecast(...)` as its
result fields; the text banks (generators/banks/en/weather.py weather_forecast and the delegation bank)
word their answers from it, so what the assistant says agrees with what the harness returned.
It imports nothing from the text banks: the harness is the truth, the banks phrase it.
"""
from __future__ import annotations

import zlib
from typing import NamedTuple

import numpy as np

# The climate of every city the text banks can name (generators/banks/<lang>/common.yaml cities).
CLIMATE: dict[str, str] = {
    "Lisbon": "mild",
    "Rome": "hot",
    "Paris": "mild",
    "Barcelona": "hot",
    "Madrid": "hot",
    "Berlin": "cold",
    "Amsterdam": "wet",
    "Vienna": "cold",
    "Prague": "cold",
    "Copenhagen": "wet",
    "Stockholm": "cold",
    "Oslo": "cold",
    "Edinburgh": "wet",
    "Dublin": "wet",
    "London": "wet",
    "Athens": "hot",
    "Istanbul": "mild",
    "Marrakesh": "hot",
    "Cairo": "hot",
    "Cape Town": "mild",
    "Tokyo": "mild",
    "Kyoto": "mild",
    "Seoul": "cold",
    "Singapore": "hot",
    "Bangkok": "hot",
    "Hanoi": "hot",
    "Sydney": "mild",
    "Melbourne": "mild",
    "Auckland": "wet",
    "Vancouver": "wet",
    "Montreal": "cold",
    "Toronto": "cold",
    "New York": "cold",
    "Chicago": "cold",
    "San Francisco": "mild",
    "Seattle": "wet",
    "New Orleans": "hot",
    "Austin": "hot",
    "Mexico City": "mild",
    "Buenos Aires": "mild",
    "Lima": "mild",
    "Rio de Janeiro": "hot",
    "Reykjavik": "cold",
    "Budapest": "cold",
    "Krakow": "cold",
    "Porto": "mild",
    "Seville": "hot",
    "Florence": "hot",
    "Naples": "hot",
    "Zurich": "cold",
    # the Mandarin bank's cities (generators/banks/zh/common.yaml, by their `en` names)
    "Beijing": "cold",
    "Shanghai": "mild",
    "Guangzhou": "hot",
    "Shenzhen": "hot",
    "Chengdu": "mild",
    "Chongqing": "hot",
    "Hangzhou": "mild",
    "Nanjing": "mild",
    "Suzhou": "mild",
    "Xi'an": "cold",
    "Wuhan": "hot",
    "Changsha": "hot",
    "Xiamen": "hot",
    "Qingdao": "mild",
    "Harbin": "cold",
    "Kunming": "mild",
    "Dali": "mild",
    "Sanya": "hot",
    "Guilin": "wet",
    "Lhasa": "cold",
    "Tianjin": "cold",
}


class Condition(NamedTuple):
    phrase: str
    rain: tuple[int, int]
    gear: str
    good: bool


CONDITIONS: tuple[Condition, ...] = (
    Condition("clear skies", (0, 10), "sunglasses and some sunscreen", True),
    Condition("bright sunshine", (0, 5), "a hat and plenty of water", True),
    Condition("a mix of sun and cloud", (10, 25), "a light layer just in case", True),
    Condition("mostly cloudy skies", (15, 30), "a light jacket", True),
    Condition("light rain on and off", (50, 70), "an umbrella", False),
    Condition("steady rain for most of the day", (80, 95), "a proper raincoat and waterproof shoes", False),
    Condition("scattered showers in the afternoon", (40, 60), "a compact umbrella", False),
    Condition("a chance of thunderstorms later on", (40, 70), "a rain jacket", False),
    Condition("morning fog that should lift by midday", (5, 20), "an extra layer for the morning", True),
    Condition("light snow", (60, 80), "warm boots and gloves", False),
    Condition("strong winds and low cloud", (20, 40), "a windproof jacket", False),
    Condition("sunny spells with a light breeze", (5, 15), "sunscreen and a light top layer", True),
)

# the day's high (degrees Celsius) is drawn uniformly from its climate's range
HIGH_RANGE = {"cold": (-2, 14), "mild": (12, 24), "hot": (22, 36), "wet": (7, 18)}


def stable_rng(*parts: object) -> np.random.Generator:
    """An RNG seeded deterministically by ``parts`` (ints / strings)."""
    ints = [p if isinstance(p, int) else zlib.crc32(str(p).encode()) for p in parts]
    return np.random.default_rng(ints)


def degrees(n: int) -> str:
    """A temperature as spoken: "minus 3" rather than "-3"."""
    return f"minus {-n}" if n < 0 else str(n)


# What a forecast means for the listener, as functions of the values the result text states, so a
# relay can give the same advice from what it has read (DESIGN §2 rule 6) as an answer from the model.


def wind_desc(wind: int) -> str:
    return "fairly calm" if wind < 12 else "a little breezy" if wind < 25 else "quite windy" if wind < 35 else "very windy"


def rain_comment(rain: int) -> str:
    if rain < 25:
        return "you can probably leave the umbrella at home"
    if rain < 60:
        return "it's worth keeping an umbrella handy"
    return "you should plan on getting wet at some point"


def layer_for(evening: int) -> str:
    """What to wear for an evening at ``evening`` degrees."""
    return "a warm coat" if evening <= 5 else "a sweater" if evening <= 14 else "just a light shirt"


def gear_for(cond: str) -> str | None:
    """What to take for the condition phrase ``cond`` (None for a phrase the model does not know)."""
    return next((c.gear for c in CONDITIONS if c.phrase == cond), None)


def forecast(city: str, day: tuple[str, str], seed: int) -> dict[str, object]:
    """The forecast for `city` on `day` ((bare, on-form), one of harness.dates.DAYS), fixed by `seed`.

    Raises KeyError for a city with no climate. The harness returns these fields as the weather
    tool's result, and the text banks word answers from the same call, so the two always agree.
    """
    bare, on = day
    r = stable_rng(int(seed), city, bare)
    lo, hi = HIGH_RANGE[CLIMATE[city]]
    high = int(r.integers(lo, hi + 1))
    pool = [c for c in CONDITIONS if (c.phrase != "light snow" or high <= 4)]
    cond = pool[int(r.integers(len(pool)))]
    low = high - int(r.integers(4, 11))
    rain = max(5, 5 * (int(r.integers(cond.rain[0], cond.rain[1] + 1)) // 5))
    wind = int(r.integers(5, 46))
    if cond.phrase.startswith("strong winds"):
        wind = max(wind, 38)
    gust = wind + int(r.integers(10, 26))
    evening = low + int(r.integers(1, 4))
    windows = ("in the morning", "around midday", "in the late afternoon", "early in the day")
    window = windows[int(r.integers(len(windows)))]
    if cond.good and rain < 40 and wind < 30:
        verdict = "looks good"
        fit = "works nicely"
    else:
        verdict = "isn't ideal"
        fit = "could be tricky"
    return {
        "high_n": high,
        "low_n": low,
        "day": bare,
        "day_on": on,
        "cond": cond.phrase,
        "gear": cond.gear,
        "high": degrees(high),
        "low": degrees(low),
        "rain": rain,
        "rain_comment": rain_comment(rain),
        "wind": wind,
        "gust": gust,
        "wind_desc": wind_desc(wind),
        "evening": degrees(evening),
        "layer": layer_for(evening),
        "window": window,
        "verdict": verdict,
        "fit": fit,
    }
