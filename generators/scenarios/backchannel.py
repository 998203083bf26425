"""Backchannels: the user says "mm-hmm" near the assistant's phrase ends; the answer goes on unchanged."""
from __future__ import annotations

from generators import text_bank as tb
from generators.common import Planner
from schemas.script import ScriptTurn


def plan(p: Planner) -> tuple[str, list[ScriptTurn]]:
    ex = tb.draw_exchange(p.rng)
    answer = " ".join(ex.answer)
    lines = [tb.draw_backchannel(p.rng) for _ in range(int(p.rng.integers(1, 4)))]
    return ex.domain, [p.user(ex.user_request),
                       p.assistant(answer, overlays=p.overlays(answer, "backchannel", lines))]
