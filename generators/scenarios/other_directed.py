"""Talking to others: the user speaks to someone in the room (FD-Bench v1.5 recipe); the assistant goes on."""
from __future__ import annotations

from generators import text_bank as tb
from generators.common import Planner
from schemas.script import ScriptTurn


def plan(p: Planner) -> tuple[str, list[ScriptTurn]]:
    ex = tb.draw_exchange(p.rng)
    answer = " ".join(ex.answer)
    lines = [tb.draw_other_directed(p.rng) for _ in range(int(p.rng.integers(1, 3)))]
    return ex.domain, [p.user(ex.user_request),
                       p.assistant(answer, overlays=p.overlays(answer, "other_directed", lines))]
