"""Speech realization: the TTS backend interface and its implementations.

``base`` defines the interface (:class:`Voice`, :class:`WordTiming`, :class:`Synthesis`,
:class:`TTSBackend`); ``espeak`` is the fast CPU backend used by default.
"""

from .base import Synthesis, TTSBackend, Voice, WordTiming
from .espeak import DEFAULT_VOICES, EspeakBackend, list_voices

__all__ = [
    "DEFAULT_VOICES",
    "EspeakBackend",
    "Synthesis",
    "TTSBackend",
    "Voice",
    "WordTiming",
    "list_voices",
]
