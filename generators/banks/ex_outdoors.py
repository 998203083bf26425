"""Exchanges for weather, travel, sports and fitness."""

from __future__ import annotations

from typing import NamedTuple

from generators.harness.weather import CONDITIONS, Condition, degrees, forecast  # noqa: F401 - re-exported

from .engine import Correction, Scenario, Slots, choice_of, int_between, number_words, seed_slot, spoken_time
from .values import CITIES, CITY_BY_NAME, CITY_NAMES, COMPANIONS, DAYS, FIRST_NAMES, MONTHS, WEEKDAYS

# =========================================================================== weather


def _day(v: object) -> tuple[str, str]:
    assert isinstance(v, tuple)
    return v  # (bare, on-form)


def weather_view(s: Slots) -> Slots:
    """The forecast slots for {city, day, seed}: the harness's weather model (generators/harness/weather.py)."""
    return forecast(str(s["city"]), _day(s["day"]), int(s["seed"]))  # type: ignore[arg-type]


ACTIVITIES = (
    "picnic", "hike", "bike ride", "beach day", "barbecue", "long run", "lunch outdoors",
    "trip to the zoo", "round of golf", "walk in the park", "kayaking trip", "farmers market visit",

    "garden party", "sailing trip", "picnic by the lake", "cycling tour", "yoga session in the park", "sunset walk",
)

WEATHER_FORECAST = Scenario(
    domain="weather",
    slots={"city": choice_of(CITY_NAMES), "day": choice_of(DAYS), "seed": seed_slot},
    derive=weather_view,
    request=(
        "What's the weather going to be like in {city} {day_on}?",
        "Can you tell me the forecast for {city} {day_on}?",
        "How's the weather looking in {city} {day_on}?",
        "I'm heading to {city} {day_on}. What's the weather going to do?",
        "Do I need a jacket in {city} {day_on}? What's the forecast?",
        "Could you check what the weather will be in {city} {day_on}, please?",
        "Hey, what should I expect weather wise in {city} {day_on}?",
    ),
    answer=(
        (
            "[Sure|Alright|Okay|Right], [here's|this is] [the forecast|what the forecast looks like|the outlook] for {city} {day_on}.",
            "[Let me see|Okay|So], {city} {day_on} [is looking at|should get|can expect] {cond}.",
            "{city} {day_on} [looks like|is shaping up to be] {cond}[, overall| for the most part|].",
        ),
        (
            "The high [should be|will be|is expected to be] around {high} degrees, with a low of {low} [overnight|at night|early in the morning].",
            "Temperatures [will range|should go|will run] from about {low} degrees [in the morning|early on] up to {high} [by the afternoon|in the afternoon|around midday].",
            "[Expect|You can expect|It'll get to] [a high of|highs near|about] {high} degrees[, dropping to {low} at night| and lows around {low}].",
        ),
        (
            "There's a {rain} percent chance of rain[, mostly in the afternoon| later in the day| in the evening|].",
            "[The chance of rain|The rain risk] [sits|is] at about {rain} percent, [so|which means] {rain_comment}.",
            "Rain [chances are|odds are|probability is] around {rain} percent {day_on}, so {rain_comment}.",
        ),
        (
            "[Wind|The wind] will be around {wind} kilometres an hour, [with gusts up to {gust}|gusting to about {gust} at times].",
            "It'll be {wind_desc} [in {city}|out there|{day_on}], with gusts [of up to|near] {gust} kilometres an hour.",
            "[As for the wind|Wind wise], expect about {wind} kilometres an hour, so {wind_desc} [overall|on the whole|for most of the day].",
        ),
        (
            "If you're heading out in {city}, I'd [bring|pack|take] {gear}.",
            "[My advice|My suggestion|The practical bit] for {day}: [bring|don't forget|pack] {gear}.",
            "[So|With that in mind], {gear} [would be a smart idea|is probably a good call|should cover you] {day_on}.",
        ),
        (
            "[By the evening|Later on|After sunset] it [should|will] [cool down|drop] to around {evening} degrees, so [take|bring along] {layer} [if you're out late|for later|too].",
            "[In the evening|Once the sun goes down] {city} [gets|will get] down to about {evening} degrees, which [calls for|means] {layer}.",
        ),
        (
            "[Would you like|Do you want] me to check the [hourly breakdown|rest of the week|weekend] for {city} [too|as well]?",
            "[I can also|Happy to] [look at|check] [the hourly forecast|the next few days|the weekend outlook] for {city} if that helps.",
            "[Let me know|Just say] if you [want|need] the [hour by hour|multi day|weekend] forecast for {city} [as well|too].",
        ),
    ),
    corrections=(
        Correction(
            "city",
            "{city}",
            user=(
                "Oh wait, I meant {city}, not {old_city}.",
                "Sorry, actually, check {city} instead.",
                "Hang on, I'm going to {city}, not {old_city}.",
            ),
            ack=(
                "[Ah|Oh], {city}[, got it|, sure|]. [Here's that forecast instead|Let me redo that|Switching over].",
                "No problem, {city} {day_on} [then|instead].",
            ),
        ),
        Correction(
            "day",
            "{day}",
            user=(
                "Actually, make that {day} instead.",
                "Sorry, I meant {day}, not {old_day}.",
                "Wait, I need {day}, not {old_day}.",
            ),
            ack=(
                "[Okay|Sure|Got it], {day} in {city} [then|instead].",
                "[Right|Alright], switching to {day} for {city}.",
            ),
        ),
    ),
    topic=("the forecast for {city}", "the weather in {city} {day_on}", "the {city} forecast", "{day}'s weather in {city}"),
)

WEATHER_ACTIVITY = Scenario(
    domain="weather",
    slots={
        "city": choice_of(CITY_NAMES),
        "day": choice_of(DAYS),
        "activity": choice_of(ACTIVITIES),
        "seed": seed_slot,
    },
    derive=weather_view,
    request=(
        "Is {day} a good day for a {activity} in {city}?",
        "We're planning a {activity} in {city} {day_on}. Will the weather hold up?",
        "Should I plan a {activity} {day_on}? I'm in {city}.",
        "Thinking about a {activity} around {city} {day_on}. How does the weather look?",
        "Can you tell me if the weather in {city} works for a {activity} {day_on}?",
    ),
    answer=(
        (
            "[Okay|Let me check|Alright], for a {activity} in {city} {day_on}, the weather {verdict}.",
            "[Honestly|Well|So], {day} in {city} {verdict} for a {activity}.",
            "[Looking at|Based on] the forecast, a {activity} {day_on} in {city} {fit}.",
        ),
        (
            "[The forecast shows|They're predicting|You're looking at] {cond}, with a high of {high} degrees.",
            "[It'll be|Expect] {cond} and [temperatures|a high] [around|near] {high} degrees.",
        ),
        (
            "The [best|nicest|driest] window [looks to be|seems to be|is probably] {window}, so I'd [aim for that|plan the {activity} then|start then].",
            "If you [go ahead|do it], [try to go|head out] {window}, when conditions [look best|should be kindest|are most settled].",
        ),
        (
            "The chance of rain is about {rain} percent, so {rain_comment}.",
            "[Rain wise|For rain], it's [roughly|about] {rain} percent, [which means|meaning] {rain_comment}.",
        ),
        (
            "It'll be {wind_desc}, around {wind} kilometres an hour, [which matters|which is worth knowing] for a {activity}.",
            "Wind [should be|will be] about {wind} kilometres an hour, [so|meaning] {wind_desc} for your {activity}.",
        ),
        (
            "[Either way|Whatever you decide|Just in case], [bring|pack] {gear} for the {activity}.",
            "[For the {activity} itself|To be safe], {gear} [would be worth bringing|is a good idea|will help]."
        ),
        (
            "[If the {activity} falls through|If plans change|If it doesn't work out], I can [look for|check] [another day|a better day] in {city} for you.",
            "[Want me to|Should I] compare [a couple of other days|the rest of the week|the weekend] for your {activity} in {city}?",
            "I could [also|] compare [a couple of other days|the rest of the week|the weekend] for your {activity} in {city}[, if you like|].",
        ),
    ),
    corrections=(
        Correction("day", "{day}", user=("Actually, we'd do it {day_on}, not {old_day}.", "Sorry, I meant {day}.")),
        Correction(
            "activity",
            "a {activity}",
            user=("Oh, it's actually a {activity}, not a {old_activity}.", "Sorry, I meant a {activity}."),
            ack=("[Ah|Oh], a {activity}[, got it|, okay]. [Same forecast|The forecast is the same], [different plan|but let me reframe it].",),
        ),
        Correction("city", "{city}", user=("Wait, we'll be in {city}, not {old_city}.",)),
    ),
    topic=("your {activity} in {city}", "the {activity} plan for {day}", "whether {day} works for your {activity}"),
)

# =========================================================================== travel


def _trip_view(s: Slots) -> Slots:
    city = CITY_BY_NAME[str(s["city"])]
    n = int(s["n_days"])  # type: ignore[arg-type]
    month = str(s["month"])
    comp_user, comp = s["companion"]  # type: ignore[misc]
    southern = city.country in {"Australia", "New Zealand", "South Africa", "Argentina", "Peru", "Brazil"}
    idx = MONTHS.index(month)
    season_idx = ((idx + 1) // 3) % 4  # 0 winter .. 3 autumn (northern)
    if southern:
        season_idx = (season_idx + 2) % 4
    season = ("winter", "spring", "summer", "autumn")[season_idx]
    warm = {"cold": (0, 1, 2, 1), "mild": (1, 2, 3, 2), "hot": (2, 3, 3, 3), "wet": (1, 1, 2, 1)}[city.climate][season_idx]
    season_weather = (
        "cold and often grey", "cool and changeable", "pleasantly warm", "hot and sunny"
    )[warm]
    pack = ("a warm coat and gloves", "layers and a rain jacket", "light layers and comfortable shoes", "light clothes, a hat and sunscreen")[warm]
    days_comment = (
        "just enough for the highlights" if n <= 3 else "a comfortable amount of time" if n <= 5 else "plenty of time to slow down"
    )
    return {
        "companion_user": comp_user,
        "companion": comp,
        "n_days_w": number_words(n),
        "sight1": city.sights[0],
        "sight2": city.sights[1],
        "sight3": city.sights[2],
        "food": city.food,
        "area": city.area,
        "country": city.country,
        "season": season,
        "season_weather": season_weather,
        "pack": pack,
        "days_comment": days_comment,
    }


TRAVEL_PLAN = Scenario(
    domain="travel",
    slots={
        "city": choice_of(CITY_NAMES),
        "n_days": int_between(2, 7),
        "month": choice_of(MONTHS),
        "companion": choice_of(COMPANIONS),
    },
    derive=_trip_view,
    request=(
        "I'm going to {city} for {n_days} days in {month} with {companion_user}. What should we do?",
        "Can you help me plan {n_days} days in {city}? I'm going in {month} with {companion_user}.",
        "We have {n_days} days in {city} this {month}. Any ideas for what to see?",
        "I'm taking {companion_user} to {city} in {month} for {n_days} days. Where should we start?",
        "What would you do with {n_days} days in {city} in {month}?",
        "Planning a trip to {city} in {month}, {n_days} days with {companion_user}. Got any tips?",
    ),
    answer=(
        (
            "{city} in {month} [is a great choice|sounds wonderful|is a lovely idea], and {n_days} days is {days_comment}.",
            "[Oh, nice|How exciting|Lovely], {n_days_w} days in {city} [gives you|is] {days_comment}.",
            "[Great|Fun], {city} with {companion} for {n_days} days [should be|will be] [a real treat|a lot of fun|memorable].",
        ),
        (
            "On your first day, I'd [start with|head straight to|begin at] {sight1}[, ideally early before the crowds|, since it gets busy later|].",
            "[Start|Kick things off] with {sight1} on day one[, because it's the big one| while you have the most energy|].",
            "[For day one|First thing], {sight1} is [the obvious pick|a must|where I'd go], [and it's worth booking ahead|so get there early|especially in {month}].",
        ),
        (
            "After that, [spend some time|wander] [around|through] {area}, which is [great|perfect|lovely] for [a slow afternoon|people watching|finding small cafes].",
            "{area} is [the neighbourhood|the part of {city}|the area] I'd [wander|explore|get lost in] [on the second day|in the afternoon|when you want a slower pace].",
        ),
        (
            "[Make sure you try|Don't leave {city} without trying|You have to try] {food} while you're there.",
            "[Food wise|For food|When you get hungry], {food} [is the local classic|is a must in {city}|is what {city} does best].",
        ),
        (
            "[If you have time|With {n_days} days], {sight2} and {sight3} are [both worth a visit|well worth the time|the next two I'd prioritise].",
            "[Later in the trip|On another day], [add|fit in] {sight2}, and [maybe|if you still have energy] {sight3} [too|as well].",
        ),
        (
            "In {month}, {city} [tends to be|is usually] {season_weather}, so [pack|bring] {pack}.",
            "[Weather wise|As for the weather], {month} [in {city}|there] is usually {season_weather}, [which means|so think] {pack}.",
        ),
        (
            "[Since you're travelling with|Going with|With] {companion}, it's worth booking tickets for {sight1} [a few days ahead|in advance|before you go].",
            "[Would you like|Want] me to [sketch out|put together|draft] a day by day plan for {companion} and you in {city}?",
        ),
    ),
    corrections=(
        Correction("city", "{city}", user=("Oh, sorry, I meant {city}, not {old_city}.", "Wait, it's actually {city} now, we changed plans.")),
        Correction(
            "n_days",
            "{n_days} days",
            user=("Actually, it's only {n_days} days.", "Sorry, make that {n_days} days, not {old_n_days}."),
            ack=("[Okay|Got it], {n_days_w} days [instead|then], [that changes the pacing a bit|let me adjust].",),
        ),
        Correction("month", "{month}", user=("Actually we're going in {month}, not {old_month}.", "Sorry, I meant {month}.")),
    ),
    topic=("your trip to {city}", "the {city} itinerary", "your {n_days} days in {city}", "the plan for {city}"),
)

PURPOSES = (
    ("work trip", "a couple of smart outfits and a laptop charger"),
    ("hiking trip", "broken in boots and a small daypack"),
    ("friend's wedding", "the wedding outfit in a garment bag"),
    ("beach holiday", "two swimsuits and a beach towel"),
    ("city break", "comfortable walking shoes"),
    ("family visit", "a small gift for your hosts"),
    ("ski trip", "thermal layers and ski socks"),
    ("conference", "business cards and a portable charger"),

    ("music festival", "ear plugs and a portable charger"),
    ("business meeting", "a crease free blazer and your presentation on a memory stick"),
    ("camping trip", "a head torch and a warm layer for the night"),
    ("honeymoon", "something nice for a fancy dinner"),
    ("school reunion", "a couple of old photos to share"),
)


def _pack_view(s: Slots) -> Slots:
    purpose, key_item = s["purpose"]  # type: ignore[misc]
    n = int(s["n_days"])  # type: ignore[arg-type]
    city = CITY_BY_NAME[str(s["city"])]
    out = _trip_view({**s, "companion": ("", ""), "month": s["month"]})
    shirts = n if n <= 4 else 4 + (n - 4) // 2
    out.update(
        {
            "purpose": purpose,
            "key_item": key_item,
            "shirts": shirts,
            "socks": n + 1,
            "bag": "a carry on" if n <= 4 else "a medium suitcase",
            "climate_note": city.climate,
        }
    )
    return out


TRAVEL_PACKING = Scenario(
    domain="travel",
    slots={
        "city": choice_of(CITY_NAMES),
        "n_days": int_between(2, 9),
        "month": choice_of(MONTHS),
        "purpose": choice_of(PURPOSES),
    },
    derive=_pack_view,
    request=(
        "What should I pack for a {n_days} day {purpose} in {city} in {month}?",
        "Can you help me pack? It's a {purpose} in {city}, {n_days} days, in {month}.",
        "I leave for {city} in {month} on a {purpose}. What do I need for {n_days} days?",
        "Help me make a packing list for {n_days} days in {city}. It's a {purpose}.",
    ),
    answer=(
        (
            "[Sure|Okay|Happy to help], for a {n_days} day {purpose} in {city} in {month}, [I'd keep it simple|here's what I'd pack|let's work it out].",
            "[Alright|Right], {n_days_w} days in {city} on a {purpose} [is very doable|is easy enough to pack for] with {bag}.",
        ),
        (
            "{month} in {city} is usually {season_weather}, so [start with|the base is|build around] {pack}.",
            "[Because|Since] {city} [tends to be|is usually] {season_weather} in {month}, [you'll want|pack] {pack}.",
        ),
        (
            "[For clothes|Clothing wise], [about|roughly] {shirts} tops and {socks} pairs of socks [should do|will cover {n_days} days|is plenty].",
            "I'd [pack|take] {shirts} tops, {socks} pairs of socks, and [one|a single] warmer layer for the evenings in {city}.",
        ),
        (
            "[Since it's a|For a] {purpose}, [don't forget|make sure to pack|remember] {key_item}.",
            "[The one thing people forget on a|The key extra for a] {purpose} is {key_item}[, so put that in first|].",
        ),
        (
            "[Everything should fit in|You can get all of that into|Aim for] {bag}[, which saves time at the airport| if you roll your clothes|].",
            "With {n_days} days, {bag} [is the right size|should be enough|makes sense], [and you'll have room for|leaving space for] [souvenirs|a few things you buy in {city}].",
        ),
        (
            "[Want me to|Should I] [turn this into|save this as|make this] a checklist for your {city} trip?",
            "I can [turn this into|save this as|make this] a checklist for your {city} trip[, if that helps|].",
            "[If you tell me|Let me know] your flight time to {city}, [and|then] I can [remind you to pack|set a packing reminder] the night before.",
        ),
    ),
    corrections=(
        Correction("n_days", "{n_days} days", user=("Actually it's {n_days} days, not {old_n_days}.", "Sorry, make it {n_days} days.")),
        Correction(
            "purpose",
            "a {purpose}",
            user=("Oh, it's more of a {purpose}, actually.", "Sorry, it's a {purpose}, not a {old_purpose}."),
            ack=("[Oh|Ah], a {purpose}[, okay|, got it]. [That changes one or two things|Let me adjust the list].",),
        ),
        Correction("month", "{month}", user=("Wait, it's in {month}, not {old_month}.",)),
    ),
    topic=("your packing list for {city}", "the {city} packing list", "what to pack for {city}"),
)

# =========================================================================== sports


class Sport(NamedTuple):
    name: str
    gear: str
    first_skill: str
    mistake: str
    venue: str
    session: str  # how long a first session should last


SPORTS: tuple[Sport, ...] = (
    Sport("tennis", "a racket and a tube of balls", "a consistent forehand rally", "swinging with just the arm instead of turning the body", "a public court", "an hour"),
    Sport("badminton", "a light racket and a few shuttlecocks", "the high clear from the back of the court", "standing flat footed", "a sports hall", "forty five minutes"),
    Sport("swimming", "goggles and a swim cap", "relaxed breathing every three strokes", "lifting the head too high to breathe", "the local pool", "thirty minutes"),
    Sport("climbing", "rental shoes and a chalk bag", "keeping your arms straight and pushing with the legs", "gripping too hard and tiring out the forearms", "a bouldering gym", "an hour"),
    Sport("basketball", "a ball and good court shoes", "a simple form shot close to the hoop", "shooting from too far out too soon", "an outdoor court", "an hour"),
    Sport("table tennis", "two paddles and some balls", "a steady backhand push", "hitting every ball as hard as possible", "a community centre table", "forty five minutes"),
    Sport("golf", "a half set of rented clubs", "a smooth half swing with a short iron", "trying to hit the ball too hard", "a driving range", "an hour"),
    Sport("volleyball", "knee pads and a decent ball", "a clean forearm pass", "swinging the arms at the ball instead of letting it bounce off", "a beach court", "an hour"),
    Sport("cycling", "a helmet and a set of lights", "smooth gear changes before the hills", "starting out far too fast", "a quiet bike path", "forty five minutes"),
    Sport("soccer", "shin guards and boots", "passing with the inside of the foot", "watching the ball instead of looking up", "a five a side pitch", "an hour"),
    Sport("squash", "non marking shoes and eye protection", "getting back to the middle of the court after each shot", "staying at the back wall", "a squash club", "forty five minutes"),
    Sport("rowing", "a water bottle and snug clothing", "driving with the legs before pulling with the arms", "rushing the slide forward", "the rowing club", "an hour"),

    Sport("pickleball", "a paddle and a few plastic balls", "soft shots into the kitchen zone", "rushing the net too early", "a community court", "an hour"),
    Sport("bouldering", "rental shoes", "watching your feet and placing them quietly", "pulling with bent arms the whole time", "an indoor bouldering wall", "an hour"),
    Sport("ice skating", "warm socks and gloves", "gliding on one foot for a few seconds", "looking down at your feet", "the local rink", "forty five minutes"),
    Sport("surfing", "a soft top board and a wetsuit", "popping up smoothly on the beach first", "paddling for waves that are too big", "a beginner friendly beach", "an hour and a half"),
    Sport("archery", "an arm guard and a finger tab, usually provided", "a consistent anchor point under the chin", "gripping the bow too tightly", "an archery range", "an hour"),
)
SPORT_BY_NAME = {s.name: s for s in SPORTS}


def _sport_view(s: Slots) -> Slots:
    sp = SPORT_BY_NAME[str(s["sport"])]
    bare, on = _day(s["day"])
    return {
        "day": bare,
        "day_on": on,
        "gear": sp.gear,
        "first_skill": sp.first_skill,
        "mistake": sp.mistake,
        "venue": sp.venue,
        "session": sp.session,
    }


SPORTS_START = Scenario(
    domain="sports",
    slots={"sport": choice_of(tuple(SPORT_BY_NAME)), "friend": choice_of(FIRST_NAMES), "day": choice_of(DAYS)},
    derive=_sport_view,
    request=(
        "I'm trying {sport} for the first time with {friend} {day_on}. Any tips?",
        "My friend {friend} wants to teach me {sport} {day_on}. What should I know?",
        "Going to play {sport} with {friend} {day_on} and I've never played. Help?",
        "Can you give me some beginner tips for {sport}? I'm going with {friend} {day_on}.",
        "I've signed up to try {sport} {day_on} with {friend}. How do I not embarrass myself?",
    ),
    answer=(
        (
            "[Oh, fun|Nice|Great], {sport} with {friend} {day_on} [sounds like a good time|is a great way to start|should be a blast].",
            "[How fun|That's exciting], a first go at {sport} with {friend} is [the best way to learn|a great plan].",
        ),
        (
            "[For gear|Equipment wise], you [really|mostly] just need {gear}[, and most places will lend you the rest|].",
            "[Bring|Make sure you have] {gear}[, plus water and comfortable clothes|, and wear something you can move in].",
        ),
        (
            "The first thing to [work on|focus on|practise] is {first_skill}.",
            "[If you only learn one thing|Above all], [get comfortable with|aim for] {first_skill} [{day_on}|in your first session|before anything fancy].",
        ),
        (
            "[A very common beginner mistake|The classic mistake|What most new players do] is {mistake}, so [watch out for that|try to avoid it|keep an eye on it].",
            "[Try not to fall into|Watch out for] the [habit|trap] of {mistake}[; {friend} can probably spot it for you|, it's the most common one].",
        ),
        (
            "[Keep|I'd keep] the first session to about {session} at {venue}[, so you enjoy it and aren't too sore|, that's plenty|].",
            "[At|For your first time at] {venue}, about {session} is [plenty|enough|a good length] [before your body gets tired|to learn without getting sore].",
        ),
        (
            "[Ask {friend} to feed you easy balls|Ask {friend} to keep it slow|Let {friend} keep things gentle] [at first|for the first part]"
            "[, and don't worry about keeping score|, since {sport} is more fun once you can rally|].",
            "[Have fun with|Enjoy] {sport} {day_on}, and [tell me how it goes|let me know if you want drills for next time|I can suggest a practice plan afterwards].",
        ),
    ),
    corrections=(
        Correction(
            "sport",
            "{sport}",
            user=("Oh wait, it's {sport}, not {old_sport}.", "Sorry, I said that wrong, it's {sport}."),
            ack=("[Ah|Oh], {sport}[, got it|, okay], [different tips then|let me switch gears].",),
        ),
        Correction("day", "{day}", user=("Actually, it's {day_on} now, not {old_day}.",)),
        Correction("friend", "{friend}", user=("Oh, it's {friend} taking me, not {old_friend}.",), ack=("[Okay|Sure], {friend} then, same plan.", "[Got it|Right], with {friend} instead.")),
    ),
    topic=("your {sport} tips", "{sport} with {friend}", "your first {sport} session"),
)

TEAMS = (
    "Riverside United", "Harbour City Hawks", "Northgate Rovers", "Valley Stars", "Eastfield Athletic",
    "Lakeside Bears", "Westbrook Wanderers", "Capital Comets", "Southport Rangers", "Mountain Lions",
    "Kingsbridge Town", "Coastal Sharks", "Millbrook City", "Prairie Foxes",
)
SNACKS = (
    "nachos", "wings", "sliders", "a big veggie platter", "homemade pizza", "pretzels and dip", "tacos", "samosas",
    "loaded potato skins", "mini hot dogs", "a cheese board", "spicy popcorn", "chicken quesadillas",
)


def _party_view(s: Slots) -> Slots:
    n = int(s["guests"])  # type: ignore[arg-type]
    bare, on = _day(s["day"])
    hour, minute = s["kickoff"]  # type: ignore[misc]
    arrive_h, arrive_m = (hour, minute - 30) if minute >= 30 else (hour - 1, minute + 30)
    return {
        "day": bare,
        "day_on": on,
        "guests_w": number_words(n),
        "kickoff_t": spoken_time(hour, minute, int(s["tstyle"])),  # type: ignore[arg-type]
        "arrive_t": spoken_time(arrive_h, arrive_m, int(s["tstyle"])),  # type: ignore[arg-type]
        "wings": n * 6,
        "drinks": n * 3,
        "chairs": max(0, n - 4),
        "pizzas": max(1, (n + 2) // 3),
    }


SPORTS_PARTY = Scenario(
    domain="sports",
    slots={
        "team": choice_of(TEAMS),
        "guests": int_between(4, 16),
        "day": choice_of(DAYS),
        "kickoff": choice_of(((13, 0), (15, 30), (16, 0), (18, 45), (19, 30), (20, 0), (14, 15))),
        "snack": choice_of(SNACKS),
        "tstyle": int_between(0, 4),
    },
    derive=_party_view,
    request=(
        "{team} are playing {day_on}. Can you help me plan a watch party for {guests} people?",
        "I'm hosting {guests} friends to watch {team} {day_on}. What do I need?",
        "Help me plan food for {guests} people watching the {team} game {day_on}.",
        "We're watching {team} at mine {day_on}, about {guests} of us. Any ideas?",
    ),
    answer=(
        (
            "[Fun|Great|Love it], a watch party for {guests} to see {team} {day_on}[ sounds great|, let's plan it|].",
            "[Sure|Okay], {guests_w} people for the {team} game {day_on} is [a nice crowd|very manageable|a proper party].",
        ),
        (
            "[Kickoff|The game starts] at {kickoff_t}, so [ask people to arrive|tell everyone to come] around {arrive_t}.",
            "[With the game starting|With kickoff] at {kickoff_t}, [have guests arrive|I'd open the door] by {arrive_t} [so nobody misses the start|to settle in].",
        ),
        (
            "[For food|On the food side], [I'd serve|you can't go wrong with] {snack}, and [plan on|figure] about {pizzas} pizzas for {guests} people.",
            "[I'd go with|How about] {snack} plus {pizzas} pizzas, which [should feed|is about right for] {guests} hungry fans.",
        ),
        (
            "If you [do|add] wings, [count on|get] about {wings}, [that's six per person|six each is the usual rule].",
            "[A good rule of thumb|The usual rule] is six wings a head, so {wings} wings for {guests} people.",
        ),
        (
            "[Have|Get] about {drinks} drinks in the fridge, [roughly three per person|three per guest], [including some non alcoholic ones|with a few sodas and sparkling water].",
            "[Drinks wise|For drinks], {drinks} [cans or bottles|drinks] [should last|will cover] the whole {team} game.",
        ),
        (
            "[You'll probably need|Borrow or set out] {chairs} extra chairs [on top of the sofa|so everyone has a seat], [and check the stream before {kickoff_t}|then test the TV early].",
            "[Last tip|One more thing]: [test|check] the TV and the stream an hour before {kickoff_t} [so there are no surprises|to avoid any panic].",
        ),
    ),
    corrections=(
        Correction(
            "guests",
            "{guests} people",
            user=("Actually, it's more like {guests} people now.", "Sorry, make that {guests}, not {old_guests}."),
            ack=("[Okay|Got it], {guests_w} people, [let me redo the numbers|I'll scale it up|adjusting the amounts].",),
        ),
        Correction("snack", "{snack}", user=("Oh, I was thinking {snack} instead, actually.",), ack=("[Sure|Ooh], {snack} [it is|instead|then].",)),
        Correction("day", "{day}", user=("Wait, the game's {day_on}, not {old_day}.",)),
    ),
    topic=("the {team} watch party", "your watch party for {day}", "the plan for the {team} game"),
)

# =========================================================================== fitness

RACES = (
    ("5 kilometre race", 5, 3, 3), ("10 kilometre race", 10, 5, 5), ("half marathon", 21, 9, 8), ("marathon", 42, 16, 12),
)


def _race_view(s: Slots) -> Slots:
    name, km, min_weeks, base = s["race"]  # type: ignore[misc]
    weeks = max(int(s["weeks"]), int(min_weeks))  # type: ignore[arg-type]
    runs = int(s["runs"])  # type: ignore[arg-type]
    long_run = min(km + 2 if km < 15 else km - 3 if km < 30 else 32, base + weeks)
    easy = max(3, round(long_run * 0.4))
    weekly = long_run + easy * (runs - 1)
    taper = 1 if weeks < 8 else 2
    return {
        "race": name,
        "weeks": weeks,
        "weeks_w": number_words(weeks),
        "runs_w": number_words(runs),
        "long_run": long_run,
        "easy": easy,
        "weekly": weekly,
        "taper": number_words(taper),
        "taper_s": "week" if taper == 1 else "weeks",
        "first_long": base,
    }


FITNESS_RACE = Scenario(
    domain="fitness",
    slots={
        "race": choice_of(RACES),
        "weeks": int_between(6, 20),
        "runs": int_between(3, 5),
        "name": choice_of(FIRST_NAMES),
    },
    derive=_race_view,
    request=(
        "I signed up for a {race} in {weeks} weeks. Can you help me train, running {runs} days a week?",
        "How should I train for a {race}? I have {weeks} weeks and can run {runs} times a week.",
        "My friend {name} talked me into a {race} in {weeks} weeks. What's a good plan with {runs} runs a week?",
        "Can you build me a {race} plan? {weeks} weeks to go, {runs} runs a week.",
    ),
    answer=(
        (
            "[Great|Nice|Good for you], {weeks_w} weeks is [a workable amount of time|enough to get ready|a solid runway] for a {race}.",
            "[Okay|Sure], let's [build|sketch out] a {race} plan with {runs_w} runs a week over {weeks} weeks.",
        ),
        (
            "[Make|Keep] {runs_w} runs a week mostly easy, [about|around] {easy} kilometres each at a pace where you can still talk.",
            "Most of your {runs_w} weekly runs [should be|ought to be] [easy|relaxed], [roughly|around] {easy} kilometres at a chatty pace.",
        ),
        (
            "[One run a week|Your weekend run] should be a long run, starting [at|around] {first_long} kilometres and building [up|slowly] to {long_run}.",
            "[The key session|The backbone of the plan] is the long run, [growing|building] from {first_long} kilometres to about {long_run} [by the final weeks|before the race].",
        ),
        (
            "[At the peak|In your biggest week], [that adds up to|you'll be running] about {weekly} kilometres [in total|for the week].",
            "[Your|The] peak week [comes out|lands] around {weekly} kilometres [across {runs_w} runs|in total], [which is plenty for a {race}|and that's enough].",
        ),
        (
            "[Ease off|Taper] for the last {taper} {taper_s} before the {race}, [cutting your distance by about a third|so your legs feel fresh on race day].",
            "[In the final|For the last] {taper} {taper_s}, [cut back|drop the volume] [so you arrive rested|and let your body absorb the training] for the {race}.",
        ),
        (
            "[Would you like|Want] me to [lay that out|write it up] week by week for the whole {weeks} weeks?",
            "[I can|Happy to] [turn this into|make] a {weeks} week calendar with each run [on it|scheduled], [if you like|just say the word].",
        ),
    ),
    corrections=(
        Correction("weeks", "{weeks} weeks", user=("Actually, it's only {weeks} weeks away.", "Sorry, I meant {weeks} weeks, not {old_weeks}.")),
        Correction(
            "runs",
            "{runs} runs a week",
            user=("Hmm, I can only do {runs} runs a week actually.", "Make that {runs} runs a week instead."),
            ack=("[Okay|Got it], {runs_w} runs a week, [let me rebalance|I'll adjust the plan|that works too].",),
        ),
        Correction(
            "race",
            "a {race}",
            user=("Oh wait, it's a {race}, not a {old_race}.",),
            ack=("[Oh|Ah], a {race}[, that's different|, okay], [let me redo the distances|new numbers coming].",),
        ),
    ),
    topic=("your {race} plan", "the training plan for your {race}", "your {weeks} week plan"),
)

MUSCLES = (
    ("legs", ("squats", "lunges", "glute bridges")),
    ("core", ("planks", "dead bugs", "bird dogs")),
    ("upper body", ("push ups", "chair dips", "shoulder taps")),
    ("back", ("supermans", "reverse snow angels", "band rows")),
    ("full body", ("burpees", "mountain climbers", "jump squats")),
    ("shoulders", ("pike push ups", "arm circles", "wall slides")),

    ("glutes", ("glute bridges", "donkey kicks", "side lying leg raises")),
    ("arms", ("diamond push ups", "tricep dips", "plank up downs")),
)


def _workout_view(s: Slots) -> Slots:
    focus, moves = s["focus"]  # type: ignore[misc]
    minutes = int(s["minutes"])  # type: ignore[arg-type]
    rounds = max(2, minutes // 7)
    work = 40 if minutes >= 20 else 30
    return {
        "focus": focus,
        "move1": moves[0],
        "move2": moves[1],
        "move3": moves[2],
        "rounds": rounds,
        "rounds_w": number_words(rounds),
        "work": work,
        "rest": 60 - work,
        "warmup": 3 if minutes <= 15 else 5,
        "minutes_w": number_words(minutes),
    }


FITNESS_WORKOUT = Scenario(
    domain="fitness",
    slots={"focus": choice_of(MUSCLES), "minutes": int_between(10, 35, 5), "place": choice_of(("at home", "in the park", "in a hotel room", "in my living room", "at the office"))},
    derive=_workout_view,
    request=(
        "Give me a {minutes} minute {focus} workout I can do {place}.",
        "I've only got {minutes} minutes. Can you put together a {focus} workout for me {place}?",
        "What's a good {focus} routine, about {minutes} minutes, no equipment, {place}?",
        "Can you coach me through a quick {focus} session {place}? Around {minutes} minutes.",
    ),
    answer=(
        (
            "[Sure|You got it|Okay], here's a {minutes} minute {focus} workout you can do {place}.",
            "[Let's do it|Alright], {minutes_w} minutes of {focus} work {place}, no equipment needed.",
        ),
        (
            "[Start with|Begin with|Open with] {warmup} minutes of easy movement[, like marching on the spot and arm swings|, just to warm up|].",
            "[Warm up|Get loose] for {warmup} minutes first[, because cold muscles don't like {move1}|; it makes the {focus} work feel much better].",
        ),
        (
            "The circuit is {move1}, {move2} and {move3}[, in that order|, one after the other|].",
            "[Your three moves are|We'll rotate through] {move1}, then {move2}, then {move3}.",
        ),
        (
            "Do each [move|exercise] for {work} seconds, then rest for {rest} seconds[ before the next one|].",
            "[Work|Go] for {work} seconds [on each|per exercise] and [take|grab] {rest} seconds of rest [in between|after each one].",
        ),
        (
            "[Repeat the circuit|Go through it] {rounds_w} times, [which fills your {minutes} minutes nicely|and you're done|to finish the session].",
            "[Aim for|Try to get through] {rounds} rounds[, resting a minute between them if you need to|, keeping good form on the {move1}|].",
        ),
        (
            "[Finish|End] with a [minute or two|couple of minutes] of stretching for your {focus}[, and drink some water|].",
            "[Want me to|Should I|I can also] count you through the {focus} circuit, [or set interval timers|or just start a {minutes} minute timer] if you like.",
        ),
    ),
    corrections=(
        Correction("minutes", "{minutes} minutes", user=("Actually, I only have {minutes} minutes.", "Make that {minutes} minutes, sorry.")),
        Correction(
            "focus",
            "{focus}",
            user=("Oh, can we do {focus} instead of {old_focus}?", "Actually, I'd rather work on {focus}."),
            ack=("[Sure|Okay|No problem], {focus} [instead|it is], [new moves coming up|let me swap the exercises].",),
        ),
    ),
    topic=("your {focus} workout", "the {minutes} minute workout", "the {focus} circuit"),
)

SCENARIOS: tuple[Scenario, ...] = (
    WEATHER_FORECAST,
    WEATHER_ACTIVITY,
    TRAVEL_PLAN,
    TRAVEL_PACKING,
    SPORTS_START,
    SPORTS_PARTY,
    FITNESS_RACE,
    FITNESS_WORKOUT,
)

__all__ = ["SCENARIOS", "CONDITIONS", "weather_view", "TEAMS", "SPORTS", "CITIES", "WEEKDAYS"]
