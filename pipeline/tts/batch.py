"""Lines rendered ahead in batches: several trajectories' lines in one engine call.

A model behind an actor (CosyVoice) pays a round trip per call and decodes a call's lines over
all its actors at once, so a shard task gathers the lines its trajectories will speak
(pipeline.compose.known_lines), renders those of engines with ``synthesize_many`` in calls of
``batch_size`` lines, and composes with a :class:`Prefetched` backend that answers from them.
Each line is requested exactly as a single ``synthesize`` would request it (same request, same
seed, same shaping), so the rows are the same bytes whatever the batch size; a line not rendered
ahead (a continuation, whose text depends on the cut) goes to the engine alone, as before.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from generators.voice_bank import engine_of
from schemas.script import VoiceSpec

from .base import Synthesis

__all__ = ["Prefetched", "batch_engine", "prefetch"]

Line = tuple[str, VoiceSpec]


def batch_engine(tts: Any, voice: VoiceSpec) -> Any | None:
    """The engine that speaks ``voice`` when it renders lines in batches (``synthesize_many``), else None."""
    engines = getattr(tts, "engines", None)
    engine = engines.get(engine_of(voice.name)) if isinstance(engines, dict) else tts
    return engine if callable(getattr(engine, "synthesize_many", None)) else None


def prefetch(tts: Any, lines: Iterable[Line], sample_rate: int, batch_size: int) -> dict[Line, Synthesis]:
    """Every distinct line a batching engine speaks, rendered in calls of ``batch_size`` lines. A
    call that fails (a line the engine cannot speak) leaves its lines out: each is then asked alone
    by its own trajectory, which records the error as it always has, and the others go on."""
    by_engine: dict[int, tuple[Any, list[Line]]] = {}
    seen: set[Line] = set()
    for line in lines:
        engine = batch_engine(tts, line[1])
        if engine is None or line in seen:
            continue
        seen.add(line)
        by_engine.setdefault(id(engine), (engine, []))[1].append(line)
    out: dict[Line, Synthesis] = {}
    for engine, todo in by_engine.values():
        for i in range(0, len(todo), batch_size):
            chunk = todo[i:i + batch_size]
            try:
                made = engine.synthesize_many(chunk, sample_rate)
            except Exception:  # noqa: BLE001 - each line is asked again alone, where its trajectory records the error
                continue
            for line, (syn, _native) in zip(chunk, made):
                out[line] = syn
    return out


class Prefetched:
    """A backend answering the lines rendered ahead at their rate, and passing every other to ``tts``."""

    def __init__(self, tts: Any, ready: dict[Line, Synthesis], sample_rate: int) -> None:
        self.tts, self.ready, self.sample_rate = tts, ready, sample_rate
        self.name = getattr(tts, "name", "?")

    def synthesize(self, text: str, voice: VoiceSpec, sample_rate: int) -> Synthesis:
        syn = self.ready.get((text, voice)) if sample_rate == self.sample_rate else None
        return syn if syn is not None else self.tts.synthesize(text, voice, sample_rate)

    def identity(self) -> dict[str, Any]:
        return self.tts.identity()
