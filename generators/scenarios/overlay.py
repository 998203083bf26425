"""Overlay families: speech over the assistant's answer that must leave its output unchanged (rule 4).

Backchannels ("mm-hmm" from the user), talking to others (the user addresses someone in the room,
FD-Bench v1.5 recipe) and background speech (a TV or bystander, FD-Bench v1.5 recipe) share one
shape: the user asks, the assistant answers, and 1..n lines are placed at distinct phrase
boundaries of the answer. Only the data differs, so each family is one `OverlayFamily` entry.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from generators import text_bank as tb
from generators.common import Plan, Planner
from schemas.config import Range
from schemas.script import Overlay
from schemas.vocab import EventKind, Role

# Onset of a non-backchannel overlay relative to its phrase end: anywhere near it.
NEAR_PHRASE_END = Range(lo=-0.5, hi=0.3)


def backchannel_onset(p: Planner) -> float:
    """Ex-Gaussian onset around the phrase end (timing.backchannel_onset; DESIGN §1)."""
    return p.exgauss()


def near_phrase_end(p: Planner) -> float:
    """Uniform onset in NEAR_PHRASE_END around the phrase end."""
    return p.draw(NEAR_PHRASE_END)


@dataclass(frozen=True)
class OverlayFamily:
    """One overlay family as data: what is said over the answer, by whom, how often and when."""

    kind: str                                    # Overlay.kind, and the event kind it becomes
    role: str                                    # who says it (Overlay.role); its voice is the cast's
    line: Callable[[np.random.Generator, str], str]   # the text source (generators/text_bank): (rng, lang)
    max_lines: int                               # lines per answer: uniform in 1..max_lines
    onset: Callable[[Planner], float]            # seconds relative to the phrase end


BACKCHANNEL = OverlayFamily(EventKind.BACKCHANNEL, Role.USER, tb.draw_backchannel, 3, backchannel_onset)
OTHER_DIRECTED = OverlayFamily(EventKind.OTHER_DIRECTED, Role.USER, tb.draw_other_directed, 2, near_phrase_end)
BACKGROUND_SPEECH = OverlayFamily(EventKind.BACKGROUND_SPEECH, Role.BACKGROUND, tb.draw_background_speech, 2, near_phrase_end)


def place(p: Planner, text: str, fam: OverlayFamily, lines: list[str]) -> tuple[Overlay, ...]:
    """Place each line at a distinct phrase boundary of `text` (spread over the turn)."""
    bounds = p.lang.phrase_boundaries(text)
    if not bounds:
        return ()
    picks = sorted(p.rng.choice(len(bounds), size=min(len(lines), len(bounds)), replace=False))
    voice = p.cast.voice_for(fam.role)
    return tuple(Overlay(kind=fam.kind, text=line, role=fam.role, voice=voice, boundary=int(b),
                         offset_s=fam.onset(p))
                 for line, b in zip(lines, picks))


def plan(p: Planner, fam: OverlayFamily) -> Plan:
    """The user asks; the assistant answers in full while `fam`'s lines are spoken over it."""
    ex = tb.draw_exchange(p.rng, lang=p.lang.code)
    answer = p.lang.join(ex.answer)
    lines = [fam.line(p.rng, p.lang.code) for _ in range(int(p.rng.integers(1, fam.max_lines + 1)))]
    return ex.domain, [p.user(ex.user_request), p.assistant(answer, overlays=place(p, answer, fam, lines))]
