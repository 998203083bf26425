"""Tiny template engine shared by the text banks.

Template syntax (never leaks into output):

* ``[a|b|c]`` picks one option; options may be empty (``[very |]``) and may nest.
* ``{name}`` is replaced by the slot ``name`` (slots are plain strings or ints).

Alternations are resolved with their own RNG *before* slots are substituted, so a
sentence rendered twice with the same choice seed and two different slot dicts
differs only where the slots differ (this is what repairs rely on).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal
from typing import Callable, Mapping, Sequence

import numpy as np

Rng = np.random.Generator
Slots = dict[str, object]

_ALT = re.compile(r"\[([^\[\]]*)\]")
_SLOT = re.compile(r"\{(\w+)\}")
_SPACES = re.compile(r"\s+")
_SPACE_BEFORE_PUNCT = re.compile(r"\s+([,.!?;:])")
_DOUBLE_COMMA = re.compile(r",\s*,")
_COMMA_END = re.compile(r",\s*([.!?])")


def pick(rng: Rng, options: Sequence[str]):
    """One element of ``options`` drawn with ``rng``."""
    return options[int(rng.integers(len(options)))]


def expand(template: str, rng: Rng) -> str:
    """Resolve every ``[a|b]`` alternation (innermost first)."""
    text = template
    while True:
        match = _ALT.search(text)
        if match is None:
            return text
        options = match.group(1).split("|")
        choice = options[int(rng.integers(len(options)))]
        text = text[: match.start()] + choice + text[match.end():]


def expansions(template: str) -> tuple[str, ...]:
    """Every text ``template``'s alternations can give, in order (for checks that a text says a
    value some way: a spoken time or an amount holds its ways of being said as alternations)."""
    match = _ALT.search(template)
    if match is None:
        return (template,)
    return tuple(dict.fromkeys(
        out for option in match.group(1).split("|")
        for out in expansions(template[: match.start()] + option + template[match.end():])))


def realise(template: str, slots: Mapping[str, object], rng: Rng) -> str:
    """``template`` with its alternations chosen and its slots filled, then the alternations the slot
    values carry: a table field can hold variants as data ("[a light layer|an extra layer] just in
    case"), drawn from the same ``rng`` after the template's own. Harness arguments never hold them
    (the loader refuses one), so a value is only varied where it is said."""
    out = fill(expand(template, rng), slots)
    return expand(out, rng) if "[" in out else out


def fill(text: str, slots: Mapping[str, object]) -> str:
    """Substitute ``{slot}`` references; a missing slot is a programming error."""

    def repl(m: re.Match[str]) -> str:
        key = m.group(1)
        if key not in slots:
            raise KeyError(f"template slot {{{key}}} missing in {text!r}")
        return str(slots[key])

    # slots may themselves contain slot references one level deep
    out = _SLOT.sub(repl, text)
    if "{" in out:
        out = _SLOT.sub(repl, out)
    return out


_A_BEFORE = re.compile(r"\b([Aa]) (?=(\S+))")
_AN_WORDS = re.compile(r"^(8|11|18)(\d\d\d)?\b|^8\d*\b|^(hour|honest|heir)|^[aeioAEIO]|^u(?!ni|s[eu]|r|t|k|ro)|^U(?!ni|s[eu]|r|t|K)")
_A_EXCEPTIONS = ("one", "once", "euro", "European", "Ouija")


def fix_articles(text: str) -> str:
    """Turn "a" into "an" before a vowel sound ("an iPhone", "an 8 minute walk", "an hour")."""

    def repl(m: re.Match[str]) -> str:
        nxt = m.group(2)
        if nxt.startswith(_A_EXCEPTIONS) or not _AN_WORDS.match(nxt):
            return m.group(0)
        return m.group(1) + "n "

    return _A_BEFORE.sub(repl, text)


# Slot values that bring their own article or number into a template's: the agreement fixes.
ARTICLE_BEFORE_THE = re.compile(r"\b([Tt]he|[Aa]n?) The (?=[A-Z])")          # "try the The Blue Door"
ARTICLE_BEFORE_ARTICLE = re.compile(r"\b(?:[Tt]he|[Aa]n?) ((?:a|an|the)\b)")   # "the a quarter to two"
PLURAL_POSSESSIVE = re.compile(r"\b([A-Z]\w* [A-Z]\w*(?:[^aeious\W]|e)s)'s\b")   # "Northgate Rovers's"
SINGULAR: dict[str, str] = {
    "hours": "hour", "minutes": "minute", "seconds": "second", "days": "day", "weeks": "week", "months": "month",
    "years": "year", "nights": "night", "degrees": "degree", "dollars": "dollar", "euros": "euro",
    "pounds": "pound", "kilometres": "kilometre", "kilometers": "kilometer", "miles": "mile", "metres": "metre",
    "meters": "meter", "litres": "litre", "liters": "liter", "kilos": "kilo", "kilograms": "kilogram",
    "grams": "gram", "cups": "cup", "albums": "album", "songs": "song", "sets": "set", "reps": "rep",
    "people": "person", "portions": "portion", "times": "time", "items": "item", "steps": "step", "pages": "page",
    "guests": "guest", "rooms": "room", "tickets": "ticket", "episodes": "episode", "books": "book", "games": "game",
}
# "1 hours", "one nights"; not a range's end ("minus 3 to 1 degrees", "minus 10 to minus 1 degrees") or a
# decimal ("391.1 kilometres").
ONE_PLURAL = re.compile(r"(?<![\d.,])(?<!\bto )(?<!\band )(?<!\bto minus )(?<!\band minus )(?<!-)\b(1|one) (" + "|".join(SINGULAR) + r")\b")


def fix_agreement(text: str) -> str:
    """Agreement a filled slot breaks: doubled articles, a plural name's possessive, one + plural."""
    out = ARTICLE_BEFORE_THE.sub(r"\1 ", text)
    out = ARTICLE_BEFORE_ARTICLE.sub(r"\1", out)
    out = PLURAL_POSSESSIVE.sub(r"\1'", out)
    return ONE_PLURAL.sub(lambda m: f"{m.group(1)} {SINGULAR[m.group(2)]}", out)


def tidy(text: str, capitalize: bool = True) -> str:
    """Normalise spaces and punctuation and (by default) capitalise the first letter."""
    out = _SPACES.sub(" ", text).strip()
    out = _SPACE_BEFORE_PUNCT.sub(r"\1", out)
    out = _DOUBLE_COMMA.sub(",", out)
    out = _COMMA_END.sub(r"\1", out)
    out = out.replace(" ,", ",")
    out = fix_agreement(out)
    out = fix_articles(out)
    if capitalize and out and out[0].islower():
        out = out[0].upper() + out[1:]
    # capitalise after sentence-internal full stops produced by alternations
    out = re.sub(r"([.!?] )([a-z])", lambda m: m.group(1) + m.group(2).upper(), out)
    return out


def render(template: str, slots: Mapping[str, object], seed: int) -> str:
    """Render ``template`` with alternation choices fixed by ``seed``."""
    return tidy(realise(template, slots, np.random.default_rng(seed)))


def render_rng(
    rng: Rng, templates: Sequence[str], slots: Mapping[str, object] | None = None, capitalize: bool = True
) -> str:
    """Pick a template from ``templates`` and render it, all with ``rng``."""
    template = pick(rng, templates)
    return tidy(realise(template, slots or {}, rng), capitalize)


def new_seed(rng: Rng) -> int:
    return int(rng.integers(0, 2**31 - 1))


# --------------------------------------------------------------------------- numbers

_ONES = (
    "zero one two three four five six seven eight nine ten eleven twelve thirteen "
    "fourteen fifteen sixteen seventeen eighteen nineteen"
).split()
_TENS = "_ _ twenty thirty forty fifty sixty seventy eighty ninety".split()


def number_words(n: int) -> str:
    """English words for 0 <= n < 10000 ("forty-two")."""
    if n < 0:
        return "minus " + number_words(-n)
    if n < 20:
        return _ONES[n]
    if n < 100:
        tens, ones = divmod(n, 10)
        return _TENS[tens] + ("" if ones == 0 else "-" + _ONES[ones])
    if n < 1000:
        hundreds, rest = divmod(n, 100)
        head = _ONES[hundreds] + " hundred"
        return head if rest == 0 else head + " and " + number_words(rest)
    thousands, rest = divmod(n, 1000)
    head = number_words(thousands) + " thousand"
    if rest == 0:
        return head
    return head + (" and " if rest < 100 else " ") + number_words(rest)


def spoken_time(hour: int, minute: int = 0, style: int = 0) -> str:
    """A clock time as people say it, in one of five styles.

    0 "half past seven in the evening", 1 "7:30 in the evening", 2 "7:30",
    3 "seven thirty", 4 "half past seven". Noon and midnight are always words. Where people
    say the same time more than one way ("seven o'clock in the evening", "seven in the evening"), the text holds
    the ways as an ``[a|b]`` alternation, chosen where it is said (``realise``).
    """
    hour %= 24
    h12 = hour % 12 or 12
    if minute == 0 and hour == 12:
        return "noon" if style % 2 == 0 else "midday"
    if minute == 0 and hour == 0:
        return "midnight"
    part = (
        "at night" if hour >= 21 or hour < 5 else "in the morning" if hour < 12
        else "in the afternoon" if hour < 17 else "in the evening"
    )
    word = number_words(h12)
    digits = f"{h12}:{minute:02d}" if minute else f"{h12} o'clock"
    if minute == 0:
        words = f"{word} o'clock" if style in (3, 4) else word
    elif minute == 30:
        words = f"half past {word}" if style != 3 else f"{word} thirty"
    elif minute == 15:
        words = f"a quarter past {word}" if style != 3 else f"{word} fifteen"
    elif minute == 45:
        words = f"a quarter to {number_words(h12 % 12 + 1)}" if style != 3 else f"{word} forty-five"
    elif number_words(minute) == word:   # 10:10 is "ten past ten", not "ten ten"
        words = f"{word} past {word}"
    else:
        words = f"{word} {number_words(minute) if minute >= 10 else 'oh ' + number_words(minute)}"
    if style == 0:
        if minute == 0:
            return f"[{word}|{word} o'clock] {part}"
        if minute in (15, 30, 45):   # "a quarter to four" is also "three forty-five"
            return f"[{words}|{word} {number_words(minute)}] {part}"
        return f"{words} {part}"
    if style == 1:
        return f"[{h12} o'clock|{h12}] {part}" if minute == 0 else f"{digits} {part}"
    if style == 2:
        return digits
    return words


def money(amount: float, one: str = "dollar", many: str = "dollars", minor: str = "cents") -> str:
    """Spoken money: "24 dollars", "12 dollars and 50 cents"; in another currency "1 euro and 51 cents",
    "7 pounds and 50 pence" (a currency said in whole units is rounded before it comes here)."""
    cents_total = int(round(amount * 100))
    dollars, cents = divmod(cents_total, 100)
    unit = one if dollars == 1 else many
    if cents == 0:
        return f"{dollars:,} {unit}"
    if dollars == 0:
        return f"{cents} {minor}"
    return f"{dollars:,} {unit} and {cents} {minor}"


def plural(n: int, word: str, words: str | None = None) -> str:
    return f"{n} {word if n == 1 else (words or word + 's')}"


# --------------------------------------------------------------------------- scenarios

# draws one slot value, given the slots drawn before it (most samplers ignore them)
SlotSampler = Callable[[Rng, Slots], object]
Deriver = Callable[[Slots], Slots]


@dataclass(frozen=True)
class Correction:
    """A user correction that changes one base slot mid-answer.

    ``show`` renders the slot for generic phrases ("{servings} servings");
    ``user`` and ``ack`` are extra, slot-specific templates that may use ``{new}``,
    ``{old}``, every slot of the corrected dict and every old slot as ``{old_<name>}``.
    """

    slot: str
    show: str
    user: tuple[str, ...] = ()
    ack: tuple[str, ...] = ()
    generic: bool = True  # also draw from the shared generic correction / ack phrases


@dataclass(frozen=True)
class Scenario:
    """One kind of request inside a domain, with everything needed to render an exchange."""

    domain: str
    slots: Mapping[str, SlotSampler]
    request: tuple[str, ...]
    answer: tuple[tuple[str, ...], ...]
    corrections: tuple[Correction, ...]
    topic: tuple[str, ...]
    derive: Deriver | None = None
    weight: float = 1.0
    keep: int = 1          # leading answer positions always said (model.Scenario.keep)

    def draw_slots(self, rng: Rng) -> Slots:
        return draw_slots(rng, self.slots)

    def view(self, base: Slots) -> Slots:
        """Base slots plus derived (string) slots."""
        out: Slots = dict(base)
        if self.derive is not None:
            out.update(self.derive(out))
        return out


def row_prose(row: object, fields: Sequence[str], lowered: Sequence[str] = ()) -> Slots:
    """A table row's own prose fields as slots, plus `<field>_l` lower-case-first copies of `lowered`
    (the field said mid-sentence): what a scenario that answers from its row's text derives."""
    out: dict[str, object] = {f: getattr(row, f) for f in fields}
    for f in lowered:
        text = str(out[f])
        out[f + "_l"] = text[0].lower() + text[1:]
    return out


def draw_slots(rng: Rng, samplers: Mapping[str, SlotSampler]) -> Slots:
    """Draw every slot in order; each sampler sees the slots drawn before it."""
    out: Slots = {}
    for name, sampler in samplers.items():
        out[name] = sampler(rng, out)
    return out


def choice_of(values: Sequence[object]) -> SlotSampler:
    """Sampler that draws one element of ``values``."""
    vals = tuple(values)

    def sample(rng: Rng, slots: Slots) -> object:
        return vals[int(rng.integers(len(vals)))]

    return sample


def int_between(lo: int, hi: int, step: int = 1) -> SlotSampler:
    """Sampler for an int in [lo, hi] on a ``step`` grid."""

    def sample(rng: Rng, slots: Slots) -> int:
        return int(lo + step * int(rng.integers(0, (hi - lo) // step + 1)))

    return sample


def cents_between(lo: int, hi: int) -> SlotSampler:
    """Sampler for an exact amount of ``lo`` to ``hi`` cents (inclusive), as a Decimal of the main unit."""

    def sample(rng: Rng, slots: Slots) -> Decimal:
        return Decimal(int(rng.integers(lo, hi + 1))) / 100

    return sample


def seed_slot(rng: Rng, slots: Slots) -> int:
    """A hidden per-dialogue seed so derived numbers vary between dialogues."""
    return int(rng.integers(0, 2**31 - 1))


__all__ = [
    "Correction",
    "Rng",
    "Scenario",
    "Slots",
    "cents_between",
    "choice_of",
    "draw_slots",
    "expand",
    "fill",
    "int_between",
    "money",
    "new_seed",
    "number_words",
    "pick",
    "plural",
    "render",
    "render_rng",
    "seed_slot",
    "spoken_time",
    "tidy",
]
