"""Delegation figures for `duplexsynth stats`: rate, latency per tool, outcome mix, relay delay."""
from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from schemas.trajectory import attrs_of
from schemas.vocab import EventKind


@dataclass
class DelegationRowStats:
    duration_s: float
    tasks: int = 0
    outcomes: dict[str, int] = field(default_factory=dict)
    latency_by_tool: dict[str, list[float]] = field(default_factory=dict)
    relay_delays_s: list[float] = field(default_factory=list)    # relay start - result ready


def analyse_delegation(events: list[dict[str, Any]], duration_s: float) -> DelegationRowStats:
    """Figures of one row from its stored events (dicts with kind and a JSON `attrs`)."""
    out = DelegationRowStats(duration_s=duration_s)
    outcomes: Counter = Counter()
    lat: dict[str, list[float]] = defaultdict(list)
    for e in events:
        if e["kind"] != EventKind.DELEGATE:
            continue
        a = attrs_of(e)
        if a.cancels:
            continue                      # a control request, not a task
        out.tasks += 1
        outcomes[a.outcome or "unknown"] += 1
        if a.latency_s is not None:
            lat[a.tool].append(float(a.latency_s))
        if a.relay_s is not None and a.ready_s is not None:
            out.relay_delays_s.append(round(float(a.relay_s) - float(a.ready_s), 4))
    out.outcomes, out.latency_by_tool = dict(outcomes), dict(lat)
    return out


def aggregate_delegation(rows: list[DelegationRowStats]) -> dict[str, Any]:
    hours = sum(r.duration_s for r in rows) / 3600
    tasks = sum(r.tasks for r in rows)
    outcomes: Counter = Counter()
    lat: dict[str, list[float]] = defaultdict(list)
    delays: list[float] = []
    for r in rows:
        outcomes.update(r.outcomes)
        for tool, xs in r.latency_by_tool.items():
            lat[tool].extend(xs)
        delays.extend(r.relay_delays_s)
    edges = [0, 1, 2, 4, 8, 16, 32]

    def hist(xs: list[float]) -> dict[str, int]:
        counts, _ = np.histogram(np.clip(xs, 0, edges[-1] - 1e-9), bins=edges)
        return {f"{a}-{b}s": int(c) for a, b, c in zip(edges, edges[1:], counts)}

    return {
        "tasks": tasks,
        "delegations_per_hour": round(tasks / hours, 2) if hours else 0.0,
        "outcome_mix": {k: round(v / tasks, 4) for k, v in sorted(outcomes.items())} if tasks else {},
        "outcome_counts": dict(sorted(outcomes.items())),
        "latency_by_tool": {t: {"n": len(xs), "median_s": round(float(np.median(xs)), 3),
                                "p90_s": round(float(np.percentile(xs, 90)), 3), "hist": hist(xs)}
                            for t, xs in sorted(lat.items())},
        "relay_delay_s": ({"n": len(delays), "median": round(float(np.median(delays)), 3),
                           "p90": round(float(np.percentile(delays, 90)), 3), "min": round(min(delays), 3),
                           "hist": hist(delays)} if delays else {}),
    }


def format_delegation(agg: dict[str, Any]) -> str:
    if not agg.get("tasks"):
        return "delegation: no delegated tasks in this dataset"
    lines = [f"delegation: {agg['tasks']} tasks, {agg['delegations_per_hour']} per hour of dialogue",
             "  outcomes: " + ", ".join(f"{k} {v:.1%}" for k, v in agg["outcome_mix"].items()),
             "  latency by tool (median / p90 s): " + ", ".join(
                 f"{t} {x['median_s']}/{x['p90_s']} (n={x['n']})" for t, x in agg["latency_by_tool"].items())]
    d = agg.get("relay_delay_s")
    if d:
        lines.append(f"  relay delay after ready: median {d['median']} s, p90 {d['p90']} s, min {d['min']} s (n={d['n']})")
    return "\n".join(lines)
