"""Functions delegation_weather.yaml names: the request's day forms, and reading a forecast result."""

from __future__ import annotations

from generators.harness.weather import gear_for, layer_for, rain_comment, wind_desc

from ..delegations import Result
from ..results import degrees_value, forecast_values
from ..engine import Rng, Slots
from ..loader import BankData


def weather_request(s: Slots, data: BankData) -> Slots:
    bare, on = s["when"]  # type: ignore[misc]
    return {"day": bare, "day_on": on, "city_s": f"{s['city']}'s"}


def read_weather(rng: Rng, res: Result, s: Slots, data: BankData) -> dict[str, object]:
    """The forecast as the result text states it, complete or partial, and the advice that follows from it.

    Only the text is read, never the harness fields (DESIGN §2 rule 6): the advice (what to take, how
    windy that is) comes from the values read, by the rules the harness's forecast uses too.
    """
    out = forecast_values(res)
    if "evening" in out:
        out["layer"] = layer_for(degrees_value(str(out["evening"])))
    if "rain" in out:
        out["rain_comment"] = rain_comment(int(out["rain"]))  # type: ignore[call-overload]
    if "wind" in out:
        out["wind_desc"] = wind_desc(int(out["wind"]))  # type: ignore[call-overload]
    if "cond" in out and (gear := gear_for(str(out["cond"]))) is not None:
        out["gear"] = gear
    return out


FUNCTIONS = (weather_request, read_weather)
