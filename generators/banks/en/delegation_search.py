"""Functions delegation_search.yaml names: the fixture the user asks about, and reading search snippets."""

from __future__ import annotations

import re

from ..delegations import Result, segments
from ..engine import Rng, Slots, pick
from ..loader import BankData
from .delegation import say_span, say_time


def fixture(rng: Rng, slots: Slots, data: BankData) -> tuple[str, str]:
    """A fixture with a result in the snippets table, named home side first 60% of the time."""
    pair = pick(rng, data.lists["fixtures"])[:: 1 if rng.random() < 0.6 else -1]
    return (str(pair[0]), str(pair[1]))


def fixture_teams(s: Slots, data: BankData) -> Slots:
    a, b = s["match"]  # type: ignore[misc]
    return {"a": a, "b": b}


def _title(res: Result) -> str:
    return res.text.split(": ", 1)[0] if ": " in res.text else ""


def read_hours(rng: Rng, res: Result, s: Slots, data: BankData) -> dict[str, object]:
    if not _title(res).startswith(str(s["place"])):
        return {}
    for seg, _ in segments(res):
        if m := re.fullmatch(rf"{s['day']} (closed|(\d\d:\d\d) to (\d\d:\d\d))", seg):
            if m.group(1) == "closed":
                return {"closed": True}
            open_t, close_t = say_span(rng, m.group(2), m.group(3))
            return {"open_t": open_t, "close_t": close_t}
    return {}


def read_prices(rng: Rng, res: Result, s: Slots, data: BankData) -> dict[str, object]:
    if not _title(res).startswith(f"{s['item']} prices"):
        return {}
    found = [m.groups() for seg, _ in segments(res) if (m := re.fullmatch(r"(.+) (\d+) dollars", seg))]
    out: dict[str, object] = {}
    if found:   # listings come cheapest first, so the first one is the best price even in a partial result
        out["store"], out["best"] = found[0][0], int(found[0][1])
    if len(found) >= 2 and res.complete:   # the top of the range only once every listing is in
        out["hi"] = int(found[-1][1])
        out["others"] = " and ".join(st for st, _ in found[1:])
    return out


def read_concert(rng: Rng, res: Result, s: Slots, data: BankData) -> dict[str, object]:
    if not _title(res).startswith(str(s["band"])):
        return {}
    out: dict[str, object] = {}
    for seg, _ in segments(res):
        if m := re.fullmatch(rf"{re.escape(str(s['band']))} play (.+) on (\w+day) at (\d\d:\d\d)", seg):
            out["venue"], out["day"], out["time_t"] = m.group(1), m.group(2), say_time(rng, m.group(3))
        elif m := re.fullmatch(r"tickets (\d+) dollars", seg):
            out["price"] = int(m.group(1))
        elif m := re.fullmatch(r"(\d+) tickets left", seg):
            out["left"] = int(m.group(1))
        elif seg == "sold out":
            out["sold_out"] = True
    return out


def read_score(rng: Rng, res: Result, s: Slots, data: BankData) -> dict[str, object]:
    out: dict[str, object] = {}
    for seg, whole in segments(res):
        if m := re.fullmatch(r"(.+) (\d+), (.+) (\d+)", seg):
            ta, sa, tb_, sb = m.group(1), int(m.group(2)), m.group(3), int(m.group(4))
            if {ta, tb_} != set(s["match"]):  # type: ignore[call-overload]
                return {}
            if sa == sb:
                out.update(draw=True, score=sa)
            else:
                w, l_, sw, sl = (ta, tb_, sa, sb) if sa > sb else (tb_, ta, sb, sa)
                out.update(winner=w, loser=l_, sw=sw, sl=sl)
        elif m := re.fullmatch(r"played (\w+day)", seg):
            out["day"] = m.group(1)
        elif whole and (m := re.fullmatch(r"top scorer (.+)", seg)):
            out["scorer"] = m.group(1)
    return out


def read_next_match(rng: Rng, res: Result, s: Slots, data: BankData) -> dict[str, object]:
    if not _title(res).startswith(f"{s['team']} next match"):
        return {}
    out: dict[str, object] = {}
    for seg, _ in segments(res):
        if m := re.fullmatch(rf"{re.escape(str(s['team']))} play (.+) (at home|away) on (\w+day) at (\d\d:\d\d)", seg):
            out["opp"], out["where"], out["day"], out["time_t"] = m.group(1), m.group(2), m.group(3), say_time(rng, m.group(4))
        elif m := re.fullmatch(r"tickets from (\d+) dollars", seg):
            out["price"] = int(m.group(1))
    return out


FUNCTIONS = (fixture, fixture_teams, read_hours, read_prices, read_concert, read_score, read_next_match)
