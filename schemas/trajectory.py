"""The stored trajectory (DESIGN §3): events, words, units and the row. Field names are contract.

Field types carry their Arrow storage type where it is not the default (`Float32`, `Int32`,
`Int16`), so `schemas.arrow` derives the Parquet schema from these models alone.
"""
from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, model_validator

from schemas.attrs import ATTRS_MODEL, EventAttrs, check_attrs, dump_attrs, parse_attrs
from schemas.vocab import Decision, EventKind, Label, Role

__all__ = [
    "ATTRS_MODEL", "EVENT_KINDS", "LABELS", "AudioBlob", "Decision", "Event", "EventAttrs", "EventKind",
    "FailedRecord", "InputEvent", "Label", "Role", "TrajectoryRow", "Unit", "Word", "ArrowType", "Float32",
    "Int16", "Int32", "attrs_of", "make_event",
]

EVENT_KINDS: tuple[str, ...] = tuple(k.value for k in EventKind)
LABELS: tuple[str, ...] = tuple(x.value for x in Label)


class ArrowType:
    """Annotation metadata: the Arrow type a field is stored as (a `pyarrow` type factory name)."""

    def __init__(self, name: str):
        self.name = name

    def __repr__(self) -> str:
        return f"ArrowType({self.name!r})"


Float32 = Annotated[float, ArrowType("float32")]
Int32 = Annotated[int, ArrowType("int32")]
Int16 = Annotated[int, ArrowType("int16")]


class _M(BaseModel):
    model_config = ConfigDict(extra="forbid", use_enum_values=True)


class Event(_M):
    id: str
    kind: EventKind
    role: Role
    start_s: float
    end_s: float
    text: str = ""
    attrs: str = "{}"   # JSON string, as stored; its keys are the kind's model in schemas.attrs

    @model_validator(mode="after")
    def _attrs_fit_kind(self) -> "Event":
        parse_attrs(self.kind, self.attrs)   # a wrong key or value for this kind fails here
        return self


def make_event(id: str, kind: EventKind, role: Role, start_s: float, end_s: float, text: str,
               attrs: EventAttrs) -> Event:
    """An event whose attrs are built through the kind's model (the one way writers make events)."""
    check_attrs(kind, attrs)
    return Event(id=id, kind=kind, role=role, start_s=start_s, end_s=end_s, text=text, attrs=dump_attrs(attrs))


def attrs_of(event: Any) -> EventAttrs:
    """The typed attrs of an `Event` (or of an event dict read back from Parquet)."""
    if isinstance(event, Event):
        return parse_attrs(event.kind, event.attrs)
    return parse_attrs(event["kind"], event.get("attrs"))


class Word(_M):
    role: Role
    word: str
    start_s: float
    end_s: float
    event_id: str


class InputEvent(_M):
    kind: EventKind
    task_id: str = ""
    text: str = ""


class Unit(_M):
    index: Int32
    user_text: str = ""
    input_events: list[InputEvent] = Field(default_factory=list)
    decision: Decision
    spoken_text: str = ""
    speech_tokens: list[Int16] = Field(default_factory=list)
    turn_eos: bool = False
    delegate: str | None = None
    task_id: str | None = None
    labels: list[Label] = Field(default_factory=list)


class AudioBlob(_M):
    """Hugging Face `Audio` storage layout: encoded file bytes plus an optional path."""

    bytes: bytes
    path: str | None = None


class TrajectoryRow(_M):
    id: str
    seed: int
    scenario: str
    language: str
    unit_s: Float32
    duration_s: Float32
    sample_rate: Int32
    user_audio: AudioBlob
    assistant_audio: AudioBlob
    events: list[Event]
    words: list[Word]
    units: list[Unit]
    frames: list[bytes] = Field(default_factory=list)
    script: str
    meta: str


class FailedRecord(_M):
    """A trajectory that could not be rendered: kept, explicit, never silently dropped."""

    id: str
    seed: int
    scenario: str
    shard: Int32
    index: Int32
    error: str
    traceback: str
