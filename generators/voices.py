"""Voice pools per language, and the draws of a trajectory's cast. Draws come from the trajectory's RNG.

The voices themselves are data in the voice bank (generators/voice_bank.yaml, generators/voice_bank.py);
the default pools are its voices with a `default_role`, and a run's `voices` config
(schemas/config.py VoicesConfig) can fix the assistant's voice and weight the people's.

Each language has one consistent assistant persona family and a wider pool for users and
bystanders, with no voice name in both, so the assistant never sounds like the person it talks
to. The espeak-ng voice decides how the backend tokenises text (pipeline/tts/espeak.py: `cmn`
gives jieba words), so a script's voices must come from the pools of its own language.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from generators import voice_bank as vb
from schemas.config import SUPPORTED_LANGUAGES, VoicesConfig
from schemas.script import VoiceSpec


@dataclass(frozen=True)
class VoicePools:
    """The voices of one language: who may be the assistant, who may be a person."""

    assistant: tuple[VoiceSpec, ...]
    people: tuple[VoiceSpec, ...]


def _specs(code: str, role: vb.Role) -> tuple[VoiceSpec, ...]:
    return tuple(VoiceSpec(name=v.id, rate=v.rate, pitch=v.pitch) for v in vb.default_pool(code, role))


# The default pools of each language: the voice bank's voices with that `default_role`, in bank order.
VOICE_POOLS: dict[str, VoicePools] = {
    code: VoicePools(assistant=_specs(code, "assistant"), people=_specs(code, "people")) for code in SUPPORTED_LANGUAGES
}
ASSISTANT_VOICES, PEOPLE_VOICES = VOICE_POOLS["en"].assistant, VOICE_POOLS["en"].people
ASSISTANT_VOICES_ZH, PEOPLE_VOICES_ZH = VOICE_POOLS["zh"].assistant, VOICE_POOLS["zh"].people


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


def draw_weighted(rng: np.random.Generator, weights: dict[VoiceSpec, float], exclude: tuple[VoiceSpec, ...] = ()) -> VoiceSpec:
    """A voice by weight with the same prosody jitter as `draw_voice`, avoiding `exclude` names."""
    names = {v.name for v in exclude}
    choices = [v for v in weights if v.name not in names] or list(weights)
    w = np.array([weights[v] for v in choices], dtype=np.float64)
    base = choices[int(rng.choice(len(choices), p=w / w.sum()))]
    return base.model_copy(update={
        "rate": int(np.clip(base.rate + rng.integers(-15, 16), 120, 230)),
        "pitch": int(np.clip(base.pitch + rng.integers(-8, 9), 0, 99)),
    })


def draw_cast(rng: np.random.Generator, code: str, cfg: VoicesConfig | None = None) -> tuple[VoiceSpec, ...]:
    """(assistant, user, other, background) of one trajectory in language `code`.

    With the default config these are exactly the draws made before the voice bank (same RNG
    calls, same bytes). A configured assistant voice is the dataset's one voice, unjittered; named
    people voices of this language are drawn by weight, each person a different voice while there
    are enough.
    """
    cfg = cfg or VoicesConfig()
    pools = pools_for(code)   # the voice decides how the TTS tokenises the text
    known = vb.by_id(cfg) if cfg != VoicesConfig() else {}
    fixed = known.get(cfg.assistant) if cfg.assistant else None
    if fixed is not None and fixed.language == code:
        asst = VoiceSpec(name=fixed.id, rate=fixed.rate, pitch=fixed.pitch)
    else:
        asst = draw_voice(rng, pools.assistant)
    named = {VoiceSpec(name=v.id, rate=v.rate, pitch=v.pitch): float(w) for i, w in (cfg.people or {}).items()
             if w > 0 and (v := known.get(i)) is not None and v.language == code}
    if not named:
        user = draw_voice(rng, pools.people, exclude=(asst,))
        other = draw_voice(rng, pools.people, exclude=(asst, user))
        bg = draw_voice(rng, pools.people, exclude=(asst, user, other))
    else:
        user = draw_weighted(rng, named, exclude=(asst,))
        other = draw_weighted(rng, named, exclude=(asst, user))
        bg = draw_weighted(rng, named, exclude=(asst, user, other))
    return asst, user, other, bg
