"""Natural conversation: a long multi-exchange session with human-like rhythm (the `natural` preset).

Several exchanges (timing.exchanges): requests on the same topic or a new one, small talk, short
acknowledgements folded into the next request, a closing. The user backchannels during answers
at a drawn per-session rate (timing.backchannel_per_min, per minute of assistant speech), with
ex-Gaussian onsets around the assistant's phrase ends; hesitates inside some turns
(timing.hesitation_prob, pause_s); sometimes cuts in (timing.interrupt_prob) to stop, correct or
park the answer; and, under the closed-loop controller (timing.controller_gain), starts some
turns before the assistant has quite finished. Every draw comes from the planner's RNG.
"""
from __future__ import annotations

import numpy as np

from generators import text_bank as tb
from generators.common import Planner
from generators.scenarios import interruption, overlay
from schemas.script import Continuation, Interruption, Pause, ScriptTurn
from schemas.vocab import InterruptAction, Trigger, TurnAttr

# a comma inside a sentence, where a phrase break may be voiced as a longer pause
_COMMAS = (",", "，")


def _pick(rng: np.random.Generator, items: tuple) -> object:
    return items[int(rng.integers(len(items)))]


def _minutes(p: Planner, text: str, rate_wpm: int) -> float:
    return len(p.lang.words(text)) / max(rate_wpm, 60)


def _with_hesitation(p: Planner, text: str) -> Pause | None:
    if len(p.lang.words(text)) < 4 or p.rng.random() >= p.timing.hesitation_prob:
        return None
    first, _ = tb.split_for_pause(p.rng, text, lang=p.lang.code)
    filler = tb.draw_hesitation(p.rng, p.lang.words(first)[-1], lang=p.lang.code) if p.rng.random() < 0.5 else None
    return Pause(after_word=len(p.lang.words(first)), dur_s=p.draw(p.timing.pause_s), filler=filler)


def _join(p: Planner, sentences: list[str] | tuple[str, ...]) -> str:
    """Sentences as one text, some breaks voiced as longer pauses (whitespace only; words unchanged).

    espeak-ng pauses ~0.25 s at a sentence end, ~0.1 s at a comma, and ~0.5 s at a paragraph
    break. People pause longer and more often than that between thoughts and phrases, so a
    sentence break becomes a paragraph break with probability timing.long_break_prob, and a
    comma inside a sentence with timing.phrase_break_prob.
    """
    t = p.timing
    out: list[str] = []
    for i, sent in enumerate(sentences):
        if i:
            out.append("\n\n" if p.rng.random() < t.long_break_prob else p.lang.word_separator)
        toks = p.lang.words(sent)
        for j, tok in enumerate(toks):
            if j:
                brk = toks[j - 1].endswith(_COMMAS) and t.phrase_break_prob > 0 and p.rng.random() < t.phrase_break_prob
                out.append("\n\n" if brk else p.lang.word_separator)
            out.append(tok)
    return "".join(out)


def _answer(p: Planner, text: str, bc_rate: float, **kw: object) -> ScriptTurn:
    """An assistant turn with Poisson(rate x its length) backchannels from the user."""
    n_bc = int(p.rng.poisson(bc_rate * _minutes(p, text, p.cast.assistant.rate)))
    lines = [tb.draw_backchannel(p.rng, lang=p.lang.code) for _ in range(n_bc)]
    overlays = overlay.place(p, text, overlay.BACKCHANNEL, lines) if lines else ()
    return p.assistant(text, overlays=overlays, **kw)


def plan(p: Planner) -> tuple[str, list[ScriptTurn]]:
    t, rng = p.timing, p.rng
    n_ex = int(rng.integers(t.exchanges[0], t.exchanges[1] + 1))
    bc_rate = p.draw(t.backchannel_per_min)
    first = tb.draw_exchange(rng, lang=p.lang.code)
    ex: tb.Exchange | None = first   # None while the user makes small talk
    domain = first.domain
    turns: list[ScriptTurn] = []
    request, reply = first.user_request, ""
    for i in range(n_ex):
        user = p.user(request, pause=_with_hesitation(p, request))
        turns.append(user)
        if ex is None:   # small talk: a short reply
            turns.append(_answer(p, reply, bc_rate))
        elif len(ex.answer) >= 3 and rng.random() < t.interrupt_prob:
            turns += _interrupted(p, ex, bc_rate)
        else:
            n = int(rng.integers(1, min(3, len(ex.answer)) + 1))
            turns.append(_answer(p, _join(p, ex.said(n)), bc_rate))
        if i == n_ex - 1:
            break
        # the next user turn: same topic, a new one, or small talk; sometimes after a short ack
        u = rng.random()
        if u < 0.2:
            line, reply = tb.draw_smalltalk(rng, lang=p.lang.code)
            ex, request = None, line
        else:
            ex = (tb.draw_exchange(rng, domain, lang=p.lang.code) if u < 0.55
                  else tb.draw_followup(rng, exclude_domain=domain, lang=p.lang.code))
            domain, request = ex.domain, ex.user_request
        if rng.random() < 0.5:
            request = _join(p, [tb.draw_ack(rng, lang=p.lang.code), request])
    if rng.random() < 0.6:
        close, reply = tb.draw_closing(rng, lang=p.lang.code)
        turns += [p.user(close), p.assistant(reply)]
    return domain, turns


def _interrupted(p: Planner, ex: tb.Exchange, bc_rate: float) -> list[ScriptTurn]:
    """A full answer the user cuts into: stop (discard), correct (repair) or ask something else (park)."""
    t, rng = p.timing, p.rng
    action = InterruptAction(_pick(rng, (InterruptAction.DISCARD, InterruptAction.REPAIR, InterruptAction.PARK)))
    answer = _join(p, ex.answer)
    if action == InterruptAction.DISCARD:
        text = tb.draw_stop_request(rng, lang=p.lang.code)
    elif action == InterruptAction.REPAIR:
        text = ex.correction
    else:
        nxt = tb.draw_followup(rng, exclude_domain=ex.domain, lang=p.lang.code)
        text = nxt.user_request
    cut = Interruption(action=action, text=text, at_fraction=p.draw(t.interrupt_at), detect_s=p.draw(t.detect_s),
                       fade_s=p.draw(t.fade_s), eot_s=p.draw(t.eot_s))
    first = p.assistant(answer, interruption=cut)
    if action == InterruptAction.DISCARD:
        return [first, p.assistant(tb.draw_discard_ack(rng, ex.topic or ex.domain, lang=p.lang.code))]
    if action == InterruptAction.REPAIR:
        return [first, p.assistant("", continuation=Continuation(of_turn=first.id, prefix=ex.repair_ack,
                                                                 sentences=ex.repaired_from))]
    out = [first, _answer(p, _join(p, nxt.said(int(rng.integers(2, 4)))), bc_rate)]
    if rng.random() < 0.5:
        prefix = tb.draw_resume_phrase(rng, ex.topic or ex.domain, lang=p.lang.code)
        resume = Continuation(of_turn=first.id, prefix=prefix, sentences=ex.answer)
        out.append(p.assistant("", continuation=resume, trigger=Trigger.FOLLOW, attrs={TurnAttr.RESUMES: first.id}))
    else:
        out.append(interruption.drop_parked(p, first, ex.topic or ex.domain))
    return out
