"""Speech realization: the TTS backend interface and its implementations.

``base`` defines the interface (:class:`WordTiming`, :class:`Synthesis`, :class:`TTSBackend`);
``espeak`` is the fast CPU backend used by default; ``piper`` speaks Piper neural voices,
``flite`` the CMU clustergen voices and ``rhvoice`` RHVoice's LGPL English voices, each from a
worker process of its own (``worker``); ``cosyvoice`` CosyVoice 2 zero-shot clones, whose model
runs in Ray actors that jobs/ starts (this package never imports Ray: the caller hands in a
``cosyvoice_client(model_dir) -> client`` factory). A backend speaks with the script's ``schemas.script.VoiceSpec``; a run whose voices
span engines gets a :class:`VoiceRouter`, which hands each voice to the engine its name says
(generators/voice_bank.py ``engine_of``).
"""

from collections.abc import Callable
from pathlib import Path
from typing import Any

from generators.voice_bank import COSYVOICE, ESPEAK, FLITE, PIPER, RHVOICE, engine_of, engines_used
from schemas.config import VoicesConfig
from schemas.script import VoiceSpec

from .base import CachedTTS, Synthesis, TTSBackend, WordTiming
from .cosyvoice import ALIGNER_DIR, CosyVoiceBackend
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


# model_dir -> the callable that speaks CosyVoice requests (jobs.cosyvoice_actor.shared_client)
CosyVoiceClients = Callable[[str], Any]


def _no_cosyvoice_client(model_dir: str) -> Any:
    raise ValueError(f"cosyvoice voices need the model's actors (jobs/ starts them for {model_dir}); none given here")


def tts_for_voices(cfg: VoicesConfig, cosyvoice_client: CosyVoiceClients | None = None) -> TTSBackend:
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
    if COSYVOICE in used and cfg.cosyvoice is not None:
        from .aligner import CtcAligner

        d = str(cfg.cosyvoice.model_dir)
        aligner = CtcAligner(cfg.aligner.model_dir) if cfg.aligner is not None else None
        engines[COSYVOICE] = CosyVoiceBackend((cosyvoice_client or _no_cosyvoice_client)(d), d, language=None,
                                              speed=cfg.cosyvoice.speed, instruct=cfg.cosyvoice.instruct,
                                              model=Path(d).name, model_dir=d, aligner=aligner)
    return VoiceRouter(engines)


def tts_from_identity(identity: dict[str, Any] | None,
                      cosyvoice_client: CosyVoiceClients | None = None) -> TTSBackend | None:
    """The backend a row's meta["tts"] names, rebuilt to re-render its speech (None if unknown here,
    or CosyVoice without a `cosyvoice_client` factory to reach its model with)."""
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
    if identity.get("backend") == CosyVoiceBackend.name:
        if cosyvoice_client is None or not identity.get("model_dir"):
            return None
        from .aligner import CtcAligner

        keys = ("language", "speed", "instruct", "model", "model_dir")
        aligner = CtcAligner(identity[ALIGNER_DIR]) if identity.get(ALIGNER_DIR) else None
        return CosyVoiceBackend(cosyvoice_client(identity["model_dir"]), identity["voice_bank"], aligner=aligner,
                                **{k: identity[k] for k in keys if k in identity})
    if identity.get("backend") == VoiceRouter.name:
        engines = {k: tts_from_identity(v, cosyvoice_client) for k, v in (identity.get("engines") or {}).items()}
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
