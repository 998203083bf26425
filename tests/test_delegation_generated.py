"""Delegation families end to end: rendered trajectories cover every outcome and validate cleanly."""
from __future__ import annotations

import json
from collections import Counter

import pytest

from generators.registry import plan_trajectory, trajectory_seed
from pipeline.render import render_trajectory
from pipeline.validate import validate_row
from schemas.config import RunConfig
from tests.generated import FAST_VOICES

FAMILIES = ("delegation", "delegation_multi", "delegation_cancel", "delegation_revise", "delegation_failure")
PER_FAMILY = 8


@pytest.fixture(scope="module")
def rows(espeak):
    cfg = RunConfig(voices=FAST_VOICES)
    return [render_trajectory(cfg=cfg, traj_id=f"{fam}-{j}", tts=espeak,
                              script=plan_trajectory(cfg, fam, trajectory_seed(99, 1000 * i + j)))
            for i, fam in enumerate(FAMILIES) for j in range(PER_FAMILY)]


def delegates(row):
    return [(e, json.loads(e.attrs)) for e in row.events if e.kind == "delegate"]


def test_every_row_validates(rows):
    problems = [str(v) for r in rows for v in validate_row(r, expect_tokens=False)]
    assert problems == []


def test_every_outcome_is_covered(rows):
    outcomes = Counter(a["outcome"] for r in rows for _, a in delegates(r) if not a.get("cancels"))
    assert set(outcomes) == {"relayed", "cancelled", "revised", "retried", "fallback", "superseded"}, outcomes


def test_protocol_rules_on_generated_rows(rows):
    for r in rows:
        spoken = " ".join(u.spoken_text for u in r.units)
        per_turn = Counter(a["turn"] for _, a in delegates(r))
        assert max(per_turn.values()) == 1                                  # one request per assistant turn
        for e, a in delegates(r):
            assert 0 < len(e.text) <= 4000 and e.text not in spoken        # private, bounded
            for key in ("task_id", "tool", "args", "issued_s"):
                assert key in a
        for e in r.events:
            if e.kind == "backend":
                a = json.loads(e.attrs)
                d = next(x for x, da in delegates(r) if da["task_id"] == a["task_id"])
                assert e.start_s >= d.start_s + a["latency_s"] - 1e-6        # result after its latency
                if a.get("relay_turn"):
                    relay = next(x for x in r.events if x.id == a["relay_turn"])
                    assert int(relay.start_s) >= int(e.start_s) + 1           # relayed from the next unit on


def test_out_of_order_results_occur_and_are_relayed_in_order(rows):
    seen_out_of_order = False
    for r in rows:
        if r.scenario != "delegation_multi":
            continue
        tasks = sorted(((json.loads(e.attrs)["issued_s"], json.loads(e.attrs)) for e in r.events if e.kind == "backend"),
                       key=lambda x: x[0])
        ready = [a["ready_s"] for _, a in tasks]
        if ready != sorted(ready):
            seen_out_of_order = True
        relay_times = [a["relay_s"] for _, a in sorted(tasks, key=lambda x: x[1]["ready_s"]) if "relay_s" in a]
        assert relay_times == sorted(relay_times)
    assert seen_out_of_order


def test_delegation_stats(rows):
    from pipeline.delegation_stats import aggregate_delegation, analyse_delegation, format_delegation
    per_row = [analyse_delegation([e.model_dump() for e in r.events], r.duration_s) for r in rows]
    agg = aggregate_delegation(per_row)
    tasks = sum(1 for r in rows for _, a in delegates(r) if not a.get("cancels"))
    hours = sum(r.duration_s for r in rows) / 3600
    assert agg["tasks"] == tasks and sum(agg["outcome_counts"].values()) == tasks
    assert agg["delegations_per_hour"] == pytest.approx(tasks / hours, rel=1e-3)
    assert sum(agg["outcome_mix"].values()) == pytest.approx(1.0, abs=1e-3)
    assert agg["relay_delay_s"]["min"] > 0                    # never relayed before the next unit
    assert all(x["n"] > 0 and x["median_s"] > 0 for x in agg["latency_by_tool"].values())
    assert "per hour" in format_delegation(agg)
