"""The bank lint of DESIGN §2 rule 6 for domain exchanges: an answer says only what the request gave.

A domain exchange has no lookup, so every fact its answer states must come from the user's request
(a slot the request says) or from a derive function over those slots (a total, a fare from the
route's table row, a recipe's steps). A slot drawn but left out of a request (a coupon the user
never mentioned, a room price nobody gave, a hidden seed that makes up a forecast) is a fact the
assistant could not know. The check is by experiment, so it needs no declared dependencies:
redraw one drawn slot, keep the draws where the request still reads the same, and any answer slot
whose value changed is one the request did not give. ``own`` names drawn slots the assistant
chooses itself (a snack it suggests, the way it says a time), which are not redrawn.

That experiment cannot see a fact behind a hidden draw that changes the request too (a ``seed`` fixing
both the forecast the user reads out and a wind speed nobody read): every redraw changes the request, so
none is compared. :func:`hidden_facts` searches those slots for two draws whose requests read the same
and whose answers differ.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Mapping, Sequence

import numpy as np

from .engine import Slots, SlotSampler, draw_slots, expansions

_SLOT = re.compile(r"\{(\w+)\}")
_TRIALS = 4          # base draws per scenario (each slot is redrawn _REDRAWS times in each)
_REDRAWS = 3
_COLLIDE = 400     # redraws of a slot the request does not say, in the search for hidden facts


def said_slots(template: str) -> frozenset[str]:
    """The slots every way of saying ``template`` says (one inside an optional ``[{x}|]`` is not said)."""
    ways = expansions(template)
    out = set(_SLOT.findall(ways[0]))
    for w in ways[1:]:
        out &= set(_SLOT.findall(w))
    return frozenset(out)


def _view(base: Slots, derive: Callable[[Slots], Slots] | None) -> Slots:
    out = dict(base)
    if derive is not None:
        out.update(derive(dict(base)))
    return out


def _redraw(samplers: Mapping[str, SlotSampler], base: Slots, name: str, rng: np.random.Generator,
            dependent: Collection[str]) -> Slots:
    """``base`` with slot ``name`` drawn afresh, and after it every ``dependent`` slot (one a sample function
    draws from the slots before it: a restaurant of the cuisine), so the draw is one the planner can make."""
    out: Slots = {}
    redrawn = False
    for key, sampler in samplers.items():
        if key == name or (redrawn and key in dependent):
            out[key] = sampler(rng, dict(out))
            redrawn = True
        else:
            out[key] = base[key]
    return out


def unsaid_facts(samplers: Mapping[str, SlotSampler], derive: Callable[[Slots], Slots] | None,
                 request: Sequence[str], answer: Sequence[Sequence[str]], own: Collection[str] = (),
                 dependent: Collection[str] = (), seed: int = 20261202) -> list[tuple[str, str, str]]:
    """(request template, answer slot, drawn slot) for each answer slot that changes with a drawn slot
    (not one of ``own``) while ``request`` reads the same: a fact the user never gave."""
    answer_slots = sorted({n for options in answer for t in options for n in _SLOT.findall(t)})
    found: dict[tuple[str, str], str] = {}
    rng = np.random.default_rng(seed)
    asked = [(t, said_slots(t)) for t in request]
    for _ in range(_TRIALS):
        base = draw_slots(rng, samplers)
        view = _view(base, derive)
        for name in samplers:
            if name in own:
                continue
            for _ in range(_REDRAWS):
                drawn = _redraw(samplers, base, name, rng, dependent)
                if drawn[name] == base[name]:
                    continue   # the same value again: what changed is a dependent slot, which is redrawn itself
                try:
                    other = _view(drawn, derive)
                except (KeyError, ValueError, TypeError, IndexError, ZeroDivisionError):
                    continue   # a draw the derive function refuses: no fact to compare
                for template, said in asked:
                    if any(view.get(s) != other.get(s) for s in said):
                        continue   # the request says something else: the user gave the new value
                    for a in answer_slots:
                        if (template, a) not in found and view.get(a) != other.get(a):
                            found[(template, a)] = name
    return [(t, a, n) for (t, a), n in found.items()]


def hidden_facts(samplers: Mapping[str, SlotSampler], derive: Callable[[Slots], Slots] | None,
                 request: Sequence[str], answer: Sequence[Sequence[str]], hidden: Collection[str],
                 dependent: Collection[str] = (), seed: int = 20261203,
                 redraws: int = _COLLIDE) -> list[tuple[str, str, str]]:
    """(request template, answer slot, drawn slot) for an answer slot that differs between two draws whose
    request reads the same, where the drawn slot changes the request and the answer together (a hidden seed
    behind both the forecast the user read out and a wind speed nobody read): :func:`unsaid_facts` keeps only
    redraws with an unchanged request, so it cannot see these. ``redraws`` draws of each slot no request says
    of each ``hidden`` slot (a seed: the loader passes a scenario's ``seed`` slots), grouped by what the request
    says: a group whose answers differ states a fact the request lacks. A search, not a proof: it finds a
    hidden fact only when two draws read the same, which a forecast's (condition, high, low, rain) do within a
    few hundred draws (tests/test_bank_facts.py); two cities' forecasts at once (``compare``) almost never do,
    so there the check rests on the answer saying only slots the request says or computes from them."""
    answer_slots = sorted({n for options in answer for t in options for n in _SLOT.findall(t)})
    asked = [(t, sorted(said_slots(t))) for t in request]
    found: dict[tuple[str, str], str] = {}
    rng = np.random.default_rng(seed)
    base = draw_slots(rng, samplers)
    for name in samplers:
        if name not in hidden or all(name in said for _, said in asked):
            continue
        groups: list[dict[tuple[object, ...], Slots]] = [{} for _ in asked]
        for _ in range(redraws):
            try:
                view = _view(_redraw(samplers, base, name, rng, dependent), derive)
            except (KeyError, ValueError, TypeError, IndexError, ZeroDivisionError):
                continue
            for (template, said), group in zip(asked, groups):
                if name in said:
                    continue
                first = group.setdefault(tuple(repr(view.get(s)) for s in said), view)
                for a in answer_slots:
                    if (template, a) not in found and first.get(a) != view.get(a):
                        found[(template, a)] = name
    return [(t, a, n) for (t, a), n in found.items()]


def correction_says(show: str, user: Sequence[str], generic: bool) -> frozenset[str]:
    """The slots every phrase of a correction says: its own ``user`` phrases (``{new}`` says ``show``) and,
    when ``generic``, the shared phrases, which say only ``show``."""
    shown = said_slots(show)
    ways = []
    for phrase in user:
        said = set(said_slots(phrase))
        if "new" in said:
            said = (said - {"new"}) | shown
        ways.append({n for n in said if n != "old" and not n.startswith("old_")})
    if generic or not user:
        ways.append(set(shown))
    return frozenset(set.intersection(*ways))


def unrestated_facts(samplers: Mapping[str, SlotSampler], derive: Callable[[Slots], Slots] | None,
                     request: Sequence[str], slot: str, says: Collection[str], forms: Collection[str] = (),
                     seed: int = 20261204, trials: int = 30) -> list[str]:
    """Request slots a correction of ``slot`` changes without saying them again (``says``; ``forms`` are the
    slot said another way, "on Monday" for "Monday"): the repaired answer would use a value the user never
    gave, as "Oh, I meant the oats" repricing both packs. The redraw is the planner's (text_bank._redraw):
    the slot alone, every other draw kept."""
    stated = set().union(*(said_slots(t) for t in request)) - {slot, *forms, *says}
    rng = np.random.default_rng(seed)
    found: set[str] = set()
    for _ in range(trials):
        base = draw_slots(rng, samplers)
        cand = dict(base)
        cand[slot] = samplers[slot](rng, dict(base))
        if cand[slot] == base[slot]:
            continue
        try:
            old, new = _view(base, derive), _view(cand, derive)
        except (KeyError, ValueError, TypeError, IndexError, ZeroDivisionError):
            continue
        found |= {n for n in stated if old.get(n) != new.get(n)}
    return sorted(found)
