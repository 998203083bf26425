"""Interval algebra of two-speaker talk: IPUs, pauses, gaps, overlaps and floor transfers (dGSLM).

Definitions (dGSLM, Nguyen et al. 2022, on two channels; per minute of dialogue):
  IPU      a speaker's speech bounded by >= 0.2 s of that speaker's silence; IPU seconds are summed
           over both speakers
  pause    silence between two IPUs of the same speaker with no other speech between them
  gap      silence between IPUs of different speakers
  overlap  time both speakers are in an IPU
  minutes  the dialogue span, from the first IPU start to the last IPU end (lead-in and tail
           silence, which no IPU bounds, are neither pause nor gap)

A leaf: pure functions of (start, end) intervals, importing nothing of ours, so timing fitting
(generators/timing/fit.py), the closed-loop composer (pipeline/compose.py) and `duplexsynth stats`
(pipeline/stats.py) share one definition.
"""
from __future__ import annotations

from typing import Any, Iterable

IPU_MIN_SILENCE_S = 0.2
BACKCHANNEL_MAX_S = 1.0

Intervals = list[tuple[float, float]]


def merge_intervals(iv: Iterable[tuple[float, float]], min_gap: float = 0.0) -> Intervals:
    """Sorted union of intervals; silences shorter than `min_gap` are bridged."""
    out: list[list[float]] = []
    for a, b in sorted(iv):
        if b <= a:
            continue
        if out and a - out[-1][1] < min_gap + 1e-9:
            out[-1][1] = max(out[-1][1], b)
        else:
            out.append([a, b])
    return [(a, b) for a, b in out]


def ipus_from_segments(by_speaker: dict[str, Intervals], min_gap: float = IPU_MIN_SILENCE_S) -> dict[str, Intervals]:
    """IPUs per speaker: speech segments (VAD runs, words) joined across silences < min_gap."""
    return {spk: merge_intervals(iv, min_gap) for spk, iv in by_speaker.items()}


def dialogue_figures(ipus: dict[str, Intervals]) -> dict[str, Any]:
    """IPU, pause, gap and overlap seconds of one dialogue, and its length in minutes (dGSLM)."""
    flat = sorted((a, b, spk) for spk, iv in ipus.items() for a, b in iv)
    res: dict[str, Any] = {"minutes": 0.0, "ipu_s": 0.0, "pause_s": 0.0, "gap_s": 0.0, "overlap_s": 0.0,
                           "pause_list": [], "gap_list": []}
    if not flat:
        return res
    res["ipu_s"] = float(sum(b - a for a, b, _ in flat))
    # overlap: sweep of +1/-1 at IPU boundaries
    pts = sorted([(a, 1) for a, _, _ in flat] + [(b, -1) for _, b, _ in flat], key=lambda p: (p[0], p[1]))
    active, last, ov = 0, flat[0][0], 0.0
    for t, d in pts:
        if active >= 2:
            ov += t - last
        active += d
        last = t
    res["overlap_s"] = float(ov)
    # silences between blocks of the union: pause if the same speaker ends one and starts the next
    blocks: list[dict[str, Any]] = []
    for a, b, spk in flat:
        if blocks and a < blocks[-1]["end"] + 1e-9:
            blk = blocks[-1]
            if b > blk["end"] + 1e-9:
                blk["end"], blk["enders"] = b, {spk}
            elif abs(b - blk["end"]) <= 1e-9:
                blk["enders"].add(spk)
        else:
            blocks.append({"start": a, "end": b, "starter": spk, "enders": {spk}})
    for x, y in zip(blocks, blocks[1:]):
        sil = y["start"] - x["end"]
        if y["starter"] in x["enders"]:
            res["pause_s"] += sil
            res["pause_list"].append(float(sil))
        else:
            res["gap_s"] += sil
            res["gap_list"].append(float(sil))
    res["minutes"] = float((blocks[-1]["end"] - blocks[0]["start"]) / 60.0)
    return res


def backchannel_like(ipus: dict[str, Intervals], max_s: float = BACKCHANNEL_MAX_S) -> set[tuple[str, float, float]]:
    """Short IPUs inside the other speaker's talk (the other speaks within 1 s before and after)."""
    out = set()
    for spk, iv in ipus.items():
        others = [(a, b) for o, ivo in ipus.items() if o != spk for a, b in ivo]
        for a, b in iv:
            if b - a > max_s:
                continue
            before = any(x < a and y > a - 1.0 for x, y in others)
            after = any(y > b and x < b + 1.0 for x, y in others)
            if before and after:
                out.add((spk, a, b))
    return out


def transitions(ipus: dict[str, Intervals], max_bc_s: float = BACKCHANNEL_MAX_S) -> list[dict[str, Any]]:
    """Floor changes: {from, to, fto_s, at}; fto_s = new speaker's start - old speaker's end (< 0: overlap).

    Backchannel-like IPUs are not floor changes, and an IPU entirely inside the other's IPU is an
    overlap within a turn, not a change (Heldner & Edlund 2010).
    """
    bc = backchannel_like(ipus, max_bc_s)
    flat = sorted((a, b, spk) for spk, iv in ipus.items() for a, b in iv if (spk, a, b) not in bc)
    out = []
    last_end: dict[str, tuple[float, float]] = {}   # speaker -> (end, start) of their latest-ending IPU
    for a, b, spk in flat:
        others = [(e, s, o) for o, (e, s) in last_end.items() if o != spk]
        if others:
            e_o, _, o = max(others)
            mine = last_end.get(spk)
            if (mine is None or mine[0] < e_o) and b > e_o:
                out.append({"from": o, "to": spk, "fto_s": float(a - e_o), "at": float(a)})
        if spk not in last_end or b > last_end[spk][0]:
            last_end[spk] = (b, a)
    return out
