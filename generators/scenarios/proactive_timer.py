"""Proactive speech: the user sets a timer; when it fires the assistant speaks up unprompted."""
from __future__ import annotations

from generators import text_bank as tb
from generators.common import Planner
from schemas.script import ScriptTurn, Timer
from schemas.vocab import Trigger


def plan(p: Planner) -> tuple[str, list[ScriptTurn]]:
    t = tb.draw_timer(p.rng, lang=p.lang.code)
    turns = [p.user(t.user_request),
             p.assistant(t.ack, timer=Timer(timer_id="timer1", seconds=float(t.seconds), label=t.label))]
    if p.rng.random() < 0.5:
        # the announcement follows unprompted: the reply leaves nothing for the user to answer (rule 7)
        user_line, reply = tb.draw_smalltalk(p.rng, lang=p.lang.code, question=False)
        turns += [p.user(user_line), p.assistant(reply)]
    turns.append(p.assistant(t.announce, trigger=Trigger.TIMER, ref="timer1"))
    return "timers", turns
