"""A calendar booking the user calls off is deleted, and said to be gone only after the harness says so.

The booking may already have gone through when the user calls it off (in most rendered rows it
has), so a cancel of the pending request would leave it standing while the assistant says it is
cancelled. These rows are planned and rendered by the real planners, composer and espeak, then
their calendar requests are replayed in the order the harness answered them.
"""
from __future__ import annotations

import json

import pytest

from generators.harness.calendar import Calendar
from generators.registry import plan_trajectory, trajectory_seed
from pipeline.render import render_trajectory
from pipeline.validate import validate_row
from schemas.config import RunConfig
from schemas.vocab import EventKind, Trigger
from tests.generated import FAST_VOICES

PER_LANGUAGE = 3


def calendar_cancel_scripts(language: str, n: int) -> list:
    cfg = RunConfig(language=language, voices=FAST_VOICES)   # rendered with espeak below
    out = []
    for j in range(200):
        s = plan_trajectory(cfg, "delegation_cancel", trajectory_seed(7, j))
        if any(t.delegate is not None and t.delegate.tool == "calendar" for t in s.turns):
            out.append(s)
        if len(out) == n:
            return out
    raise AssertionError(f"fewer than {n} calendar cancels in 200 {language} scripts")


@pytest.fixture(scope="module")
def rows(espeak):
    return [render_trajectory(cfg=RunConfig(language=lang, voices=FAST_VOICES), traj_id=f"{lang}-{i}", tts=espeak, script=s)
            for lang in ("en", "zh") for i, s in enumerate(calendar_cancel_scripts(lang, PER_LANGUAGE))]


def replayed_calendar(row) -> Calendar:
    """The calendar after every calendar request of the row, run in the order its results arrived."""
    attrs = {e.id: json.loads(e.attrs) for e in row.events}
    cal = Calendar()
    for b in sorted((e for e in row.events if e.kind == EventKind.BACKEND), key=lambda e: e.start_s):
        a = attrs[b.id]
        if a["tool"] != "calendar" or a["status"] != "ok":
            continue
        if a["args"]["action"] == "book":
            cal.book(a["args"]["day"], a["args"]["time"], int(a["args"]["minutes"]), a["args"]["title"])
        elif a["args"]["action"] == "cancel":
            cal.cancel(a["args"]["day"], a["args"]["time"])
    return cal


def test_a_called_off_booking_does_not_stand(rows):
    for r in rows:
        assert replayed_calendar(r).slots == {}, (r.id, [e.text for e in r.events])


def test_gone_is_said_only_after_the_harness_said_so(rows):
    for r in rows:
        attrs = {e.id: json.loads(e.attrs) for e in r.events}
        removed = [e for e in r.events if e.kind == EventKind.BACKEND and attrs[e.id]["args"].get("action") == "cancel"]
        assert len(removed) == 1 and removed[0].text.startswith("Cancelled "), r.id
        task = attrs[removed[0].id]["task_id"]
        said = [t for t in r.events if t.kind == EventKind.ASSISTANT_TURN and attrs[t.id].get("ref") == task]
        assert len(said) == 1 and attrs[said[0].id]["trigger"] == Trigger.BACKEND, r.id
        assert said[0].start_s > removed[0].start_s
        # before that turn, no assistant turn after the user's cancel claims it is gone (a promise,
        # "I'm having the booking removed", is what the ack that sends the delete says)
        cancel_asked = [t for t in r.events if t.kind == EventKind.USER_TURN][1].start_s
        earlier = [t.text for t in r.events if t.kind == EventKind.ASSISTANT_TURN
                   and cancel_asked < t.start_s < said[0].start_s]
        claims = ("has been", "is gone", "is off", "is deleted", "is cancelled", "no longer", "删掉了", "删好了", "已经删", "不在了")
        assert not any(w in x for x in earlier for w in claims), earlier


def test_rows_validate(rows):
    problems = [f"{r.id}: {v}" for r in rows for v in validate_row(r, expect_tokens=False)]
    assert problems == []
