"""Speech realization: the TTS backend interface and its implementations.

``base`` defines the interface (:class:`WordTiming`, :class:`Synthesis`, :class:`TTSBackend`);
``espeak`` is the fast CPU backend used by default. A backend speaks with the script's
``schemas.script.VoiceSpec``.
"""

from typing import Any

from .base import CachedTTS, Synthesis, TTSBackend, WordTiming
from .espeak import DEFAULT_VOICES, EspeakBackend, list_voices


def tts_from_identity(identity: dict[str, Any] | None) -> TTSBackend | None:
    """The backend a row's meta["tts"] names, rebuilt to re-render its speech (None if unknown here)."""
    if identity and identity.get("backend") == "espeak-ng":
        return EspeakBackend(target_rms_dbfs=identity.get("target_rms_dbfs", -20.0),
                             peak_limit=identity.get("peak_limit", 0.9))
    return None


__all__ = [
    "CachedTTS",
    "DEFAULT_VOICES",
    "EspeakBackend",
    "Synthesis",
    "TTSBackend",
    "WordTiming",
    "list_voices",
    "tts_from_identity",
]
