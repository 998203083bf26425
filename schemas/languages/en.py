"""English (`en`, DESIGN §6): what the `Language` knows about it.

Words are whitespace tokens, punctuation attached. How a written token is *said* (`english_spoken`:
numbers, times, money, ordinals, %, &, abbreviations, units) is what every TTS engine synthesises
(pipeline/tts/spoken.py). `english_numbers` reads the numbers a text states, for DESIGN §2 rule 6.
"""
from __future__ import annotations

import re
from collections.abc import Sequence

from schemas.languages.base import Language, split_punct, whitespace_words


# ----------------------------------------------------------------------------- numbers stated (rule 6)
_NUMBER = re.compile(r"(?<![\w.])-?\d[\d,]*(?:\.\d+)?")
_CLOCK = re.compile(r"\b(\d{1,2}):(\d\d)\b")
_MONEY = re.compile(r"(\d[\d,]*) dollars? and (\d{1,2}) cents?")
_MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September",
           "October", "November", "December")
_MONTH = re.compile(rf"\b({'|'.join(_MONTHS)})\b")


def english_numbers(text: str) -> set[str]:
    """Numbers written in `text`. Money said "90 dollars and 41 cents" is the one number 90.41; a clock
    time 19:00 also counts as 19, 7 and 0 (said "7 in the evening"); a month name as its number (a
    Mandarin relay says "May 4" as 五月四号)."""
    text = _MONEY.sub(lambda m: f"{m.group(1)}.{int(m.group(2)):02d} dollars", text)
    out = {m.group(0).replace(",", "").rstrip(".") for m in _NUMBER.finditer(text)}
    for h, m in _CLOCK.findall(text):
        out |= {str(int(h)), str(int(h) % 12 or 12), str(int(m)), m}
    out |= {str(_MONTHS.index(m) + 1) for m in _MONTH.findall(text)}
    return out


# ----------------------------------------------------------------------------- English
_ONES = ("zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen "
         "sixteen seventeen eighteen nineteen").split()
_TENS = "_ _ twenty thirty forty fifty sixty seventy eighty ninety".split()
_SCALES = ((10**12, "trillion"), (10**9, "billion"), (10**6, "million"), (1000, "thousand"))
_ORDINAL_WORDS = {"one": "first", "two": "second", "three": "third", "five": "fifth", "eight": "eighth",
                  "nine": "ninth", "twelve": "twelfth"}
_CURRENCIES = {"$": ("dollar", "dollars", "cent", "cents"), "£": ("pound", "pounds", "penny", "pence"),
               "€": ("euro", "euros", "cent", "cents")}
_MULTIPLIERS = {"k": "thousand", "K": "thousand", "m": "million", "M": "million", "bn": "billion"}
#: written abbreviation (as the token's core, dots included) -> what is said
_ABBREVIATIONS = {
    "Dr.": "doctor", "Mr.": "mister", "Mrs.": "missus", "Ms.": "miz", "St.": "saint", "Mt.": "mount",
    "vs.": "versus", "vs": "versus", "etc.": "et cetera", "e.g.": "for example", "i.e.": "that is",
    "approx.": "approximately", "min.": "minutes", "hrs.": "hours", "a.m.": "a m", "p.m.": "p m",
    "OK": "okay", "Ok": "okay", "&": "and", "+": "plus", "=": "equals", "@": "at", "%": "percent",
    "#": "number", "w/": "with",
}
#: a unit written after a number (or glued to it): (singular, plural)
_UNITS = {
    "km": ("kilometre", "kilometres"), "kg": ("kilogram", "kilograms"), "g": ("gram", "grams"),
    "mg": ("milligram", "milligrams"), "ml": ("millilitre", "millilitres"), "l": ("litre", "litres"),
    "cm": ("centimetre", "centimetres"), "mm": ("millimetre", "millimetres"), "m": ("metre", "metres"),
    "mph": ("mile per hour", "miles per hour"), "kph": ("kilometre per hour", "kilometres per hour"),
    "min": ("minute", "minutes"), "mins": ("minute", "minutes"), "h": ("hour", "hours"),
    "hr": ("hour", "hours"), "hrs": ("hour", "hours"), "lb": ("pound", "pounds"), "lbs": ("pound", "pounds"),
    "oz": ("ounce", "ounces"), "ft": ("foot", "feet"), "GB": ("gigabyte", "gigabytes"),
    "MB": ("megabyte", "megabytes"), "°C": ("degree Celsius", "degrees Celsius"),
    "°F": ("degree Fahrenheit", "degrees Fahrenheit"), "°": ("degree", "degrees"), "x": ("times", "times"),
    "K": ("K", "K"),
}
#: all-capital tokens said as a word, not letter by letter
_CAPS_WORDS = frozenset({"I", "A", "NASA", "NATO", "UNESCO", "AIDS", "SIM", "PIN", "LOL", "ASAP", "OK"})

_NUM = r"\d{1,3}(?:,\d{3})+|\d+"
_EN_OPEN = "([{\"'“‘"
_EN_CLOSE = ",;:!?)]}\"'”’…"
_TIME_RE = re.compile(r"(\d{1,2}):(\d{2})(am|pm|a\.m\.|p\.m\.)?", re.I)
_MONEY_RE = re.compile(rf"([$£€])({_NUM})(?:\.(\d\d))?(k|K|m|M|bn)?")
_PERCENT_RE = re.compile(rf"(-?(?:{_NUM})(?:\.\d+)?)%")
_ORDINAL_RE = re.compile(r"(\d+)(st|nd|rd|th)")
_NUMBER_RE = re.compile(rf"(-?)({_NUM})(?:\.(\d+))?")
_NUM_UNIT_RE = re.compile(rf"(-?(?:{_NUM})(?:\.\d+)?)({'|'.join(sorted(map(re.escape, _UNITS), key=len, reverse=True))})")
_CLOCK_RE = re.compile(r"(\d{1,2})(am|pm)", re.I)
_RANGE_RE = re.compile(r"(\d+)[-–](\d+)")
_FRACTION_RE = re.compile(r"(\d+)/(\d+)")
_INITIALS_RE = re.compile(r"(?:[A-Za-z]\.){2,}")
_CAPS_RE = re.compile(r"([A-Z]{2,5})(s?)")


def en_cardinal(n: int) -> str:
    """An integer said in (US) English words, one spoken word per space."""
    if n < 0:
        return "minus " + en_cardinal(-n)
    if n < 20:
        return _ONES[n]
    if n < 100:
        return _TENS[n // 10] + ("" if n % 10 == 0 else " " + _ONES[n % 10])
    if n < 1000:
        return _ONES[n // 100] + " hundred" + ("" if n % 100 == 0 else " " + en_cardinal(n % 100))
    for scale, word in _SCALES:
        if n >= scale:
            rest = n % scale
            return en_cardinal(n // scale) + " " + word + ("" if rest == 0 else " " + en_cardinal(rest))
    raise AssertionError(n)


def _en_ordinal(n: int) -> str:
    words = en_cardinal(n).split()
    last = words[-1]
    if last in _ORDINAL_WORDS:
        words[-1] = _ORDINAL_WORDS[last]
    elif last.endswith("y"):
        words[-1] = last[:-1] + "ieth"
    else:
        words[-1] = last + "th"
    return " ".join(words)


def _en_number(text: str) -> str:
    """'1,800' -> 'one thousand eight hundred'; '73.05' -> 'seventy three point zero five'."""
    m = _NUMBER_RE.fullmatch(text)
    assert m is not None, text
    sign, whole, frac = m.groups()
    out = ("minus " if sign else "") + en_cardinal(int(whole.replace(",", "")))
    if frac:
        out += " point " + " ".join(_ONES[int(d)] for d in frac)
    return out


def _is_one(number: str) -> bool:
    return number.replace(",", "") in ("1", "1.0", "-1")


def _en_core(core: str, prev: str | None) -> str | None:
    """What a token without its surrounding punctuation says; None when it is said as written."""
    if core in _ABBREVIATIONS:
        return _ABBREVIATIONS[core]
    if (m := _TIME_RE.fullmatch(core)) and int(m.group(1)) < 24 and int(m.group(2)) < 60:
        hour, minute, half = int(m.group(1)), int(m.group(2)), m.group(3)
        said = en_cardinal(hour) + (" o'clock" if minute == 0 and not half else "" if minute == 0
                                    else " oh " + _ONES[minute] if minute < 10 else " " + en_cardinal(minute))
        return said + (" " + " ".join(half.lower().replace(".", "")) if half else "")
    if m := _CLOCK_RE.fullmatch(core):
        return en_cardinal(int(m.group(1))) + " " + " ".join(m.group(2).lower())
    if m := _MONEY_RE.fullmatch(core):
        sym, whole, cents, mult = m.groups()
        one, many, cent, cents_word = _CURRENCIES[sym]
        amount = en_cardinal(int(whole.replace(",", "")))
        if mult:
            return f"{amount} {_MULTIPLIERS[mult]} {many}"
        said = f"{amount} {one if _is_one(whole) else many}"
        if cents and int(cents):
            said += f" {en_cardinal(int(cents))} {cent if int(cents) == 1 else cents_word}"
        return said
    if m := _PERCENT_RE.fullmatch(core):
        return _en_number(m.group(1)) + " percent"
    if m := _ORDINAL_RE.fullmatch(core):
        return _en_ordinal(int(m.group(1)))
    if _NUMBER_RE.fullmatch(core):
        return _en_number(core)
    if m := _NUM_UNIT_RE.fullmatch(core):
        one, many = _UNITS[m.group(2)]
        return _en_number(m.group(1)) + " " + (one if _is_one(m.group(1)) else many)
    if m := _RANGE_RE.fullmatch(core):
        return en_cardinal(int(m.group(1))) + " to " + en_cardinal(int(m.group(2)))
    if m := _FRACTION_RE.fullmatch(core):
        num, den = int(m.group(1)), int(m.group(2))
        if den == 2:
            return en_cardinal(num) + (" half" if num == 1 else " halves")
        if den == 4:
            return en_cardinal(num) + (" quarter" if num == 1 else " quarters")
        return en_cardinal(num) + " " + _en_ordinal(den) + ("" if num == 1 else "s")
    after_number = prev is not None and bool(re.fullmatch(rf"[$£€]?(?:{_NUM})(?:\.\d+)?|\d{{1,2}}:\d\d",
                                                          prev.strip(_EN_CLOSE)))
    if after_number and core in _UNITS and core not in ("x", "K", "m", "l", "h", "g"):
        one, many = _UNITS[core]
        return one if _is_one(prev.strip(_EN_CLOSE)) else many
    if after_number and core.lower() in ("am", "pm"):
        return " ".join(core.lower())
    if _INITIALS_RE.fullmatch(core):
        return " ".join(c for c in core if c.isalpha())
    if "&" in core and len(core) > 1:
        return " and ".join(_en_core(p, None) or p for p in core.split("&") if p)
    if (m := _CAPS_RE.fullmatch(core)) and m.group(1) not in _CAPS_WORDS:
        return " ".join(m.group(1)) + ("s" if m.group(2) else "")
    return None


_TITLES = frozenset({"Dr.", "Mr.", "Mrs.", "Ms.", "St.", "Mt."})


def _en_token(token: str, prev: str | None, nxt: str | None) -> str:
    lead, core, trail = split_punct(token, _EN_OPEN, _EN_CLOSE)
    said = _en_core(core, prev)
    if said is None and core.endswith(".") and len(core) > 1:   # a sentence's full stop on a token
        said = _en_core(core[:-1], prev)
        if said is not None:
            trail = "." + trail
    elif said is not None and core.endswith(".") and core not in _TITLES and not trail and (
            nxt is None or nxt.lstrip(_EN_OPEN)[:1].isupper()):   # "etc." also ends its sentence
        trail = "." + trail
    return token if said is None else lead + said + trail

def english_spoken(tokens: Sequence[str]) -> list[str]:
    """What each written English token says ("8:30" -> "eight thirty"); `Language.spoken`."""
    toks = list(tokens)
    return [_en_token(t, toks[i - 1] if i else None, toks[i + 1] if i + 1 < len(toks) else None)
            for i, t in enumerate(toks)]


ENGLISH = Language(code="en", name="English", word_separator=" ", sentence_ends=(".", "?", "!"),
                   phrase_ends=(".", ",", "?", "!", ";", ":"), question_ends=("?",), segment=whitespace_words, numbers=english_numbers,
                   spoken=english_spoken, espeak_voices=("en*",))
