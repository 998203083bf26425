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
    """A kind of weather: the service words it in one of ``phrases`` (the first names it), and
    ``gear`` says what to take; its ``[a|b]`` variants are chosen where it is said."""

    phrases: tuple[str, ...]
    rain: tuple[int, int]
    gear: str
    good: bool
    # the day's highs (degrees Celsius) it can come with, and its wind (km/h): no rain or thunder on a day that
    # stays below freezing (issue #28: 雷阵雨 at 零下九度), no snow on a warm one, no "light breeze" in a gale
    highs: tuple[int, int] = (-99, 99)
    wind: tuple[int, int] = (0, 99)

    @property
    def name(self) -> str:
        return self.phrases[0]


RAIN_MIN_HIGH = 3      # rain needs a day whose high is above freezing with room to spare (below it falls as snow)
THUNDER_MIN_HIGH = 10  # thunderstorms need a warm day
SNOW_MAX_HIGH = 4      # snow only on a day that stays near freezing
STRONG_WIND = 38       # "strong winds": km/h at least
BREEZE_MAX = 19        # "a light breeze": km/h at most (wind_desc calls 25 and up windy)

CONDITIONS: tuple[Condition, ...] = (
    Condition(("clear skies", "clear blue skies all day", "a cloudless day"), (0, 10),
              "[sunglasses and some sunscreen|sunscreen and a pair of sunglasses]", True),
    Condition(("bright sunshine", "plenty of sunshine", "sunshine from morning to evening"), (0, 5),
              "[a hat and plenty of water|a sun hat and a full water bottle]", True),
    Condition(("a mix of sun and cloud", "sunny intervals between the clouds", "some sun and some cloud"), (10, 25),
              "[a light layer just in case|an extra layer in case it turns]", True),
    Condition(("mostly cloudy skies", "a grey overcast day", "thick cloud with the odd bright patch"), (15, 30),
              "[a light jacket|a thin jacket]", True),
    Condition(("light rain on and off", "patchy drizzle through the day", "the odd light shower"), (50, 70),
              "[an umbrella|a small umbrella]", False, highs=(RAIN_MIN_HIGH, 99)),
    Condition(("steady rain for most of the day", "a wet day with rain setting in early", "persistent rain"), (80, 95),
              "[a proper raincoat and waterproof shoes|a good raincoat and shoes that keep the water out]", False,
              highs=(RAIN_MIN_HIGH, 99)),
    Condition(("scattered showers in the afternoon", "showers breaking out in the afternoon", "showers later in the day"),
              (40, 60), "[a compact umbrella|a folding umbrella]", False, highs=(RAIN_MIN_HIGH, 99)),
    Condition(("a chance of thunderstorms later on", "thundery showers building later", "a risk of storms by evening"),
              (40, 70), "[a rain jacket|a waterproof jacket]", False, highs=(THUNDER_MIN_HIGH, 99)),
    Condition(("morning fog that should lift by midday", "a foggy morning clearing around noon", "early mist and fog"),
              (5, 20), "[an extra layer for the morning|something warm for the foggy start]", True),
    Condition(("light snow", "a few snow flurries", "light snowfall on and off"), (60, 80),
              "[warm boots and gloves|gloves and boots with a good grip]", False, highs=(-99, SNOW_MAX_HIGH)),
    Condition(("strong winds and low cloud", "blustery winds under low cloud", "a blustery grey day"), (20, 40),
              "[a windproof jacket|a jacket that keeps the wind out]", False, wind=(STRONG_WIND, 99)),
    Condition(("sunny spells with a light breeze", "bright spells and a gentle breeze", "sunshine with a soft breeze"),
              (5, 15), "[sunscreen and a light top layer|sunscreen and a light top]", True, wind=(0, BREEZE_MAX)),
)


WIND_DRAW = (5, 45)    # the wind (km/h) a forecast draws before its condition bounds it


def conditions_for(high: int) -> list[Condition]:
    """The conditions a day with a high of ``high`` degrees can have."""
    return [c for c in CONDITIONS if c.highs[0] <= high <= c.highs[1]]


def wind_for(cond: Condition, drawn: int) -> int:
    """The drawn wind (km/h) brought inside what ``cond`` says: a gale is no "light breeze"."""
    return min(max(drawn, cond.wind[0]), cond.wind[1])


def condition_named(phrase: str) -> Condition | None:
    """The condition the service words as ``phrase`` (None for a phrase it never uses)."""
    return next((c for c in CONDITIONS if phrase in c.phrases), None)


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
# Each is said in one of its [a|b] variants, chosen where it is said (generators/banks/engine.realise).


def wind_desc(wind: int) -> str:
    return ("[fairly calm|pretty still]" if wind < 12 else "[a little breezy|a bit breezy]" if wind < 25
            else "[quite windy|fairly windy]" if wind < 35 else "[very windy|really windy]")


def rain_comment(rain: int) -> str:
    if rain < 25:
        return ("[you can probably leave the umbrella at home|you probably won't need an umbrella"
                "|an umbrella can most likely stay at home]")
    if rain < 60:
        return "[it's worth keeping an umbrella handy|an umbrella in your bag is a good idea|it's wise to carry an umbrella]"
    return "[you should plan on getting wet at some point|expect to get rained on at some point|you'll want to be ready for rain]"


def layer_for(evening: int) -> str:
    """What to wear for an evening at ``evening`` degrees."""
    return ("[a warm coat|a proper winter coat]" if evening <= 5 else "[a sweater|a jumper]" if evening <= 14
            else "[just a light shirt|nothing more than a light shirt]")


def gear_for(cond: str) -> str | None:
    """What to take for the condition phrase ``cond`` (None for a phrase the model does not know)."""
    c = condition_named(cond)
    return None if c is None else c.gear


def forecast(city: str, day: tuple[str, str], seed: int) -> dict[str, object]:
    """The forecast for `city` on `day` ((bare, on-form), one of harness.dates.DAYS), fixed by `seed`.

    Raises KeyError for a city with no climate. The harness returns these fields as the weather
    tool's result, and the text banks word answers from the same call, so the two always agree.
    """
    bare, on = day
    r = stable_rng(int(seed), city, bare)
    lo, hi = HIGH_RANGE[CLIMATE[city]]
    high = int(r.integers(lo, hi + 1))
    pool = conditions_for(high)
    cond = pool[int(r.integers(len(pool)))]
    low = high - int(r.integers(4, 11))
    rain = max(5, 5 * (int(r.integers(cond.rain[0], cond.rain[1] + 1)) // 5))
    wind = wind_for(cond, int(r.integers(WIND_DRAW[0], WIND_DRAW[1] + 1)))
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
    phrase = cond.phrases[int(r.integers(len(cond.phrases)))]   # drawn last: the values stay as they were
    return {
        "high_n": high,
        "low_n": low,
        "day": bare,
        "day_on": on,
        "cond": phrase,
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
