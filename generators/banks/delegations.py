"""Delegated (background tool) requests whose results come from the simulated harness.

A :class:`Spec` draws slots, builds the harness call (:class:`generators.harness.ToolCall`)
and phrases everything around it: the spoken user request and acknowledgement, a topic
noun phrase, the private plain-language request, and the spoken relay. The relay is never
computed here: :func:`relay` reads the harness :class:`~generators.harness.Execution`
(``fields`` for a complete answer, only the received ``text`` for a partial one) and phrases
what it finds, so what the assistant says always agrees with what the harness returned.

Facts that answer lookups and searches live in ``generators/harness/data/*.tsv``; this
module only holds what the *user* knows (their flight number, the street they live on,
the band they like), never the answers.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal
from typing import Any, Callable, Mapping

from generators.harness import Execution, ToolCall

from .engine import Rng, Slots, fill, money, number_words, pick, render_rng, spoken_time
from .loader import load_language

# Values the English data files own (generators/banks/en/*.yaml) that these requests draw from.
_DATA = load_language("en").data
CUISINES = _DATA.tables["cuisines"].rows
DISHES = _DATA.tables["dishes"].rows
PRODUCTS = _DATA.tables["products"].rows
DEVICES: tuple[str, ...] = _DATA.lists["devices"]
TEAMS: tuple[str, ...] = _DATA.lists["teams"]
CITY_NAMES: tuple[str, ...] = _DATA.tables["cities"].keys()
FIRST_NAMES: tuple[str, ...] = _DATA.lists["first_names"]
MONTHS: tuple[str, ...] = _DATA.lists["months"]
DAYS = _DATA.lists["days"]
WEEKDAYS: tuple[str, ...] = _DATA.lists["weekdays"]

# =========================================================================== what users know

FLIGHTS: tuple[tuple[str, str], ...] = (
    ("OS 1778", "Edinburgh"), ("AC 574", "Austin"), ("QF 2835", "San Francisco"), ("LH 510", "Auckland"),
    ("SK 2695", "Prague"), ("QF 642", "Florence"), ("LH 2705", "Kyoto"), ("IB 315", "Vienna"),
    ("KL 1448", "Seoul"), ("AF 525", "Madrid"), ("OS 2522", "Marrakesh"), ("AF 1724", "Seattle"),
    ("BA 2215", "London"), ("LX 2849", "Montreal"), ("TP 1133", "Berlin"), ("KL 1757", "Vancouver"),
    ("TP 600", "New Orleans"), ("EI 2147", "Zurich"), ("AZ 1702", "New York"), ("AZ 2464", "Reykjavik"),
    ("IB 2166", "Athens"), ("AC 2274", "Naples"), ("TP 936", "Porto"), ("AC 1437", "Paris"),
    ("LX 2810", "Istanbul"), ("TP 430", "Mexico City"), ("TP 2413", "Tokyo"), ("QF 697", "Dublin"),
    ("OS 1465", "Amsterdam"), ("EI 2866", "Hanoi"), ("OS 2761", "Toronto"), ("IB 2425", "Chicago"),
    ("LX 1845", "Bangkok"), ("OS 1745", "Cairo"), ("TP 2833", "Buenos Aires"), ("OS 1362", "Lisbon"),
)
STORES = ("Northside Electronics", "Maple Street Hardware", "City Outdoor Supply", "Brightway Home", "Parkside Sports",
          "The Corner Shop", "Riverside Mall", "Value Depot", "Greenleaf Books", "Sunrise Pet Supplies",
          "Hilltop Kitchenware", "Oak and Thread")
PROVIDERS = ("Skyline Broadband", "Metro Fibre", "BrightNet", "CityLink Internet", "WaveCom", "Nimbus Telecom",
             "Harbour Fibre", "Velocity Broadband", "OpenLine", "Summit Networks", "Kestrel Internet", "Lighthouse Fibre")
STREETS = ("Elm Road", "Station Street", "Willow Crescent", "Mill Lane", "Church Street", "Orchard Close",
           "Victoria Road", "Park Avenue", "Meadow Way", "Chestnut Grove", "Bridge Street", "Queens Road",
           "Hawthorn Drive", "Kingfisher Close", "Market Street", "Beech Avenue", "Cedar Lane", "Riverside Walk",
           "Holly Road", "Sycamore Street", "Canal Street", "Maple Drive", "Primrose Lane", "Ash Grove",
           "High Street", "Linden Avenue", "Foxglove Way", "Heather Close", "Rowan Road", "Larch Street")
COUNTRIES = ("France", "Japan", "Australia", "Canada", "Brazil", "Kenya", "Norway", "Portugal", "Egypt", "Argentina",
             "Peru", "Vietnam", "Morocco", "New Zealand", "Iceland", "Chile", "Turkey", "Switzerland", "Ghana",
             "Thailand", "India", "Mexico", "Poland", "Hungary", "South Korea", "Ireland", "Greece", "Finland",
             "Colombia", "Indonesia")
MOUNTAINS = ("Mount Everest", "Mont Blanc", "Kilimanjaro", "Mount Fuji", "Ben Nevis", "the Matterhorn", "Snowdon",
             "Table Mountain", "Mount Kosciuszko", "Denali", "Aconcagua", "Mount Olympus", "Mount Rainier",
             "the Zugspitze", "Mount Kenya", "Toubkal")
BANDS = ("The Paper Lanterns", "Velvet Harbour", "Midnight Orchard", "The Copper Foxes", "Salt and Ember",
         "Northern Lights Quartet", "The Slow Tides", "Copper Sky", "Juniper Road", "The Night Owls",
         "Glass Meadow", "The Lantern Choir", "Blue Heron Trio", "Static Bloom", "The Wandering Keys", "Paper Moon Radio")
# fixtures with a result in the snippets table: (home team, away team)
FIXTURES: tuple[tuple[str, str], ...] = (
    ("Riverside United", "Valley Stars"), ("Harbour City Hawks", "Northgate Rovers"),
    ("Eastfield Athletic", "Lakeside Bears"), ("Westbrook Wanderers", "Capital Comets"),
    ("Southport Rangers", "Mountain Lions"), ("Kingsbridge Town", "Coastal Sharks"),
    ("Millbrook City", "Prairie Foxes"), ("Valley Stars", "Harbour City Hawks"),
    ("Northgate Rovers", "Eastfield Athletic"), ("Lakeside Bears", "Westbrook Wanderers"),
    ("Capital Comets", "Southport Rangers"), ("Mountain Lions", "Kingsbridge Town"),
    ("Coastal Sharks", "Millbrook City"), ("Prairie Foxes", "Riverside United"),
    ("Riverside United", "Northgate Rovers"), ("Lakeside Bears", "Capital Comets"),
    ("Mountain Lions", "Coastal Sharks"), ("Valley Stars", "Prairie Foxes"),
    ("Harbour City Hawks", "Westbrook Wanderers"), ("Kingsbridge Town", "Eastfield Athletic"),
)
RESTAURANTS: tuple[tuple[str, str], ...] = tuple((p, c.name) for c in CUISINES for p in c.places)
LOCAL_PLACES = ("Harbor Street Bakery", "Riverside Library", "Oakfield Library", "Elm Park Post Office",
                "Hillcrest Post Office", "Westside Recycling Centre", "Greenway Garden Centre",
                "Parkview Community Centre", "Maple Street Hardware", "Brightway Home", "Station Road Launderette",
                "Town Hall Records Office")
HEALTH_PLACES = ("Northside Pharmacy", "Central Pharmacy", "Lakeside Chemist", "Parkway Pharmacy",
                 "Hillview Walk-in Clinic", "Bridge Street Dental Practice", "Orchard Eye Clinic",
                 "Meadow Physiotherapy")
FITNESS_PLACES = ("Eastside Pool", "Riverside Leisure Centre", "Summit Climbing Wall", "Core Fitness Gym",
                  "Northgate Sports Hall", "Lakeview Tennis Club", "Ironworks Gym", "Westfield Lido",
                  "Sunrise Yoga Studio", "Harbour Rowing Club")
SHOP_PLACES = ("Northside Electronics", "City Outdoor Supply", "Parkside Sports", "The Corner Shop", "Riverside Mall",
               "Value Depot", "Greenleaf Books", "Sunrise Pet Supplies", "Hilltop Kitchenware", "Oak and Thread")
ITEMS: tuple[str, ...] = tuple(p.name.removeprefix("pair of ") for p in PRODUCTS)

# harness unit name -> how the assistant says it
SAY_UNIT = {
    "kilometers": "kilometres", "meters": "metres", "centimeters": "centimetres", "millimeters": "millimetres",
    "milliliters": "millilitres", "liters": "litres", "kilometers per hour": "kilometres per hour",
}
# (harness from-unit, harness to-unit, (lo, hi, step), decimals)
CONVERSIONS: dict[str, tuple[tuple[str, str, tuple[int, int, int], int], ...]] = {
    "cooking": (("ounces", "grams", (2, 40, 1), 0), ("cups", "milliliters", (2, 6, 1), 0),
                ("tablespoons", "milliliters", (2, 8, 1), 0), ("pounds", "grams", (2, 5, 1), 0)),
    "travel": (("miles", "kilometers", (3, 400, 1), 1), ("kilometers", "miles", (5, 600, 1), 1),
               ("kilometers per hour", "miles per hour", (30, 130, 10), 0), ("gallons", "liters", (2, 20, 1), 1)),
    "fitness": (("pounds", "kilograms", (5, 300, 1), 1), ("miles", "kilometers", (2, 26, 1), 2),
                ("kilometers", "miles", (5, 42, 1), 2)),
    "home": (("feet", "meters", (3, 60, 1), 2), ("inches", "centimeters", (2, 100, 1), 1),
             ("gallons", "liters", (2, 50, 1), 1), ("yards", "meters", (2, 100, 1), 1)),
    "health": (("pounds", "kilograms", (90, 320, 1), 1), ("inches", "centimeters", (48, 80, 1), 1),
               ("stones", "kilograms", (7, 25, 1), 1), ("fluid ounces", "milliliters", (2, 40, 1), 0)),
}
YEAR = 2026   # the assistant's "this year", for requests that name a date without one

# =========================================================================== the spec machinery


@dataclass(frozen=True)
class Part:
    """One relay sentence: templates that need the facts in ``needs``.

    ``main`` parts answer the question; other parts add facts (never one already said) or, as a
    ``note``, a remark that only needs its facts to be present ("that includes the tip").
    """

    needs: tuple[str, ...]
    templates: tuple[str, ...]
    main: bool = False
    note: bool = False


def main(needs: str, *templates: str) -> Part:
    return Part(tuple(needs.split()), templates, True)


def extra(needs: str, *templates: str) -> Part:
    return Part(tuple(needs.split()), templates, False)


def note(needs: str, *templates: str) -> Part:
    return Part(tuple(needs.split()), templates, False, True)


@dataclass(frozen=True)
class Revision:
    """A one-slot change the user can make while the task runs ("actually, make that Thursday")."""

    slot: str
    show: str                                   # template naming the slot's value: "{day}"
    sample: Callable[[Rng, Slots], object]      # a new value, given the other slots
    verb: str                                   # for "Got it, {verb} {new} instead."
    user: tuple[str, ...] = ()
    ack: tuple[str, ...] = ()


@dataclass(frozen=True)
class Result:
    """What a reader sees of an execution: the body text (partial suffix removed) and, if complete, the fields."""

    text: str
    fields: Mapping[str, Any]
    complete: bool


Reader = Callable[[Rng, Result, Slots], dict[str, object]]


@dataclass(frozen=True)
class Spec:
    name: str
    domain: str
    tool: str
    draw: Callable[[Rng], Slots]
    args: Callable[[Slots], dict[str, str]]
    user: tuple[str, ...]
    ack: tuple[str, ...]
    topic: str                  # "the forecast for {city} {day_on}"
    short: tuple[str, ...]      # "the forecast", for cancels and fallbacks
    service: str                # "the weather service"
    request: str                # the private request (template)
    read: Reader
    relay: tuple[Part, ...]
    derive: Callable[[Slots], Slots] | None = None
    revisions: tuple[Revision, ...] = ()
    fallback: tuple[str, ...] = ()   # spec-specific next steps when the tool fails
    weight: float = 1.0

    def view(self, base: Slots) -> Slots:
        out: Slots = dict(base)
        if self.derive is not None:
            out.update(self.derive(out))
        out["service"] = self.service
        return out

    def call(self, base: Slots) -> ToolCall:
        args = self.args(base)
        assert all(isinstance(v, str) for v in args.values()), args
        return ToolCall(self.tool, args)


# =========================================================================== small helpers


def _r(text: str) -> str:
    """Collapse whitespace (helper for long private request templates)."""
    return " ".join(text.split())


def _clock(h: int, m: int) -> str:
    return f"{h:02d}:{m:02d}"


def _hm(clock: str) -> tuple[int, int]:
    h, m = clock.split(":")
    return int(h), int(m)


def _say_time(rng: Rng, clock: str) -> str:
    h, m = _hm(clock)
    return spoken_time(h, m, int(rng.integers(5)))


def _round(x: float, decimals: int) -> Decimal:
    return Decimal(str(x)).quantize(Decimal(1).scaleb(-decimals), rounding=ROUND_HALF_UP)


def say_number(x: float, decimals: int = 2) -> str:
    """A number as the assistant says it: rounded to ``decimals``, no trailing zeros, no separators."""
    d = _round(x, decimals)
    if d == d.to_integral():
        return str(int(d))
    return format(d.normalize(), "f")


def say_money(x: float) -> str:
    return money(float(_round(x, 2)))


def _unit(u: str) -> str:
    return SAY_UNIT.get(u, u)


def _date_s(d: dt.date) -> str:
    return f"{MONTHS[d.month - 1]} {d.day}"


def _draw_date(rng: Rng, year: int = YEAR, months: tuple[int, int] = (1, 12)) -> dt.date:
    return dt.date(year, int(rng.integers(months[0], months[1] + 1)), int(rng.integers(1, 29)))


_PARTIAL_TAIL = re.compile(r"\s*The rest of the result did not arrive\.?\s*$")


def result_of(ex: Execution) -> Result:
    text = _PARTIAL_TAIL.sub("", ex.text).strip()
    return Result(text=text.rstrip("."), fields=dict(ex.fields) if ex.status == "ok" else {}, complete=ex.status == "ok")


def _segments(res: Result, sep: str = "; ") -> list[tuple[str, bool]]:
    """The value after the first ': ' split into (segment, whole) pairs.

    In a partial result the last segment may have been cut at any word, so it is not ``whole``:
    readers use it only through patterns that end in a fixed token ("... dollars", a clock time,
    a weekday), never for free text such as a name, which could be missing its last words.
    """
    body = res.text.split(": ", 1)[1] if ": " in res.text else ""
    segs = [x.strip() for x in body.split(sep) if x.strip()] if body else []
    return [(x, res.complete or i < len(segs) - 1) for i, x in enumerate(segs)]


def _value(res: Result, pattern: str, field: str, cast: Callable[[Any], Any] = float) -> Any:
    """A value from the fields (complete) or from the received text (partial); None if absent."""
    if res.complete and field in res.fields:
        return cast(res.fields[field])
    m = re.search(pattern, res.text)
    return cast(m.group(1)) if m else None


# =========================================================================== weather

_WEATHER_SERVICE = "the weather service"


def _weather_draw(rng: Rng) -> Slots:
    return {"city": str(pick(rng, CITY_NAMES)), "when": pick(rng, DAYS), "seed": int(rng.integers(0, 2**31 - 1))}


def _weather_derive(s: Slots) -> Slots:
    bare, on = s["when"]  # type: ignore[misc]
    return {"day": bare, "day_on": on, "city_s": f"{s['city']}'s"}


def _weather_args(s: Slots) -> dict[str, str]:
    return {"city": str(s["city"]), "day": str(s["when"][0]), "seed": str(s["seed"])}  # type: ignore[index]


def _read_weather(rng: Rng, res: Result, s: Slots) -> dict[str, object]:
    if res.complete:
        keep = ("cond", "low", "high", "rain", "wind", "wind_desc", "rain_comment", "gear", "layer", "evening",
                "verdict", "gust")
        return {k: res.fields[k] for k in keep if k in res.fields}
    out: dict[str, object] = {}
    for i, (seg, whole) in enumerate(_segments(res, ", ")):
        if i == 0:
            if whole:
                out["cond"] = seg
        elif m := re.fullmatch(r"((?:minus )?\d+) to ((?:minus )?\d+) degrees Celsius", seg):
            out["low"], out["high"] = m.group(1), m.group(2)
        elif m := re.fullmatch(r"(\d+)% chance of rain", seg):
            out["rain"] = int(m.group(1))
        elif m := re.fullmatch(r"wind (\d+) km/h", seg):
            out["wind"] = int(m.group(1))
    return out


def _city_revision(verb: str) -> Revision:
    return Revision(
        "city", "{city}", lambda rng, s: pick(rng, CITY_NAMES), verb,
        user=("Actually, can you check {city} instead?", "Oh wait, I meant {city}, not {old_city}.",
              "Sorry, make that {city}.", "Hang on, I'm going to {city}, not {old_city}."),
        ack=("[Got it|Okay|Sure], {city} instead[ of {old_city}|].", "[Right|Okay], switching to {city}."),
    )


def _day_revision(verb: str) -> Revision:
    return Revision(
        "when", "{day}", lambda rng, s: pick(rng, DAYS), verb,
        user=("Actually, make that {day} instead.", "Sorry, I meant {day}, not {old_day}.",
              "Wait, can you check {day} instead?", "Hmm, {day} would be better, can you look at that?"),
        ack=("[Got it|Okay|Sure], {day} instead.", "[Right|No problem], {verb} {day_on} [instead|then]."),
    )


_WEATHER_FALLBACK = (
    "[In the meantime|Meanwhile], [I'd|I would] [pack|take] a light jacket just in case.",
    "[Until then|For now], [a quick look out of the window is the best I can do|I'd plan for a mixed day].",
)

WEATHER: tuple[Spec, ...] = (
    Spec(
        "forecast", "weather", "weather", _weather_draw, _weather_args,
        user=("Can you check the weather in {city} {day_on}?", "What's the forecast for {city} {day_on}?",
              "Could you look up {city_s} weather for {day}?", "Check {city} {day_on} for me, will it be nice?",
              "What will the weather be like in {city} {day_on}?"),
        ack=("[Sure|Okay|On it], I'm checking {city_s} weather for {day} now.",
             "[Sure|One moment], [pulling up|getting] the {city} forecast for {day}.",
             "[Let me look up|I'm checking] the weather in {city} {day_on}[, one sec|].",
             "[Okay|Alright], [I'll grab|fetching] the forecast for {city} {day_on}.",
             "[Good question|Let's see], I'm asking the weather service about {city} {day_on}."),
        topic="the forecast for {city} {day_on}",
        short=("the forecast", "the weather check", "the {city} forecast", "the weather for {city}"),
        service=_WEATHER_SERVICE,
        request=_r("""Get the weather forecast for {city} {day_on}: conditions, temperature range in degrees Celsius,
                   chance of rain and wind speed."""),
        read=_read_weather,
        relay=(
            main("cond low high",
                 "[Okay|Here it is|Got it], {city} {day_on} [looks like|will have] {cond}, between {low} and {high} degrees.",
                 "[The forecast's in|Alright]: {cond} in {city} {day_on}, with a high of {high} and a low of {low}.",
                 "{city} {day_on} [should see|is set for] {cond}, [from {low} up to {high} degrees|with temperatures from {low} to {high}]."),
            main("cond", "[So far I can tell you|What I have is that] {city} {day_on} [looks like|should see] {cond}."),
            extra("low high", "Temperatures [run|go] from {low} to {high} degrees."),
            extra("rain rain_comment", "There's a {rain} percent chance of rain, so {rain_comment}."),
            extra("rain", "[Rain chances are|The chance of rain is] [about|around] {rain} percent."),
            extra("wind wind_desc",
                  "[Wind|The wind] will be [around|about] {wind} kilometres an hour, so {wind_desc}.",
                  "It'll be {wind_desc}, [around|with winds of about] {wind} kilometres an hour."),
            extra("wind", "[Wind speeds are|The wind is] [about|around] {wind} kilometres an hour."),
        ),
        derive=_weather_derive, revisions=(_city_revision("checking"), _day_revision("checking")),
        fallback=_WEATHER_FALLBACK, weight=2.0,
    ),
    Spec(
        "rain", "weather", "weather", _weather_draw, _weather_args,
        user=("Will it rain in {city} {day_on}?", "Do I need an umbrella in {city} {day_on}?",
              "Can you check if it's going to rain in {city} {day_on}?", "Is {city} going to be wet {day_on}?"),
        ack=("[Sure|Okay], checking the rain for {city} {day_on}.",
             "[One sec|Let me see], [I'm looking at|pulling up] the rain chances for {city}.",
             "[On it|Sure thing], [I'll check|checking] whether it'll rain in {city} {day_on}."),
        topic="the rain check for {city} {day_on}",
        short=("the rain check", "the umbrella question", "the rain forecast for {city}"),
        service=_WEATHER_SERVICE,
        request="Get the chance of rain and the expected conditions for {city} {day_on}.",
        read=_read_weather,
        relay=(
            main("rain rain_comment",
                 "[Okay|So|Alright], there's a {rain} percent chance of rain in {city} {day_on}, so {rain_comment}.",
                 "[In {city}|For {city}] {day_on} the chance of rain is {rain} percent, [so|which means] {rain_comment}."),
            main("rain", "The chance of rain in {city} {day_on} is {rain} percent."),
            extra("cond", "[The forecast says|Expect] {cond}.", "[It should be|Overall it looks like] {cond}."),
            extra("low high", "[Temperatures will be|It'll be] between {low} and {high} degrees."),
        ),
        derive=_weather_derive, revisions=(_city_revision("checking"), _day_revision("checking")),
        fallback=_WEATHER_FALLBACK,
    ),
    Spec(
        "wear", "weather", "weather", _weather_draw, _weather_args,
        user=("What should I wear in {city} {day_on}?", "I'm out in {city} {day_on}, what should I pack?",
              "Do I need a coat in {city} {day_on}?", "How should I dress for {city} {day_on}?"),
        ack=("[Good question|Sure], let me check the {city} weather for {day} first.",
             "[One sec|Okay], [I'll look at the forecast for {city} {day_on} and suggest something|let me see the forecast for {city} {day_on} first].",
             "[Sure|Happy to help], [I'm checking|checking] what {city} looks like {day_on}."),
        topic="what to wear in {city} {day_on}",
        short=("the clothing check", "the weather check", "what to wear"),
        service=_WEATHER_SERVICE,
        request=_r("""Get the weather for {city} {day_on}: conditions, daytime and evening temperatures in degrees
                   Celsius, and chance of rain, so the user can decide what to wear."""),
        read=_read_weather,
        relay=(
            main("cond low high layer",
                 "With {cond} and {low} to {high} degrees, [I'd wear|go for] {layer}.",
                 "{city} {day_on} [looks like|will be] {cond}, {low} to {high} degrees, so {layer} [should do|is the right call]."),
            main("cond", "[All I have so far is|It looks like] {cond} in {city} {day_on}."),
            extra("gear", "[Bring|Pack|Take] {gear} [too|as well].", "[I'd also bring|Add] {gear}."),
            extra("evening", "[By the evening|Later on] it's about {evening} degrees."),
            extra("rain", "The chance of rain is {rain} percent."),
        ),
        derive=_weather_derive, revisions=(_day_revision("checking"),),
        fallback=_WEATHER_FALLBACK,
    ),
)

# =========================================================================== calculator

_CALC = "the calculator"


def _read_calc(fmt: Callable[[float], dict[str, object]]) -> Reader:
    def read(rng: Rng, res: Result, s: Slots) -> dict[str, object]:
        v = _value(res, r"= (-?\d+(?:\.\d+)?)$", "value")
        return {} if v is None else fmt(v)

    return read


def _cents(lo: int, hi: int) -> Callable[[Rng], Decimal]:
    return lambda rng: Decimal(int(rng.integers(lo, hi))) / 100


def _tip_draw(rng: Rng) -> Slots:
    return {"bill": _cents(2000, 40000)(rng), "pct": int(pick(rng, (10, 12, 15, 18, 20, 22, 25))),
            "n": int(rng.integers(2, 9)), "place": pick(rng, RESTAURANTS)[0]}


def _bill_derive(s: Slots) -> Slots:
    out: Slots = {"bill_s": money(float(s["bill"]))}  # type: ignore[arg-type]
    if "n" in s:
        out["n_w"] = number_words(int(s["n"]))  # type: ignore[arg-type]
    return out


def _n_revision(lo: int, hi: int) -> Revision:
    def sample(rng: Rng, s: Slots) -> int:
        return int(rng.integers(lo, hi + 1))

    return Revision(
        "n", "{n} people", sample, "splitting it between",
        user=("Oh, actually there are {n} of us.", "Wait, {old_n} was wrong, we're {n}.",
              "Sorry, make that {n} people.", "Actually, {n} people are chipping in, not {old_n}."),
        ack=("[Got it|Okay|Sure], {n_w} ways instead.", "[Right|No problem], splitting it {n_w} ways then."),
    )


def _pct_revision(options: tuple[int, ...], verb: str) -> Revision:
    def sample(rng: Rng, s: Slots) -> int:
        return int(pick(rng, options))

    return Revision(
        "pct", "{pct} percent", sample, verb,
        user=("Actually, make it {pct} percent.", "Sorry, I meant {pct} percent, not {old_pct}.",
              "Hmm, let's say {pct} percent instead."),
        ack=("[Got it|Okay|Sure], {pct} percent instead.", "[Right|No problem], redoing it with {pct} percent."),
    )


_CALC_FALLBACK = (
    "[Or|Otherwise], I can [walk you through|talk you through] the [maths|sum] step by step.",
    "If you're in a hurry, [a rough mental estimate might do|we could round the numbers and estimate it].",
)


def _groceries_draw(rng: Rng) -> Slots:
    n = int(rng.integers(3, 5))
    return {"prices": tuple(_cents(99, 2500)(rng) for _ in range(n)), "name": str(pick(rng, FIRST_NAMES))}


def _groceries_derive(s: Slots) -> Slots:
    prices = s["prices"]  # type: ignore[assignment]
    listing = ", ".join(str(p) for p in prices[:-1]) + f" and {prices[-1]}"  # type: ignore[index]
    return {"listing": listing, "n_w": number_words(len(prices))}  # type: ignore[arg-type]


def _int_sampler(lo: int, hi: int, step: int = 1) -> Callable[[Rng, Slots], int]:
    return lambda rng, s: int(lo + step * int(rng.integers(0, (hi - lo) // step + 1)))


CALCULATOR: tuple[Spec, ...] = (
    Spec(
        "tip_split", "restaurants", "calculator", _tip_draw,
        lambda s: {"expression": f"({s['bill']} plus {s['pct']} percent of {s['bill']}) divided by {s['n']}"},
        user=("The bill at {place} is {bill_s}. With a {pct} percent tip, how much each for {n} of us?",
              "Can you split {bill_s} between {n} people, plus a {pct} percent tip?",
              "We owe {bill_s} for dinner. Add {pct} percent tip and split it {n} ways, please.",
              "Dinner came to {bill_s}. What's everyone's share with a {pct} percent tip, {n} people?"),
        ack=("[Sure|Okay], [working out|calculating] a {pct} percent tip on {bill_s}, split {n_w} ways.",
             "[On it|One moment], splitting {bill_s} plus tip between {n_w} people.",
             "[Let me do the maths|Sure thing], {bill_s} with {pct} percent tip, {n_w} ways."),
        topic="the split of the {bill_s} bill", short=("the bill split", "that calculation", "the tip maths"),
        service=_CALC,
        request=_r("""Calculate a {pct} percent tip on a restaurant bill of {bill} dollars, add it to the bill and
                   divide the total by {n} people. Give the amount per person."""),
        read=_read_calc(lambda v: {"each": say_money(v)}),
        relay=(
            main("each", "[Okay|Done|Alright], that's {each} each.",
                 "[Each person pays|It comes to] {each} [each|per person][, tip included|].",
                 "[So|Right], split {n_w} ways, [everyone owes|each of you pays] {each}."),
            note("each", "That [includes|already has] the {pct} percent tip.",
                  "[That's|This is] with {pct} percent on top of {bill_s}."),
        ),
        derive=_bill_derive, revisions=(_n_revision(2, 10), _pct_revision((10, 12, 15, 18, 20, 22, 25), "redoing it with")),
        fallback=_CALC_FALLBACK,
    ),
    Spec(
        "bill_split", "home", "calculator",
        lambda rng: {"bill": _cents(4000, 40000)(rng), "n": int(rng.integers(2, 7)),
                     "what": pick(rng, ("electricity bill", "water bill", "internet bill", "gas bill", "council tax bill", "cleaning bill"))},
        lambda s: {"expression": f"{s['bill']} divided by {s['n']}"},
        user=("Our {what} is {bill_s}. How much is that each for {n} people?",
              "Can you split the {what}, {bill_s}, between {n} of us?",
              "The {what} came to {bill_s}. What's the share for each of {n} housemates?"),
        ack=("[Sure|Okay], splitting the {what} {n_w} ways.", "[One sec|On it], dividing {bill_s} between {n_w} people.",
             "[Let me work that out|Sure thing], the {what} split {n_w} ways."),
        topic="the {what} split", short=("the bill split", "that calculation", "the {what} maths"),
        service=_CALC,
        request="Divide a {what} of {bill} dollars equally between {n} people and give the share per person.",
        read=_read_calc(lambda v: {"each": say_money(v)}),
        relay=(
            main("each", "[Okay|Right], that's {each} each.", "Each of you pays {each}[ for the {what}|].",
                 "[Split {n_w} ways|Between {n_w} of you], it's {each} [a head|per person]."),
            note("each", "[That's|This is] the {what} of {bill_s} split evenly."),
        ),
        derive=_bill_derive, revisions=(_n_revision(2, 8),), fallback=_CALC_FALLBACK,
    ),
    Spec(
        "percent", "finance", "calculator",
        lambda rng: {"base": int(rng.integers(20, 5000)), "pct": int(pick(rng, (3, 5, 7, 8, 10, 12, 15, 20, 25, 30, 35, 40, 45, 60, 75)))},
        lambda s: {"expression": f"{s['pct']} percent of {s['base']}"},
        user=("What's {pct} percent of {base}?", "Quick maths, {pct} percent of {base}?",
              "Can you work out {pct} percent of {base} for me?", "I need {pct} percent of {base}, what is it?"),
        ack=("[Sure|Okay], [working out|calculating] {pct} percent of {base}.", "[One sec|Let me check], {pct} percent of {base}.",
             "[On it|Sure thing], [figuring out|getting] {pct} percent of {base}."),
        topic="{pct} percent of {base}", short=("that calculation", "the percentage", "the sum"),
        service=_CALC, request="Calculate {pct} percent of {base}. Give the exact value.",
        read=_read_calc(lambda v: {"val": say_number(v)}),
        relay=(
            main("val", "{pct} percent of {base} is {val}.", "[That's|It comes to|The answer is] {val}[, {pct} percent of {base}|].",
                 "[Okay|Got it], {val} is {pct} percent of {base}."),
        ),
        revisions=(_pct_revision((3, 5, 7, 8, 10, 12, 15, 20, 25, 30, 35, 40, 45, 60, 75), "working out"),),
        fallback=_CALC_FALLBACK,
    ),
    Spec(
        "savings", "finance", "calculator",
        lambda rng: {"amount": int(pick(rng, (25, 40, 50, 75, 80, 100, 120, 150, 200, 250, 300, 450))),
                     "months": int(rng.integers(3, 37)), "goal": pick(rng, ("a holiday", "a new laptop", "a rainy day fund",
                                                                            "a car", "a wedding", "a deposit", "a bike"))},
        lambda s: {"expression": f"{s['amount']} times {s['months']}"},
        user=("If I save {amount} dollars a month for {months} months, how much will I have?",
              "I'm putting {amount} a month aside for {goal}. What's that after {months} months?",
              "How much is {amount} dollars a month over {months} months?"),
        ack=("[Sure|Okay], [adding up|working out] {amount} a month for {months} months.",
             "[One sec|On it], [checking|totting up] your savings over {months} months.",
             "[Nice|Good plan], let me work out {months} months of saving."),
        topic="your savings over {months} months", short=("the savings sum", "that calculation", "the savings total"),
        service=_CALC, request="Multiply a monthly saving of {amount} dollars by {months} months and give the total.",
        read=_read_calc(lambda v: {"total": say_money(v)}),
        relay=(
            main("total", "[After {months} months|By then] you'll have {total}.", "[That adds up to|That's] {total} in total.",
                 "{amount} dollars a month for {months} months [comes to|makes] {total}."),
            note("total", "[That's not counting|That leaves out] any interest.", "[Nice|Not bad], that's a good start for {goal}."),
        ),
        revisions=(Revision("months", "{months} months", _int_sampler(3, 36), "working it out for",
                            user=("Actually, make that {months} months.", "Hmm, what about {months} months instead?")),),
        fallback=_CALC_FALLBACK,
    ),
    Spec(
        "groceries", "finance", "calculator", _groceries_draw,
        lambda s: {"expression": " plus ".join(str(p) for p in s["prices"])},  # type: ignore[attr-defined]
        user=("Can you add up {listing} for me?", "What do {listing} come to together?",
              "I owe {name} for a few things: {listing}. What's the total?"),
        ack=("[Sure|Okay], adding up those {n_w} amounts.", "[One sec|On it], [totting up|adding] the {n_w} prices.",
             "[Sure thing|Let me see], the total of those {n_w} numbers."),
        topic="the total of those {n_w} amounts", short=("the total", "that sum", "the adding up"),
        service=_CALC, request="Add these amounts in dollars and give the total: {listing}.",
        read=_read_calc(lambda v: {"total": say_money(v)}),
        relay=(main("total", "[Altogether|In total|All together], that's {total}.", "[Those {n_w} add up to|The total is] {total}."),),
        derive=_groceries_derive, fallback=_CALC_FALLBACK,
    ),
    Spec(
        "discount", "shopping", "calculator",
        lambda rng: {"item": (p := PRODUCTS[int(rng.integers(len(PRODUCTS)))]).name.removeprefix("pair of "),
                     "price": Decimal(int(rng.integers(p.low, p.high + 1))) - Decimal("0.01"),
                     "pct": int(pick(rng, (10, 15, 20, 25, 30, 40, 50)))},
        lambda s: {"expression": f"{s['price']} minus {s['pct']} percent of {s['price']}"},
        user=("The {item} I want is {price_s} with {pct} percent off. What's the final price?",
              "How much is the {item} at {price_s} after a {pct} percent discount?",
              "There's {pct} percent off a {item} that costs {price_s}. What would I pay?"),
        ack=("[Sure|Okay], [working out|calculating] {pct} percent off {price_s}.",
             "[One moment|Let me check], the {item} with {pct} percent off.", "[On it|Sure thing], taking {pct} percent off the {item}."),
        topic="the discounted price of the {item}", short=("the discount", "that calculation", "the {item} price"),
        service=_CALC,
        request="Calculate the price of an item costing {price} dollars after a {pct} percent discount, rounded to cents.",
        read=_read_calc(lambda v: {"final": say_money(v)}),
        relay=(
            main("final", "[With the discount|After {pct} percent off], the {item} comes to {final}.",
                 "[You'd pay|The final price is] {final} for the {item}.", "[So|Okay], {final} after the discount."),
            note("final", "[That's down from|The full price was] {price_s}."),
        ),
        derive=lambda s: {"price_s": money(float(s["price"]))},  # type: ignore[arg-type]
        revisions=(_pct_revision((10, 15, 20, 25, 30, 40, 50), "taking off"),), fallback=_CALC_FALLBACK,
    ),
    Spec(
        "scale_recipe", "cooking", "calculator",
        lambda rng: {"dish": DISHES[int(rng.integers(len(DISHES)))].name,
                     "ingredient": pick(rng, ("flour", "rice", "butter", "pasta", "sugar", "cheese", "lentils", "chicken")),
                     "grams": int(pick(rng, (75, 100, 120, 150, 200, 250, 300, 350, 400, 500, 600))),
                     "serves": int(pick(rng, (2, 4, 6))), "people": int(rng.integers(3, 11))},
        lambda s: {"expression": f"{s['grams']} times {s['people']} divided by {s['serves']}"},
        user=("My {dish} recipe needs {grams} grams of {ingredient} for {serves}. How much for {people} people?",
              "If {grams} grams of {ingredient} serves {serves}, how much do I need for {people}?",
              "Can you scale {grams} grams of {ingredient} from {serves} servings up to {people}?"),
        ack=("[Sure|Okay], scaling the {ingredient} for {people} people.", "[One sec|On it], [working out|checking] the {ingredient} for {people}.",
             "[Happy to|Sure thing], {grams} grams for {serves}, scaled to {people}."),
        topic="the {ingredient} for {people} people", short=("the recipe maths", "the scaling", "that calculation"),
        service=_CALC,
        request="A recipe needs {grams} grams of {ingredient} for {serves} servings. Calculate the amount for {people} servings.",
        read=_read_calc(lambda v: {"amount": say_number(v, 0)}),
        relay=(
            main("amount", "[You'll need|You need] about {amount} grams of {ingredient}.",
                 "[For {people} people|Scaled up to {people}], it's about {amount} grams.",
                 "[Okay|Right], roughly {amount} grams of {ingredient} for {people}."),
            note("amount", "[Scale the other ingredients the same way|Do the same for the rest of the recipe]."),
        ),
        revisions=(Revision("people", "{people} people", _int_sampler(3, 12), "scaling it for",
                            user=("Actually, {people} people are coming now.", "Wait, make that {people} people.")),),
        fallback=_CALC_FALLBACK,
    ),
    Spec(
        "pace", "fitness", "calculator",
        lambda rng: {"km": int(pick(rng, (5, 8, 10, 12, 15, 21))), "minutes": int(rng.integers(22, 140))},
        lambda s: {"expression": f"{s['minutes']} divided by {s['km']}"},
        user=("I ran {km} kilometres in {minutes} minutes. What's my pace per kilometre?",
              "What's the pace if I do {km} kilometres in {minutes} minutes?",
              "Can you work out minutes per kilometre for {km} kilometres in {minutes} minutes?"),
        ack=("[Nice run|Sure], let me work out your pace.", "[On it|One sec], {km} kilometres in {minutes} minutes.",
             "[Okay|Sure thing], [calculating|working out] your pace for {km} kilometres."),
        topic="your pace for {km} kilometres", short=("the pace", "that calculation", "the pace maths"),
        service=_CALC, request="Divide {minutes} minutes by {km} kilometres to get the running pace in minutes per kilometre.",
        read=_read_calc(lambda v: {"pace": say_number(v, 2)}),
        relay=(
            main("pace", "That's {pace} minutes per kilometre.", "[Your pace was|You averaged] {pace} minutes a kilometre.",
                 "[Okay|Nice], {pace} minutes per kilometre."),
        ),
        revisions=(Revision("minutes", "{minutes} minutes", _int_sampler(22, 140), "working it out with",
                            user=("Oh, actually it was {minutes} minutes.", "Sorry, {minutes} minutes, not {old_minutes}.")),),
        fallback=_CALC_FALLBACK,
    ),
)

# =========================================================================== unit conversion

_CONVERT = "the conversion tool"


def _read_convert(decimals: int | None) -> Reader:
    def read(rng: Rng, res: Result, s: Slots) -> dict[str, object]:
        v = _value(res, r"= (-?\d+(?:\.\d+)?) [a-z ]+$", "value")
        return {} if v is None else {"y": say_number(v, int(s["dec"]) if decimals is None else decimals)}  # type: ignore[arg-type]

    return read


def _convert_for(domain: str) -> Spec:
    options = CONVERSIONS[domain]

    def draw(rng: Rng) -> Slots:
        src, dst, (lo, hi, step), dec = options[int(rng.integers(len(options)))]
        return {"src": src, "dst": dst, "dec": dec, "x": int(lo + step * int(rng.integers(0, (hi - lo) // step + 1)))}

    def new_x(rng: Rng, s: Slots) -> int:
        (lo, hi, step), = [o[2] for o in options if o[0] == s["src"] and o[1] == s["dst"]]
        return int(lo + step * int(rng.integers(0, (hi - lo) // step + 1)))

    return Spec(
        f"convert_{domain}", domain, "unit_convert", draw,
        lambda s: {"value": str(s["x"]), "from": str(s["src"]), "to": str(s["dst"])},
        user=("How many {dst_s} is {x} {src_s}?", "Can you convert {x} {src_s} to {dst_s}?", "What's {x} {src_s} in {dst_s}?",
              "I need {x} {src_s} in {dst_s}, please."),
        ack=("[Sure|Okay], converting {x} {src_s} to {dst_s}.", "[One sec|Let me work that out], {x} {src_s} in {dst_s}.",
             "[On it|Sure thing], [getting|checking] {x} {src_s} in {dst_s}."),
        topic="{x} {src_s} in {dst_s}", short=("the conversion", "that conversion", "the {dst_s} figure"),
        service=_CONVERT,
        request="Convert {x} {src} to {dst}.",
        read=_read_convert(None),
        relay=(
            main("y", "{x} {src_s} is [about|roughly|] {y} {dst_s}.", "[That's|It comes to|It works out at] [about|roughly] {y} {dst_s}.",
                 "[Okay|Got it], {x} {src_s} [equals|is] {y} {dst_s}[, give or take|]."),
        ),
        derive=lambda s: {"src_s": _unit(str(s["src"])), "dst_s": _unit(str(s["dst"]))},
        revisions=(Revision("x", "{x} {src_s}", new_x, "converting",
                            user=("Oh, sorry, it's {x} {src_s}, not {old_x}.", "Actually, can you do {x} instead?")),),
        fallback=("[Roughly speaking|As a rough guide], I can give you a ballpark from memory if that helps.",),
    )


_read_time = lambda rng, res, s: (  # noqa: E731
    {} if (t := _value(res, r"is (\d\d:\d\d)$", "time", str)) is None else {"done_t": _say_time(rng, t)})

CONVERT: tuple[Spec, ...] = tuple(_convert_for(d) for d in CONVERSIONS) + (
    Spec(
        "oven", "cooking", "unit_convert",
        lambda rng: {"f": int(pick(rng, (300, 325, 350, 375, 400, 425, 450))), "dish": DISHES[int(rng.integers(len(DISHES)))].name},
        lambda s: {"value": str(s["f"]), "from": "fahrenheit", "to": "celsius"},
        user=("The recipe says {f} Fahrenheit. What's that in Celsius?",
              "My {dish} recipe wants the oven at {f} degrees Fahrenheit. Convert that for me?",
              "Can you change {f} Fahrenheit to Celsius?"),
        ack=("[Sure|Okay], converting {f} Fahrenheit to Celsius.", "[One sec|Let me check], {f} degrees Fahrenheit in Celsius.",
             "[On it|Sure thing], getting the oven temperature in Celsius."),
        topic="the oven temperature in Celsius", short=("the oven conversion", "the conversion", "the temperature"),
        service=_CONVERT, request="Convert an oven temperature of {f} degrees Fahrenheit to degrees Celsius.",
        read=_read_convert(0),
        relay=(
            main("y", "{f} Fahrenheit is about {y} degrees Celsius.", "[That's|It comes to] [about|roughly] {y} degrees Celsius.",
                 "[Set it to|Go for] about {y} degrees Celsius."),
            note("y", "[With a fan oven|If your oven has a fan], [set it a little lower|go a bit cooler than that]."),
        ),
        revisions=(Revision("f", "{f} degrees", lambda rng, s: int(pick(rng, (300, 325, 350, 375, 400, 425, 450))), "converting",
                            user=("Sorry, it says {f}, not {old_f}.", "Oh wait, it's {f} Fahrenheit.")),),
        fallback=("[As a rough guide|Roughly], 350 Fahrenheit is a moderate oven, about 180 Celsius.",),
    ),
    Spec(
        "fever", "health", "unit_convert",
        lambda rng: {"x": str(Decimal(int(rng.integers(970, 1045))) / 10), "who": pick(rng, ("my son", "my daughter", "I", "my partner"))},
        lambda s: {"value": str(s["x"]), "from": "fahrenheit", "to": "celsius"},
        user=("The thermometer says {x} Fahrenheit. What's that in Celsius?",
              "{who_c} measured {x} degrees Fahrenheit. Can you convert that to Celsius?",
              "Is {x} Fahrenheit high? What is it in Celsius?"),
        ack=("[Okay|Sure], converting {x} Fahrenheit to Celsius.", "[One sec|Let me check], {x} degrees in Celsius."),
        topic="{x} Fahrenheit in Celsius", short=("the temperature conversion", "the conversion"),
        service=_CONVERT, request="Convert a body temperature of {x} degrees Fahrenheit to degrees Celsius, one decimal place.",
        read=_read_convert(1),
        relay=(main("y", "{x} Fahrenheit is {y} degrees Celsius.", "[That's|It comes to] {y} degrees Celsius."),
               note("y", "If it stays high or you're worried, [it's worth calling|check in with] a doctor.")),
        derive=lambda s: {"who_c": str(s["who"])[0].upper() + str(s["who"])[1:]},
        fallback=("[Normal body temperature|A normal temperature] is around 37 degrees Celsius, for reference.",),
    ),
)

# =========================================================================== dates and times

_DATES = "the date calculator"

DATETIME: tuple[Spec, ...] = (
    Spec(
        "roast", "cooking", "datetime",
        lambda rng: {"start": pick(rng, ((16, 30), (16, 45), (17, 0), (17, 15), (17, 45), (18, 0), (18, 20), (11, 30), (12, 10))),
                     "minutes": int(5 * rng.integers(8, 37)), "dish": pick(rng, ("roast", "lasagne", "casserole", "ham", "bread", "pie")),
                     "style": int(rng.integers(5))},
        lambda s: {"op": "add_minutes", "time": _clock(*s["start"]), "minutes": str(s["minutes"])},  # type: ignore[misc]
        user=("If the {dish} goes in at {start_t} and needs {minutes} minutes, when will it be ready?",
              "I'm putting the {dish} in at {start_t}. It takes {minutes} minutes. When's it done?",
              "What time is {minutes} minutes after {start_t}? That's when my {dish} comes out."),
        ack=("[Sure|Okay], working out when the {dish} is done.", "[One sec|On it], {minutes} minutes from {start_t}.",
             "[Let me check|Sure thing], the finish time for the {dish}."),
        topic="when the {dish} is done", short=("the timing", "the finish time", "the {dish} timing"),
        service=_DATES, request="Add {minutes} minutes to the clock time {start_clock} and give the resulting time.",
        read=_read_time,
        relay=(main("done_t", "It'll be ready at {done_t}.", "[Take it out|The {dish} is done] at {done_t}.",
                    "[So|Okay], {done_t} is when it comes out."),
               note("done_t", "[Give it a few minutes to rest after that|Let it rest a little before serving].")),
        derive=lambda s: {"start_t": spoken_time(*s["start"], int(s["style"])), "start_clock": _clock(*s["start"])},  # type: ignore[misc]
        revisions=(Revision("minutes", "{minutes} minutes", _int_sampler(40, 180, 5), "working it out with",
                            user=("Oh, the recipe says {minutes} minutes, not {old_minutes}.", "Actually, it needs {minutes} minutes.")),),
        fallback=("[Just in case|Meanwhile], you could set a kitchen timer for {minutes} minutes.",),
    ),
    Spec(
        "nights", "travel", "datetime",
        lambda rng: {"start": (d := _draw_date(rng, YEAR, (1, 11))), "end": d + dt.timedelta(days=int(rng.integers(2, 25))),
                     "city": pick(rng, CITY_NAMES)},
        lambda s: {"op": "days_between", "from": s["start"].isoformat(), "to": s["end"].isoformat()},  # type: ignore[attr-defined]
        user=("How many nights is my {city} trip, from {start_s} to {end_s}?",
              "I'm in {city} from {start_s} until {end_s}. How many nights is that?",
              "Can you count the nights between {start_s} and {end_s}?"),
        ack=("[Sure|Okay], counting the nights from {start_s} to {end_s}.", "[One sec|On it], checking how long the {city} trip is.",
             "[Let me work that out|Sure thing], {start_s} to {end_s}."),
        topic="the length of your {city} trip", short=("the night count", "the trip length", "that date check"),
        service=_DATES, request="Count the days between {start_iso} and {end_iso}; the user arrives on the first date and leaves on the second.",
        read=lambda rng, res, s: ({} if (n := _value(res, r"is (-?\d+) days$", "days", int)) is None else {"nights": n, "nights_w": number_words(n)}),
        relay=(main("nights", "That's {nights} nights.", "[Your trip is|It comes to] {nights_w} nights[ in {city}|].",
                    "[Okay|Right], {nights} nights from {start_s} to {end_s}."),),
        derive=lambda s: {"start_s": _date_s(s["start"]), "end_s": _date_s(s["end"]),  # type: ignore[arg-type]
                          "start_iso": s["start"].isoformat(), "end_iso": s["end"].isoformat()},  # type: ignore[attr-defined]
        revisions=(Revision("end", "{end_s}", lambda rng, s: s["start"] + dt.timedelta(days=int(rng.integers(2, 25))),  # type: ignore[operator]
                            "counting to",
                            user=("Actually, I'm leaving on {end_s}, not {old_end_s}.", "Sorry, it's until {end_s}.")),),
        fallback=("You can also count it on a calendar, [it's quick|if you have one handy].",),
    ),
    *(Spec(
        name, domain, "datetime",
        lambda rng, _days=days: {"start": _draw_date(rng), "days": int(pick(rng, _days))},
        lambda s: {"op": "add_days", "date": s["start"].isoformat(), "days": str(s["days"])},  # type: ignore[attr-defined]
        user=user, ack=ack, topic=topic, short=short, service=_DATES, request=request,
        read=lambda rng, res, s: (
            {} if (v := _value(res, r"is ((?:Mon|Tues|Wednes|Thurs|Fri|Satur|Sun)day, \w+ \d+, \d{4})$", "spoken", str)) is None
            else {"weekday": v.split(", ")[0], "date_s": v.split(", ")[1]}),
        relay=relay,
        derive=lambda s: {"start_s": _date_s(s["start"]), "start_iso": s["start"].isoformat()},  # type: ignore[arg-type, attr-defined]
        revisions=revisions, fallback=("I can count it out on the calendar with you if you like.",),
    ) for name, domain, days, user, ack, topic, short, request, relay, revisions in (
        ("prescription", "health", (7, 10, 14, 21, 28, 30, 56, 60, 90),
         ("My prescription is for {days} days starting {start_s}. When does it run out?",
          "I started a {days} day course of tablets on {start_s}. When's the last day?",
          "Can you work out when my {days} days of medication from {start_s} end?"),
         ("[Sure|Okay], counting {days} days from {start_s}.", "[One sec|On it], working out when the prescription runs out."),
         "when your prescription runs out", ("the date check", "the prescription date", "that date"),
         "Add {days} days to {start_iso} and give the resulting date with its weekday.",
         (main("weekday date_s", "It runs out on {weekday}, {date_s}.", "[The end date is|That takes you to] {weekday}, {date_s}."),
          note("date_s", "[It's worth|Try] ordering the refill a few days before then.")),
         (Revision("days", "{days} days", lambda rng, s: int(pick(rng, (7, 10, 14, 21, 28, 30, 56, 60, 90))), "counting",
                   user=("Oh, it's actually {days} days.", "Sorry, I meant {days} days, not {old_days}.")),)),
        ("returns", "shopping", (14, 28, 30, 60, 100),
         ("My order arrived on {start_s} and there's a {days} day return window. What's the last day to send it back?",
          "When's the return deadline if I got it on {start_s} and have {days} days?"),
         ("[Sure|Okay], counting {days} days from {start_s}.", "[One sec|On it], working out your return deadline."),
         "your return deadline", ("the return date", "the deadline check", "that date"),
         "Add {days} days to {start_iso} and give the resulting date with its weekday.",
         (main("weekday date_s", "The last day to return it is {weekday}, {date_s}.", "You have until {weekday}, {date_s}."),
          note("date_s", "[Keep the receipt handy|Hang on to the packaging] until then.")),
         (Revision("days", "{days} days", lambda rng, s: int(pick(rng, (14, 28, 30, 60, 100))), "counting",
                   user=("Wait, the window is {days} days.",)),)),
        ("warranty", "tech_help", (90, 180, 365, 730),
         ("My {days} day warranty started on {start_s}. When does it end?",
          "I bought it on {start_s} with a {days} day warranty. When does that run out?"),
         ("[Sure|Okay], working out when the warranty ends.", "[One sec|On it], {days} days from {start_s}."),
         "when your warranty ends", ("the warranty date", "the date check", "that date"),
         "Add {days} days to {start_iso} and give the resulting date with its weekday.",
         (main("weekday date_s", "The warranty runs until {weekday}, {date_s}.", "[It ends|It's covered until] {weekday}, {date_s}."),),
         ()),
    )),
    Spec(
        "weekday", "music", "datetime",
        lambda rng: {"date": _draw_date(rng, int(pick(rng, (YEAR, YEAR + 1))), (1, 12)),
                     "what": pick(rng, ("the festival", "the concert", "my recital", "the album launch", "the open mic night", "the gig"))},
        lambda s: {"op": "weekday", "date": s["date"].isoformat()},  # type: ignore[attr-defined]
        user=("What day of the week is {date_s}, {year}? That's when {what} is.",
              "{what_c} is on {date_s}, {year}. Which day of the week is that?",
              "Can you check what weekday {date_s}, {year} falls on?"),
        ack=("[Sure|Okay], checking {date_s}, {year}.", "[One sec|On it], [looking up|checking] the weekday for {date_s}."),
        topic="the weekday of {date_s}", short=("the date check", "the weekday check", "that date"),
        service=_DATES, request="Give the day of the week of the date {date_iso}.",
        read=lambda rng, res, s: ({} if (w := _value(res, r"is an? (\w+day)$", "weekday", str)) is None else {"weekday": w}),
        relay=(main("weekday", "{date_s} is a {weekday}.", "[That's|It falls on] a {weekday}.",
                    "[Okay|Right], {what} is on a {weekday}."),),
        derive=lambda s: {"date_s": _date_s(s["date"]), "year": s["date"].year, "date_iso": s["date"].isoformat(),  # type: ignore[attr-defined, arg-type]
                          "what_c": str(s["what"])[0].upper() + str(s["what"])[1:]},
        revisions=(Revision("date", "{date_s}", lambda rng, s: _draw_date(rng, s["date"].year), "checking",  # type: ignore[attr-defined]
                            user=("Oh, sorry, it's {date_s}.", "Actually, it moved to {date_s}.")),),
        fallback=("[Any calendar app|A calendar on your phone] will show it too.",),
    ),
)

# =========================================================================== lookups (facts table)


def _read_flight(rng: Rng, res: Result, s: Slots) -> dict[str, object]:
    out: dict[str, object] = {}
    for seg, whole in _segments(res):
        if seg == "on time":
            out["on_time"] = True
        elif seg == "cancelled":
            out["cancelled"] = True
        elif m := re.fullmatch(r"delayed (\d+) minutes", seg):
            out["delay"] = int(m.group(1))
        elif m := re.fullmatch(r"scheduled (\d\d:\d\d)", seg):
            out["sched_t"] = _say_time(rng, m.group(1))
        elif m := re.fullmatch(r"departs (\d\d:\d\d)", seg):
            out["dep_t"] = _say_time(rng, m.group(1))
        elif m := re.fullmatch(r"gate ([A-Z]\d+)", seg):
            out["gate"] = m.group(1)
        elif seg.startswith("rebooking ") and whole:
            out["rebook"] = seg.removeprefix("rebooking ")
    return out


def _read_package(rng: Rng, res: Result, s: Slots) -> dict[str, object]:
    out: dict[str, object] = {}
    for seg, whole in _segments(res):
        if m := re.fullmatch(r"arriving today between (\d\d:\d\d) and (\d\d:\d\d)", seg):
            out["from_t"], out["to_t"] = _say_time(rng, m.group(1)), _say_time(rng, m.group(2))
        elif m := re.fullmatch(r"expected ([A-Z]\w+day)", seg):
            out["due"] = m.group(1)
        elif m := re.fullmatch(r"delivered today at (\d\d:\d\d)", seg):
            out["at_t"] = _say_time(rng, m.group(1))
        elif whole and (m := re.fullmatch(r"left (.+)", seg)):
            out["left"] = m.group(1)
        elif seg in ("out for delivery", "in transit", "delivered", "awaiting dispatch"):
            out["state"] = seg
    return out


def _read_outage(rng: Rng, res: Result, s: Slots) -> dict[str, object]:
    out: dict[str, object] = {}
    for seg, whole in _segments(res):
        if seg == "outage in your area":
            out["outage"] = True
        elif seg == "no outages in your area":
            out["clear"] = True
        elif m := re.fullmatch(r"since (\d\d:\d\d)", seg):
            out["since_t"] = _say_time(rng, m.group(1))
        elif m := re.fullmatch(r"estimated fix (\d\d:\d\d)", seg):
            out["fix_t"] = _say_time(rng, m.group(1))
        elif whole and (m := re.fullmatch(r"cause (.+)", seg)):
            out["cause"] = m.group(1)
        elif m := re.fullmatch(r"planned maintenance (\w+day) from (\d\d:\d\d) to (\d\d:\d\d)", seg):
            out["mday"], out["m_from"], out["m_to"] = m.group(1), _say_time(rng, m.group(2)), _say_time(rng, m.group(3))
    return out


def _read_bins(rng: Rng, res: Result, s: Slots) -> dict[str, object]:
    out: dict[str, object] = {}
    for seg, _ in _segments(res):
        if m := re.fullmatch(r"(recycling|general waste|garden waste|food waste) (\w+day)", seg):
            out[m.group(1).split()[0]] = m.group(2)
        elif seg in ("every week", "every other week"):
            out["often"] = seg
    return out


def _read_single(key: str) -> Reader:
    def read(rng: Rng, res: Result, s: Slots) -> dict[str, object]:
        segs = _segments(res)
        return {key: segs[0][0]} if segs and segs[0][1] else {}

    return read


def _read_height(rng: Rng, res: Result, s: Slots) -> dict[str, object]:
    segs = _segments(res)
    m = re.fullmatch(r"([\d,]+) meters", segs[0][0]) if segs else None
    return {"height": m.group(1)} if m else {}


LOOKUP: tuple[Spec, ...] = (
    Spec(
        "flight", "travel", "lookup",
        lambda rng: dict(zip(("code", "city"), pick(rng, FLIGHTS))),
        lambda s: {"key": f"flight {s['code']}"},
        user=("Can you check flight {code} to {city}?", "Is my flight to {city} on time? It's {code}.",
              "What's the status of {code} to {city}?", "My flight's {code} to {city}, any delays?"),
        ack=("[Sure|Okay], checking flight {code} to {city}.", "[One sec|On it], [looking up|pulling up] {code}.",
             "[Let me check|Sure thing], the {city} flight, {code}."),
        topic="the status of flight {code}", short=("the flight check", "the flight status", "the {city} flight check"),
        service="the airline's status service",
        request="Look up the current status of flight {code} to {city}: on time or delayed, departure time and gate.",
        read=_read_flight,
        relay=(
            main("on_time dep_t", "[Good news|Okay], your flight to {city} is on time, leaving at {dep_t}.",
                 "Flight {code} to {city} is on time for {dep_t}."),
            main("delay dep_t sched_t", "Your flight to {city} is delayed by {delay} minutes, now leaving at {dep_t} instead of {sched_t}.",
                 "[Heads up|Unfortunately], {code} is running {delay} minutes late, so {dep_t} now."),
            main("cancelled", "[I'm sorry|Bad news], flight {code} to {city} has been cancelled."),
            main("on_time", "[So far it says|It shows] {code} is on time."),
            main("delay", "[It shows|So far it says] {code} is delayed by {delay} minutes."),
            extra("gate", "It leaves from gate {gate}.", "[Your gate is|Head to gate] {gate}."),
            extra("rebook", "[The airline says to go to|You can rebook at] {rebook}."),
        ),
        fallback=("[The departures board at the airport|The airline's app] will have the latest too.",),
        weight=1.5,
    ),
    Spec(
        "package", "shopping", "lookup",
        lambda rng: {"store": pick(rng, STORES)},
        lambda s: {"key": f"latest order from {s['store']}"},
        user=("Where's my package from {store}?", "Can you track my {store} order?", "Has my order from {store} arrived yet?",
              "Any news on the {store} delivery?"),
        ack=("[Sure|Okay], tracking your {store} order.", "[One sec|Let me check], looking up the {store} delivery.",
             "[On it|Sure thing], checking where the {store} package is."),
        topic="your {store} order", short=("the tracking", "the parcel check", "the {store} order"),
        service="the tracking service",
        request="Look up the delivery status of the user's latest order from {store}: current state and expected delivery time.",
        read=_read_package,
        relay=(
            main("state from_t to_t", "Your {store} package is out for delivery, [expected|arriving] between {from_t} and {to_t} today.",
                 "[Good news|It's close], the {store} order should arrive today between {from_t} and {to_t}."),
            main("state due", "Your {store} package is on its way and should arrive on {due}.", "The {store} order is in transit, due on {due}."),
            main("at_t", "[Actually|Good news], your {store} package was delivered at {at_t}.", "The {store} order arrived at {at_t} today."),
            main("state", "[So far it says|It shows] the {store} order is {state}."),
            extra("left", "It was left {left}.", "[The driver|The courier] left it {left}."),
        ),
        fallback=("The tracking link in your order email should work too.",),
    ),
    Spec(
        "outage", "tech_help", "lookup",
        lambda rng: {"provider": pick(rng, PROVIDERS), "device": pick(rng, DEVICES)},
        lambda s: {"key": f"service status {s['provider']}"},
        user=("My internet is down. Is {provider} having an outage?", "Can you check if {provider} is down? My {device} won't connect.",
              "Is there a {provider} outage right now?"),
        ack=("[Sure|Okay], checking {provider}'s status.", "[One sec|On it], looking for {provider} outages near you.",
             "[Let me see|Sure thing], checking whether {provider} is down."),
        topic="the {provider} status", short=("the outage check", "the status check", "the {provider} check"),
        service="the provider's status page",
        request="Check the service status of the internet provider {provider} for the user's area: any outage, since when, and the estimated fix.",
        read=_read_outage,
        relay=(
            main("outage since_t fix_t", "[Yes|It's not you], {provider} has an outage in your area since {since_t}, with a fix expected by {fix_t}.",
                 "{provider} is reporting an outage near you, [starting at|since] {since_t}. They expect it fixed by {fix_t}."),
            main("outage", "[Yes|It's not you], {provider} is reporting an outage in your area."),
            main("clear", "{provider} isn't reporting any outages near you, so it's probably the {device} or the router.",
                 "[There's no|No] {provider} outage in your area, [so let's look at your {device}|so the problem is likely at home]."),
            extra("cause", "[The cause is|They say it's] {cause}."),
            extra("mday m_from m_to", "[There is|They have] planned maintenance on {mday} from {m_from} to {m_to}, [though|but that's not it]."),
        ),
        fallback=("[Meanwhile|In the meantime], restarting the router is worth a try.",),
    ),
    Spec(
        "bins", "home", "lookup",
        lambda rng: {"street": pick(rng, STREETS)},
        lambda s: {"key": f"bin collection {s['street']}"},
        user=("When are the bins collected on {street}?", "Which day is recycling on {street}?",
              "Can you check bin day for {street}?", "I live on {street}. When does the rubbish go out?"),
        ack=("[Sure|Okay], checking [bin|collection] days for {street}.", "[One sec|On it], looking up [bin days|the collection schedule] for {street}.",
             "[Let me check|Checking] when the bins go out on {street}."),
        topic="the bin days for {street}", short=("the bin check", "the collection days", "the bin days"),
        service="the council's collection service",
        request="Look up the household waste collection schedule for {street}: recycling day, general waste day, garden waste and frequency.",
        read=_read_bins,
        relay=(
            main("recycling general", "Recycling goes out on {recycling} and general waste on {general}.",
                 "[It's|Your collection is] recycling on {recycling}, general rubbish on {general}."),
            main("recycling", "[So far I have|It says] recycling on {recycling}."),
            extra("garden", "Garden waste is collected on {garden}.", "[Green bins|Garden waste] go on {garden}."),
            extra("often", "[They come|Collections are] {often}."),
        ),
        revisions=(Revision("street", "{street}", lambda rng, s: pick(rng, STREETS), "checking",
                            user=("Sorry, I meant {street}, I've just moved.", "Actually, check {street}, it's for my mum.")),),
        fallback=("[The council website|The council app] lists it too, if you need it sooner.",),
    ),
    Spec(
        "capital", "travel", "lookup",
        lambda rng: {"country": pick(rng, COUNTRIES)},
        lambda s: {"key": f"capital of {s['country']}"},
        user=("What's the capital of {country}?", "Quick one, which city is the capital of {country}?",
              "I always forget, what's {country}'s capital?"),
        ack=("[Sure|Okay], looking up the capital of {country}.", "[One sec|Let me check], {country}'s capital."),
        topic="the capital of {country}", short=("the capital question", "that lookup", "the {country} question"),
        service="the reference lookup", request="Look up the capital city of {country}.",
        read=_read_single("capital"),
        relay=(main("capital", "The capital of {country} is {capital}.", "[It's|That's] {capital}.", "{capital} is the capital of {country}."),),
        revisions=(Revision("country", "{country}", lambda rng, s: pick(rng, COUNTRIES), "checking",
                            user=("Oh, I meant {country}.", "Actually, what about {country}?")),),
    ),
    Spec(
        "mountain", "fitness", "lookup",
        lambda rng: {"mountain": pick(rng, MOUNTAINS)},
        lambda s: {"key": f"height of {s['mountain']}"},
        user=("How high is {mountain}? I'm planning a hike.", "What's the height of {mountain}?",
              "How tall is {mountain} in metres?"),
        ack=("[Sure|Okay], looking up the height of {mountain}.", "[One sec|Let me check], {mountain}'s height."),
        topic="the height of {mountain}", short=("the height check", "that lookup", "the {mountain} question"),
        service="the reference lookup", request="Look up the height of {mountain} in meters.",
        read=_read_height,
        relay=(main("height", "{mountain_c} is {height} metres high.", "[It's|That's] {height} metres.",
                    "[The summit|The top] of {mountain} is at {height} metres."),),
        derive=lambda s: {"mountain_c": str(s["mountain"])[0].upper() + str(s["mountain"])[1:]},
        revisions=(Revision("mountain", "{mountain}", lambda rng, s: pick(rng, MOUNTAINS), "checking",
                            user=("Actually, I meant {mountain}.", "Sorry, {mountain}, not {old_mountain}.")),),
    ),
)

# =========================================================================== searches (snippet corpus)

_SEARCH = "the search"


def _snippet_title(res: Result) -> str:
    return res.text.split(": ", 1)[0] if ": " in res.text else ""


def _read_hours(rng: Rng, res: Result, s: Slots) -> dict[str, object]:
    if not _snippet_title(res).startswith(str(s["place"])):
        return {}
    for seg, _ in _segments(res):
        if m := re.fullmatch(rf"{s['day']} (closed|(\d\d:\d\d) to (\d\d:\d\d))", seg):
            if m.group(1) == "closed":
                return {"closed": True}
            return {"open_t": _say_time(rng, m.group(2)), "close_t": _say_time(rng, m.group(3))}
    return {}


def _hours_for(domain: str, places: tuple[str, ...], kind: str, weight: float = 1.0) -> Spec:
    return Spec(
        f"hours_{domain}", domain, "search",
        lambda rng: {"place": pick(rng, places), "day": pick(rng, WEEKDAYS)},
        lambda s: {"query": f"{s['place']} opening hours {s['day']}"},
        user=("Is {place} open on {day}?", "What are the opening hours for {place} on {day}?",
              "Can you check when {place} opens on {day}?", "What time does {place} close on {day}?"),
        ack=("[Sure|Okay], checking {place}'s hours for {day}.", "[One sec|Let me look], [searching|looking up] {place} on {day}.",
             "[On it|Sure thing], [finding|getting] the {day} hours for {place}."),
        topic="the {day} hours for {place}", short=("the opening hours", "the hours check", "the {place} hours"),
        service=_SEARCH, request=f"Find the opening hours of {{place}} ({kind}) on {{day}}, including whether it is closed that day.",
        read=_read_hours,
        relay=(
            main("open_t close_t", "[Yes|Good news], {place} is open on {day} from {open_t} until {close_t}.",
                 "{place} [opens|is open] at {open_t} on {day} and closes at {close_t}.",
                 "On {day} {place} [is open|opens] {open_t} to {close_t}."),
            main("closed", "[Unfortunately|Sadly|Bad news], {place} is closed on {day}s.",
                 "{place} doesn't open on {day}s, [I'm afraid|unfortunately]."),
            note("close_t", "[I'd get there|Best to go] a bit before {close_t}[, just in case|]."),
            note("closed", "[Want me to|Shall I] check [another day|a different day]?"),
        ),
        revisions=(Revision("day", "{day}", lambda rng, s: pick(rng, WEEKDAYS), "checking",
                            user=("Actually, make that {day}.", "Sorry, I meant {day}, not {old_day}.", "What about {day} instead?")),),
        fallback=("[Their website|A quick call to them] would tell you too.",),
        weight=weight,
    )


def _read_prices(rng: Rng, res: Result, s: Slots) -> dict[str, object]:
    if not _snippet_title(res).startswith(f"{s['item']} prices"):
        return {}
    found = [m.groups() for seg, _ in _segments(res) if (m := re.fullmatch(r"(.+) (\d+) dollars", seg))]
    out: dict[str, object] = {}
    if found:   # listings come cheapest first, so the first one is the best price even in a partial result
        out["store"], out["best"] = found[0][0], int(found[0][1])
    if len(found) >= 2 and res.complete:   # the top of the range only once every listing is in
        out["hi"] = int(found[-1][1])
        out["others"] = " and ".join(st for st, _ in found[1:])
    return out


def _read_concert(rng: Rng, res: Result, s: Slots) -> dict[str, object]:
    if not _snippet_title(res).startswith(str(s["band"])):
        return {}
    out: dict[str, object] = {}
    for seg, _ in _segments(res):
        if m := re.fullmatch(rf"{re.escape(str(s['band']))} play (.+) on (\w+day) at (\d\d:\d\d)", seg):
            out["venue"], out["day"], out["time_t"] = m.group(1), m.group(2), _say_time(rng, m.group(3))
        elif m := re.fullmatch(r"tickets (\d+) dollars", seg):
            out["price"] = int(m.group(1))
        elif m := re.fullmatch(r"(\d+) tickets left", seg):
            out["left"] = int(m.group(1))
        elif seg == "sold out":
            out["sold_out"] = True
    return out


def _read_score(rng: Rng, res: Result, s: Slots) -> dict[str, object]:
    out: dict[str, object] = {}
    for seg, whole in _segments(res):
        if m := re.fullmatch(r"(.+) (\d+), (.+) (\d+)", seg):
            ta, sa, tb_, sb = m.group(1), int(m.group(2)), m.group(3), int(m.group(4))
            if {ta, tb_} != {s["a"], s["b"]}:
                return {}
            if sa == sb:
                out.update(draw=True, score=sa)
            else:
                w, l_, sw, sl = (ta, tb_, sa, sb) if sa > sb else (tb_, ta, sb, sa)
                out.update(winner=w, loser=l_, sw=sw, sl=sl)
        elif m := re.fullmatch(r"played (\w+day)", seg):
            out["day"] = m.group(1)
        elif whole and (m := re.fullmatch(r"top scorer (.+)", seg)):
            out["scorer"] = m.group(1)
    return out


def _read_next(rng: Rng, res: Result, s: Slots) -> dict[str, object]:
    if not _snippet_title(res).startswith(f"{s['team']} next match"):
        return {}
    out: dict[str, object] = {}
    for seg, _ in _segments(res):
        if m := re.fullmatch(rf"{re.escape(str(s['team']))} play (.+) (at home|away) on (\w+day) at (\d\d:\d\d)", seg):
            out["opp"], out["where"], out["day"], out["time_t"] = m.group(1), m.group(2), m.group(3), _say_time(rng, m.group(4))
        elif m := re.fullmatch(r"tickets from (\d+) dollars", seg):
            out["price"] = int(m.group(1))
    return out


SEARCH: tuple[Spec, ...] = (
    _hours_for("restaurants", tuple(p for p, _ in RESTAURANTS), "a restaurant", 1.5),
    _hours_for("home", LOCAL_PLACES, "a local business or service"),
    _hours_for("health", HEALTH_PLACES, "a pharmacy or clinic"),
    _hours_for("fitness", FITNESS_PLACES, "a sports or fitness venue"),
    _hours_for("shopping", SHOP_PLACES, "a shop"),
    Spec(
        "prices", "shopping", "search",
        lambda rng: {"item": pick(rng, ITEMS)},
        lambda s: {"query": f"{s['item']} prices"},
        user=("Can you find the cheapest {item} nearby?", "Where can I get a {item} for the best price?",
              "Look up prices for a {item} around here?", "Who has the best deal on a {item} near me?"),
        ack=("[Sure|Okay], searching for {item} prices nearby.", "[On it|One moment], comparing {item} prices.",
             "[Let me look|Sure thing], checking who sells the {item} for less."),
        topic="{item} prices nearby", short=("the price search", "the {item} search", "the price check"),
        service=_SEARCH, request="Search local stores for a {item} and return the lowest price with the store name, plus the other listings.",
        read=_read_prices,
        relay=(
            main("best store", "The best price I found is {best} dollars at {store}.", "[{store} has it for {best} dollars|Cheapest is {best} dollars at {store}]."),
            extra("hi others", "[Other shops go up to|Elsewhere it's as much as] {hi} dollars.", "{others} [charge more|are pricier], up to {hi} dollars."),
        ),
        fallback=("[Price comparison sites|The shops' own websites] would be the next place to look.",),
    ),
    Spec(
        "concert", "music", "search",
        lambda rng: {"band": pick(rng, BANDS)},
        lambda s: {"query": f"{s['band']} tour dates"},
        user=("Is {band} playing anywhere near me soon?", "Can you find tickets for {band}?", "When's the next {band} gig around here?"),
        ack=("[Sure|Okay], looking for {band} shows nearby.", "[One sec|Let me search], checking {band}'s tour dates.",
             "[Ooh|Nice], [I'll look|let me look] for a {band} show."),
        topic="the {band} tour dates", short=("the concert search", "the gig search", "the {band} search"),
        service=_SEARCH, request="Search for upcoming local concerts by {band}: venue, date, start time, ticket price and availability.",
        read=_read_concert,
        relay=(
            main("venue day time_t", "[Yes|Good news], {band} play {venue} on {day} at {time_t}.",
                 "{band} have a show at {venue} this {day}, starting {time_t}."),
            extra("price left", "Tickets are {price} dollars and there are {left} left.", "[There are|Only] {left} tickets left, at {price} dollars each."),
            extra("sold_out", "[Sadly|Unfortunately] it's sold out.", "It's sold out, [I'm afraid|sadly]."),
            extra("price", "Tickets [are|cost] {price} dollars."),
        ),
        revisions=(Revision("band", "{band}", lambda rng, s: pick(rng, BANDS), "looking for",
                            user=("Actually, can you check {band} instead?", "Oh, I meant {band}, not {old_band}.")),),
        fallback=("The venue websites usually list upcoming gigs too.",),
    ),
    Spec(
        "score", "sports", "search",
        lambda rng: dict(zip(("a", "b"), pick(rng, FIXTURES)[:: 1 if rng.random() < 0.6 else -1])),
        lambda s: {"query": f"{s['a']} against {s['b']} result"},
        user=("How did {a} do against {b}?", "What was the score in the {a} game against {b}?", "Did {a} beat {b}?"),
        ack=("[Sure|Okay], looking up the {a} result.", "[One sec|Let me check], searching for {a} against {b}.",
             "[Ooh|Good question], let me find the {a} score."),
        topic="the {a} result", short=("the score check", "the result", "the {a} score"),
        service=_SEARCH, request="Find the final score of the most recent match between {a} and {b}, with the day and the top scorer.",
        read=_read_score,
        relay=(
            main("winner loser sw sl", "{winner} beat {loser} {sw} to {sl}.", "{winner} won {sw} {sl} against {loser}.",
                 "It finished {sw} {sl} to {winner}."),
            main("draw score", "It was a {score} all draw between {a} and {b}.", "{a} and {b} drew {score} all."),
            extra("day", "[That was|The game was] on {day}."),
            extra("scorer", "[The top scorer was|Standout player:] {scorer}.", "{scorer} was the top scorer[ in that game|]."),
        ),
        fallback=("[The league's website|A sports news site] will have the full report.",),
    ),
    Spec(
        "next_match", "sports", "search",
        lambda rng: {"team": pick(rng, TEAMS)},
        lambda s: {"query": f"{s['team']} next match"},
        user=("When do {team} play next?", "Who are {team} playing next?", "Can you find {team}'s next game?"),
        ack=("[Sure|Okay], checking {team}'s next fixture.", "[One sec|Let me look], [finding|searching for] the next {team} game."),
        topic="the next {team} game", short=("the fixture check", "the next game", "the {team} search"),
        service=_SEARCH, request="Find the next scheduled match of {team}: opponent, home or away, day and kick off time, and ticket prices.",
        read=_read_next,
        relay=(
            main("opp where day time_t", "{team} play {opp} {where} on {day}, kicking off at {time_t}.",
                 "[Next up|Their next game] is {opp} {where}, {day} at {time_t}."),
            extra("price", "Tickets start at {price} dollars."),
        ),
        revisions=(Revision("team", "{team}", lambda rng, s: pick(rng, TEAMS), "checking",
                            user=("Actually, check {team} instead.", "Oh, I meant {team}.")),),
        fallback=("[The club's website|The club app] will have the fixture list.",),
    ),
)

# =========================================================================== calendar

EVENTS = {
    "health": ("doctor's appointment", "dentist appointment", "eye test", "physio session", "flu jab"),
    "fitness": ("spin class", "yoga class", "personal training session", "swim session", "climbing session"),
    "home": ("plumber visit", "boiler service", "furniture delivery", "window cleaner", "electrician visit"),
    "music": ("guitar lesson", "piano lesson", "choir practice", "band rehearsal", "singing lesson"),
    "sports": ("tennis match", "five a side game", "golf lesson", "squash game", "swim meet"),
    "tech_help": ("laptop repair drop off", "phone screen repair", "router installation", "call with IT support", "printer repair visit"),
}
EVENT_TIMES = ((8, 30), (9, 0), (10, 15), (11, 0), (12, 30), (14, 0), (15, 45), (16, 30), (17, 15), (18, 0), (19, 30))


def _read_booking(rng: Rng, res: Result, s: Slots) -> dict[str, object]:
    m = re.match(r"Booked (.+?) on (\w+day)\b", res.text)
    if not m:
        return {}
    out: dict[str, object] = {"b_title": m.group(1), "b_day": m.group(2)}
    if at := re.search(r" at (\d\d:\d\d)\b", res.text):
        out["b_time"] = _say_time(rng, at.group(1))
    if mins := re.search(r" for (\d+) minutes", res.text):
        out["b_minutes"] = int(mins.group(1))
    return out


def _calendar_for(domain: str) -> Spec:
    def draw(rng: Rng) -> Slots:
        return {"event": pick(rng, EVENTS[domain]), "day": pick(rng, WEEKDAYS), "at": pick(rng, EVENT_TIMES),
                "minutes": int(pick(rng, (30, 45, 60, 90))), "who": pick(rng, FIRST_NAMES), "style": int(rng.integers(2))}

    return Spec(
        f"book_{domain}", domain, "calendar", draw,
        lambda s: {"action": "book", "day": str(s["day"]), "time": _clock(*s["at"]), "minutes": str(s["minutes"]),  # type: ignore[misc]
                   "title": str(s["event"])},
        user=("Can you add my {event} on {day} at {time_t}?", "Put a {event} in my calendar for {day}, {time_t}, please.",
              "I've got a {event} {day} at {time_t}, {minutes} minutes. Can you add it?",
              "{who} booked me a {event} on {day} at {time_t}. Add it to my calendar?"),
        ack=("[Sure|Okay], adding the {event} on {day} at {time_t}.", "[On it|Will do], [putting|I'm putting] your {event} in for {day}.",
             "[Got it|Sure thing], {event}, {day} at {time_t}[, one moment|]."),
        topic="the {event} on {day}", short=("the booking", "the calendar entry", "the {event} booking"),
        service="your calendar",
        request="Add a calendar event: {event} on {day} at {clock}, {minutes} minutes long.",
        read=_read_booking,
        relay=(
            main("b_title b_day b_time", "[Done|All set|Okay], your {b_title} is on the calendar for {b_day} at {b_time}.",
                 "[I've added|Added] the {b_title} for {b_time} on {b_day}.", "[It's in|All booked in]: {b_title}, {b_day} at {b_time}."),
            main("b_title b_day", "[It shows|It looks like] the {b_title} on {b_day} went in, but the time didn't come back."),
            extra("b_minutes", "I've blocked out {b_minutes} minutes for it.", "[It's down as|That's] {b_minutes} minutes long."),
        ),
        derive=lambda s: {"time_t": spoken_time(*s["at"], int(s["style"])), "clock": _clock(*s["at"])},  # type: ignore[misc]
        fallback=("[If you like|Meanwhile], I can remind you to add it yourself later.",),
    )


def _read_agenda(rng: Rng, res: Result, s: Slots) -> dict[str, object]:
    if re.fullmatch(r"Nothing is booked on \w+day", res.text):
        return {"free": True}
    items = [m.groups() for seg, _ in _segments(res) if (m := re.fullmatch(r"(.+) at (\d\d:\d\d)", seg))]
    if not items:
        return {}
    spoken = [f"{t} at {_say_time(rng, c)}" for t, c in items]
    listing = spoken[0] if len(spoken) == 1 else ", ".join(spoken[:-1]) + " and " + spoken[-1]
    if not res.complete:   # more entries may be missing: no count
        return {"some": listing}
    return {"listing": listing, "n_w": number_words(len(items)), "things": "thing" if len(items) == 1 else "things"}


CALENDAR: tuple[Spec, ...] = tuple(_calendar_for(d) for d in EVENTS) + (
    Spec(
        "agenda", "home", "calendar",
        lambda rng: {"day": pick(rng, WEEKDAYS)},
        lambda s: {"action": "agenda", "day": str(s["day"])},
        user=("What's on my calendar for {day}?", "Do I have anything on {day}?", "Can you check my schedule on {day}?",
              "Am I free on {day}?"),
        ack=("[Sure|Okay], checking your calendar for {day}.", "[One sec|Let me look], [pulling up|opening] {day}'s schedule.",
             "[On it|Sure thing], looking at {day}."),
        topic="your schedule for {day}", short=("the calendar check", "the schedule check", "the {day} check"),
        service="your calendar", request="List all calendar events on {day} with their start times.",
        read=_read_agenda,
        relay=(
            main("free", "[Good news|Nothing there], you're free on {day}.", "There's nothing booked on {day}[, so it's all yours|]."),
            main("listing n_w things", "[On {day} you have|You've got] {n_w} {things}: {listing}.",
                 "[Your {day} looks like this|Here's {day}]: {listing}."),
            main("some", "[So far I can see|The part I got shows] {some} on {day}."),
            note("free", "[Want me to|Shall I] [put something in|book something] for {day}?"),
        ),
        revisions=(Revision("day", "{day}", lambda rng, s: pick(rng, WEEKDAYS), "checking",
                            user=("Actually, check {day} instead.", "Sorry, I meant {day}.")),),
        fallback=("[If it's urgent|Meanwhile], the calendar app on your phone will show it.",),
    ),
)

SPECS: tuple[Spec, ...] = WEATHER + CALCULATOR + CONVERT + DATETIME + LOOKUP + SEARCH + CALENDAR
BY_NAME: dict[str, Spec] = {s.name: s for s in SPECS}
assert len(BY_NAME) == len(SPECS), "spec names must be unique"

# =========================================================================== shared phrases

PARTIAL_OPEN = (
    "[Only part of the result came back|Only part of the answer came through|I only got part of the answer back|"
    "The answer came back cut off][, but here's what I have|, so here's what I've got|].",
    "[I got a partial answer about {short}|Part of the answer about {short} came through, not all of it|"
    "{service} only sent back part of the answer about {short}].",
    "[Heads up|Just so you know], [the result was incomplete|only part of it arrived|the answer got cut short], "
    "[but|so] here's what I [have|got] on {short}.",
    "[Okay|Right], [{service} only managed part of it|I've got half an answer on {short}], so [bear with me|this is incomplete].",
)
PARTIAL_NOTHING = (
    "[Only part of the result came back|The answer came back cut off|I got a partial answer from {service}], and "
    "[the part with the actual answer|the key bit|the part you need|the important bit] is missing.",
    "[Hmm|Sorry], {service} only sent [part of the answer about {short}|a partial result], "
    "[without the answer itself|and the answer got cut off].",
    "[Annoyingly|Frustratingly], the reply on {topic} [stopped short|got cut off] [before the useful part|right before the answer].",
    "I [got something back|heard back] on {short}, but [it's cut off|it's only half of it] and [doesn't include|is missing] the answer.",
    "{service} [replied|answered], but [only partly|the reply is incomplete], so I still don't have {short}.",
)
PARTIAL_OFFER = (
    "[Want me to|Shall I|Should I] [ask again|try again|fetch the rest|ask for the rest][ for {short}|]?",
    "I can [ask again|try again|request the rest] [if you like|now|if you want].",
    "[Want me to|Shall I] [get|fetch] the rest of {short}?",
    "[Say the word and|If you want,] I'll [ask|check] [again|once more] for the [full|complete] answer on {topic}.",
    "[I'd be happy to|I can] [rerun|repeat] {short} [to get the rest|for the missing part].",
)
FAIL_TIMEOUT = (
    "[{service} took too long|{service} didn't answer in time|I didn't hear back from {service} in time], so "
    "[the request for {topic}|my check] timed out.",
    "[Sorry|Hmm|Unfortunately], {topic} timed out[ before {service} answered|].",
    "[Sorry|Unfortunately|Hmm], it timed out, [{service} never got back to me|I waited but got nothing back from {service}].",
    "[The check|My request] [on {short}|for {topic}] timed out, [{service} is being really slow|{service} is too slow right now].",
    "[I waited|I gave it a while], but {service} [never replied|didn't respond] about {topic}.",
    "No luck [on {short}|with {topic}], the request ran out of time [waiting on {service}|before anything came back].",
)
FAIL_DOWN = (
    "[Sorry|Unfortunately|Hmm], {service} isn't answering right now[, so I couldn't get {short}|].",
    "[I couldn't reach|I can't get through to] {service} [at the moment|right now], so I don't have {short} yet.",
    "{service} seems to be down [at the moment|right now|for now], [so I couldn't check {topic}|sorry].",
    "[Sorry|Bad news], [that didn't go through|the request failed], {service} is unavailable right now.",
    "[Annoyingly|Unfortunately], {topic} [failed|didn't work], because {service} is [offline|not responding].",
    "[I tried|I asked], but {service} [returned an error|is having problems] and I [got nothing|came back empty handed] on {short}.",
)
FAIL_CLASH = (
    "[I couldn't book that|That didn't work|Your calendar said no], {c_day} at {c_time} clashes with your {c_title}.",
    "[Sorry|Hmm], there's already your {c_title} at that time on {c_day}, so I couldn't add it.",
    "[Slight problem|One snag]: {c_day} at {c_time} is taken by your {c_title}.",
    "[I tried to add it|I went to book it], but your {c_title} is already in that slot on {c_day}.",
)
FAIL_REFUSED = (
    "[Sorry|Hmm], {service} couldn't [do that|help with that] for {topic}.",
    "{service} [turned that down|refused that request], so I don't have {short}.",
)
NEXT_RETRY = (
    "[Want me to|Shall I|Should I] [try again|give it another go|try once more] [in a minute|in a few minutes|shortly|in a bit]?",
    "I can [try again|check again|have another go] [in a minute|shortly|in a little while][ and let you know|], if you like.",
    "[If you like|If you want], I'll [keep trying|try again later] and [tell you|let you know] [as soon as I have|once I get] {short}.",
    "[Should I|Shall I] [have another go at|retry] {short} [in a moment|a bit later|once it's back]?",
    "[I'll|Let me] [keep an eye on it|try again in a bit] and [get back to you|come back to you] with {short}[ if that works|].",
    "[We could|I could] [try {short} again|check {topic} again] [later|in a few minutes|when it's back up], [if that helps|just say so].",
)
NEXT_CLASH = (
    "[Want me to|Shall I|Should I] [try|book it at] a different time[ on {c_day}|], or [another day|a different day]?",
    "I can [look for|find] [a free slot|another time] [that day|on {c_day}|later that day] if you like.",
    "[Should I|Shall I] move it [a bit later|an hour later|to another day] instead?",
    "[Or|Alternatively], I could [move|shift] your {c_title} [if that one is flexible|to make room].",
)
RETRY_ERROR = (
    "[That didn't go through|The first try failed|{service} didn't answer|{service} had a hiccup], so I'm [trying|asking for] {topic} again.",
    "[Hmm|Hang on], {service} [isn't answering|had a problem], so [let me try|I'll try|I'm trying] {short} again.",
    "[Oops|Hmm], [that failed|no luck the first time], so [here's one more try|let me give it another go] [for {topic}|with {service}].",
    "[First attempt|My first try] at {short} [errored out|hit an error], [sending it again|so I've sent it again] [now|].",
    "[Small hiccup|Slight snag] with {service}, [retrying|I'm retrying] {topic} [now|right away].",
)
RETRY_TIMEOUT = (
    "[That timed out|The request timed out|{service} took too long], so I'm [trying|running] {short} again.",
    "[Hmm|Sorry], {topic} timed out, so [I'll try|I'm trying] [again|once more].",
    "{service} was too slow, [so I'm asking again|let me ask again] [for {topic}|now].",
    "[No answer yet|Nothing came back] [on {short}|from {service}], so I'm [sending it again|giving it another try].",
    "[It took too long|I waited too long] [for {topic}|on {short}], [so let me retry|trying once more].",
)
CANCEL_USER = (
    "[Actually|Oh wait|Hmm, actually|You know what], never mind {short}.",
    "Forget about {short}, [I don't need it anymore|it's fine|I'll sort it out myself].",
    "[Can you|Could you] cancel {short}[, please|]?",
    "Scratch that, I don't need {short} after all.",
    "Don't worry about {short} [anymore|now|after all].",
    "[Actually|Wait], [stop|drop] {short}, [I've changed my mind|plans changed|I just found out myself].",
    "[Oh|Hmm], [no need for|skip] {topic}[, thanks|, sorry|].",
    "[Hang on|Wait], [cancel|call off] {topic}, [I don't need it|it's not needed anymore|never mind].",
)
CANCEL_ACK = (
    "[Okay|Sure|No problem|Alright], I've [called off|cancelled|stopped] {short}.",
    "[Done|Okay], {short} is cancelled.",
    "[No worries|Sure thing], I'll [drop|forget about] {short}.",
    "[Got it|Okay], I've [told it to stop|stopped it] working on {short}.",
    "[Fine by me|Sure], consider {short} [cancelled|dropped].",
    "[Okay|No problem], [I've cancelled|I'm calling off] {topic}.",
    "[Sure|Right], [no more|I'll stop] [{short}|checking {topic}], then.",
    "[Understood|Got it], {topic} [is off|won't go ahead|is cancelled].",
)
REVISE_USER = (
    "Actually, make that {new} instead.",
    "Wait, sorry, I meant {new}.",
    "Oh, not {old}, {new}.",
    "Hang on, can you change that to {new}?",
    "Sorry, I misspoke, it's {new}.",
    "Actually, can you do {new} instead of {old}?",
    "Um, actually, {new}, not {old}.",
    "Oops, I meant {new}, sorry.",
    "No wait, {new}.",
    "Let me correct that, it should be {new}.",
)
REVISE_ACK = (
    "[Got it|Okay|Sure|Alright], {verb} {new} instead.",
    "[No problem|Sure], I'll [redo|rerun] that with {new}.",
    "[Right|Okay|Understood], {new}, not {old}.",
    "[Okay|Sure thing], switching [over|] to {new}.",
    "[Noted|Got it], {new} [instead of {old}|it is].",
    "[Ah, okay|Oh, right], {verb} {new} [then|instead].",
    "[Sure|Will do], {verb} {new} [now|rather than {old}].",
    "[Of course|No worries], let me [redo it|start over] with {new}.",
)

# =========================================================================== rendering


def spec_of(name: str) -> Spec:
    return BY_NAME[name]


def eligible(domain: str | None, tools: tuple[str, ...] | None, exclude_domain: str | None, revisable: bool) -> tuple[Spec, ...]:
    return tuple(
        s for s in SPECS
        if (domain is None or s.domain == domain) and (tools is None or s.tool in tools)
        and (exclude_domain is None or s.domain != exclude_domain) and (not revisable or s.revisions)
    )


def draw_spec(rng: Rng, specs: tuple[Spec, ...]) -> Spec:
    """A domain uniformly among those the specs cover, then a spec of it by weight."""
    doms = tuple(dict.fromkeys(s.domain for s in specs))
    d = pick(rng, doms)
    options = tuple(s for s in specs if s.domain == d)
    weights = [s.weight for s in options]
    total = sum(weights)
    return options[int(rng.choice(len(options), p=[w / total for w in weights]))]


def _ctx(rng: Rng, spec: Spec, slots: Slots, topic: str) -> Slots:
    v = spec.view(slots)
    v["topic"] = topic
    v["short"] = render_rng(rng, spec.short, v, capitalize=False)
    return v


def make(rng: Rng, spec: Spec, slots: Slots | None = None) -> dict[str, object]:
    """Draw (or reuse) slots and render the request side: user line, ack, topic, call, private request."""
    base = spec.draw(rng) if slots is None else slots
    v = spec.view(base)
    topic = render_rng(rng, (spec.topic,), v, capitalize=False)
    return {
        "slots": base,
        "user_request": render_rng(rng, spec.user, v),
        "ack": render_rng(rng, spec.ack, v),
        "topic": topic,
        "call": spec.call(base),
        "request": render_rng(rng, (spec.request,), v),
    }


def relay(rng: Rng, spec: Spec, slots: Slots, topic: str, ex: Execution) -> tuple[str, ...]:
    """1-3 sentences relaying what the harness returned (all of it, or the part that arrived)."""
    if ex.status not in ("ok", "partial"):
        return fallback(rng, spec, slots, topic, ex)
    res = result_of(ex)
    facts = spec.read(rng, res, slots)
    ctx = {**_ctx(rng, spec, slots, topic), **facts}
    usable = [p for p in spec.relay if all(k in facts for k in p.needs)]
    mains = [p for p in usable if p.main]
    extras = [p for p in usable if not p.main]
    if res.complete:
        if not mains:
            raise RuntimeError(f"{spec.name}: complete result {ex.text!r} answers no relay part")
        best = max(len(p.needs) for p in mains)
        head = pick(rng, [p for p in mains if len(p.needs) == best])
        said = set(head.needs)
        want = int(rng.integers(0, 3))
        chosen: list[int] = []
        for i in rng.permutation(len(extras)) if extras else ():
            p = extras[int(i)]
            if len(chosen) < want and (p.note or not said & set(p.needs)):
                chosen.append(int(i))
                said |= set(p.needs)
        return (render_rng(rng, head.templates, ctx),) + tuple(render_rng(rng, extras[i].templates, ctx) for i in sorted(chosen))
    # partial: say so, relay the facts that arrived (never a remark alone), offer to fetch the rest
    facts_parts = [p for p in usable if not p.note]
    if not facts_parts:
        return (render_rng(rng, PARTIAL_NOTHING, ctx), render_rng(rng, PARTIAL_OFFER, ctx))
    best = max(len(p.needs) for p in facts_parts)
    first = next(p for p in facts_parts if len(p.needs) == best)
    out = [render_rng(rng, PARTIAL_OPEN, ctx), render_rng(rng, first.templates, ctx)]
    more = [p for p in facts_parts if not p.main and not set(p.needs) & set(first.needs)]
    if more and rng.random() < 0.4:
        out.append(render_rng(rng, more[0].templates, ctx))
    else:
        out.append(render_rng(rng, PARTIAL_OFFER, ctx))
    return tuple(out)


_CLASH = re.compile(r"(\w+day) at (\d\d:\d\d) clashes with (.+?)\.?$")


def failure_kind(ex: Execution) -> str:
    """'timeout', 'down' (the service failed to run), 'clash' (calendar refusal) or 'refused' (the tool said no)."""
    if ex.status == "timeout":
        return "timeout"
    if _CLASH.search(ex.text):
        return "clash"
    if re.search(r"unavailable right now", ex.text):
        return "down"
    return "refused"


def fallback(rng: Rng, spec: Spec, slots: Slots, topic: str, ex: Execution) -> tuple[str, ...]:
    """What went wrong in plain words, then an alternative or next step."""
    kind = failure_kind(ex)
    ctx = _ctx(rng, spec, slots, topic)
    if kind == "clash":
        m = _CLASH.search(ex.text)
        assert m is not None
        ctx.update(c_day=m.group(1), c_time=_say_time(rng, m.group(2)), c_title=m.group(3))
        return render_rng(rng, FAIL_CLASH, ctx), render_rng(rng, NEXT_CLASH, ctx)
    first = {"timeout": FAIL_TIMEOUT, "down": FAIL_DOWN, "refused": FAIL_REFUSED}[kind]
    nexts = NEXT_RETRY + spec.fallback if kind != "refused" else spec.fallback or NEXT_RETRY
    return render_rng(rng, first, ctx), render_rng(rng, nexts, ctx)


def retry_line(rng: Rng, spec: Spec, slots: Slots, topic: str, ex: Execution) -> str:
    return render_rng(rng, RETRY_TIMEOUT if ex.status == "timeout" else RETRY_ERROR, _ctx(rng, spec, slots, topic))


def cancel_request(rng: Rng, spec: Spec, slots: Slots, topic: str) -> str:
    return render_rng(rng, CANCEL_USER, _ctx(rng, spec, slots, topic))


def cancel_ack(rng: Rng, spec: Spec, slots: Slots, topic: str) -> str:
    return render_rng(rng, CANCEL_ACK, _ctx(rng, spec, slots, topic))


def cancel_request_text(topic: str) -> str:
    return f"Cancel the pending request for {topic}; the user no longer needs it."


def _shown(spec: Spec, rev: Revision, slots: Slots) -> str:
    return fill(rev.show, spec.view(slots))


def revise(rng: Rng, spec: Spec, slots: Slots) -> tuple[Revision, Slots]:
    """One revisable slot redrawn so that its shown value and the call both change."""
    if not spec.revisions:
        raise ValueError(f"delegation {spec.name!r} is not revisable")
    old_call = spec.call(slots)
    for _ in range(60):
        rev: Revision = pick(rng, spec.revisions)
        value = rev.sample(rng, slots)
        if value == slots[rev.slot]:
            continue
        cand = dict(slots)
        cand[rev.slot] = value
        if _shown(spec, rev, cand) != _shown(spec, rev, slots) and spec.call(cand) != old_call:
            return rev, cand
    raise RuntimeError(f"could not revise {spec.name}")


def revision_context(spec: Spec, rev: Revision, old: Slots, new: Slots) -> Slots:
    ctx = spec.view(new)
    ctx.update({f"old_{k}": v for k, v in spec.view(old).items()})
    ctx.update(new=_shown(spec, rev, new), old=_shown(spec, rev, old), verb=rev.verb)
    return ctx


def revision_user(rng: Rng, spec: Spec, rev: Revision, old: Slots, new: Slots) -> str:
    return render_rng(rng, rev.user + REVISE_USER, revision_context(spec, rev, old, new))


def revision_ack(rng: Rng, spec: Spec, rev: Revision, old: Slots, new: Slots) -> str:
    return render_rng(rng, rev.ack + REVISE_ACK, revision_context(spec, rev, old, new))


__all__ = [
    "BY_NAME", "CONVERSIONS", "Part", "Result", "Revision", "SPECS", "Spec", "cancel_ack", "cancel_request",
    "cancel_request_text", "draw_spec", "eligible", "failure_kind", "fallback", "make", "relay", "result_of", "retry_line",
    "revise", "revision_ack", "revision_user", "say_money", "say_number", "spec_of",
]
