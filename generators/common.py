"""Shared helpers for scenario planners: the planning context, timing draws and turn builders."""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from generators import voices as vx
from generators.harness import HarnessState
from generators.timing import control, sampling
from schemas.config import Dist, HarnessConfig, Range, TimingConfig
from schemas.script import Overlay, ScriptTurn, VoiceSpec, phrase_boundaries


@dataclass(frozen=True)
class Cast:
    """Who speaks in one trajectory."""

    user: VoiceSpec
    assistant: VoiceSpec
    other: VoiceSpec
    background: VoiceSpec


@dataclass
class Planner:
    """Per-trajectory planning state: the RNG, the timing config, the cast and an id counter."""

    rng: np.random.Generator
    timing: TimingConfig
    cast: Cast
    harness: HarnessConfig = field(default_factory=HarnessConfig)
    harness_state: HarnessState = field(default_factory=HarnessState)   # per trajectory: the calendar
    _n: int = 0
    _control: "control.ControlSpec | None" = None   # the session's closed-loop timing targets

    @property
    def tools(self) -> tuple[str, ...]:
        """Harness tools this run enables (delegation content is drawn only for these)."""
        return tuple(self.harness.tools)

    @classmethod
    def create(cls, rng: np.random.Generator, timing: TimingConfig, harness: HarnessConfig | None = None) -> "Planner":
        asst = vx.draw_voice(rng, vx.ASSISTANT_VOICES)
        user = vx.draw_voice(rng, vx.PEOPLE_VOICES, exclude=(asst,))
        other = vx.draw_voice(rng, vx.PEOPLE_VOICES, exclude=(asst, user))
        bg = vx.draw_voice(rng, vx.PEOPLE_VOICES, exclude=(asst, user, other))
        return cls(rng=rng, timing=timing, cast=Cast(user=user, assistant=asst, other=other, background=bg),
                   harness=harness or HarnessConfig())

    def draw(self, r: Range | Dist) -> float:
        """A timing draw: uniform over a Range (as always), or any Dist (generators/timing/sampling.py)."""
        return sampling.sample(self.rng, r)

    def next_id(self, prefix: str) -> str:
        self._n += 1
        return f"{prefix}{self._n}"

    def exgauss(self) -> float:
        """Backchannel onset relative to a phrase end: ex-Gaussian(mu, sigma, tau)."""
        mu, sigma, tau = self.timing.backchannel_onset
        return float(round(self.rng.normal(mu, sigma) + self.rng.exponential(tau), 4))

    def user(self, text: str, **kw: object) -> ScriptTurn:
        t = self.timing
        gap, eot = self.draw(t.user_gap_s), self.draw(t.eot_s)
        attrs = dict(kw.pop("attrs", {}) or {})  # type: ignore[call-overload]
        # Realism draws happen only when switched on, so default configs draw what they always did.
        if t.silence_prob > 0 and self.rng.random() < t.silence_prob:   # a silent stretch before the turn
            gap = self.draw(t.silence_s)
            attrs["silent_stretch"] = "1"
        elif t.controller_gain > 0:   # closed-loop timing (compose._place_user)
            attrs.update(self.control_spec().to_attrs())
        return ScriptTurn(id=self.next_id("u"), role="user", text=text, voice=self.cast.user,
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
        return ScriptTurn(id=self.next_id("a"), role="assistant", text=text, voice=self.cast.assistant,
                          lead_s=self.draw(self.timing.response_lead_s), **kw)

    def overlays(self, text: str, kind: str, lines: list[str]) -> tuple[Overlay, ...]:
        """Place each line at a distinct phrase boundary of `text` (spread over the turn)."""
        bounds = phrase_boundaries(text)
        if not bounds:
            return ()
        picks = sorted(self.rng.choice(len(bounds), size=min(len(lines), len(bounds)), replace=False))
        role, voice = {"backchannel": ("user", self.cast.user),
                       "other_directed": ("user", self.cast.user),
                       "background_speech": ("background", self.cast.background)}[kind]
        out = []
        for line, b in zip(lines, picks):
            offset = self.exgauss() if kind == "backchannel" else float(round(self.rng.uniform(-0.5, 0.3), 4))
            out.append(Overlay(kind=kind, text=line, role=role, voice=voice, boundary=int(b), offset_s=offset))
        return tuple(out)
