"""Functions delegation_weather.yaml names: the request's day forms, and reading a forecast result."""

from __future__ import annotations

import re

from generators.harness.weather import gear_for, layer_for, rain_comment, wind_desc

from ..delegations import Result, segments
from ..engine import Rng, Slots
from ..loader import BankData


def weather_request(s: Slots, data: BankData) -> Slots:
    bare, on = s["when"]  # type: ignore[misc]
    return {"day": bare, "day_on": on, "city_s": f"{s['city']}'s"}


def _degrees(said: str) -> int:
    return -int(said.removeprefix("minus ")) if said.startswith("minus ") else int(said)


def read_weather(rng: Rng, res: Result, s: Slots, data: BankData) -> dict[str, object]:
    """The forecast as the result text states it, complete or partial, and the advice that follows from it.

    Only the text is read, never the harness fields (DESIGN §2 rule 6): the advice (what to take, how
    windy that is) comes from the values read, by the rules the harness's forecast uses too.
    """
    out: dict[str, object] = {}
    for i, (seg, whole) in enumerate(segments(res, ", ")):
        if i == 0:
            if whole:
                out["cond"] = seg
        elif m := re.fullmatch(r"((?:minus )?\d+) to ((?:minus )?\d+) degrees Celsius", seg):
            out["low"], out["high"] = m.group(1), m.group(2)
        elif m := re.fullmatch(r"((?:minus )?\d+) in the evening", seg):
            out["evening"] = m.group(1)
            out["layer"] = layer_for(_degrees(m.group(1)))
        elif m := re.fullmatch(r"(\d+)% chance of rain", seg):
            out["rain"] = int(m.group(1))
            out["rain_comment"] = rain_comment(int(m.group(1)))
        elif m := re.fullmatch(r"wind (\d+) km/h", seg):
            out["wind"] = int(m.group(1))
            out["wind_desc"] = wind_desc(int(m.group(1)))
    if "cond" in out and (gear := gear_for(str(out["cond"]))) is not None:
        out["gear"] = gear
    return out


FUNCTIONS = (weather_request, read_weather)
