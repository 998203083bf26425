"""Shared helpers for scenario planners: the planning context, timing draws and turn builders."""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from generators import voices as vx
from generators.harness import HarnessState
from generators.timing import control, sampling
from schemas.language import ENGLISH, Language
from schemas.config import Dist, HarnessConfig, Range, TimingConfig, VoicesConfig
from schemas.scene import Scene
from schemas.script import ScriptTurn, VoiceSpec
from schemas.thresholds import DEFAULT_UNIT_S
from schemas.vocab import Role, TurnAttr

if TYPE_CHECKING:
    from generators.scenes.video import VideoLibrary


@dataclass(frozen=True)
class Cast:
    """Who speaks in one trajectory."""

    user: VoiceSpec
    assistant: VoiceSpec
    other: VoiceSpec
    background: VoiceSpec

    def voice_for(self, role: str) -> VoiceSpec:
        """The voice of a speaker role (`ScriptTurn.role` or `Overlay.role`)."""
        return {Role.USER: self.user, Role.ASSISTANT: self.assistant, Role.OTHER: self.other,
                Role.BACKGROUND: self.background}[role]


@dataclass
class Planner:
    """Per-trajectory planning state: the RNG, the timing config, the cast and an id counter."""

    rng: np.random.Generator
    timing: TimingConfig
    cast: Cast
    harness: HarnessConfig = field(default_factory=HarnessConfig)
    harness_state: HarnessState = field(default_factory=HarnessState)   # per trajectory: the calendar
    lang: Language = ENGLISH   # how the script's text splits into words (schemas/language.py)
    scene: Scene | None = None   # Omni families: what the camera sees (schemas/scene.py), set by the planner
    videos: "VideoLibrary | None" = None   # scene_source kind video: the annotated videos scenes come from
    unit_s: float = DEFAULT_UNIT_S   # the run's unit: a video segment's frames are this far apart
    _n: int = 0
    _control: "control.ControlSpec | None" = None   # the session's closed-loop timing targets

    @property
    def tools(self) -> tuple[str, ...]:
        """Harness tools this run enables (delegation content is drawn only for these)."""
        return tuple(self.harness.tools)

    @classmethod
    def create(cls, rng: np.random.Generator, timing: TimingConfig, harness: HarnessConfig | None = None,
               lang: Language = ENGLISH, voices: VoicesConfig | None = None) -> "Planner":
        asst, user, other, bg = vx.draw_cast(rng, lang.code, voices)
        return cls(rng=rng, timing=timing, cast=Cast(user=user, assistant=asst, other=other, background=bg),
                   harness=harness or HarnessConfig(), lang=lang)

    def draw(self, r: Range | Dist) -> float:
        """A timing draw: uniform over a Range (as always), or any Dist (generators/timing/sampling.py)."""
        return sampling.sample(self.rng, r)

    def next_id(self, prefix: str) -> str:
        self._n += 1
        return f"{prefix}{self._n}"

    def exgauss(self) -> float:
        """Backchannel onset relative to a phrase end: ex-Gaussian(mu, sigma, tau), 0.1 ms resolution."""
        mu, sigma, tau = self.timing.backchannel_onset
        return float(round(sampling.exgauss(self.rng, mu, sigma, tau), 4))

    def user(self, text: str, **kw: object) -> ScriptTurn:
        t = self.timing
        gap, eot = self.draw(t.user_gap_s), self.draw(t.eot_s)
        attrs = dict(kw.pop("attrs", {}) or {})  # type: ignore[call-overload]
        # Realism draws happen only when switched on, so default configs draw what they always did.
        if t.silence_prob > 0 and self.rng.random() < t.silence_prob:   # a silent stretch before the turn
            gap = self.draw(t.silence_s)
            attrs[TurnAttr.SILENT_STRETCH] = "1"
        elif t.controller_gain > 0:   # closed-loop timing (compose._place_user)
            attrs.update(self.control_spec().to_attrs())
        return ScriptTurn(id=self.next_id("u"), role=Role.USER, text=text, voice=self.cast.user,
                          gap_s=gap, eot_s=eot, attrs=attrs, **kw)

    def control_spec(self) -> "control.ControlSpec":
        """The session's closed-loop targets, drawn once (at the first user turn that needs them)."""
        if self._control is None:
            t = self.timing
            gap_lo, gap_hi = sampling.support(t.user_gap_s)
            pause_lo, pause_hi = sampling.support(t.pause_s)
            self._control = control.ControlSpec(
                gap_pm=self.draw(t.target_gap_per_min), overlap_pm=self.draw(t.target_overlap_per_min),
                pause_pm=self.draw(t.target_pause_per_min), gain=t.controller_gain, gap_lo=gap_lo,
                gap_hi=gap_hi, pause_lo=pause_lo, pause_hi=pause_hi)
        return self._control

    def assistant(self, text: str, **kw: object) -> ScriptTurn:
        return ScriptTurn(id=self.next_id("a"), role=Role.ASSISTANT, text=text, voice=self.cast.assistant,
                          lead_s=self.draw(self.timing.response_lead_s), **kw)


# What a scenario planner returns: the script's domain and its main-dialogue turns, in order.
Plan = tuple[str, list[ScriptTurn]]
PlanFn = Callable[[Planner], Plan]
