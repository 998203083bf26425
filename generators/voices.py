"""Voice pools for the espeak-ng backend, per language. Draws come from the trajectory's RNG.

Each language has one consistent assistant persona family and a wider pool for users and
bystanders, with no voice name in both, so the assistant never sounds like the person it talks
to. The espeak-ng voice decides how the backend tokenises text (pipeline/tts/espeak.py: `cmn`
gives jieba words), so a script's voices must come from the pools of its own language.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from schemas.script import VoiceSpec


@dataclass(frozen=True)
class VoicePools:
    """The voices of one language: who may be the assistant, who may be a person."""

    assistant: tuple[VoiceSpec, ...]
    people: tuple[VoiceSpec, ...]


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

# Mandarin: espeak-ng's `cmn` voice with variants. espeak counts a Chinese character as a word for
# its rate, so these rates are about 3-4 syllables a second, an everyday speaking pace.
ASSISTANT_VOICES_ZH: tuple[VoiceSpec, ...] = (
    VoiceSpec(name="cmn+f3", rate=175, pitch=55),
    VoiceSpec(name="cmn+f2", rate=170, pitch=60),
    VoiceSpec(name="cmn+f4", rate=165, pitch=50),
)
PEOPLE_VOICES_ZH: tuple[VoiceSpec, ...] = (
    VoiceSpec(name="cmn", rate=165, pitch=45),
    VoiceSpec(name="cmn+m3", rate=180, pitch=40),
    VoiceSpec(name="cmn+m1", rate=160, pitch=50),
    VoiceSpec(name="cmn+m2", rate=175, pitch=35),
    VoiceSpec(name="cmn+f1", rate=185, pitch=65),
    VoiceSpec(name="cmn+f5", rate=170, pitch=70),
    VoiceSpec(name="cmn+m4", rate=155, pitch=45),
    VoiceSpec(name="cmn+m7", rate=175, pitch=55),
)

VOICE_POOLS: dict[str, VoicePools] = {
    "en": VoicePools(assistant=ASSISTANT_VOICES, people=PEOPLE_VOICES),
    "zh": VoicePools(assistant=ASSISTANT_VOICES_ZH, people=PEOPLE_VOICES_ZH),
}


def pools_for(code: str) -> VoicePools:
    """The voice pools of a language code (schemas/language.py); unknown codes are refused by name."""
    try:
        return VOICE_POOLS[code]
    except KeyError:
        raise ValueError(f"no voices for language {code!r} (voices exist for: {', '.join(VOICE_POOLS)})") from None


def draw_voice(rng: np.random.Generator, pool: tuple[VoiceSpec, ...], exclude: tuple[VoiceSpec, ...] = ()) -> VoiceSpec:
    """A voice from `pool` with a small per-trajectory prosody jitter, avoiding `exclude` names."""
    names = {v.name for v in exclude}
    choices = [v for v in pool if v.name not in names] or list(pool)
    base = choices[int(rng.integers(len(choices)))]
    return base.model_copy(update={
        "rate": int(np.clip(base.rate + rng.integers(-15, 16), 120, 230)),
        "pitch": int(np.clip(base.pitch + rng.integers(-8, 9), 0, 99)),
    })
