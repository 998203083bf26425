"""A third scenario per domain: outfits, jet lag, tournaments, pacing, kitchen timings,
occasions, unit prices, transfer times, tempo practice, loans, running costs, heart rate."""

from __future__ import annotations

import math
from typing import NamedTuple

from .engine import Correction, Scenario, Slots, choice_of, int_between, money, number_words, offer, seed_slot
from .ex_outdoors import weather_view
from .values import CITY_NAMES, DAYS, FIRST_NAMES, RELATIVES

# =========================================================================== weather: what to wear


def _wear_view(s: Slots) -> Slots:
    w = weather_view(s)
    high = int(w["high_n"])  # type: ignore[arg-type]
    rain = int(w["rain"])  # type: ignore[arg-type]
    wind = int(w["wind"])  # type: ignore[arg-type]
    if high <= 4:
        top, bottom, shoes = "a thermal base layer, a thick jumper and a padded coat", "lined trousers", "insulated boots"
    elif high <= 12:
        top, bottom, shoes = "a long sleeve top with a warm jumper", "jeans or chinos", "closed shoes or ankle boots"
    elif high <= 19:
        top, bottom, shoes = "a light long sleeve shirt and a thin jacket", "jeans", "trainers"
    elif high <= 26:
        top, bottom, shoes = "a T-shirt with a light overshirt", "light trousers or a skirt", "comfortable trainers"
    else:
        top, bottom, shoes = "a loose linen shirt or a vest top", "shorts or a light dress", "sandals"
    extra = (
        "a waterproof jacket" if rain >= 60 else "a small umbrella" if rain >= 35
        else "a scarf against the wind" if wind >= 30 else "sunglasses"
    )
    return {**w, "top": top, "bottom": bottom, "shoes": shoes, "extra": extra}


WEATHER_WEAR = Scenario(
    domain="weather",
    slots={"city": choice_of(CITY_NAMES), "day": choice_of(DAYS), "seed": seed_slot,
           "plan": choice_of(("work", "a day of sightseeing", "a long walk", "a dinner out", "the school run", "a football match"))},
    derive=_wear_view,
    request=(
        "What should I wear in {city} {day_on}? I've got {plan}.",
        "Help me dress for {city} {day_on}, it's {plan}.",
        "I'm in {city} {day_on} for {plan}. Coat or no coat?",
        "What's the right outfit for {plan} in {city} {day_on}?",
    ),
    answer=(
        (
            "[Let's dress you for|Okay, outfit planning for] {plan} in {city} {day_on}.",
            "[Good question|Sure], {city} {day_on} [will be|looks like] {cond} and {high} degrees[, so here's what I'd wear|].",
            "[With|Given] {cond} and a high of {high} in {city}, [here's my outfit advice|I'd dress like this] for {plan}.",
            "[Right|Alright], for {plan} {day_on}, {city} [tops out at|reaches] {high} degrees with {cond}.",
        ),
        (
            "[On top|Up top|For your top half], [go for|I'd wear|pick] {top}.",
            "[I'd start with|Think] {top}[ for {high} degrees|].",
            "{top} [is about right|should be perfect|hits the mark] for {high} degrees in {city}.",
        ),
        (
            "[Pair it with|Add|Underneath, go for] {bottom}[ and {shoes}|].",
            "[For your legs|Below the waist], {bottom} [work well|will be fine], [with|plus] {shoes}.",
            "{shoes} [and|with] {bottom} [round it off|complete the look|will keep you comfortable].",
        ),
        (
            "[Don't forget|Bring|Take] {extra}[, just in case|, you'll be glad you did|].",
            "[The extra you'll want is|Add] {extra}[ for {plan}|, given the {rain} percent rain chance].",
        ),
        (
            "[Mornings start around|It'll be] {low} degrees [early on|first thing], [so layers help|so layer up if you leave early].",
            "[Early in the day|Before ten or so] it's about {low} degrees, [so a layer you can take off is handy|so start with an extra layer].",
        ),
        (
            "[By the evening|After dark] it's [back down to|around] {evening} degrees, [so|and] {layer} [will do|is enough].",
            *offer("check the {city} forecast again {day_on} morning", ""),
        ),
    ),
    corrections=(
        Correction("day", "{day}", user=("Actually, it's {day_on}, not {old_day}.", "Sorry, I meant {day}.")),
        Correction("city", "{city}", user=("Oh wait, I'll be in {city}, not {old_city}.",)),
        Correction("plan", "{plan}", user=("Actually it's for {plan}.",), ack=("[Okay|Ah], {plan}[, got it|, fair enough].",)),
    ),
    topic=("what to wear {day_on}", "your outfit for {city}", "dressing for {plan}"),
)

# =========================================================================== travel: jet lag

UTC = {
    "Lisbon": 0, "Rome": 1, "Paris": 1, "Barcelona": 1, "Madrid": 1, "Berlin": 1, "Amsterdam": 1, "Vienna": 1,
    "Prague": 1, "Copenhagen": 1, "Stockholm": 1, "Oslo": 1, "Edinburgh": 0, "Dublin": 0, "London": 0, "Athens": 2,
    "Istanbul": 3, "Marrakesh": 1, "Cairo": 2, "Cape Town": 2, "Tokyo": 9, "Kyoto": 9, "Seoul": 9, "Singapore": 8,
    "Bangkok": 7, "Hanoi": 7, "Sydney": 10, "Melbourne": 10, "Auckland": 12, "Vancouver": -8, "Montreal": -5,
    "Toronto": -5, "New York": -5, "Chicago": -6, "San Francisco": -8, "Seattle": -8, "New Orleans": -6,
    "Austin": -6, "Mexico City": -6, "Buenos Aires": -3, "Lima": -5, "Rio de Janeiro": -3, "Reykjavik": 0,
    "Budapest": 1, "Krakow": 1, "Porto": 0, "Seville": 1, "Florence": 1, "Naples": 1, "Zurich": 1,
}


def _route(rng) -> tuple[str, str]:  # type: ignore[no-untyped-def]
    """Two cities at least three time zones apart."""
    while True:
        a, b = (str(c) for c in rng.choice(CITY_NAMES, size=2, replace=False))
        clock = abs(UTC[a] - UTC[b])
        if min(clock, 24 - clock) >= 3:
            return a, b


def _jetlag_view(s: Slots) -> Slots:
    a, b = s["route"]  # type: ignore[misc]
    diff = UTC[b] - UTC[a]
    clock = abs(diff)
    hours = min(clock, 24 - clock)  # the body clock shift actually felt
    east = (diff > 0) == (clock <= 12)
    days = max(1, hours if east else math.ceil(hours * 2 / 3))
    shift = min(3, max(1, hours // 3))
    if hours == 0:
        direction = "there's no real time difference"
    else:
        direction = f"{b} is about {number_words(clock)} {'hour' if clock == 1 else 'hours'} {'ahead of' if diff > 0 else 'behind'} {a}"
    return {
        "home": a, "city": b,
        "hours": hours, "hours_w": number_words(hours), "direction": direction,
        "days": days, "days_w": number_words(days), "days_s": "a day" if days == 1 else f"{days} days", "shift": shift, "shift_w": number_words(shift),
        "way": "east" if east else "west",
        "sleep_tip": "go to bed an hour earlier each night" if east else "stay up an hour later each night",
        "light": "morning light" if east else "late afternoon light",
    }


TRAVEL_JETLAG = Scenario(
    domain="travel",
    slots={"route": _route, "nights": int_between(3, 14)},
    derive=_jetlag_view,
    request=(
        "I'm flying from {home} to {city} for {nights} nights. How do I avoid jet lag?",
        "Any jet lag tips? Going {home} to {city}.",
        "What's the time difference between {home} and {city}, and how bad will the jet lag be?",
        "I live in {home} and I'm off to {city}. How should I adjust my sleep?",
    ),
    answer=(
        (
            "[Good question|Okay], going from {home} to {city}, {direction}.",
            "[Let's see|Right], {direction}[, ignoring daylight saving|, roughly].",
            "[So|Alright], for {home} to {city}, {direction}[, which matters for sleep|].",
        ),
        (
            "[Flying {way}|Travelling {way}] [like this|on this route], [expect|it usually takes] about {days_s} to [fully adjust|feel normal].",
            "[Rule of thumb|Roughly], [your body adjusts|you'll adapt] about an hour a day, [so|meaning] {days_s}[ for this trip|].",
        ),
        (
            "[Before you go|In the days before the flight], {sleep_tip}[ for a few nights|].",
            "[Start shifting early|Get a head start]: {sleep_tip}[ for about {shift_w} nights before you leave|].",
        ),
        (
            "[Once you land in {city}|On arrival], [get outside in|soak up] {light}[, it resets your body clock fastest|].",
            "[In {city}|After landing], {light} [is your best friend|helps more than anything][ for the first few days|].",
        ),
        (
            "[Eat|Have meals] on {city} time [from the first day|as soon as you land], [and avoid long naps|and keep naps under half an hour].",
            "[Skip alcohol on the plane|Go easy on coffee after lunch], [and drink plenty of water|it makes a real difference].",
        ),
        (
            "[With {nights} nights in {city}|For a {nights} night trip], [it's worth adjusting|you'll have time to adjust][ properly|].",
            *offer("[set|plan] a sleep schedule for the days before you fly to {city}", ""),
        ),
    ),
    corrections=(
        Correction(
            "route",
            "{home} to {city}",
            user=("Sorry, it's actually {home} to {city}.", "Wait, plans changed, I'm flying {home} to {city}.",
                  "Oh, I got that wrong, I'm going from {home} to {city}."),
            ack=("[Ah|Okay|Got it], {home} to {city}[ then|, got it|].", "[Right|Sure], flying from {home} to {city} instead.",
                 "[No problem|Okay], {city} from {home}, let me redo that."),
            generic=False,
        ),
    ),
    topic=("your jet lag plan", "the flight to {city}", "adjusting to {city} time"),
)

# =========================================================================== sports: tournament planning


def _tourney_view(s: Slots) -> Slots:
    n = int(s["teams"])  # type: ignore[arg-type]
    courts = int(s["courts"])  # type: ignore[arg-type]
    mins = int(s["game_min"])  # type: ignore[arg-type]
    rr = n * (n - 1) // 2
    ko = n - 1
    rr_slots = math.ceil(rr / courts)
    ko_rounds = math.ceil(math.log2(n)) if n > 1 else 1
    rr_time = rr_slots * (mins + 5)
    hours, rest = divmod(rr_time, 60)
    rr_len = (f"{hours} hour{'s' if hours != 1 else ''}" if hours else "") + (f" and {rest} minutes" if hours and rest else "" if hours else f"{rest} minutes")
    return {
        "teams_w": number_words(n), "rr": rr, "ko": ko, "rr_slots": rr_slots, "rr_len": rr_len,
        "ko_rounds": ko_rounds, "ko_rounds_w": number_words(ko_rounds), "courts_w": number_words(courts),
        "courts_s": "court" if courts == 1 else "courts",
        "byes_s": {0: "no byes", 1: "one bye"}.get((2 ** ko_rounds) - n, f"{(2 ** ko_rounds) - n} byes"),
        "rr_note": ", which is a long day, so a knockout might suit you better" if rr_time > 420 else "",
    }


SPORTS_TOURNEY = Scenario(
    domain="sports",
    slots={
        "teams": int_between(4, 14),
        "courts": int_between(2, 6),
        "game_min": int_between(10, 25, 5),
        "sport": choice_of(("five a side football", "volleyball", "badminton", "table tennis", "basketball", "netball", "pickleball", "dodgeball")),
        "host": choice_of(FIRST_NAMES),
    },
    derive=_tourney_view,
    request=(
        "I'm organising a {sport} tournament with {teams} teams and {courts} {courts_s}. How should I run it?",
        "{host} asked me to plan a {sport} tournament with {teams} teams, {game_min} minute games and {courts} {courts_s}. Any ideas?",
        "How long would a {sport} round robin take with {teams} teams on {courts} {courts_s}?",
        "Help me set up a {teams} team {sport} tournament, {game_min} minutes a game.",
    ),
    answer=(
        (
            "[Fun|Great|Nice], a {teams_w} team {sport} tournament [is very doable|sounds like a great day] on {courts_w} {courts_s}.",
            "[Okay|Let's plan it], {teams} teams, {courts} {courts_s}, {game_min} minute games[, here's the maths|].",
            "[Happy to help|Sure], [running|organising] {sport} for {teams_w} teams [mostly comes down to|is all about] the format.",
        ),
        (
            "A full round robin means {rr} games, [so everyone plays everyone|which is the fairest format].",
            "[If everyone plays everyone|With a round robin], [that's|you'll need] {rr} games [in total|altogether].",
        ),
        (
            "On {courts_w} {courts_s}, that's {rr_slots} time slots, about {rr_len} [including changeovers|with five minutes between games]{rr_note}.",
            "[With|Across] {courts} {courts_s}, [the round robin takes|you're looking at] {rr_slots} slots, roughly {rr_len}.",
        ),
        (
            "A knockout is [quicker|much shorter]: only {ko} games over {ko_rounds_w} rounds.",
            "[If time is tight|To save time], [go for|use] a straight knockout, {ko} games in {ko_rounds} rounds.",
        ),
        (
            "[With {teams} teams|In a knockout], [you'd need|there would be] {byes_s} in the first round[ to make the bracket work|].",
            "[A nice middle ground|My favourite format] is [small groups|group stages] [then|followed by] a knockout for the top teams.",
        ),
        (
            "[Build in|Leave] a [lunch break|half hour break] and [have|keep] [a spare ball|water] at every court.",
            *offer("draw up the {sport} schedule for all {teams} teams", ""),
        ),
    ),
    corrections=(
        Correction(
            "teams",
            "{teams} teams",
            user=("Actually, {teams} teams signed up.", "Sorry, it's {teams} teams, not {old_teams}."),
            ack=("[Okay|Got it], {teams_w} teams[, let me redo the numbers|].",),
        ),
        Correction("courts", "{courts} {courts_s}", user=("We can get {courts} {courts_s} actually.",)),
        Correction("game_min", "{game_min} minute games", user=("Let's make games {game_min} minutes.",)),
    ),
    topic=("the {sport} tournament", "your {teams} team tournament", "the tournament schedule"),
)

# =========================================================================== fitness: pace


RACE_DIST = (("5 kilometres", 5.0), ("10 kilometres", 10.0), ("a half marathon", 21.0975), ("a marathon", 42.195), ("15 kilometres", 15.0))


def _min_sec(seconds: float) -> str:
    m, sec = divmod(int(round(seconds)), 60)
    mins = "1 minute" if m == 1 else f"{m} minutes"
    if sec == 0:
        return mins
    return f"{mins} {sec} second{'s' if sec != 1 else ''}"


def _pace_view(s: Slots) -> Slots:
    label, km = s["dist"]  # type: ignore[misc]
    total = max(15, int(round(int(s["speed"]) * km / 60 / 5.0)) * 5)  # minutes, from seconds per km  # type: ignore[arg-type]
    per_km = total * 60 / km
    m, sec = divmod(int(round(per_km)), 60)
    half_sec = int(round(total * 60 / 2))
    hh, rem = divmod(half_sec, 3600)
    hm, hs = divmod(rem, 60)
    th, tm = divmod(total, 60)
    target_s = (f"{th} hour{'s' if th > 1 else ''}" + (f" {tm} minutes" if tm else "")) if th else f"{tm} minutes"
    half_s = (f"{hh} hour{'s' if hh > 1 else ''} " if hh else "") + f"{hm} minutes" + (f" {hs} seconds" if hs else "")
    mile = per_km * 1.609344
    mm, ms = divmod(int(round(mile)), 60)
    return {
        "dist_s": label, "target_s": target_s, "pace": _min_sec(per_km),
        "half_s": half_s, "mile": _min_sec(mile), "easy_pace": _min_sec(per_km + 60),
    }


FITNESS_PACE = Scenario(
    domain="fitness",
    slots={"dist": choice_of(RACE_DIST), "speed": int_between(240, 480, 15)},
    derive=_pace_view,
    request=(
        "What pace do I need to run {dist_s} in {target_s}?",
        "I want to finish {dist_s} in {target_s}. What should my pace per kilometre be?",
        "Can you work out my race pace for {dist_s}? Target is {target_s}.",
        "If I'm aiming for {target_s} over {dist_s}, how fast is that per kilometre?",
    ),
    answer=(
        (
            "[Okay|Let's work it out|Sure], {dist_s} in {target_s} [means|needs] a pace of {pace} per kilometre.",
            "[To run|For] {dist_s} in {target_s}, [hold|you need to average] {pace} [a kilometre|per kilometre].",
            "[The number you want|Your target pace] for {target_s} over {dist_s} is {pace} per kilometre.",
        ),
        (
            "[In miles|Per mile], that's about {mile}.",
            "[If your watch is in miles|For mile splits], [aim for|that works out at] {mile} per mile.",
        ),
        (
            "[You should pass|Halfway should come at|Aim to reach halfway in] {half_s}.",
            "[At the halfway point|Halfway through], [your clock should read|check you're at] about {half_s}.",
        ),
        (
            "[Start|Go out] a touch slower than {pace}[ for the first kilometre|] [and settle in|, then settle into it].",
            "[Don't|Try not to] [bank time|go out too fast] early, [even pacing|steady pacing at {pace}] [wins races|is faster overall].",
        ),
        (
            "[In training|Most of your training runs] should be easier, around {easy_pace} per kilometre.",
            "[Easy runs|Your everyday runs] [can be|should be] [about|around] {easy_pace} a kilometre[, slower than race pace|].",
        ),
        (
            *offer("[set|program] a pace alert for {pace} per kilometre on your next run", ""),
            "[Try|Practise] a few kilometres at {pace} [in training|this week] to [see how it feels|get a feel for it].",
        ),
    ),
    corrections=(
        Correction(
            "speed",
            "{target_s}",
            user=("Actually, my goal is {target_s}.", "Let's say {target_s} instead."),
            ack=("[Okay|Sure], {target_s}[, new pace coming|, let me redo it].",),
        ),
        Correction("dist", "{dist_s}", user=("Oh, it's {dist_s}, not {old_dist_s}.",), ack=("[Ah|Oh], {dist_s}[, okay|, different maths].",)),
    ),
    topic=("your race pace", "the {dist_s} pace", "your pacing plan"),
)

# =========================================================================== cooking: kitchen timings


class Timing(NamedTuple):
    item: str
    time: str
    method: str
    check: str  # an indicative clause: "the yolk is still runny"
    tip: str
    plural: bool = True


TIMINGS: tuple[Timing, ...] = (
    Timing("soft boiled eggs", "six minutes", "lower them into already boiling water", "the white is set and the yolk is still runny", "cool them in cold water for a minute so they peel easily"),
    Timing("hard boiled eggs", "ten minutes", "start them in boiling water", "the yolk is pale yellow all the way through", "plunge them into iced water to avoid a grey ring"),
    Timing("basmati rice", "ten to twelve minutes", "simmer it covered with one and a half times its volume of water", "all the water is absorbed", "rinse it first and rest it covered for five minutes after", False),
    Timing("spaghetti", "nine to eleven minutes", "boil it in plenty of well salted water", "it's tender with a slight bite", "save a mug of pasta water for the sauce", False),
    Timing("broccoli", "three to four minutes", "boil or steam the florets", "it's bright green and just tender", "don't cover it when boiling or it turns dull", False),
    Timing("jacket potatoes", "an hour to an hour and a quarter", "bake them at 200 degrees straight on the oven shelf", "a knife slides in easily", "rub the skins with oil and salt for crispiness"),
    Timing("salmon fillets", "twelve to fifteen minutes", "bake them at 200 degrees", "the flesh flakes easily", "take them out a minute early since they keep cooking"),
    Timing("chicken breasts", "twenty to twenty five minutes", "roast them at 200 degrees", "the juices run clear and the inside reaches 75 degrees", "rest them for five minutes before slicing"),
    Timing("corn on the cob", "five to seven minutes", "boil it in unsalted water", "the kernels are plump and tender", "salt toughens the kernels, so season after", False),
    Timing("quinoa", "fifteen minutes", "simmer it with twice its volume of water", "the little spiral tails show", "toast it in the pan first for a nuttier taste", False),
    Timing("green beans", "four to five minutes", "boil them in salted water", "they still have a slight snap", "refresh them in cold water to keep the colour"),
    Timing("steak", "about three minutes a side for medium rare", "sear it in a very hot pan", "it feels springy when pressed", "let it rest for as long as it cooked", False),
    Timing("couscous", "five minutes", "pour over an equal volume of boiling stock and cover", "the grains are soft and have absorbed everything", "fluff it with a fork and add butter or olive oil", False),
    Timing("roast vegetables", "thirty five to forty minutes", "roast them at 200 degrees in a single layer", "the edges are caramelised", "don't crowd the tray or they steam instead"),
    Timing("poached eggs", "three minutes", "slide them into barely simmering water with a splash of vinegar", "the white is set around a runny yolk", "use the freshest eggs you have"),
    Timing("frozen peas", "two to three minutes", "boil them briefly", "they're hot and bright green", "a knob of butter and some mint makes them special"),
    Timing("lentils", "twenty to twenty five minutes", "simmer them in plenty of water", "they're soft but still holding their shape", "salt them at the end so they cook evenly"),
    Timing("sweet potato wedges", "twenty five to thirty minutes", "roast them at 210 degrees", "they're soft inside with crisp edges", "toss them in a little cornflour for extra crunch"),
)
TIMING_BY_ITEM = {t.item: t for t in TIMINGS}


def _timing_view(s: Slots) -> Slots:
    t = TIMING_BY_ITEM[str(s["item"])]
    return {
        "time": t.time, "method": t.method, "check": t.check, "tip": t.tip,
        "take": "take" if t.plural else "takes", "they": "they" if t.plural else "it",
        "theyre": "they're" if t.plural else "it's", "need": "need" if t.plural else "needs",
        "do_they": "do they" if t.plural else "does it",
    }


COOKING_TIMING = Scenario(
    domain="cooking",
    slots={"item": choice_of(tuple(TIMING_BY_ITEM)), "guest": choice_of(FIRST_NAMES), "n": int_between(4, 10)},
    derive=_timing_view,
    request=(
        "How long do I cook {item}?",
        "Quick question, what's the cooking time for {item}?",
        "I'm doing {item} for {n} people. How long {do_they} take?",
        "{guest} is coming for dinner and I always mess up {item}. How long should {they} cook?",
    ),
    answer=(
        (
            "[Sure|Easy one|Good question], {item} [{take}|{need}] about {time}.",
            "[For|With] {item}, [plan on|allow] {time}[, give or take|].",
            "[Okay|Right], {item} [{take}|{need}] roughly {time}.",
        ),
        (
            "[The method|How to do it]: {method}.",
            "[Best approach|What works best]: {method}[ for {item}|].",
            "[Just|Simply] {method}.",
        ),
        (
            "[You'll know {theyre} ready when|Check that|{theyre} done when] {check}.",
            "[The doneness test|How to tell]: {check}.",
        ),
        (
            "[A little trick|My favourite tip|Pro tip]: {tip}.",
            "[To get {item} just right|For better {item}], {tip}.",
        ),
        (
            "[Cooking for {n}|For {n} people] doesn't change the time much, [just use a bigger pan|just don't overcrowd the pan].",
            "[If you're doing a big batch for {n}|For {n} portions], [give it a minute or two longer|check a little later than usual].",
        ),
        (
            *offer("start a timer for the {item}", ""),
        ),
    ),
    corrections=(
        Correction(
            "item",
            "{item}",
            user=("Oh, sorry, I meant {item}.", "Actually, it's {item} I'm cooking, not {old_item}."),
            ack=("[Ah|Oh], {item}[, different timing|, okay].",),
        ),
    ),
    topic=("the {item} timing", "cooking the {item}", "your {item}"),
)

# =========================================================================== restaurants: picking for an occasion


class Occasion(NamedTuple):
    name: str
    style: str
    lead: str
    ask: str
    avoid: str
    lo: int = 2
    hi: int = 20


OCCASIONS: tuple[Occasion, ...] = (
    Occasion("anniversary dinner", "somewhere intimate with low lighting and a tasting menu", "a week or two ahead", "whether they can do a quiet corner table", "anywhere with loud music or big shared tables", 2, 6),
    Occasion("first date", "a relaxed wine bar or small plates place", "a couple of days ahead", "if they have seats at the bar, which feel less formal", "anywhere too fancy or too expensive", 2, 2),
    Occasion("business lunch", "a calm bistro with quick service", "a few days ahead", "for a table where you can talk easily", "places with long waits between courses", 2, 8),
    Occasion("kids' birthday", "a family friendly pizza or burger place", "at least a week ahead", "whether you can bring your own cake", "anywhere with only tall tables or glass everywhere", 5, 20),
    Occasion("farewell dinner", "a lively restaurant with a private room", "two weeks ahead", "about a set menu for the group", "places that can't split the bill", 4, 20),
    Occasion("graduation meal", "a celebratory place with a good view", "three or four weeks ahead, since it's a busy season", "whether they do a glass of bubbly on arrival", "anywhere that only takes walk ins", 3, 16),
    Occasion("family reunion", "a big friendly trattoria with long tables", "two or three weeks ahead", "about high chairs and step free access", "tiny places with steep stairs", 6, 20),
    Occasion("team celebration", "a fun sharing restaurant like Korean barbecue or tapas", "a week or so ahead", "for a deposit and a fixed price per head", "places without a group menu", 4, 20),
    Occasion("proposal dinner", "a romantic spot with a terrace or a view", "as early as possible", "if the staff can help with the timing of the moment", "loud or crowded rooms", 2, 4),
    Occasion("birthday brunch", "a bright cafe with a great brunch menu", "about a week ahead", "whether they take bookings at the weekend", "places that stop serving brunch at noon"),
)
OCC_BY_NAME = {o.name: o for o in OCCASIONS}


def _occ_view(s: Slots) -> Slots:
    o = OCC_BY_NAME[str(s["occasion"])]
    party = min(o.hi, max(o.lo, int(s["party"])))  # type: ignore[arg-type]
    per = int(s["per_head"])  # type: ignore[arg-type]
    return {"party_n": party, "style": o.style, "lead": o.lead, "ask": o.ask, "avoid": o.avoid, "total": money(party * per), "party_w": number_words(party)}  # noqa: E501


RESTAURANT_OCCASION = Scenario(
    domain="restaurants",
    slots={"occasion": choice_of(tuple(OCC_BY_NAME)), "party": int_between(2, 20), "per_head": int_between(20, 120, 5), "who": choice_of(RELATIVES)},
    derive=_occ_view,
    request=(
        "What kind of restaurant should I book for a {occasion}? There'll be {party_n} of us.",
        "I'm planning a {occasion} for my {who}, {party_n} people, about {per_head} dollars each. Where should we go?",
        "Any tips for booking a {occasion}? Budget is {per_head} a head for {party_n}.",
        "Can you help me pick a place for a {occasion}? {party_n} guests.",
    ),
    answer=(
        (
            "[Lovely|How nice|Fun], a {occasion} for {party_w}[ sounds great|, let's get it right].",
            "[Sure|Happy to help], for a {occasion} [the setting matters|the right place makes all the difference].",
            "[Ooh|Great], planning a {occasion}[ for your {who}|]! [Here's what I'd look for|Let me help].",
        ),
        (
            "[I'd look for|Go for|The ideal is] {style}.",
            "[For a {occasion}, I'd go for|The best fit is usually] {style}.",
            "{style} [tends to work best|is my recommendation|is a safe bet] for a {occasion}.",
        ),
        (
            "[Book|Reserve] {lead}[ for {party_n}|, especially with {party_w} people].",
            "[Timing wise, book|Try to book] {lead}[, since tables for {party_n} fill up fast|].",
        ),
        (
            "[When you call|When you book], ask {ask}.",
            "[It's worth asking|Don't forget to ask] {ask}.",
        ),
        (
            "[I'd avoid|Steer clear of|Skip] {avoid}.",
            "[Watch out for|The thing to avoid is] {avoid}[ for a {occasion}|].",
        ),
        (
            "[At {per_head} dollars a head|With {per_head} each], [budget|plan on] about {total} [for everyone|in total].",
            "[Budget wise|Money wise], {party_n} people at {per_head} dollars [comes to|is] {total}.",
        ),
        (
            *offer("[search for|find] a few places that fit your {occasion}", ""),
        ),
    ),
    corrections=(
        Correction("party", "{party_n} people", user=("Actually, it'll be {party_n} of us.", "Sorry, {party_n} people, not {old_party_n}.")),
        Correction(
            "occasion",
            "a {occasion}",
            user=("Oh, it's more of a {occasion}, really.", "Sorry, I meant a {occasion}."),
            ack=("[Ah|Oh], a {occasion}[, that's different|, okay].",),
        ),
        Correction("per_head", "{per_head} dollars a head", user=("Let's say {per_head} dollars each.",)),
    ),
    topic=("the {occasion}", "booking for your {occasion}", "the {occasion} plans"),
)

# =========================================================================== shopping: unit prices

PACK_ITEMS = (
    ("coffee beans", "grams", 250, 1000), ("rice", "grams", 500, 2000), ("olive oil", "millilitres", 500, 1000),
    ("laundry liquid", "millilitres", 1000, 3000), ("breakfast cereal", "grams", 375, 750), ("pasta", "grams", 500, 1000),
    ("yogurt", "grams", 150, 1000), ("dishwasher tablets", "tablets", 30, 90), ("toilet paper", "rolls", 4, 16),
    ("peanut butter", "grams", 340, 1000), ("oats", "grams", 500, 1500), ("shampoo", "millilitres", 250, 750),
)


def _unit_view(s: Slots) -> Slots:
    item, unit, small, big = s["pack"]  # type: ignore[misc]
    p1 = int(s["p_small"]) / 100  # type: ignore[arg-type]
    ratio = big / small
    disc = int(s["disc"]) / 100  # type: ignore[arg-type]
    p2 = round(p1 * ratio * disc, 2)
    per = 100 if unit in ("grams", "millilitres") else 1
    per_word = f"100 {unit}" if per == 100 else unit[:-1]
    u1 = p1 / small * per
    u2 = p2 / big * per
    cheaper = "big" if u2 < u1 else "small"
    saving = abs(u1 - u2) * big / per
    return {
        "item": item, "unit": unit, "small": small, "big": big, "p_small_s": money(p1), "p_big_s": money(p2),
        "u1": money(u1), "u2": money(u2), "per_word": per_word, "cheaper": cheaper,
        "saving": money(saving), "pct": abs(round((u2 / u1 - 1) * 100)),
    }


SHOPPING_UNIT = Scenario(
    domain="shopping",
    slots={"pack": choice_of(PACK_ITEMS), "p_small": int_between(150, 900, 5), "disc": int_between(70, 115)},
    derive=_unit_view,
    request=(
        "Which is better value: {small} {unit} of {item} for {p_small_s}, or {big} {unit} for {p_big_s}?",
        "Is the big pack of {item} actually cheaper? {big} {unit} is {p_big_s} and {small} {unit} is {p_small_s}.",
        "Can you compare these {item} prices for me? {p_small_s} for {small} {unit}, {p_big_s} for {big}.",
        "Help me work out the cheaper {item}: small is {small} {unit} at {p_small_s}, large is {big} at {p_big_s}.",
    ),
    answer=(
        (
            "[Good thinking|Smart to check|Let's compare], [bigger isn't always cheaper|bulk isn't always a bargain].",
            "[Okay|Sure], [comparing|let's compare] the two {item} packs [per {per_word}|by unit price].",
            "[Right|Let me check], {item} [at|in] two sizes, [here's the maths|unit prices coming up].",
        ),
        (
            "The small pack works out at {u1} per {per_word}.",
            "[At {p_small_s} for {small} {unit}|The {small} {unit} pack], [you pay|that's] {u1} [per|for each] {per_word}.",
        ),
        (
            "The big pack is {u2} per {per_word}.",
            "[The {big} {unit} pack at {p_big_s}|The larger one] [comes to|works out at] {u2} per {per_word}.",
        ),
        (
            "[So|That means] the {cheaper} pack is cheaper by about {pct} percent.",
            "[Winner|Better value]: the {cheaper} pack, [roughly|about] {pct} percent cheaper per {per_word}.",
        ),
        (
            "[On the full {big} {unit}|Across {big} {unit}], [that's|the difference is] about {saving}.",
            "[Over the whole big pack|In real money], [you'd save|the gap is] about {saving}[ with the {cheaper} one|].",
        ),
        (
            "[Only buy big if|Bulk only pays if] you'll [use it all|finish the {item}] before it [goes off|expires].",
            *offer("[compare|check] unit prices on the rest of your shopping list", ""),
        ),
    ),
    corrections=(
        Correction(
            "p_small",
            "{p_small_s}",
            user=("Sorry, the small one is {p_small_s}.", "Actually, I misread, the small pack is {p_small_s}."),
            ack=("[Okay|Got it], {p_small_s} for the small one[, let me redo it|].",),
        ),
        Correction("pack", "{item}", user=("Oh, I meant the {item}, not the {old_item}.",)),
    ),
    topic=("the {item} comparison", "the unit prices", "the {item} price check"),
)

# =========================================================================== tech help: transfer time

TRANSFERS = (
    ("backup of my photos", "upload"), ("video game", "download"), ("system update", "download"),
    ("work project folder", "upload"), ("movie", "download"), ("phone backup", "upload"),
    ("music library", "upload"), ("operating system image", "download"),
)


def _xfer_view(s: Slots) -> Slots:
    what, way = s["what"]  # type: ignore[misc]
    gb = int(s["gb"])  # type: ignore[arg-type]
    mbps = int(s["mbps"])  # type: ignore[arg-type]
    seconds = gb * 8000 / mbps
    real = seconds * 1.25
    h, rem = divmod(int(round(real / 60)), 60)
    if h == 0:
        t = f"{max(1, rem)} minutes"
    else:
        t = f"{h} hour{'s' if h != 1 else ''}" + (f" and {rem} minutes" if rem else "")
    ideal_min = max(1, int(round(seconds / 60)))
    ih, im = divmod(ideal_min, 60)
    ideal = f"{im} minutes" if ih == 0 else f"{ih} hour{'s' if ih != 1 else ''}" + (f" and {im} minutes" if im else "")
    return {"what_s": what, "way": way, "time_s": t, "ideal_s": ideal, "mb_s": f"{mbps / 8:g}"}


TECH_TRANSFER = Scenario(
    domain="tech_help",
    slots={"what": choice_of(TRANSFERS), "gb": int_between(2, 150), "mbps": choice_of((10, 20, 35, 50, 80, 100, 200, 500)),
           "device": choice_of(("laptop", "desktop computer", "games console", "phone"))},
    derive=_xfer_view,
    request=(
        "How long will a {gb} gigabyte {what_s} take on a {mbps} megabit connection?",
        "My {what_s} is {gb} gigabytes. With {mbps} megabit internet, how long is that?",
        "Can you estimate the time to {way} {gb} gigabytes at {mbps} megabits per second?",
        "I need to {way} a {gb} gigabyte {what_s} on my {device} with {mbps} megabit internet. How long will it take?",
    ),
    answer=(
        (
            "[Let's work it out|Okay|Sure], a {gb} gigabyte {what_s} at {mbps} megabits [takes roughly|will take about] {time_s}.",
            "[Rough answer|Ballpark]: about {time_s} to {way} {gb} gigabytes[ at {mbps} megabits|].",
        ),
        (
            "[In theory|On paper], {gb} gigabytes at {mbps} megabits [is|takes] about {ideal_s}.",
            "[The pure maths|The theoretical figure] [says|is] {ideal_s}[, but real life is slower|].",
        ),
        (
            "[That's because|Remember that] {mbps} megabits a second is only about {mb_s} megabytes a second.",
            "[Megabits and megabytes differ by eight|There are eight bits in a byte], [so|which is why] {mbps} megabits [means|is] about {mb_s} megabytes per second.",
        ),
        (
            "[I added|I've allowed] about a quarter extra for [real world slowdowns|overheads and wifi losses], [so|which gives] {time_s}.",
            "[Real connections lose|Wifi and overheads eat] [a bit|some] of that, [hence|so I'd plan for] {time_s}.",
        ),
        (
            "[Plug the {device} in with a cable|Connect the {device} by ethernet] [if you can|for the fastest {way}], [and pause other streaming|and avoid other big downloads].",
            "[Start the {way}|Set it going] before bed [if it's a big one|and it'll be done by morning].",
        ),
        (
            *offer("remind you to check on the {way} in {time_s}", ""),
        ),
    ),
    corrections=(
        Correction("gb", "{gb} gigabytes", user=("Actually, it's {gb} gigabytes.", "Sorry, {gb} gigs, not {old_gb}.")),
        Correction(
            "mbps",
            "{mbps} megabits",
            user=("Oh, our internet is actually {mbps} megabits.",),
            ack=("[Okay|Got it], {mbps} megabits[, let me redo that|].",),
        ),
    ),
    topic=("the {way} time", "your {what_s}", "the {gb} gigabyte {way}"),
)

# =========================================================================== music: tempo practice


SONG_KINDS = ("a fast jazz standard", "a tricky rock riff", "a Bach invention", "a bluegrass breakdown", "a funk groove",
              "a flamenco pattern", "a pop song's chorus", "a drum fill", "a Chopin etude", "a metal solo")


def _tempo_view(s: Slots) -> Slots:
    target = int(s["target"])  # type: ignore[arg-type]
    step = int(s["step"])  # type: ignore[arg-type]
    start = int(round(target * 0.6 / 5) * 5)
    days = math.ceil((target - start) / step)
    return {"start": start, "days": days, "days_w": number_words(days), "mid": start + step * (days // 2)}


MUSIC_TEMPO = Scenario(
    domain="music",
    slots={"piece": choice_of(SONG_KINDS), "target": int_between(100, 200, 5), "step": choice_of((2, 3, 4, 5)),
           "instrument": choice_of(("guitar", "piano", "drums", "violin", "bass", "saxophone"))},
    derive=_tempo_view,
    request=(
        "I'm learning {piece} on {instrument} and it's at {target} beats per minute. How do I get up to speed?",
        "How should I use a metronome to reach {target} bpm on {piece}?",
        "{piece} is way too fast for me at {target}. Can you make me a tempo plan?",
        "Help me practise {piece} up to {target} beats per minute on the {instrument}.",
    ),
    answer=(
        (
            "[Great|Good plan], {piece} at {target} beats per minute is [a nice goal|reachable] with a metronome.",
            "[Okay|Let's build speed], [getting|taking] {piece} up to {target} [is all about|needs] patience.",
        ),
        (
            "Start at about {start} beats per minute, [around sixty percent of the target|where you can play it cleanly].",
            "[Begin|Set the metronome] at {start}[, slow enough to play it perfectly|, which should feel easy].",
        ),
        (
            "[Each day|Every session], [raise it by|add] {step} beats per minute [only if|once] [you play it cleanly three times|it feels clean].",
            "[Go up|Increase] {step} beats [a day|per session], [but only after|as long as you have] [a clean run|three clean runs].",
        ),
        (
            "[At that rate|That way], you'll reach {target} in about {days_w} days.",
            "[That's|It'll take] roughly {days} days to get from {start} to {target}.",
        ),
        (
            "[Halfway|Around day {days}], [expect|you might hit] a plateau near {mid}, [so drop back five and rebuild|which is normal].",
            "[If you stall around {mid}|When it gets hard near {mid}], [go back down ten|drop the tempo a little] and [climb again|build back up].",
        ),
        (
            *offer("[start|set] the metronome at {start} for you now", ""),
        ),
    ),
    corrections=(
        Correction(
            "target",
            "{target} beats per minute",
            user=("Actually, the piece is at {target}.", "Sorry, {target} bpm, not {old_target}."),
            ack=("[Okay|Got it], {target} [then|it is][, new plan|].",),
        ),
        Correction("instrument", "the {instrument}", user=("Oh, I'm playing it on {instrument}, actually.",)),
    ),
    topic=("your tempo plan", "getting {piece} up to speed", "the metronome plan"),
)

# =========================================================================== finance: loan payoff


def _loan_view(s: Slots) -> Slots:
    balance = int(s["balance"])  # type: ignore[arg-type]
    apr = int(s["apr"])  # type: ignore[arg-type]
    r = apr / 100 / 12
    pay = max(25 * math.ceil(balance * int(s["pay_pct"]) / 100 / 25), 25 * math.ceil((balance * r + 20) / 25))  # type: ignore[arg-type]
    n = math.ceil(-math.log(1 - r * balance / pay) / math.log(1 + r)) if r > 0 else math.ceil(balance / pay)
    total = pay * n
    interest = max(0, total - balance)
    years, months = divmod(n, 12)
    span = (f"{years} year{'s' if years != 1 else ''}" if years else "") + (" and " if years and months else "") + (f"{months} month{'s' if months != 1 else ''}" if months else "")
    extra_pay = pay + 50
    n2 = math.ceil(-math.log(1 - r * balance / extra_pay) / math.log(1 + r)) if r > 0 else math.ceil(balance / extra_pay)
    return {
        "pay_s": money(pay), "months": n, "span": span, "interest": money(interest), "total": money(total),
        "balance_s": f"{balance:,}", "extra_pay": money(extra_pay),
        "faster_s": {0: "hardly any time", 1: "about a month"}.get(n - n2, f"{n - n2} months"),
    }


FINANCE_LOAN = Scenario(
    domain="finance",
    slots={"balance": int_between(1000, 20000, 500), "apr": int_between(5, 25), "pay_pct": int_between(2, 10),
           "what": choice_of(("credit card", "car loan", "personal loan", "student loan", "store card"))},
    derive=_loan_view,
    request=(
        "I owe {balance} dollars on my {what} at {apr} percent. If I pay {pay_s} a month, how long will it take?",
        "How long to pay off a {balance} dollar {what} at {apr} percent interest, paying {pay_s} monthly?",
        "Can you work out my {what} payoff? {balance} dollars, {apr} percent, {pay_s} a month.",
        "If I put {pay_s} a month towards my {balance} dollar {what}, when am I debt free? The rate is {apr} percent.",
    ),
    answer=(
        (
            "[Let's work it out|Okay|Good on you for planning], {balance_s} dollars at {apr} percent, paying {pay_s} a month.",
            "[Sure|Right], [paying off|clearing] {balance_s} dollars on your {what} [at {pay_s} a month|with {pay_s} monthly payments].",
        ),
        (
            "[It'll take|You'll be done in] about {months} months, [that's|or] {span}.",
            "[The payoff time is|You'll be debt free in] {span}, [around|about] {months} payments.",
        ),
        (
            "[Total interest|Interest over that time] [comes to|will be] about {interest}.",
            "[You'll pay|That costs] roughly {interest} in interest[ along the way|].",
        ),
        (
            "[Altogether|In total], [you'll repay|that's] {total}.",
            "[All in|Overall], [the {what} costs you|you hand over] {total}[ by the end|].",
        ),
        (
            "[Paying|Bumping it up to] {extra_pay} a month [would save|saves] {faster_s}.",
            "[An extra fifty dollars a month|Paying {extra_pay} instead] [would save|saves] you {faster_s}.",
        ),
        (
            *offer("set a monthly reminder for the payment of {pay_s}", ""),
            "[Paying the highest interest debt first|Tackling the {apr} percent debt first] [saves the most money|is usually the smartest move].",
        ),
    ),
    corrections=(
        Correction("pay_pct", "{pay_s} a month", user=("Actually, I can pay {pay_s} a month.", "Let's try {pay_s} a month instead.")),
        Correction("apr", "{apr} percent", user=("Oh, the rate is actually {apr} percent.",)),
        Correction("balance", "{balance_s} dollars", user=("Sorry, I owe {balance_s}, not {old_balance_s}.",)),
    ),
    topic=("your {what} payoff", "paying off the {what}", "the payoff plan"),
)

# =========================================================================== home: running costs

APPLIANCES = (
    ("space heater", 2000), ("tumble dryer", 2500), ("gaming computer", 400), ("electric oven", 2200),
    ("dehumidifier", 300), ("fish tank heater", 150), ("hot tub", 3000), ("television", 100),
    ("electric blanket", 60), ("air conditioner", 1200), ("dishwasher", 1400), ("hair dryer", 1800),
)


def _power_view(s: Slots) -> Slots:
    name, watts = s["appliance"]  # type: ignore[misc]
    hours = int(s["hours"]) / 2  # type: ignore[arg-type]
    price = int(s["price"]) / 100  # type: ignore[arg-type]
    kwh_day = watts * hours / 1000
    day = kwh_day * price
    month = day * 30
    year = day * 365
    return {
        "appliance_s": name, "watts": watts,
        "hours_s": {0.5: "half an hour", 1.0: "an hour", 1.5: "an hour and a half"}.get(hours, f"{hours:g} hours"), "kwh": f"{kwh_day:.1f}".rstrip("0").rstrip("."),
        "day": money(day), "month": money(month), "year": money(year), "price_s": f"{int(s['price'])} cents",
        "half": money(month / 2),
    }


HOME_POWER = Scenario(
    domain="home",
    slots={"appliance": choice_of(APPLIANCES), "hours": int_between(1, 16), "price": int_between(12, 45)},
    derive=_power_view,
    request=(
        "How much does it cost to run my {appliance_s} {hours_s} a day? Electricity is {price_s} per kilowatt hour.",
        "Is my {appliance_s} expensive to run? I use it about {hours_s} a day, and I pay {price_s} a unit.",
        "Can you work out the running cost of a {appliance_s} used {hours_s} a day at {price_s} a kilowatt hour?",
        "What does a {appliance_s} cost me per month if it's on {hours_s} a day?",
    ),
    answer=(
        (
            "[Let's work it out|Good question|Sure], a {appliance_s} [uses about|draws roughly] {watts} watts.",
            "[Okay|Right], [running|using] a {watts} watt {appliance_s} for {hours_s} a day[, here's the cost|].",
        ),
        (
            "{hours_s} a day [is|comes to] about {kwh} kilowatt hours.",
            "[That uses|Daily usage is] roughly {kwh} kilowatt hours[ each day|].",
        ),
        (
            "At {price_s} per kilowatt hour, [that's|it costs] about {day} a day.",
            "[Daily cost|Each day] [comes to|is] roughly {day}[ at {price_s} a unit|].",
        ),
        (
            "[Over a month|Monthly], [that adds up to|you're paying] about {month}.",
            "[That's|It works out at] roughly {month} a month[, or {year} a year|].",
        ),
        (
            "[Across a whole year|Yearly], [it's|that's] about {year}.",
            "[Cutting the use in half|Using it half as much] would save about {half} a month.",
        ),
        (
            "[A timer plug|A smart plug with a schedule] [can stop|helps avoid] [it running longer than needed|wasted hours][ on the {appliance_s}|].",
            *offer("[compare|check] the running costs of your other big appliances", ""),
        ),
    ),
    corrections=(
        Correction("hours", "{hours_s} a day", user=("Actually, it's on about {hours_s} a day.", "Hmm, more like {hours_s}.")),
        Correction("price", "{price_s}", user=("Sorry, I pay {price_s} per unit.",)),
        Correction(
            "appliance",
            "the {appliance_s}",
            user=("Oh, I meant the {appliance_s}.",),
            ack=("[Ah|Oh], the {appliance_s}[, different wattage|, okay].",),
        ),
    ),
    topic=("the {appliance_s} running costs", "your electricity maths", "the cost of the {appliance_s}"),
)

# =========================================================================== health: heart rate zones


def _hr_view(s: Slots) -> Slots:
    age = int(s["age"])  # type: ignore[arg-type]
    mx = 220 - age
    return {
        "max": mx, "z2a": round(mx * 0.6), "z2b": round(mx * 0.7), "z3a": round(mx * 0.7), "z3b": round(mx * 0.8),
        "z4a": round(mx * 0.8), "z4b": round(mx * 0.9), "age_w": number_words(age),
    }


HEALTH_HEART = Scenario(
    domain="health",
    slots={"age": int_between(18, 75), "activity": choice_of(("running", "cycling", "rowing", "swimming", "brisk walking", "spin classes"))},
    derive=_hr_view,
    request=(
        "What heart rate should I train at? I'm {age}.",
        "Can you work out my heart rate zones? I'm {age} and I do a lot of {activity}.",
        "I'm {age}. What's a good heart rate for easy {activity}?",
        "What's my max heart rate at {age}, and what zones should I use?",
    ),
    answer=(
        (
            "[Sure|Good question|Happy to], at {age} your estimated maximum heart rate is about {max} beats per minute.",
            "[The simple formula|A common estimate] is 220 minus your age, so {max} for you at {age}.",
        ),
        (
            "[Easy training, zone two, is|Zone two, the easy zone, is] {z2a} to {z2b} beats per minute.",
            "[For easy {activity}|At a comfortable, chatty pace], aim for {z2a} to {z2b}.",
        ),
        (
            "[Moderate effort|A steady, moderate pace] sits around {z3a} to {z3b}.",
            "[Steady {activity}|Tempo sessions] [belong|fit] in the {z3a} to {z3b} range.",
        ),
        (
            "[Hard intervals|Hard efforts] push you to {z4a} to {z4b}[, only for short bursts|].",
            "[Keep|Save] {z4a} to {z4b} for [short intervals|your hardest sessions].",
        ),
        (
            "[Most of your|About eighty percent of] {activity} [should be|works best] in the easy zone, [even if it feels slow|which builds fitness safely].",
            "[Lots of people train too hard|It's tempting to go hard every time], [but easy {activity} builds your base|so keep most sessions between {z2a} and {z2b}].",
        ),
        (
            "[The formula is only an estimate|Everyone's different], [so|and] [check with a doctor before hard training|a doctor can test your real maximum] [if you have any heart concerns|if you're starting from scratch].",
            *offer("[set|program] heart rate alerts for {z2a} to {z2b}", ""),
        ),
    ),
    corrections=(
        Correction(
            "age",
            "{age}",
            user=("Oh, sorry, I'm actually {age}.", "Wait, I'm {age}, not {old_age}."),
            ack=("[Okay|Got it], {age}[, let me redo the zones|, new numbers].",),
        ),
        Correction("activity", "{activity}", user=("It's mostly {activity}, actually.",), ack=("[Okay|Sure], {activity} then[, same zones apply|].",)),
    ),
    topic=("your heart rate zones", "training zones", "the zone plan"),
)

SCENARIOS: tuple[Scenario, ...] = (
    WEATHER_WEAR,
    TRAVEL_JETLAG,
    SPORTS_TOURNEY,
    FITNESS_PACE,
    COOKING_TIMING,
    RESTAURANT_OCCASION,
    SHOPPING_UNIT,
    TECH_TRANSFER,
    MUSIC_TEMPO,
    FINANCE_LOAN,
    HOME_POWER,
    HEALTH_HEART,
)

__all__ = ["SCENARIOS"]
