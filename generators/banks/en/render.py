"""English render rules (the folder's ``RULES``): the engine's tidy, and where a user turn may pause."""

from __future__ import annotations

import re

from ..engine import tidy
from ..rules import Rules

# words after which an English utterance is audibly unfinished
_DANGLING = frozenset(
    """a an the my your our their his her its this that these those some any
    in on at to for from with about of into onto by near around between like than
    and or but so if because when while as whether
    is are was be can could would should will do does did
    me you we i it
    what where which who how whats
    make get find tell give help check set book plan""".split()
)


def pause_after(word: str) -> bool:
    return re.sub(r"[^a-z]", "", word.lower()) in _DANGLING


RULES = Rules(tidy=tidy, no_pause_after=tuple(".!?,;:"), pause_after=pause_after,
              topic_fallback="what we were talking about", topic_ends=".!?")
