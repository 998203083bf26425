"""Every rule refuses its smallest break: the fast subset of benchmarks/validator_mutants.py.

Each mutant of pipeline/mutants.py (one window, one sample, one unit, 0.1 dB past a tolerance, one
character or token past a limit, made the way a broken generator writes it) is applied to the first
of a few real generated rows (tests/generated.py, espeak-ng, validated clean) that has a place for
it; validate must name the mutant's rule. The unmutated rows pass every rule, so a refusal is the
mutant's, not a check that refuses everything. Twin pair mutants run on a generated pair.
"""
from __future__ import annotations

import pytest

from pipeline.mutants import MUTANTS, PAIR_MUTANTS, Mutant, PairMutant, fired
from pipeline.validate import RULE_IDS, TWIN_RULES, validate_twins
from schemas.trajectory import TrajectoryRow

# (scenario, seed, language): between them a place for every mutant (a cut-in and its repair, a relayed
# result with a number, a question, a backchannel, a timer, a visual change that cuts a stale answer, a zh relay,
# repairs whose heard sentence the correction changed (one starts past a sentence the user heard), a parked
# answer resumed, a sign's text read out, a state change announced, a flight looked up off a ticket, a result
# that lands in its acknowledgement's second window, a cancel written after its result came in)
ROWS: tuple[tuple[str, int, str | None], ...] = (
    ("turn_taking", 1, None), ("turn_taking", 11, None), ("interruption_repair", 1, None), ("delegation", 1, None),
    ("backchannel", 1, None), ("proactive_timer", 1, None), ("visual_qa", 0, None), ("visual_change", 3, None),
    ("delegation", 1, "zh"), ("interruption_repair", 2, None), ("interruption_park", 1, None), ("visual_qa", 2, None),
    ("visual_watch", 1, None), ("visual_delegation", 0, None), ("interruption_repair", 7, None),
    ("delegation", 14, None), ("delegation_cancel", 3, None),
)
# (scenario, seed) of twin pairs: an interruption (the twin talks on) and a rule-4 overlay
PAIRS: tuple[tuple[str, int], ...] = (("interruption_discard", 1), ("backchannel", 1))


@pytest.fixture(scope="module")
def rows(generated) -> list[TrajectoryRow]:
    out = [generated.row(s, seed, language=lang) for s, seed, lang in ROWS]
    for r in out:   # validated when made (recompose included); checked again here as the mutants see them
        assert fired(r, generated.tts["espeak"]) == set(), r.id
    return out


@pytest.fixture(scope="module")
def pairs(generated) -> list[tuple[TrajectoryRow, TrajectoryRow]]:
    from generators.registry import plan_trajectory
    from jobs.twins import rows_with_twin
    from schemas.config import TwinsConfig
    from tests.generated import FIXTURE_CONFIG

    cfg = FIXTURE_CONFIG.model_copy(update={"twins": TwinsConfig(share=1.0)})
    out = []
    for scenario, seed in PAIRS:
        made, failed, _ = rows_with_twin(cfg, generated.row(scenario, seed), plan_trajectory(cfg, scenario, seed),
                                         generated.tts["espeak"], None, None, 0, 0)
        assert failed is None and len(made) == 2, f"{scenario} {seed}: no twin ({failed})"
        assert validate_twins(made) == []
        out.append((made[0], made[1]))
    return out


def test_every_rule_has_a_mutant():
    assert {m.rule for m in MUTANTS} == set(RULE_IDS)
    assert {m.rule for m in PAIR_MUTANTS} == set(TWIN_RULES)
    assert len({m.name for m in (*MUTANTS, *PAIR_MUTANTS)}) == len(MUTANTS) + len(PAIR_MUTANTS)


@pytest.mark.parametrize("mutant", MUTANTS, ids=lambda m: m.name)
def test_mutant_is_refused_naming_its_rule(generated, rows, mutant: Mutant):
    tts = generated.tts["espeak"]
    for row in rows:
        bad = mutant.apply(row, tts)
        if bad is None:
            continue
        assert bad.model_dump() != row.model_dump(), f"{mutant.name} changed nothing in {row.id}"
        got = fired(bad, tts)
        assert mutant.rule in got, f"{mutant.name} on {row.id}: fired {sorted(got)}, not {mutant.rule}"
        assert fired(row, tts) == set()   # the row it was made from still passes (apply copies it)
        return
    pytest.fail(f"{mutant.name} applies to none of the fixture rows: they no longer hold its situation")


@pytest.mark.parametrize("mutant", PAIR_MUTANTS, ids=lambda m: m.name)
def test_pair_mutant_is_refused_naming_its_rule(pairs, mutant: PairMutant):
    for base, twin in pairs:
        bad = mutant.apply(base, twin)
        if bad is None:
            continue
        got = {v.rule for v in validate_twins(list(bad))}
        assert mutant.rule in got, f"{mutant.name} on {base.id}: fired {sorted(got)}"
        assert validate_twins([base, twin]) == []
        return
    pytest.fail(f"{mutant.name} applies to none of the fixture pairs")
