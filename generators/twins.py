"""Contrastive twins: derive a partner script from a base script by changing exactly one overlap.

The twin is the base `Script` itself with one event replaced or left out, so every draw before the
divergence (voices, turns, timing, the acoustics stream of the same seed) is shared by construction;
the few draws a twin needs of its own (is this trajectory twinned, which kind, which overlay, a
backchannel's words) come from the stream [seed, TWIN_STREAM], so the base row's draws are untouched.

Which twins a family allows: an interruption family's cut-in can become a backchannel, a line the user
says to someone else in the room (FD-Bench talking-to-others; a line of the bank's other-directed speech,
never the cut-in's own words: "Can you work out my student loan payoff?" is plainly said to the assistant,
so a twin labelling it speech to someone else would be false), or nothing (the clean twin); the turns after the
cut answered the interruption, so the twin ends with the turn it no longer interrupts. An overlay
family's twin leaves one overlay out (rule 4 says its output must not change at all).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from generators import text_bank as tb
from schemas.config import Scenario, TwinsConfig
from schemas.language import language
from schemas.replace import replace
from schemas.script import Overlay, Script, ScriptTurn, VoiceSpec
from schemas.twins import TWIN_STREAM, TwinKind
from schemas.vocab import EventKind, Role

INTERRUPTION_FAMILIES: frozenset[str] = frozenset({
    Scenario.INTERRUPTION_DISCARD, Scenario.INTERRUPTION_REPAIR, Scenario.INTERRUPTION_PARK})
OVERLAY_FAMILIES: frozenset[str] = frozenset({
    Scenario.BACKCHANNEL, Scenario.OTHER_DIRECTED, Scenario.BACKGROUND_SPEECH})

# The overlay an interruption becomes, per twin kind (CLEAN: none).
_AS_OVERLAY: dict[TwinKind, EventKind] = {TwinKind.AS_BACKCHANNEL: EventKind.BACKCHANNEL,
                                          TwinKind.AS_OTHER_DIRECTED: EventKind.OTHER_DIRECTED}


def kinds_for(scenario: str) -> tuple[TwinKind, ...]:
    """The twin kinds a scenario family allows (none for families without an overlap)."""
    if scenario in INTERRUPTION_FAMILIES:
        return tuple(TwinKind)
    if scenario in OVERLAY_FAMILIES:
        return (TwinKind.CLEAN,)
    return ()


@dataclass(frozen=True)
class TwinDraw:
    """What the twin stream decided for one trajectory."""

    kind: TwinKind
    rng: np.random.Generator   # the rest of the twin stream: the twin's own draws, after the choice


def draw_twin(cfg: TwinsConfig, scenario: str, seed: int) -> TwinDraw | None:
    """Whether trajectory `seed` gets a twin and of which kind (None: no twin). Drawn from the stream
    [seed, TWIN_STREAM] alone, so worker counts and the base row's own draws never change it."""
    allowed = [k for k in cfg.kinds if k in kinds_for(scenario)]
    if cfg.share <= 0 or not allowed:
        return None
    rng = np.random.default_rng([seed, TWIN_STREAM])
    if rng.random() >= cfg.share:
        return None
    return TwinDraw(kind=allowed[int(rng.integers(len(allowed)))], rng=rng)


@dataclass(frozen=True)
class Moment:
    """Where the base's interruption fell in its rendered turn, for the twin's overlay to start there:
    the onset and the end of the turn's first phrase-boundary word, both in samples from the turn start."""

    onset: int
    boundary_end: int
    sample_rate: int


def interrupted_turn(script: Script) -> int:
    """Index of the script's interrupted assistant turn. Raises ValueError if there is none."""
    for i, t in enumerate(script.turns):
        if t.interruption is not None:
            return i
    raise ValueError(f"script of {script.scenario} (seed {script.seed}) has no interruption to twin")


def overlay_turn(script: Script) -> int:
    """Index of the first assistant turn with overlays. Raises ValueError if there is none."""
    for i, t in enumerate(script.turns):
        if t.overlays:
            return i
    raise ValueError(f"script of {script.scenario} (seed {script.seed}) has no overlay to twin")


def user_voice(script: Script) -> VoiceSpec:
    """The voice the base's interruption was spoken in (composition uses the first user turn's)."""
    return next(t.voice for t in script.turns if t.role == Role.USER)


def needs_moment(kind: TwinKind) -> bool:
    """Whether deriving this kind needs the base's rendered interruption onset (`Moment`)."""
    return kind in _AS_OVERLAY


def derive(base: Script, draw: TwinDraw, moment: Moment | None = None) -> Script:
    """The twin script of `base`: the same script, differing in one overlap event (module docstring).
    `moment` is needed for the kinds that move an interruption onto an overlay (`needs_moment`)."""
    turns = list(base.turns)
    if draw.kind == TwinKind.CLEAN and not any(t.interruption is not None for t in turns):
        # the first overlay (earliest phrase boundary, then offset) is the one left out: the pair then differs
        # at its earliest overlap with nothing before it, which a Full-Duplex-Bench sample needs (one event,
        # no overlap before it; the fdb export crops what follows). A random one failed 4 of 5 such rows there.
        i = overlay_turn(base)
        ovs = turns[i].overlays
        drop = min(range(len(ovs)), key=lambda j: (ovs[j].boundary, ovs[j].offset_s))
        turns[i] = replace(turns[i], overlays=ovs[:drop] + ovs[drop + 1:])
        return replace(base, turns=tuple(turns))
    i = interrupted_turn(base)
    cut = turns[i]
    overlays: tuple[Overlay, ...] = cut.overlays
    if draw.kind in _AS_OVERLAY:
        if moment is None:
            raise ValueError(f"a {draw.kind} twin needs the base's interruption onset")
        overlays += (_overlay_at(base, cut, draw, moment),)
    plain = replace(cut, interruption=None, overlays=overlays)
    return replace(base, turns=(*turns[:i], plain))   # later turns answered the cut


def _overlay_at(base: Script, cut: ScriptTurn, draw: TwinDraw, moment: Moment) -> Overlay:
    """The overlay the interruption becomes, placed against the turn's first phrase boundary so that
    composition puts its onset on the interruption's sample (onset = boundary end + offset)."""
    assert cut.interruption is not None
    if not language(base.language).phrase_boundaries(cut.text):
        raise ValueError(f"turn {cut.id} has no phrase boundary to place a {draw.kind} twin against")
    kind = _AS_OVERLAY[draw.kind]
    text = (tb.draw_backchannel(draw.rng, lang=base.language) if kind == EventKind.BACKCHANNEL
            else tb.draw_other_directed(draw.rng, lang=base.language))   # addressed to someone else, not the assistant
    return Overlay(kind=kind, text=text, role=Role.USER, voice=user_voice(base), boundary=0,
                   offset_s=(moment.onset - moment.boundary_end) / moment.sample_rate)
