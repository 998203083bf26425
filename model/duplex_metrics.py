"""Closed-loop duplex metrics (what Full-Duplex-Bench scores), as pure functions of gold and model units.

Unit k's output plays in window k+1 (DESIGN §2), so an event heard in windows [a, b] is answered by
the outputs of units a..b. Gold comes from the stored row (`gold_from_row`: per-unit decision,
labels and delegate, and one `GoldEvent` per event, its windows computed by schemas/windows.py as
pipeline/units.py labels them); the model side is one `ModelUnit` per unit, whatever produced it.
`score` counts, `summarize` turns counts into rates, so per-family and overall reports are sums of
the same counts. Rates whose denominator is 0 are None.

Groups (keys of the report):
- backchannel / other_directed / background_speech: `continuation_rate` = of the events during
  which the gold assistant speaks, the share where the model speaks at every unit a..b the gold
  speaks at (it keeps talking through the overlap); `ignore_rate` = of the events during which the
  gold is silent, the share where the model stays silent over a..b (it does not take the overlap as
  a turn).
- interruption (onset window i, user speech to window j): scored when the model was speaking at the
  onset (its output of unit i-1 is speak); `response_rate` = share that stop, i.e. output listen at
  some unit in [i, j+1]; `stop_latency_mean` = mean units from i to that first listen (gold's own,
  from the stop label, as `gold_stop_latency_mean`).
- pause (a user hesitation, windows [a, b]): `no_takeover_rate` = share where the model speaks at no
  unit of a..b where the gold listens.
- response (a gold reply start r after user speech whose last window is e): `response_rate` = share
  where the model starts speaking (speak after listen) at a unit in [e, h], h = the unit before the
  next user speech (or the last unit); `latency_mean` = mean units from e to that start
  (`gold_latency_mean` = mean of r - e).
- delegate: each gold delegate unit is routed when the model emits a delegate within
  DELEGATE_TOLERANCE units of it (each model delegate matches one gold one); `routing_rate` =
  routed / gold, `precision` = routed / emitted.
- relay (a gold relay start j, label relay, of the backend result readable from unit r, the latest
  backend_result at or before j). The model starts a turn at unit k when it speaks after listening,
  or speaks right after a unit that ended a turn (turn_eos): one unit carries at most one turn. Its first start in [a, h] is its relay; a = r, or the unit after the gold's
  previous turn start if later (a reply the gold gives first is not the relay); h = the unit before
  the next user speech onset after j (or the last unit). `relay_rate` = share of relays with a
  result before them (`scored`) whose model relay comes at a natural pause (a unit without user
  speech), `started_over_user` = how many came while the user was heard, `latency_mean` = mean
  units from r to a relay at a pause (`gold_latency_mean` = mean of j - r).
- proactive (a gold unprompted start p, label proactive, after the cue readable from unit c, the
  latest timer_fired or visual_event at or before p): `proactive_rate` = share where the model
  starts a turn in [a, p + PROACTIVE_SLACK] (a as for relay, from c; and before the next user
  speech onset), `latency_mean` = mean units from c to that start (`gold_latency_mean` = mean of
  p - c); `timer_cues` / `visual_cues` count the scored cues.
- units: `agreement` = share of units whose model decision equals the gold decision.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any, Iterable, Sequence

from schemas.vocab import OVERLAY_KINDS, Decision, EventKind, Label
from schemas.windows import last_window_at, window_at

DELEGATE_TOLERANCE = 1          # units a model delegate may lie before or after the gold one
PROACTIVE_SLACK = 2             # units a model's unprompted start may come after the gold's
STOP_LABELS = (Label.STOP_DISCARD, Label.STOP_REPAIR, Label.STOP_PARK)
RESPONSE = "response"           # report group: reply to user speech (no contract name: not an event kind)
UNITS = "units"                 # report group: per-unit decision agreement
RELAY = Label.RELAY             # report group: a backend result relayed (the label of its start)
PROACTIVE = Label.PROACTIVE     # report group: an unprompted start after a timer or visual cue
GROUPS: tuple[str, ...] = (*OVERLAY_KINDS, EventKind.INTERRUPTION, EventKind.PAUSE, RESPONSE,
                           EventKind.DELEGATE, RELAY, PROACTIVE, UNITS)
CUE_LABELS = {Label.TIMER_FIRED: "timer_cues", Label.VISUAL_EVENT: "visual_cues"}   # cue label -> count key
START_LABELS = (Label.RESPOND, Label.RELAY, Label.PROACTIVE)   # the gold labels that start an assistant turn


@dataclass(frozen=True)
class GoldUnit:
    decision: Decision
    labels: frozenset[str] = frozenset()
    delegate: bool = False


@dataclass(frozen=True)
class GoldEvent:
    """An event of the row as the windows [first, last] it is heard in (last clipped to the row)."""

    kind: EventKind
    first: int
    last: int


@dataclass(frozen=True)
class ModelUnit:
    """What the model output at one unit."""

    decision: Decision
    delegate: bool = False
    turn_eos: bool = False
    text_tokens: int = 0
    speech_tokens: int = 0


def gold_from_row(units: Sequence[dict[str, Any]], events: Sequence[Any], unit_s: float,
                  sample_rate: int) -> tuple[list[GoldUnit], list[GoldEvent]]:
    """Gold units and the scored events (overlaps, interruptions, pauses) of one stored row."""
    n = len(units)
    gold = [GoldUnit(Decision(u["decision"]), frozenset(u.get("labels") or ()), bool(u.get("delegate")))
            for u in units]
    out: list[GoldEvent] = []
    scored = (*OVERLAY_KINDS, EventKind.INTERRUPTION, EventKind.PAUSE)
    for ev in events:
        kind, start, end = ev["kind"], float(ev["start_s"]), float(ev["end_s"])
        if kind not in scored or end <= start:
            continue
        a = window_at(start, unit_s, sample_rate)
        if a >= n:
            continue
        out.append(GoldEvent(EventKind(kind), a, min(last_window_at(end, unit_s, sample_rate), n - 1)))
    return gold, out


def _speak(d: Decision | str) -> bool:
    return d == Decision.SPEAK


def score(gold: Sequence[GoldUnit], events: Iterable[GoldEvent], model: Sequence[ModelUnit]) -> dict[str, Counter]:
    """Counts per group for one trajectory (see the module docstring for each definition)."""
    if len(gold) != len(model):
        raise ValueError(f"{len(model)} model units for {len(gold)} gold units")
    n = len(gold)
    c: dict[str, Counter] = {g: Counter() for g in GROUPS}
    gs = [_speak(u.decision) for u in gold]
    ms = [_speak(u.decision) for u in model]
    user = [Label.USER_SPEECH in u.labels for u in gold]

    for ev in events:
        span = range(ev.first, ev.last + 1)
        t = c[ev.kind]
        t["events"] += 1
        if ev.kind in OVERLAY_KINDS:
            held = [k for k in span if gs[k]]
            if held:
                t["continuation_scored"] += 1
                t["continued"] += all(ms[k] for k in held)
            else:
                t["silent_scored"] += 1
                t["ignored"] += not any(ms[k] for k in span)
        elif ev.kind == EventKind.INTERRUPTION:
            i = ev.first
            stop = next((k for k in range(i, n) if any(s in gold[k].labels for s in STOP_LABELS)), None)
            if stop is not None:
                t["gold_stopped"] += 1
                t["gold_stop_latency_sum"] += stop - i
            if i == 0 or not ms[i - 1]:
                continue                      # the model was not speaking: nothing to stop
            t["scored"] += 1
            k = next((k for k in range(i, min(ev.last + 1, n - 1) + 1) if not ms[k]), None)
            if k is not None:
                t["stopped"] += 1
                t["stop_latency_sum"] += k - i
        elif ev.kind == EventKind.PAUSE:
            listen = [k for k in span if not gs[k]]
            if listen:
                t["scored"] += 1
                t["taken_over"] += any(ms[k] for k in listen)

    r = c[RESPONSE]
    for k in range(1, n):
        if Label.RESPOND not in gold[k].labels or gs[k - 1]:
            continue
        prev = max((j for j in range(k) if gs[j]), default=-1)   # the gold's last speaking unit before
        e = max((j for j in range(prev + 1, k + 1) if user[j]), default=None)
        if e is None:
            continue                          # a reply start with no user speech before it (a follow-on turn)
        h = next((j - 1 for j in range(k + 1, n) if user[j] and not user[j - 1]), n - 1)
        r["events"] += 1
        r["gold_latency_sum"] += k - e
        start = next((j for j in range(e, h + 1) if ms[j] and (j == 0 or not ms[j - 1])), None)
        if start is not None:
            r["responded"] += 1
            r["latency_sum"] += start - e

    starts = _turn_starts(model)
    _starts_after_cue(c[RELAY], gold, starts, user, Label.RELAY, (Label.BACKEND_RESULT,), natural_pause=True)
    _starts_after_cue(c[PROACTIVE], gold, starts, user, Label.PROACTIVE, tuple(CUE_LABELS), natural_pause=False)

    d = c[EventKind.DELEGATE]
    want = [k for k in range(n) if gold[k].delegate]
    have = [k for k in range(n) if model[k].delegate]
    d["gold"] += len(want)
    d["emitted"] += len(have)
    free = list(have)
    for g in want:
        m = next((m for m in free if abs(m - g) <= DELEGATE_TOLERANCE), None)
        if m is not None:
            free.remove(m)
            d["routed"] += 1
            d["offset_sum"] += m - g

    u = c[UNITS]
    u["units"] += n
    u["agree"] += sum(a == b for a, b in zip(gs, ms))
    u["gold_speak"] += sum(gs)
    u["model_speak"] += sum(ms)
    u["model_turn_eos"] += sum(m.turn_eos for m in model)
    return c


def _turn_starts(model: Sequence[ModelUnit]) -> list[bool]:
    """Per unit, whether the model's output there starts a turn: speak after listen, or speak right
    after a unit that ended a turn (turn_eos). A unit carries at most one turn (README "One turn per
    output unit"), so a turn that follows another without a listening unit starts in the unit after
    the one holding the previous turn's turn_eos, where the gold labels it."""
    ms = [_speak(u.decision) for u in model]
    return [ms[k] and (k == 0 or not ms[k - 1] or model[k - 1].turn_eos) for k in range(len(model))]


def _starts_after_cue(t: Counter, gold: Sequence[GoldUnit], starts: list[bool], user: list[bool],
                      start_label: str, cue_labels: tuple[str, ...], natural_pause: bool) -> None:
    """Counts for gold starts labelled `start_label`, each after the latest cue unit at or before it
    (relay: backend_result; proactive: timer_fired / visual_event); see the module docstring."""
    n = len(gold)
    onsets = [k for k in range(n) if user[k] and (k == 0 or not user[k - 1])]
    gold_starts = [k for k in range(n) if any(lab in gold[k].labels for lab in START_LABELS)]
    for j in range(n):
        if start_label not in gold[j].labels:
            continue
        t["events"] += 1
        c = max((k for k in range(j + 1) if any(lab in gold[k].labels for lab in cue_labels)), default=None)
        if c is None:
            continue                          # nothing readable before it to answer
        # from the cue, or after the gold's previous turn start if later (a reply it gives first is
        # not this start); up to the next user onset (relay) or PROACTIVE_SLACK units after the gold
        a = max(c, 1 + max((k for k in gold_starts if k < j), default=-1))
        nxt = next((k for k in onsets if k > j), n)
        last = nxt - 1 if natural_pause else min(nxt - 1, j + PROACTIVE_SLACK)
        t["scored"] += 1
        t["gold_latency_sum"] += j - c
        if not natural_pause:
            t[next(CUE_LABELS[lab] for lab in CUE_LABELS if lab in gold[c].labels)] += 1
        first = next((k for k in range(a, last + 1) if starts[k]), None)
        if first is None:
            continue
        if natural_pause and user[first]:
            t["started_over_user"] += 1       # it started, but while the user was heard: not at a pause
        else:
            t["started"] += 1
            t["latency_sum"] += first - c


def merge(into: dict[str, Counter], more: dict[str, Counter]) -> dict[str, Counter]:
    for g, t in more.items():
        into.setdefault(g, Counter()).update(t)
    return into


def _rate(num: float, den: float) -> float | None:
    return None if den == 0 else num / den


def summarize(c: dict[str, Counter]) -> dict[str, dict[str, Any]]:
    """Rates and means of the counts; a group with nothing to score is left out."""
    out: dict[str, dict[str, Any]] = {}
    for kind in OVERLAY_KINDS:
        t = c.get(kind, Counter())
        if t["events"]:
            out[kind] = {"events": t["events"], "continuation_scored": t["continuation_scored"],
                         "continuation_rate": _rate(t["continued"], t["continuation_scored"]),
                         "silent_scored": t["silent_scored"], "ignore_rate": _rate(t["ignored"], t["silent_scored"])}
    t = c.get(EventKind.INTERRUPTION, Counter())
    if t["events"]:
        out[EventKind.INTERRUPTION] = {
            "events": t["events"], "scored": t["scored"], "response_rate": _rate(t["stopped"], t["scored"]),
            "stop_latency_mean": _rate(t["stop_latency_sum"], t["stopped"]),
            "gold_stop_latency_mean": _rate(t["gold_stop_latency_sum"], t["gold_stopped"])}
    t = c.get(EventKind.PAUSE, Counter())
    if t["events"]:
        out[EventKind.PAUSE] = {"events": t["events"], "scored": t["scored"],
                                "no_takeover_rate": _rate(t["scored"] - t["taken_over"], t["scored"])}
    t = c.get(RESPONSE, Counter())
    if t["events"]:
        out[RESPONSE] = {"events": t["events"], "response_rate": _rate(t["responded"], t["events"]),
                         "latency_mean": _rate(t["latency_sum"], t["responded"]),
                         "gold_latency_mean": _rate(t["gold_latency_sum"], t["events"])}
    t = c.get(EventKind.DELEGATE, Counter())
    if t["gold"] or t["emitted"]:
        out[EventKind.DELEGATE] = {"gold": t["gold"], "emitted": t["emitted"], "routed": t["routed"],
                                   "routing_rate": _rate(t["routed"], t["gold"]),
                                   "precision": _rate(t["routed"], t["emitted"]),
                                   "offset_mean": _rate(t["offset_sum"], t["routed"])}
    t = c.get(RELAY, Counter())
    if t["events"]:
        out[RELAY] = {"events": t["events"], "scored": t["scored"], "relay_rate": _rate(t["started"], t["scored"]),
                      "latency_mean": _rate(t["latency_sum"], t["started"]),
                      "gold_latency_mean": _rate(t["gold_latency_sum"], t["scored"]),
                      "started_over_user": t["started_over_user"]}
    t = c.get(PROACTIVE, Counter())
    if t["events"]:
        out[PROACTIVE] = {"events": t["events"], "scored": t["scored"],
                          "proactive_rate": _rate(t["started"], t["scored"]),
                          "latency_mean": _rate(t["latency_sum"], t["started"]),
                          "gold_latency_mean": _rate(t["gold_latency_sum"], t["scored"]),
                          **{k: t[k] for k in CUE_LABELS.values()}}
    t = c.get(UNITS, Counter())
    if t["units"]:
        out[UNITS] = {"units": t["units"], "agreement": t["agree"] / t["units"],
                      "gold_speak_share": t["gold_speak"] / t["units"],
                      "model_speak_share": t["model_speak"] / t["units"], "model_turn_eos": t["model_turn_eos"]}
    return out
