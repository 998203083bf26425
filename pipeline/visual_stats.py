"""Omni figures for `duplexsynth stats`: visual events per minute and proactive visual latency.

Both come from the stored events. A `visual` event is one change a frame first shows (schemas/scene.py:
appears, moves, changes state, leaves, text becomes readable), at `start_s` = its frame's window start.
Proactive latency is, for every assistant turn triggered by a watched change (`trigger: visual`), the
time from the start of the frame that first shows that change (the visual event naming the turn in
`stated_by`) to the start of the turn. The unit clock sets its floor: frame k is input of unit k, whose
output plays in window k+1, so no reply starts less than one unit after its frame.
Visual cuts are the assistant turns a frame cut (visual_change: `attrs.cut_by` names the visual event
showing the change that made the answer stale), each with its repair. They are no `interruption`
event (no one spoke), so the interruption counts leave them out; this block counts them, and the
reaction time from the frame to the cut.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from schemas.trajectory import attrs_of
from schemas.vocab import EventKind, Trigger


@dataclass
class VisualRowStats:
    duration_s: float
    unit_s: float
    visual_events: int = 0
    changes: dict[str, int] = field(default_factory=dict)          # visual events by attrs.change
    proactive_latencies_s: list[float] = field(default_factory=list)
    visual_cuts: int = 0                                           # assistant turns cut by a frame
    cut_reactions_s: list[float] = field(default_factory=list)     # frame start -> cut, per visual cut
    visual_repairs: int = 0                                        # the repairs after them (trigger visual_change)


def analyse_visual(events: list[dict[str, Any]], duration_s: float, unit_s: float) -> VisualRowStats:
    """Figures of one row from its stored events (dicts with kind and a JSON `attrs`)."""
    out = VisualRowStats(duration_s=duration_s, unit_s=unit_s)
    shown_at: dict[str, float] = {}              # assistant turn id -> start of the frame showing its fact
    changes: Counter = Counter()
    frame_at: dict[str, float] = {}              # visual event id -> start of its frame's window
    for e in events:
        if e["kind"] != EventKind.VISUAL:
            continue
        a = attrs_of(e)
        out.visual_events += 1
        changes[str(a.change)] += 1
        frame_at[e["id"]] = float(e["start_s"])
        for turn in a.stated_by or []:
            shown_at[turn] = min(shown_at.get(turn, float(e["start_s"])), float(e["start_s"]))
    for e in events:
        if e["kind"] == EventKind.ASSISTANT_TURN and attrs_of(e).trigger == Trigger.VISUAL and e["id"] in shown_at:
            out.proactive_latencies_s.append(round(float(e["start_s"]) - shown_at[e["id"]], 6))
        a = attrs_of(e) if e["kind"] == EventKind.ASSISTANT_TURN else None
        if a is not None and a.cut_by is not None and a.cut_by in frame_at and a.cut_s is not None:
            out.visual_cuts += 1
            out.cut_reactions_s.append(round(float(a.cut_s) - frame_at[a.cut_by], 6))
        if a is not None and a.trigger == Trigger.VISUAL_CHANGE:
            out.visual_repairs += 1
    out.changes = dict(sorted(changes.items()))
    return out


def aggregate_visual(rows: list[VisualRowStats]) -> dict[str, Any]:
    """Over the Omni rows (those with any visual event): events per minute of their sessions, by
    change, and the proactive latency distribution with the unit clock's floor beside it."""
    omni = [r for r in rows if r.visual_events]
    minutes = sum(r.duration_s for r in omni) / 60
    events = sum(r.visual_events for r in omni)
    changes: Counter = Counter()
    for r in omni:
        changes.update(r.changes)
    lat = [x for r in omni for x in r.proactive_latencies_s]
    cuts = [x for r in omni for x in r.cut_reactions_s]
    return {
        "rows": len(omni), "minutes": minutes, "visual_events": events,
        "visual_events_per_min": events / minutes if minutes else 0.0,
        "by_change": dict(sorted(changes.items())),
        "proactive_latency_s": {
            "n": len(lat), "mean": float(np.mean(lat)) if lat else None,
            "min": float(min(lat)) if lat else None, "max": float(max(lat)) if lat else None,
            **{f"p{q}": (float(np.percentile(lat, q)) if lat else None) for q in (50, 90)},
            "clock_floor_s": min((r.unit_s for r in omni), default=None)},
        "visual_cuts": {"n": sum(r.visual_cuts for r in omni),
                        "per_min": sum(r.visual_cuts for r in omni) / minutes if minutes else 0.0,
                        "repairs": sum(r.visual_repairs for r in omni),
                        "frame_to_cut_s_mean": float(np.mean(cuts)) if cuts else None,
                        "frame_to_cut_s_min": float(min(cuts)) if cuts else None},
    }


def format_visual(agg: dict[str, Any]) -> str:
    if not agg["rows"]:
        return "visual (Omni): no rows with frames"
    lat, cuts = agg["proactive_latency_s"], agg["visual_cuts"]
    fmt = lambda v: "-" if v is None else f"{v:.2f}"  # noqa: E731
    return "\n".join([
        f"visual (Omni)                    {agg['rows']} rows, {agg['minutes']:.1f} min: "
        f"{agg['visual_events_per_min']:.1f} visual events per minute ("
        + ", ".join(f"{k} {v}" for k, v in agg["by_change"].items()) + ")",
        f"proactive latency frame->reply   n={lat['n']}  min {fmt(lat['min'])}  p50 {fmt(lat['p50'])}  "
        f"p90 {fmt(lat['p90'])}  max {fmt(lat['max'])}  mean {fmt(lat['mean'])} s  (clock floor "
        f"{fmt(lat['clock_floor_s'])} s: frame k is read by unit k, whose output plays in window k+1)",
        f"visual cuts (visual_change)      {cuts['n']} ({cuts['per_min']:.2f} per minute), {cuts['repairs']} repairs; frame->cut "
        f"min {fmt(cuts['frame_to_cut_s_min'])}  mean {fmt(cuts['frame_to_cut_s_mean'])} s  (a frame, not a "
        "voice, cut the answer: not among the interruptions above)",
    ])
