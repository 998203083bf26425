"""Contrastive twins (DESIGN §7, §2 rule 4): two rows of one session that differ in exactly one overlap.

A base row is planned and rendered as always; its twin is the same script with one overlap event
replaced (an interruption said as a backchannel or to someone else, at the same moment) or left
out (the clean twin). Every draw before that event is shared by construction, so the two rows'
outputs must agree up to the unit that first hears the difference, and everywhere when the pair
differs only by speech that must not change the output (backchannel, other-directed, background).

Each row of a pair names its partner and the differing event in `meta[TWIN_META_KEY]` (`TwinMeta`).
"""
from __future__ import annotations

import json
from enum import StrEnum

from pydantic import BaseModel, ConfigDict, Field

from schemas.trajectory import Event
from schemas.vocab import OVERLAY_KINDS, EventKind, Label

TWIN_META_KEY = "twin"          # meta key of a twin pair's record
TWIN_ID_SUFFIX = "-twin"        # the twin row's id is the base row's id plus this
TWIN_STREAM = 0x7477696E        # the seed stream [seed, TWIN_STREAM] of every twin draw (selection, kind, text)

# Overlap events a twin may differ in: the floor-taking interruption and the rule-4 overlays.
OVERLAP_KINDS: tuple[EventKind, ...] = (EventKind.INTERRUPTION, *OVERLAY_KINDS)

# Labels of what the model does (its output side); the others describe what it hears. A pair that
# differs only by a rule-4 overlay hears different input, so only these must agree everywhere.
OUTPUT_LABELS: frozenset[Label] = frozenset({
    Label.STOP_DISCARD, Label.STOP_REPAIR, Label.STOP_PARK, Label.RESPOND, Label.RELAY, Label.PROACTIVE,
    Label.DELEGATE, Label.TURN_EOS})


class TwinKind(StrEnum):
    """How the twin differs from its base (config `twins.kinds`)."""

    AS_BACKCHANNEL = "as_backchannel"        # the base's interruption is a backchannel at the same moment
    AS_OTHER_DIRECTED = "as_other_directed"  # a line said to someone else (not the cut-in's words), same moment
    CLEAN = "clean"                          # the base's overlap (interruption or one overlay) is left out


class TwinSide(StrEnum):
    BASE = "base"   # the row planned as always (its bytes are those of a run without twins, but for meta)
    TWIN = "twin"   # the row derived from it


class TwinMeta(BaseModel):
    """`meta[TWIN_META_KEY]` of each row of a pair. `event` names the differing event in the base row,
    `twin_event` its replacement in the twin row (None for a clean twin); `diverge_s` is the earlier
    onset of the two, the first moment the rows' inputs differ."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    partner: str
    kind: TwinKind
    side: TwinSide
    event: str
    twin_event: str | None = None
    diverge_s: float = Field(ge=0)


def twin_id(base_id: str) -> str:
    """The twin row's id: derived from its base's, so it is as deterministic."""
    return f"{base_id}{TWIN_ID_SUFFIX}"


def twin_meta(meta: str) -> TwinMeta | None:
    """The pair record of a row's meta JSON string (None: not a twin row). Raises ValueError if malformed."""
    record = json.loads(meta).get(TWIN_META_KEY)
    return None if record is None else TwinMeta.model_validate(record)


def overlap_signature(e: Event) -> tuple[str, float, str]:
    """What makes two overlap events the same one on both rows: kind, onset and words (ids may differ,
    since overlays are numbered in order of placement)."""
    return (str(e.kind), round(e.start_s, 6), e.text)


def differing_overlaps(base: list[Event], twin: list[Event]) -> tuple[list[Event], list[Event]]:
    """The overlap events of each row that the other row does not have (by `overlap_signature`)."""
    b = [e for e in base if e.kind in OVERLAP_KINDS]
    t = [e for e in twin if e.kind in OVERLAP_KINDS]
    bs, ts = {overlap_signature(e) for e in b}, {overlap_signature(e) for e in t}
    return [e for e in b if overlap_signature(e) not in ts], [e for e in t if overlap_signature(e) not in bs]
