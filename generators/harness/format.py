"""Backend result text: plain language, no markdown, no protocol token can survive (DESIGN §1)."""
from __future__ import annotations

import re

from schemas.protocol import LEAK_TOKENS, PROTOCOL_TOKENS  # noqa: F401 - PROTOCOL_TOKENS re-exported

MAX_RESULT_CHARS = 1500

_LINK = re.compile(r"\[([^\]]*)\]\([^)]*\)")
_FENCE = re.compile(r"```[a-zA-Z0-9_+-]*")
_BULLET = re.compile(r"(?m)^\s*(?:[-*+]|\d+[.)])\s+")
_HEADING = re.compile(r"(?m)^\s*#{1,6}\s*")
_QUOTE = re.compile(r"(?m)^\s*>+\s?")
_MARKUP = re.compile(r"[*_`#~|\\]")
_SPACE = re.compile(r"\s+")


def plain_text(text: str, max_chars: int = MAX_RESULT_CHARS) -> str:
    """Strip markdown and every angle bracket (so no `<...>` control token can be formed), cap length.

    Angle brackets are spelt out rather than dropped, so "3 < 5" keeps its meaning.
    """
    if not isinstance(text, str):
        text = str(text)
    t = text.replace("\x00", " ")
    t = _LINK.sub(r"\1", t)
    t = _FENCE.sub(" ", t)
    t = _HEADING.sub("", t)
    t = _QUOTE.sub("", t)
    t = _BULLET.sub("", t)
    t = t.replace("<", " less than ").replace(">", " greater than ")
    t = _MARKUP.sub(" ", t)
    t = _SPACE.sub(" ", t).strip()
    if len(t) > max_chars:
        t = t[: max_chars - 3].rsplit(" ", 1)[0] + "..."
    return t


def has_protocol_leak(text: str) -> bool:
    """True if any protocol token, angle bracket or markdown marker is present."""
    return any(tok in text for tok in LEAK_TOKENS) or any(c in text for c in "<>*`#")
