"""Render a base row's contrastive twin (generators/twins.py plans it) and name the pair in both metas.

Jobs code because it needs both the planner side (the twin script) and the pipeline side (the base
row's rendered interruption onset, the TTS word timings of the turn it falls in).
"""
from __future__ import annotations

import json
import traceback
from typing import Any

from generators.twins import Moment, TwinDraw, derive, draw_twin, interrupted_turn, needs_moment
from pipeline import mixer
from pipeline.render import render_trajectory
from schemas.config import RunConfig
from schemas.language import language
from schemas.replace import replace
from schemas.script import Script
from schemas.trajectory import FailedRecord, TrajectoryRow
from schemas.twins import TWIN_META_KEY, TwinKind, TwinMeta, TwinSide, differing_overlaps, twin_id
from schemas.vocab import EventKind
from schemas.windows import to_samples


def moment_of(cfg: RunConfig, row: TrajectoryRow, script: Script, tts: Any) -> Moment:
    """Where the base row's interruption started, in samples from its turn's start, and where that
    turn's first phrase-boundary word ends (the TTS timing composition placed it with)."""
    cut = script.turns[interrupted_turn(script)]
    sr = cfg.sample_rate
    by_id = {e.id: e for e in row.events}
    onset = next(e for e in row.events if e.kind == EventKind.INTERRUPTION)   # the one a twin-able script has
    start = to_samples(by_id[cut.id].start_s, sr)
    bounds = language(script.language).phrase_boundaries(cut.text)
    if not bounds:
        raise ValueError(f"turn {cut.id} has no phrase boundary to place a twin's overlay against")
    words = mixer.cached_speaker(tts, sr)(cut.text, cut.voice).words
    return Moment(onset=to_samples(onset.start_s, sr) - start, boundary_end=to_samples(words[bounds[0]].end_s, sr),
                  sample_rate=sr)


def with_pair(row: TrajectoryRow, record: TwinMeta) -> TrajectoryRow:
    """`row` with its pair record in meta (every other meta byte as it was)."""
    meta = json.loads(row.meta)
    meta[TWIN_META_KEY] = record.model_dump(mode="json")
    return replace(row, meta=json.dumps(meta, sort_keys=True))


def render_twin(cfg: RunConfig, base: TrajectoryRow, script: Script, draw: TwinDraw, tts: Any,
                tokenizer: Any = None, source: dict[str, Any] | None = None) -> tuple[TrajectoryRow, TrajectoryRow]:
    """(base row naming its twin, twin row naming its base). Raises ValueError when the rendered pair
    does not differ in exactly the one overlap planned."""
    moment = moment_of(cfg, base, script, tts) if needs_moment(draw.kind) else None
    twin = render_trajectory(cfg=cfg, traj_id=twin_id(base.id), script=derive(script, draw, moment), tts=tts,
                             tokenizer=tokenizer, source=source)
    gone, new = differing_overlaps(base.events, twin.events)
    want_new = 0 if draw.kind == TwinKind.CLEAN else 1
    if len(gone) != 1 or len(new) != want_new:
        raise ValueError(f"{draw.kind} twin of {base.id} differs in {len(gone)} base and {len(new)} twin overlap "
                         f"event(s), not 1 and {want_new}")
    diverge = min(e.start_s for e in gone + new)
    shared = dict(kind=draw.kind, event=gone[0].id, twin_event=new[0].id if new else None, diverge_s=diverge)
    return (with_pair(base, TwinMeta(partner=twin.id, side=TwinSide.BASE, **shared)),
            with_pair(twin, TwinMeta(partner=base.id, side=TwinSide.TWIN, **shared)))


def rows_with_twin(cfg: RunConfig, base: TrajectoryRow, script: Script, tts: Any, tokenizer: Any,
                   source: dict[str, Any] | None, shard: int, index: int
                   ) -> tuple[list[TrajectoryRow], FailedRecord | None, bool]:
    """What one rendered trajectory adds to its shard: its rows (with its twin when it draws one), a
    failed record for a twin that could not be made (the base row is kept, naming no partner), and
    whether a twin was attempted (it counts beyond the shard's planned trajectories)."""
    draw = draw_twin(cfg.twins, script.scenario, script.seed)
    if draw is None:
        return [base], None, False
    try:
        return list(render_twin(cfg, base, script, draw, tts, tokenizer, source)), None, True
    except Exception as err:  # noqa: BLE001 - a twin that fails is recorded, its base kept
        return [base], FailedRecord(id=twin_id(base.id), seed=script.seed, scenario=script.scenario, shard=shard,
                                    index=index, error=f"{type(err).__name__}: {err}",
                                    traceback=traceback.format_exc()), True
