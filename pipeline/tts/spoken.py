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

from schemas.language import LANGUAGES, Language
from schemas.languages.base import whitespace_words

from .base import WordTiming

__all__ = ["SpokenForm", "spoken_form", "spoken_words", "word_timings", "speakable"]

_SPEAKABLE_SYMBOLS = "&@%$#+=€£¥￥"


def speakable(token: str) -> bool:
    """A token an engine voices (letters, digits or a symbol that is read), not bare punctuation."""
    return any(c.isalnum() or c in _SPEAKABLE_SYMBOLS for c in token)


# ----------------------------------------------------------------------------- the form
def spoken_words(tokens: Sequence[str], code: str | None) -> list[str]:
    """What each written token says (the token itself where written and spoken agree).

    ``code`` is the language: its ``Language.spoken`` (schemas/languages/<code>.py) says the tokens;
    a code with no ``Language`` says every token as written.
    Context-dependent readings look only at the neighbouring written tokens ("am" after a number,
    两 before a measure word), so the result is the same for a row's stored words as at synthesis.
    """
    lang = LANGUAGES.get(code) if code else None
    return lang.spoken(tokens) if lang is not None else list(tokens)


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
