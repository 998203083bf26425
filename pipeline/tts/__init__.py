"""Speech realization: the TTS backend interface and its implementations.

``base`` defines the interface (:class:`WordTiming`, :class:`Synthesis`, :class:`TTSBackend`);
``espeak`` is the fast CPU backend used by default. A backend speaks with the script's
``schemas.script.VoiceSpec``.
"""

from .base import Synthesis, TTSBackend, WordTiming
from .espeak import DEFAULT_VOICES, EspeakBackend, list_voices

__all__ = [
    "DEFAULT_VOICES",
    "EspeakBackend",
    "Synthesis",
    "TTSBackend",
    "WordTiming",
    "list_voices",
]
