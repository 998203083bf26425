"""Voice pools for the espeak-ng backend. Draws come from the trajectory's RNG."""
from __future__ import annotations

import numpy as np

from schemas.script import VoiceSpec

# One consistent assistant persona family, and a wider pool for users and bystanders.
ASSISTANT_VOICES: tuple[VoiceSpec, ...] = (
    VoiceSpec(name="en-us+f3", rate=175, pitch=55),
    VoiceSpec(name="en-us+f2", rate=170, pitch=60),
    VoiceSpec(name="en-gb+f4", rate=165, pitch=50),
)
PEOPLE_VOICES: tuple[VoiceSpec, ...] = (
    VoiceSpec(name="en-us", rate=165, pitch=45),
    VoiceSpec(name="en-us+m3", rate=180, pitch=40),
    VoiceSpec(name="en-gb", rate=160, pitch=50),
    VoiceSpec(name="en-gb+m2", rate=175, pitch=35),
    VoiceSpec(name="en-us+f4", rate=185, pitch=65),
    VoiceSpec(name="en-gb+f3", rate=170, pitch=70),
    VoiceSpec(name="en+m4", rate=155, pitch=45),
    VoiceSpec(name="en+f5", rate=175, pitch=55),
)


def draw_voice(rng: np.random.Generator, pool: tuple[VoiceSpec, ...], exclude: tuple[VoiceSpec, ...] = ()) -> VoiceSpec:
    """A voice from `pool` with a small per-trajectory prosody jitter, avoiding `exclude` names."""
    names = {v.name for v in exclude}
    choices = [v for v in pool if v.name not in names] or list(pool)
    base = choices[int(rng.integers(len(choices)))]
    return base.model_copy(update={
        "rate": int(np.clip(base.rate + rng.integers(-15, 16), 120, 230)),
        "pitch": int(np.clip(base.pitch + rng.integers(-8, 9), 0, 99)),
    })
