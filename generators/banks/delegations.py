"""Delegated (background tool) requests with results computed from their slots.

Each spec's ``make(rng)`` returns the fields of a ``DelegationContent``: the
spoken user request and acknowledgement, the private plain-language request for
the background harness, the backend result text (plain, may use compact units)
and the relay the assistant speaks, which always agrees with the result.

Calculator results are written as one-operation equations, ``A op B = C`` with op
in {plus, minus, times, divided by, percent of}, so they can be checked.
"""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal
from typing import Callable

from .engine import DelegationSpec, Rng, Slots, money, number_words, pick, render_rng, spoken_time
from .ex_food import CUISINES, DISHES, PRODUCTS
from .ex_home import DEVICES
from .ex_outdoors import TEAMS, weather_view
from .values import CITY_NAMES, DAYS, FIRST_NAMES, WEEKDAYS

CENT = Decimal("0.01")


def _q(x: Decimal) -> Decimal:
    return x.quantize(CENT, rounding=ROUND_HALF_UP)


def _num(x: Decimal | float | int) -> str:
    """Plain number for result text: no thousands separators, no trailing zeros."""
    d = Decimal(str(x))
    if d == d.to_integral():
        return str(int(d))
    return format(d.normalize(), "f")


def _money_d(x: Decimal) -> str:
    return money(float(x))


def _clock(h: int, m: int) -> str:
    return f"{h:02d}:{m:02d}"


def _out(rng: Rng, slots: Slots, user: tuple[str, ...], ack: tuple[str, ...], request: str, result: str,
         relay: tuple[tuple[str, ...], ...]) -> dict[str, object]:
    n_relay = min(len(relay), int(rng.integers(1, 4)))
    sentences = [render_rng(rng, relay[0], slots)]
    rest = list(range(1, len(relay)))
    chosen = sorted(int(i) for i in rng.choice(rest, size=min(len(rest), n_relay - 1), replace=False)) if rest else []
    sentences += [render_rng(rng, relay[i], slots) for i in chosen]
    return {
        "user_request": render_rng(rng, user, slots),
        "ack": render_rng(rng, ack, slots),
        "request": render_rng(rng, (request,), slots),
        "result": result,
        "relay": tuple(sentences),
    }


# =========================================================================== weather


def _weather(rng: Rng) -> dict[str, object]:
    city = str(pick(rng, CITY_NAMES))
    day = pick(rng, DAYS)
    slots: Slots = {"city": city, "day": day, "seed": int(rng.integers(0, 2**31 - 1))}
    slots.update(weather_view(slots))
    slots["city_s"] = city + "'s"
    result = (
        f"{city}, {slots['day']}: {slots['cond']}, {slots['low_n']} to {slots['high_n']} degrees Celsius, "
        f"{slots['rain']}% chance of rain, wind {slots['wind']} km/h."
    )
    return _out(
        rng, slots,
        user=(
            "Can you check the weather in {city} {day_on}?",
            "What's the forecast for {city} {day_on}?",
            "Could you look up {city}'s weather for {day}?",
            "Check {city} {day_on} for me, will it be nice?",
        ),
        ack=(
            "[Sure|Okay|On it], I'm checking {city_s} weather for {day} now.",
            "[Sure|One moment], [pulling up|getting] the {city} forecast for {day}.",
            "[Let me look up|I'm checking] the weather in {city} {day_on}[, one sec|].",
            "[Okay|Alright], [I'll grab|fetching] {day}'s forecast for {city}.",
        ),
        request="Get the weather forecast for {city} {day_on}: temperature range in Celsius, conditions, chance of rain and wind speed.",
        result=result,
        relay=(
            (
                "[Okay|Here it is|Got it], {city} {day_on} [looks like|will have] {cond}, between {low} and {high} degrees.",
                "[The forecast's in|Alright]: {cond} in {city} {day_on}, with a high of {high} and a low of {low}.",
                "{city} {day_on} [should see|is set for] {cond}, [from {low} up to {high} degrees|with temperatures from {low} to {high}].",
            ),
            (
                "There's a {rain} percent chance of rain[, so {rain_comment}|].",
                "[Rain chances are|The chance of rain is] about {rain} percent in {city}.",
            ),
            (
                "[Wind|The wind] will be around {wind} kilometres an hour[, so {wind_desc}|].",
                "It'll be {wind_desc}, [around|with winds of about] {wind} kilometres an hour.",
            ),
        ),
    )


def _rain_hours(rng: Rng) -> dict[str, object]:
    city = str(pick(rng, CITY_NAMES))
    start = int(rng.integers(12, 18))
    chances = [int(5 * rng.integers(0, 19)) for _ in range(4)]
    peak = max(range(4), key=lambda i: chances[i])
    slots: Slots = {
        "city": city,
        "peak_t": spoken_time(start + peak, 0, int(rng.integers(5))),
        "peak": chances[peak],
        "low_c": min(chances),
        "first_t": spoken_time(start, 0, int(rng.integers(5))),
        "last_t": spoken_time(start + 3, 0, int(rng.integers(5))),
        "verdict": "you'll probably want an umbrella" if chances[peak] >= 50 else "you can probably skip the umbrella",
    }
    result = f"{city}, hourly chance of rain: " + ", ".join(
        f"{_clock(start + i, 0)} {c}%" for i, c in enumerate(chances)
    ) + "."
    return _out(
        rng, slots,
        user=(
            "Will it rain in {city} this afternoon?",
            "Do I need an umbrella in {city} later today?",
            "Can you check if it's going to rain in {city} this afternoon?",
        ),
        ack=(
            "[Sure|Okay], checking the afternoon rain for {city}.",
            "[One sec|Let me see], [I'm looking at|pulling up] the hourly forecast for {city}.",
            "[On it|Sure thing], [I'll check|checking] {city} between {first_t} and {last_t}.",
        ),
        request="Get the hourly chance of rain in {city} this afternoon, from {first_t} to {last_t}, hour by hour.",
        result=result,
        relay=(
            (
                "[Okay|So|Alright], the [highest|biggest] chance of rain in {city} is {peak} percent, around {peak_t}.",
                "[In {city}|For {city}], rain peaks at {peak} percent [around|near] {peak_t}.",
            ),
            (
                "[So|Overall], {verdict} [this afternoon|if you're out around {peak_t}].",
                "[With that|Given {peak} percent], {verdict}.",
            ),
        ),
    )


# =========================================================================== calculator


def _tip_split(rng: Rng) -> dict[str, object]:
    bill = _q(Decimal(int(rng.integers(2000, 40000))) / 100)
    pct = int(pick(rng, (10, 12, 15, 18, 20, 22, 25)))
    n = int(rng.integers(2, 9))
    tip = _q(bill * pct / 100)
    total = bill + tip
    each = _q(total / n)
    slots: Slots = {
        "bill": _money_d(bill), "pct": pct, "n": n, "n_w": number_words(n), "tip": _money_d(tip),
        "total": _money_d(total), "each": _money_d(each), "place": pick(rng, [p for c in CUISINES for p in c.places]),
    }
    result = (
        f"{pct} percent of {bill} = {tip}. {bill} plus {tip} = {total}. {total} divided by {n} = {each}."
    )
    return _out(
        rng, slots,
        user=(
            "The bill at {place} is {bill}. With a {pct} percent tip, how much each for {n} of us?",
            "Can you split {bill} between {n} people, plus a {pct} percent tip?",
            "We owe {bill} for dinner. Add {pct} percent tip and split it {n} ways, please.",
        ),
        ack=(
            "[Sure|Okay], [working out|calculating] a {pct} percent tip on {bill}, split {n_w} ways.",
            "[On it|One moment], splitting {bill} plus tip between {n_w} people.",
            "[Let me do the maths|Sure thing], {bill} with {pct} percent tip, {n_w} ways.",
        ),
        request="Calculate a {pct} percent tip on a bill of {bill}, add it to the bill, and divide the total by {n}. Round to cents.",
        result=result,
        relay=(
            (
                "[Okay|Done|Alright], that's {each} each.",
                "[Each person pays|It comes to] {each} [each|per person][, tip included|].",
                "[So|Right], split {n_w} ways, [everyone owes|each of you pays] {each}.",
            ),
            (
                "The tip is {tip}, [making|bringing] the total {total}.",
                "[With a {pct} percent tip of {tip}|Including {tip} in tip], the total is {total}.",
            ),
        ),
    )


def _percent(rng: Rng) -> dict[str, object]:
    base = int(rng.integers(20, 5000))
    pct = int(pick(rng, (3, 5, 7, 8, 10, 12, 15, 20, 25, 30, 35, 40, 45, 60, 75)))
    val = _q(Decimal(base) * pct / 100)
    slots: Slots = {"base": base, "pct": pct, "val": _num(val), "val_s": _money_d(val) if val != val.to_integral() else f"{int(val)}"}
    result = f"{pct} percent of {base} = {_num(val)}."
    return _out(
        rng, slots,
        user=(
            "What's {pct} percent of {base}?",
            "Quick maths, {pct} percent of {base}?",
            "Can you work out {pct} percent of {base} for me?",
        ),
        ack=(
            "[Sure|Okay], [working out|calculating] {pct} percent of {base}.",
            "[One sec|Let me check], {pct} percent of {base}.",
            "[On it|Sure thing], [figuring out|getting] {pct} percent of {base}.",
        ),
        request="Calculate {pct} percent of {base}. Give the exact value.",
        result=result,
        relay=(
            (
                "{pct} percent of {base} is {val}.",
                "[That's|It comes to|The answer is] {val}[, {pct} percent of {base}|].",
                "[Okay|Got it], {val} is {pct} percent of {base}.",
            ),
        ),
    )


def _multiply(rng: Rng) -> dict[str, object]:
    a = int(rng.integers(12, 99))
    b = int(rng.integers(12, 999))
    slots: Slots = {"a": a, "b": b, "v": a * b}
    return _out(
        rng, slots,
        user=("What's {a} times {b}?", "Can you multiply {a} by {b}?", "Quick one, {a} times {b}?"),
        ack=(
            "[Sure|Okay], [multiplying {a} by {b}|working out {a} times {b}].",
            "[One sec|Let me calculate], {a} times {b}.",
        ),
        request="Multiply {a} by {b}. Give the exact result.",
        result=f"{a} times {b} = {a * b}.",
        relay=(
            (
                "{a} times {b} is {v}.",
                "[That's|It comes to|The answer is] {v}.",
                "[Okay|Got it], {a} times {b} [equals|makes] {v}.",
            ),
        ),
    )


def _discount(rng: Rng) -> dict[str, object]:
    p = PRODUCTS[int(rng.integers(len(PRODUCTS)))]
    price = _q(Decimal(int(rng.integers(p.low, p.high + 1))) - Decimal("0.01"))
    pct = int(pick(rng, (10, 15, 20, 25, 30, 40, 50)))
    off = _q(price * pct / 100)
    final = price - off
    item = p.name.removeprefix("pair of ")
    slots: Slots = {"item": item, "price": _money_d(price), "pct": pct, "off": _money_d(off), "final": _money_d(final)}
    return _out(
        rng, slots,
        user=(
            "The {item} I want is {price} with {pct} percent off. What's the final price?",
            "How much is a {price} {item} after a {pct} percent discount?",
            "There's {pct} percent off a {item} that costs {price}. What would I pay?",
        ),
        ack=(
            "[Sure|Okay], [working out|calculating] {pct} percent off {price}.",
            "[One moment|Let me check], the {item} with {pct} percent off.",
            "[On it|Sure thing], taking {pct} percent off the {item}.",
        ),
        request="Calculate the price of an item costing {price} after a {pct} percent discount. Show the discount amount and the final price, rounded to cents.",
        result=f"{pct} percent of {price} = {off}. {price} minus {off} = {final}.",
        relay=(
            (
                "[With the discount|After {pct} percent off], the {item} comes to {final}.",
                "[You'd pay|The final price is] {final} for the {item}.",
            ),
            (
                "That [saves you|takes off] {off}.",
                "[The discount is worth|You save] {off}[ on the {item}|].",
            ),
        ),
    )


def _groceries(rng: Rng) -> dict[str, object]:
    n = int(rng.integers(3, 5))
    prices = [_q(Decimal(int(rng.integers(99, 2500))) / 100) for _ in range(n)]
    lines = []
    running = prices[0]
    for p in prices[1:]:
        new = running + p
        lines.append(f"{running} plus {p} = {new}.")
        running = new
    listing = ", ".join(str(p) for p in prices[:-1]) + f" and {prices[-1]}"
    slots: Slots = {"listing": listing, "total": _money_d(running), "n_w": number_words(n), "name": pick(rng, FIRST_NAMES)}
    return _out(
        rng, slots,
        user=(
            "Can you add up {listing} for me?",
            "What do {listing} come to together?",
            "I owe {name} for a few things: {listing}. What's the total?",
        ),
        ack=(
            "[Sure|Okay], adding up those {n_w} amounts.",
            "[One sec|On it], [totting up|adding] the {n_w} prices.",
        ),
        request="Add these amounts and give the total: {listing}.",
        result=" ".join(lines),
        relay=(
            (
                "[Altogether|In total|All together], that's {total}.",
                "[Those {n_w} add up to|The total is] {total}.",
            ),
        ),
    )


# =========================================================================== unit conversion

CONVERSIONS: tuple[tuple[str, str, str, Decimal, tuple[int, int], int], ...] = (
    # (domain, from unit, to unit, factor, (lo, hi), decimals)
    ("travel", "miles", "kilometres", Decimal("1.609344"), (3, 400), 1),
    ("travel", "kilometres", "miles", Decimal("0.621371"), (5, 600), 1),
    ("fitness", "pounds", "kilograms", Decimal("0.453592"), (5, 300), 1),
    ("fitness", "miles", "kilometres", Decimal("1.609344"), (1, 26), 2),
    ("cooking", "ounces", "grams", Decimal("28.3495"), (2, 40), 0),
    ("cooking", "cups", "millilitres", Decimal("236.588"), (1, 6), 0),
    ("home", "feet", "metres", Decimal("0.3048"), (3, 60), 2),
    ("home", "square feet", "square metres", Decimal("0.092903"), (40, 3000), 1),
    ("health", "pounds", "kilograms", Decimal("0.453592"), (90, 320), 1),
    ("health", "inches", "centimetres", Decimal("2.54"), (20, 80), 1),
)
UNIT_ABBR = {
    "miles": "mi", "kilometres": "km", "pounds": "lb", "kilograms": "kg", "ounces": "oz", "grams": "g",
    "cups": "cups", "millilitres": "ml", "feet": "ft", "metres": "m", "square feet": "sq ft",
    "square metres": "sq m", "inches": "in", "centimetres": "cm",
}


def _convert_for(domain: str) -> Callable[[Rng], dict[str, object]]:
    options = [c for c in CONVERSIONS if c[0] == domain]

    def make(rng: Rng) -> dict[str, object]:
        _, src, dst, factor, (lo, hi), dec = options[int(rng.integers(len(options)))]
        x = int(rng.integers(lo, hi + 1))
        y = (Decimal(x) * factor).quantize(Decimal(1).scaleb(-dec), rounding=ROUND_HALF_UP)
        slots: Slots = {"x": x, "src": src, "dst": dst, "y": _num(y)}
        return _out(
            rng, slots,
            user=(
                "How many {dst} is {x} {src}?",
                "Can you convert {x} {src} to {dst}?",
                "What's {x} {src} in {dst}?",
                "I need {x} {src} in {dst}, please.",
            ),
            ack=(
                "[Sure|Okay], converting {x} {src} to {dst}.",
                "[One sec|Let me work that out], {x} {src} in {dst}.",
                "[On it|Sure thing], [getting|checking] {x} {src} in {dst}.",
            ),
            request="Convert {x} {src} to {dst}, rounded to " + (f"{dec} decimal places." if dec else "a whole number."),
            result=f"{x} {UNIT_ABBR[src]} = {_num(y)} {UNIT_ABBR[dst]}",
            relay=(
                (
                    "{x} {src} is [about|roughly|] {y} {dst}.",
                    "[That's|It comes to|It works out at] [about|roughly] {y} {dst}.",
                    "[Okay|Got it], {x} {src} [equals|is] {y} {dst}[, give or take|].",
                ),
            ),
        )

    return make


def _oven(rng: Rng) -> dict[str, object]:
    f = int(pick(rng, (300, 325, 350, 375, 400, 425, 450)))
    c = (Decimal(f - 32) * 5 / 9).quantize(Decimal(1), rounding=ROUND_HALF_UP)
    dish = DISHES[int(rng.integers(len(DISHES)))].name
    slots: Slots = {"f": f, "c": int(c), "fan": int(c) - 20, "dish": dish}
    return _out(
        rng, slots,
        user=(
            "The recipe says {f} Fahrenheit. What's that in Celsius?",
            "My {dish} recipe wants the oven at {f} degrees Fahrenheit. Convert that for me?",
            "Can you change {f} Fahrenheit to Celsius?",
        ),
        ack=(
            "[Sure|Okay], converting {f} Fahrenheit to Celsius.",
            "[One sec|Let me check], {f} degrees Fahrenheit in Celsius.",
        ),
        request="Convert {f} degrees Fahrenheit to degrees Celsius, rounded to a whole number.",
        result=f"{f} F = {int(c)} C",
        relay=(
            (
                "{f} Fahrenheit is about {c} degrees Celsius.",
                "[That's|It comes to] [about|roughly] {c} degrees Celsius.",
            ),
            (
                "With a fan oven, [go about 20 degrees lower, so {fan}|use about {fan} degrees].",
                "[If your oven has a fan|For a fan oven], {fan} degrees [is the equivalent|will do].",
            ),
        ),
    )


# =========================================================================== calendar

EVENTS = {
    "health": ("doctor's appointment", "dentist appointment", "eye test", "physio session", "flu jab"),
    "fitness": ("spin class", "yoga class", "personal training session", "swim session", "climbing session"),
    "home": ("plumber visit", "boiler service", "furniture delivery", "window cleaner", "electrician visit"),
    "music": ("guitar lesson", "piano lesson", "choir practice", "band rehearsal", "concert"),
    "sports": ("tennis match", "five a side game", "golf lesson", "squash game", "swim meet"),
    "tech_help": ("laptop repair drop off", "phone screen repair", "backup reminder", "router installation", "call with IT support"),
}
EVENT_TIMES = ((8, 30), (9, 0), (10, 15), (11, 0), (12, 30), (14, 0), (15, 45), (16, 30), (17, 15), (18, 0), (19, 30))


def _calendar_for(domain: str) -> Callable[[Rng], dict[str, object]]:
    def make(rng: Rng) -> dict[str, object]:
        event = str(pick(rng, EVENTS[domain]))
        day = str(pick(rng, WEEKDAYS))
        h, m = pick(rng, EVENT_TIMES)
        remind = int(pick(rng, (10, 15, 30, 60)))
        who = str(pick(rng, FIRST_NAMES))
        slots: Slots = {
            "event": event, "day": day, "time_t": spoken_time(h, m, int(rng.integers(5))), "remind": remind,
            "remind_s": "an hour" if remind == 60 else f"{remind} minutes", "who": who,
        }
        return _out(
            rng, slots,
            user=(
                "Can you add my {event} on {day} at {time_t}?",
                "Put a {event} in my calendar for {day}, {time_t}, please.",
                "I've got a {event} {day} at {time_t}. Can you schedule it with a reminder {remind_s} before?",
                "{who} booked me a {event} on {day} at {time_t}. Add it to my calendar?",
            ),
            ack=(
                "[Sure|Okay], adding the {event} on {day} at {time_t}.",
                "[On it|Will do], [putting|I'm putting] your {event} in for {day}.",
                "[Got it|Sure thing], {event}, {day} at {time_t}[, one moment|].",
            ),
            request="Create a calendar event: {event} on {day} at " + _clock(h, m) + ", one hour long, with a reminder {remind_s} before.",
            result=f"Event created: {event.capitalize()}, {day} {_clock(h, m)} to {_clock(h + 1, m)}, reminder {remind} min before.",
            relay=(
                (
                    "[Done|All set|Okay], your {event} is on the calendar for {day} at {time_t}.",
                    "[I've added|Added] the {event} for {time_t} on {day}.",
                    "[It's in|All booked in]: {event}, {day} at {time_t}.",
                ),
                (
                    "[You'll get|I've set] a reminder {remind_s} before[ the {event}|].",
                    "[I'll remind you|You'll get a nudge] {remind_s} [ahead of time|beforehand].",
                ),
            ),
        )

    return make


def _agenda(rng: Rng) -> dict[str, object]:
    day = str(pick(rng, WEEKDAYS))
    pool = ["Team standup", "Lunch with {name}", "Dentist", "Yoga class", "Call with {name}", "Project review",
            "School pickup", "Haircut", "Coffee with {name}", "Gym", "Parent evening", "Dinner with {name}"]
    n = int(rng.integers(1, 4))
    idx = sorted(int(i) for i in rng.choice(len(pool), size=n, replace=False))
    hours = sorted(int(h) for h in rng.choice(range(8, 20), size=n, replace=False))
    items = []
    for i, h in zip(idx, hours):
        items.append((pool[i].replace("{name}", str(pick(rng, FIRST_NAMES))), h, int(pick(rng, (0, 15, 30, 45)))))
    spoken = [f"{t[0][0].lower() + t[0][1:]} at {spoken_time(t[1], t[2], int(rng.integers(5)))}" for t in items]
    listing = spoken[0] if n == 1 else ", ".join(spoken[:-1]) + " and " + spoken[-1]
    slots: Slots = {"day": day, "n_w": number_words(n), "listing": listing, "things": "thing" if n == 1 else "things",
                    "first": spoken[0]}
    result = f"{day}: " + "; ".join(f"{_clock(t[1], t[2])} {t[0]}" for t in items) + "."
    return _out(
        rng, slots,
        user=("What's on my calendar for {day}?", "Do I have anything on {day}?", "Can you check my schedule on {day}?"),
        ack=(
            "[Sure|Okay], checking your calendar for {day}.",
            "[One sec|Let me look], [pulling up|opening] {day}'s schedule.",
        ),
        request="List all calendar events on {day} with their start times.",
        result=result,
        relay=(
            (
                "[On {day} you have|You've got] {n_w} {things}: {listing}.",
                "[Your {day} looks like this|Here's {day}]: {listing}.",
            ),
        ),
    )


# =========================================================================== search and lookup

STORES = ("Northside Electronics", "Maple Street Hardware", "City Outdoor Supply", "Brightway Home", "Parkside Sports",
          "The Corner Shop", "Riverside Mall", "Value Depot")
BANDS = ("The Paper Lanterns", "Velvet Harbour", "Midnight Orchard", "The Copper Foxes", "Salt and Ember",
         "Northern Lights Quartet", "The Slow Tides", "Copper Sky", "Juniper Road", "The Night Owls")
VENUES = ("the Riverside Theatre", "the Old Mill", "the Jazz Cellar", "the Town Hall", "the Arena", "the Park Bandstand")


def _hours(rng: Rng) -> dict[str, object]:
    c = CUISINES[int(rng.integers(len(CUISINES)))]
    place = str(pick(rng, c.places))
    day = str(pick(rng, WEEKDAYS))
    closed = bool(rng.random() < 0.2)
    oh = int(pick(rng, (11, 12, 17)))
    ch = int(pick(rng, (21, 22, 23)))
    slots: Slots = {"place": place, "day": day, "open_t": spoken_time(oh, 0, int(rng.integers(5))), "close_t": spoken_time(ch, 0, int(rng.integers(5))), "cuisine": c.name}
    if closed:
        result = f"{place} ({c.name}): closed on {day}s."
        relay: tuple[tuple[str, ...], ...] = (
            ("[Unfortunately|Sadly|Bad news], {place} is closed on {day}s.", "{place} doesn't open on {day}s, [I'm afraid|unfortunately]."),
            ("[Want me to find|Shall I look for] another {cuisine} place open on {day}?",),
        )
    else:
        result = f"{place} ({c.name}): {day} {_clock(oh, 0)} to {_clock(ch, 0)}."
        relay = (
            ("[Yes|Good news], {place} is open on {day} from {open_t} until {close_t}.",
             "{place} [opens|is open] at {open_t} on {day} and closes at {close_t}."),
            ("[Last orders are usually a bit before|They stop seating shortly before] {close_t}[, so don't leave it too late|].",),
        )
    return _out(
        rng, slots,
        user=("Is {place} open on {day}?", "What are the opening hours for {place} on {day}?", "Can you check when {place} opens on {day}?"),
        ack=(
            "[Sure|Okay], checking {place}'s hours for {day}.",
            "[One sec|Let me look], [searching|looking up] {place} on {day}.",
        ),
        request="Find the opening hours of the {cuisine} restaurant {place} on {day}, including whether it is closed that day.",
        result=result,
        relay=relay,
    )


def _price(rng: Rng) -> dict[str, object]:
    p = PRODUCTS[int(rng.integers(len(PRODUCTS)))]
    item = p.name.removeprefix("pair of ")
    prices = sorted(int(x) for x in rng.integers(p.low, p.high + 1, size=3))
    store = str(pick(rng, STORES))
    slots: Slots = {"item": item, "best": prices[0], "store": store, "hi": prices[2], "gap": prices[2] - prices[0]}
    return _out(
        rng, slots,
        user=("Can you find the cheapest {item} nearby?", "Where can I get a {item} for the best price?", "Look up prices for a {item} around here?"),
        ack=(
            "[Sure|Okay], searching for {item} prices nearby.",
            "[On it|One moment], comparing {item} prices.",
        ),
        request="Search local stores for a {item} and return the lowest price with the store name, plus the price range of other listings.",
        result=f"{item}: lowest {prices[0]} dollars at {store}; other listings {prices[1]} to {prices[2]} dollars.",
        relay=(
            ("The best price I found is {best} dollars at {store}.", "[{store} has it for|Cheapest is] {best} dollars[ at {store}|]."),
            ("[Other shops go up to|Elsewhere it's as much as] {hi} dollars, so that saves you {gap}.",),
        ),
    )


def _concert(rng: Rng) -> dict[str, object]:
    band = str(pick(rng, BANDS))
    venue = str(pick(rng, VENUES))
    day = str(pick(rng, WEEKDAYS))
    h = int(pick(rng, (19, 20, 21)))
    price = int(rng.integers(15, 90))
    left = int(rng.integers(3, 120))
    slots: Slots = {"band": band, "venue": venue, "day": day, "time_t": spoken_time(h, 0, int(rng.integers(5))), "price": price, "left": left}
    return _out(
        rng, slots,
        user=("Is {band} playing anywhere near me soon?", "Can you find tickets for {band}?", "When's the next {band} gig around here?"),
        ack=("[Sure|Okay], looking for {band} shows nearby.", "[One sec|Let me search], checking {band}'s tour dates."),
        request="Search for upcoming local concerts by {band}: venue, date, start time, ticket price and availability.",
        result=f"{band}: {venue}, {day} {_clock(h, 0)}, tickets {price} dollars, {left} remaining.",
        relay=(
            ("[Yes|Good news], {band} play {venue} on {day} at {time_t}.", "{band} have a show at {venue} this {day}, starting {time_t}."),
            ("Tickets are {price} dollars and there are {left} left.", "[There are|Only] {left} tickets left, at {price} dollars each."),
        ),
    )


def _score(rng: Rng) -> dict[str, object]:
    a, b = (str(t) for t in rng.choice(TEAMS, size=2, replace=False))
    sa, sb = int(rng.integers(0, 5)), int(rng.integers(0, 5))
    day = str(pick(rng, WEEKDAYS))
    scorer = str(pick(rng, FIRST_NAMES))
    slots: Slots = {"a": a, "b": b, "sa": sa, "sb": sb, "day": day, "scorer": scorer}
    if sa == sb:
        outcome = ("It was a {sa} all draw between {a} and {b} on {day}.", "{a} and {b} drew {sa} all on {day}.")
    elif sa > sb:
        outcome = ("{a} beat {b} {sa} to {sb} on {day}.", "{a} won {sa} {sb} against {b} on {day}.")
    else:
        outcome = ("{a} lost to {b} on {day}, {sa} to {sb}.", "{b} beat {a} {sb} to {sa} on {day}.")
    return _out(
        rng, slots,
        user=("How did {a} do against {b}?", "What was the score in the {a} game?", "Did {a} win on {day}?"),
        ack=("[Sure|Okay], looking up the {a} result.", "[One sec|Let me check], searching for {a} against {b}."),
        request="Find the final score of the most recent match between {a} and {b}, with the date and the top scorer.",
        result=f"{a} {sa}, {b} {sb} ({day}). Top scorer: {scorer}.",
        relay=(
            outcome,
            ("[The top scorer was|Standout player:] {scorer}.", "{scorer} was the top scorer[ in that game|]."),
        ),
    )


def _flight(rng: Rng) -> dict[str, object]:
    code = str(pick(rng, ("BA", "LH", "AF", "KL", "IB", "AZ", "SK", "AC", "UA", "QF"))) + str(int(rng.integers(100, 2999)))
    spoken_code = code[:2] + " " + code[2:]
    city = str(pick(rng, CITY_NAMES))
    h, m = int(rng.integers(6, 22)), int(pick(rng, (0, 10, 25, 35, 40, 55)))
    delay = int(pick(rng, (0, 0, 0, 15, 25, 40, 70)))
    nm = h * 60 + m + delay
    nh, nmin = divmod(nm, 60)
    gate = str(pick(rng, "ABCDE")) + str(int(rng.integers(1, 40)))
    slots: Slots = {"code": spoken_code, "city": city, "dep_t": spoken_time(nh, nmin, int(rng.integers(5))), "delay": delay, "gate": gate,
                    "sched_t": spoken_time(h, m, int(rng.integers(5)))}
    status = "on time" if delay == 0 else f"delayed {delay} min"
    first = (
        ("[Good news|Okay], your flight to {city} is on time, leaving at {dep_t}.", "Flight {code} to {city} is on time for {dep_t}.")
        if delay == 0 else
        ("Your flight to {city} is delayed by {delay} minutes, now leaving at {dep_t}.", "[Heads up|Unfortunately], {code} to {city} is running {delay} minutes late, so {dep_t} now.")
    )
    return _out(
        rng, slots,
        user=("Can you check flight {code} to {city}?", "Is my flight to {city} on time? It's {code}.", "What's the status of {code}?"),
        ack=("[Sure|Okay], checking flight {code} to {city}.", "[One sec|On it], [looking up|pulling up] {code}."),
        request="Look up the current status of flight " + code + " to {city}: on time or delayed, departure time and gate.",
        result=f"Flight {code} to {city}: {status}, departs {_clock(nh, nmin)}, gate {gate}.",
        relay=(first, ("It leaves from gate {gate}.", "[Your gate is|Head to gate] {gate}.")),
    )


def _package(rng: Rng) -> dict[str, object]:
    store = str(pick(rng, STORES))
    order = int(rng.integers(100000, 999999))
    state = int(rng.integers(3))
    h = int(rng.integers(9, 17))
    day = str(pick(rng, WEEKDAYS))
    slots: Slots = {"store": store, "from_t": spoken_time(h, 0, int(rng.integers(5))), "to_t": spoken_time(h + 2, 0, int(rng.integers(5))), "day": day}
    if state == 0:
        result = f"Order {order} from {store}: out for delivery, expected today {_clock(h, 0)} to {_clock(h + 2, 0)}."
        first = ("Your {store} package is out for delivery, [expected|arriving] between {from_t} and {to_t} today.",
                 "[Good news|It's close], the {store} order should arrive today between {from_t} and {to_t}.")
    elif state == 1:
        result = f"Order {order} from {store}: in transit, estimated delivery {day}."
        first = ("Your {store} package is on its way and should arrive on {day}.", "The {store} order is in transit, due on {day}.")
    else:
        result = f"Order {order} from {store}: delivered today at {_clock(h, 0)}, left with a neighbour."
        first = ("[Actually|Good news], your {store} package was delivered at {from_t} and left with a neighbour.",
                 "The {store} order arrived at {from_t}, and a neighbour took it in.")
    return _out(
        rng, slots,
        user=("Where's my package from {store}?", "Can you track my {store} order?", "Has my order from {store} shipped yet?"),
        ack=("[Sure|Okay], tracking your {store} order.", "[One sec|Let me check], looking up the {store} delivery."),
        request="Look up the delivery status of the most recent order from {store}: current state and expected delivery time.",
        result=result,
        relay=(first,),
    )


def _outage(rng: Rng) -> dict[str, object]:
    provider = str(pick(rng, ("Skyline Broadband", "Metro Fibre", "BrightNet", "CityLink Internet", "WaveCom")))
    device = str(pick(rng, DEVICES))
    out = bool(rng.random() < 0.5)
    h, m = int(rng.integers(7, 12)), int(pick(rng, (0, 15, 30, 45)))
    fh = h + int(rng.integers(2, 6))
    slots: Slots = {"provider": provider, "device": device, "since_t": spoken_time(h, m, int(rng.integers(5))), "fix_t": spoken_time(fh, 0, int(rng.integers(5)))}
    if out:
        result = f"{provider} status: outage in your area since {_clock(h, m)}, estimated fix {_clock(fh, 0)}."
        relay: tuple[tuple[str, ...], ...] = (
            ("[Yes|It's not you], {provider} has an outage in your area since {since_t}.",
             "{provider} is reporting an outage near you, [starting at|since] {since_t}."),
            ("They expect it fixed by {fix_t}.", "[The estimated fix is|It should be back by] {fix_t}."),
        )
    else:
        result = f"{provider} status: no outages reported in your area."
        relay = (
            ("{provider} isn't reporting any outages near you, so it's probably the {device} or the router.",
             "[There's no|No] {provider} outage in your area, [so let's look at your {device}|so the problem is likely local]."),
        )
    return _out(
        rng, slots,
        user=("My internet is down. Is {provider} having an outage?", "Can you check if {provider} is down? My {device} won't connect.",),
        ack=("[Sure|Okay], checking {provider}'s status page.", "[One sec|On it], looking for {provider} outages near you."),
        request="Check the service status of the internet provider {provider} for the user's area: any current outage, since when, and the estimated fix time.",
        result=result,
        relay=relay,
    )


def _bins(rng: Rng) -> dict[str, object]:
    d1, d2 = (str(d) for d in rng.choice(WEEKDAYS[:5], size=2, replace=False))
    weekly = bool(rng.random() < 0.5)
    sfx = str(pick(rng, ("", " on your street", " this week", " for your address")))
    slots: Slots = {"d1": d1, "d2": d2, "often": "every week" if weekly else "every other week", "sfx": sfx}
    return _out(
        rng, slots,
        user=("When are the bins collected this week?", "Which day is recycling collection?", "Can you check when rubbish day is?"),
        ack=(
            "[Sure|Okay], checking your [bin|collection] days[ for this week|].",
            "[One sec|On it], looking up [bin days|the collection schedule][ for your street|].",
            "[Let me check|Checking] [when the bins go out|which day the recycling goes]{sfx}.",
        ),
        request="Look up the household waste collection schedule for the user's address: recycling day, general waste day and frequency.",
        result=f"Recycling: {d1}. General waste: {d2}. Frequency: {'weekly' if weekly else 'fortnightly'}.",
        relay=(
            ("Recycling goes out on {d1} and general waste on {d2}.", "[It's|Your collection is] recycling on {d1}, general rubbish on {d2}."),
            ("Both are collected {often}.", "[They come|Collections are] {often}."),
        ),
    )


SPECS: tuple[DelegationSpec, ...] = (
    DelegationSpec("weather", "weather", _weather, 2.0),
    DelegationSpec("weather", "weather", _rain_hours),
    DelegationSpec("cooking", "unit_convert", _oven),
    DelegationSpec("cooking", "unit_convert", _convert_for("cooking")),
    DelegationSpec("travel", "lookup", _flight, 1.5),
    DelegationSpec("travel", "unit_convert", _convert_for("travel")),
    DelegationSpec("restaurants", "search", _hours),
    DelegationSpec("restaurants", "calculator", _tip_split),
    DelegationSpec("fitness", "unit_convert", _convert_for("fitness")),
    DelegationSpec("fitness", "calendar", _calendar_for("fitness")),
    DelegationSpec("shopping", "calculator", _discount),
    DelegationSpec("shopping", "search", _price),
    DelegationSpec("shopping", "lookup", _package),
    DelegationSpec("tech_help", "lookup", _outage),
    DelegationSpec("tech_help", "calendar", _calendar_for("tech_help")),
    DelegationSpec("music", "search", _concert),
    DelegationSpec("music", "calendar", _calendar_for("music")),
    DelegationSpec("finance", "calculator", _percent),
    DelegationSpec("finance", "calculator", _multiply),
    DelegationSpec("finance", "calculator", _groceries),
    DelegationSpec("home", "lookup", _bins),
    DelegationSpec("home", "unit_convert", _convert_for("home")),
    DelegationSpec("home", "calendar", _calendar_for("home")),
    DelegationSpec("health", "calendar", _calendar_for("health")),
    DelegationSpec("health", "unit_convert", _convert_for("health")),
    DelegationSpec("sports", "search", _score),
    DelegationSpec("sports", "calendar", _calendar_for("sports")),
    DelegationSpec("home", "calendar", _agenda),
)
