"""Delegation families: hand work to the harness, keep talking, act on the result at a natural pause.

Every task is really executed by the simulated harness (generators/harness) at plan time, with
its latency and failure mode drawn from the tool's config; the text bank phrases the request,
the acknowledgement and a relay that agrees with the result.
"""
from __future__ import annotations

from generators import text_bank as tb
from generators.common import Planner
from generators.harness import Execution, run_task
from schemas.replace import replace
from schemas.script import Delegation, ScriptTurn
from schemas.vocab import TaskOutcome, TaskStatus, Trigger, TurnAttr


def task_for(p: Planner, task_id: str, content: tb.DelegationContent, force: str | None = None,
          quantiles: tuple[float, float] = (0.0, 1.0), **links: str) -> tuple[Delegation, Execution]:
    ex = run_task(task_id, content.call, p.harness, p.rng, p.harness_state, force=force,  # type: ignore[arg-type]
                  quantiles=quantiles)
    outcome = TaskOutcome.RELAYED if ex.status in (TaskStatus.OK, TaskStatus.PARTIAL) else TaskOutcome.FALLBACK
    return Delegation(task_id=task_id, tool=ex.tool, request=content.request, args=ex.args, latency_s=ex.latency_s,
                      result=ex.text, status=ex.status, outcome=outcome, **links), ex


def act_on(p: Planner, content: tb.DelegationContent, d: Delegation, ex: Execution, ask: bool = True) -> ScriptTurn:
    """The turn that relays a result, or explains a failure (fallback). ``ask=False`` where another
    result may be relayed right after it, unprompted: a closing offer ("Want me to retry it?") is then
    left out, as a question must leave the user room to answer (DESIGN §2 rule 7)."""
    lines = tb.relay_lines(p.rng, content, ex) if d.outcome in (TaskOutcome.RELAYED, TaskOutcome.REVISED) else tb.fallback_lines(p.rng, content, ex)
    if not ask:
        while len(lines) > 1 and p.lang.is_question(lines[-1]):
            lines = lines[:-1]
    return p.assistant(p.lang.join(lines), trigger=Trigger.BACKEND, ref=d.task_id)


def _maybe_smalltalk(p: Planner, prob: float) -> list[ScriptTurn]:
    if p.rng.random() >= prob:
        return []
    # a result is acted on next, unprompted: the reply leaves nothing for the user to answer (rule 7)
    user_line, reply = tb.draw_smalltalk(p.rng, lang=p.lang.code, question=False)
    return [p.user(user_line), p.assistant(reply)]


def plan(p: Planner) -> tuple[str, list[ScriptTurn]]:
    """One task: acknowledge now, maybe chat meanwhile, relay (or fall back) when the result is in."""
    c = tb.draw_delegation(p.rng, tools=p.tools, lang=p.lang.code)
    d, ex = task_for(p, "t1", c)
    turns = [p.user(c.user_request), p.assistant(c.ack, delegate=d), *_maybe_smalltalk(p, 0.6), act_on(p, c, d, ex)]
    return c.domain, turns


SLOW_TOOLS = ("search", "weather", "calendar")


def _slow_tools(p: Planner) -> tuple[str, ...]:
    return tuple(t for t in SLOW_TOOLS if t in p.tools) or p.tools


def plan_multi(p: Planner) -> tuple[str, list[ScriptTurn]]:
    """Several tasks in flight; results come back in whatever order they finish.

    In most sessions the first call goes to a slow tool and draws from the slow tail of its latency
    distribution while later calls draw from the fast half, so later results overtake it.
    """
    overtake = p.rng.random() < 0.7
    first = tb.draw_delegation(p.rng, tools=_slow_tools(p) if overtake else p.tools, lang=p.lang.code)
    contents = [first]
    for _ in range(int(p.rng.integers(1, 3))):
        contents.append(tb.draw_delegation(p.rng, tools=p.tools, exclude_domain=contents[-1].domain,
                                           lang=p.lang.code))
    # asked together in one turn (acknowledged back to back) or one after another
    together = p.rng.random() < 0.5
    turns: list[ScriptTurn] = [p.user(p.lang.join([c.user_request for c in contents]))] if together else []
    acts: list[ScriptTurn] = []
    for k, c in enumerate(contents, start=1):
        band = ((0.9, 0.999) if k == 1 else (0.0, 0.5)) if overtake else (0.0, 1.0)
        d, ex = task_for(p, f"t{k}", c, quantiles=band)
        if together:
            turns.append(p.assistant(c.ack, delegate=d, trigger=Trigger.USER if k == 1 else Trigger.FOLLOW))
        else:
            turns += [p.user(c.user_request), p.assistant(c.ack, delegate=d)]
        acts.append(act_on(p, c, d, ex, ask=False))   # results arrive in any order, one after another
    return first.domain, turns + _maybe_smalltalk(p, 0.4) + acts


def plan_cancel(p: Planner) -> tuple[str, list[ScriptTurn]]:
    """The user calls the task off; the stale result (even one racing the cancel) is never relayed.

    A request that leaves something behind (a calendar booking) may already have gone through when
    the user calls it off, and stopping it would leave the booking standing: the assistant asks the
    harness to undo it instead, and says it is gone only once the harness has answered so.
    """
    # a slow call (slow tool, slow tail of its own latency distribution), so the result is usually
    # still out when the user changes their mind, and sometimes races the cancel
    c = tb.draw_delegation(p.rng, tools=_slow_tools(p), lang=p.lang.code)
    undo = tb.undo_content(c)
    d, ex = task_for(p, "t1", c, quantiles=(0.8, 0.999), force=TaskStatus.OK if undo is not None else None)
    turns = [p.user(c.user_request), p.assistant(c.ack, delegate=d), p.user(tb.cancel_request(p.rng, c))]
    later: list[ScriptTurn] = []   # placed by composition at the first pause after its result
    if undo is not None and ex.status == TaskStatus.OK:
        send, done = _undo(p, undo, d)
        turns[1] = replace(turns[1], delegate=replace(d, outcome=TaskOutcome.SUPERSEDED))
        turns.append(send)
        later.append(done)
    else:
        cancel = Delegation(task_id="c1", tool="cancel", request=tb.cancel_request_text(c), args={"task": "t1"},
                            latency_s=0.2, outcome=None, cancels="t1")
        turns[1] = replace(turns[1], delegate=replace(d, outcome=TaskOutcome.CANCELLED))
        turns.append(p.assistant(tb.cancel_ack(p.rng, c), delegate=cancel))
    if p.rng.random() < 0.5:
        nxt = tb.draw_followup(p.rng, exclude_domain=c.domain, lang=p.lang.code)
        turns += [p.user(nxt.user_request), p.assistant(p.lang.join(nxt.said(2)))]
    # the result may be in before the user calls it off (a slow call, yet not always slower than the
    # user): composition then says this instead, by what the call-off's unit has read (drawn from a
    # child stream of the trajectory's generator, which leaves every other draw as it was)
    late_rng = p.rng.spawn(1)[0]
    late_text, late_request = tb.undo_late(late_rng, c) if later else tb.cancel_late(late_rng, c)
    k = next(i for i, t in enumerate(turns) if t.delegate is not None and "t1" in (t.delegate.cancels,
                                                                                   t.delegate.supersedes))
    turns[k] = replace(turns[k], attrs={**turns[k].attrs, TurnAttr.AFTER_RESULT_TEXT: late_text,
                                        TurnAttr.AFTER_RESULT_REQUEST: late_request})
    return c.domain, turns + later


def _undo(p: Planner, undo: tb.DelegationContent, booked: Delegation) -> tuple[ScriptTurn, ScriptTurn]:
    """The ack that sends the undo (superseding the original request) and the turn saying it is done.

    The harness serves a tool's requests in order, so the undo's result never comes before the
    original's: its latency is at least the original's, and it was issued later.
    """
    d2, ex2 = task_for(p, "t2", undo, force=TaskStatus.OK, supersedes=booked.task_id)
    if ex2.status != TaskStatus.OK:
        raise RuntimeError(f"the harness refused to undo {booked.args}: {ex2.text}")
    d2 = replace(d2, latency_s=max(d2.latency_s, booked.latency_s))
    return (p.assistant(tb.undo_ack(p.rng, undo), delegate=d2),
            p.assistant(tb.undo_done(p.rng, undo), trigger=Trigger.BACKEND, ref=d2.task_id))


def plan_revise(p: Planner) -> tuple[str, list[ScriptTurn]]:
    """The user revises the request; the revised task supersedes the old one, whose result is dropped."""
    c = tb.draw_delegation(p.rng, tools=_slow_tools(p), revisable=True, lang=p.lang.code)
    d1, _ = task_for(p, "t1", c, quantiles=(0.8, 0.999))
    d1 = replace(d1, outcome=TaskOutcome.SUPERSEDED)
    line, revised = tb.draw_revision(p.rng, c)
    d2, ex2 = task_for(p, "t2", revised, force=TaskStatus.OK, supersedes="t1")
    d2 = replace(d2, outcome=TaskOutcome.REVISED)
    turns = [p.user(c.user_request), p.assistant(c.ack, delegate=d1),
             p.user(line), p.assistant(tb.revision_ack(p.rng, revised), delegate=d2),
             *_maybe_smalltalk(p, 0.4), act_on(p, revised, d2, ex2)]
    return c.domain, turns


def plan_failure(p: Planner) -> tuple[str, list[ScriptTurn]]:
    """The tool fails (error or timeout): retry and relay, or fall back and say what went wrong."""
    c = tb.draw_delegation(p.rng, tools=p.tools, lang=p.lang.code)
    mode = TaskStatus.TIMEOUT if p.rng.random() < 0.35 else TaskStatus.ERROR
    d1, ex1 = task_for(p, "t1", c, force=mode)
    turns = [p.user(c.user_request), p.assistant(c.ack, delegate=d1), *_maybe_smalltalk(p, 0.3)]
    if p.rng.random() < 0.55:
        d2, ex2 = task_for(p, "t2", c, retry_of="t1")
        d1 = replace(d1, outcome=TaskOutcome.RETRIED)
        turns[1] = replace(turns[1], delegate=d1)
        turns += [p.assistant(tb.retry_line(p.rng, c, ex1), trigger=Trigger.BACKEND, ref="t1", delegate=d2),
                  act_on(p, c, d2, ex2)]
    else:
        turns.append(act_on(p, c, d1, ex1))
    return c.domain, turns
