"""A second scenario per domain family: comparisons, budgets, rules and plans with computed numbers."""

from __future__ import annotations

import math
from typing import NamedTuple

from generators.harness.weather import degrees

from .engine import Correction, Scenario, Slots, choice_of, int_between, money, number_words, offer, seed_slot, spoken_time
from .ex_outdoors import weather_view
from .values import CITY_BY_NAME, CITY_NAMES, DAYS, FIRST_NAMES

# =========================================================================== weather: compare two cities


def _compare_view(s: Slots) -> Slots:
    a = weather_view({"city": s["city"], "day": s["day"], "seed": s["seed"]})
    b = weather_view({"city": s["city2"], "day": s["day"], "seed": s["seed"]})
    ha, hb = int(a["high_n"]), int(b["high_n"])  # type: ignore[arg-type]
    diff = abs(ha - hb)
    if diff == 0:
        warmer = f"both cities top out at {degrees(ha)} degrees"
    else:
        w, c = (s["city"], s["city2"]) if ha > hb else (s["city2"], s["city"])
        warmer = f"{w} is {number_words(diff)} {'degree' if diff == 1 else 'degrees'} warmer than {c}"
    ra, rb = int(a["rain"]), int(b["rain"])  # type: ignore[arg-type]
    drier = s["city"] if ra < rb else s["city2"] if rb < ra else ""
    drier_s = f"{drier} is the drier bet" if drier else "they're level on rain"
    return {
        "day": a["day"], "day_on": a["day_on"],
        "cond_a": a["cond"], "cond_b": b["cond"], "high_a": degrees(ha), "high_b": degrees(hb),
        "low_a": a["low"], "low_b": b["low"], "rain_a": ra, "rain_b": rb,
        "wind_a": a["wind"], "wind_b": b["wind"], "warmer": warmer, "drier_s": drier_s,
        "gear_a": a["gear"], "gear_b": b["gear"],
    }


def _other_city(rng) -> str:  # type: ignore[no-untyped-def]
    return str(CITY_NAMES[int(rng.integers(len(CITY_NAMES)))])


WEATHER_COMPARE = Scenario(
    domain="weather",
    slots={"city": choice_of(CITY_NAMES), "city2": _other_city, "day": choice_of(DAYS), "seed": seed_slot},
    derive=_compare_view,
    request=(
        "Which will be nicer {day}, {city} or {city2}?",
        "Can you compare the weather in {city} and {city2} {day_on}?",
        "I could go to {city} or {city2} {day_on}. Where's the weather better?",
        "How does {city} look against {city2} {day_on}, weather wise?",
    ),
    answer=(
        (
            "[Sure|Okay|Let's compare], {city} against {city2} {day_on}[, here's how they stack up|].",
            "[Good question|Alright], [comparing|putting side by side] {city} and {city2} for {day}.",
            "[Right|So], {day_on} the short answer is that {warmer}.",
            "[Let me line them up|Here goes]: {city} versus {city2}, {day}.",
        ),
        (
            "{city} [gets|is looking at|should have] {cond_a}, with a high of {high_a} and a low of {low_a}.",
            "[In {city}|Over in {city}] [you'd get|expect] {cond_a}, [peaking at|topping out around] {high_a} degrees.",
            "[First|Starting with] {city}: {cond_a}, [from {low_a} up to {high_a} degrees|{high_a} at the warmest].",
            "The {city} forecast [says|shows] {cond_a} and {high_a} degrees at the [warmest|peak].",
        ),
        (
            "{city2}, [meanwhile|on the other hand], [has|gets] {cond_b}, [with|and] a high of {high_b}.",
            "[Over in {city2}|Meanwhile in {city2}], [it's|there's] {cond_b}, [topping out at|with highs near] {high_b} degrees.",
            "[As for|And] {city2}: {cond_b}, [between {low_b} and {high_b} degrees|topping out at {high_b}].",
            "{city2} [looks like|is set for] {cond_b}, [with temperatures|running] from {low_b} to {high_b}.",
        ),
        (
            "[Temperature wise|On warmth alone|If warmth is what matters], {warmer}.",
            "[So on temperature|Comparing the highs], {warmer}[ {day_on}|].",
        ),
        (
            "Rain chances are {rain_a} percent in {city} and {rain_b} percent in {city2}.",
            "[For rain|On the rain front], {city} [sits at|has] {rain_a} percent and {city2} {rain_b} percent.",
            "[If staying dry matters|On rain alone], {drier_s}, [at|with] {rain_a} percent in {city} and {rain_b} in {city2}.",
        ),
        (
            "[Wind wise|For wind], it's about {wind_a} kilometres an hour in {city} and {wind_b} in {city2}.",
            "{city} [sees|gets] winds around {wind_a} kilometres an hour, [while|whereas] {city2} [gets|sees] about {wind_b}.",
        ),
        (
            "[If you pick {city}|For {city}], [pack|take] {gear_a}[, and for {city2}, {gear_b}|].",
            *offer("[check|compare] the hourly [forecast|breakdown] for {city} and {city2}", ", if it helps you decide"),
        ),
    ),
    corrections=(
        Correction("city2", "{city2}", user=("Oh, sorry, not {old_city2}, I meant {city2}.", "Actually, compare it with {city2} instead.")),
        Correction("city", "{city}", user=("Wait, I meant {city} instead of {old_city}.",)),
        Correction("day", "{day}", user=("Actually, I'm going {day_on}, not {old_day}.", "Sorry, it's for {day}.")),
    ),
    topic=("{city} versus {city2}", "the comparison of {city} and {city2}", "the weather in {city} and {city2}"),
)

# =========================================================================== travel: trip budget

HOTEL_TIERS = (("a hostel", 35), ("a simple guesthouse", 70), ("a mid range hotel", 130), ("a boutique hotel", 210), ("a luxury hotel", 380))


def _budget_trip_view(s: Slots) -> Slots:
    city = CITY_BY_NAME[str(s["city"])]
    n = int(s["nights"])  # type: ignore[arg-type]
    tier, nightly = s["hotel"]  # type: ignore[misc]
    people = int(s["people"])  # type: ignore[arg-type]
    food = int(s["food"])  # type: ignore[arg-type]
    rooms = math.ceil(people / 2)
    stay = nightly * n * rooms
    eat = food * (n + 1) * people
    extras = 25 * (n + 1) * people
    total = stay + eat + extras
    return {
        "hotel": tier, "nightly": nightly, "rooms": rooms, "rooms_w": number_words(rooms),
        "rooms_s": "room" if rooms == 1 else "rooms", "stay": money(stay), "eat": money(eat),
        "extras": money(extras), "total": money(total), "each": money(total / people),
        "people_w": number_words(people), "nights_w": number_words(n), "days": n + 1,
        "food_s": city.food, "sight1": city.sights[0],
    }


TRAVEL_BUDGET = Scenario(
    domain="travel",
    slots={
        "city": choice_of(CITY_NAMES),
        "nights": int_between(2, 10),
        "hotel": choice_of(HOTEL_TIERS),
        "people": int_between(2, 6),
        "food": int_between(30, 90, 5),
    },
    derive=_budget_trip_view,
    request=(
        "How much would {nights} nights in {city} cost for {people} of us, staying in {hotel}?",
        "Can you estimate a budget for {city}? {people} people, {nights} nights, {hotel}, about {food} dollars a day each on food.",
        "We're {people} going to {city} for {nights} nights. Roughly what will it cost if we stay in {hotel}?",
        "Help me budget a {nights} night trip to {city} for {people}, {hotel}, {food} a day for food.",
    ),
    answer=(
        (
            "[Sure|Let's add it up|Okay], here's a rough budget for {nights_w} nights in {city} for {people_w}.",
            "[Happy to|Alright], [estimating|working out] {city} for {people} people over {nights} nights.",
            "[Right|Okay], a {nights} night trip to {city} with {people_w} [of you|travellers] [breaks down like this|comes out roughly like this].",
            "[Good idea to plan ahead|Smart], so for {city}, {nights_w} nights, {people} [people|of you], [here goes|this is the rough picture].",
        ),
        (
            "[Staying in|For] {hotel} at about {nightly} dollars a night, [you'll need|that's] {rooms_w} {rooms_s}, so {stay} [for the stay|in total].",
            "[Accommodation|The hotel part] [comes to|is about] {stay}: {rooms_w} {rooms_s} at {nightly} dollars for {nights} nights.",
            "{hotel} [runs|costs] around {nightly} dollars a night, [and with|so with] {rooms} {rooms_s} over {nights} nights that's {stay}.",
            "[Budget|Plan on] {stay} for {hotel}, [which is|based on] {rooms_w} {rooms_s} at roughly {nightly} a night.",
        ),
        (
            "[Food at|Eating for] {food} dollars a day each adds {eat} over {days} days.",
            "[For food|Meals], {food} dollars a head [each day|per day] [comes to|adds up to] {eat}[, and that includes trying the {food_s}|].",
            "[Plan|Set aside] {eat} for food, [that's|which is] {food} dollars a day per person for {days} days.",
        ),
        (
            "[I'd add|Allow] about 25 dollars a day each for transport and tickets, so {extras}[, which should cover {sight1}|].",
            "[Transport and sights|Getting around plus entry fees] [might be|could run to] {extras}[, at about 25 dollars a day each|].",
        ),
        (
            "[All in|Altogether|In total], that's about {total}, or {each} per person.",
            "[The grand total|Everything together] [comes to|lands around] {total}, [so|which is] {each} each.",
            "[That makes|You're looking at] roughly {total} for the trip, {each} per person[ before flights|].",
        ),
        (
            *offer("[save|keep] this {city} budget [so we can tweak it later|for later]", ""),
            "[Flights aren't included|This doesn't include flights], so [tell me where you're flying from|let me know your departure city] and I'll [add them|check fares to {city}].",
        ),
    ),
    corrections=(
        Correction("nights", "{nights} nights", user=("Actually, it's {nights} nights, not {old_nights}.", "Make that {nights} nights.")),
        Correction(
            "hotel",
            "{hotel}",
            user=("Hmm, let's say {hotel} instead.", "Actually, we'll probably do {hotel}."),
            ack=("[Okay|Sure], {hotel} [instead|then][, let me redo the numbers|].",),
        ),
        Correction(
            "people",
            "{people} people",
            user=("Oh, there'll be {people} of us now.", "Sorry, it's {people} people, not {old_people}."),
            ack=("[Got it|Okay], {people_w} [people|travellers] [then|now][, recalculating|].",),
        ),
    ),
    topic=("the {city} budget", "your trip budget", "the cost of {city}"),
)

# =========================================================================== sports: scoring rules


class Rules(NamedTuple):
    sport: str
    win: str
    unit: str
    detail: str
    quirk: str
    length: str


RULES: tuple[Rules, ...] = (
    Rules("tennis", "win six games to take a set, and usually two sets to win the match", "points go love, fifteen, thirty, forty, then game",
          "at forty all it's called deuce, and you need two points in a row to win the game", "a set that reaches six games all is usually settled by a tie break", "anything from an hour to several hours"),
    Rules("badminton", "be first to 21 points in a game, and win two games out of three", "every rally scores a point, whoever served",
          "if it's 20 all, you need a two point lead, up to a cap of 30", "the shuttle has to land inside the lines, and it's out if it touches the net post", "about 45 minutes"),
    Rules("table tennis", "reach 11 points first with a two point lead", "every rally is a point and the serve switches every two points",
          "at ten all, the serve switches after every single point", "the serve has to bounce once on your side and once on theirs", "about half an hour"),
    Rules("volleyball", "win 25 points in a set, with a two point lead, and usually three sets", "every rally scores and the winning team serves next",
          "each team gets three touches to return the ball", "the deciding fifth set only goes to 15 points", "about an hour and a half"),
    Rules("basketball", "score more points than the other team by the end of four quarters", "baskets count two points, or three from beyond the arc",
          "free throws after a foul are worth one point each", "a tie at the end means a five minute overtime period", "about two hours including breaks"),
    Rules("squash", "reach 11 points first, winning by two, usually best of five games", "every rally scores regardless of who served",
          "the ball must hit the front wall above the tin on every shot", "you have to let your opponent get to the ball, or it's a let or a stroke", "around 45 minutes"),
    Rules("golf", "finish the round in the fewest strokes", "each hole has a par, the number of strokes a good player should need",
          "one under par on a hole is a birdie, and one over is a bogey", "in match play you win holes instead of counting the total", "four hours or more for eighteen holes"),
    Rules("rugby", "score more points than the other team across two halves", "a try is worth five points and the conversion kick adds two more",
          "a penalty kick or a drop goal through the posts is worth three", "you can only pass the ball backwards", "about eighty minutes plus stoppages"),
    Rules("cricket", "score more runs than the other team", "runs come from running between the wickets, or four and six for boundaries",
          "a batter is out if bowled, caught, or run out, among other ways", "a test match can last up to five days", "anything from three hours to five days"),
    Rules("ice hockey", "score more goals than the other team over three periods", "each goal counts for one",
          "a minor penalty sends a player off for two minutes", "a tie can go to overtime and then a shootout", "about two and a half hours"),
    Rules("darts", "get your score from 501 down to exactly zero", "each throw scores the number you hit, doubled or tripled in the outer rings",
          "you have to finish on a double", "the bullseye in the middle is worth fifty", "as long as the players take"),
    Rules("pickleball", "reach 11 points with a two point lead", "only the serving side can score a point",
          "the ball must bounce once on each side before anyone volleys", "you can't volley from the kitchen, the zone near the net", "about twenty minutes a game"),

    Rules("baseball", "score more runs than the other team across nine innings", "a run scores when a batter makes it all the way round the four bases",
          "three strikes and the batter is out, and three outs ends a team's half of the inning", "a ball hit over the outfield fence is a home run", "about three hours"),
    Rules("snooker", "score more points than your opponent by potting balls", "reds are worth one, and the colours go from two for yellow up to seven for black",
          "after each red you pot, you try to pot a colour", "fouls give points to your opponent", "anything from half an hour to much longer"),
    Rules("netball", "score more goals than the other team over four quarters", "each goal counts for one and can only come from inside the shooting circle",
          "you can't move with the ball or hold it for more than three seconds", "each position is only allowed in certain zones of the court", "about an hour"),
    Rules("American football", "score more points than the other team across four quarters", "a touchdown is worth six points, and a field goal three",
          "the offence has four downs to move the ball ten yards", "after a touchdown, a team can kick for one point or go for two", "about three hours"),
)
RULES_BY_SPORT = {r.sport: r for r in RULES}


def _rules_view(s: Slots) -> Slots:
    r = RULES_BY_SPORT[str(s["sport"])]
    return {"win": r.win, "unit": r.unit, "detail": r.detail, "quirk": r.quirk, "length": r.length}


SPORTS_RULES = Scenario(
    domain="sports",
    slots={"sport": choice_of(tuple(RULES_BY_SPORT)), "friend": choice_of(FIRST_NAMES)},
    derive=_rules_view,
    request=(
        "How does scoring work in {sport}?",
        "Can you explain the rules of {sport}? {friend} keeps trying to explain and I'm lost.",
        "I'm watching {sport} with {friend} tonight. What do I need to know about the scoring?",
        "What are the basic rules of {sport}?",
    ),
    answer=(
        (
            "[Sure|Happy to|Of course], {sport} is [simpler than it looks|easy once it clicks|fun to follow once you know the scoring].",
            "[Okay|Right], [here's|let me give you] {sport} in a nutshell[, so you can keep up with {friend}|].",
            "[Good question|No problem], the [basics|core rules] of {sport} [only take a minute|are quick to explain].",
        ),
        (
            "[To win|The aim is to|Basically, you] {win}.",
            "[In {sport}, the goal is to|The way to win at {sport} is to] {win}.",
            "[The big picture|Overall]: in {sport} you {win}.",
        ),
        (
            "[As for scoring|Scoring wise|When it comes to points], {unit}.",
            "[The scoring goes like this|Here's how points work in {sport}]: {unit}.",
            "[In terms of points, it's|The counting is] [simple|straightforward]: {unit}.",
        ),
        (
            "[The tricky part is that|One thing that confuses people|Worth knowing]: {detail}.",
            "[Also|On top of that|Then], {detail}[ in {sport}|].",
        ),
        (
            "[A fun quirk|A rule people forget|Something that surprises beginners] is that {quirk}.",
            "[Oh, and|Also worth knowing,] {quirk}[ in {sport}|].",
        ),
        (
            "[A typical game|A match] [lasts|takes] {length}, [so get comfy|so grab some snacks|which helps you plan the evening].",
            "[Expect|Plan for] {length} of {sport}[ if you're watching the whole thing|].",
        ),
        (
            "[Have fun watching with {friend}|Enjoy the {sport}], and [ask me|shout] if [any rule|anything] [seems odd|doesn't make sense] [during the game|as you watch].",
            *offer("explain a {sport} rule whenever something confusing happens", " while you watch"),
        ),
    ),
    corrections=(
        Correction(
            "sport",
            "{sport}",
            user=("Oh sorry, I meant {sport}, not {old_sport}.", "Actually, it's {sport} we're watching."),
            ack=("[Ah|Oh], {sport}[, okay|, got it]. [Totally different scoring|Different rules then].",),
        ),
    ),
    topic=("the rules of {sport}", "{sport} scoring", "how {sport} works"),
)

# =========================================================================== fitness: rep progression

MOVES = (
    ("push ups", "reps"), ("squats", "reps"), ("pull ups", "reps"), ("sit ups", "reps"),
    ("lunges", "reps per leg"), ("burpees", "reps"), ("dips", "reps"), ("jumping jacks", "reps"),

    ("mountain climbers", "reps"), ("box jumps", "reps"), ("calf raises", "reps"),
)


def _reps_view(s: Slots) -> Slots:
    move, unit = s["move"]  # type: ignore[misc]
    now = int(s["now"])  # type: ignore[arg-type]
    goal = int(s["goal"])  # type: ignore[arg-type]
    if goal <= now:
        goal = now + 10
    days = int(s["days"])  # type: ignore[arg-type]
    inc = max(1, round(now * 0.1)) if days >= 3 else max(1, round(now * 0.07))
    weeks = math.ceil((goal - now) / (inc * 1.0))
    sets = 3 if now < 20 else 4
    per_set = max(1, round(now * 0.6))
    return {
        "move_s": move, "unit": unit, "goal_v": goal, "inc": inc, "weeks": weeks, "weeks_w": number_words(weeks),
        "sets": sets, "sets_w": number_words(sets), "per_set": per_set, "days_w": number_words(days),
        "gap": goal - now,
    }


FITNESS_REPS = Scenario(
    domain="fitness",
    slots={"move": choice_of(MOVES), "now": int_between(3, 40), "goal": int_between(20, 100, 5), "days": int_between(2, 5)},
    derive=_reps_view,
    request=(
        "I can do {now} {move_s} in a row. How do I get to {goal_v}?",
        "Can you make me a plan to go from {now} to {goal_v} {move_s}? I can train {days} days a week.",
        "How long would it take to build up to {goal_v} {move_s}? Right now I max out at {now}.",
        "I want to hit {goal_v} {move_s} and I'm at {now}. Training {days} days a week, what's the plan?",
    ),
    answer=(
        (
            "[Great goal|Nice|Let's do it], going from {now} to {goal_v} {move_s} is [very doable|a solid target] with {days_w} sessions a week.",
            "[Okay|Sure], {gap} more {move_s} to go, [so here's a plan|let's build you a plan].",
            "[Love it|Good challenge], {goal_v} {move_s} is [within reach|a realistic goal] from {now}.",
        ),
        (
            "[Each session|On training days], do {sets_w} sets of {per_set} {move_s} with a minute of rest between sets.",
            "[Start with|Your base workout is] {sets} sets of {per_set}[, which is about sixty percent of your max|, resting a minute in between].",
            "[Train|Work] {days_w} days a week, [doing|with] {sets_w} sets of {per_set} {move_s} each time.",
        ),
        (
            "[Every week|Each week], [add|try to add] about {inc} to your max[, and the sets grow with it|].",
            "[Aim to|Try to] [raise|push] your max by {inc} {move_s} [a week|per week][, which is steady but sustainable|].",
        ),
        (
            "At that rate you'd [reach|hit] {goal_v} in about {weeks_w} weeks.",
            "[That puts|So that's] {goal_v} {move_s} roughly {weeks} weeks away[, give or take|].",
            "[Doing the maths|If you keep that pace], {weeks_w} weeks gets you to {goal_v}.",
        ),
        (
            "[Form first|Quality matters more than numbers]: if your {move_s} [get sloppy|start to break down], stop the set there.",
            "[Rest at least a day between sessions|Take a rest day between sessions] [so your muscles can recover|because that's when you get stronger].",
        ),
        (
            *offer("[log|track] your {move_s} each week and [tell you|remind you] the next target", ""),
            "[Test|Retest] your max [every two weeks|every fortnight] and [tell me the number|let me know], [and I'll adjust|then we'll update the plan].",
        ),
    ),
    corrections=(
        Correction(
            "goal",
            "{goal_v}",
            user=("Actually, let's aim for {goal_v}.", "Sorry, I meant {goal_v} {move_s}, not {old_goal_v}."),
            ack=("[Okay|Sure], {goal_v} it is[, new timeline coming|].",),
        ),
        Correction(
            "move",
            "{move_s}",
            user=("Oh, I meant {move_s}, not {old_move_s}.",),
            ack=("[Ah|Oh], {move_s}[, okay|, sure], same approach.",),
        ),
        Correction("days", "{days} days a week", user=("Realistically I can only train {days} days a week.",)),
    ),
    topic=("your {move_s} plan", "getting to {goal_v} {move_s}", "the {move_s} progression"),
)

# =========================================================================== cooking: meal prep


class Prep(NamedTuple):
    name: str
    base: str
    protein: str
    veg: str
    cost: float  # per portion
    keeps: int  # days in the fridge
    sauce: str


PREPS: tuple[Prep, ...] = (
    Prep("grain bowls", "brown rice", "roasted chickpeas", "roast sweet potato and kale", 3.20, 4, "a lemon tahini dressing"),
    Prep("chicken burrito bowls", "coriander lime rice", "spiced chicken thighs", "black beans, corn and peppers", 3.80, 4, "a quick tomato salsa"),
    Prep("pasta salads", "wholewheat fusilli", "tinned tuna", "cherry tomatoes, cucumber and olives", 2.60, 3, "a mustard vinaigrette"),
    Prep("noodle boxes", "soba noodles", "marinated tofu", "edamame, carrot and cabbage", 3.10, 4, "a sesame ginger sauce"),
    Prep("lentil curry pots", "basmati rice", "red lentils", "spinach and cauliflower", 2.20, 5, "a coconut curry sauce"),
    Prep("salmon and quinoa boxes", "quinoa", "baked salmon", "broccoli and green beans", 5.10, 3, "a yogurt herb sauce"),
    Prep("turkey chilli tubs", "long grain rice", "lean turkey mince", "kidney beans and peppers", 3.40, 5, "a smoky tomato sauce"),
    Prep("mezze boxes", "couscous", "falafel", "roasted peppers, cucumber and hummus", 2.90, 4, "a garlic yogurt dip"),
    Prep("egg fried rice tubs", "day old rice", "scrambled egg", "peas, carrot and spring onion", 1.90, 3, "a soy and chilli drizzle"),
    Prep("pesto chicken boxes", "roast potatoes", "pesto chicken", "green beans and cherry tomatoes", 3.60, 4, "extra pesto"),

    Prep("overnight oat jars", "rolled oats", "Greek yogurt", "berries and grated apple", 1.40, 4, "a drizzle of honey"),
    Prep("Greek chicken boxes", "orzo", "lemon oregano chicken", "cucumber, tomato and red onion", 3.90, 4, "tzatziki"),
    Prep("veggie frittata squares", "sliced potato", "eggs and feta", "spinach and peppers", 1.80, 4, "a spoonful of chutney"),
    Prep("beef and broccoli bowls", "jasmine rice", "sliced beef", "broccoli and carrots", 4.40, 3, "a garlic soy glaze"),
    Prep("soup flasks", "vegetable soup", "white beans", "carrot, leek and celery", 1.60, 5, "a swirl of pesto"),
)
PREP_BY_NAME = {p.name: p for p in PREPS}


def _prep_view(s: Slots) -> Slots:
    p = PREP_BY_NAME[str(s["prep"])]
    n = int(s["portions"])  # type: ignore[arg-type]
    freeze = max(0, n - p.keeps)
    return {
        "base": p.base, "protein": p.protein, "veg": p.veg, "sauce": p.sauce,
        "cost": money(p.cost * n), "unit_cost": money(p.cost), "keeps_w": number_words(p.keeps),
        "freeze": freeze, "freeze_w": number_words(freeze), "portions_w": number_words(n),
        "hours": "about an hour" if n <= 5 else "about an hour and a half",
        "freeze_note": (f"you'll want to freeze {number_words(freeze)} of them and thaw one the night before"
                        if freeze else "you won't need to freeze any of them"),
    }


COOKING_PREP = Scenario(
    domain="cooking",
    slots={"prep": choice_of(tuple(PREP_BY_NAME)), "portions": int_between(3, 10), "day": choice_of(("Sunday", "Saturday", "Monday evening", "Friday night"))},
    derive=_prep_view,
    request=(
        "I want to meal prep {portions} lunches this week. Can you help me make {prep}?",
        "How would I batch cook {prep}? I need {portions} portions.",
        "Can you plan a {day} meal prep? {portions} portions of {prep}.",
        "I'm thinking {prep} for my lunches, {portions} of them. Where do I start?",
    ),
    answer=(
        (
            "[Great plan|Love it|Smart move], {portions_w} portions of {prep} [takes|needs] {hours} on {day}.",
            "[Sure|Okay], {prep} [are perfect for|work really well for] meal prep, and {portions} portions is [easy|very manageable].",
            "[Nice|Good choice], let's batch {portions_w} {prep}[, it's mostly oven time|].",
        ),
        (
            "[The base is|Start with|Cook a big batch of] {base}[, enough for {portions} portions|].",
            "[For the base|Underneath everything], [cook|make] {base} [first|while the oven heats up].",
        ),
        (
            "[For protein|The protein is|Add] {protein}, [and for veg|with] {veg}.",
            "[Pair that with|Top it with] {protein} and {veg}[ for a balanced box|].",
            "{protein} [goes with|sits alongside] {veg}[, and that's the bulk of each box|].",
        ),
        (
            "[Keep|Pack] {sauce} in small pots [on the side|separately] so nothing goes soggy.",
            "[The secret is|Don't skip] {sauce}, [stored separately|kept in a little jar] until you eat.",
        ),
        (
            "[They keep for|In the fridge they last] about {keeps_w} days, so {freeze_note}.",
            "[Fridge life|Shelf life] is [roughly|around] {keeps_w} days for {prep}, [which means|so] {freeze_note}.",
        ),
        (
            "[Cost wise|On price], that's about {unit_cost} a portion, or {cost} for all {portions_w}.",
            "[The whole batch|All {portions} portions] [should cost|comes to] [about|roughly] {cost}, [just|only] {unit_cost} each.",
        ),
        (
            *offer("[make|write] a shopping list for {portions} portions of {prep}", ""),
            "[I can|Happy to] [remind you|nudge you] on {day} to start the {prep}[, if you like|].",
        ),
    ),
    corrections=(
        Correction(
            "portions",
            "{portions} portions",
            user=("Actually, make it {portions} portions.", "Sorry, I need {portions}, not {old_portions}."),
            ack=("[Okay|Sure], {portions_w} portions[, let me rescale|, new numbers then].",),
        ),
        Correction(
            "prep",
            "{prep}",
            user=("Hmm, let's do {prep} instead.", "Actually, I'd rather make {prep}."),
            ack=("[Ooh|Sure|Good call], {prep} [instead|then|it is].",),
        ),
    ),
    topic=("your meal prep", "the {prep}", "the {day} batch cook"),
)

# =========================================================================== restaurants: tipping abroad


class TipCustom(NamedTuple):
    country: str
    rule: str
    pct: int
    how: str
    note: str


TIPPING: tuple[TipCustom, ...] = (
    TipCustom("the United States", "tipping is expected, usually 18 to 20 percent at sit down restaurants", 20, "add it on the card slip or the payment screen", "servers rely on tips for much of their pay"),
    TipCustom("Japan", "tipping isn't part of the culture and can even cause confusion", 0, "just pay the bill at the counter", "a polite thank you is the best tip"),
    TipCustom("France", "service is included by law, so tipping is optional", 5, "leave a few coins or round up", "the phrase service compris on the menu means it's already covered"),
    TipCustom("the United Kingdom", "a service charge of about 12 and a half percent is often added", 10, "check the bill first, and if there's no service charge, leave about ten percent", "you can ask for the service charge to be removed if service was poor"),
    TipCustom("Italy", "a coperto or cover charge is common, and tips are small", 5, "round up or leave a couple of euros", "the cover charge pays for bread and the table"),
    TipCustom("Germany", "people usually round up or add five to ten percent", 10, "tell the server the total you want to pay rather than leaving money on the table", "saying stimmt so means keep the change"),
    TipCustom("Canada", "tipping is expected, usually 15 to 20 percent", 18, "add it on the card machine", "tax is added on top of menu prices, so tip on the pre tax amount"),
    TipCustom("Australia", "tipping isn't expected, but ten percent is welcome for great service", 10, "round up or leave a little cash", "staff earn a full wage without tips"),
    TipCustom("Mexico", "a tip of 10 to 15 percent is normal", 12, "leave cash if you can, since it reaches the server directly", "say la cuenta, por favor to ask for the bill"),
    TipCustom("Spain", "tipping is modest, often just rounding up", 5, "leave a few coins on the plate", "the bill won't come until you ask for it"),
    TipCustom("South Korea", "tipping isn't customary", 0, "simply pay at the counter on the way out", "some upscale hotels add a service charge"),
    TipCustom("Egypt", "small tips, called baksheesh, are part of daily life", 10, "leave around ten percent in cash, on top of any service charge", "having small notes handy makes it much easier"),

    TipCustom("Portugal", "tips are appreciated but modest, around five to ten percent", 8, "leave some coins or round up the bill", "small cafes rarely expect anything"),
    TipCustom("Thailand", "tipping isn't required, but small tips are common in tourist areas", 5, "leave the change or a small note", "many restaurants add a ten percent service charge already"),
    TipCustom("Brazil", "a ten percent service charge is usually on the bill", 0, "check the bill for the serviço line before adding anything", "extra tips are only for exceptional service"),
    TipCustom("Ireland", "about ten to fifteen percent is normal in sit down restaurants", 12, "add it on the card machine or leave cash", "nobody tips at the bar in a pub"),
)
TIP_BY_COUNTRY = {t.country: t for t in TIPPING}


def _tipping_view(s: Slots) -> Slots:
    t = TIP_BY_COUNTRY[str(s["country"])]
    bill = int(s["bill"])  # type: ignore[arg-type]
    tip = bill * t.pct / 100
    return {
        "rule": t.rule, "how": t.how, "note": t.note, "pct": t.pct,
        "tip": money(tip) if tip else "nothing extra", "with_tip": money(bill + tip),
    }


RESTAURANT_TIPPING = Scenario(
    domain="restaurants",
    slots={"country": choice_of(tuple(TIP_BY_COUNTRY)), "bill": int_between(20, 240, 5)},
    derive=_tipping_view,
    request=(
        "How much should I tip at restaurants in {country}? Our bill is about {bill}.",
        "What's the tipping etiquette in {country}?",
        "We're eating out in {country} and the bill is {bill}. Do I tip?",
        "Do people tip in {country}? We've got a {bill} dollar bill.",
    ),
    answer=(
        (
            "[Good question|Great that you asked|Sure], in {country}, {rule}.",
            "[Tipping in {country} is|In {country}, the custom is] [pretty simple|worth knowing]: {rule}.",
            "[So|Okay], for {country}, {rule}.",
        ),
        (
            "[On a bill of {bill} dollars|For your {bill} dollar bill], [a typical tip would be|that means] {tip}.",
            "[With a {bill} dollar bill|For {bill} dollars], [I'd leave|plan on] {tip}, [for a total of {with_tip}|making it {with_tip} altogether].",
            "[The maths|In numbers]: {bill} dollars plus {tip} [comes to|makes] {with_tip}.",
        ),
        (
            "[As for how|The usual way is to|Practically], {how}.",
            "[When you pay in {country}|At the end of the meal], {how}.",
        ),
        (
            "[Worth knowing|Fun fact|A useful tip]: {note}.",
            "[Also|One more thing about {country}], {note}.",
        ),
        (
            "[If the service was exceptional|For really great service], [a bit more is always appreciated|feel free to go a little higher] in {country}.",
            "[Of course|Either way], [it's your call|trust your judgement] if service in {country} [was poor|wasn't great].",
        ),
        (
            *offer("[work out|calculate] the tip on the exact bill when it comes", ""),
            "[If you tell me|Just read me] the final bill, [and I'll|I can] [do the maths|work out the tip] [for {country}|in a second].",
        ),
    ),
    corrections=(
        Correction(
            "country",
            "{country}",
            user=("Oh wait, we're in {country}, not {old_country}.", "Sorry, I meant {country}."),
            ack=("[Ah|Oh], {country}[, that's different|, okay].",),
        ),
        Correction("bill", "{bill} dollars", user=("Actually, the bill came to {bill}.", "Sorry, it's {bill}, not {old_bill}.")),
    ),
    topic=("tipping in {country}", "the tip on your bill", "the etiquette in {country}"),
)

# =========================================================================== shopping: buy or rent

RENTALS = (
    ("carpet cleaner", 350, 35), ("power drill", 120, 15), ("tall ladder", 220, 20), ("projector", 600, 45),
    ("camping tent", 280, 30), ("pressure washer", 300, 40), ("tuxedo", 450, 90), ("kayak", 800, 55),
    ("tile cutter", 180, 25), ("party speaker", 400, 50), ("hedge trimmer", 160, 20), ("stand up paddle board", 700, 50),

    ("steam cleaner", 250, 30), ("wedding dress", 1500, 180), ("electric bike", 1800, 60),
    ("lawn aerator", 400, 45), ("snowboard", 500, 40), ("cargo trailer", 1200, 70),
)


def _rent_view(s: Slots) -> Slots:
    item, buy, rent = s["item"]  # type: ignore[misc]
    uses = int(s["uses"])  # type: ignore[arg-type]
    days = int(s["days"])  # type: ignore[arg-type]
    rent_total = rent * days * uses
    break_even = math.ceil(buy / (rent * days))
    verdict = "renting is the better deal" if rent_total < buy else "buying pays off"
    return {
        "uses_s": {1: "once", 2: "twice"}.get(uses, f"{uses} times"),
        "item_s": item, "buy": buy, "rent": rent, "rent_total": money(rent_total),
        "break_even": break_even, "break_even_w": number_words(break_even), "verdict": verdict,
        "uses_w": number_words(uses), "days_s": "a day" if days == 1 else f"{number_words(days)} days",
        "saving": money(abs(buy - rent_total)),
    }


SHOPPING_RENT = Scenario(
    domain="shopping",
    slots={"item": choice_of(RENTALS), "uses": int_between(1, 8), "days": int_between(1, 3)},
    derive=_rent_view,
    request=(
        "Should I buy or rent a {item_s}? I'd use it about {uses_s} a year, {days_s} each time.",
        "Is it worth buying a {item_s}, or is renting cheaper? Maybe {uses_s} a year.",
        "Buy or rent a {item_s} if I need it {uses_s} a year for {days_s}?",
        "I need a {item_s} for {days_s}, and probably {uses_s} a year. Rent or buy?",
    ),
    answer=(
        (
            "[Good question|Let's work it out|Sure], for a {item_s} used {uses_s} a year, {verdict}.",
            "[Short answer|Okay], {verdict} for your {item_s}[, here's why|].",
            "[Let me compare|Comparing] buying and renting a {item_s} [for your use|at {uses_s} a year].",
        ),
        (
            "[A decent|A good] {item_s} costs about {buy} dollars to buy.",
            "[Buying|A new] {item_s} [runs|is roughly] {buy} dollars[ for a decent one|].",
        ),
        (
            "Renting is about {rent} dollars a day, so renting for {days_s}, {uses_s} a year, [costs|comes to] {rent_total}.",
            "[At|With rental at] {rent} dollars a day, {days_s} {uses_w} times a year [adds up to|is] {rent_total}.",
        ),
        (
            "[The break even point is|You'd break even after] {break_even_w} rentals[ of {days_s}|].",
            "[After about|Once you pass] {break_even} rentals, [buying wins|owning the {item_s} becomes cheaper].",
        ),
        (
            "[That's a difference of|The gap is] {saving} [in the first year|a year][, which is worth thinking about|].",
            "[Either way|Over a year], [the difference is about|you'd save roughly] {saving}.",
        ),
        (
            "[Also think about|Don't forget] storage space[ for a {item_s}|] and [maintenance|upkeep][ if you buy|].",
            *offer("[look up|find] {item_s} rental shops near you", ""),
        ),
    ),
    corrections=(
        Correction("uses", "{uses_s} a year", user=("Actually, more like {uses_s} a year.", "Hmm, realistically {uses_s} a year.")),
        Correction(
            "item",
            "a {item_s}",
            user=("Oh, I meant a {item_s}, not a {old_item_s}.", "Sorry, it's a {item_s} I need."),
            ack=("[Ah|Oh], a {item_s}[, okay|, different numbers then].",),
        ),
        Correction("days", "{days_s}", user=("Actually, I'd need it for {days_s} each time.",)),
    ),
    topic=("the {item_s} question", "buying versus renting the {item_s}", "the {item_s} numbers"),
)

# =========================================================================== tech help: internet speed

USES = (
    ("streaming in HD", 5, "streams"), ("streaming in 4K", 25, "4K streams"), ("on video calls", 4, "video calls"),
    ("gaming online", 3, "gamers"), ("working from home", 10, "home workers"), ("browsing and doing email", 2, "light users"),
)


def _speed_view(s: Slots) -> Slots:
    use, per, noun = s["use"]  # type: ignore[misc]
    people = int(s["people"])  # type: ignore[arg-type]
    base = per * people
    headroom = math.ceil(base * 1.5)
    plan = next(p for p in (50, 100, 200, 300, 500, 1000) if p >= headroom)
    return {
        "use_s": use, "per": per, "base": base, "headroom": headroom, "plan": plan,
        "people_w": number_words(people), "noun": noun,
    }


TECH_SPEED = Scenario(
    domain="tech_help",
    slots={"use": choice_of(USES), "people": int_between(2, 8), "device": choice_of(("laptop", "smart TV", "games console", "tablet"))},
    derive=_speed_view,
    request=(
        "What internet speed do I need for {people} people {use_s}?",
        "We're {people} in the house, mostly {use_s}. How fast should our internet be?",
        "Is a basic plan enough for {people} people {use_s}?",
        "Can you help me pick an internet plan? {people} of us, lots of {use_s}.",
    ),
    answer=(
        (
            "[Sure|Good question|Let's size it], for {people_w} people {use_s}, [here's the maths|let's work it out].",
            "[Okay|Right], {use_s} for {people} [people|users] [needs a bit of planning|is easy to estimate].",
        ),
        (
            "{use_s} [needs|uses] about {per} megabits per second [per person|each].",
            "[Each person|Every user] [who's|] {use_s} [takes|needs] roughly {per} megabits a second.",
        ),
        (
            "[So|That means] {people_w} at once [is|comes to] about {base} megabits per second.",
            "[All together|At the same time], that's roughly {base} megabits for {people} {noun}.",
        ),
        (
            "[I'd add|Add] about fifty percent headroom [for other devices and updates|for phones and background updates], so aim for {headroom}.",
            "[With headroom|Leaving room for everything else], you want at least {headroom} megabits per second.",
        ),
        (
            "[A|The nearest] {plan} megabit plan [would cover it|is the one I'd pick|is a comfortable fit].",
            "[So look for|I'd go with] a {plan} megabit plan[, which most providers offer|].",
        ),
        (
            "[Also|One more thing], a wired connection for the {device} [helps more than a faster plan|makes a big difference].",
            *offer("compare {plan} megabit plans from local providers", ""),
        ),
    ),
    corrections=(
        Correction(
            "people",
            "{people} people",
            user=("Actually, we're {people} people.", "Sorry, {people} of us, not {old_people}."),
            ack=("[Okay|Got it], {people_w} people[, let me redo that|].",),
        ),
        Correction(
            "use",
            "{use_s}",
            user=("Oh, it's more {use_s} really.", "Actually, mostly {use_s}."),
            ack=("[Ah|Oh], {use_s}[, that changes things|, okay].",),
        ),
    ),
    topic=("your internet speed", "the {plan} megabit question", "the internet plan"),
)

# =========================================================================== music: albums to start with


ALBUMS: dict[str, tuple[str, str, str]] = {
    "jazz": ("Kind of Blue by Miles Davis", "A Love Supreme by John Coltrane", "Time Out by the Dave Brubeck Quartet"),
    "soul": ("What's Going On by Marvin Gaye", "Otis Blue by Otis Redding", "Lady Soul by Aretha Franklin"),
    "bossa nova": ("Getz Gilberto by Stan Getz and Joao Gilberto", "Wave by Antonio Carlos Jobim", "Elis and Tom by Elis Regina and Tom Jobim"),
    "indie folk": ("For Emma, Forever Ago by Bon Iver", "the first Fleet Foxes album", "Carrie and Lowell by Sufjan Stevens"),
    "eighties pop": ("Thriller by Michael Jackson", "Purple Rain by Prince", "True Blue by Madonna"),
    "hip hop": ("The Low End Theory by A Tribe Called Quest", "Illmatic by Nas", "To Pimp a Butterfly by Kendrick Lamar"),
    "country": ("At Folsom Prison by Johnny Cash", "Coat of Many Colors by Dolly Parton", "Golden Hour by Kacey Musgraves"),
    "nineties rock": ("Nevermind by Nirvana", "OK Computer by Radiohead", "Ten by Pearl Jam"),
    "Motown": ("Songs in the Key of Life by Stevie Wonder", "ABC by the Jackson 5", "Where Did Our Love Go by the Supremes"),
    "ambient": ("Music for Airports by Brian Eno", "Selected Ambient Works 85 to 92 by Aphex Twin", "The Plateaux of Mirror by Harold Budd and Brian Eno"),
    "reggae": ("Exodus by Bob Marley and the Wailers", "Catch a Fire by the Wailers", "Two Sevens Clash by Culture"),
    "electronic": ("Discovery by Daft Punk", "Play by Moby", "Music Has the Right to Children by Boards of Canada"),
    "classical piano": ("Glenn Gould's Goldberg Variations", "Chopin's Nocturnes", "Erik Satie's Gymnopedies"),
    "disco": ("the Saturday Night Fever soundtrack", "Bad Girls by Donna Summer", "C'est Chic by Chic"),
    "blues": ("King of the Delta Blues Singers by Robert Johnson", "Live at the Regal by B B King", "Texas Flood by Stevie Ray Vaughan"),
    "punk": ("London Calling by the Clash", "the Ramones' first album", "Never Mind the Bollocks by the Sex Pistols"),
}


def _album_view(s: Slots) -> Slots:
    a = ALBUMS[str(s["style"])]
    hours = int(s["hours"])  # type: ignore[arg-type]
    return {"al1": a[0], "al2": a[1], "al3": a[2], "albums_n": max(1, hours * 60 // 45), "hours_w": number_words(hours)}


MUSIC_ALBUMS = Scenario(
    domain="music",
    slots={"style": choice_of(tuple(ALBUMS)), "hours": int_between(1, 5), "friend": choice_of(FIRST_NAMES)},
    derive=_album_view,
    request=(
        "I want to get into {style}. Which albums should I start with?",
        "My friend {friend} loves {style}. What are the classic albums?",
        "I've got {hours} hours on a train. Recommend some {style} albums?",
        "Where do I start with {style}? I've never really listened to it.",
    ),
    answer=(
        (
            "[Oh, great choice|Lovely|Fun], {style} has [some amazing|plenty of classic] albums to start with.",
            "[Sure|Happy to], [getting into|starting out with] {style} is [a treat|so rewarding][, and {hours_w} hours is plenty of listening time|].",
        ),
        (
            "[Start with|Begin with|The classic entry point is] {al1}.",
            "[If you only hear one|Number one on my list|The first one I'd play] is {al1}.",
        ),
        (
            "[Then try|After that, go for|Next up,] {al2}.",
            "{al2} [is the natural next step|comes next|is another must].",
        ),
        (
            "[And then|For a third,|Once you're hooked, try] {al3}.",
            "[Round it off with|Then finish with] {al3}[, which shows another side of {style}|].",
        ),
        (
            "[In {hours_w} hours you could get through|{hours_w} hours fits] about {albums_n} albums[, so those three are a good start|].",
            "[Listen|Play them] [in order|one after another] [if you can|, start to finish], since {style} albums [reward|are made for] full listens.",
        ),
        (
            *offer("[queue up|start playing] {al1}", " now"),
            "[Tell me|Let me know] which one [you like best|grabs you], and I'll suggest more {style} [along those lines|in that direction].",
        ),
    ),
    corrections=(
        Correction(
            "style",
            "{style}",
            user=("Oh, actually I meant {style}.", "Sorry, {style}, not {old_style}."),
            ack=("[Ah|Ooh], {style}[, great|, okay]. [Different list then|Here's that list instead].",),
        ),
    ),
    topic=("the {style} albums", "getting into {style}", "your {style} list"),
)

# =========================================================================== finance: compound growth


def _growth_view(s: Slots) -> Slots:
    monthly = int(s["monthly"])  # type: ignore[arg-type]
    rate = int(s["rate"])  # type: ignore[arg-type]
    years = int(s["years"])  # type: ignore[arg-type]
    r = rate / 100 / 12
    n = years * 12
    fv = monthly * ((1 + r) ** n - 1) / r
    paid = monthly * n
    return {
        "fv": money(round(fv)), "paid": money(paid), "growth": money(round(fv - paid)),
        "years_w": number_words(years), "rate_w": number_words(rate),
    }


FINANCE_GROWTH = Scenario(
    domain="finance",
    slots={"monthly": int_between(50, 1000, 25), "rate": int_between(2, 7), "years": int_between(3, 30)},
    derive=_growth_view,
    request=(
        "If I save {monthly} dollars a month at {rate} percent interest, how much will I have in {years} years?",
        "How much would {monthly} a month grow to over {years} years at {rate} percent?",
        "Can you work out my savings? {monthly} dollars monthly, {rate} percent a year, for {years} years.",
        "What's {monthly} a month worth after {years} years if it earns {rate} percent?",
    ),
    answer=(
        (
            "[Good question|Let's work it out|Sure], {monthly} dollars a month for {years_w} years at {rate} percent [adds up nicely|grows more than you'd think].",
            "[Okay|Right], saving {monthly} a month at {rate_w} percent over {years} years[, here's the picture|].",
        ),
        (
            "[After {years} years|By the end], you'd have about {fv}.",
            "[It grows to|The total would be] roughly {fv}[ after {years_w} years|].",
        ),
        (
            "[Of that|Out of {fv}], {paid} is money you put in yourself.",
            "[You'd contribute|Your own deposits add up to] {paid} [over that time|across {years} years].",
        ),
        (
            "[The other|The remaining] {growth} is [interest|growth from compounding].",
            "[Compounding adds|Interest earns you] about {growth} on top[, which is the magic part|].",
        ),
        (
            "[That assumes|This is based on] {rate} percent [compounded monthly|a year, compounded monthly], [and real returns vary|which isn't guaranteed].",
            "[Keep in mind|Just note] that {rate} percent [is an assumption|may change], [so treat {fv} as a rough guide|so it's an estimate].",
        ),
        (
            *offer("show you what happens at {monthly} plus another fifty dollars a month", ""),
            "[If you want|I can also] compare {years} years against a longer timeline[, which really shows compounding|].",
        ),
    ),
    corrections=(
        Correction("monthly", "{monthly} dollars a month", user=("Actually, I can do {monthly} a month.", "Sorry, {monthly}, not {old_monthly}.")),
        Correction("years", "{years} years", user=("Let's say {years} years instead.", "Actually, over {years} years.")),
        Correction("rate", "{rate} percent", user=("What about at {rate} percent?", "Actually, the rate is {rate} percent.")),
    ),
    topic=("your savings growth", "the {years} year projection", "the compound interest maths"),
)

# =========================================================================== home: cleaning before guests

CLEAN_TASKS: dict[str, tuple[str, str, str]] = {
    "kitchen": ("wipe the counters and clear the sink", "load the dishwasher and wipe the hob",
                "clear the worktops and take the bins out"),
    "living room": ("tidy the surfaces, plump the cushions and vacuum", "fold the throws, clear the coffee table and dust the shelves",
                    "gather stray cups and give the rug a quick vacuum"),
    "bathroom": ("wipe the sink and toilet and put out a fresh towel", "shine the mirror, wipe the taps and empty the bin",
                 "squirt cleaner in the toilet, wipe the basin and swap the hand towel"),
    "hallway": ("clear the shoes and give the floor a quick sweep", "hang up the coats and shake out the doormat",
                "clear the post off the side and sweep the floor"),
    "dining room": ("clear the table and set out placemats", "wipe the table and straighten the chairs",
                    "clear the clutter off the table and put out glasses"),
    "guest room": ("make the bed with fresh sheets and open the window", "clear the bed of boxes and put out a towel",
                   "dust the bedside table and air the room"),
    "home office": ("stack the papers into one neat pile and shut the door", "clear the desk and hide the cables",
                    "put the laptop away and wipe the desk"),
    "bedroom": ("make the bed and put away the clothes on the chair", "straighten the duvet and clear the bedside tables",
                "open the curtains, make the bed and pick up the floor"),
    "laundry room": ("put a load on and fold the dry clothes", "clear the top of the machine and sweep", "move the clothes horse out of sight"),
    "kids' room": ("throw the toys into their boxes", "make the bed and clear a path across the floor", "put the books back on the shelf"),
}


def _clean_view(s: Slots) -> Slots:
    minutes = int(s["minutes"])  # type: ignore[arg-type]
    rooms = list(s["rooms"])  # type: ignore[call-overload]
    share = [3, 2, 2, 1][: len(rooms)]
    unit = minutes / sum(share)
    mins = [max(5, int(round(unit * w / 5.0)) * 5) for w in share]
    guests_h, guests_m = s["arrive"]  # type: ignore[misc]
    out: Slots = {"minutes_w": number_words(minutes), "arrive_t": spoken_time(guests_h, guests_m, int(s["tstyle"]))}  # type: ignore[arg-type]
    for i, room in enumerate(rooms):
        out[f"r{i}"] = room
        out[f"t{i}"] = CLEAN_TASKS[room][(int(s["variant"]) + i) % 3]  # type: ignore[arg-type]
        out[f"m{i}"] = mins[i]
    return out


def _rooms(rng) -> tuple[str, str, str]:  # type: ignore[no-untyped-def]
    keys = list(CLEAN_TASKS)
    idx = rng.choice(len(keys), size=3, replace=False)
    return tuple(keys[int(i)] for i in idx)  # type: ignore[return-value]


HOME_CLEAN = Scenario(
    domain="home",
    slots={"minutes": int_between(20, 90, 5), "rooms": _rooms, "arrive": choice_of(((12, 0), (13, 0), (18, 0), (18, 30), (19, 0), (19, 30))), "guest": choice_of(FIRST_NAMES), "tstyle": int_between(0, 4),
           "variant": int_between(0, 2)},
    derive=_clean_view,
    request=(
        "Guests are coming at {arrive_t} and I have {minutes} minutes to clean. Help!",
        "{guest} is coming over at {arrive_t}. How do I get the {r0}, {r1} and {r2} presentable in {minutes} minutes?",
        "Can you give me a {minutes} minute cleaning plan before {arrive_t}?",
        "I need a quick clean of the {r0}, {r1} and {r2}. I've got {minutes} minutes.",
    ),
    answer=(
        (
            "[No panic|Don't worry|Totally doable], {minutes_w} minutes is enough to get [things|the place] looking good for {arrive_t}.",
            "[Okay|Right], [let's split|here's how to split] your {minutes} minutes[ before {arrive_t}|].",
        ),
        (
            "[Start with|Spend the first {m0} minutes on|Go straight to] the {r0}: {t0}.",
            "[First up|Begin with] the {r0}, about {m0} minutes, [to|and] {t0}.",
        ),
        (
            "[Then|Next], spend {m1} minutes in the {r1}, [where you|and] {t1}.",
            "[After that|Move on to] the {r1} for {m1} minutes: {t1}.",
        ),
        (
            "[Finally|Then], the {r2} gets {m2} minutes, [enough to|just] {t2}.",
            "[Last|To finish], {m2} minutes in the {r2}: {t2}.",
        ),
        (
            "[Skip|Don't bother with] [rooms|anything] guests won't see, and [close those doors|keep them shut][ before {arrive_t}|].",
            "[Light a candle|Open a window] [in the {r0}|for five minutes] [and it'll feel fresher|to freshen things up].",
        ),
        (
            *offer("set a timer for each room, starting with {m0} minutes for the {r0}", ""),
            "[I can|Happy to] [count you down|call out the time] room by room[ until {arrive_t}|].",
        ),
    ),
    corrections=(
        Correction(
            "minutes",
            "{minutes} minutes",
            user=("Actually, I've only got {minutes} minutes.", "Hmm, make that {minutes} minutes."),
            ack=("[Okay|Yikes|Sure], {minutes_w} minutes[, let me reshuffle|, new split then].",),
        ),
        Correction("arrive", "{arrive_t}", user=("Oh wait, they're coming at {arrive_t}.",), ack=("[Okay|Sure], {arrive_t} then.",)),
    ),
    topic=("the cleaning plan", "getting ready for {arrive_t}", "your quick clean"),
)

# =========================================================================== health: hydration


def _water_view(s: Slots) -> Slots:
    kg = int(s["kg"])  # type: ignore[arg-type]
    ex = int(s["exercise"])  # type: ignore[arg-type]
    base_ml = kg * 33
    extra_ml = ex * 12  # about 350 ml per half hour
    total_ml = base_ml + extra_ml
    liters = round(total_ml / 1000, 1)
    glasses = math.ceil(total_ml / 250)
    return {
        "base_l": f"{base_ml / 1000:.1f}".rstrip("0").rstrip("."), "extra": extra_ml,
        "liters": f"{liters:g}", "glasses": glasses, "glasses_w": number_words(glasses),
        "bottle": math.ceil(total_ml / 500),
    }


HEALTH_WATER = Scenario(
    domain="health",
    slots={"kg": int_between(50, 110, 5), "exercise": int_between(15, 90, 15), "city": choice_of(CITY_NAMES)},
    derive=_water_view,
    request=(
        "How much water should I drink a day? I weigh {kg} kilos and exercise about {exercise} minutes.",
        "Can you work out my daily water target? {kg} kilograms, {exercise} minutes of exercise.",
        "I never drink enough water. How much do I need if I'm {kg} kilos?",
        "What's a good water goal for someone who's {kg} kilos and works out {exercise} minutes a day?",
    ),
    answer=(
        (
            "[Good question|Let's work it out|Sure], a common rule of thumb is about 33 millilitres per kilo, so for {kg} kilos that's {base_l} litres.",
            "[Okay|Happy to], at {kg} kilos your base [need|target] is [around|about] {base_l} litres a day.",
        ),
        (
            "[Adding {exercise} minutes of exercise means|With {exercise} minutes of exercise, add] about {extra} millilitres more.",
            "[For your|Your] {exercise} minutes of [exercise|activity] [add|call for] roughly {extra} millilitres on top.",
        ),
        (
            "[So|All together], aim for about {liters} litres, [which is|or roughly] {glasses_w} glasses.",
            "[Your total target is|That makes] around {liters} litres a day, [about|roughly] {glasses} glasses of water.",
        ),
        (
            "[An easy way is to|Try to] [fill|finish] a half litre bottle {bottle} times [through the day|between morning and evening].",
            "[The simplest trick|A handy approach]: {bottle} half litre bottles, [spread through the day|one every couple of hours].",
        ),
        (
            "[Food counts too|Remember that food counts], [since fruit, soup and tea all add water|so you don't need to hit {liters} litres from glasses alone].",
            "[Pale yellow|Light coloured] urine [is the best sign|tells you] you're drinking enough[, more than any {liters} litre target|].",
        ),
        (
            "[If you have|With] a heart or kidney condition, [check with your doctor first|ask your doctor before changing how much you drink].",
            *offer("remind you to drink a glass every two hours", ""),
        ),
    ),
    corrections=(
        Correction("kg", "{kg} kilos", user=("Oh, sorry, I'm actually {kg} kilos.", "Actually, {kg}, not {old_kg}.")),
        Correction("exercise", "{exercise} minutes", user=("Actually, more like {exercise} minutes of exercise.",)),
    ),
    topic=("your water target", "the hydration plan", "drinking enough water"),
)

SCENARIOS: tuple[Scenario, ...] = (
    WEATHER_COMPARE,
    TRAVEL_BUDGET,
    SPORTS_RULES,
    FITNESS_REPS,
    COOKING_PREP,
    RESTAURANT_TIPPING,
    SHOPPING_RENT,
    TECH_SPEED,
    MUSIC_ALBUMS,
    FINANCE_GROWTH,
    HOME_CLEAN,
    HEALTH_WATER,
)

__all__ = ["SCENARIOS"]
