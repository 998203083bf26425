"""What the LLM writes, per scenario family: the reply models (their JSON schema is what the endpoint is
asked for) and the checks a reply must pass beyond its schema, each failure phrased so it can be fed
back to the model in the retry prompt.

The model writes only words. Timing, overlays' placement, voices, cuts and the harness's results are
the planners' (generators/common.py, generators/scenarios/), so an LLM script obeys the same rules.
"""
from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, StringConstraints

from schemas.language import Language, written_in
from schemas.protocol import LEAK_TOKENS

Line = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=400)]
Murmur = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=24)]


class _Reply(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class ExchangeReply(_Reply):
    user: Line
    assistant: list[Line] = Field(min_length=1, max_length=4)


class TurnTakingReply(_Reply):
    exchanges: list[ExchangeReply] = Field(min_length=1, max_length=2)


class BackchannelReply(_Reply):
    user: Line
    assistant: list[Line] = Field(min_length=2, max_length=5)
    backchannels: list[Murmur] = Field(min_length=1, max_length=3)


class OtherDirectedReply(_Reply):
    user: Line
    assistant: list[Line] = Field(min_length=2, max_length=5)
    asides: list[Line] = Field(min_length=1, max_length=2)


class BackgroundReply(_Reply):
    user: Line
    assistant: list[Line] = Field(min_length=2, max_length=5)
    background: list[Line] = Field(min_length=1, max_length=2)


class DiscardReply(_Reply):
    user: Line
    answer: list[Line] = Field(min_length=3, max_length=5)
    stop: Line
    ack: Line
    followup: list[ExchangeReply] = Field(max_length=1)


class PauseReply(_Reply):
    user: Line
    assistant: list[Line] = Field(min_length=1, max_length=4)


class ParkReply(_Reply):
    user: Line
    answer: list[Line] = Field(min_length=3, max_length=5)
    new_request: Line
    new_answer: list[Line] = Field(min_length=2, max_length=3)
    resume_prefix: list[Line] = Field(max_length=1)


class RepairReply(_Reply):
    user: Line
    answer: list[Line] = Field(min_length=3, max_length=5)
    correction: Line
    repair_ack: Line
    repaired: list[Line] = Field(min_length=3, max_length=5)


class CorpusRepairReply(_Reply):
    """A repair over a corpus answer (generators/corpus): the corpus wrote the request and the answer."""

    correction: Line
    repair_ack: Line
    repaired: list[Line] = Field(min_length=1, max_length=100)


class DelegationReply(_Reply):
    user: Line
    ack: Line
    relay: list[Line] = Field(min_length=1, max_length=3)


def unspeakable(text: str) -> list[str]:
    """The code points of `text` no one can say: controls (NUL, ...), format characters (bidi
    overrides, zero-width spaces), private-use and unassigned ones, as U+XXXX (first 5)."""
    bad = sorted({c for c in text if unicodedata.category(c) in _UNSPEAKABLE})
    return [f"U+{ord(c):04X}" for c in bad[:5]]


_UNSPEAKABLE = frozenset({"Cc", "Cf", "Co", "Cn", "Cs", "Zl", "Zp"})

# Markup a spoken line never has (the model's habits from chat, not speech).
_MARKUP = re.compile(r"[*#`_\[\]{}<>|~]|\n")


def text_problems(lang: Language, texts: Iterable[str]) -> list[str]:
    """Problems of spoken lines: control or bidi characters, protocol tokens (looked for in the NFKC
    form too, so a fullwidth ＜｜speak｜＞ is one), markup, or the wrong script for the language."""
    out: list[str] = []
    for t in texts:
        hidden = unspeakable(t)
        folded = unicodedata.normalize("NFKC", t)
        if hidden:
            out.append(f"{t!r} contains the invisible or control character(s) {', '.join(hidden)}; "
                       "write plain spoken text")
        elif any(tok in t or tok in folded for tok in LEAK_TOKENS):
            out.append(f"{t!r} contains a protocol token")
        elif _MARKUP.search(t):
            out.append(f"{t!r} contains markup or a line break; write plain spoken text")
        elif not written_in(lang, t):
            out.append(f"{t!r} is not written in {lang.name}")
    return out


def sentence_problems(lang: Language, field: str, sentences: list[str]) -> list[str]:
    """Each item must be one sentence element (what a continuation resumes from), and only the last may
    ask a question (a question ends the assistant's turn, DESIGN §2 rule 7)."""
    out: list[str] = []
    for i, s in enumerate(sentences):
        if len(lang.sentence_elements([s])) != 1:
            out.append(f"{field}[{i}] {s!r} must be exactly one sentence")
        if i < len(sentences) - 1 and lang.is_question(s):
            out.append(f"{field}[{i}] {s!r} is a question before the end of the turn")
    return out


def rule6_problems(lang: Language, relay: str, known: Iterable[str]) -> list[str]:
    """DESIGN §2 rule 6: every number a relay states is in the result text or what the user said."""
    allowed: set[str] = set()
    for k in known:
        allowed |= lang.numbers(k)
    extra = sorted(lang.numbers(relay) - allowed)
    return [f"the relay states {', '.join(extra)}, which the tool result does not"] if extra else []
