"""Computed slots for the weather exchanges (weather.yaml names them under ``derive`` / ``sample``)."""

from __future__ import annotations

from generators.harness.weather import degrees, forecast

from ..engine import Rng, Slots, number_words, row_prose
from ..loader import BankData


def _day(v: object) -> tuple[str, str]:
    assert isinstance(v, tuple)
    return v  # (bare, on-form)


def weather_forecast(s: Slots, data: BankData) -> Slots:
    """The forecast slots for {city, day, seed}: the harness's weather model (generators/harness/weather.py)."""
    return forecast(str(s["city"]), _day(s["day"]), int(s["seed"]))  # type: ignore[arg-type]


def weather_compare(s: Slots, data: BankData) -> Slots:
    a = weather_forecast({"city": s["city"], "day": s["day"], "seed": s["seed"]}, data)
    b = weather_forecast({"city": s["city2"], "day": s["day"], "seed": s["seed"]}, data)
    ha, hb = int(a["high_n"]), int(b["high_n"])  # type: ignore[arg-type]
    diff = abs(ha - hb)
    if diff == 0:
        warmer = f"both cities top out at {degrees(ha)} degrees"
    else:
        w, c = (s["city"], s["city2"]) if ha > hb else (s["city2"], s["city"])
        warmer = f"{w} is {number_words(diff)} {'degree' if diff == 1 else 'degrees'} warmer than {c}"
    ra, rb = int(a["rain"]), int(b["rain"])  # type: ignore[arg-type]
    drier = s["city"] if ra < rb else s["city2"] if rb < ra else ""
    drier_s = f"{drier} is the drier bet" if drier else "they're level on rain"
    return {
        "day": a["day"], "day_on": a["day_on"],
        "cond_a": a["cond"], "cond_b": b["cond"], "high_a": degrees(ha), "high_b": degrees(hb),
        "low_a": a["low"], "low_b": b["low"], "rain_a": ra, "rain_b": rb,
        "wind_a": a["wind"], "wind_b": b["wind"], "warmer": warmer, "drier_s": drier_s,
        "gear_a": a["gear"], "gear_b": b["gear"],
    }


def other_city(rng: Rng, slots: Slots, data: BankData) -> str:
    """A second city for a comparison: never the first one ("Marrakesh or Marrakesh")."""
    others = [c for c in data.tables["cities"].keys() if c != slots.get("city")]
    return str(others[int(rng.integers(len(others)))])


def weather_wear(s: Slots, data: BankData) -> Slots:
    w = weather_forecast(s, data)
    high = int(w["high_n"])  # type: ignore[arg-type]
    rain = int(w["rain"])  # type: ignore[arg-type]
    if high <= 4:
        top, bottom, shoes = "[a thermal base layer, a thick jumper and a padded coat|a warm base layer under a heavy jumper and a padded coat]", "[lined trousers|thick trousers]", "[insulated boots|warm boots]"
    elif high <= 12:
        top, bottom, shoes = "[a long sleeve top with a warm jumper|a jumper over a long sleeve top]", "[jeans or chinos|chinos or jeans]", "[closed shoes or ankle boots|ankle boots]"
    elif high <= 19:
        top, bottom, shoes = "[a light long sleeve shirt and a thin jacket|a thin jacket over a long sleeve shirt]", "jeans", "[trainers|sneakers]"
    elif high <= 26:
        top, bottom, shoes = "[a T-shirt with a light overshirt|a T-shirt and a light overshirt]", "[light trousers or a skirt|a skirt or light trousers]", "[comfortable trainers|comfy trainers]"
    else:
        top, bottom, shoes = "[a loose linen shirt or a vest top|a vest top or a loose linen shirt]", "[shorts or a light dress|a light dress or shorts]", "[sandals|sandals or flip-flops]"
    extra = (   # from the rain chance the user read out (the wind is not in the request)
        "a waterproof jacket" if rain >= 60 else "a small umbrella" if rain >= 35
        else "[a light layer to carry|a spare layer in your bag]"
    )
    return {**w, "top": top, "bottom": bottom, "shoes": shoes, "extra": extra}


def weather_why(s: Slots, data: BankData) -> Slots:
    t = data.tables["phenomena"][str(s["thing"])]
    return row_prose(t, ("cause", "detail", "tip"))


def weather_hazard(s: Slots, data: BankData) -> Slots:
    t = data.tables["hazards"][str(s["hazard"])]
    return row_prose(t, ("before", "during", "after"))


FUNCTIONS = (weather_hazard, weather_forecast, weather_why, weather_compare, other_city, weather_wear,)
