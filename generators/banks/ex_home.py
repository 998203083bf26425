"""Exchanges for tech help, home, music, finance and health."""

from __future__ import annotations

import math
from typing import NamedTuple

from .engine import Correction, offer, Scenario, Slots, choice_of, int_between, money, number_words, spoken_time
from .values import COLORS, FIRST_NAMES, MONTHS, ROOMS

# =========================================================================== tech help

DEVICES = (
    "laptop", "phone", "tablet", "work laptop", "old phone", "new phone", "kid's tablet",
    "Windows laptop", "Android phone", "iPad", "MacBook", "iPhone",
)


class Problem(NamedTuple):
    user: str  # as the user states it
    short: str  # noun phrase
    steps: tuple[str, str, str, str]
    escalate: str


PROBLEMS: tuple[Problem, ...] = (
    Problem("the wifi keeps dropping", "wifi dropouts",
            ("restart the router by unplugging it for a full 30 seconds",
             "forget the network on your {device} and then reconnect with the password",
             "check whether the {device} has a software update waiting, since network bugs get fixed that way",
             "move a bit closer to the router to see if the signal strength is the real issue"),
            "your internet provider, since the line itself might be faulty"),
    Problem("the battery dies really fast", "battery drain",
            ("open the battery section in the settings on your {device} and see which app uses the most",
             "turn the screen brightness down and set the screen to lock after a minute",
             "switch off background refresh for apps you don't need updating all the time",
             "restart the {device}, because a stuck process can chew through the battery"),
            "the manufacturer, because the battery may simply be worn out"),
    Problem("everything is super slow", "the slowdown",
            ("restart the {device} properly, not just closing the lid or locking the screen",
             "check how much storage is free, and aim to keep at least ten percent of it empty",
             "close or uninstall apps you haven't used in months",
             "install any pending updates on the {device}, then restart it again"),
            "a repair shop, in case the storage drive is starting to fail"),
    Problem("there's no sound at all", "the missing sound",
            ("check that the {device} isn't muted and the volume is turned up",
             "make sure it isn't still connected to a Bluetooth speaker or headphones somewhere else",
             "look at the sound output setting on the {device} and pick the built in speakers",
             "restart the {device} to reset the audio system"),
            "the manufacturer's support line, since the speaker hardware might be at fault"),
    Problem("my Bluetooth headphones won't connect", "the headphone pairing",
            ("turn Bluetooth off and on again on your {device}",
             "remove the headphones from the list of paired devices on the {device}",
             "put the headphones into pairing mode, usually by holding the power button until a light flashes",
             "pair them again from the Bluetooth settings on the {device}"),
            "the headphone maker, because a firmware reset might be needed"),
    Problem("it says the storage is full", "the full storage",
            ("check the storage section in the settings on your {device} to see what's taking up space",
             "clear out old videos, since they're usually the biggest files",
             "delete apps you no longer use, along with their downloads",
             "turn on cloud backup for photos and then remove the local copies"),
            "a bigger cloud storage plan, if you really need to keep everything"),
    Problem("the screen froze completely", "the frozen screen",
            ("hold the power button for about 10 seconds until the {device} restarts",
             "once it's back, check for updates on the {device} right away",
             "think about which app was open when it froze and update or remove that app",
             "keep an eye on it for a day to see whether it happens again"),
            "a technician, because repeated freezes can point to a hardware fault"),
    Problem("I can't print anything", "the printing problem",
            ("make sure the printer and the {device} are on the same wifi network",
             "turn the printer off and on again and wait for it to fully wake up",
             "remove the printer from the {device} and add it again",
             "clear any stuck jobs from the print queue on the {device}"),
            "the printer maker's support site, where you can get the latest driver"),

    Problem("the camera won't turn on in video calls", "the camera problem",
            ("check that the video app has permission to use the camera in the settings on your {device}",
             "close any other app that might be using the camera at the same time",
             "test the camera in the built in camera app to see if it works there",
             "restart the {device} and rejoin the call"),
            "the device maker, since the camera module itself could be faulty"),
    Problem("it won't charge", "the charging problem",
            ("try a different cable and plug, since cables fail more often than you'd think",
             "gently clean the charging port with a dry toothbrush or a wooden toothpick",
             "leave the {device} on charge for half an hour, because a fully flat battery can look dead",
             "restart it while it's plugged in"),
            "a repair shop to check the charging port"),
    Problem("I keep getting pop ups", "the pop ups",
            ("close the browser completely and reopen it",
             "remove any browser extensions on the {device} you don't recognise",
             "turn off notifications for the websites listed in the browser settings",
             "run a security scan on the {device} just to be safe"),
            "a trusted technician, in case something nasty was installed"),
    Problem("the touchscreen isn't responding properly", "the touchscreen trouble",
            ("take off any screen protector or case that might be pressing on the edges",
             "clean the screen with a slightly damp microfibre cloth",
             "restart the {device} to clear any stuck touch input",
             "install any waiting system updates on the {device}"),
            "the manufacturer, because the digitiser might need replacing"),
    Problem("my emails aren't syncing", "the email sync issue",
            ("check that the {device} is online by loading a web page",
             "open the mail account settings on the {device} and make sure sync is switched on",
             "sign out of the email account and sign back in",
             "check whether your mailbox storage is full, since that blocks new mail"),
            "your email provider's help centre"),
    Problem("apps keep crashing", "the crashing apps",
            ("update the app that crashes from the app store on your {device}",
             "clear the app's cache or temporary data in the settings",
             "make sure the {device} has at least a few gigabytes of free space",
             "uninstall the app and install it fresh"),
            "the app developer's support page, since it may be a known bug"),
    Problem("the fan is really loud", "the noisy fan",
            ("check which programs are using the most processor power on the {device}",
             "make sure the vents aren't blocked, so don't use it on a bed or sofa",
             "blow out dust from the vents with short bursts of compressed air",
             "update the {device} so its power settings are current"),
            "a repair shop for a proper internal clean"),
)
PROBLEM_BY_USER = {p.user: p for p in PROBLEMS}


def _tech_view(s: Slots) -> Slots:
    p = PROBLEM_BY_USER[str(s["problem"])]
    dev = str(s["device"])
    return {
        "short": p.short,
        "s1": p.steps[0].replace("{device}", dev),
        "s2": p.steps[1].replace("{device}", dev),
        "s3": p.steps[2].replace("{device}", dev),
        "s4": p.steps[3].replace("{device}", dev),
        "escalate": p.escalate,
    }


TECH_FIX = Scenario(
    domain="tech_help",
    slots={"problem": choice_of(tuple(PROBLEM_BY_USER)), "device": choice_of(DEVICES)},
    derive=_tech_view,
    request=(
        "On my {device}, {problem}. Can you help?",
        "Ugh, {problem} on my {device}. What do I do?",
        "Can you help me fix my {device}? {problem}.",
        "My {device} is acting up, {problem}. Any ideas?",
        "I've got a problem with my {device}: {problem}. How do I sort it out?",
    ),
    answer=(
        (
            "[Oh no|That's annoying|Ugh, sorry], {short} on a {device} [is frustrating|is really common|can usually be fixed], so let's [sort it out|try a few things|go step by step].",
            "[Okay|Right|Sure], let's [fix|tackle|troubleshoot] {short} on your {device}[ together|, one step at a time|].",
        ),
        (
            "[First, {s1}|Start with this: {s1}|The quickest fix is to {s1}].",
            "[The first thing to try|Step one] is this: {s1}.",
        ),
        (
            "[If that doesn't help|Next|If you're still stuck], {s2}.",
            "[The second thing|Another quick check|After that]: {s2}.",
        ),
        (
            "[Then|After that|Next up], {s3}.",
            "[It's also worth this|One more step|A third fix]: {s3}.",
        ),
        (
            "[You can also|Another option is to|Finally], {s4}.",
            "[As a last quick fix|If it's still happening], {s4}.",
        ),
        (
            "If none of that works, [it's time to contact|I'd reach out to|the next step is] {escalate}.",
            "[And if {short} keeps coming back|If the problem persists], [get in touch with|try] {escalate}.",
        ),
        (
            "[Let me know|Tell me] how your {device} [gets on|does] after [the first step|that], and we'll [go from there|take it from there].",
            "[Want me to|Should I] [stay on while you try it|walk you through each step on the {device}|wait while you restart]?",
        ),
    ),
    corrections=(
        Correction(
            "device",
            "your {device}",
            user=("Oh wait, it's actually my {device}, not my {old_device}.", "Sorry, I meant the {device}."),
            ack=("[Ah|Oh], the {device}[, okay|, got it]. [Mostly the same steps|The steps are similar].",),
        ),
        Correction(
            "problem",
            "{short}",
            user=("Sorry, I mean {problem}.", "Actually, the real issue is that {problem}."),
            ack=("[Ah|Oh], {short}[, that's different|, okay]. [Let's try this instead|Different fix then].",),
        ),
    ),
    topic=("fixing your {device}", "the {short} on your {device}", "your {device} troubleshooting"),
    weight=1.5,
)


class Setup(NamedTuple):
    thing: str
    why: str
    steps: tuple[str, str, str]
    minutes: int


SETUPS: tuple[Setup, ...] = (
    Setup("two factor authentication", "it stops people getting in even if they know your password",
          ("open the security section of your account settings on the {device}",
           "choose an authenticator app rather than text messages if you can",
           "save the backup codes somewhere safe, not on the {device} itself"), 10),
    Setup("automatic backups", "you won't lose photos and files if the {device} breaks",
          ("go to the backup section in the settings on your {device}",
           "turn on automatic backup and pick a time when the {device} is usually charging",
           "run the first backup manually on wifi so it doesn't eat your data"), 15),
    Setup("parental controls", "you can set limits without having to police every minute",
          ("create a separate child profile on the {device}",
           "set daily screen time limits and a bedtime cut off",
           "turn on approval for new app downloads"), 20),
    Setup("a password manager", "you only have to remember one strong password",
          ("install the password manager app on your {device}",
           "create one long master password, ideally a short sentence",
           "let it import or save your existing logins as you use them"), 25),
    Setup("a new email account", "you can keep things like shopping and newsletters separate",
          ("open the mail app or the browser on your {device} and choose to create a new account",
           "pick an address and a strong password you haven't used elsewhere",
           "add a recovery phone number so you can get back in if you're locked out"), 10),
    Setup("dark mode and night light", "it's easier on your eyes in the evening",
          ("open the display settings on your {device}",
           "switch on dark mode and set it to follow sunset and sunrise",
           "turn on the warmer night light colours from about an hour before bed"), 5),
    Setup("a shared family calendar", "everyone can see the plans without asking",
          ("open the calendar app on your {device} and create a new calendar",
           "invite everyone in the family with their email addresses",
           "turn on notifications so new events pop up for everybody"), 10),
    Setup("voice typing", "it's much quicker than typing long messages",
          ("open the keyboard settings on your {device}",
           "turn on voice input and pick your language",
           "tap the microphone on the keyboard and speak naturally, saying comma and full stop for punctuation"), 5),

    Setup("a guest wifi network", "visitors can get online without seeing your other devices",
          ("open your router's app or settings page from your {device}",
           "turn on the guest network and give it a simple name and password",
           "set it to keep guests separate from your main network"), 10),
    Setup("device location tracking", "you can locate the {device} if you lose it",
          ("open the security or account settings on the {device}",
           "switch on the find my device option and allow location access",
           "test it once from another device so you know how it works"), 5),
    Setup("emergency contacts", "responders can reach someone even if the {device} is locked",
          ("open the safety or health section of the settings on your {device}",
           "add two people you trust with their phone numbers",
           "turn on the option to show emergency info on the lock screen"), 5),
    Setup("a screen reader", "the {device} can read things aloud when text is hard to see",
          ("open the accessibility section in the settings on your {device}",
           "switch on the screen reader and choose a speaking speed you like",
           "practise the new gestures in the built in tutorial"), 15),
    Setup("offline maps", "you can navigate abroad without using mobile data",
          ("open the maps app on your {device} while you're on wifi",
           "search for the city and choose to download the offline area",
           "check the download finished before you leave home"), 10),
)
SETUP_BY_THING = {s.thing: s for s in SETUPS}


def _setup_view(s: Slots) -> Slots:
    st = SETUP_BY_THING[str(s["thing"])]
    dev = str(s["device"])
    return {
        "why": st.why.replace("{device}", dev),
        "t1": st.steps[0].replace("{device}", dev),
        "t2": st.steps[1].replace("{device}", dev),
        "t3": st.steps[2].replace("{device}", dev),
        "setup_min": st.minutes,
    }


TECH_SETUP = Scenario(
    domain="tech_help",
    slots={"thing": choice_of(tuple(SETUP_BY_THING)), "device": choice_of(DEVICES), "who": choice_of(("my mum", "my dad", "me", "my grandma", "my son", "my daughter"))},
    derive=_setup_view,
    request=(
        "How do I set up {thing} on my {device}?",
        "Can you walk me through turning on {thing} on the {device}?",
        "I want {thing} on my {device} but I'm not very techy. Help?",
        "What's the easiest way to get {thing} working on a {device}? It's for {who}.",
    ),
    answer=(
        (
            "[Sure|Good idea|Happy to], {thing} on a {device} [takes about {setup_min} minutes|is quick to set up|is easier than it sounds].",
            "[Of course|Absolutely], let's [get|set up] {thing} on your {device}[, it only takes about {setup_min} minutes|].",
        ),
        (
            "[It's worth it because|The big benefit is that|The reason it's worth doing is that] {why}.",
            "[Once {thing} is set up|With {thing} in place], {why}.",
        ),
        (
            "[First|To start|Step one], {t1}.",
            "[Begin by doing this|The first step]: {t1}.",
        ),
        (
            "[Then|Next|After that], {t2}.",
            "[Once that's done|The second step]: {t2}.",
        ),
        (
            "[Finally|Last of all|To finish up], {t3}.",
            "[The final step for {thing}|And to wrap up]: {t3}.",
        ),
        (
            "[If you get stuck|If any screen looks different], [tell me what you see|just read it out to me] and I'll [guide you|help] [from there|through it].",
            *offer("go through {thing} [step by step|slowly] while you [have the {device} in front of you|follow along on the {device}]", ", if you like"),
        ),
    ),
    corrections=(
        Correction("device", "the {device}", user=("Oh, it's on the {device} actually, not the {old_device}.", "Sorry, I meant my {device}.")),
        Correction(
            "thing",
            "{thing}",
            user=("Sorry, I meant {thing}.", "Actually, it's {thing} I want to set up."),
            ack=("[Oh|Ah], {thing}[, okay|, sure]. [Different steps for that one|Let me switch to that].",),
        ),
    ),
    topic=("setting up {thing}", "{thing} on your {device}", "the {thing} setup"),
)

# =========================================================================== home


class Stain(NamedTuple):
    name: str
    first: str
    treat: str
    avoid: str


STAINS: tuple[Stain, ...] = (
    Stain("red wine", "blot up as much as you can with a clean cloth, without rubbing", "cover it with a paste of baking soda and water for half an hour", "salt on a delicate fabric, since it can set the colour"),
    Stain("coffee", "rinse it from the back with cold water", "work in a little washing up liquid with your fingertips", "hot water, because it sets the stain"),
    Stain("grease", "sprinkle cornflour or baking soda over it to soak up the oil", "scrub gently with a drop of dish soap after ten minutes", "water on its own, because it just spreads the grease"),
    Stain("ink", "dab it with rubbing alcohol on a cotton pad", "keep dabbing with a fresh pad until no more ink lifts", "rubbing, because it pushes the ink deeper"),
    Stain("grass", "soak it in cold water for a few minutes", "rub in a little white vinegar or an enzyme stain remover", "the tumble dryer until the stain is completely gone"),
    Stain("blood", "rinse it straight away with cold water", "dab it with a bit of hydrogen peroxide or salty water", "warm water, because it cooks the protein into the fibres"),
    Stain("chocolate", "scrape off the excess with a blunt knife once it's dry", "treat the mark with a little liquid detergent", "ironing over it, which melts it in"),
    Stain("tomato sauce", "scrape off the excess and run cold water through the back", "dab it with white vinegar and then a little dish soap", "hot water until the red is gone"),
    Stain("candle wax", "let it harden or put ice on it, then pick off what you can", "put paper towels over it and press with a warm iron so the wax soaks in", "scraping hard while it's soft"),
    Stain("mud", "let it dry completely and brush off the crust", "wash the mark with a little detergent and warm water", "wiping it while it's wet, which spreads it"),

    Stain("lipstick", "scrape off any excess gently with a blunt knife", "dab on a little rubbing alcohol or micellar water and blot", "rubbing, which smears the colour further"),
    Stain("sweat", "soak the area in cool water with a scoop of oxygen bleach", "scrub gently with a paste of baking soda and water", "chlorine bleach, which can turn yellow marks darker"),
    Stain("curry", "scrape off what you can and rinse from the back with cold water", "work in washing up liquid, then dab with white vinegar", "hot water, because turmeric sets fast"),
    Stain("nail polish", "blot up as much as you can while it's wet", "dab with acetone free remover on a cotton bud", "regular acetone on synthetic fabrics, which can melt them"),
    Stain("berry juice", "rinse it under cold running water from the back", "dab it with lemon juice or white vinegar before washing", "soap on its own at first, which can set fruit stains"),
)
STAIN_BY_NAME = {s.name: s for s in STAINS}

FABRICS = (
    ("cotton shirt", "cotton is tough, so a normal warm wash afterwards is fine"),
    ("carpet", "carpet should be blotted with a dry towel at the end and left to air dry"),
    ("sofa cushion", "check the care label on the sofa cushion and test on a hidden spot first"),
    ("wool sweater", "wool is delicate, so use cool water and lay it flat to dry"),
    ("pair of jeans", "denim can take a bit of scrubbing, just wash the jeans inside out"),
    ("silk blouse", "silk is fragile, so handle it gently and think about a dry cleaner"),
    ("linen tablecloth", "linen washes well, so finish with a normal wash and dry it in the sun"),
    ("white T-shirt", "an oxygen bleach soak afterwards helps any shadow disappear from whites"),

    ("velvet cushion", "velvet crushes easily, so dab rather than scrub and brush the pile afterwards"),
    ("baby onesie", "baby clothes need a thorough rinse and a gentle detergent afterwards"),
    ("suede jacket", "suede hates water, so use as little as possible and a suede brush afterwards"),
    ("rug", "a rug is best treated from the outside of the stain inwards and dried flat"),
)


def _stain_view(s: Slots) -> Slots:
    st = STAIN_BY_NAME[str(s["stain"])]
    fabric, note = s["fabric"]  # type: ignore[misc]
    return {"fabric": fabric, "note": note, "first": st.first, "treat": st.treat, "avoid": st.avoid}


HOME_STAIN = Scenario(
    domain="home",
    slots={"stain": choice_of(tuple(STAIN_BY_NAME)), "fabric": choice_of(FABRICS), "who": choice_of(FIRST_NAMES)},
    derive=_stain_view,
    request=(
        "I just spilled {stain} on my {fabric}. How do I get it out?",
        "{who} got {stain} all over the {fabric}. Help!",
        "What's the best way to remove {stain} from a {fabric}?",
        "There's a {stain} stain on my {fabric}. Can it be saved?",
    ),
    answer=(
        (
            "[Don't panic|Okay, act fast|Good news], {stain} on a {fabric} [usually comes out|can usually be saved|is fixable] if you [move quickly|treat it soon].",
            "[Right|Okay], {stain} [is very treatable|comes out more easily than you'd think] on a {fabric}.",
        ),
        (
            "[First|Straight away|The first step], {first}.",
            "[Before anything else|Right now], {first}[ on the {fabric}|].",
        ),
        (
            "[Then|Next|After that], {treat}.",
            "[Once that's done|For the {stain} itself], {treat}.",
        ),
        (
            "[Avoid|Whatever you do, avoid|Stay away from] {avoid}.",
            "[A common mistake with {stain} is|People often make it worse with] {avoid}[, so skip that|].",
        ),
        (
            "[One more thing|Also], {note}.",
            "[As for the fabric|For the {fabric} itself], {note}.",
        ),
        (
            "If there's [still a mark|a faint shadow] [afterwards|after all that], [repeat the {stain} treatment once more|a second round usually finishes it off].",
            "[Don't worry if|It's normal if] a faint {stain} mark [remains|is left] after the first try[, just repeat it|; a second round usually does it].",
        ),
    ),
    corrections=(
        Correction(
            "stain",
            "{stain}",
            user=("Oh, sorry, it's {stain}, not {old_stain}.", "Actually, I think it's {stain}."),
            ack=("[Ah|Oh], {stain}[, okay|, different approach then].",),
        ),
        Correction(
            "fabric",
            "your {fabric}",
            user=("Wait, it's on the {fabric}, not the {old_fabric}.", "Actually, it's my {fabric}."),
            ack=("[Oh|Okay], the {fabric}[, good to know|, that matters].",),
        ),
    ),
    topic=("the {stain} stain", "your {fabric}", "getting {stain} out"),
)


def _paint_view(s: Slots) -> Slots:
    w = int(s["width"])  # type: ignore[arg-type]
    length = int(s["length"])  # type: ignore[arg-type]
    height = 2.5
    area = 2 * (w + length) * height - 4  # minus a door and a window
    liters = area * 2 / 10  # two coats, ten square metres a litre
    cans = math.ceil(liters / 2.5)
    return {
        "area": int(round(area)),
        "liters": int(math.ceil(liters)),
        "cans": cans,
        "cans_w": number_words(cans),
        "cans_s": "tin" if cans == 1 else "tins",
        "days": "a weekend" if area > 50 else "a day",
    }


HOME_PAINT = Scenario(
    domain="home",
    slots={
        "room": choice_of(ROOMS),
        "width": int_between(2, 6),
        "length": int_between(3, 7),
        "color": choice_of(COLORS),
    },
    derive=_paint_view,
    request=(
        "I want to paint my {room} {color}, and it's {width} by {length} metres. How much paint do I need?",
        "How much {color} paint would a {width} by {length} metre {room} take?",
        "Planning to repaint the {room} in {color}, it's about {width} metres by {length}. Where do I start?",
        "Can you work out the paint for my {room}? {width} by {length} metres, going {color}.",
    ),
    answer=(
        (
            "[Ooh|Nice|Lovely], {color} [will look great|sounds lovely|is a great choice] in the {room}.",
            "[Sure|Let's work it out], a {width} by {length} metre {room} [is a nice size to paint|won't take long|is a manageable job].",
        ),
        (
            "[With standard height ceilings|Assuming normal ceilings], the walls come to about {area} square metres[ once you take off a door and a window|].",
            "[The wall area|Your walls] [works out|comes] to roughly {area} square metres for a {width} by {length} room.",
        ),
        (
            "[For two coats|Allowing two coats], you'll need about {liters} litres of {color}, so {cans_w} 2 and a half litre {cans_s}.",
            "[Plan on|Buy] {cans} {cans_s} of {color}, which gives you about {liters} litres for two coats.",
        ),
        (
            "[Before painting|For prep], wash the walls, fill any holes, and tape the edges[ of the {room}|].",
            "[Good prep makes the {color} look better|Prep is half the job]: [clean|wash] the walls and [tape|mask] around the skirting in the {room}.",
        ),
        (
            "[Leave|Wait] about four hours between coats[, and keep the {room} ventilated|], so it's {days} of work.",
            "[Set aside|Give yourself] {days} for the {room}, [since each coat needs|because you need] about four hours to dry.",
        ),
        (
            "[Want me to|Should I] add {cans} {cans_s} of {color} to your shopping list?",
            *offer("make a [list|checklist] of [rollers, tape and|everything including] the {color} paint for the {room}", ", if you like"),
        ),
    ),
    corrections=(
        Correction(
            "width",
            "{width} by {length}",
            user=("Oh wait, it's {width} by {length}, I measured wrong.", "Sorry, the room is {width} metres wide, not {old_width}."),
            ack=("[Okay|Got it], {width} by {length} metres[, let me redo the maths|, new numbers coming|].",),
        ),
        Correction(
            "color",
            "{color}",
            user=("Actually, I think I'll go with {color} instead.", "Hmm, change of heart, {color}."),
            ack=("[Ooh|Oh nice], {color} [instead|then|it is]. [Same amount of paint|That's a lovely choice].",),
        ),
        Correction("room", "the {room}", user=("Sorry, it's the {room}, not the {old_room}.",)),
    ),
    topic=("painting the {room}", "the {color} paint", "your {room} project"),
)


class Plant(NamedTuple):
    name: str
    water: str
    light: str
    tip: str
    days: int


PLANTS: tuple[Plant, ...] = (
    Plant("monstera", "when the top few centimetres of soil are dry", "bright but indirect light", "wipe the big leaves every so often so they can breathe", 7),
    Plant("snake plant", "only when the soil is completely dry", "almost any light, even a dim corner", "less water is better, since overwatering is what kills them", 14),
    Plant("fiddle leaf fig", "when the top of the soil feels dry", "lots of bright indirect light", "don't move it around, it hates change", 8),
    Plant("pothos", "when the soil is dry halfway down", "medium to bright indirect light", "trim the long vines to keep it bushy", 7),
    Plant("peace lily", "as soon as the leaves start to droop a little", "medium, indirect light", "mist the leaves now and then, it likes humidity", 5),
    Plant("orchid", "by soaking the roots for ten minutes and draining well", "bright indirect light, never hot sun", "cut the flower spike above a node once it's finished", 10),
    Plant("succulent", "only when the soil has dried out completely", "as much direct sun as you can give it", "use a gritty cactus mix so the roots don't rot", 14),
    Plant("Boston fern", "often enough that the soil stays lightly moist", "gentle indirect light", "a bathroom with a window is its favourite spot", 3),
    Plant("rubber plant", "when the top few centimetres are dry", "bright indirect light", "rotate it a quarter turn each week so it grows straight", 9),
    Plant("calathea", "with filtered or rainwater when the top is just dry", "low to medium indirect light", "brown tips usually mean the air is too dry", 5),
    Plant("spider plant", "when the top of the soil dries out", "bright to medium indirect light", "you can pot up the little babies to make new plants", 7),
    Plant("aloe vera", "every two to three weeks, soaking it then letting it dry fully", "a sunny windowsill", "a terracotta pot helps the soil dry out", 18),

    Plant("ZZ plant", "when the soil is completely dry, often every two to three weeks", "low to bright indirect light", "it stores water in its roots, so it forgives forgetful owners", 16),
    Plant("bird of paradise", "when the top few centimetres of soil dry out", "as much bright light as possible", "split leaves are normal, it does that in the wild too", 7),
    Plant("string of pearls", "sparingly, only when the pearls start to look a little wrinkled", "bright indirect light", "hang it up so the strands can trail", 12),
    Plant("Chinese money plant", "when the top of the soil feels dry", "bright indirect light", "it makes little offshoots you can share with friends", 7),
    Plant("jade plant", "only when the soil is dry all the way through", "a bright sunny window", "it can live for decades if you don't overwater it", 14),
    Plant("basil", "little and often, keeping the soil just moist", "a warm sunny windowsill", "pinch out the tops so it grows bushy instead of tall", 2),
)
PLANT_BY_NAME = {p.name: p for p in PLANTS}


def _plant_view(s: Slots) -> Slots:
    p = PLANT_BY_NAME[str(s["plant"])]
    return {"water": p.water, "light": p.light, "tip": p.tip, "days": p.days, "days_w": number_words(p.days)}


HOME_PLANT = Scenario(
    domain="home",
    slots={"plant": choice_of(tuple(PLANT_BY_NAME)), "room": choice_of(ROOMS), "giver": choice_of(FIRST_NAMES)},
    derive=_plant_view,
    request=(
        "I just got a {plant} for my {room}. How do I keep it alive?",
        "{giver} gave me a {plant} for the {room}. How often should I water it?",
        "Can you tell me how to look after a {plant}? I'm putting it in the {room}.",
        "My {plant} in the {room} looks a bit sad. What does it need?",
    ),
    answer=(
        (
            "[Oh, lovely|Nice|Good choice], a {plant} [is a great plant|is fairly easy going|can do really well] in the {room} with the right care.",
            "[Sure|Happy to help], [keeping a {plant} happy|looking after a {plant}] [is mostly about water and light|comes down to a few simple habits].",
        ),
        (
            "Water it {water}.",
            "[For watering|The watering rule for a {plant} is simple]: water it {water}.",
        ),
        (
            "[In most homes|Usually|Roughly], that works out to about every {days_w} days[, but always check the soil first|].",
            "[As a rough guide|Typically], that's [once every|every] {days} days or so for a {plant}[ indoors|].",
        ),
        (
            "[It likes|It does best in|Give it] {light}, so [check|think about] whether the {room} [gets that|can offer that].",
            "[Light wise|For light], a {plant} wants {light}[; if the {room} is darker, move it nearer a window|].",
        ),
        (
            "[One extra tip|A little secret|Here's a tip]: {tip}.",
            "[Something people don't know about the {plant}|A pro tip]: {tip}.",
        ),
        (
            *offer("[set|add] a watering reminder for the {plant} every {days} days", ", if you like"),
            "[If you like, I'll|Just say so and I'll] remind you [to water|about] the {plant} every {days_w} days.",
        ),
    ),
    corrections=(
        Correction(
            "plant",
            "a {plant}",
            user=("Oh wait, I think it's actually a {plant}.", "Sorry, I checked the label, it's a {plant}, not a {old_plant}."),
            ack=("[Ah|Oh], a {plant}[, that's a bit different|, okay, new care tips then].",),
        ),
        Correction("room", "the {room}", user=("Actually, it'll live in the {room}.",), ack=("[Okay|Sure], the {room} then[, good to know|].",)),
    ),
    topic=("your {plant}", "the {plant} care tips", "looking after the {plant}"),
)

# =========================================================================== music

GENRES = (
    ("jazz", "relaxed"), ("eighties pop", "upbeat"), ("indie folk", "mellow"), ("classical piano", "calm"),
    ("soul", "warm"), ("hip hop", "energetic"), ("bossa nova", "breezy"), ("lo-fi beats", "calm"),
    ("country", "easy going"), ("disco", "upbeat"), ("reggae", "laid back"), ("electronic", "energetic"),
    ("nineties rock", "energetic"), ("Motown", "upbeat"), ("ambient", "calm"), ("Latin pop", "upbeat"),
)
MUSIC_ACTIVITIES = (
    ("dinner party", 90, "soft enough in the background that people can talk", "relaxed"),
    ("road trip", 240, "packed with sing along songs", "upbeat"),
    ("study session", 120, "light on lyrics", "calm"),
    ("morning run", 45, "steady, with a beat that matches your stride", "energetic"),
    ("rainy Sunday", 120, "slow and cosy", "mellow"),
    ("cleaning session", 60, "fast enough to keep you moving", "upbeat"),
    ("kids' birthday party", 90, "full of songs the kids can dance to", "upbeat"),
    ("yoga class", 60, "gentle and without sudden changes", "calm"),
    ("barbecue", 180, "sunny and cheerful", "upbeat"),
    ("late night drive", 60, "moody and spacious", "mellow"),

    ("book club evening", 90, "quiet enough that nobody has to raise their voice", "relaxed"),
    ("baby's nap time", 60, "soft and steady with no surprises", "calm"),
    ("workout at the gym", 60, "driving and relentless", "energetic"),
    ("wedding reception", 240, "familiar to everyone from kids to grandparents", "upbeat"),
    ("Sunday morning breakfast", 60, "bright but gentle", "mellow"),
)


def _playlist_view(s: Slots) -> Slots:
    genre, mood = s["genre"]  # type: ignore[misc]
    act, minutes, feel, want = s["activity"]  # type: ignore[misc]
    songs = round(minutes / 3.5)
    hours, mins = divmod(minutes, 60)
    length = f"{mins} minutes" if hours == 0 else ("an hour" if hours == 1 else f"{hours} hours") + (f" and {mins} minutes" if mins else "")
    fit = "a perfect match" if mood == want else "a fun twist" if want == "upbeat" or mood == "upbeat" else "a nice fit"
    bpm = {"energetic": 160, "upbeat": 120, "relaxed": 95, "mellow": 85, "calm": 70}[want]
    return {
        "genre": genre,
        "mood": mood,
        "activity": act,
        "feel": feel,
        "songs": songs,
        "length": length,
        "fit": fit,
        "bpm": bpm,
        "want": want,
    }


MUSIC_PLAYLIST = Scenario(
    domain="music",
    slots={"genre": choice_of(GENRES), "activity": choice_of(MUSIC_ACTIVITIES), "name": choice_of(FIRST_NAMES)},
    derive=_playlist_view,
    request=(
        "Can you make me a {genre} playlist for a {activity}?",
        "I need music for a {activity}. Maybe some {genre}?",
        "Put together something {genre} for our {activity}, please.",
        "What kind of {genre} playlist would work for a {activity}?",
        "{name} asked me to sort out the music for a {activity}. I was thinking {genre}.",
    ),
    answer=(
        (
            "[Great idea|Ooh, fun|Nice], {genre} for a {activity} is {fit}.",
            "[Sure|Happy to], a {genre} mix for your {activity}[ sounds great| coming up|].",
        ),
        (
            "[For a {activity}|Since it's for a {activity}], you want it {feel}.",
            "The [trick|key] with music for a {activity} is to keep it {feel}.",
        ),
        (
            "[I'd aim for|Let's go with|That calls for] about {songs} songs, [which covers|enough for] {length}.",
            "[To fill|For] {length}, [you'll want|that's] roughly {songs} tracks[ of {genre}|].",
        ),
        (
            "[Look for|Pick] tracks around {bpm} beats per minute, [which feels|since that's] {want} without [being too much|getting tiring].",
            "[Tempo wise|For pace], around {bpm} beats per minute [suits|works for] a {activity}.",
        ),
        (
            "[Start|Open] with the more {mood} {genre} tracks and [build up|save the big favourites] for [later|the middle|when things get going].",
            "[I'd put|Place] the most [famous|recognisable] {genre} songs [in the middle|about halfway through] so the {activity} [doesn't fade|keeps its energy].",
        ),
        (
            *offer("start [playing|building] the {genre} playlist now", ", if you're ready"),
            "[Shall I|Want me to] save it as {activity} {genre}[ so you can find it later|]?",
        ),
    ),
    corrections=(
        Correction(
            "genre",
            "{genre}",
            user=("Hmm, actually, let's do {genre} instead.", "Oh, I meant {genre}, not {old_genre}."),
            ack=("[Ooh|Nice|Sure], {genre} [instead|it is|then]. [That changes the vibe|Good pick].",),
        ),
        Correction(
            "activity",
            "a {activity}",
            user=("Oh wait, it's actually for a {activity}.", "Sorry, it's for a {activity}, not a {old_activity}."),
            ack=("[Oh|Ah], a {activity}[, okay|, got it], [let me adjust the mix|that changes the length].",),
        ),
    ),
    topic=("the {genre} playlist", "music for your {activity}", "your {activity} playlist"),
)


class Instrument(NamedTuple):
    name: str
    first: str
    song_goal: str
    pitfall: str


INSTRUMENTS: tuple[Instrument, ...] = (
    Instrument("guitar", "the chords G, C, D and E minor", "a simple four chord song", "pressing too hard and getting sore fingertips"),
    Instrument("piano", "a C major scale with both hands separately", "a slow melody with a simple left hand", "tensing your shoulders as you play"),
    Instrument("ukulele", "the chords C, A minor, F and G", "a strummed sing along song", "strumming only downwards"),
    Instrument("violin", "holding the bow and playing open strings cleanly", "a short folk tune", "squeezing the bow too tightly"),
    Instrument("drums", "a basic rock beat with hi hat, snare and kick", "playing along to a slow pop song", "speeding up without noticing"),
    Instrument("bass guitar", "root notes in time with a metronome", "a simple bass line from a funk tune", "ignoring the rhythm for fancy notes"),
    Instrument("saxophone", "a steady long tone on a single note", "a slow blues melody", "biting down on the reed"),
    Instrument("flute", "getting a clear sound from the head joint alone", "a simple lullaby", "blowing far too hard"),
    Instrument("harmonica", "single notes instead of chords", "a basic blues shuffle", "sucking and blowing too forcefully"),
    Instrument("cello", "a relaxed bow hold and long even strokes", "a slow sarabande", "letting the bow drift towards the fingerboard"),

    Instrument("trumpet", "buzzing your lips into the mouthpiece on its own", "a simple fanfare", "pressing the mouthpiece too hard against your lips"),
    Instrument("clarinet", "a steady low note with a relaxed embouchure", "a gentle folk melody", "letting the cheeks puff out"),
    Instrument("mandolin", "clean single notes with a light pick", "a simple bluegrass tune", "gripping the neck too tightly"),
    Instrument("banjo", "a basic forward roll with three fingers", "a slow version of a classic bluegrass tune", "looking at your picking hand the whole time"),
)
INSTRUMENT_BY_NAME = {i.name: i for i in INSTRUMENTS}


def _instrument_view(s: Slots) -> Slots:
    ins = INSTRUMENT_BY_NAME[str(s["instrument"])]
    m = int(s["minutes"])  # type: ignore[arg-type]
    weekly = m * 6
    weeks = 4 if m >= 30 else 6 if m >= 20 else 8
    return {
        "first": ins.first,
        "song_goal": ins.song_goal,
        "pitfall": ins.pitfall,
        "weekly": weekly,
        "warm": max(3, m // 5),
        "goal_weeks": weeks,
        "goal_weeks_w": number_words(weeks),
        "minutes_w": number_words(m),
    }


MUSIC_LEARN = Scenario(
    domain="music",
    slots={"instrument": choice_of(tuple(INSTRUMENT_BY_NAME)), "minutes": int_between(10, 45, 5)},
    derive=_instrument_view,
    request=(
        "I want to learn the {instrument} and I have about {minutes} minutes a day. Where do I start?",
        "How should I practise {instrument} if I've only got {minutes} minutes a day?",
        "I'm a total beginner at {instrument}. Can you make me a plan for {minutes} minutes a day?",
        "Can you help me get started on the {instrument}? I can do {minutes} minutes daily.",
    ),
    answer=(
        (
            "[Oh, wonderful|How exciting|Great choice], {minutes_w} minutes a day is [plenty to make real progress|a great habit|enough to learn the {instrument}].",
            "[Love that|Nice], the {instrument} with {minutes} minutes a day [adds up to|is] about {weekly} minutes a week of practice.",
        ),
        (
            "Spend the first {warm} minutes [warming up|on easy warm ups][, because it makes the rest of the session smoother|].",
            "[Begin each session|Start every day] with {warm} minutes of warm up[ on the {instrument}|].",
        ),
        (
            "[Your first goal is|The first thing to learn is|Focus first on] {first}.",
            "[In the first week|To begin with], [work on|learn] {first}[, slowly and cleanly|].",
        ),
        (
            "[Within about|In roughly] {goal_weeks_w} weeks, you could [be playing|manage] {song_goal}.",
            "[Aim to play|A good target is] {song_goal} [by week {goal_weeks}|in about {goal_weeks} weeks].",
        ),
        (
            "[Watch out for|A common beginner trap is|Try to avoid] {pitfall}.",
            "[Most new {instrument} players struggle with|Be careful about] {pitfall}[, so check in on that|].",
        ),
        (
            *offer("[set|create] a daily {minutes} minute practice reminder", ", if that helps"),
            "[Would you like|Want] a {minutes} minute practice timer [each day|whenever you pick up the {instrument}]?",
        ),
    ),
    corrections=(
        Correction(
            "instrument",
            "the {instrument}",
            user=("Oh, sorry, I meant the {instrument}.", "Actually, I've decided on the {instrument} instead."),
            ack=("[Oh|Ah], the {instrument}[, nice|, okay], [different first steps|let me adjust].",),
        ),
        Correction("minutes", "{minutes} minutes", user=("Actually, more like {minutes} minutes a day.", "Realistically it's {minutes} minutes, not {old_minutes}.")),
    ),
    topic=("your {instrument} practice plan", "learning the {instrument}", "the {instrument} plan"),
)

# =========================================================================== finance

GOALS = (
    "a holiday", "an emergency fund", "a wedding", "a used car",
    "a house deposit", "a course I want to take", "a trip to see family",

    "driving lessons", "a new roof", "a gap year", "a new kitchen", "a year of school fees",
)


def _saving_view(s: Slots) -> Slots:
    amount = int(s["amount"])  # type: ignore[arg-type]
    months = int(s["months"])  # type: ignore[arg-type]
    saved = int(s["saved_frac"]) * amount // 10  # type: ignore[arg-type]
    left = amount - saved
    monthly = left / months
    weekly = left / (months * 52 / 12)
    return {
        "amount_s": f"{amount:,}",
        "saved": f"{saved:,}",
        "left": f"{left:,}",
        "monthly": money(math.ceil(monthly)),
        "weekly": money(math.ceil(weekly)),
        "daily": money(math.ceil(left / (months * 30.4) * 100) / 100),
        "months_w": number_words(months),
        "goal_s": str(s["goal"]).replace("I want", "you want"),
    }


FINANCE_SAVE = Scenario(
    domain="finance",
    slots={
        "goal": choice_of(GOALS),
        "amount": int_between(500, 12000, 250),
        "months": int_between(3, 24),
        "saved_frac": int_between(0, 5),
    },
    derive=_saving_view,
    request=(
        "I want to save {amount} dollars for {goal} in {months} months. How much do I need to put away?",
        "Can you help me plan savings for {goal}? I need {amount} dollars in {months} months and I've got {saved} so far.",
        "How much a month to save {amount} dollars in {months} months? It's for {goal}.",
        "I'm saving up for {goal}, target {amount} dollars, {months} months from now. What's the plan?",
    ),
    answer=(
        (
            "[Good goal|Nice|Let's do the maths], saving {amount_s} dollars for {goal_s} in {months_w} months [is very doable|is a clear target|is a solid plan].",
            "[Okay|Sure], {amount_s} dollars in {months} months for {goal_s}[, let's break that down|, here's how it works out|].",
        ),
        (
            "[You've already got|With] {saved} dollars [saved|put aside], [so|which means] there's {left} dollars [left to go|still to save].",
            "[Counting|After] the {saved} dollars you already have, [the remaining amount is|you still need] {left} dollars.",
        ),
        (
            "[That works out to|That means putting away|You'll need] about {monthly} a month.",
            "[Split over|Across] {months_w} months, that's roughly {monthly} [each month|per month].",
        ),
        (
            "[If you get paid weekly|Weekly], that's [about|around] {weekly} a week, or {daily} a day.",
            "[Broken down further|Put another way], it's [roughly|about] {weekly} a week[, which can feel easier to manage|].",
        ),
        (
            "[The easiest way|A trick that works] is to [set up|schedule] an automatic transfer of {monthly} [on payday|right after you get paid].",
            "[Automate it|Make it automatic]: a standing transfer of {monthly} [the day your salary lands|on payday] [means you won't even miss it|removes the temptation].",
        ),
        (
            *offer("[set|make] a monthly reminder to move {monthly} [into savings|to your savings account]", ", if that helps"),
            "[I can also|Happy to] [track|check on] your progress towards {amount_s} dollars [every month|once a month][ if you like|].",
        ),
    ),
    corrections=(
        Correction(
            "months",
            "{months} months",
            user=("Actually, I need it in {months} months, not {old_months}.", "Sorry, make that {months} months."),
            ack=("[Okay|Got it], {months_w} months[, that changes the monthly amount|, let me redo it].",),
        ),
        Correction(
            "amount",
            "{amount_s} dollars",
            user=("Oh, the target is actually {amount_s} dollars.", "Wait, I need {amount_s} dollars, not {old_amount_s}."),
            ack=("[Okay|Right], {amount_s} dollars [instead|then], [new numbers coming|let me recalculate].",),
        ),
    ),
    topic=("your savings plan for {goal_s}", "the {goal_s} savings", "saving for {goal_s}"),
    weight=1.2,
)


def _budget_view(s: Slots) -> Slots:
    income = int(s["income"])  # type: ignore[arg-type]
    rent = int(s["rent"])  # type: ignore[arg-type]
    needs = income * 0.5
    wants = income * 0.3
    save = income * 0.2
    rent_share = round(100 * rent / income)
    rent_note = (
        "which leaves good room for the other essentials" if rent_share <= 30 else
        "which is on the high side, so the other needs have to be lean" if rent_share <= 50 else
        "which is more than the whole needs bucket, so we'd need to trim the wants"
    )
    return {
        "income_s": f"{income:,}",
        "rent_s": f"{rent:,}",
        "needs": money(needs),
        "wants": money(wants),
        "save": money(save),
        "rent_share": rent_share,
        "rent_note": rent_note,
        "yearly": money(save * 12),
    }


FINANCE_BUDGET = Scenario(
    domain="finance",
    slots={"income": int_between(1800, 7000, 100), "rent": int_between(600, 2400, 50), "name": choice_of(FIRST_NAMES)},
    derive=_budget_view,
    request=(
        "I take home {income} dollars a month and rent is {rent}. Can you help me make a budget?",
        "How should I split {income} dollars a month? My rent is {rent}.",
        "Can you set up a simple budget for me? {income} a month after tax, {rent} on rent.",
        "My friend {name} says I should budget. I earn {income} a month and rent is {rent}, so where do I start?",
    ),
    answer=(
        (
            "[Sure|Good idea|Let's do it], a simple way to budget {income_s} dollars a month is the fifty thirty twenty rule.",
            "[Okay|Happy to], with {income_s} dollars coming in each month, [the fifty thirty twenty split|a fifty thirty twenty budget] is a good starting point.",
        ),
        (
            "[Half|Fifty percent], about {needs}, [goes to|covers] needs like rent, bills and groceries.",
            "[Needs get fifty percent|The needs bucket is half], so {needs} for rent, food, transport and bills.",
        ),
        (
            "[Your rent|Rent at {rent_s} dollars] is {rent_share} percent of your income, {rent_note}.",
            "At {rent_s} dollars, rent [takes|eats up] {rent_share} percent of your {income_s}, {rent_note}.",
        ),
        (
            "[Thirty percent|About thirty percent], or {wants}, [is for|goes to] wants like eating out and hobbies.",
            "[Wants get|You can spend] [up to|about] {wants} on fun things[ each month| like going out and subscriptions|].",
        ),
        (
            "The last twenty percent, {save}, goes to savings, which is {yearly} a year.",
            "[Saving twenty percent|Putting away] {save} a month [adds up to|builds] {yearly} over a year.",
        ),
        (
            *offer("[set up|create] these three [categories|buckets] with the {income_s} dollar numbers", ", if you like"),
            *offer("[check in|remind you] at the end of each month to see how the {needs} for needs is holding up", ""),
        ),
    ),
    corrections=(
        Correction(
            "income",
            "{income_s} dollars",
            user=("Oh, sorry, it's {income_s} a month, not {old_income_s}.", "Actually, I take home {income_s}."),
            ack=("[Okay|Got it], {income_s} dollars a month[, let me redo the split|, new numbers then].",),
        ),
        Correction("rent", "{rent_s} dollars of rent", user=("Wait, rent just went up to {rent_s}.", "Actually, my rent is {rent_s}.")),
    ),
    topic=("your budget", "the {income_s} dollar budget", "the fifty thirty twenty plan"),
)

# =========================================================================== health

WAKE_TIMES = ((5, 30), (6, 0), (6, 15), (6, 30), (6, 45), (7, 0), (7, 15), (7, 30), (8, 0))


def _sub_minutes(h: int, m: int, minutes: int) -> tuple[int, int]:
    total = (h * 60 + m - minutes) % (24 * 60)
    return divmod(total, 60)


def _sleep_view(s: Slots) -> Slots:
    h, m = s["wake"]  # type: ignore[misc]
    hours = int(s["hours"])  # type: ignore[arg-type]
    st = int(s["tstyle"])  # type: ignore[arg-type]
    bed = _sub_minutes(h, m, hours * 60 + 15)
    wind = _sub_minutes(bed[0], bed[1], 45)
    caffeine = _sub_minutes(bed[0], bed[1], 8 * 60)
    return {
        "wake_t": spoken_time(h, m, st),
        "hours_w": number_words(hours),
        "bed_t": spoken_time(*bed, st),
        "wind_t": spoken_time(*wind, st),
        "caffeine_t": spoken_time(*caffeine, st),
    }


HEALTH_SLEEP = Scenario(
    domain="health",
    slots={"wake": choice_of(WAKE_TIMES), "hours": int_between(7, 9), "name": choice_of(FIRST_NAMES), "tstyle": int_between(0, 4)},
    derive=_sleep_view,
    request=(
        "I have to get up at {wake_t} and I want {hours} hours of sleep. When should I go to bed?",
        "Can you help me fix my sleep? Alarm's at {wake_t}, and I'd like {hours} hours.",
        "What bedtime do I need for {hours} hours of sleep if I wake at {wake_t}?",
        "I keep going to bed too late and I need to be up at {wake_t}. Can you plan my evening for {hours} hours of sleep?",
    ),
    answer=(
        (
            "[Sure|Good plan|Let's work backwards], for {hours_w} hours of sleep with a {wake_t} alarm, aim to be in bed by {bed_t}.",
            "[Okay|Right], waking at {wake_t} means lights out around {bed_t} to get {hours_w} hours.",
        ),
        (
            "[That includes|I've added] about fifteen minutes to fall asleep[, which is normal for most people|, so {bed_t} is lights out, not just getting into bed].",
            "[Bed at {bed_t} leaves|Going to bed at {bed_t} gives you] [a little|about fifteen minutes of] buffer to drift off before the {hours_w} hours start.",
        ),
        (
            "[Start winding down|Begin your wind down] at {wind_t}, with dim lights and no work emails.",
            "[From|Around] {wind_t}, [put the phone away|switch screens off] and do something calm like reading.",
        ),
        (
            "[Try to|It helps to] [stop|skip] caffeine after {caffeine_t}, since it [lingers for hours|stays in your system for a long time].",
            "[A good caffeine cut off would be|Your last coffee should be before] {caffeine_t}[, so you can fall asleep by {bed_t}|].",
        ),
        (
            "[Keep|Try to keep] waking at {wake_t} even at weekends, [because consistency matters more than anything|so your body clock settles].",
            "[The biggest win|What helps most] is waking at {wake_t} every day, [weekends included|even on days off].",
        ),
        (
            *offer("set a wind down reminder for {wind_t} each evening", ", if you like"),
            "[Shall I|Would you like me to] [remind you|nudge you] at {wind_t} so you're in bed by {bed_t}?",
        ),
    ),
    corrections=(
        Correction(
            "wake",
            "{wake_t}",
            user=("Oh, actually my alarm is at {wake_t}.", "Sorry, I meant {wake_t}, not {old_wake_t}."),
            ack=("[Okay|Got it], a {wake_t} alarm[, let me shift everything|, new bedtime then].",),
        ),
        Correction(
            "hours",
            "{hours} hours",
            user=("Let's say {hours} hours instead.", "Actually, I think I need {hours} hours."),
            ack=("[Sure|Okay], {hours_w} hours [then|instead][, that moves bedtime|].",),
        ),
    ),
    topic=("your sleep schedule", "the {bed_t} bedtime plan", "the plan for better sleep"),
)


def _steps_view(s: Slots) -> Slots:
    now = int(s["now"])  # type: ignore[arg-type]
    goal = int(s["goal"])  # type: ignore[arg-type]
    if goal <= now:
        goal = now + 2000
    inc = int(s["inc"])  # type: ignore[arg-type]
    weeks = math.ceil((goal - now) / inc)
    minutes = round(inc / 100)
    return {
        "now_s": f"{now:,}",
        "goal_s": f"{goal:,}",
        "inc_s": f"{inc:,}",
        "weeks": weeks,
        "weeks_w": number_words(weeks),
        "walk_min": minutes,
        "gap": f"{goal - now:,}",
    }


HEALTH_STEPS = Scenario(
    domain="health",
    slots={"now": int_between(2000, 7000, 500), "goal": int_between(7000, 12000, 500), "inc": choice_of((500, 750, 1000))},
    derive=_steps_view,
    request=(
        "I walk about {now} steps a day. How do I get up to {goal}?",
        "Can you help me build up from {now} steps to {goal} steps a day?",
        "My doctor said to walk more, and I'm at {now} steps. What's a good plan to reach {goal}?",
        "How long would it take to go from {now} to {goal} steps a day if I add {inc} a week?",
    ),
    answer=(
        (
            "[Great goal|Good for you|Love it], going from {now_s} to {goal_s} steps a day is [very achievable|a realistic target].",
            "[Sure|Let's plan it], you're {gap} steps away from {goal_s} a day.",
        ),
        (
            "[If you add|Adding] {inc_s} steps a week, you'll [get there|reach {goal_s}] in about {weeks_w} weeks.",
            "[At|With] {inc_s} extra steps each week, it takes {weeks} weeks to [hit|reach] {goal_s}.",
        ),
        (
            "{inc_s} steps is [only|just] about {walk_min} minutes of walking[, so it's easy to fit in|].",
            "[Each increase|The weekly bump] of {inc_s} steps [is|takes] about {walk_min} extra minutes on your feet.",
        ),
        (
            "[Easy ways to add steps|Simple tricks] [include|are] [walking during phone calls and|] taking the stairs[ and parking further away|].",
            "[Try|You could try] a {walk_min} minute walk after lunch[, which also helps with energy in the afternoon|].",
        ),
        (
            "[If anything starts to hurt|If your feet or knees complain], [hold at that level for an extra week|stay at that step count a bit longer] before adding more.",
            "[There's no rush|Don't rush it]: [staying at a level for an extra week|a slower build] is fine on the way to {goal_s}.",
        ),
        (
            *offer("[track|check in on] your steps weekly and [tell you|let you know] when to add the next {inc_s}", ""),
            *offer("set a reminder [each Monday|at the start of each week] for your new step target on the way to {goal_s}", ""),
        ),
    ),
    corrections=(
        Correction(
            "goal",
            "{goal_s} steps",
            user=("Actually, let's aim for {goal_s} steps.", "Sorry, I meant {goal_s}, not {old_goal_s}."),
            ack=("[Okay|Sure], {goal_s} steps [it is|then][, let me redo the timeline|].",),
        ),
        Correction(
            "inc",
            "{inc_s} a week",
            user=("Hmm, can we add {inc_s} a week instead?",),
            ack=("[Sure|Okay], {inc_s} steps a week[, new timeline coming|].",),
        ),
    ),
    topic=("your step goal", "getting to {goal_s} steps", "the walking plan"),
)


class BodyPart(NamedTuple):
    name: str
    stretches: tuple[str, str, str]
    cause: str


BODY_PARTS: tuple[BodyPart, ...] = (
    BodyPart("neck", ("slow chin tucks", "gentle ear to shoulder tilts", "looking over each shoulder"), "looking down at a screen for hours"),
    BodyPart("lower back", ("knee to chest pulls", "cat cow on all fours", "a gentle seated twist"), "sitting for long stretches without moving"),
    BodyPart("shoulders", ("shoulder rolls", "a doorway chest stretch", "arm across the chest holds"), "hunching forward over a keyboard"),
    BodyPart("hips", ("a kneeling hip flexor stretch", "figure four stretches", "slow hip circles"), "sitting with the hips bent all day"),
    BodyPart("wrists", ("prayer position stretches", "gentle wrist circles", "finger spreads"), "typing and using a mouse for hours"),
    BodyPart("hamstrings", ("a seated forward reach", "a standing heel on a step stretch", "lying leg raises with a towel"), "sitting most of the day"),
    BodyPart("upper back", ("thread the needle on all fours", "a seated arm reach overhead", "squeezing the shoulder blades together"), "slumping in a soft chair"),
    BodyPart("calves", ("a wall calf stretch", "slow heel raises", "ankle circles"), "standing in one place or wearing stiff shoes"),

    BodyPart("ankles", ("ankle alphabet tracing", "calf raises on a step", "seated ankle rolls"), "sitting with your feet tucked under the chair"),
    BodyPart("chest", ("a doorway pec stretch", "hands clasped behind the back", "lying on a rolled towel along the spine"), "rounding the shoulders forward all day"),
    BodyPart("glutes", ("a seated figure four", "lying knee hugs", "a pigeon pose"), "sitting on them for hours, which switches them off"),
    BodyPart("forearms", ("wrist flexor stretches", "gentle fist clenches and spreads", "forearm rolls against a table edge"), "gripping a mouse and a phone all day"),
)
BODY_BY_NAME = {b.name: b for b in BODY_PARTS}


def _stretch_view(s: Slots) -> Slots:
    b = BODY_BY_NAME[str(s["part"])]
    minutes = int(s["minutes"])  # type: ignore[arg-type]
    hold = 20 if minutes <= 5 else 30
    reps = max(1, (minutes * 60) // (3 * (hold + 10)))
    return {
        "x1": b.stretches[0],
        "x2": b.stretches[1],
        "x3": b.stretches[2],
        "cause": b.cause,
        "hold": hold,
        "reps_w": number_words(int(reps)),
        "minutes_w": number_words(minutes),
    }


HEALTH_STRETCH = Scenario(
    domain="health",
    slots={"part": choice_of(tuple(BODY_BY_NAME)), "minutes": int_between(3, 15), "month": choice_of(MONTHS)},
    derive=_stretch_view,
    request=(
        "I feel really stiff in my {part} from sitting at my desk. Any stretches I can do in {minutes} minutes?",
        "Can you give me a {minutes} minute stretch routine for my {part}?",
        "What can I do about tightness in my {part}? Just a few minutes, maybe {minutes}.",
        "I've been at the computer all day and I've got an ache in my {part}. What should I stretch?",
    ),
    answer=(
        (
            "[Sure|Of course|Good idea], stiffness in the {part} [is really common and usually comes from|usually comes from] {cause}.",
            "[Oh, that's common|Yeah], tightness in the {part} [is often down to|is a classic result of] {cause}.",
        ),
        (
            "[Here's a {minutes_w} minute routine|Let's do {minutes_w} minutes]: {x1}, {x2}, and {x3}.",
            "[Try these three|Three stretches that help]: {x1}, then {x2}, and finally {x3}.",
        ),
        (
            "[Hold|Stay in] each one for about {hold} seconds[ and breathe slowly|, breathing out as you ease in|].",
            "[Each stretch|Every position] [gets|should last] about {hold} seconds[, no bouncing|, nice and gentle|].",
        ),
        (
            "[Go through the set|Repeat the three] {reps_w} times[ to fill the {minutes} minutes|, resting briefly in between|].",
            "[That's|You'll get through] about {reps_w} rounds in {minutes} minutes[ at a relaxed pace|].",
        ),
        (
            "[Stretch|Move] to a mild pull, never pain[, and stop if the ache gets worse|], and if it keeps hurting, [check with a doctor|see a physiotherapist].",
            "[If the pain in your {part} lasts more than a week|If it doesn't ease up after a few days], [it's worth seeing a doctor|get it checked by a professional].",
        ),
        (
            *offer("remind you to stretch your {part} every hour while you work", ""),
            *offer("time the {hold} second holds for you[ as you go| right now]", ""),
        ),
    ),
    corrections=(
        Correction(
            "part",
            "your {part}",
            user=("Sorry, it's more my {part}, not my {old_part}.", "Actually, the stiffness is in my {part}."),
            ack=("[Ah|Oh], your {part}[, okay|, got it]. [Different stretches then|Let me switch those].",),
        ),
        Correction("minutes", "{minutes} minutes", user=("I actually only have {minutes} minutes.", "Make it {minutes} minutes.")),
    ),
    topic=("the {part} stretches", "your stretch routine", "stretching your {part}"),
)

SCENARIOS: tuple[Scenario, ...] = (
    TECH_FIX,
    TECH_SETUP,
    HOME_STAIN,
    HOME_PAINT,
    HOME_PLANT,
    MUSIC_PLAYLIST,
    MUSIC_LEARN,
    FINANCE_SAVE,
    FINANCE_BUDGET,
    HEALTH_SLEEP,
    HEALTH_STEPS,
    HEALTH_STRETCH,
)

__all__ = ["SCENARIOS", "DEVICES", "PROBLEMS", "GENRES", "INSTRUMENTS"]
