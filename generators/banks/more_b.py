"""Extra paraphrase templates for restaurants, shopping, tech help, home, music,
finance and health (first scenario set)."""

from __future__ import annotations

from .engine import offer

EXTRA: dict[tuple[str, str], tuple[tuple[str, ...], ...]] = {
    ("restaurants", "the booking at {place}"): (
        (
            "[I've got one|Found it]: {place}[ is {a_cuisine} spot|], about {walk} minutes [on foot|from you].",
            "[For {cuisine}|If you want {cuisine}], {place} [is my pick|looks great], [roughly|just] {walk} minutes' walk away.",
        ),
        (
            "[They can fit|They've got room for] {party_w} [at|around] {time_t} {day_on}.",
            "{time_t} {day_on} for {party} [is available|works for them].",
        ),
        (
            "[Their signature dish is|Order] {dish}[, everyone raves about it|].",
            "[The star of the menu|What they're known for] is {dish}.",
        ),
        (
            "[Figure on|It's about] {price} dollars per person, {total} for the group.",
        ),
        (
            "[Tables for {party}|Bigger tables] [go quickly|are in demand] at {place}[ {day_on}|], [so sooner is better|so don't wait too long].",
        ),
        (
            *offer("[lock in|secure] the table for {party_w} at {place}", ""),
            "[Just say yes and|If that works,] I'll [book|reserve] {place} for {time_t}.",
        ),
    ),
    ("restaurants", "what to order at the {cuisine} place"): (
        (
            "[Eating {diet}|Being {diet}] at {a_cuisine} place [is easier than you'd think|is no problem at all].",
            "[You'll be fine|You're in luck], {cuisine} menus [usually have|tend to have] [good|decent] {diet} choices.",
        ),
        (
            "[Start with|Go for|Look out for] {pick1}[ on the menu|].",
            "[A safe first choice|My number one] is {pick1}.",
        ),
        (
            "[Or try|Also consider|Another winner is] {pick2}.",
        ),
        (
            "{avoid} [usually isn't|is rarely] {diet}, [so I'd skip it|so check before ordering].",
        ),
        (
            "[Mention|Tell the staff] you're {diet} [when you order|up front], [and they can check the sauces|so they can flag anything hidden].",
        ),
        (
            "[Have a great dinner|Enjoy your meal] [with {friend}|at the {cuisine} place]!",
            *offer("[check|look at] the menu online for {diet} dishes", " before you go"),
        ),
    ),
    ("shopping", "the {item} shopping"): (
        (
            "[For|With] {budget} dollars, [expect|you can get] a {tier} {item}[, which is a good place to be|].",
            "[Nice|Okay], a {item} for [about|around] {budget} dollars [puts you in|is] {tier} territory.",
        ),
        (
            "{item} prices [span|range from] [about|roughly] {low} to {high} dollars, [so|and] {advice}.",
        ),
        (
            "[Non negotiable|The must have]: {f1}.",
            "[Check that it has|Insist on] {f1}.",
        ),
        (
            "[Nice to have|Also look for|Bonus points for] {f2}[, and|, plus] {f3}.",
        ),
        (
            "[Here's a trick|Pro tip]: {tip}.",
        ),
        (
            *offer("[set|create] a price alert for a {item} under {budget} dollars", ""),
        ),
    ),
    ("shopping", "the gift for your {who}"): (
        (
            "[What a thoughtful idea|Aw, lovely]! [For a {hobby} fan|For someone into {hobby}], {budget} dollars [goes a long way|is plenty].",
        ),
        (
            "[First idea|Top of my list]: {gift1}, [about|roughly] {price1} dollars.",
            "[Your {who} would probably love|I think your {who} would like] {gift1}[, around {price1} dollars|].",
        ),
        (
            "[Second idea|Alternatively], {gift2}[ for about {price2} dollars|, around {price2} dollars].",
        ),
        (
            "[So|Budget wise], {left_note}.",
        ),
        (
            "[For a real wow|If you want to splash out], [go for|consider] {stretch}.",
        ),
        (
            *offer("[find|look for] {gift1} in shops nearby", ""),
            "[Pair it with|Add] a handwritten card[ for your {who}|], [it makes any gift|which always makes it] [feel special|more personal].",
        ),
    ),
    ("tech_help", "fixing your {device}"): (
        (
            "[Let's get|We'll get] your {device} [sorted|back to normal][, {short} is usually fixable|].",
            "[Sorry about that|Frustrating, I know], [here's what fixes|this usually sorts] {short} on a {device}.",
        ),
        (
            "[Try this first|Quick first step|Start here]: {s1}.",
        ),
        (
            "[No luck? Then|Next thing to try], {s2}.",
        ),
        (
            "[After that|Third], {s3}.",
        ),
        (
            "[And then|One last thing to try], {s4}.",
        ),
        (
            "[If it still misbehaves|If there's still no joy after all that], [contact|reach out to] {escalate}.",
        ),
        (
            "[I'll wait while you try|Take your time], and [tell me what your {device} does|let me know if anything changes].",
        ),
    ),
    ("tech_help", "setting up {thing}"): (
        (
            "[Great call|Nice], {thing} [is worth setting up|is a smart move] on a {device}, [about {setup_min} minutes of work|and it's quick].",
        ),
        (
            "[Why bother|The payoff]? {why}.",
            "[Here's the benefit|What you get]: {why}.",
        ),
        (
            "[Step one|First up]: {t1}.",
        ),
        (
            "[Step two|Second]: {t2}.",
        ),
        (
            "[Step three|Last step|And finally]: {t3}.",
        ),
        (
            "[That's it|And you're done], {thing} [should now be working|is set up] on the {device}[, nice work|].",
        ),
    ),
    ("home", "the {stain} stain"): (
        (
            "[Quick, before it sets|Move fast], {stain} [can be rescued|comes out] from a {fabric} [most of the time|with the right steps].",
        ),
        (
            "[Immediately|Right away], {first}.",
        ),
        (
            "[Treat it next|Then treat it]: {treat}.",
        ),
        (
            "[Don't use|Skip] {avoid}.",
        ),
        (
            "[About the {fabric}|Fabric note]: {note}.",
        ),
        (
            "[Let it air dry and check|Check it once it's dry] [before any heat touches it|before it goes anywhere near the dryer], [and repeat if needed|and go again if there's a shadow].",
        ),
    ),
    ("home", "painting the {room}"): (
        (
            "[Fun project|Exciting], a {color} {room} [will be lovely|sounds fresh]!",
            "[Okay|Let's plan it], {color} for a {width} by {length} metre {room}.",
        ),
        (
            "[About|Roughly] {area} square metres of wall[ once you allow for a door and a window|], [in a {width} by {length} room|for the {room}].",
        ),
        (
            "{liters} litres [covers|does] two coats, [so get|which means] {cans} {cans_s} of {color}.",
        ),
        (
            "[Tape|Mask] the edges, [fill|patch] any holes, and [wash|wipe] the walls [first|before you start][, so the {color} goes on smoothly|].",
        ),
        (
            "[Two coats with|Each coat needs] four hours drying time, [so plan|so book out] {days} for the {room}.",
        ),
        (
            *offer("[remind you|send a reminder] to buy {cans} {cans_s} of {color}", ""),
        ),
    ),
    ("home", "your {plant}"): (
        (
            "[Congrats on the new plant|Lovely], a {plant} [is a great addition to|will brighten up] the {room}.",
        ),
        (
            "[Watering rule|How to water]: water it {water}.",
            "[The {plant} likes to be watered|Water the {plant}] {water}.",
        ),
        (
            "[Expect to water|That's usually] every {days} days or so[ in the {room}|].",
        ),
        (
            "[For light|Position wise], it needs {light}.",
            "[Put it somewhere with|It's happiest with] {light}[ in the {room}|].",
        ),
        (
            "[Insider tip|One more thing]: {tip}.",
        ),
        (
            *offer("[remind you|ping you] every {days} days to check the {plant}", ""),
        ),
    ),
    ("music", "the {genre} playlist"): (
        (
            "[Oh, {genre}|{genre}, nice]! [That's|It'll be] {fit} for a {activity}.",
            "[Let's build a|Coming right up, a] {activity} playlist [full of|built on] {genre}.",
        ),
        (
            "[Music for a {activity}|A {activity} soundtrack] [should be|works best when it's] {feel}.",
        ),
        (
            "{songs} [songs|tracks] [gives you|fills] {length}[, which suits a {activity}|].",
        ),
        (
            "[Keep the tempo near|Stay around] {bpm} beats per minute[ for a {want} feel|].",
        ),
        (
            "[Ease in|Open] with {mood} {genre} [and build|then lift the energy] [as the {activity} goes on|gradually].",
        ),
        (
            *offer("[shuffle|mix] in a few surprises beyond {genre}", ""),
        ),
    ),
    ("music", "your {instrument} practice plan"): (
        (
            "[Welcome to the {instrument}|The {instrument}, lovely]! {minutes_w} minutes a day [is a great routine|will get you far].",
        ),
        (
            "[Warm up|Loosen up] for {warm} minutes [at the start|before the real work].",
        ),
        (
            "[Week one is all about|Start with] {first}.",
        ),
        (
            "[By week {goal_weeks}|After about {goal_weeks} weeks], [aim to play|you could be playing] {song_goal}.",
        ),
        (
            "[Be careful of|Watch for] {pitfall}[, it's the most common beginner habit|].",
        ),
        (
            "[Short daily sessions beat|{minutes} minutes every day beats] one long weekly one[, so you're on the right track|].",
            *offer("[find|suggest] a beginner {instrument} video to follow", ""),
        ),
    ),
    ("finance", "your savings plan for {goal_s}"): (
        (
            "[Love it|Great], {goal_s} [is worth saving for|is a great goal], and {amount_s} dollars in {months} months [is a plan|is achievable].",
        ),
        (
            "[Since you have|Having] {saved} dollars already, [you need|the gap is] {left} more.",
        ),
        (
            "[Monthly target|The monthly number]: about {monthly}.",
            "[Set aside|Save] around {monthly} [each month|monthly] [and you'll make it|to hit {amount_s} on time].",
        ),
        (
            "[That's|Or] {weekly} a week, [just|roughly] {daily} a day.",
        ),
        (
            "[Set up|Schedule] {monthly} to move [automatically|on its own] [into a separate savings account|away from your spending money].",
        ),
        (
            *offer("[track|chart] your progress to {amount_s} dollars", ""),
        ),
    ),
    ("finance", "your budget"): (
        (
            "[Great idea to budget|Budgeting is smart], and with {income_s} dollars a month, [fifty thirty twenty|the fifty thirty twenty rule] [is simple|is a good framework].",
        ),
        (
            "[Needs get|The needs pot is] {needs}[, half your income|], covering rent, food and bills.",
        ),
        (
            "{rent_s} dollars of rent [is|works out at] {rent_share} percent of income, {rent_note}.",
        ),
        (
            "{wants} [is your fun money|goes to wants][, about thirty percent|].",
        ),
        (
            "[Savings get|Put away] {save} [a month|each month], [about {yearly} a year|which builds to {yearly} a year].",
        ),
        (
            *offer("[track|log] your spending against the needs budget of {needs}", ""),
        ),
    ),
    ("health", "your sleep schedule"): (
        (
            "[With a {wake_t} alarm|Getting up at {wake_t}], {hours_w} hours of sleep [means|needs] lights out [at|by] {bed_t}.",
            "[Here's the plan|Let's set it up]: up at {wake_t}, [so|which means] bed [at|by] {bed_t}.",
        ),
        (
            "{bed_t} [gives you|leaves] about fifteen minutes to fall asleep[ before the {hours_w} hours start|].",
        ),
        (
            "[Screens off|Start winding down] [around|at] {wind_t}[, and keep the lights low|, with something calm].",
        ),
        (
            "[No coffee after|Caffeine cut off:] {caffeine_t}[, or it can keep you awake|].",
        ),
        (
            "[Consistency is key|Stick to it]: [the same|a] {wake_t} wake up, [even on weekends|seven days a week].",
        ),
        (
            *offer("[set|schedule] a wind down reminder for {wind_t}", ""),
        ),
    ),
    ("health", "your step goal"): (
        (
            "[From|Going from] {now_s} to {goal_s} steps [is a great goal|is very realistic][, that's {gap} more a day|].",
        ),
        (
            "[Add|Adding] {inc_s} a week [gets you there|reaches {goal_s}] in {weeks_w} weeks.",
        ),
        (
            "[Each step up of {inc_s}|An extra {inc_s} steps] [is roughly|takes about] {walk_min} minutes of walking.",
        ),
        (
            "[A {walk_min} minute walk after dinner|Walking to the shops instead of driving] [covers it|is an easy win].",
        ),
        (
            "[If your legs feel it|If you feel sore], [just pause|stay at that level] for a week[ before adding more|].",
        ),
        (
            *offer("[count|track] your steps and [cheer you on|let you know] when you hit {goal_s}", ""),
        ),
    ),
    ("health", "the {part} stretches"): (
        (
            "[Oh, stiffness in the {part}|Ah, tightness in the {part}] [is so common|happens to lots of people], [usually from|mostly down to] {cause}.",
        ),
        (
            "[Try|Do] {x1}, [then|followed by] {x2}, [and|then] {x3}.",
            "[Three stretches for your {part}|For your {part}]: {x1}, {x2}, and {x3}.",
        ),
        (
            "{hold} seconds [each|per stretch], [slow breaths|breathing slowly].",
        ),
        (
            "[Cycle through|Repeat] [them|all three] {reps_w} times[ in your {minutes} minutes|].",
        ),
        (
            "[Gentle is key|Keep it gentle], and [if the pain in your {part} lasts more than a few days|if it's still sore next week], [see a doctor|get it looked at].",
        ),
        (
            *offer("[time|count] the holds for you", ""),
        ),
    ),
}
