"""Conversation statistics measured on the audio, against human references (`duplexsynth stats`).

IPU, pause, gap, overlap and dialogue minutes are the dGSLM definitions (Nguyen et al. 2022, two
channels, per minute of dialogue), stated and computed once in generators/intervals.py, which timing
fitting and composition share.

Speech comes from an energy VAD (pipeline/vad.py) on the stored channels, never from the script.
The user channel is what the assistant's microphone heard: its own-voice speech plus echo of the
assistant and noise. By default (`clean=True`) every non-speech component that meta records
(coloured / babble / hum / file noise, the echo) is rebuilt exactly and subtracted first, so the
VAD measures the conversation, as dGSLM did on Fisher's separate telephone channels; with
`clean=False` the VAD runs on the raw microphone and echo counts as user speech.
Events and meta give what audio cannot: backchannel and interruption counts, listen/speak
decisions, the realised SNR of every noise (rebuilt from meta, as validation does), and for Omni
rows visual events per minute and proactive visual latency (pipeline/visual_stats.py).
"""
from __future__ import annotations

import io
import json
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from generators.intervals import dialogue_figures, ipus_from_segments, transitions
from pipeline import vad
from pipeline.delegation_stats import DelegationRowStats, aggregate_delegation, analyse_delegation, format_delegation
from pipeline.visual_stats import VisualRowStats, aggregate_visual, analyse_visual, format_visual
from schemas.safe_paths import atomic_write_bytes
from schemas.thresholds import MIN_EOT_S
from schemas.timeline import BabbleNoise, TimelineSpec
from schemas.trajectory import Event, attrs_of
from schemas.vocab import Decision, EventKind, Role

FIGURES = ("ipu_s", "pause_s", "gap_s", "overlap_s")
LABELS = {"ipu_s": "IPU", "pause_s": "pause", "gap_s": "gap", "overlap_s": "overlap"}
# Fisher (English telephone conversations), seconds per minute of dialogue, as reported by dGSLM.
FISHER_PER_MIN = {"ipu_s": (51.0, 54.0), "pause_s": (5.5, 6.4), "gap_s": (4.2, 4.4), "overlap_s": (3.3, 3.6)}
TOLERANCE = 0.25   # "within +-25%" of the reference midpoint
HUMAN_RESPONSE_S = 0.2   # typical gap at a human turn change (cross-language mean 0.23 s)
# Which figures the 1 s unit clock lets a dataset match (see README "What the unit clock forbids").
CLOCK_ALLOWS = {"ipu_s": True, "pause_s": True, "gap_s": True, "overlap_s": True, "response_latency": False}

# ------------------------------------------------------------------------- one trajectory

@dataclass
class RowStats:
    id: str
    scenario: str
    figures: dict[str, Any]
    transitions: list[dict[str, Any]]
    backchannels: int
    interruptions: dict[str, int]
    speak_units: int
    units: int
    snr: dict[str, tuple[float, float]] = field(default_factory=dict)
    control: dict[str, Any] | None = None   # closed-loop targets and the realised figures they steered
    delegation: dict[str, Any] = field(default_factory=dict)   # pipeline.delegation_stats.DelegationRowStats
    visual: dict[str, Any] = field(default_factory=dict)       # pipeline.visual_stats.VisualRowStats

    def to_json(self) -> dict[str, Any]:
        d = dict(self.__dict__)
        d["figures"] = {k: v for k, v in self.figures.items() if not k.endswith("_list")}
        return d


def analyse_row(row: dict[str, Any], clean: bool = True, tts: Any = None) -> RowStats:
    """Stats of one stored trajectory (a dict as pyarrow returns it)."""
    from pipeline.io import decode_audio
    from pipeline.mixer import own_speech
    from pipeline.scene import measure_snrs
    from pipeline.tts import tts_from_identity

    dur = float(row["duration_s"])
    user, sr = decode_audio(row["user_audio"]["bytes"], dur, "user_audio")
    asst, _ = decode_audio(row["assistant_audio"]["bytes"], dur, "assistant_audio")
    meta = json.loads(row["meta"]) if row.get("meta") else {}
    spec = TimelineSpec.from_meta(meta)
    scene = spec.mic if spec is not None else None
    events = [Event(**{k: e[k] for k in ("id", "kind", "role", "start_s", "end_s", "text", "attrs")})
              for e in row["events"]]
    snr: dict[str, tuple[float, float]] = {}
    mic = user.astype(np.float64)
    if scene is not None and (scene.noises or scene.echo is not None):
        if tts is None and any(isinstance(x, BabbleNoise) for x in scene.noises):
            tts = tts_from_identity(meta.get("tts"))
        own, comps = own_speech(user, asst, scene, sr, tts)
        if clean:
            mic = own
        snr = measure_snrs(own, comps, events, scene, sr)
    segs = {Role.USER: vad.speech_intervals(mic, sr), Role.ASSISTANT: vad.speech_intervals(asst, sr)}
    ipus = ipus_from_segments(segs)
    fig = dialogue_figures(ipus)
    inter = Counter(str(attrs_of(e).action) for e in events if e.kind == EventKind.INTERRUPTION)
    units = row.get("units") or []
    tm = meta.get("timing") or {}
    control = None
    if tm.get("control_targets") and fig["minutes"]:
        m = fig["minutes"]
        control = {"target": tm["control_targets"],
                   "measured": {"gap_per_min": fig["gap_s"] / m, "overlap_per_min": fig["overlap_s"] / m,
                                "pause_per_min": fig["pause_s"] / m}}
    return RowStats(id=row["id"], scenario=row["scenario"], figures=fig, transitions=transitions(ipus),
                    backchannels=sum(1 for e in events if e.kind == EventKind.BACKCHANNEL),
                    interruptions=dict(inter), speak_units=sum(1 for u in units if u["decision"] == Decision.SPEAK),
                    units=len(units), snr=snr, control=control,
                    delegation=analyse_delegation(row["events"], float(row.get("duration_s") or 0.0)).__dict__,
                    visual=analyse_visual(row["events"], float(row.get("duration_s") or 0.0),
                                          float(row.get("unit_s") or 1.0)).__dict__)


# ------------------------------------------------------------------------- aggregation

def _pct(x: list[float], q: float) -> float | None:
    return float(np.percentile(x, q)) if x else None


def aggregate(rows: list[RowStats]) -> dict[str, Any]:
    """Dataset figures: per-minute totals, latency distributions, per-scenario balance, SNRs, reference."""
    minutes = sum(r.figures["minutes"] for r in rows)
    per_min = {k: float(sum(r.figures[k] for r in rows) / minutes if minutes else 0.0) for k in FIGURES}
    ref = {}
    for k, (lo, hi) in FISHER_PER_MIN.items():
        mid = (lo + hi) / 2
        ref[k] = {"value": per_min[k], "fisher": [lo, hi], "band": [mid * (1 - TOLERANCE), mid * (1 + TOLERANCE)],
                  "rel_dev": per_min[k] / mid - 1.0, "clock_allows": CLOCK_ALLOWS[k],
                  "within": bool(abs(per_min[k] / mid - 1.0) <= TOLERANCE)}
    u2a = [t["fto_s"] for r in rows for t in r.transitions if t["from"] == Role.USER and t["to"] == Role.ASSISTANT]
    a2u = [t["fto_s"] for r in rows for t in r.transitions if t["from"] == Role.ASSISTANT and t["to"] == Role.USER]
    speech_s = sum(r.figures["ipu_s"] - r.figures["overlap_s"] for r in rows)
    scen: dict[str, dict[str, Any]] = defaultdict(lambda: {"rows": 0, "minutes": 0.0, "speak_units": 0, "units": 0,
                                                          **{k: 0.0 for k in FIGURES}})
    for r in rows:
        s = scen[r.scenario]
        s["rows"] += 1
        s["minutes"] += r.figures["minutes"]
        s["speak_units"] += r.speak_units
        s["units"] += r.units
        for k in FIGURES:
            s[k] += r.figures[k]
    per_scenario = {}
    for name, s in sorted(scen.items()):
        m = s["minutes"] or 1e-9
        per_scenario[name] = {"rows": s["rows"], "minutes": s["minutes"],
                              "speak_share": s["speak_units"] / max(s["units"], 1),
                              **{f"{k}_per_min": s[k] / m for k in FIGURES}}
    inter = Counter()
    for r in rows:
        inter.update(r.interruptions)
    snr_err = [abs(real - drawn) for r in rows for drawn, real in r.snr.values()]
    snr_by = defaultdict(list)
    for r in rows:
        for k, (drawn, real) in r.snr.items():
            snr_by[k].append(real)
    ctl = [r.control for r in rows if r.control]
    ctl_err = {k: float(np.mean([abs(c["measured"][k] - c["target"][k]) for c in ctl])) if ctl else None
               for k in ("gap_per_min", "overlap_per_min", "pause_per_min")}
    return {
        "rows": len(rows), "minutes": minutes, "per_minute": per_min, "reference": ref,
        "overlap_share_of_speech": (per_min["overlap_s"] * minutes / speech_s) if speech_s else 0.0,
        "backchannels_per_min": sum(r.backchannels for r in rows) / minutes if minutes else 0.0,
        "interruptions": dict(sorted(inter.items())),
        "interruptions_per_min": sum(inter.values()) / minutes if minutes else 0.0,
        "response_latency_s": {"n": len(u2a), "mean": float(np.mean(u2a)) if u2a else None,
                               **{f"p{q}": _pct(u2a, q) for q in (10, 25, 50, 75, 90)},
                               "human_typical": HUMAN_RESPONSE_S, "clock_allows": False,
                               "hist": _hist(u2a, -1.5, 2.5, 0.1)},
        "user_offset_s": {"n": len(a2u), "mean": float(np.mean(a2u)) if a2u else None,
                          **{f"p{q}": _pct(a2u, q) for q in (10, 25, 50, 75, 90)},
                          "overlap_share": float(np.mean(np.array(a2u) < 0)) if a2u else None,
                          "hist": _hist(a2u, -1.5, 2.5, 0.1)},
        "per_scenario": per_scenario,
        "snr_db": {"components": {k: {"n": len(v), "mean": float(np.mean(v)), "hist": _hist(v, -10, 45, 5)}
                                  for k, v in sorted(snr_by.items())},
                   "all": _hist([x for v in snr_by.values() for x in v], -10, 45, 5),
                   "max_abs_error_vs_draw": max(snr_err) if snr_err else None},
        "controller": {"sessions": len(ctl), "mean_abs_error_per_min": ctl_err},
        "delegation": aggregate_delegation([DelegationRowStats(**r.delegation) for r in rows if r.delegation]),
        "omni": aggregate_visual([VisualRowStats(**r.visual) for r in rows if r.visual]),
    }


def _hist(x: list[float], lo: float, hi: float, step: float) -> dict[str, Any]:
    edges = np.arange(lo, hi + step / 2, step)
    counts, _ = np.histogram(np.clip(x, lo, hi - 1e-9), bins=edges) if x else (np.zeros(len(edges) - 1), None)
    return {"edges": [round(float(e), 4) for e in edges], "counts": [int(c) for c in counts]}


# ------------------------------------------------------------------------- presentation

def format_table(agg: dict[str, Any], clean: bool = True) -> str:
    lines = [f"duplexsynth stats: {agg['rows']} trajectories, {agg['minutes']:.1f} dialogue minutes "
             f"(VAD on the audio; user channel {'with recorded echo and noise subtracted' if clean else 'raw'})",
             "",
             f"{'per minute of dialogue':<24}{'this data':>10}   {'Fisher':>9}   {'+-25% band':>13}   {'ok':<4} clock",
             f"{'-' * 24}{'-' * 10}   {'-' * 9}   {'-' * 13}   {'-' * 4} -----"]
    for k in FIGURES:
        r = agg["reference"][k]
        lo, hi = r["fisher"]
        b0, b1 = r["band"]
        lines.append(f"{LABELS[k] + ' (s)':<24}{r['value']:>10.2f}   {f'{lo:g}-{hi:g}':>9}   {f'{b0:.2f}-{b1:.2f}':>13}   "
                     f"{'yes' if r['within'] else 'NO':<4} {'allows' if r['clock_allows'] else 'forbids'}")
    rl, uo = agg["response_latency_s"], agg["user_offset_s"]
    fmt = lambda v: "-" if v is None else f"{v:.2f}"  # noqa: E731
    lines += [
        "",
        f"overlap share of speech time     {100 * agg['overlap_share_of_speech']:.1f}% (human: 10-20% of spoken time)",
        f"backchannels per minute          {agg['backchannels_per_min']:.2f}",
        f"interruptions per minute         {agg['interruptions_per_min']:.2f}  by action: "
        + (", ".join(f"{k} {v}" for k, v in agg["interruptions"].items()) or "none")
        + (f"  (+ {agg['omni']['visual_cuts']['n']} visual cuts: see visual (Omni))"
           if agg["omni"]["rows"] and agg["omni"]["visual_cuts"]["n"] else ""),
        f"response latency user->assistant n={rl['n']}  p10 {fmt(rl['p10'])}  p50 {fmt(rl['p50'])}  "
        f"p90 {fmt(rl['p90'])}  mean {fmt(rl['mean'])} s  (human ~{HUMAN_RESPONSE_S} s; the unit clock forbids it: "
        f"eot_s >= {MIN_EOT_S} plus the wait for the next window)",
        f"user offset assistant->user      n={uo['n']}  p10 {fmt(uo['p10'])}  p50 {fmt(uo['p50'])}  "
        f"p90 {fmt(uo['p90'])}  mean {fmt(uo['mean'])} s  overlapping starts "
        + ("-" if uo["overlap_share"] is None else f"{100 * uo['overlap_share']:.0f}%"),
    ]
    if agg["controller"]["sessions"]:
        e = agg["controller"]["mean_abs_error_per_min"]
        lines.append(f"closed-loop timing               {agg['controller']['sessions']} sessions; mean |measured - "
                     f"session target| per minute: gap {e['gap_per_min']:.2f} s, overlap {e['overlap_per_min']:.2f} s, "
                     f"pause {e['pause_per_min']:.2f} s")
    lines += ["", f"{'scenario':<22}{'rows':>5}{'min':>8}{'speak':>7}{'IPU':>7}{'pause':>7}{'gap':>7}{'overlap':>8}"]
    for name, s in agg["per_scenario"].items():
        lines.append(f"{name:<22}{s['rows']:>5}{s['minutes']:>8.1f}{100 * s['speak_share']:>6.0f}%"
                     f"{s['ipu_s_per_min']:>7.1f}{s['pause_s_per_min']:>7.1f}{s['gap_s_per_min']:>7.1f}"
                     f"{s['overlap_s_per_min']:>8.1f}")
    snr = agg["snr_db"]
    if snr["components"]:
        lines += ["", "realised SNR (dB, rebuilt from meta; all noise components)"]
        h = snr["all"]
        top = max(h["counts"]) or 1
        for a, b, c in zip(h["edges"], h["edges"][1:], h["counts"]):
            lines.append(f"  {a:>5.0f}..{b:<4.0f} {c:>6}  {'#' * int(round(40 * c / top))}")
        lines.append("  " + ", ".join(f"{k}: n={v['n']} mean {v['mean']:.1f}" for k, v in snr["components"].items())
                     + f"; max |realised - drawn| {snr['max_abs_error_vs_draw']:.3f} dB")
    lines += ["", format_delegation(agg["delegation"]), "", format_visual(agg["omni"])]
    return "\n".join(lines)


def plot(agg: dict[str, Any], path: str) -> None:
    """A PNG at exactly `path`: per-minute figures against Fisher, the two offset histograms, speak share, SNRs."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(2, 2, figsize=(12, 8))
    ax = axes[0, 0]
    xs = np.arange(len(FIGURES))
    vals = [agg["reference"][k]["value"] for k in FIGURES]
    mids = [sum(FISHER_PER_MIN[k]) / 2 for k in FIGURES]
    ax.bar(xs - 0.2, vals, 0.4, label="this data")
    ax.bar(xs + 0.2, mids, 0.4, label="Fisher", yerr=[[m * TOLERANCE for m in mids], [m * TOLERANCE for m in mids]],
           capsize=4, alpha=0.7)
    ax.set_xticks(xs, [LABELS[k] for k in FIGURES])
    ax.set_yscale("log")
    ax.set_ylabel("seconds per minute (log)")
    ax.legend()
    ax.set_title("per minute of dialogue (bars: +-25%)")
    ax = axes[0, 1]
    for key, label in (("response_latency_s", "user->assistant (response latency)"), ("user_offset_s", "assistant->user")):
        h = agg[key]["hist"]
        ax.step(h["edges"][:-1], h["counts"], where="post", label=label)
    ax.axvline(HUMAN_RESPONSE_S, color="k", ls=":", label="human typical 0.2 s")
    ax.set_xlabel("floor-transfer offset (s); < 0 overlap")
    ax.legend()
    ax = axes[1, 0]
    names = list(agg["per_scenario"])
    ax.barh(names, [100 * agg["per_scenario"][n]["speak_share"] for n in names])
    ax.set_xlabel("% of units the assistant speaks")
    ax = axes[1, 1]
    h = agg["snr_db"]["all"]
    ax.bar(h["edges"][:-1], h["counts"], width=np.diff(h["edges"]), align="edge")
    ax.set_xlabel("realised SNR (dB)")
    fig.tight_layout()
    buf = io.BytesIO()
    fig.savefig(buf, dpi=100, format="png")   # format given: savefig would add ".png" to a bare NAME
    plt.close(fig)
    atomic_write_bytes(path, buf.getvalue(), "--png")
