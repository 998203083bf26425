"""The decode rate a delegate request is budgeted at is a config key (decode_budget.ms_per_step).

At its default (15 ms/step, the MiniCPM-o SDK's) it is left out of config dumps and row meta, so
configs hash and rows are byte for byte as before the key; at another rate composition issues a
request too long for a speaking unit in a listening one, the row records the rate in meta, and
validate's delegate rules read it from there. Rows are real (planner, composer, ToneTTS).
"""
from __future__ import annotations

import json

import pytest

from generators.registry import plan_trajectory
from pipeline.render import render_trajectory
from pipeline.validate import validate_row
from schemas.config import RunConfig
from schemas.decode_budget import DECODE_META_KEY, DECODE_MS_PER_STEP, row_ms_per_step
from schemas.trajectory import TrajectoryRow
from tests.generated import FAST_VOICES

SLOW_MS = 40.0   # a speaking unit leaves floor(0.5 s / 40 ms) = 12 steps, less than any request's framing
SEED = 3          # a delegation whose request (at the default rate) is written beside speech
DELEGATE_RULES = ("delegate_request", "delegate_decode_budget")


def _row(tone_tts, ms: float | None) -> TrajectoryRow:
    data = {"seed": 0, "num": 1, "voices": FAST_VOICES.model_dump(mode="json")}
    if ms is not None:
        data["decode_budget"] = {"ms_per_step": ms}
    cfg = RunConfig.model_validate(data)
    return render_trajectory(cfg=cfg, traj_id="d", script=plan_trajectory(cfg, "delegation", SEED), tts=tone_tts)


def _with_rate(row: TrajectoryRow, ms: float | None) -> TrajectoryRow:
    meta = json.loads(row.meta)
    meta.pop(DECODE_META_KEY, None)
    if ms is not None:
        meta[DECODE_META_KEY] = {"ms_per_step": ms}
    return row.model_copy(update={"meta": json.dumps(meta, sort_keys=True)})


def _fired(row: TrajectoryRow) -> set[str]:
    return {v.rule for v in validate_row(row, expect_tokens=False, rules=DELEGATE_RULES)}


def test_the_default_rate_dumps_and_hashes_as_before_the_key() -> None:
    assert "decode_budget" not in RunConfig().model_dump(mode="json")
    same = RunConfig.model_validate({"decode_budget": {"ms_per_step": DECODE_MS_PER_STEP}})
    assert same.config_hash() == RunConfig().config_hash()
    slow = RunConfig.model_validate({"decode_budget": {"ms_per_step": SLOW_MS}})
    assert slow.model_dump(mode="json")["decode_budget"] == {"ms_per_step": SLOW_MS}
    assert slow.config_hash() != RunConfig().config_hash()
    assert RunConfig.model_validate(slow.model_dump(mode="json")) == slow   # a dump loads again
    with pytest.raises(ValueError, match="decode_budget.ms_per_step"):
        RunConfig.model_validate({"decode_budget": {"ms_per_step": 0}})


def test_a_default_row_records_no_rate_and_a_slow_one_does(tone_tts) -> None:
    default, slow = _row(tone_tts, None), _row(tone_tts, SLOW_MS)
    assert DECODE_META_KEY not in json.loads(default.meta) and row_ms_per_step(default.meta) == DECODE_MS_PER_STEP
    assert row_ms_per_step(slow.meta) == SLOW_MS
    assert _row(tone_tts, DECODE_MS_PER_STEP) == default   # the default named: the same bytes
    # at the slow rate no request fits beside speech, so every one is issued in a listening unit
    issued = [u for u in slow.units if u.delegate]
    assert issued and all(u.decision == "listen" for u in issued)
    assert any(u.decision == "speak" for u in default.units if u.delegate)
    assert _fired(default) == _fired(slow) == set()


def test_validate_reads_the_rate_from_the_row(tone_tts) -> None:
    """A row judged at another rate than it was made at breaks the delegate rules."""
    default, slow = _row(tone_tts, None), _row(tone_tts, SLOW_MS)
    # made at 15 ms, a request written beside speech; claimed 40 ms: it could not have been decoded
    assert _fired(_with_rate(default, SLOW_MS)) == {"delegate_decode_budget", "delegate_request"}
    # made at 40 ms, issued a unit early; claimed the default: it should have been issued with its turn
    assert _fired(_with_rate(slow, None)) == {"delegate_request"}
