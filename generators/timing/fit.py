"""Fitting timing distributions to real conversations (`duplexsynth fit-timing`).

`read_segments` reads (speaker, start, end) segments or words (RTTM, CTM, JSON);
`fit_timing(conversations)` estimates the distributions with the dGSLM interval definitions of
generators/intervals.py (the ones `duplexsynth stats` measures with) and returns a `timing:`
mapping the config loader accepts.
"""
from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from generators.intervals import dialogue_figures, ipus_from_segments, transitions
from schemas.bounds import MAX_TIMING_INPUT_BYTES, read_bounded


@dataclass(frozen=True)
class Segment:
    speaker: str
    start: float
    end: float
    text: str = ""


def read_segments(path: str | Path) -> dict[str, list[Segment]]:
    """Conversations in a file, by conversation id: RTTM, CTM or JSON (by extension or content).

    RTTM: `SPEAKER file chan start dur <NA> <NA> speaker ...`. CTM: `file chan start dur word
    [conf]`; the channel is the speaker (two-channel telephone CTMs such as Fisher's). JSON: a
    list of {speaker, start, end[, text|word]}, or {"segments": [...]}, or {conv_id: [...]},
    optionally with "conversation" in each item.
    """
    path = Path(path)
    try:
        text = read_bounded(path, "fit-timing input", MAX_TIMING_INPUT_BYTES).decode("utf-8")
    except UnicodeDecodeError as err:
        raise ValueError(f"fit-timing input: {path} is not UTF-8 text (byte {err.start})") from None
    ext = path.suffix.lower()
    if ext == ".json" or text.lstrip().startswith(("[", "{")):
        return _read_json(json.loads(text), path.stem)
    convs: dict[str, list[Segment]] = {}
    for n, line in enumerate(text.splitlines(), 1):
        f = line.split()
        if not f or f[0].startswith(";;") or f[0].startswith("#"):
            continue
        try:
            if f[0] == "SPEAKER" or ext == ".rttm":
                if f[0] != "SPEAKER":
                    continue
                conv, start, dur, spk, word = f[1], float(f[3]), float(f[4]), f[7], ""
            else:
                conv, spk, start, dur = f[0], f[1], float(f[2]), float(f[3])
                word = f[4] if len(f) > 4 else ""
        except (IndexError, ValueError):
            raise ValueError(f"{path}:{n}: not an RTTM or CTM line: {line!r}") from None
        if dur < 0:
            raise ValueError(f"{path}:{n}: negative duration")
        convs.setdefault(conv, []).append(Segment(spk, start, start + dur, word))
    if not convs:
        raise ValueError(f"{path}: no segments found")
    return {k: sorted(v, key=lambda s: (s.start, s.end)) for k, v in convs.items()}


def _read_json(data: Any, default_id: str) -> dict[str, list[Segment]]:
    if isinstance(data, dict) and "segments" in data:
        data = data["segments"]
    if isinstance(data, dict):
        out: dict[str, list[Segment]] = {}
        for k, items in data.items():
            out.update({k: v for v in _read_json(items, k).values()})
        return out
    convs: dict[str, list[Segment]] = {}
    for i, it in enumerate(data):
        try:
            seg = Segment(str(it["speaker"]), float(it["start"]), float(it["end"]),
                          str(it.get("text", it.get("word", ""))))
        except (KeyError, TypeError, ValueError):
            raise ValueError(f"JSON item {i}: needs speaker, start, end: {it!r}") from None
        if seg.end < seg.start:
            raise ValueError(f"JSON item {i}: end before start")
        convs.setdefault(str(it.get("conversation", default_id)), []).append(seg)
    if not convs:
        raise ValueError("no segments found in JSON")
    return {k: sorted(v, key=lambda s: (s.start, s.end)) for k, v in convs.items()}


def fit_exgauss(x: np.ndarray) -> tuple[float, float, float]:
    """Ex-Gaussian (mu, sigma, tau) by maximum likelihood, started from the method of moments."""
    x = np.asarray(x, dtype=np.float64)
    m, sd = float(x.mean()), float(x.std(ddof=1)) if len(x) > 1 else 0.0
    if len(x) < 3 or sd <= 0:
        return m, max(sd, 1e-3), 0.0
    skew = float(np.mean(((x - m) / sd) ** 3))
    tau0 = sd * (max(skew, 0.05) / 2) ** (1 / 3)
    tau0 = min(tau0, 0.95 * sd)
    sigma0 = math.sqrt(max(sd**2 - tau0**2, (0.1 * sd) ** 2))
    mu0 = m - tau0
    try:
        from scipy import stats

        K, loc, scale = stats.exponnorm.fit(x, K=tau0 / sigma0, loc=mu0, scale=sigma0)
        mu, sigma, tau = float(loc), float(scale), float(K * scale)
        if all(map(math.isfinite, (mu, sigma, tau))) and sigma > 0:
            return mu, sigma, tau
    except Exception:  # noqa: BLE001 - fall back to the moments
        pass
    return mu0, sigma0, tau0


def quantiles(x: np.ndarray, n: int = 41) -> tuple[float, ...]:
    """`n` quantiles at evenly spaced probabilities, for an empirical Dist."""
    return tuple(float(round(v, 4)) for v in np.quantile(np.asarray(x, dtype=np.float64), np.linspace(0, 1, n)))


def fit_timing(convs: dict[str, list[Segment]], family: str = "empirical", min_ipu_gap: float = 0.2,
               backchannel_max_s: float = 1.0) -> dict[str, Any]:
    """Fit the timing distributions of real conversations; returns {"timing": {...}, "report": {...}}.

    user_gap_s   <- floor-transfer offsets at speaker changes (signed; what the user does after the
                    assistant; the unit clock decides the other direction)
    pause_s      <- pauses (silence between IPUs of one speaker, nothing in between)
    backchannel_onset, backchannel_per_min <- short IPUs (<= backchannel_max_s) that start and end
                    inside or around the other speaker's talk without taking the floor: onset
                    relative to the end of the other's nearest IPU, rate per minute of the other's talk
    interrupt_at <- where overlapping floor-takings start, as a fraction of the interrupted IPU
    `family`: "empirical" (41 quantiles; reproduces the data's statistics) or "parametric"
    (ex-Gaussian offsets, lognormal pauses).
    """
    ftos: list[float] = []
    pauses: list[float] = []
    bc_onsets: list[float] = []
    interrupt_frac: list[float] = []
    bc_count, other_talk_s, minutes = 0, 0.0, 0.0
    totals = {"ipu_s": 0.0, "pause_s": 0.0, "gap_s": 0.0, "overlap_s": 0.0}
    for segs in convs.values():
        by_spk: dict[str, list[tuple[float, float]]] = {}
        for s in segs:
            by_spk.setdefault(s.speaker, []).append((s.start, s.end))
        ipus = ipus_from_segments(by_spk, min_ipu_gap)
        fig = dialogue_figures(ipus)
        minutes += fig["minutes"]
        for k in totals:
            totals[k] += fig[k]
        pauses.extend(fig["pause_list"])
        for tr in transitions(ipus):
            ftos.append(tr["fto_s"])
        # backchannels and interruptions
        flat = sorted((a, b, spk) for spk, iv in ipus.items() for a, b in iv)
        for spk, iv in ipus.items():
            others = [(a, b) for o, ivo in ipus.items() if o != spk for a, b in ivo]
            other_talk_s += sum(b - a for a, b in others)
            for a, b in iv:
                if b - a > backchannel_max_s:
                    continue
                # inside the other's talk: the other speaks before and after it, within 1 s
                before = [y for x, y in others if x < a and y > a - 1.0]
                after = [x for x, y in others if y > b and x < b + 1.0]
                if before and after:
                    bc_count += 1
                    ends = [y for x, y in others if abs(y - a) <= 1.5]
                    ref = min(ends, key=lambda y: abs(y - a)) if ends else max(before)
                    bc_onsets.append(a - ref)
        for i, (a, b, spk) in enumerate(flat):
            # an overlapping floor-taking: starts inside the other's IPU, outlasts it, is not short
            if b - a <= backchannel_max_s:
                continue
            for x, y, o in flat[:i]:
                if o != spk and x < a < y and b > y and y - x > 1.0:
                    interrupt_frac.append((a - x) / (y - x))
                    break
    if not ftos:
        raise ValueError("no speaker changes found: need conversations with at least two speakers")
    f = np.array(ftos)
    lo_gap = float(max(-0.8, np.quantile(f, 0.0)))
    hi_gap = float(np.quantile(f, 1.0))
    timing: dict[str, Any] = {}
    if family == "empirical":
        timing["user_gap_s"] = {"kind": "empirical", "q": list(quantiles(np.clip(f, lo_gap, None)))}
    else:
        mu, sigma, tau = fit_exgauss(f)
        timing["user_gap_s"] = {"kind": "exgauss", "mu": round(mu, 4), "sigma": round(sigma, 4),
                                "tau": round(tau, 4), "lo": round(lo_gap, 4), "hi": round(hi_gap, 4)}
    if pauses:
        p = np.array(pauses)
        if family == "empirical":
            timing["pause_s"] = {"kind": "empirical", "q": list(quantiles(p))}
        else:
            lp = np.log(p)
            timing["pause_s"] = {"kind": "lognormal", "mu": round(float(lp.mean()), 4),
                                 "sigma": round(float(lp.std()), 4), "lo": round(float(p.min()), 4),
                                 "hi": round(float(p.max()), 4)}
    if len(bc_onsets) >= 3:
        mu, sigma, tau = fit_exgauss(np.array(bc_onsets))
        timing["backchannel_onset"] = [round(mu, 4), round(max(sigma, 1e-3), 4), round(tau, 4)]
    if other_talk_s > 0 and bc_count:
        rate = bc_count / (other_talk_s / 60.0)
        timing["backchannel_per_min"] = [round(0.8 * rate, 3), round(1.2 * rate, 3)]
    if len(interrupt_frac) >= 3:
        fr = np.clip(np.array(interrupt_frac), 0.02, 0.98)
        timing["interrupt_at"] = [round(float(np.quantile(fr, 0.1)), 4), round(float(np.quantile(fr, 0.9)), 4)]
    report = {
        "conversations": len(convs), "minutes": round(minutes, 4), "transitions": len(ftos),
        "fto_mean_s": round(float(f.mean()), 4), "fto_median_s": round(float(np.median(f)), 4),
        "overlap_transition_share": round(float(np.mean(f < 0)), 4),
        "gap_mean_s": round(float(f[f >= 0].mean()), 4) if np.any(f >= 0) else None,
        "overlap_mean_s": round(float(-f[f < 0].mean()), 4) if np.any(f < 0) else None,
        "pauses": len(pauses), "pause_mean_s": round(float(np.mean(pauses)), 4) if pauses else None,
        "backchannels": bc_count, "interruptions": len(interrupt_frac),
        "per_minute": {k: round(v / minutes, 4) for k, v in totals.items()} if minutes else {},
    }
    return {"timing": timing, "report": report}


def transition_stats(offsets: np.ndarray) -> dict[str, float]:
    """Gap and overlap statistics of signed floor-transfer offsets (what fit-timing must reproduce)."""
    f = np.asarray(offsets, dtype=np.float64)
    gaps, ovs = f[f >= 0], -f[f < 0]
    return {"mean_s": float(f.mean()), "gap_mean_s": float(gaps.mean()) if len(gaps) else 0.0,
            "overlap_mean_s": float(ovs.mean()) if len(ovs) else 0.0, "overlap_share": float(np.mean(f < 0)),
            "median_s": float(np.median(f))}
