"""A planned script its own text lint rejects is drawn again, from seeds of the trajectory's own, a bounded
number of times; then the trajectory fails with a record naming the lint hit (issue #28: the generator wrote
rows its own validator rejects, 1 of 300 en rows). The planner here is turn_taking's, made to double an
article on a share of its draws, decided by the script's own seed."""
from __future__ import annotations

import json

import numpy as np
import pytest

from generators import registry
from generators.registry import LINT_REDRAWS, ScriptLintError, plan_script, redraw_seed
from generators.scenarios import turn_taking
from generators.text_lint import lint_script
from pipeline.render import render_trajectory
from pipeline.validate import validate_row
from schemas.config import RunConfig, Scenario
from schemas.script import ScriptTurn

CFG = RunConfig()


def _doubled(turns: list[ScriptTurn]) -> list[ScriptTurn]:
    first = ScriptTurn.model_validate({**turns[0].model_dump(), "text": "Is the the forecast any good?"})
    return [first, *turns[1:]]


def _prone(p):   # three draws in four double an article
    bad = p.rng.random() < 0.75
    domain, turns = turn_taking.plan(p)
    return domain, _doubled(list(turns)) if bad else list(turns)


def _always(p):
    domain, turns = turn_taking.plan(p)
    return domain, _doubled(list(turns))


def _plan(seed: int):
    return plan_script(Scenario.TURN_TAKING, seed, CFG.timing, "en", CFG.harness, CFG.voices)


def test_a_rejected_draw_is_redrawn_deterministically_and_its_row_passes_text_lint(monkeypatch, tone_tts):
    monkeypatch.setitem(registry.PLANNERS, Scenario.TURN_TAKING, _prone)
    seed = next(s for s in range(100) if np.random.default_rng(s).random() < 0.75)   # its first draw is rejected
    script = _plan(seed)
    assert lint_script(script) == []
    assert script.seed in {redraw_seed(seed, k) for k in range(1, LINT_REDRAWS + 1)}
    assert _plan(seed) == script                      # the same trajectory seed, the same redraw
    assert _plan(script.seed) == script               # the seed it carries gives it back (render draws from it)
    assert "the the" not in " ".join(t.text for t in script.turns)
    row = render_trajectory(cfg=CFG, traj_id="redrawn", script=script, tts=tone_tts)
    assert [v for v in validate_row(row) if "text_lint" in str(v)] == []


def test_a_script_every_draw_of_which_is_rejected_fails_naming_the_hit(monkeypatch, tmp_path):
    monkeypatch.setitem(registry.PLANNERS, Scenario.TURN_TAKING, _always)
    with pytest.raises(ScriptLintError, match=r"doubled_article: 'the the'"):
        _plan(7)
    from jobs.cli import main

    rc = main(["write-scripts", "--num", "2", "--scenario", "turn_taking", "--seed", "3", "--out", str(tmp_path),
               "--no-progress"])
    failed = [json.loads(line) for line in (tmp_path / "failed.jsonl").read_text().splitlines()]
    assert rc == 3 and len(failed) == 2
    assert all(f["error"].startswith("ScriptLintError") and "doubled_article: 'the the'" in f["error"] for f in failed)
    assert (tmp_path / "scripts.jsonl").read_text() == ""


def test_a_clean_draw_is_kept_as_it_was():
    """No redraw where the lint has nothing to say: the script is the one its trajectory seed draws."""
    for seed in range(5):
        assert _plan(seed).seed == seed
