"""Computed slots for the tech help exchanges (tech_help.yaml names them under ``derive`` / ``sample``)."""

from __future__ import annotations

import math

from ..engine import Slots, number_words, row_prose
from ..loader import BankData


def tech_help_fix(s: Slots, data: BankData) -> Slots:
    p = data.tables["problems"][str(s["problem"])]
    dev = str(s["device"])
    return {
        "short": p.short,
        "s1": p.steps[0].replace("{device}", dev),
        "s2": p.steps[1].replace("{device}", dev),
        "s3": p.steps[2].replace("{device}", dev),
        "s4": p.steps[3].replace("{device}", dev),
        "escalate": p.escalate,
    }


def tech_help_setup(s: Slots, data: BankData) -> Slots:
    st = data.tables["setups"][str(s["thing"])]
    dev = str(s["device"])
    return {
        "why": st.why.replace("{device}", dev),
        "t1": st.steps[0].replace("{device}", dev),
        "t2": st.steps[1].replace("{device}", dev),
        "t3": st.steps[2].replace("{device}", dev),
        "setup_min": st.minutes,
    }


def tech_help_speed(s: Slots, data: BankData) -> Slots:
    row = s["use"]
    use, per, noun, task = row.use, row.mbps, row.noun, row.task  # type: ignore[attr-defined]
    people = int(s["people"])  # type: ignore[arg-type]
    base = per * people
    headroom = math.ceil(base * 1.5)
    plan = next(p for p in (50, 100, 200, 300, 500, 1000) if p >= headroom)
    return {
        "use_s": use, "task": task, "per": per, "base": base, "headroom": headroom, "plan": plan,
        "people_w": number_words(people), "noun": noun,
    }


def tech_help_transfer(s: Slots, data: BankData) -> Slots:
    what, way = s["what"]  # type: ignore[misc]
    gb = int(s["gb"])  # type: ignore[arg-type]
    mbps = int(s["mbps"])  # type: ignore[arg-type]
    seconds = gb * 8000 / mbps
    real = seconds * 1.25
    h, rem = divmod(int(round(real / 60)), 60)
    if h == 0:
        t = f"{max(1, rem)} minutes"
    else:
        t = f"{h} hour{'s' if h != 1 else ''}" + (f" and {rem} minutes" if rem else "")
    ideal_min = max(1, int(round(seconds / 60)))
    ih, im = divmod(ideal_min, 60)
    ideal = f"{im} minutes" if ih == 0 else f"{ih} hour{'s' if ih != 1 else ''}" + (f" and {im} minutes" if im else "")
    return {"what_s": what, "way": way, "time_s": t, "ideal_s": ideal, "mb_s": f"{mbps / 8:g}"}


def tech_help_explain(s: Slots, data: BankData) -> Slots:
    t = data.tables["terms"][str(s["pair"])]
    return {k: getattr(t, k) for k in ("first", "second", "matters", "tip")}


def tech_help_scam(s: Slots, data: BankData) -> Slots:
    t = data.tables["scams"][str(s["scam"])]
    return row_prose(t, ("signs", "action", "prevent"))


FUNCTIONS = (tech_help_scam, tech_help_explain, tech_help_fix, tech_help_setup, tech_help_speed, tech_help_transfer,)
