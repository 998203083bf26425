"""Delegation: acknowledge now, hand the work to the harness, keep talking, relay the result later."""
from __future__ import annotations

from generators import text_bank as tb
from generators.common import Planner
from schemas.script import Delegation, ScriptTurn


def plan(p: Planner) -> tuple[str, list[ScriptTurn]]:
    d = tb.draw_delegation(p.rng)
    latency = float(round(min(20.0, p.rng.lognormal(mean=1.3, sigma=0.6)), 3))
    task = Delegation(task_id="t1", tool=d.tool, request=d.request, latency_s=latency, result=d.result)
    turns = [p.user(d.user_request), p.assistant(d.ack, delegate=task)]
    if p.rng.random() < 0.6:
        user_line, reply = tb.draw_smalltalk(p.rng)
        turns += [p.user(user_line), p.assistant(reply)]
    turns.append(p.assistant(" ".join(d.relay), trigger="backend", ref="t1"))
    return d.domain, turns
