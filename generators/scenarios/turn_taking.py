"""Smooth turn-taking: the user asks, the assistant answers after the user has clearly finished."""
from __future__ import annotations

from generators import text_bank as tb
from generators.common import Planner
from schemas.script import ScriptTurn


def plan(p: Planner) -> tuple[str, list[ScriptTurn]]:
    turns: list[ScriptTurn] = []
    first = tb.draw_exchange(p.rng, lang=p.lang.code)
    for i in range(1 + int(p.rng.integers(0, 2))):
        ex = first if i == 0 else tb.draw_followup(p.rng, exclude_domain=first.domain, lang=p.lang.code)
        n = int(p.rng.integers(2, len(ex.answer) + 1))
        turns.append(p.user(ex.user_request))
        turns.append(p.assistant(p.lang.join(ex.said(n))))
    return first.domain, turns
