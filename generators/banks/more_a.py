"""Extra paraphrase templates, position by position, for the outdoor and food scenarios.

Keyed by (domain, first topic template); each value has one tuple per answer position.
"""

from __future__ import annotations

from .engine import offer

EXTRA: dict[tuple[str, str], tuple[tuple[str, ...], ...]] = {
    ("weather", "the forecast for {city}"): (
        (
            "[Okay|Right], {day} in {city}: [mostly|expect] {cond}.",
            "[I've got|Here's] the {city} outlook for {day}, and it's {cond}.",
            "[Checking|Looking at] {city} {day_on}, [the headline is|it's mainly] {cond}.",
        ),
        (
            "[It tops out|The warmest it gets is] [at|around] {high} degrees, and [nights dip to|the overnight low is] {low}.",
            "{high} degrees is the high {day_on}, [with|and] {low} [as the low|at the coldest point].",
            "[On the thermometer|Numbers wise], [think|it's] {low} to {high} degrees [in {city}|across the day].",
        ),
        (
            "[Odds of rain|The rain chance] [sit|sits] around {rain} percent[ in {city}|], so {rain_comment}.",
            "[With|At] {rain} percent [for rain|rain risk], {rain_comment}.",
        ),
        (
            "[Breezes|Winds] of {wind} kilometres an hour [are expected|are likely], [peaking at|with gusts of] {gust}.",
            "[Expect|You'll get] [a steady|an average] {wind} kilometres an hour of wind[, so {wind_desc}|].",
        ),
        (
            "[Dress for|Plan for] {cond}, [which means|so think] {gear}.",
            "[Definitely|I'd say] {gear} [for {city}|{day_on}][, just to be safe|].",
        ),
        (
            "[Come evening|Once it gets dark|Later in the day], {city} [dips|cools] to about {evening} degrees[, so {layer} is plenty|, worth {layer}].",
            "[If you're out late|For the evening], {evening} degrees [calls for|means] {layer}.",
        ),
        (
            *offer("[set|add] a morning weather alert for {city} {day_on}", ""),
            "[Ask me again|Check back] [closer to the day|nearer the time] and I'll [have|give you] [a fresher|an updated] forecast for {city}.",
        ),
    ),
    ("weather", "your {activity} in {city}"): (
        (
            "[Good thinking to check|Smart to look ahead], and for your {activity}, {day} {verdict}.",
            "[The short version|In a word]: a {activity} {day_on} {fit}.",
        ),
        (
            "{city} [is in for|gets] {cond} {day_on}, [topping out near|reaching] {high} degrees.",
            "[The outlook says|Forecasters expect] {cond} [and {high} degrees|with highs of {high}] in {city}.",
        ),
        (
            "[Timing matters|Pick your moment]: going {window} [looks best|is your best bet] for the {activity}.",
            "[Aim|Try] to [be out|get going] {window}[, when it should be nicest| for the {activity}].",
        ),
        (
            "[Rain is|The rain chance is] {rain} percent, so {rain_comment}[ during the {activity}|].",
        ),
        (
            "[Wind of|Winds around] {wind} kilometres an hour [means|makes it] {wind_desc}[ out there|, worth knowing for a {activity}].",
        ),
        (
            "[Pack|Bring along|Grab] {gear} [and you'll be set|for the day|before you head out].",
            "[I'd throw|Throw] {gear} [in the bag|into your bag] for the {activity}.",
        ),
        (
            *offer("[look at|check] a backup day for the {activity}", ""),
            "If {day} [doesn't work out|falls through], [I can|let me] [find|suggest] a better day for your {activity}.",
        ),
    ),
    ("travel", "your trip to {city}"): (
        (
            "[{n_days_w} days in {city}|A {month} trip to {city}] [is a lovely plan|sounds fantastic], [and here's how I'd use it|so let's map it out].",
            "[Oh, {city}|How lovely, {city}]! {n_days} days in {month} [is {days_comment}|gives you {days_comment}].",
        ),
        (
            "[Day one|Your first morning] [belongs to|should be] {sight1}[, before the queues build|, while you're fresh].",
            "I'd make {sight1} your first stop[, since it sets the tone for {city}|].",
        ),
        (
            "[Give yourself|Leave] an afternoon [for|in] {area} [to wander|with no plan at all][, it's the real {city}|].",
            "[For a slower day|When your feet need a break], [head to|explore] {area}[ and just wander|].",
        ),
        (
            "[Foodwise|As for food], [the thing to try|the local speciality] is {food}[, ideally from a small local place|].",
            "[Treat yourself to|Make time for] {food}[, {city} is famous for it|; it's part of the trip].",
        ),
        (
            "{sight2} [deserves|is worth] [a morning|half a day], and {sight3} [fits in nicely|is a great add on] [too|after that].",
            "[Don't miss|Also put on the list] {sight2}, [then|plus] {sight3} if [time allows|you have a spare afternoon].",
        ),
        (
            "[Expect|Plan for] {season_weather} [weather|days] in {month}, [so|which means] {pack}.",
            "[Packing tip for {month}|For {city} in {month}]: {pack}, since it's usually {season_weather}.",
        ),
        (
            "[With|Travelling with] {companion}, [I'd build in|leave room for] [some downtime|a lazy morning] [each day|halfway through].",
            *offer("[find|look up] [places to stay|a good hotel] near {area}", ""),
        ),
    ),
    ("travel", "your packing list for {city}"): (
        (
            "[Let's pack smart|Okay, packing time] for {n_days_w} days in {city}[ on a {purpose}|].",
            "[A {purpose} in {city}|{n_days} days in {city} for a {purpose}] [is easy to pack for|doesn't need much].",
        ),
        (
            "[The weather in {month}|{month} weather in {city}] [tends to be|is typically] {season_weather}, so [the core of your bag is|start with] {pack}.",
        ),
        (
            "[Pack|Bring] {shirts} tops [and|plus] {socks} pairs of socks, [and you can rewear trousers|which covers {n_days} days].",
            "{shirts} tops, {socks} pairs of socks, [one pair of comfy shoes|and a spare layer] [is the formula|does it] for {n_days} days.",
        ),
        (
            "[Make room for|Don't forget] {key_item}[, because a {purpose} isn't the same without it|].",
            "[For the {purpose} itself|Specifically for the {purpose}], [pack|bring] {key_item}.",
        ),
        (
            "[Keep it all in|Squeeze everything into] {bag}[ and skip the checked bag fees|].",
        ),
        (
            *offer("[save|pin] this packing list for {city}", ""),
            "[The night before you fly|Before you leave], [I can read the list back|let me read it back] [so nothing gets left behind|for a final check].",
        ),
    ),
    ("sports", "your {sport} tips"): (
        (
            "[What a great thing to try|Good on you]! {sport} with {friend} {day_on} [should be a laugh|sounds like fun].",
            "[Exciting|Brilliant], a first {sport} session [is always fun|is a great adventure], especially with {friend}.",
        ),
        (
            "[All you really need is|Kit wise, it's just] {gear}.",
            "[Don't buy anything fancy yet|No need to spend much], {gear} [is enough|will do] for {sport}.",
        ),
        (
            "[Concentrate on|Put your energy into] {first_skill} [for now|on day one].",
            "[The skill that matters most at the start is|First things first, work on] {first_skill}.",
        ),
        (
            "[Beginners often end up|Lots of new players end up] {mistake}, [so be mindful of it|so try not to].",
            "[Avoid|Try to avoid] {mistake}[, and you'll be ahead of most beginners|].",
        ),
        (
            "[Don't overdo it|Pace yourself]: {session} [at {venue}|of {sport}] is [plenty|enough] for a first time.",
            "[Book|Plan] about {session} at {venue}[ and stop while it's still fun|].",
        ),
        (
            "[Most of all, enjoy it|Above all, have fun], and [thank {friend} for the invite|tell {friend} I said good luck]!",
            *offer("[put together|suggest] a few {sport} drills for your next session", ""),
        ),
    ),
    ("sports", "the {team} watch party"): (
        (
            "[A {team} watch party|Hosting {guests} fans] {day_on}[, love it|, what a plan|]!",
            "[Okay|Let's plan], {guests_w} guests [and the {team} game|for {team}] {day_on}.",
        ),
        (
            "[Things kick off at|Start time is] {kickoff_t}, [so aim for guests by|so a good arrival time is] {arrive_t}.",
            "[Tell people|Invite everyone for] {arrive_t}, [half an hour before|ahead of] the {kickoff_t} start.",
        ),
        (
            "[Go with|Put out] {snack}[ and about {pizzas} pizzas|, backed up by {pizzas} pizzas] for {guests}.",
            "{pizzas} pizzas [plus|and] {snack} [will keep|should keep] {guests_w} fans [happy|fed].",
        ),
        (
            "[Wings are a must|Don't forget wings]: {wings} [for {guests}|should be enough].",
        ),
        (
            "[Stock up on|Chill] {drinks} drinks[, mixing in plenty of soft drinks|] [before kickoff|for the {team} game].",
        ),
        (
            "[Line up|Find] {chairs} [extra chairs|more seats] [so nobody stands for the whole game|for the latecomers].",
            *offer("[make|send] a shopping list for {guests} people", ""),
        ),
    ),
    ("fitness", "your {race} plan"): (
        (
            "[A {race} in {weeks} weeks|{weeks_w} weeks to a {race}] [is a great goal|is exciting], [let's make it count|and very doable].",
        ),
        (
            "[Keep most runs gentle|The bulk of your running should be easy], [about|roughly] {easy} kilometres at conversation pace.",
            "{runs_w} runs a week, [mostly|almost all] easy ones of {easy} kilometres, [is the foundation|builds the base].",
        ),
        (
            "[Build your long run|Grow the long run] [each week|gradually] from {first_long} kilometres to {long_run}.",
            "[The long run starts at {first_long} kilometres and peaks at|Your long runs begin at {first_long} kilometres and top out around] {long_run}.",
        ),
        (
            "{weekly} kilometres [is your biggest week|will be the peak week][, and that's plenty for a {race}|].",
        ),
        (
            "[Cut back|Taper] [in|for] the final {taper} {taper_s} so you [reach|arrive at] the start line rested.",
        ),
        (
            *offer("[schedule|block out] your runs for the next {weeks} weeks", ""),
            "[Tell me|Let me know] [how the first week goes|after your first long run], [and I'll adjust|and we can tweak the plan].",
        ),
    ),
    ("fitness", "your {focus} workout"): (
        (
            "[Let's get moving|Ready when you are]: a {minutes_w} minute {focus} session {place}.",
            "[Nice|Great], {minutes} minutes is [plenty|enough] for a solid {focus} workout {place}.",
        ),
        (
            "[Spend|Take] {warmup} minutes [getting warm|loosening up][, gentle stuff only|, like jogging on the spot].",
        ),
        (
            "[The moves|Three exercises]: {move1}, {move2}, [and|then] {move3}.",
            "[We'll use|The circuit uses] {move1}, {move2} and {move3}[ for the {focus}|].",
        ),
        (
            "{work} seconds on, {rest} seconds off[ for each move|, for every exercise].",
            "[Each exercise gets|Do] {work} seconds [of work|flat out], [with|then] {rest} seconds [to breathe|of rest].",
        ),
        (
            "{rounds_w} rounds [and you're done|will fill your {minutes} minutes].",
        ),
        (
            "[Cool down|Wind down] with [some stretching|a slow stretch] for your {focus}[, about two minutes|].",
            "[Well done in advance|You've got this], {minutes} minutes [goes by fast|is over before you know it].",
        ),
    ),
    ("cooking", "the {dish} recipe"): (
        (
            "[Ooh|Yum], {dish} [for {servings}|for {servings_w} people] [is a winner|is always popular], [give it|allow] about {minutes} minutes.",
            "[Let's cook|Okay, let's make] {dish}[ together|]! [It takes|You'll need] about {minutes} minutes for {servings}.",
        ),
        (
            "[Shopping list|What to buy]: {main_qty}, [with|and] {ing2} [plus|and] {ing3}.",
            "[Scaled for|Sized for] {servings}, that's {main_qty}[, and some {ing2} and {ing3}|, plus {ing2} and {ing3}].",
        ),
        (
            "[Prep comes first|Get your prep done first]: {prep}.",
        ),
        (
            "[The cooking bit|On the hob|For the main cooking]: {cook}.",
        ),
        (
            "[Finally|To finish up|Last step], {finish}[, and you're done|].",
        ),
        (
            "[On the side|Alongside], {serve} [works perfectly|rounds it off].",
            "[Serve the {dish} with|Dish it up with] {serve}.",
        ),
        (
            *offer("[start|run] a {minutes} minute timer for the {dish}", ""),
        ),
    ),
    ("cooking", "the {missing} swap"): (
        (
            "[Ah, the classic missing ingredient|Happens to everyone], [but no {missing}|but being out of {missing}] [is totally fixable|is not a problem] for {bake}.",
        ),
        (
            "[Swap in|Reach for|Use] {sub}[ instead|].",
            "[My go to replacement for {missing} is|In place of {missing}, try] {sub}.",
        ),
        (
            "[On quantities|How much], {ratio}.",
        ),
        (
            "[You might notice|There could be] a [tiny|little] change in {effect}[, nothing major|, but {bake} will still be lovely].",
        ),
        (
            "[Otherwise|Apart from that], [make the {bake} as normal|carry on with the {bake} exactly as planned].",
        ),
        (
            "[Good luck with the {bake}|Enjoy the {bake}], and [tell me how it turns out|let me know how the swap works]!",
        ),
    ),
    ("cooking", "the {roast} timing"): (
        (
            "[For a {weight_adj} {roast}|With {weight} of {roast}], [the oven time is|allow] about {roast_time}.",
        ),
        (
            "[The formula|My rule of thumb] is {per} minutes [a|per] 500 grams, plus {extra}[ extra|].",
        ),
        (
            "[Oven at|Set the oven to] {temp} degrees Celsius[, fully preheated|, and wait until it's hot].",
        ),
        (
            "[Rest|Leave] the {roast} for {rest} minutes [after it comes out|before slicing][, it keeps the juices in|].",
        ),
        (
            "[In it goes at|Put it in by] {start_t}[ for dinner at {eat_t}|, and you'll eat on time].",
            "[Counting back from|Working backwards from] {eat_t}, [the {roast} goes in at|your start time is] {start_t}.",
        ),
        (
            "[Use a meat thermometer if you have one|A thermometer takes the guesswork out], [especially for a {roast}|just to be sure].",
        ),
    ),
}
