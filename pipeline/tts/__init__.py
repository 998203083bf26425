"""Speech realization: the TTS backend interface and its implementations.

``base`` defines the interface (:class:`WordTiming`, :class:`Synthesis`, :class:`TTSBackend`);
``espeak`` is the fast CPU backend used by default; ``piper`` speaks Piper neural voices,
``flite`` the CMU clustergen voices and ``rhvoice`` RHVoice's LGPL English voices, each from a
worker process of its own (``worker``). A backend speaks with the script's ``schemas.script.VoiceSpec``; a run whose voices
span engines gets a :class:`VoiceRouter`, which hands each voice to the engine its name says
(generators/voice_bank.py ``engine_of``).
"""

from pathlib import Path
from typing import Any

from generators.voice_bank import ESPEAK, FLITE, PIPER, RHVOICE, engine_of, engines_used
from schemas.config import VoicesConfig
from schemas.script import VoiceSpec

from .base import CachedTTS, Synthesis, TTSBackend, WordTiming
from .espeak import DEFAULT_VOICES, EspeakBackend, list_voices


class VoiceRouter:
    """A ``TTSBackend`` over several engines: each voice goes to the engine its name names."""

    name = "voice-router"

    def __init__(self, engines: dict[str, TTSBackend]) -> None:
        self.engines = dict(engines)

    def synthesize(self, text: str, voice: VoiceSpec, sample_rate: int) -> Synthesis:
        engine = engine_of(voice.name)
        if engine not in self.engines:
            raise ValueError(f"voice {voice.name!r} needs engine {engine!r}, not loaded here "
                             f"(engines: {', '.join(self.engines)})")
        return self.engines[engine].synthesize(text, voice, sample_rate)

    def identity(self) -> dict[str, Any]:
        return {"backend": self.name, "engines": {k: e.identity() for k, e in sorted(self.engines.items())}}

    def close(self) -> None:
        """End the engines' worker processes (those that have any); the next call starts new ones."""
        for engine in self.engines.values():
            close = getattr(engine, "close", None)
            if close is not None:
                close()


def tts_for_voices(cfg: VoicesConfig) -> TTSBackend:
    """The backend a run's voices need: espeak-ng alone (as always) unless they name other engines."""
    used = engines_used(cfg)
    if used == {ESPEAK}:
        return EspeakBackend()
    from .piper import PiperBackend

    engines: dict[str, TTSBackend] = {ESPEAK: EspeakBackend()}
    if PIPER in used:
        engines[PIPER] = PiperBackend(voice_dirs=[Path(d) for d in cfg.piper_dirs])
    if FLITE in used:
        from .flite import FliteBackend

        engines[FLITE] = FliteBackend()
    if RHVOICE in used:
        from .rhvoice import RHVoiceBackend

        engines[RHVOICE] = RHVoiceBackend()
    return VoiceRouter(engines)


def tts_from_identity(identity: dict[str, Any] | None) -> TTSBackend | None:
    """The backend a row's meta["tts"] names, rebuilt to re-render its speech (None if unknown here)."""
    if not identity:
        return None
    if identity.get("backend") == "espeak-ng":
        return EspeakBackend(target_rms_dbfs=identity.get("target_rms_dbfs", -20.0),
                             peak_limit=identity.get("peak_limit", 0.9))
    if identity.get("backend") == PIPER:
        from .piper import PiperBackend

        keys = ("voice_dirs", "target_rms_dbfs", "peak_limit", "noise_scale", "noise_w", "sentence_pause_s",
                "paragraph_pause_s")
        return PiperBackend(**{k: identity[k] for k in keys if k in identity})
    if identity.get("backend") == FLITE:
        from .flite import FliteBackend

        return FliteBackend(**{k: identity[k] for k in ("target_rms_dbfs", "peak_limit") if k in identity})
    if identity.get("backend") == RHVOICE:
        from .rhvoice import RHVoiceBackend

        return RHVoiceBackend(**{k: identity[k] for k in ("target_rms_dbfs", "peak_limit") if k in identity})
    if identity.get("backend") == VoiceRouter.name:
        engines = {k: tts_from_identity(v) for k, v in (identity.get("engines") or {}).items()}
        if any(e is None for e in engines.values()):
            return None
        return VoiceRouter({k: e for k, e in engines.items() if e is not None})
    return None


__all__ = [
    "CachedTTS",
    "DEFAULT_VOICES",
    "EspeakBackend",
    "Synthesis",
    "TTSBackend",
    "VoiceRouter",
    "WordTiming",
    "list_voices",
    "tts_for_voices",
    "tts_from_identity",
]
