"""Every delegate request the banks can produce fits the decode budget of a listening unit.

A request is written in the unit that issues it (schemas/decode_budget.py): at most
`decode_steps_available(unit_s, speaking=False)` steps, of which the tool call's framing takes
`DELEGATE_FRAME_STEPS`. A longer request cannot be decoded in time in any unit, and the MiniCPM-o
SDK's default profile refuses its row (`non_spoken_actual_timing_capacity_exceeded`), so the banks'
request templates must stay short. Counted with the real MiniCPM-o 4.5 tokenizer, in both
languages: first every spec drawn many times (its request, revised, cancel and undo requests),
then the requests the planners actually put in scripts of every delegation family, which must
cover every request template. `request_token_bound`, which the generator uses without a
tokenizer, must still over-count each of them.
"""
from __future__ import annotations

import re
from functools import cache

import numpy as np
import pytest

from generators import text_bank as tb
from generators.banks.loader import load_language
from generators.registry import DELEGATION_FAMILIES, plan_trajectory
from schemas.config import RunConfig
from schemas.decode_budget import (
    DELEGATE_FRAME_STEPS,
    decode_steps_available,
    request_token_bound,
)
from schemas.vocab import TurnAttr

pytest.importorskip("minicpm_o5_sdk")
from minicpm_o5_sdk.tokenizers.bundle import load_builtin_o45_fc_tokenizer

LANGUAGES = ("en", "zh")
DRAWS_PER_SPEC = 60      # slot values vary per draw (amounts, dates, places): the long ones must show up
PLAN_SEEDS = 120         # per family and language: every request template is reached by seed 80


@cache
def tokenizer():
    return load_builtin_o45_fc_tokenizer()


def config(lang: str) -> RunConfig:
    return RunConfig.model_validate({"seed": 0, "num": 1, "language": lang})


def budget(lang: str) -> int:
    """Text tokens a request may have: a listening unit's decode steps less the call's framing."""
    return decode_steps_available(config(lang).unit_s, speaking=False) - DELEGATE_FRAME_STEPS


def too_long(requests: set[str], lang: str) -> list[tuple[int, str]]:
    """(real tokens, request) for each request over the budget, or that the bound under-counts."""
    tok, limit = tokenizer(), budget(lang)
    out = []
    for r in sorted(requests):
        n = len(tok.encode_ordinary(r))
        if n > limit or request_token_bound(r) < n:
            out.append((n, r))
    return out


def drawn_requests(lang: str) -> set[str]:
    """Every spec's request, its revision, cancel and undo, drawn `DRAWS_PER_SPEC` times."""
    rng = np.random.default_rng(7)
    out: set[str] = set()
    for spec in load_language(lang).delegations.specs:
        for _ in range(DRAWS_PER_SPEC):
            c = tb._content(rng, spec, lang=lang)
            out |= {c.request, tb.cancel_request_text(c)}
            undo = tb.undo_content(c)
            if undo is not None:
                out.add(undo.request)
            if c.revisable:
                out.add(tb.draw_revision(rng, c)[1].request)
    return out


def planned_requests(lang: str) -> set[str]:
    """The requests of the delegate turns the planners write for every delegation family."""
    cfg = config(lang)
    turns = [turn for family in sorted(DELEGATION_FAMILIES) for seed in range(PLAN_SEEDS)
             for turn in plan_trajectory(cfg, family, seed).turns if turn.delegate is not None]
    # a cancel's variant for a result already in (composition picks it) is planned beside it
    return {turn.delegate.request for turn in turns} | {
        turn.attrs[TurnAttr.AFTER_RESULT_REQUEST] for turn in turns if TurnAttr.AFTER_RESULT_REQUEST in turn.attrs}


def templates(lang: str) -> dict[str, re.Pattern[str]]:
    """Each distinct request template of the bank (specs, cancel, undo) as a pattern of its renderings."""
    d = load_language(lang).delegations
    raw = {s.request for s in d.specs} | {d.phrases.cancel_request, d.phrases.undo_request, d.phrases.late_request}
    assert not [t for t in raw if "[" in t], "a request template with options: extend the pattern"
    return {t: re.compile("".join(".+" if part.startswith("{") else re.escape(part)
                                  for part in re.split(r"(\{\w+\})", t)) + r"\Z") for t in raw}


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_request_a_spec_draws_fits_a_listening_unit(lang: str) -> None:
    requests = drawn_requests(lang)
    assert len(requests) > 20 * len(load_language(lang).delegations.specs)
    assert budget(lang) == 34           # the SDK's default profile at 1 s units, for the figures in the templates
    assert not too_long(requests, lang)


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_planned_request_fits_and_every_template_is_planned(lang: str) -> None:
    requests = planned_requests(lang)
    unplanned = [t for t, p in templates(lang).items() if not any(p.match(r) for r in requests)]
    assert not unplanned, unplanned
    assert not too_long(requests, lang)


def test_the_check_catches_a_request_over_the_budget() -> None:
    """The old zh bill-split request (39 tokens with these values) is caught."""
    old = "计算：餐厅账单1372元，另收10%的服务费，总额由10人平摊。给出每人应付的金额（元，精确到分）。"
    assert too_long({old}, "zh") == [(len(tokenizer().encode_ordinary(old)), old)]
    assert len(tokenizer().encode_ordinary(old)) > budget("zh")
