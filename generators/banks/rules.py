"""The render rules of one language's text: what each bank folder says about how its templates become text.

Every ``generators/banks/<lang>/__init__.py`` exports ``RULES``, a :class:`Rules`; the loader takes it
with the folder's functions, so a language's rules live with its content and nowhere else.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class Rules:
    """How one language's templates become text and where its user turns may pause.

    ``tidy(text, capitalize)`` normalises a filled template; a hesitation pause never follows a
    word ending in one of ``no_pause_after`` and prefers a word ``pause_after`` accepts;
    ``topic_fallback`` names a topic when an answer has none.
    """

    tidy: Callable[[str, bool], str]
    no_pause_after: tuple[str, ...]
    pause_after: Callable[[str], bool]
    topic_fallback: str
    topic_ends: str   # stripped from a topic before it fills {topic}
