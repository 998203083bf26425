"""Functions zh/delegation_weather.yaml names: the harness's names for the request, and reading its forecast.

The harness answers in English ("Beijing, Saturday: light rain on and off, 3 to 9 degrees Celsius, ...");
the reader takes the values generators/banks/results.py finds in that text and says them the Mandarin
way, so every number said is one the result states (DESIGN §2 rule 6).
"""

from __future__ import annotations

from generators.harness.weather import condition_named

from ..delegations import Result
from ..engine import Rng, Slots
from ..loader import BankData
from ..results import degrees_value, forecast_values
from .numbers import degrees, number, percent
from .weather import rain_comment


def weather_request_zh(s: Slots, data: BankData) -> Slots:
    """The city and day as the harness's tools name them."""
    return {"city_en": data.tables["cities"][s["city"]].en, "day_en": data.tables["harness_days"][s["day"]].harness}


def wind_desc(kmh: int) -> str:
    """How a wind of ``kmh`` feels (the thresholds of generators/harness/weather.py wind_desc)."""
    return "风不大" if kmh < 12 else "有点小风" if kmh < 25 else "风挺大的" if kmh < 35 else "风非常大"


def layer_for(evening: int) -> str:
    """What to wear for an evening at ``evening`` degrees (the thresholds of the harness's layer_for)."""
    return "厚外套或者羽绒服" if evening <= 5 else "毛衣" if evening <= 14 else "薄衬衫"


def read_weather_zh(rng: Rng, res: Result, s: Slots, data: BankData) -> dict[str, object]:
    """The forecast the result text states, complete or partial, said in Mandarin, and the advice it implies."""
    found = forecast_values(res)
    out: dict[str, object] = {}
    phrases = data.tables["weather_phrases"]
    cond = condition_named(str(found["cond"])) if "cond" in found else None   # any wording of it
    if cond is not None and cond.name in phrases.keys():
        row = phrases[cond.name]
        out["cond"], out["gear"] = row.zh, row.gear
    for key in ("low", "high", "evening"):
        if key in found:
            out[key] = degrees(degrees_value(str(found[key])))
    if "evening" in found:
        out["layer"] = layer_for(degrees_value(str(found["evening"])))
    if "rain" in found:
        rain = int(found["rain"])  # type: ignore[call-overload]
        out["rain"], out["rain_comment"] = percent(rain), rain_comment(rain)
    if "wind" in found:
        wind = int(found["wind"])  # type: ignore[call-overload]
        out["wind"], out["wind_desc"] = f"{number(wind)}公里", wind_desc(wind)
    return out


FUNCTIONS = (weather_request_zh, read_weather_zh)
