"""The English text banks: ``*.yaml`` content in this folder, and the functions it names.

``FUNCTIONS`` is the registry the loader resolves ``derive:``, ``sample:`` and ``read:`` names
against (a name missing here is a load error); ``LISTS`` are value lists owned by other code that
the YAML may draw from by name: the day names the harness's tools understand; ``SAY_TIME`` says a
harness clock time ("18:30") the way the delegation phrases need it; ``RULES`` are the render
rules of English text (:mod:`.render`).
"""

from __future__ import annotations

from generators.harness.dates import DAYS, WEEKDAYS

from . import (
    chatter,
    cooking,
    delegation,
    delegation_calculator,
    delegation_calendar,
    delegation_datetime,
    delegation_lookup,
    delegation_search,
    delegation_unit_convert,
    delegation_weather,
    finance,
    fitness,
    health,
    home,
    music,
    render,
    restaurants,
    shopping,
    sports,
    tech_help,
    travel,
    weather,
)

FUNCTIONS = (
    weather.FUNCTIONS + travel.FUNCTIONS + sports.FUNCTIONS + fitness.FUNCTIONS + cooking.FUNCTIONS
    + restaurants.FUNCTIONS + shopping.FUNCTIONS + tech_help.FUNCTIONS + home.FUNCTIONS + music.FUNCTIONS
    + finance.FUNCTIONS + health.FUNCTIONS + chatter.FUNCTIONS
    + delegation.FUNCTIONS + delegation_weather.FUNCTIONS + delegation_calculator.FUNCTIONS
    + delegation_unit_convert.FUNCTIONS + delegation_datetime.FUNCTIONS + delegation_lookup.FUNCTIONS
    + delegation_search.FUNCTIONS + delegation_calendar.FUNCTIONS
)

LISTS = {"days": DAYS, "weekdays": WEEKDAYS}

SAY_TIME = delegation.say_time
RULES = render.RULES
