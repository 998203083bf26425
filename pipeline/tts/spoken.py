"""Written <-> spoken text, and the word clock every TTS engine builds from it (issue #18).

Why: the stored ``words`` hold the *display* tokens ("8:30", "$20,", "3点"), but an engine says
"eight thirty", "twenty dollars", "三点". Left to the engine, its own text normaliser decides what
is said and its events fall on characters of the written text in ways that do not map back one to
one (espeak puts the event of "3" in "下午3点" on "午", and gives no event to an unstressed "the").
So every engine synthesises the *spoken form* built here and maps its events back through it:

* ``spoken_form(text, code)`` cuts ``text`` into the written tokens (``Language.words``; whitespace
  tokens for a language without a ``Language``), says each one (``spoken_words``: numbers, times,
  money, ordinals, %, &, abbreviations, units; Mandarin digits, 两 before measure words, 点/分,
  百分之), and returns the text to synthesise with the character span of each token's spoken part.
  Text between tokens is kept as written, so a text with nothing to verbalise is synthesised as is.
* ``word_timings(form, onsets, ...)`` turns engine events given as (character offset in
  ``form.text``, sample) into one ``WordTiming`` per written token: an onset belongs to the token
  whose spoken span holds it, so a token read as several words gets its first word's onset, and
  tokens an engine voiced under one event (several read as one) share that stretch by the length of
  what they say, snapped to the nearest phoneme boundary when the engine reports phonemes.

``spoken_words`` is a pure function of the written tokens and the language, so an exporter that
wants what was said (TAIL-style text streams) derives it from a row's stored ``words`` in order:
``spoken_words([w.word for w in turn_words], row.language)``. Nothing extra is stored.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from collections.abc import Sequence

import numpy as np

from schemas.language import LANGUAGES, Language, whitespace_words

from .base import WordTiming

__all__ = ["SpokenForm", "spoken_form", "spoken_words", "word_timings", "speakable"]

_SPEAKABLE_SYMBOLS = "&@%$#+=€£¥￥"


def speakable(token: str) -> bool:
    """A token an engine voices (letters, digits or a symbol that is read), not bare punctuation."""
    return any(c.isalnum() or c in _SPEAKABLE_SYMBOLS for c in token)


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


def _split_punct(token: str, opens: str, closes: str) -> tuple[str, str, str]:
    """(leading marks, core, trailing marks) of a token."""
    i, j = 0, len(token)
    while i < j and token[i] in opens:
        i += 1
    while j > i and (token[j - 1] in closes or token[j - 1].isspace()):
        j -= 1
    return token[:i], token[i:j], token[j:]


_TITLES = frozenset({"Dr.", "Mr.", "Mrs.", "Ms.", "St.", "Mt."})


def _en_token(token: str, prev: str | None, nxt: str | None) -> str:
    lead, core, trail = _split_punct(token, _EN_OPEN, _EN_CLOSE)
    said = _en_core(core, prev)
    if said is None and core.endswith(".") and len(core) > 1:   # a sentence's full stop on a token
        said = _en_core(core[:-1], prev)
        if said is not None:
            trail = "." + trail
    elif said is not None and core.endswith(".") and core not in _TITLES and not trail and (
            nxt is None or nxt.lstrip(_EN_OPEN)[:1].isupper()):   # "etc." also ends its sentence
        trail = "." + trail
    return token if said is None else lead + said + trail


# ----------------------------------------------------------------------------- Mandarin
_ZH_DIGITS = "零一二三四五六七八九"
_ZH_UNITS = ("", "十", "百", "千")
#: measure words and time words after which 2 is read 两 (两个, 两点, 两块), not 二
_ZH_MEASURES = tuple(
    "个 位 点 块 元 次 天 年 岁 本 张 件 只 杯 瓶 份 斤 公斤 公里 米 小时 钟头 分钟 秒 周 星期 种 条 双 台 辆 家 "
    "间 层 遍 碗 盒 包 口 句 页 首 部 场 节 趟 套 组 排 片 座 架 把 支 根 颗 粒 匹 头 棵 朵 封 笔 倍 千 万 亿".split())
_ZH_OPEN = "“‘「『（《〈【〔([{\"'"
_ZH_CLOSE = "，。、；：？！…”’」』）》〉】〕)]},.;:?!\"'"


def _zh_group(n: int) -> str:
    """0 < n < 10000 in Han numerals, with 零 for inner gaps ("一千零八十七")."""
    digits = [int(d) for d in f"{n:04d}"]
    out, zero = "", False
    for i, d in enumerate(digits):
        if d == 0:
            zero = bool(out)
            continue
        if zero:
            out += "零"
            zero = False
        out += _ZH_DIGITS[d] + _ZH_UNITS[3 - i]
    return out


def zh_cardinal(n: int) -> str:
    """An integer in Han numerals as said: 10-19 as 十..., 两千/两万 for a leading 2."""
    if n < 0:
        return "负" + zh_cardinal(-n)
    if n == 0:
        return "零"
    parts: list[str] = []
    for scale, word in ((10**8, "亿"), (10**4, "万"), (1, "")):
        group = n // scale % 10**4 if scale < 10**8 else n // scale
        if group:
            said = _zh_group(group) if group < 10**4 else zh_cardinal(group)
            if parts and (group < 1000 or parts[-1].endswith("零")):
                said = "零" + said if not said.startswith("零") else said
            parts.append(said + word)
        elif parts and not parts[-1].endswith("零"):
            parts.append("零")
    out = "".join(parts).rstrip("零")
    if out.startswith("一十"):
        out = out[1:]
    if out.startswith("二千") or out.startswith("二万") or out.startswith("二亿"):
        out = "两" + out[1:]
    return out


def _zh_digits(s: str) -> str:
    return "".join(_ZH_DIGITS[int(d)] for d in s)


def _zh_number(core: str, nxt: str | None) -> str | None:
    core = core.replace(",", "")
    if m := re.fullmatch(r"(\d{1,2}):(\d{2})", core):
        hour, minute = int(m.group(1)), int(m.group(2))
        said = ("两" if hour == 2 else zh_cardinal(hour)) + "点"
        return said if minute == 0 else said + ("零" if minute < 10 else "") + zh_cardinal(minute) + "分"
    if m := re.fullmatch(r"(-?\d+(?:\.\d+)?)%", core):
        said = _zh_number(m.group(1), None)
        return "百分之" + said if said else None
    if m := re.fullmatch(r"[¥￥$](\d+(?:\.\d+)?)", core):
        said = _zh_number(m.group(1), None)
        return said + ("美元" if core[0] == "$" else "元") if said else None
    if m := re.fullmatch(r"(-?)(\d+)\.(\d+)", core):
        return ("负" if m.group(1) else "") + zh_cardinal(int(m.group(2))) + "点" + _zh_digits(m.group(3))
    if re.fullmatch(r"\d+", core):
        following = (nxt or "").lstrip(_ZH_OPEN)
        if len(core) == 4 and following.startswith("年"):
            return _zh_digits(core)                      # 2024年: 二零二四年
        if core.startswith("0") and len(core) > 1 or len(core) >= 7:
            return _zh_digits(core)                      # codes and phone numbers, digit by digit
        if int(core) == 2 and following.startswith(_ZH_MEASURES):
            return "两"
        return zh_cardinal(int(core))
    return None


def _zh_token(token: str, nxt: str | None) -> str:
    lead, core, trail = _split_punct(token, _ZH_OPEN, _ZH_CLOSE)
    said = _zh_number(core, nxt) if any(c.isdigit() for c in core) else None
    if said is None and core in ("%", "&", "+", "="):
        said = {"%": "百分之", "&": "和", "+": "加", "=": "等于"}[core]
    return token if said is None else lead + said + trail


# ----------------------------------------------------------------------------- the form
def spoken_words(tokens: Sequence[str], code: str | None) -> list[str]:
    """What each written token says (the token itself where written and spoken agree).

    ``code`` is the language (``"en"``, ``"zh"``); any other value says every token as written.
    Context-dependent readings look only at the neighbouring written tokens ("am" after a number,
    两 before a measure word), so the result is the same for a row's stored words as at synthesis.
    """
    toks = list(tokens)
    if code == "en":
        return [_en_token(t, toks[i - 1] if i else None, toks[i + 1] if i + 1 < len(toks) else None)
                for i, t in enumerate(toks)]
    if code == "zh":
        return [_zh_token(t, toks[i + 1] if i + 1 < len(toks) else None) for i, t in enumerate(toks)]
    return toks


@dataclass(frozen=True)
class SpokenForm:
    """A text's written tokens, what each says, and the text an engine synthesises.

    ``spans[i]`` is the character span of ``spoken[i]`` inside ``text``; text between tokens is
    the written text's own (whitespace), so ``text == written`` when nothing needs verbalising.
    """

    tokens: tuple[str, ...]
    spoken: tuple[str, ...]
    text: str
    spans: tuple[tuple[int, int], ...]


def spoken_form(text: str, code: str | None) -> SpokenForm:
    """Tokens of ``text`` (the language's words, else whitespace tokens) and their spoken text."""
    lang: Language | None = LANGUAGES.get(code) if code else None
    if lang is None or lang.segment is whitespace_words:   # whitespace tokens
        written = [(m.group(), m.start(), m.end()) for m in re.finditer(r"\S+", text)]
    else:
        written, pos = [], 0
        for tok in lang.words(text):
            at = text.find(tok, pos)
            if at < 0:
                raise ValueError(f"{code} token {tok!r} is not a substring of the text {text[:80]!r}")
            written.append((tok, at, at + len(tok)))
            pos = at + len(tok)
    said = spoken_words([t for t, _, _ in written], code)
    out, spans, prev = [], [], 0
    length = 0
    for (_, a, b), s in zip(written, said):
        gap = text[prev:a]
        out.append(gap)
        length += len(gap)
        spans.append((length, length + len(s)))
        out.append(s)
        length += len(s)
        prev = b
    out.append(text[prev:])
    return SpokenForm(tuple(t for t, _, _ in written), tuple(said), "".join(out), tuple(spans))


# ----------------------------------------------------------------------------- the word clock
def _weight(text: str) -> int:
    """How long a stretch of spoken text takes to say, in letters (a Han character, one syllable,
    counts as three)."""
    return sum(3 if "\u3400" <= c <= "\u9fff" else 1 for c in text if c.isalnum())


def _inside_word(text: str, p: int) -> bool:
    """Whether offset ``p`` falls inside a word of a spaced script, where no spoken word can start:
    an engine event there misreports its position (espeak puts "row" of "in a row" on the "n" of
    "in"), so its run is taken as part of the run before it (Han text has no spaces: any character
    may start a word, so it is never "inside")."""
    def spaced(c: str) -> bool:
        return c.isalnum() and not "\u3400" <= c <= "\u9fff"

    return 0 < p < len(text) and spaced(text[p - 1]) and spaced(text[p])


def word_timings(form: SpokenForm, onsets: Sequence[tuple[int, int]], loud: np.ndarray, n: int, sr: int,
                 boundaries: Sequence[int] | None = None) -> tuple[WordTiming, ...]:
    """One WordTiming per written token of ``form`` from an engine's events.

    ``onsets``: (character offset in ``form.text``, sample) in audio order: where the engine starts
    saying the text at that offset (its phoneme events with their word's offset, or word events);
    ``loud``: sorted indices of the samples above the engine's silence threshold in its ``n``-sample
    output; ``boundaries``: samples where its phonemes start, if it reports them.

    Each run of onsets at one offset covers the spoken text from that offset to the next run's (an
    offset inside a word, which an engine can only have misreported, starts no run). A
    token starts at the first onset of the run its spoken part begins at; a token that begins
    inside a run (the engine said "in the" as one word, "六个人" as 六 + 人, "8:30" as "eight"
    "thirty") gets a start inside that run's stretch in proportion to the letters said before it,
    at the phoneme that share of the run's phonemes begins with. The first voiced token starts at 0 (the audio starts
    on speech). A token ends at the last loud sample before the next token's start, so a pause is
    no word's; a token that says nothing gets zero length where the previous one ended.
    """
    text = form.text
    runs: list[tuple[int, int]] = []          # (offset, first sample), offsets increasing
    for p, t in onsets:
        t = min(max(int(t), 0), n)
        if (not runs or p > runs[-1][0]) and not (runs and _inside_word(text, p)):
            runs.append((p, t))
    bounds = np.asarray(sorted(boundaries) if boundaries is not None else [], dtype=np.int64)

    def last_loud_before(limit: int, floor: int) -> int:
        hi = int(np.searchsorted(loud, limit)) - 1
        return int(loud[hi]) + 1 if hi >= 0 and loud[hi] >= floor else limit

    offsets = [p for p, _ in runs]
    starts: list[int | None] = []
    first = True
    for (a, _), said in zip(form.spans, form.spoken):
        if not speakable(said):
            starts.append(None)
            continue
        k = int(np.searchsorted(offsets, a, side="right")) - 1
        if first or k < 0:
            s = 0
        elif _weight(text[runs[k][0]:a]) == 0:   # the run starts on this token
            s = runs[k][1]
        else:
            t0 = runs[k][1]
            nxt = runs[k + 1] if k + 1 < len(runs) else (len(text), n)
            t1 = last_loud_before(nxt[1], t0)
            frac = _weight(text[runs[k][0]:a]) / max(1, _weight(text[runs[k][0]:nxt[0]]))
            inner = bounds[(bounds >= t0) & (bounds < t1)]
            if inner.size >= 2:   # the phoneme that share of the run's phonemes begins with
                s = int(inner[min(max(int(frac * inner.size + 0.5), 1), inner.size - 1)])
            else:
                s = t0 + round((t1 - t0) * frac)
        starts.append(s)
        first = False
    words: list[WordTiming] = []
    prev_start, prev_end = 0, 0
    for j, tok in enumerate(form.tokens):
        s0 = starts[j]
        if s0 is None:
            s = e = prev_end
        else:
            s = max(s0, prev_start, prev_end if prev_end <= s0 else prev_start)
            nxt_start = next((x for x in starts[j + 1:] if x is not None), n)
            e = last_loud_before(max(nxt_start, s), s)
            prev_start = s
        words.append(WordTiming(tok, s / sr, e / sr))
        prev_end = e
    return tuple(words)
