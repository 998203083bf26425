"""The English text banks: ``*.yaml`` content in this folder, and the functions it names.

``FUNCTIONS`` is the registry the loader resolves ``derive:`` and ``sample:`` names against
(a name missing here is a load error); ``LISTS`` are value lists owned by other code that the
YAML may draw from by name: the day names the harness's tools understand.
"""

from __future__ import annotations

from generators.harness.dates import DAYS, WEEKDAYS

from . import (
    chatter,
    cooking,
    finance,
    fitness,
    health,
    home,
    music,
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
)

LISTS = {"days": DAYS, "weekdays": WEEKDAYS}
