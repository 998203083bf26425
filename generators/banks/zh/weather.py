"""Computed slots for the Mandarin weather exchanges: a deterministic forecast per (city, day, seed).

The climates and conditions are tables in weather.yaml; every number is said through
zh/numbers.py, and every comparison is computed here so the answer is right.
"""

from __future__ import annotations

import zlib

import numpy as np

from generators.harness.weather import RAIN_MIN_HIGH, SNOW_MAX_HIGH, THUNDER_MIN_HIGH

from ..engine import Rng, Slots
from ..loader import BankData
from .numbers import clock, count, daypart, degrees, number, percent


def _rng(*parts: object) -> np.random.Generator:
    """An RNG fixed by ``parts`` (ints and strings), independent of the dialogue's own draws."""
    return np.random.default_rng([p if isinstance(p, int) else zlib.crc32(str(p).encode()) for p in parts])


def _wind_desc(level: int) -> str:
    return "风不大" if level <= 2 else "稍微有点风" if level <= 4 else "风挺大的"


def rain_comment(rain: int) -> str:
    if rain < 25:
        return "伞基本用不上"
    if rain < 60:
        return "最好带把伞以防万一"
    return "出门一定要带伞"


def _evening_tip(evening: int) -> str:
    if evening <= 5:
        return "得穿羽绒服或者厚外套"
    if evening <= 14:
        return "最好穿件毛衣或者外套"
    if evening <= 21:
        return "带件薄外套就够了"
    return "穿短袖也不会冷"


def _window(start: int, end: int) -> str:
    """上午十点到中午十二点; the part of the day is said once when both ends share it (下午三点到五点)."""
    same = daypart(start) == daypart(end)
    return f"{clock(start)}到{clock(end, with_daypart=not same)}"


def falls_with(falls: str, high: int) -> bool:
    """Whether rain, thunder or snow (or nothing, ``none``) can fall on a day whose high is ``high``: the
    limits of the one weather model (generators/harness/weather.py), so 雷阵雨 never comes at 零下九度."""
    return {"none": True, "rain": high >= RAIN_MIN_HIGH, "thunder": high >= THUNDER_MIN_HIGH,
            "snow": high <= SNOW_MAX_HIGH}[falls]


def _numbers(city: str, day: str, seed: int, data: BankData) -> dict[str, object]:
    """The forecast as numbers and table rows: what every phrasing below is computed from."""
    r = _rng(int(seed), city, day)
    climate = data.tables["climates"][data.tables["cities"][city].climate]
    high = int(r.integers(climate.lo, climate.hi + 1))
    pool = [c for c in data.tables["conditions"] if falls_with(c.falls, high)]
    cond = pool[int(r.integers(len(pool)))]
    low = high - int(r.integers(4, 11))
    rain = max(5, 5 * (int(r.integers(cond.rain_lo, cond.rain_hi + 1)) // 5))
    level = max(cond.wind_min, int(r.integers(1, 6)))
    wind_dir = data.lists["wind_dirs"][int(r.integers(len(data.lists["wind_dirs"])))]
    evening = low + int(r.integers(1, 4))
    start = int(r.integers(8, 11)) if "下午" in cond.cond else int(r.integers(8, 16))
    return {"cond": cond, "high": high, "low": low, "rain": rain, "level": level, "wind_dir": wind_dir,
            "evening": evening, "start": start}


def _wind(n: dict[str, object]) -> str:
    level = int(n["level"])  # type: ignore[call-overload]
    return f"{n['wind_dir']}{number(level)}到{number(level + 1)}级"


def weather_forecast(s: Slots, data: BankData) -> Slots:
    """The forecast slots for {city, day, seed}."""
    n = _numbers(str(s["city"]), str(s["day"]), int(s["seed"]), data)  # type: ignore[call-overload]
    cond = n["cond"]
    high, low, rain, level = (int(n[k]) for k in ("high", "low", "rain", "level"))  # type: ignore[call-overload]
    start = int(n["start"])  # type: ignore[call-overload]
    if cond.good and rain < 40 and level <= 4:  # type: ignore[attr-defined]
        verdict = "挺合适的"
    elif cond.good or rain < 60:  # type: ignore[attr-defined]
        verdict = "问题不大，就是得多准备一点"
    else:
        verdict = "不太合适"
    return {
        "cond": cond.cond, "sky": cond.sky, "gear": cond.gear,  # type: ignore[attr-defined]
        "high": degrees(high), "low": degrees(low), "rain": percent(rain), "rain_comment": rain_comment(rain),
        "wind": _wind(n), "wind_desc": _wind_desc(level),
        "evening": degrees(int(n["evening"])), "evening_tip": _evening_tip(int(n["evening"])),  # type: ignore[call-overload]
        "window": _window(start, start + 2), "verdict": verdict,
    }


def other_city(rng: Rng, slots: Slots, data: BankData) -> str:
    """A city other than the one already drawn (for comparisons)."""
    keys = [row.name for row in data.tables["cities"] if row.name != slots.get("city")]
    return str(keys[int(rng.integers(len(keys)))])


def weather_compare(s: Slots, data: BankData) -> Slots:
    """Both cities' forecasts for the day, which is warmer by how much, and which is drier."""
    a_city, b_city, day, seed = str(s["city"]), str(s["city2"]), str(s["day"]), int(s["seed"])  # type: ignore[call-overload]
    a, b = _numbers(a_city, day, seed, data), _numbers(b_city, day, seed, data)
    ha, hb = int(a["high"]), int(b["high"])  # type: ignore[call-overload]
    if ha == hb:
        warmer = f"两边最高气温都是{degrees(ha)}"
    else:
        w, c = (a_city, b_city) if ha > hb else (b_city, a_city)
        warmer = f"{w}比{c}暖和{count(abs(ha - hb), '度')}"
    ra, rb = int(a["rain"]), int(b["rain"])  # type: ignore[call-overload]
    if ra == rb:
        drier_s = "两边下雨的可能性一样"
    else:
        drier_s = f"{a_city if ra < rb else b_city}更不容易下雨"
    return {
        "cond_a": a["cond"].cond, "cond_b": b["cond"].cond,  # type: ignore[attr-defined]
        "high_a": degrees(ha), "high_b": degrees(hb),
        "low_a": degrees(int(a["low"])), "low_b": degrees(int(b["low"])),  # type: ignore[call-overload]
        "rain_a": percent(ra), "rain_b": percent(rb), "wind_a": _wind(a), "wind_b": _wind(b),
        "warmer": warmer, "drier_s": drier_s,
    }


FUNCTIONS = (weather_forecast, other_city, weather_compare)
