"""Floor-taking interruptions, shared by the discard / repair / park families."""
from __future__ import annotations

from generators import text_bank as tb
from generators.common import Planner
from schemas.script import Continuation, Interruption, ScriptTurn
from schemas.vocab import InterruptAction, Trigger, TurnAttr


def cut_in(p: Planner, action: InterruptAction, text: str) -> Interruption:
    """The user's cut-in: where in the answer it starts and its detection, fade and end-of-turn draws."""
    t = p.timing
    return Interruption(action=action, text=text, at_fraction=float(round(p.rng.uniform(0.15, 0.55), 4)),
                        detect_s=p.draw(t.detect_s), fade_s=p.draw(t.fade_s), eot_s=p.draw(t.eot_s))


def plan_discard(p: Planner) -> tuple[str, list[ScriptTurn]]:
    """Stop and discard: the user says stop; the assistant stops, acknowledges briefly, and listens."""
    ex = tb.draw_exchange(p.rng, lang=p.lang.code)
    answer = p.assistant(p.lang.join(ex.answer),
                         interruption=cut_in(p, InterruptAction.DISCARD,
                                              tb.draw_stop_request(p.rng, lang=p.lang.code)))
    turns = [p.user(ex.user_request), answer, p.assistant(tb.draw_discard_ack(p.rng, ex.domain, lang=p.lang.code))]
    if p.rng.random() < 0.5:
        nxt = tb.draw_followup(p.rng, exclude_domain=ex.domain, lang=p.lang.code)
        turns += [p.user(nxt.user_request), p.assistant(p.lang.join(nxt.said(2)))]
    return ex.domain, turns


def repaired(p: Planner, answer: str, correction: str, ack: str, sentences: tuple[str, ...]
             ) -> tuple[ScriptTurn, ScriptTurn]:
    """The answer a correction cuts into, and its repair: `ack`, then the repaired answer's `sentences`
    from the first one the user did not fully hear (a Continuation, resolved at composition, rule 7).
    The shape of every repair family: the bank's, an LLM's, a corpus answer's."""
    cut = p.assistant(answer, interruption=cut_in(p, InterruptAction.REPAIR, correction))
    return cut, p.assistant("", continuation=Continuation(of_turn=cut.id, prefix=ack, sentences=sentences))


def plan_repair(p: Planner) -> tuple[str, list[ScriptTurn]]:
    """Repair: the user corrects a detail; the assistant regenerates only the unspoken part with it."""
    ex = tb.draw_exchange(p.rng, lang=p.lang.code)
    answer, repair = repaired(p, p.lang.join(ex.answer), ex.correction, ex.repair_ack, ex.repaired_from)
    return ex.domain, [p.user(ex.user_request), answer, repair]


def drop_parked(p: Planner, parked: ScriptTurn, topic: str) -> ScriptTurn:
    """A parked answer the assistant will not resume, set aside out loud after the new request was
    served: a parked answer is resumed or dropped, never left hanging (validate `park_resumed_or_dropped`)."""
    return p.assistant(tb.draw_park_drop(p.rng, topic, lang=p.lang.code), trigger=Trigger.FOLLOW,
                       attrs={TurnAttr.DROPS: parked.id})


def plan_park(p: Planner) -> tuple[str, list[ScriptTurn]]:
    """Park and follow: a new request cuts in; the assistant serves it, then resumes the parked answer."""
    ex = tb.draw_exchange(p.rng, lang=p.lang.code)
    nxt = tb.draw_followup(p.rng, exclude_domain=ex.domain, lang=p.lang.code)
    answer = p.assistant(p.lang.join(ex.answer), interruption=cut_in(p, InterruptAction.PARK, nxt.user_request))
    follow = p.assistant(p.lang.join(nxt.said(int(p.rng.integers(2, 4)))))
    turns = [p.user(ex.user_request), answer, follow]
    if p.rng.random() < 0.7:
        prefix = tb.draw_resume_phrase(p.rng, ex.domain, lang=p.lang.code)
        resume = Continuation(of_turn=answer.id, prefix=prefix, sentences=ex.answer)
        turns.append(p.assistant("", continuation=resume, trigger=Trigger.FOLLOW, attrs={TurnAttr.RESUMES: answer.id}))
    else:
        turns.append(drop_parked(p, answer, ex.topic or ex.domain))
    return ex.domain, turns
