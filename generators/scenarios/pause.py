"""Hesitation: the user pauses mid-request (maybe with a filler); the assistant keeps listening."""
from __future__ import annotations

from generators import text_bank as tb
from generators.common import Planner
from schemas.script import Pause, ScriptTurn


def plan(p: Planner) -> tuple[str, list[ScriptTurn]]:
    ex = tb.draw_exchange(p.rng, lang=p.lang.code)
    first, _rest = tb.split_for_pause(p.rng, ex.user_request, lang=p.lang.code)
    filler = tb.draw_hesitation(p.rng, p.lang.words(first)[-1], lang=p.lang.code) if p.rng.random() < 0.6 else None
    pause = Pause(after_word=len(p.lang.words(first)), dur_s=p.draw(p.timing.pause_s), filler=filler)
    n = int(p.rng.integers(2, len(ex.answer) + 1))
    return ex.domain, [p.user(ex.user_request, pause=pause), p.assistant(p.lang.join(ex.said(n)))]
