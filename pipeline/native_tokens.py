"""Native speech tokens: the assistant channel's S3 tokens where an engine generated its own.

CosyVoice's LLM generates the S3 tokens its flow and HiFT then turn into the audio; those tokens,
not a re-tokenisation of the audio, are what a row's assistant speech tokens should be (DESIGN §6
"Voices"). The channel is first tokenized as always (silence, other engines' voices); then each
assistant track whose Synthesis carries ``speech_tokens`` has them written over the channel's
tokens where they sound: native token j, heard from ``offset + tokens_start_s + j/25`` s, goes to
the channel token nearest that time (at most half a token, 20 ms, off the 25 Hz grid), and only
while the track sounds (the trimmed edges and everything after an interruption's cut are not
placed). Pure: the same tracks and synthesis give the same tokens.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from schemas.protocol import NATIVE_TOKENS, RETOKENIZED, SPEECH_TOKENS_PER_SECOND
from schemas.timeline import Cut, SpeechSource, Stem, Track

__all__ = ["overlay_native"]


def overlay_native(tokens: np.ndarray, tracks: Sequence[Track], speak: Any, sample_rate: int
                   ) -> tuple[np.ndarray, dict[str, str]]:
    """(channel tokens with native ones written in, {assistant voice name: native | retokenized}).

    `speak(text, voice)` gives each track's Synthesis (the composer's cached speaker: no engine
    call is repeated)."""
    out = np.array(tokens, copy=True)
    rate = SPEECH_TOKENS_PER_SECOND
    sources: dict[str, str] = {}
    for t in tracks:
        if t.stem != Stem.ASSISTANT or not isinstance(t.source, SpeechSource):
            continue
        syn = speak(t.source.text, t.source.voice)
        native = getattr(syn, "speech_tokens", None)
        name = t.source.voice.name
        if native is None:
            sources.setdefault(name, RETOKENIZED)
            continue
        sources[name] = NATIVE_TOKENS
        sounding = len(syn.audio)
        for op in t.ops:
            if isinstance(op, Cut):
                sounding = min(sounding, op.at)
        lo, hi = t.offset / sample_rate, (t.offset + sounding) / sample_rate
        t0 = lo + float(syn.tokens_start_s)
        first = int(np.floor(t0 * rate + 0.5))   # the channel token nearest native token 0 (half up)
        for j, tok in enumerate(np.asarray(native)):
            mid = t0 + (j + 0.5) / rate
            if mid < lo:
                continue
            if mid >= hi:
                break
            if 0 <= first + j < len(out):
                out[first + j] = tok
    return out, sources
