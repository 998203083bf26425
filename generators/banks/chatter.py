"""Short utterances: resume and discard phrases, stop requests, backchannels,
hesitations, other-directed and background speech, small talk and timers."""

from __future__ import annotations

from .engine import Rng, Slots, number_words, pick, render_rng
from .values import CITY_NAMES, COLORS, FIRST_NAMES, MONTHS, RELATIVES, ROOMS, WEEKDAYS

# --------------------------------------------------------------------------- resume / discard

RESUME: tuple[str, ...] = (
    "[Anyway|Okay|Alright], back to {topic}.",
    "So, where was I with {topic}? [Right|Ah yes|Oh yes], [here's the rest|let me carry on|I remember now].",
    "[Okay|Now|Alright], getting back to {topic}.",
    "[Now|Okay], back to {topic}, where we left off.",
    "Let's pick up {topic} [again|where we left it|from where I stopped].",
    "[Coming back to|Returning to] {topic} [now|then].",
    "[Right|Okay|So], as I was saying about {topic}.",
    "To pick up where I left off with {topic}.",
    "[Now|Okay], about {topic}, [here's the rest|let me finish that|there's a bit more].",
    "[Back to|And back to] {topic}[, then|, as promised|].",
    "[Alright|Okay], let me finish {topic} [for you|now|quickly].",
    "[Where were we|So], {topic}[, yes|, right], [let's carry on|carrying on from where I stopped].",
    "[Anyway|Right], [to get back to|returning to] {topic}[, here's the rest|].",
    "Now that's sorted, back to {topic}.",
)

DISCARD: tuple[str, ...] = (
    "[Sure|Okay|No problem], I'll leave {topic} there.",
    "[Alright|Okay|Sure thing], let's stop there on {topic}.",
    "[No problem|Of course], we can drop {topic} [for now|for the moment].",
    "[Okay|Got it], I'll set {topic} aside[ for now|].",
    "[Sure|Alright], I'll stop there with {topic}.",
    "[No worries|That's fine], I'll [pause|hold off on] {topic}[, just ask if you want it again| until you want it|].",
    "[Okay|Sure], I'll [skip|leave] the rest of {topic}.",
    "[Of course|Got it], {topic} can wait.",
    "[Okay|Sure], enough about {topic} for now.",
    "[No problem|Alright], I'll [stop|quit] going on about {topic}.",
    "[Understood|Okay], I'll [cut|wrap] {topic} short [there|here].",
    "[Sure|Okay], we'll leave {topic} [for another time|for later|for now].",
)

STOP: tuple[str, ...] = (
    "Wait, stop.",
    "Okay, that's enough, thanks.",
    "Hold on, stop there.",
    "Sorry, can you stop for a second?",
    "Stop, stop, that's fine.",
    "Actually, never mind.",
    "Okay, okay, I've got it.",
    "That's enough for now, thanks.",
    "Hang on, you can stop.",
    "No, stop, I don't need all that.",
    "Alright, thanks, you can stop there.",
    "Wait, wait, never mind.",
    "Okay, I get it, thanks.",
    "Hmm, let's stop there.",
    "Sorry to interrupt, but that's plenty.",
    "Yeah, okay, stop there please.",
    "Hey, that's enough, thanks.",
    "Let's leave it there.",
    "Cancel that, please.",
    "Never mind, forget it.",
)

BACKCHANNELS: tuple[str, ...] = (
    "mm-hmm", "yeah", "right", "uh-huh", "okay", "I see", "sure", "mhm", "yep", "oh okay",
    "got it", "ah", "oh nice", "really", "wow", "yeah yeah", "right right", "okay okay", "cool",
    "makes sense", "oh", "nice", "true", "hmm", "sounds good",
)

HESITATIONS: tuple[str, ...] = (
    "um", "uh", "let me think", "hmm, so", "uh, what's it called", "er", "you know", "um, hang on",
    "so, uh", "well", "how do I put it", "um, like", "hmm", "uh, wait", "I mean",
    "let me see", "oh, what was it", "sort of", "um, actually",
)

# --------------------------------------------------------------------------- other people

PETS = ("Biscuit", "Max", "Luna", "Rex", "Milo", "Pepper", "Bella", "Toby", "Daisy", "Charlie")
CHORES = (
    "turn the oven off", "grab the door", "take the bins out", "feed the cat", "check on the pasta",
    "close the window", "get the kids' shoes", "turn the music down", "pass me the charger",
    "put the kettle on", "bring the washing in", "find my glasses", "hold the ladder", "move your car",
    "answer the phone", "water the tomatoes", "switch the lights off upstairs", "let the dog out",
)
THINGS = ("keys", "wallet", "phone", "umbrella", "headphones", "glasses", "bag", "jacket", "laptop charger", "notebook")


def other_slots(rng: Rng) -> Slots:
    """Slots shared by other-directed and background speech."""
    return {
        "name": pick(rng, FIRST_NAMES),
        "pet": pick(rng, PETS),
        "chore": pick(rng, CHORES),
        "thing": pick(rng, THINGS),
        "room": pick(rng, ROOMS),
        "city": pick(rng, CITY_NAMES),
        "day": pick(rng, WEEKDAYS),
        "month": pick(rng, MONTHS),
        "n": int(rng.integers(2, 30)),
        "temp": int(rng.integers(-5, 35)),
        "rel": pick(rng, RELATIVES),
    }


OTHER_DIRECTED: tuple[str, ...] = (
    "[Honey|Babe|Sweetheart|Hey], can you {chore}?",
    "{name}, could you {chore}, please?",
    "[Hey|Oi|Excuse me], {name}, have you seen my {thing}?",
    "[No|Stop it], {pet}, get down from there!",
    "[Kids|Guys], dinner's in {n} minutes!",
    "{name}, I'm on with the assistant, give me a second.",
    "[Yes|Yeah], I'll be there in a minute, {name}!",
    "[Can you|Could somebody] {chore}? I've got my hands full.",
    "[Mum|Dad], where did you put my {thing}?",
    "{name}, it's for you, it's your {rel}.",
    "[Hey|Oh], {name}, are you going out? Take your {thing}.",
    "[Wait|Hang on], {name}, I'll help you in a sec.",
    "{pet}, [come here|leave it|no barking]!",
    "[Honey|Love], is the {room} door locked?",
    "Thanks, {name}, just put it on the table.",
    "[Sorry|One sec], {name}, what did you say?",
)

BACKGROUND: tuple[str, ...] = (
    "And in {city} today, temperatures reached {temp} degrees.",
    "Coming up after the break, the {day} weather and the latest sports.",
    "[Traffic|Travel] news now, there are delays of about {n} minutes on the ring road.",
    "Did you [ever|] call your {rel} back about {day}?",
    "I told him, I said, we're not going to {city} in {month}.",
    "Next stop, {name} Street. Doors open on the left.",
    "That's the third goal of the night, an incredible finish!",
    "Buy one, get one free on all {room} furniture this weekend only.",
    "[No way|Seriously], she said that? In front of everyone?",
    "[Yeah|So] anyway, the meeting got moved to {day}.",
    "Can I get a large latte and, um, a blueberry muffin?",
    "Stay tuned, we'll be right back after these messages.",
    "He left his {thing} at the restaurant again.",
    "[Okay|Alright] class, open your books to page {n}.",
    "The flight to {city} is now boarding at gate {n}.",
    "Mix the flour and sugar, then slowly add the eggs.",
    "[Honestly|I mean], the {city} trip was the best part of the year.",
    "Breaking news this hour from {city}.",
    "Tickets for {day} are almost sold out, folks.",
    "[Ha|Oh], that's so funny, I can't believe it.",
)

# --------------------------------------------------------------------------- small talk

SHOWS = ("detective series", "baking competition", "documentary about whales", "old sitcom", "space drama", "cooking show", "nature series", "courtroom drama", "history podcast", "reality show about islands")
FOODS = ("lasagne", "a Thai curry", "tacos", "homemade pizza", "a big salad", "ramen", "pancakes", "a roast", "dumplings", "fish and chips")
HOBBIES = ("knitting", "pottery", "rock climbing", "the piano", "painting", "chess", "running", "baking bread", "gardening", "photography", "salsa dancing")
FEELINGS = ("tired", "a bit stressed", "really happy", "bored", "excited", "sleepy", "hungry", "in a great mood")
REASONS = ("work was long", "I didn't sleep much", "it's finally the weekend", "I just finished a big project", "it's raining again", "I've got a day off tomorrow")
BOOKS = ("a mystery novel", "a biography", "a fantasy series", "a book about the ocean", "a cookbook", "a history of {city}", "a thriller", "a poetry collection")


def smalltalk_slots(rng: Rng) -> Slots:
    city = pick(rng, CITY_NAMES)
    return {
        "name": pick(rng, FIRST_NAMES),
        "pet": pick(rng, ("dog", "cat", "puppy", "kitten", "rabbit", "parrot", "hamster")),
        "pet_name": pick(rng, ("Biscuit", "Max", "Luna", "Milo", "Pepper", "Olive", "Bear", "Ziggy", "Nala", "Coco")),
        "show": pick(rng, SHOWS),
        "food": pick(rng, FOODS),
        "hobby": pick(rng, HOBBIES),
        "feeling": pick(rng, FEELINGS),
        "reason": pick(rng, REASONS),
        "book": str(pick(rng, BOOKS)).replace("{city}", city),
        "city": city,
        "rel": pick(rng, RELATIVES),
        "day": pick(rng, WEEKDAYS),
        "color": pick(rng, COLORS),
        "room": pick(rng, ROOMS),
        "n": int(rng.integers(2, 12)),
        "month": pick(rng, MONTHS),
    }


# (user line templates, assistant reply templates); every reply sentence carries a slot
SMALLTALK: tuple[tuple[tuple[str, ...], tuple[str, ...]], ...] = (
    (
        ("I'm so {feeling} today.", "Honestly, I'm {feeling}, {reason}."),
        (
            "[Oh|Aw|Ah], feeling {feeling} [because {reason}|on a day like this] [makes sense|is understandable].",
            "[Sorry to hear you're|Sounds like you're] {feeling}[, I hope the rest of today is kinder| today|].",
            "[Well|Hmm], being {feeling} [when {reason}|today] [is fair enough|is totally normal].",
        ),
    ),
    (
        ("My {rel} is visiting this weekend.", "My {rel} is coming over on {day}."),
        (
            "[Oh, how nice|That's lovely|How fun], [a visit from your {rel}|time with your {rel}] [is always special|sounds great].",
            "[Nice|Lovely], are you [planning anything fun|cooking something] for your {rel}?",
            "[I hope|Hope] you and your {rel} have a [great|lovely|really good] time.",
        ),
    ),
    (
        ("I've been watching a {show} lately.", "I'm totally hooked on a {show} at the moment."),
        (
            "[Oh|Ooh], a {show} sounds [like a great way to unwind|fun|gripping].",
            "[Nice|Fun], how many episodes of the {show} [have you got through|have you watched so far]?",
            "[I love that you're into|Sounds like you're enjoying] the {show}[, any favourite moments so far|].",
        ),
    ),
    (
        ("I'm thinking of making {food} tonight.", "We're having {food} for dinner."),
        (
            "[Mm|Ooh|Yum], {food} tonight, [delicious|what a treat|lovely choice].",
            "[Nice|Lovely], you can't go wrong with {food} [on a {day}|in {month}|after a long day].",
            "[Making {food} tonight sounds|{food} for dinner sounds] like a [good|lovely|cosy] evening.",
        ),
    ),
    (
        ("I just took up {hobby}.", "I've started learning {hobby}."),
        (
            "[Oh, fun|That's great|How exciting], {hobby} [is such a rewarding hobby|is a lovely thing to learn].",
            "[Nice|Wow], how are you finding {hobby} so far?",
            "[Good for you|That's brilliant], taking up {hobby} [takes some courage|is a great idea].",
        ),
    ),
    (
        ("My {pet} {pet_name} is being so silly right now.", "{pet_name}, my {pet}, just knocked something over."),
        (
            "[Ha|Oh no|Aw], {pet_name} sounds like [a real character|a handful|great fun].",
            "[Classic|Typical] {pet} behaviour, {pet_name} is [keeping you busy|clearly bored].",
            "[Aw|Ha], give {pet_name} a scratch from me[, if {pet}s allow that sort of thing|].",
        ),
    ),
    (
        ("I'm reading {book} at the moment.", "I just started {book}."),
        (
            "[Oh nice|Ooh], {book} [sounds interesting|is a great pick|is perfect for cosy evenings].",
            "[Nice|Fun], how are you finding {book} so far?",
            "[I love that|Lovely], {book} [is a good way to switch off|makes a nice change from screens].",
        ),
    ),
    (
        ("I'm going to {city} in {month}.", "Have you heard good things about {city}?"),
        (
            "[Oh|Ooh], {city} in {month} [sounds amazing|should be lovely|is a great idea].",
            "[Lucky you|How exciting], {city} [has so much to see|is a wonderful place to visit].",
            "[I'd love to hear|Tell me] what you [end up doing|plan to see] in {city}[ in {month}|].",
        ),
    ),
    (
        ("I'm painting the {room} {color} this weekend.", "We just painted the {room} {color}."),
        (
            "[Ooh|Nice], {color} [should look great|sounds really fresh] in the {room}.",
            "[Lovely|Fun], a {color} {room} [sounds cosy|sounds stylish].",
            "[Good luck|Have fun] with the {room}[, {color} is a bold choice|]!",
        ),
    ),
    (
        ("How's your day going?", "How are you doing today?", "What have you been up to?"),
        (
            "[Pretty good|Not bad at all], thanks for asking on this {day}[, how about you|].",
            "[It's going well|Going nicely], thanks, {day}s are usually [a good day for me|pretty busy].",
            "[All good here|I'm doing well], thanks, and how's your {day} going so far?",
        ),
    ),
    (
        ("Ugh, it's been {n} days of rain here.", "It's rained for {n} days straight."),
        (
            "[Ugh|Oh no], {n} days of rain [is a lot|would get to anyone].",
            "[Wow|Yikes], {n} days in a row? [I hope it clears up by {day}|Fingers crossed for sunshine on {day}].",
            "[Sorry|Ah], {n} rainy days [sounds gloomy|is rough], let's hope {day} is brighter.",
        ),
    ),
    (
        ("{name} from work just got engaged.", "My friend {name} just had a baby."),
        (
            "[Oh, that's wonderful|How lovely|What great news], [congratulations to {name}|please pass my best wishes to {name}].",
            "[Aw|Oh], [good for {name}|that's big news for {name}]!",
            "[That's so exciting|How wonderful], you must be really happy for {name}.",
        ),
    ),
)

# --------------------------------------------------------------------------- timers

# (label, what to do when it fires)
TIMER_LABELS: tuple[tuple[str, str], ...] = (
    ("tea", "take the tea bag out"), ("pasta", "give it a taste and drain it"), ("stretch break", "stand up and stretch"),
    ("eggs", "get the eggs into cold water"), ("toast", "check the toast"), ("plank", "drop to your knees and rest"),
    ("breathing exercise", "let your breath go back to normal"), ("push ups", "shake out your arms"),
    ("pizza check", "have a peek at the pizza"), ("rice", "fluff the rice with a fork"), ("meditation", "slowly open your eyes"),
    ("face mask", "rinse the mask off"), ("laundry check", "check the washing machine"), ("wall sit", "stand up and shake out your legs"),
    ("noodles", "drain the noodles"), ("coffee", "press the plunger down"), ("popcorn", "take the popcorn out before it burns"),
    ("teeth brushing", "rinse and spit"), ("tortilla", "flip the tortilla"), ("garlic bread", "pull the garlic bread out"),
    ("kettle", "pour the water"), ("cookies", "take the cookies out to cool"), ("steak resting", "slice the steak"),
    ("jump rope", "catch your breath"), ("quick tidy", "see how much you got done"), ("hand stretch", "relax your hands"),
    ("eye break", "look back at the screen"), ("hair dye check", "check the colour"), ("bread proving", "check whether the dough has risen"),
    ("dumplings", "lift the dumplings out"), ("squats", "take a breather"), ("handstand practice", "come down carefully"),
    ("sauce", "give the sauce a stir"), ("bacon", "flip the bacon"), ("pancake", "flip the pancake"), ("nail polish", "check if it's dry"),
    ("phone break", "decide if you really need to check it"), ("dog treat", "give the dog the treat"), ("burpees", "walk it off"),
    ("broccoli", "drain the broccoli"), ("chocolate melting", "give the chocolate a stir"), ("nap", "slowly get up"),
    ("oven preheat", "put the tray in"), ("lunges", "switch legs"), ("mouthwash", "spit it out"),
)

TIMER_REQUESTS: tuple[str, ...] = (
    "Set a timer for {seconds} seconds for the {label}, please.",
    "Can you time {seconds} seconds for my {label}?",
    "Start a {seconds} second timer for the {label}.",
    "Give me a {seconds} second {label} timer.",
    "Timer, {seconds} seconds, {label}.",
    "Could you set a quick {label} timer? {seconds} seconds.",
    "I need a {seconds} second timer for {label}.",
    "Count {seconds} seconds for my {label}, would you?",
    "Set {seconds} seconds on the {label} timer.",
    "Hey, {seconds} seconds for the {label}, please.",
    "{label} timer, {seconds} seconds.",
    "Can you give me {seconds} seconds? It's for the {label}.",
)

TIMER_ACKS: tuple[str, ...] = (
    "[Okay|Sure|Alright], {seconds_w} second timer [starting now|running|on its way].",
    "[Sure thing|Got it|Okay], {seconds} seconds for the {label}[, starting now|, go|].",
    "[Starting|I've started] a {seconds_w} second {label} timer[ now|].",
    "[Okay|Right], {label} timer set for {seconds_w} seconds.",
    "[Done|All set], {seconds} seconds on the clock for your {label}.",
    "[You got it|Sure], I'll [tell you|let you know] when the {seconds_w} seconds [are up|have passed] for the {label}.",
    "[Timer's running|Counting down now], {seconds_w} seconds for the {label}.",
    "[Okay|Sure], {seconds_w} seconds for your {label}, [from now|starting this second].",
    "{seconds_w} seconds for the {label}, [coming right up|no problem|you got it].",
    "[Right|Okay], I'll [shout|give you a shout] in {seconds_w} seconds [so you can|to] {action}.",
    "[Timing|Watching the clock on] the {label} [now|for you], {seconds} seconds.",
    "[Go|Off you go], {seconds_w} seconds [on the {label}|for your {label}] [starting now|from now].",
    "[Got it|Sure], I'll [remind you|tell you] to {action} in {seconds} seconds.",
    "[A {seconds_w} second {label} timer|{seconds} seconds for {label}], [set|done|running].",
)

TIMER_ANNOUNCES: tuple[str, ...] = (
    "Your {label} timer is done[, time to {action}|].",
    "[Time's up|That's time] for the {label}[, so {action}|].",
    "[Hey|Heads up], your {seconds_w} second {label} timer just finished.",
    "The {label} timer has gone off[, you can {action} now|].",
    "[Ding|Okay], {seconds} seconds are up for your {label}.",
    "[That's|Those are] your {seconds_w} seconds for the {label}[, time to {action}|].",
    "[Just so you know|Excuse me], the {label} timer is [up|finished].",
    "{label} time is over[, that was {seconds_w} seconds|].",
    "Your {seconds} seconds for the {label} are [up|over].",
    "[Alright|Okay], the {seconds_w} second {label} timer has [finished|ended].",
    "[Time to|You can] {action}, the {label} timer [just went off|is done].",
    "[And that's|That's] {seconds_w} seconds, the {label} is done. [Go ahead and {action}|Now you can {action}].",
    "[Timer|Ding ding], that's the {label}. [Time to {action}|That's your cue to {action}].",
    "{seconds_w} seconds have passed, [so|time to] {action}.",
)


def make_timer(rng: Rng) -> dict[str, object]:
    """Fields of a TimerContent (6 to 20 seconds)."""
    seconds = int(rng.integers(6, 21))
    label, action = pick(rng, TIMER_LABELS)
    slots: Slots = {"seconds": seconds, "seconds_w": number_words(seconds), "label": label, "action": action}
    return {
        "user_request": render_rng(rng, TIMER_REQUESTS, slots),
        "ack": render_rng(rng, TIMER_ACKS, slots),
        "seconds": seconds,
        "label": label,
        "announce": render_rng(rng, TIMER_ANNOUNCES, slots),
    }
