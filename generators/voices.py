"""Voice pools per language, and the draws of a trajectory's cast. Draws come from the trajectory's RNG.

The voices themselves are data in the voice bank (generators/voice_bank.yaml, generators/voice_bank.py),
and so are the casts that say who speaks: a run's `voices` config (schemas/config.py VoicesConfig)
names a cast (`natural` by default) and can fix the assistant's voice and weight the people's.

Each language has one consistent assistant persona and a wider pool for users and bystanders, and
a person never gets the assistant's voice, so the assistant never sounds like the person it talks
to. The voice decides how the backend tokenises text (pipeline/tts/espeak.py: `cmn` gives jieba
words), so a script's voices must come from its own language: the bank's casts are linted for it.
"""
from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np

from generators import voice_bank as vb
from schemas.config import ESPEAK_CAST, SUPPORTED_LANGUAGES, VoicesConfig
from schemas.replace import replace
from schemas.script import VoiceSpec


@dataclass(frozen=True)
class VoicePools:
    """The voices of one language: who may be the assistant, who may be a person."""

    assistant: tuple[VoiceSpec, ...]
    people: tuple[VoiceSpec, ...]


@functools.cache   # every trajectory's draw asks
def _spec(voice_id: str) -> VoiceSpec:
    v = vb.by_id()[voice_id]
    return VoiceSpec(name=v.id, rate=v.rate, pitch=v.pitch)


def _pools(code: str) -> VoicePools:
    lc = vb.cast_for(ESPEAK_CAST, code)
    assert isinstance(lc.assistant, list) and isinstance(lc.people, list), "the espeak cast draws from lists"
    return VoicePools(assistant=tuple(map(_spec, lc.assistant)), people=tuple(map(_spec, lc.people)))


# The espeak-ng formant pools of each language (the `espeak` cast): what babble talkers speak with
# (pipeline/noises.py), and what every run drew from before the natural default.
VOICE_POOLS: dict[str, VoicePools] = {code: _pools(code) for code in SUPPORTED_LANGUAGES}
ASSISTANT_VOICES, PEOPLE_VOICES = VOICE_POOLS["en"].assistant, VOICE_POOLS["en"].people
ASSISTANT_VOICES_ZH, PEOPLE_VOICES_ZH = VOICE_POOLS["zh"].assistant, VOICE_POOLS["zh"].people


def pools_for(code: str) -> VoicePools:
    """The espeak-ng pools of a language code (schemas/language.py); unknown codes are refused by name."""
    try:
        return VOICE_POOLS[code]
    except KeyError:
        raise ValueError(f"no voices for language {code!r} (voices exist for: {', '.join(VOICE_POOLS)})") from None


def _jitter(base: VoiceSpec, rng: np.random.Generator) -> VoiceSpec:
    return replace(base, rate=int(np.clip(base.rate + rng.integers(-15, 16), 120, 230)),
                   pitch=int(np.clip(base.pitch + rng.integers(-8, 9), 0, 99)))


def draw_voice(rng: np.random.Generator, pool: tuple[VoiceSpec, ...], exclude: tuple[VoiceSpec, ...] = ()) -> VoiceSpec:
    """A voice from `pool` with a small per-trajectory prosody jitter, avoiding `exclude` names."""
    names = {v.name for v in exclude}
    choices = [v for v in pool if v.name not in names] or list(pool)
    return _jitter(choices[int(rng.integers(len(choices)))], rng)


def draw_weighted(rng: np.random.Generator, weights: dict[VoiceSpec, float], exclude: tuple[VoiceSpec, ...] = ()) -> VoiceSpec:
    """A voice by weight with the same prosody jitter as `draw_voice`, avoiding `exclude` names."""
    names = {v.name for v in exclude}
    choices = [v for v in weights if v.name not in names] or list(weights)
    w = np.array([weights[v] for v in choices], dtype=np.float64)
    return _jitter(choices[int(rng.choice(len(choices), p=w / w.sum()))], rng)


def draw_cast(rng: np.random.Generator, code: str, cfg: VoicesConfig | None = None) -> tuple[VoiceSpec, ...]:
    """(assistant, user, other, background) of one trajectory in language `code`.

    The cast's (or the config's) assistant is the dataset's one voice, unjittered, where it names one;
    a list of assistant voices is drawn per trajectory. People are drawn uniformly from a list or by
    weight, each person a different voice while there are enough. The `espeak` cast makes exactly the
    draws made before the voice bank (same RNG calls, same bytes).
    """
    cfg = cfg or VoicesConfig()
    lc = vb.cast_for(cfg.cast, code)   # the bank's casts hold only voices of `code`
    known = vb.by_id(cfg) if cfg.assistant or cfg.people else {}
    fixed = known.get(cfg.assistant) if cfg.assistant else None
    if fixed is not None and fixed.language == code:
        asst = VoiceSpec(name=fixed.id, rate=fixed.rate, pitch=fixed.pitch)
    elif isinstance(lc.assistant, str):
        asst = _spec(lc.assistant)
    else:
        asst = draw_voice(rng, tuple(map(_spec, lc.assistant)))
    named = {VoiceSpec(name=v.id, rate=v.rate, pitch=v.pitch): float(w) for i, w in (cfg.people or {}).items()
             if w > 0 and (v := known.get(i)) is not None and v.language == code}
    if not named and isinstance(lc.people, list):
        pool = tuple(map(_spec, lc.people))
        user = draw_voice(rng, pool, exclude=(asst,))
        other = draw_voice(rng, pool, exclude=(asst, user))
        bg = draw_voice(rng, pool, exclude=(asst, user, other))
        return asst, user, other, bg
    weights = named or {_spec(i): float(w) for i, w in lc.people.items()}   # type: ignore[union-attr]
    user = draw_weighted(rng, weights, exclude=(asst,))
    other = draw_weighted(rng, weights, exclude=(asst, user))
    bg = draw_weighted(rng, weights, exclude=(asst, user, other))
    return asst, user, other, bg
