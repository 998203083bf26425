"""The Mandarin text banks: ``*.yaml`` content in this folder, and the functions it names.

``FUNCTIONS`` is the registry the loader resolves ``derive:``, ``sample:`` and ``read:`` names
against; ``LISTS`` are value lists owned by other code (none: the zh day names live in
common.yaml's ``harness_days``, which maps them onto the harness's days); ``SAY_TIME`` says a
harness clock time ("18:30") the Mandarin way (晚上六点半) and ``SAY_DAY`` a harness weekday (周一). Every number is spelt by
:mod:`.numbers`; :mod:`.render` holds the render rules for Mandarin text.
"""

from __future__ import annotations

from . import delegation_calendar, delegation_datetime, delegation_lookup
from . import delegation_calculator, delegation_unit_convert
from . import chatter, cooking, delegation_weather, health, numbers, render, restaurants, shopping, travel, weather

FUNCTIONS = (
    weather.FUNCTIONS + travel.FUNCTIONS + cooking.FUNCTIONS + restaurants.FUNCTIONS + shopping.FUNCTIONS
    + health.FUNCTIONS + chatter.FUNCTIONS
    + delegation_weather.FUNCTIONS + delegation_calculator.FUNCTIONS + delegation_unit_convert.FUNCTIONS
    + delegation_datetime.FUNCTIONS + delegation_lookup.FUNCTIONS + delegation_calendar.FUNCTIONS
)

LISTS: dict[str, tuple[str, ...]] = {}

SAY_TIME = numbers.say_time
SAY_DAY = numbers.say_weekday
RULES = render.RULES
