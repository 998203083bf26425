"""Exchanges for cooking, restaurants and shopping."""

from __future__ import annotations

from typing import NamedTuple

from .engine import Correction, offer, Scenario, Slots, choice_of, int_between, money, number_words, spoken_time
from .values import DAYS, FIRST_NAMES, RELATIVES

# =========================================================================== cooking


class Dish(NamedTuple):
    name: str
    main: str
    per_serving: int
    unit: str  # "g" for grams, otherwise the plural noun for counted items
    ing2: str
    ing3: str
    minutes: int
    prep: str
    cook: str
    finish: str
    serve: str


DISHES: tuple[Dish, ...] = (
    Dish("mushroom risotto", "arborio rice", 80, "g", "mushrooms", "parmesan", 35,
         "slice the mushrooms and finely chop an onion",
         "add hot stock a ladle at a time, stirring, for about 18 minutes",
         "stir in a knob of butter and the parmesan off the heat",
         "a crisp green salad"),
    Dish("chicken stir fry", "chicken thigh", 150, "g", "red peppers", "soy sauce", 20,
         "cut the chicken into thin strips and slice the peppers",
         "sear the chicken in a very hot pan for 5 minutes, then add the peppers for 3 more",
         "splash in the soy sauce with a little honey and toss everything together",
         "steamed jasmine rice"),
    Dish("red lentil soup", "red lentils", 60, "g", "carrots", "ground cumin", 35,
         "dice the carrots with an onion and a stick of celery",
         "simmer the lentils in stock for about 20 minutes until they fall apart",
         "blend about half of the pot so it turns creamy",
         "warm crusty bread"),
    Dish("spaghetti carbonara", "spaghetti", 100, "g", "eggs", "pancetta", 20,
         "whisk the eggs with grated pecorino and plenty of black pepper",
         "boil the spaghetti while the pancetta crisps up in a pan",
         "toss the hot pasta with the egg mixture off the heat so the sauce turns silky",
         "a simple rocket salad"),
    Dish("chickpea curry", "chickpea", 120, "g", "spinach", "coconut milk", 40,
         "fry an onion with garlic, ginger and a spoonful of curry paste",
         "add the chickpeas and coconut milk and let it bubble gently for 20 minutes",
         "stir the spinach through right at the end until it wilts",
         "basmati rice or warm naan"),
    Dish("shakshuka", "egg", 2, "eggs", "chopped tomatoes", "smoked paprika", 30,
         "soften an onion and a red pepper in olive oil",
         "simmer the tomatoes with the paprika until thick, then crack the eggs into little wells",
         "cover the pan until the whites are just set",
         "toasted flatbread"),
    Dish("beef tacos", "minced beef", 125, "g", "corn tortillas", "limes", 25,
         "chop some onion, coriander and a couple of tomatoes for a quick salsa",
         "brown the beef with cumin, chilli and garlic for about 8 minutes",
         "warm the tortillas in a dry pan for a few seconds each side",
         "lime wedges and a bowl of salsa"),
    Dish("baked salmon", "salmon fillet", 1, "fillets", "new potatoes", "lemons", 30,
         "halve the potatoes and put them in to roast first",
         "add the salmon to the tray for the last 12 to 15 minutes",
         "squeeze lemon over everything and scatter with dill",
         "green beans or a leafy salad"),
    Dish("pad thai", "rice noodle", 75, "g", "prawns", "peanuts", 25,
         "soak the noodles and mix tamarind, fish sauce and a little sugar for the sauce",
         "stir fry the prawns, then toss in the noodles and the sauce for a couple of minutes",
         "scatter chopped peanuts and spring onions over the top",
         "lime wedges and fresh bean sprouts"),
    Dish("pesto pasta", "pasta", 100, "g", "basil", "pine nuts", 15,
         "toast the pine nuts and blitz them with the basil, garlic, parmesan and olive oil",
         "cook the pasta, saving a mug of the cooking water",
         "loosen the pesto with a splash of that water as you toss it through",
         "cherry tomatoes on the side"),
    Dish("vegetable fried rice", "cooked rice", 150, "g", "frozen peas", "spring onions", 15,
         "use day old rice if you can and beat a couple of eggs",
         "fry the rice over high heat until it starts to crackle, then add the peas",
         "push the rice aside, scramble the eggs, and mix it all with soy sauce",
         "a drizzle of chilli oil"),
    Dish("chili con carne", "kidney bean", 80, "g", "minced beef", "chopped tomatoes", 60,
         "brown the beef and soften an onion with garlic and a pepper",
         "add the spices, tomatoes and beans and simmer for about 40 minutes",
         "finish with a square of dark chocolate for depth",
         "rice, sour cream and grated cheese"),
    Dish("pancakes", "flour", 50, "g", "milk", "eggs", 20,
         "whisk the flour with the milk, eggs and a pinch of salt until smooth",
         "cook ladlefuls in a buttered pan for about a minute a side",
         "keep the first batch warm in a low oven while you make the rest",
         "lemon and sugar or maple syrup"),
    Dish("greek salad", "feta", 50, "g", "cucumbers", "kalamata olives", 10,
         "chop the cucumber, tomatoes and red onion into chunky pieces",
         "dress everything with olive oil, red wine vinegar and dried oregano",
         "lay the feta on top in a whole slab rather than crumbling it",
         "grilled pitta"),
    Dish("butternut squash soup", "butternut squash", 250, "g", "onions", "vegetable stock", 45,
         "peel and cube the squash and chop the onions",
         "roast the squash for 25 minutes, then simmer it with the onion in stock",
         "blend until completely smooth and season well",
         "a swirl of cream and toasted seeds"),
    Dish("teriyaki chicken", "chicken breast", 150, "g", "soy sauce", "sesame seeds", 25,
         "mix soy sauce, mirin, honey and grated ginger into a glaze",
         "pan fry the chicken for about 6 minutes a side until cooked through",
         "pour in the glaze and let it bubble until sticky",
         "rice and steamed broccoli"),
    Dish("vegetable lasagne", "lasagne sheet", 3, "lasagne sheets", "courgettes", "ricotta", 75,
         "roast the courgettes and peppers while you make a tomato sauce",
         "layer the sauce, vegetables, ricotta and pasta, then bake for 40 minutes",
         "let it rest for 10 minutes before cutting so it holds together",
         "garlic bread"),
    Dish("falafel wraps", "falafel", 4, "falafel", "flatbreads", "tahini", 25,
         "whisk tahini with lemon juice, garlic and water into a pourable sauce",
         "bake or shallow fry the falafel until crisp all over",
         "pile everything into warm flatbreads with salad and pickles",
         "a bowl of hummus"),

    Dish("minestrone", "cannellini bean", 60, "g", "courgettes", "small pasta shapes", 45,
         "dice an onion, two carrots, celery and a courgette",
         "simmer the vegetables in stock with the tomatoes and beans for 25 minutes",
         "add the small pasta for the last 8 minutes and finish with olive oil",
         "grated parmesan and a hunk of bread"),
    Dish("chicken fajitas", "chicken breast", 140, "g", "mixed peppers", "flour tortillas", 25,
         "slice the chicken and peppers into strips and toss them with fajita spices",
         "sear everything in a smoking hot pan for about 8 minutes",
         "squeeze over some lime and let people build their own wraps at the table",
         "guacamole, soured cream and grated cheese"),
    Dish("mushroom stroganoff", "chestnut mushroom", 150, "g", "paprika", "soured cream", 25,
         "slice the mushrooms and an onion and crush a clove of garlic",
         "fry the mushrooms hard until golden, then add the onion and paprika",
         "stir in the soured cream off the heat so it doesn't split",
         "buttered rice or tagliatelle"),
    Dish("Thai green curry", "chicken thigh", 130, "g", "coconut milk", "green beans", 30,
         "fry a couple of spoonfuls of green curry paste in a little oil until fragrant",
         "add the chicken and coconut milk and simmer for 15 minutes with the beans",
         "season with fish sauce, lime juice and a handful of Thai basil",
         "jasmine rice"),
    Dish("fish pie", "white fish fillet", 130, "g", "prawns", "potatoes", 60,
         "boil the potatoes and mash them with butter and milk",
         "poach the fish in milk, then make a white sauce with that milk",
         "top the fish and sauce with mash and bake until golden, about 25 minutes",
         "peas or buttered greens"),
    Dish("bean chilli", "black bean", 90, "g", "sweet potatoes", "chopped tomatoes", 45,
         "dice the sweet potatoes and soften an onion with cumin and smoked paprika",
         "simmer everything with the beans and tomatoes for about 30 minutes",
         "stir in a squeeze of lime and some chopped coriander",
         "rice, tortilla chips or a baked potato"),
    Dish("shepherd's pie", "lamb mince", 125, "g", "carrots", "potatoes", 75,
         "brown the lamb and soften the onion and carrots in the same pan",
         "simmer the mince with stock and a spoonful of tomato puree for 20 minutes",
         "top with mash, rough up the surface with a fork and bake for half an hour",
         "garden peas"),
    Dish("prawn linguine", "linguine", 100, "g", "prawns", "cherry tomatoes", 20,
         "halve the tomatoes and slice some garlic and a red chilli",
         "cook the linguine while the prawns sizzle in olive oil with the garlic",
         "toss everything together with the tomatoes and a splash of pasta water",
         "a squeeze of lemon and chopped parsley"),
    Dish("ramen", "ramen noodle", 90, "g", "soft boiled eggs", "pak choi", 35,
         "boil the eggs for six and a half minutes and drop them into iced water",
         "simmer the broth with miso, soy and ginger, then cook the noodles separately",
         "build the bowls with noodles, hot broth, halved eggs and the pak choi",
         "chilli oil and sliced spring onion"),
    Dish("quiche lorraine", "egg", 1, "eggs", "bacon lardons", "gruyere", 60,
         "blind bake the pastry case for about 15 minutes",
         "fry the lardons, then whisk the eggs with cream and grated gruyere",
         "pour the filling into the case and bake until just set in the middle",
         "a crisp green salad"),
    Dish("dal", "yellow split pea", 70, "g", "tomatoes", "turmeric", 50,
         "rinse the split peas well until the water runs clear",
         "simmer them with turmeric and water for about 40 minutes until soft",
         "pour over a sizzling tarka of cumin seeds, garlic and chilli fried in ghee",
         "rice and a spoonful of yogurt"),
    Dish("halloumi salad", "halloumi", 60, "g", "watermelon", "fresh mint", 15,
         "slice the halloumi into thick pieces and cube the watermelon",
         "griddle the halloumi for a couple of minutes a side until striped",
         "scatter it over the watermelon with mint, lime juice and olive oil",
         "warm flatbreads"),
)
DISH_BY_NAME = {d.name: d for d in DISHES}


def _dish_view(s: Slots) -> Slots:
    d = DISH_BY_NAME[str(s["dish"])]
    n = int(s["servings"])  # type: ignore[arg-type]
    total = d.per_serving * n
    if d.unit == "g":
        main_qty = f"{total} grams of {d.main}" if total < 1000 else f"{total / 1000:g} kilos of {d.main}"
        main_qty = main_qty.replace("kilos", "kilo") if total == 1000 else main_qty
        if d.main.endswith("chickpea") or d.main.endswith("bean") or d.main.endswith("noodle"):
            main_qty += "s"
    else:
        main_qty = f"{total} {d.unit}"
    extra = 5 * ((n - 2) // 2) if n > 4 else 0
    return {
        "servings_w": number_words(n),
        "main_qty": main_qty,
        "ing2": d.ing2,
        "ing3": d.ing3,
        "minutes": d.minutes + extra,
        "prep": d.prep,
        "cook": d.cook,
        "finish": d.finish,
        "serve": d.serve,
    }


COOKING_RECIPE = Scenario(
    domain="cooking",
    slots={"dish": choice_of(tuple(DISH_BY_NAME)), "servings": int_between(2, 8), "guest": choice_of(FIRST_NAMES)},
    derive=_dish_view,
    request=(
        "How do I make {dish} for {servings} people?",
        "Can you walk me through {dish}? It's for {servings}.",
        "I want to cook {dish} tonight for {servings} of us. Where do I start?",
        "What's a simple way to make {dish}? I'm feeding {servings} people.",
        "My friend {guest} is coming over, so we'll be {servings}. Can you give me a {dish} recipe?",
        "Could you give me a recipe for {dish} that serves {servings}?",
    ),
    answer=(
        (
            "[Sure|Great choice|Okay], {dish} for {servings} [takes about {minutes} minutes all in|comes together in around {minutes} minutes].",
            "[Lovely|Good pick|Happy to], {dish} [is a great one|is very doable] for {servings_w} people[, about {minutes} minutes start to finish|].",
            "[Alright|Sure thing], here's {dish} for {servings_w}, [and it should take|which needs] about {minutes} minutes.",
        ),
        (
            "For {servings} people you'll need [about|roughly] {main_qty}, plus {ing2} and {ing3}.",
            "[Shopping wise|Ingredient wise|For the ingredients], [get|grab|you want] {main_qty} [for {servings} servings|to feed {servings_w}], along with {ing2} and {ing3}.",
            "[The main thing|The key quantity] is {main_qty} [for {servings}|for {servings_w} people], [and|plus] [make sure you have|don't forget] {ing2} and {ing3}.",
        ),
        (
            "[First|To start|Start by getting the prep done], {prep}.",
            "[Before you turn on the heat|Step one for the {dish}|Prep first], {prep}.",
        ),
        (
            "[Then|Next|After that], {cook}.",
            "[Once that's ready|When the prep is done|Now for the cooking], {cook}.",
        ),
        (
            "[To finish|At the end|Right before serving], {finish}.",
            "[The last step|The finishing touch] for the {dish}: {finish}.",
        ),
        (
            "Serve it with {serve}[, and you've got dinner for {servings}| and it's ready to eat|].",
            "[It's great with|I like it with|Pair it with] {serve}[ for a full meal| if you want something on the side|].",
        ),
        (
            "[Would you like|Want] me to set a timer for the {dish}[ when you start cooking| once it's on the heat|]?",
            "[If you want, I can|Just say the word and I'll] [read out|repeat] the {dish} steps one at a time as you cook.",
            "[Should I|Want me to] [add|put] the {dish} ingredients [to|on] your shopping list[ for {servings}|]?",
        ),
    ),
    corrections=(
        Correction(
            "servings",
            "{servings} people",
            user=("Actually, there'll be {servings} of us, not {old_servings}.", "Wait, make that {servings} people.", "Sorry, it's for {servings} now, someone cancelled."),
            ack=("[Okay|Got it|Sure], {servings_w} people, [let me scale that|I'll adjust the amounts|new quantities then].", "[Right|Alright], {dish} for {servings} instead of {old_servings}."),
        ),
        Correction(
            "dish",
            "{dish}",
            user=("Actually, can we do {dish} instead?", "Hmm, I changed my mind, let's make {dish}.", "Oh, wait, I meant {dish}, not {old_dish}."),
            ack=("[Ooh|Sure|Good call], {dish} [instead|it is|then]. [Here's how that goes|Let me start over with that one].",),
        ),
    ),
    topic=("the {dish} recipe", "your {dish}", "the recipe for {dish}", "dinner for {servings}"),
    weight=1.5,
)

SUBSTITUTES = (
    ("buttermilk", "a cup of milk with a tablespoon of lemon juice stirred in", "let it sit for 5 minutes so it thickens slightly", "the tang"),
    ("eggs", "a flax egg, which is a tablespoon of ground flaxseed mixed with three tablespoons of water", "use one flax egg for each egg", "the rise"),
    ("butter", "the same amount of a neutral oil, or a little less", "use about three quarters as much oil as butter", "the richness"),
    ("brown sugar", "white sugar with a spoonful of honey or molasses", "mix them well before adding", "the colour"),
    ("sour cream", "plain Greek yogurt", "swap it in one for one", "the tang"),
    ("baking powder", "baking soda with a little lemon juice or vinegar", "use about a quarter as much baking soda", "the rise"),
    ("heavy cream", "whole milk with a little melted butter", "about three parts milk to one part butter", "the richness"),
    ("fresh herbs", "dried herbs", "use about a third as much because dried herbs are stronger", "the flavour"),
    ("white wine", "stock with a squeeze of lemon", "swap it in one for one", "the acidity"),
    ("parmesan", "an aged cheddar or pecorino", "grate it finely", "the saltiness"),
    ("breadcrumbs", "crushed crackers or rolled oats", "blitz them to a similar size", "the crunch"),
    ("honey", "maple syrup", "swap it in one for one", "the sweetness"),

    ("cornflour", "plain flour", "use twice as much flour as the cornflour the recipe asks for", "the texture"),
    ("lemon juice", "white wine vinegar or lime juice", "use a little less vinegar than the lemon juice", "the brightness"),
    ("milk", "oat milk or any plant milk", "swap it in one for one", "the creaminess"),
    ("self raising flour", "plain flour with two teaspoons of baking powder per 150 grams", "sift them together well", "the rise"),
    ("mascarpone", "cream cheese loosened with a little cream", "beat them together until smooth", "the richness"),
    ("garlic", "garlic powder", "use about an eighth of a teaspoon per clove", "the sharpness"),
    ("soy sauce", "Worcestershire sauce mixed with a little water", "use about half as much", "the saltiness"),
    ("vanilla extract", "maple syrup or a little cinnamon", "use the same amount of syrup", "the aroma"),
)
BAKES = (
    "banana bread", "pancakes", "brownies", "blueberry muffins", "quiche", "oat cookies",
    "lasagne", "mac and cheese", "carrot cake", "scones", "chicken pie", "meatballs",
    "cornbread", "apple crumble", "fish cakes", "waffles",
)


def _sub_view(s: Slots) -> Slots:
    missing, sub, ratio, effect = s["missing"]  # type: ignore[misc]
    return {"missing": missing, "sub": sub, "ratio": ratio, "effect": effect}


COOKING_SUB = Scenario(
    domain="cooking",
    slots={"missing": choice_of(SUBSTITUTES), "bake": choice_of(BAKES), "who": choice_of(RELATIVES)},
    derive=_sub_view,
    request=(
        "I'm making {bake} and I just ran out of {missing}. What can I use instead?",
        "Help, no {missing} in the house and I'm halfway through {bake}. Any substitute?",
        "What's a good swap for {missing} in {bake}?",
        "My {who} wants {bake} but I don't have {missing}. Can I still make it?",
    ),
    answer=(
        (
            "[No {missing}? No problem|Don't worry about the {missing}|Good news, you can still make {bake}], [there's an easy swap|you have options].",
            "[Yes|Sure|Absolutely], you can [still make|make] {bake} without {missing}.",
        ),
        (
            "[The best substitute is|I'd use|Try] {sub}.",
            "[Most people reach for|The easiest swap is|What works well is] {sub}[ in {bake}|].",
        ),
        (
            "[As for amounts|For the ratio|Amount wise], {ratio}.",
            "[To get it right in {bake}|When you swap it in|Quantity wise], {ratio}.",
        ),
        (
            "[It might change|You may notice a small change in|The only difference is] {effect} of the {bake}[ a little|, but hardly anyone will notice|].",
            "[Expect|There might be] a [slight|small] difference in {effect}[, but {bake} is forgiving|, nothing that ruins it|].",
        ),
        (
            "[Everything else in|The rest of] the {bake} recipe [stays the same|doesn't change|is exactly as written].",
            "[Keep the oven temperature and timing the same for|No other changes needed for] the {bake}[, just check it a few minutes early|].",
        ),
        (
            *offer("[add {missing} to|put {missing} on] your shopping list for next time", ", if you like"),
            "[If you like|Next time you shop], I can remind you to [pick up|buy] {missing}[ so you're not caught out again|].",
        ),
    ),
    corrections=(
        Correction(
            "missing",
            "{missing}",
            user=("Oh sorry, it's {missing} I'm out of, not {old_missing}.", "Wait, I do have {old_missing}, it's {missing} I'm missing."),
            ack=("[Ah|Oh], {missing}[, okay|, got it]. [Different swap then|That's a different fix].",),
        ),
        Correction("bake", "{bake}", user=("Actually, it's for {bake}, not {old_bake}.",)),
    ),
    topic=("the {missing} swap", "substitutes for {missing}", "your {bake}"),
)

ROASTS = (
    # name, minutes per 500 g, extra minutes, oven temp, rest minutes
    ("whole chicken", 20, 20, 190, 15),
    ("pork shoulder", 35, 30, 170, 20),
    ("leg of lamb", 25, 20, 180, 20),
    ("beef topside", 20, 20, 190, 15),
    ("turkey crown", 20, 20, 180, 30),
    ("gammon joint", 30, 20, 180, 15),

    ("duck", 25, 25, 190, 15),
    ("beef rib", 15, 15, 200, 20),
    ("pork belly", 30, 40, 170, 15),
)


def _roast_view(s: Slots) -> Slots:
    name, per, extra, temp, rest = s["roast"]  # type: ignore[misc]
    kilos = int(s["grams"]) / 1000  # type: ignore[arg-type]
    minutes = round(int(s["grams"]) / 500 * per + extra)  # type: ignore[arg-type]
    hours, mins = divmod(minutes, 60)
    if hours == 0:
        spoken = f"{mins} minutes"
    elif mins == 0:
        spoken = "1 hour" if hours == 1 else f"{hours} hours"
    else:
        spoken = f"{hours} hour{'s' if hours > 1 else ''} and {mins} minutes"
    eat_h, eat_m = s["eat"]  # type: ignore[misc]
    start = eat_h * 60 + eat_m - minutes - rest - 15
    start_h, start_m = divmod(start, 60)
    start_m = 5 * (start_m // 5)
    return {
        "roast": name,
        "weight": f"{kilos:g} kilo" if kilos == 1 else f"{kilos:g} kilos",
        "weight_adj": f"{kilos:g} kilo",
        "roast_time": spoken,
        "minutes": minutes,
        "per": per,
        "extra": extra,
        "temp": temp,
        "rest": rest,
        "eat_t": spoken_time(eat_h, eat_m, int(s["tstyle"])),  # type: ignore[arg-type]
        "start_t": spoken_time(start_h, start_m, int(s["tstyle"])),  # type: ignore[arg-type]
    }


COOKING_ROAST = Scenario(
    domain="cooking",
    slots={
        "roast": choice_of(ROASTS),
        "grams": int_between(1000, 3000, 250),
        "eat": choice_of(((13, 0), (13, 30), (18, 0), (18, 30), (19, 0), (19, 30), (20, 0))),
        "tstyle": int_between(0, 4),
    },
    derive=_roast_view,
    request=(
        "How long should I roast a {weight_adj} {roast}? We want to eat at {eat_t}.",
        "I've got a {weight_adj} {roast}. When do I put it in if dinner's at {eat_t}?",
        "Can you work out the cooking time for a {roast}, {weight}, for dinner at {eat_t}?",
        "What time should the {weight} {roast} go in the oven? We're eating at {eat_t}.",
    ),
    answer=(
        (
            "[Okay|Sure|Let's work it out], a {weight_adj} {roast} needs about {roast_time} in the oven.",
            "[Right|Alright], for a {roast} weighing {weight}, [plan on|you're looking at] about {roast_time}.",
        ),
        (
            "[That's based on|The rule I'm using is] {per} minutes per 500 grams plus an extra {extra}[, at {temp} degrees Celsius|].",
            "[I worked that out as|That comes from] {per} minutes for every 500 grams[, then {extra} minutes on top|, plus {extra} more].",
        ),
        (
            "[Preheat|Heat] the oven to {temp} degrees Celsius[, or a little lower with a fan oven| before the {roast} goes in|].",
            "[Make sure the oven is at|Get the oven up to] {temp} degrees [first|before anything goes in][, so the {roast} starts cooking straight away|].",
        ),
        (
            "[Let it rest|Rest the {roast}] for {rest} minutes [under foil|loosely covered] [before carving|once it's out].",
            "[Don't skip the rest|Resting matters]: {rest} minutes [under foil|on the board] keeps the {roast} juicy.",
        ),
        (
            "[So|Working back from {eat_t}], [put|get] it in [around|at about] {start_t}[, which leaves time to rest and carve|, and you'll eat at {eat_t}|].",
            "[To eat at {eat_t}|For dinner at {eat_t}], the {roast} should go in [at about|around] {start_t}.",
        ),
        (
            "[Want|Would you like] me to set a reminder for {start_t}[ to put it in|]?",
            *offer("[remind you|give you a nudge] at {start_t} when it's time for the {roast} to go in", ", if that helps"),
        ),
    ),
    corrections=(
        Correction(
            "grams",
            "{weight}",
            user=("Sorry, it's actually {weight}, I misread the label.", "Wait, it's a {weight} one."),
            ack=("[Ah|Okay], {weight}[, that changes the timing|, let me redo the maths|].",),
        ),
        Correction(
            "eat",
            "{eat_t}",
            user=("Actually, we'll eat at {eat_t} instead.", "Change of plan, dinner's at {eat_t}."),
            ack=("[Okay|Sure], eating at {eat_t} [then|instead][, new start time coming up|].",),
        ),
    ),
    topic=("the {roast} timing", "your {roast}", "the roasting times"),
)

# =========================================================================== restaurants


class Cuisine(NamedTuple):
    name: str
    places: tuple[str, str, str]
    dish: str
    price: int  # per person, dollars


CUISINES: tuple[Cuisine, ...] = (
    Cuisine("Italian", ("Trattoria Luce", "Casa Nonna", "Il Giardino"), "the handmade pappardelle", 35),
    Cuisine("Thai", ("Baan Suan", "Lemongrass House", "Siam Garden"), "the green curry", 28),
    Cuisine("Japanese", ("Kiku", "Sakura Table", "Umi"), "the chef's sushi selection", 45),
    Cuisine("Mexican", ("La Palapa", "Cantina Azul", "El Jardin"), "the slow cooked carnitas", 25),
    Cuisine("Indian", ("Spice Route", "Saffron Lounge", "The Tandoor Room"), "the lamb rogan josh", 30),
    Cuisine("Greek", ("Olive and Vine", "Taverna Mykonos", "The Blue Door"), "the grilled octopus", 32),
    Cuisine("Lebanese", ("Cedar Kitchen", "Beirut Nights", "Za'atar"), "the mixed mezze platter", 30),
    Cuisine("French", ("Bistro Lumiere", "Le Petit Coin", "Maison Rouge"), "the duck confit", 50),
    Cuisine("Korean", ("Seoul Kitchen", "Bibim House", "Hanok"), "the bibimbap in a hot stone bowl", 30),
    Cuisine("Vietnamese", ("Pho Saigon", "Lotus Leaf", "The Little Banh Mi"), "the beef pho", 22),
    Cuisine("Spanish", ("Casa Tapas", "La Bodega", "El Toro"), "the seafood paella", 40),
    Cuisine("vegetarian", ("Green Table", "The Sprout", "Harvest Kitchen"), "the roasted cauliflower steak", 30),
    Cuisine("seafood", ("The Oyster Shed", "Harbour Catch", "Salt and Line"), "the catch of the day", 48),
    Cuisine("Ethiopian", ("Blue Nile", "Injera House", "Addis Table"), "the vegetarian combination platter", 26),
)
CUISINE_BY_NAME = {c.name: c for c in CUISINES}

TIMES = ((12, 30), (13, 0), (18, 0), (18, 30), (19, 0), (19, 15), (19, 30), (20, 0), (20, 30), (21, 0))


def _booking_view(s: Slots) -> Slots:
    c = CUISINE_BY_NAME[str(s["cuisine"])]
    idx = int(s["pick"])  # type: ignore[arg-type]
    party = int(s["party"])  # type: ignore[arg-type]
    hour, minute = s["time"]  # type: ignore[misc]
    bare, on = s["day"]  # type: ignore[misc]
    total = c.price * party
    return {
        "place": c.places[idx % 3],
        "dish": c.dish,
        "price": c.price,
        "party_w": number_words(party),
        "total": money(total),
        "time_t": spoken_time(hour, minute, int(s["tstyle"])),  # type: ignore[arg-type]
        "day": bare,
        "day_on": on,
        "walk": 4 + (idx * 7 + party) % 17,
        "a_cuisine": ("an " if c.name[0] in "AEIOU" else "a ") + c.name,
    }


RESTAURANT_BOOKING = Scenario(
    domain="restaurants",
    slots={
        "cuisine": choice_of(tuple(CUISINE_BY_NAME)),
        "party": int_between(2, 10),
        "time": choice_of(TIMES),
        "day": choice_of(DAYS),
        "pick": int_between(0, 2),
        "tstyle": int_between(0, 4),
    },
    derive=_booking_view,
    request=(
        "Can you find me {a_cuisine} place for {party} people {day_on} at {time_t}?",
        "I'd like to book {a_cuisine} restaurant {day_on}, {party} people, around {time_t}.",
        "We're {party} and we feel like {cuisine} food {day_on}. Anywhere good around {time_t}?",
        "Find a table for {party} at {a_cuisine} spot {day_on}, {time_t} if possible.",
        "Is there a good {cuisine} restaurant nearby with room for {party} {day_on} at {time_t}?",
    ),
    answer=(
        (
            "[Sure|Okay|Good news], I found {place}, {a_cuisine} place about {walk} minutes' walk from you.",
            "[How about|I'd suggest|There's] {place}[, a well reviewed {cuisine} restaurant| for {cuisine}], [about|around] {walk} minutes away on foot.",
        ),
        (
            "They have a table for {party} {day_on} at {time_t}[, which matches what you wanted|].",
            "[There's availability for|They can seat] {party_w} people at {time_t} {day_on}.",
            "[A table for {party}|Space for {party_w}] is open {day_on} at {time_t}[, so you're in luck|].",
        ),
        (
            "[People really rave about|The dish to order is|Regulars recommend] {dish}.",
            "[If you're not sure what to get|For a first visit], {dish} at {place} [is the favourite|gets great reviews|is the one to try].",
        ),
        (
            "[Expect to pay|Budget] about {price} dollars a head, so roughly {total} for {party_w} of you.",
            "[Prices are|It works out] around {price} dollars per person, [or about|so about] {total} [for the table|in total for {party}].",
        ),
        (
            "[For a group of {party}|With {party_w} of you], [it might be worth|I'd suggest] [mentioning any allergies when you book|asking for a table away from the kitchen door].",
            "[{place} can get busy|It fills up fast] {day_on}, so [book soon|I'd confirm quickly|it's worth locking it in now].",
        ),
        (
            "[Shall I|Do you want me to|Would you like me to] [book it|confirm the table|reserve it] for {party} at {time_t}?",
            "[Want me to go ahead and|Should I] [reserve|hold] the table at {place} for {time_t}?",
        ),
    ),
    corrections=(
        Correction(
            "party",
            "{party} people",
            user=("Actually, we're {party} now, not {old_party}.", "Sorry, make that a table for {party}.", "Oh, {party} people, I forgot a couple of friends."),
            ack=("[Okay|Sure], a table for {party_w} [then|instead].", "[Got it|Right], {party} people, [let me recheck the table|same place, bigger table]."),
        ),
        Correction(
            "time",
            "{time_t}",
            user=("Can we make it {time_t} instead?", "Actually, {time_t} would be better."),
            ack=("[Sure|Okay], {time_t} [instead|then][, let me check that slot|].",),
        ),
        Correction("day", "{day}", user=("Oh wait, I meant {day}, not {old_day}.",)),
        Correction(
            "cuisine",
            "{cuisine}",
            user=("Hmm, actually I'm more in the mood for {cuisine}.", "Change of plan, let's do {cuisine} food instead."),
            ack=("[Ooh|Sure|Okay], {cuisine} [instead|it is|then]. [Let me look again|New place coming up].",),
        ),
    ),
    topic=("the booking at {place}", "your table for {party}", "the {cuisine} restaurant", "dinner plans for {day}"),
    weight=1.5,
)


class MenuItem(NamedTuple):
    name: str
    tags: frozenset[str]


MENUS: dict[str, tuple[MenuItem, ...]] = {
    "Italian": (
        MenuItem("a margherita pizza", frozenset({"vegetarian"})),
        MenuItem("risotto with porcini", frozenset({"vegetarian", "gluten free"})),
        MenuItem("grilled sea bass with salsa verde", frozenset({"gluten free", "dairy free"})),
        MenuItem("minestrone soup", frozenset({"vegetarian", "vegan", "dairy free"})),
        MenuItem("penne arrabbiata", frozenset({"vegetarian", "vegan", "dairy free"})),
    ),
    "Indian": (
        MenuItem("chana masala", frozenset({"vegetarian", "vegan", "gluten free", "dairy free"})),
        MenuItem("tandoori chicken", frozenset({"gluten free"})),
        MenuItem("palak paneer", frozenset({"vegetarian", "gluten free"})),
        MenuItem("tarka dal", frozenset({"vegetarian", "vegan", "gluten free", "dairy free"})),
        MenuItem("lamb biryani", frozenset({"gluten free", "dairy free"})),
    ),
    "Japanese": (
        MenuItem("vegetable tempura", frozenset({"vegetarian", "vegan", "dairy free"})),
        MenuItem("salmon sashimi", frozenset({"gluten free", "dairy free"})),
        MenuItem("agedashi tofu", frozenset({"vegetarian", "vegan", "dairy free"})),
        MenuItem("chicken yakitori with salt instead of sauce", frozenset({"gluten free", "dairy free"})),
        MenuItem("edamame with sea salt", frozenset({"vegetarian", "vegan", "gluten free", "dairy free"})),
    ),
    "Mexican": (
        MenuItem("black bean tacos on corn tortillas", frozenset({"vegetarian", "vegan", "gluten free", "dairy free"})),
        MenuItem("chicken fajitas", frozenset({"dairy free"})),
        MenuItem("cheese enchiladas", frozenset({"vegetarian"})),
        MenuItem("fish tacos with slaw", frozenset({"dairy free", "gluten free"})),
        MenuItem("guacamole with corn chips", frozenset({"vegetarian", "vegan", "gluten free", "dairy free"})),
    ),
    "Thai": (
        MenuItem("tofu green curry", frozenset({"vegetarian", "vegan", "gluten free", "dairy free"})),
        MenuItem("chicken satay", frozenset({"gluten free", "dairy free"})),
        MenuItem("papaya salad", frozenset({"vegetarian", "dairy free", "gluten free"})),
        MenuItem("vegetable pad see ew", frozenset({"vegetarian", "dairy free"})),
        MenuItem("tom kha soup", frozenset({"gluten free", "dairy free"})),
    ),
    "Greek": (
        MenuItem("a horiatiki salad", frozenset({"vegetarian", "gluten free"})),
        MenuItem("souvlaki skewers", frozenset({"gluten free", "dairy free"})),
        MenuItem("gigantes beans in tomato", frozenset({"vegetarian", "vegan", "gluten free", "dairy free"})),
        MenuItem("spanakopita", frozenset({"vegetarian"})),
        MenuItem("grilled halloumi", frozenset({"vegetarian", "gluten free"})),
    ),
}
DIETS = ("vegetarian", "vegan", "gluten free", "dairy free")


def _order_view(s: Slots) -> Slots:
    cuisine = str(s["cuisine"])
    diet = str(s["diet"])
    items = [m.name for m in MENUS[cuisine] if diet in m.tags]
    others = [m.name for m in MENUS[cuisine] if diet not in m.tags]
    while len(items) < 2:
        items.append(items[0] if items else "the chef's special adapted for you")
    avoid = others[0] if others else "anything with a creamy sauce"
    return {"pick1": items[0], "pick2": items[1], "avoid": avoid, "a_cuisine": ("an " if cuisine[0] in "AEIOU" else "a ") + cuisine}


RESTAURANT_ORDER = Scenario(
    domain="restaurants",
    slots={"cuisine": choice_of(tuple(MENUS)), "diet": choice_of(DIETS), "friend": choice_of(FIRST_NAMES)},
    derive=_order_view,
    request=(
        "I'm going to {a_cuisine} restaurant with {friend} and I eat {diet}. What should I order?",
        "What's safe to order at {a_cuisine} place if you're {diet}?",
        "{friend} picked {a_cuisine} restaurant tonight. Any {diet} options I should look for?",
        "Can you help me order at {a_cuisine} restaurant? I need {diet} food.",
    ),
    answer=(
        (
            "[Good news|Don't worry|Luckily], {cuisine} food has [some great|plenty of|a few solid] {diet} options.",
            "[Sure|Happy to help], eating {diet} at {a_cuisine} restaurant is [usually easy|pretty manageable].",
        ),
        (
            "[I'd look for|Try|My first pick would be] {pick1}[, which is usually {diet} as it comes|].",
            "{pick1} is [normally|typically] {diet}[, so that's a safe bet|, and it's delicious|].",
        ),
        (
            "{pick2} [is another good choice|works too|is worth a look][ if you want something different|].",
            "[As a second option|For sharing with {friend}], {pick2} [is a good one|tends to be {diet} too].",
        ),
        (
            "[I'd be careful with|Maybe skip|Watch out for] {avoid}, since it [usually|often] isn't {diet}.",
            "[The one to avoid|The dish to double check] is {avoid}[, which normally isn't {diet}|].",
        ),
        (
            "[It's always worth|Don't be shy about] telling the server you're {diet}[, because kitchens can often adapt dishes|, they'll point out hidden ingredients].",
            "[Kitchens at {cuisine} places|Most {cuisine} kitchens] [can usually adapt|are used to adapting] dishes for {diet} diners[ if you ask|].",
        ),
        (
            "[Enjoy dinner with {friend}|Have a lovely time with {friend}], and [let me know|tell me] if you want [the menu translated|help reading the menu].",
            "[If you send me|If you read me] the menu, I can [check|flag] the {diet} dishes [for you|one by one].",
        ),
    ),
    corrections=(
        Correction(
            "diet",
            "{diet}",
            user=("Oh, sorry, I'm {diet} actually, not {old_diet}.", "Wait, it's {diet} I need."),
            ack=("[Ah|Okay], {diet}[, got it|, that changes things a bit].",),
        ),
        Correction("cuisine", "{cuisine}", user=("Actually, we switched to {a_cuisine} place.", "Oh, it's {cuisine} now, not {old_cuisine}.")),
    ),
    topic=("what to order at the {cuisine} place", "your {diet} options", "the {cuisine} menu"),
)

# =========================================================================== shopping


class Product(NamedTuple):
    name: str
    features: tuple[str, str, str]
    low: int
    high: int
    tip: str


PRODUCTS: tuple[Product, ...] = (
    Product("running watch", ("accurate GPS", "a battery that lasts a week", "a screen you can read in sunlight"), 80, 600, "try it on to check it's comfortable for a long run"),
    Product("laptop", ("at least 16 gigabytes of memory", "a solid state drive", "a battery that lasts a full work day"), 400, 1800, "check the weight if you'll carry it a lot"),
    Product("coffee machine", ("a built in grinder", "a milk frother", "parts that are easy to clean"), 80, 900, "look at the price of the pods or beans over a year"),
    Product("vacuum cleaner", ("strong suction on carpets", "a washable filter", "a long enough cord or battery"), 100, 700, "check how loud it is in the reviews"),
    Product("smart speaker", ("good sound for its size", "a microphone mute button", "support for your other devices"), 40, 400, "check how it sounds at low volume too"),
    Product("office chair", ("adjustable lumbar support", "adjustable arm rests", "a breathable mesh back"), 120, 1200, "sit in it for at least ten minutes before you buy"),
    Product("rain jacket", ("fully taped seams", "pit zips for ventilation", "a hood that moves with your head"), 60, 400, "check it packs down small"),
    Product("mattress", ("a long trial period", "medium firmness for most sleepers", "good edge support"), 300, 2000, "use the trial period properly, at least a few weeks"),
    Product("blender", ("a motor of at least 1000 watts", "a sturdy jug", "a pulse button"), 40, 500, "check that the jug is dishwasher safe"),
    Product("tablet", ("a bright screen", "enough storage for your apps", "long software support"), 150, 1100, "think about whether you'll want a keyboard case"),
    Product("bike", ("the right frame size for your height", "reliable gears", "good brakes"), 300, 2000, "always take a test ride first"),
    Product("winter coat", ("a warm but light filling", "a water resistant shell", "a hood and deep pockets"), 80, 600, "buy it slightly roomy so it fits over a sweater"),

    Product("robot vacuum", ("mapping so it cleans in neat lines", "a self emptying dock", "good obstacle detection"), 150, 1200, "check whether it can cross the thresholds in your home"),
    Product("electric toothbrush", ("a two minute timer", "a pressure sensor", "cheap replacement heads"), 30, 250, "work out what the replacement heads cost each year"),
    Product("air fryer", ("a basket of at least four litres", "a dishwasher safe basket", "simple controls"), 50, 300, "measure the space on your counter first"),
    Product("smartwatch", ("accurate heart rate tracking", "at least two days of battery", "water resistance for swimming"), 100, 800, "make sure it works with your phone"),
    Product("kettle", ("a rapid boil element", "a clear water window", "a temperature setting for green tea"), 20, 150, "check that the lid opens wide enough for easy cleaning"),
    Product("desk lamp", ("adjustable brightness", "a warm light setting", "a flexible arm"), 20, 200, "look for a flicker free light if you work late"),
    Product("backpack", ("a padded laptop sleeve", "comfortable shoulder straps", "a water resistant fabric"), 40, 250, "load it up in the shop to feel how it carries"),
    Product("sewing machine", ("an automatic buttonhole", "adjustable stitch length", "a drop in bobbin"), 100, 700, "pick one with a decent warranty"),
)
PRODUCT_BY_NAME = {p.name: p for p in PRODUCTS}


def _product_view(s: Slots) -> Slots:
    p = PRODUCT_BY_NAME[str(s["product"])]
    frac = int(s["frac"]) / 10  # type: ignore[arg-type]
    budget = int(round((p.low + frac * (p.high - p.low)) / 10.0) * 10)
    mid = (p.low + p.high) / 2
    tier = "entry level" if budget < p.low + (p.high - p.low) * 0.25 else "mid range" if budget < mid else "premium"
    advice = {
        "entry level": "you'll get the basics, so focus on the one feature that matters most to you",
        "mid range": "you're in the sweet spot where quality jumps without paying for the brand",
        "premium": "you can afford the top models, so don't let a salesperson push you past your budget",
    }[tier]
    name = p.name.removeprefix("pair of ")
    return {
        "budget": budget,
        "f1": p.features[0],
        "f2": p.features[1],
        "f3": p.features[2],
        "tier": tier,
        "advice": advice,
        "tip": p.tip,
        "low": p.low,
        "high": p.high,
        "item": name,
    }


SHOPPING_PRODUCT = Scenario(
    domain="shopping",
    slots={"product": choice_of(tuple(PRODUCT_BY_NAME)), "frac": int_between(0, 10)},
    derive=_product_view,
    request=(
        "I need a new {product} and I have about {budget} dollars. What should I look for?",
        "Can you help me pick a {product}? My budget's {budget} dollars.",
        "What matters when buying a {product}? I can spend around {budget} dollars.",
        "I'm shopping for a {product} under {budget} dollars. Any advice?",
    ),
    answer=(
        (
            "[Sure|Okay|Happy to help], with {budget} dollars you're looking at a {tier} {item}.",
            "[Alright|Good question], {budget} dollars puts you [in the {tier} range|at the {tier} end] for a {item}.",
        ),
        (
            "[Most|Typical] {item} prices run from about {low} to {high} dollars, and {advice}.",
            "[Prices go|The range is] roughly {low} to {high} dollars[ for a {item}|], [so|which means] {advice}.",
        ),
        (
            "[The first thing to look for is|Above all, look for|Make sure it has] {f1}.",
            "[Top of the list|Priority number one] [should be|is] {f1}[ for a {item}|].",
        ),
        (
            "[After that|Second|Next], [check for|look for|you want] {f2} and {f3}.",
            "[Also|Beyond that], {f2} and {f3} [are worth having|make a real difference|matter more than people think].",
        ),
        (
            "[One tip|A practical tip|Something people forget]: {tip}.",
            "[Before you buy the {item}|When you're in the shop], {tip}.",
        ),
        (
            *offer("[look up|compare] a few {item} models [around|under] {budget} dollars", " for you"),
            "[I could also|Happy to] [check|watch] for {item} deals [under|below] {budget} dollars[ and let you know|].",
        ),
    ),
    corrections=(
        Correction(
            "frac",
            "{budget} dollars",
            user=("Actually, my budget is more like {budget} dollars.", "Sorry, I meant {budget}, not {old_budget}."),
            ack=("[Okay|Got it], {budget} dollars [then|instead][, that shifts things a bit|].",),
        ),
        Correction(
            "product",
            "a {item}",
            user=("Oh wait, I meant a {product}, not a {old_item}.", "Actually, it's a {product} I need."),
            ack=("[Ah|Oh], a {item}[, different beast|, okay|, got it].",),
        ),
    ),
    topic=("the {item} shopping", "your {item} search", "the {item} advice"),
)


class Hobby(NamedTuple):
    name: str
    ideas: tuple[tuple[str, int], ...]  # (gift, price)


HOBBIES: tuple[Hobby, ...] = (
    Hobby("gardening", (("a set of good pruning shears", 35), ("a kneeling pad and gloves", 25), ("a raised planter kit", 90), ("a rare seed collection", 20))),
    Hobby("baking", (("a digital kitchen scale", 25), ("a cast iron bread pot", 70), ("a sourdough starter kit", 30), ("a cake decorating set", 40))),
    Hobby("reading", (("a cosy reading light", 30), ("a book subscription", 60), ("a bookstore gift card", 50), ("a set of nice bookmarks", 15))),
    Hobby("hiking", (("a lightweight headlamp", 35), ("merino hiking socks", 25), ("a trail guide for the region", 20), ("trekking poles", 80))),
    Hobby("painting", (("a set of artist watercolours", 45), ("a pad of heavy paper", 20), ("a tabletop easel", 60), ("a painting class voucher", 90))),
    Hobby("coffee", (("a hand grinder", 50), ("a bag of specialty beans", 20), ("a pour over set", 40), ("a coffee tasting class", 75))),
    Hobby("music", (("concert tickets", 80), ("a vinyl record they love", 30), ("a nice pair of earbuds", 60), ("a songbook for their instrument", 20))),
    Hobby("yoga", (("a thick yoga mat", 45), ("a set of cork blocks", 25), ("a class pass", 80), ("a meditation cushion", 40))),
    Hobby("board games", (("a new strategy game", 45), ("a card game for two", 15), ("a dice tray", 20), ("a game night snack basket", 35))),
    Hobby("cooking", (("a good chef's knife", 70), ("a spice collection", 30), ("a cookbook from their favourite cuisine", 30), ("a pasta making class", 90))),
    Hobby("photography", (("a camera strap", 25), ("a photo book printing voucher", 40), ("a small tripod", 35), ("a lens cleaning kit", 15))),
    Hobby("cycling", (("a set of bike lights", 35), ("padded cycling gloves", 25), ("a saddle bag with tools", 30), ("a bike service voucher", 60))),

    Hobby("knitting", (("a set of bamboo needles", 25), ("a skein of luxury wool", 30), ("a knitting bag with pockets", 40), ("a beginner pattern book", 20))),
    Hobby("camping", (("a compact camping stove", 45), ("a warm sleeping bag liner", 30), ("a rechargeable lantern", 35), ("a packable hammock", 50))),
    Hobby("tea", (("a loose leaf tea sampler", 30), ("a glass teapot with an infuser", 35), ("a set of handmade cups", 45), ("a tea tasting experience", 80))),
    Hobby("fishing", (("a tackle box starter kit", 35), ("a folding stool with a cooler bag", 45), ("polarised sunglasses", 60), ("a fishing trip voucher", 90))),
    Hobby("woodworking", (("a good set of chisels", 60), ("a sharpening stone", 30), ("a carpentry apron", 25), ("a workshop class", 95))),
    Hobby("video games", (("a new controller", 60), ("a game from their wish list", 50), ("a gaming headset", 70), ("an online subscription", 40))),
)
HOBBY_BY_NAME = {h.name: h for h in HOBBIES}


def _gift_view(s: Slots) -> Slots:
    h = HOBBY_BY_NAME[str(s["hobby"])]
    budget = int(s["budget"])  # type: ignore[arg-type]
    within = sorted((i for i in h.ideas if i[1] <= budget), key=lambda i: -i[1])
    over = sorted((i for i in h.ideas if i[1] > budget), key=lambda i: i[1])
    if not within:
        within = [min(h.ideas, key=lambda i: i[1])]
    a = within[0]
    b = within[1] if len(within) > 1 else (over[0] if over else within[0])
    left = budget - a[1]
    if left >= 5:
        left_note = f"that leaves about {left} dollars for a card and wrapping paper"
    else:
        left_note = f"that uses up pretty much all of the {budget} dollars"
    return {
        "left_note": left_note,
        "gift1": a[0],
        "price1": a[1],
        "gift2": b[0],
        "price2": b[1],
        "left": max(0, left),
        "stretch": over[0][0] if over else "a combination of two of these",
    }


SHOPPING_GIFT = Scenario(
    domain="shopping",
    slots={"who": choice_of(RELATIVES), "hobby": choice_of(tuple(HOBBY_BY_NAME)), "budget": int_between(20, 100, 5)},
    derive=_gift_view,
    request=(
        "I need a gift for my {who} who loves {hobby}. I can spend about {budget} dollars.",
        "Any gift ideas for my {who}? They're really into {hobby}, and my budget is {budget} dollars.",
        "What should I get my {who} for their birthday? Big {hobby} fan, around {budget} dollars.",
        "Help me find a present for my {who}, who loves {hobby}. Up to {budget} dollars.",
    ),
    answer=(
        (
            "[Fun|Lovely|Oh nice], a {hobby} gift for your {who} with {budget} dollars [to spend|is very doable].",
            "[Sure|Great], there are [some lovely|plenty of good] {hobby} gifts [for|at] around {budget} dollars.",
        ),
        (
            "My top pick would be {gift1}, which [usually costs|tends to run] about {price1} dollars.",
            "[I'd go for|How about] {gift1}[, at roughly {price1} dollars|, around {price1} dollars]?",
        ),
        (
            "[Another idea is|Or you could get|A second option is] {gift2} for [about|around] {price2} dollars.",
            "{gift2} [is a nice alternative|would also be great], [usually|roughly] {price2} dollars.",
        ),
        (
            "[If you go with {gift1}|With the first idea|Budget wise], {left_note}.",
            "[Choosing {gift1}|Picking the first one] at {price1} dollars, {left_note}.",
        ),
        (
            "[If you can stretch a bit|With a bit more money], {stretch} [is a real treat|would really impress] for a {hobby} lover.",
            "[A bigger splurge would be|If you want to go bigger], {stretch} [is the dream gift|is always a hit] for {hobby}.",
        ),
        (
            "[Want|Would you like] me to [find|look up] where to buy {gift1} nearby?",
            *offer("[add|save] {gift1} to your list for your {who}", " so you don't forget"),
        ),
    ),
    corrections=(
        Correction("budget", "{budget} dollars", user=("Actually, I can spend {budget} dollars.", "Let's say {budget} dollars instead.")),
        Correction(
            "hobby",
            "{hobby}",
            user=("Oh, wait, they're more into {hobby} these days.", "Sorry, I meant {hobby}, not {old_hobby}."),
            ack=("[Ah|Oh], {hobby}[, even better|, okay|, got it]. [New ideas then|Let me rethink that].",),
        ),
        Correction("who", "your {who}", user=("Actually, it's for my {who}.",), ack=("[Ah|Oh], your {who}[, okay|, got it|], same ideas still work.",)),
    ),
    topic=("the gift for your {who}", "{hobby} gift ideas", "your {who}'s present"),
)

SCENARIOS: tuple[Scenario, ...] = (
    COOKING_RECIPE,
    COOKING_SUB,
    COOKING_ROAST,
    RESTAURANT_BOOKING,
    RESTAURANT_ORDER,
    SHOPPING_PRODUCT,
    SHOPPING_GIFT,
)

__all__ = ["SCENARIOS", "DISHES", "CUISINES", "PRODUCTS", "HOBBIES"]
