"""The stored trajectory (DESIGN §3): events, words, units and the row. Field names are contract.

Field types carry their Arrow storage type where it is not the default (`Float32`, `Int32`,
`Int16`), so `schemas.arrow` derives the Parquet schema from these models alone.
"""
from __future__ import annotations

import math
import re
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from schemas.attrs import ATTRS_MODEL, EventAttrs, check_attrs, dump_attrs, parse_attrs
from schemas.thresholds import MAX_UNIT_S, MIN_UNIT_S, SUPPORTED_SAMPLE_RATES
from schemas.vocab import SCENARIOS, Decision, EventKind, Label, Role

__all__ = [
    "ATTRS_MODEL", "EVENT_KINDS", "LABELS", "AudioBlob", "Decision", "Event", "EventAttrs", "EventKind",
    "FailedRecord", "InputEvent", "Label", "Role", "TrajectoryRow", "Unit", "Word", "ArrowType", "Float32",
    "Int16", "Int32", "attrs_of", "make_event", "row_field_problem", "safe_name", "no_markup",
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


# An id or name that may become part of a file name or a URL: no '/', no '..', no leading '.' or '-'.
SAFE_NAME_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9._~+-]{0,199}")
# Markup in text a row says or reads: an HTML/XML tag or a protocol token ('<script>', '</b>', '<|speak|>',
# '<unit>'). A bare comparison ('3 < 5') is not markup.
MARKUP_RE = re.compile(r"<\s*[/!?|]?\s*[A-Za-z|]")
# How far a word or event may run past the row's duration_s (float32 storage and rounding).
TIME_SLACK_S = 1e-3


def safe_name(v: str, what: str) -> str:
    """`v` if it is a safe name (SAFE_NAME_RE, and no '..'), else ValueError naming `what`."""
    if not SAFE_NAME_RE.fullmatch(v) or ".." in v:
        raise ValueError(f"{what} {v[:60]!r} is not a safe name (letters, digits, . _ ~ + -; no '/', no '..')")
    return v


def no_markup(v: str, what: str) -> str:
    """`v` if it holds no markup tag or protocol token, else ValueError naming `what`."""
    m = MARKUP_RE.search(v)
    if m:
        raise ValueError(f"{what} holds markup {v[m.start():m.start() + 20]!r} (a tag or protocol token)")
    return v


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

    @field_validator("id")
    @classmethod
    def _safe_id(cls, v: str) -> str:
        return safe_name(v, "event id")

    @field_validator("text")
    @classmethod
    def _plain_text(cls, v: str) -> str:
        return no_markup(v, "event text")

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

    @field_validator("id")
    @classmethod
    def _safe_id(cls, v: str) -> str:
        return safe_name(v, "id")

    @model_validator(mode="after")
    def _fields_in_range(self) -> "TrajectoryRow":
        why = row_field_problem(self)
        if why:
            raise ValueError(why)
        return self


def _get(x: Any, key: str) -> Any:
    return x.get(key) if isinstance(x, dict) else getattr(x, key, None)


def row_field_problem(row: Any) -> str | None:
    """Why a row (a TrajectoryRow or its pyarrow dict) cannot be used, or None: an unknown scenario, an
    unsafe id, a unit clock or rate the generator cannot make, a word or event outside the audio (a 1e9 s
    word would reach a trainer). The model validates with it; readers that skip the model call it."""
    try:
        rid, scenario = _get(row, "id"), _get(row, "scenario")
        if not isinstance(rid, str):
            return f"id {rid!r} is not a string"
        safe_name(rid, "id")
        if scenario not in SCENARIOS:
            return f"scenario {str(scenario)[:40]!r} is not a scenario family (known: {', '.join(SCENARIOS)})"
        unit_s, sr, duration = float(_get(row, "unit_s")), _get(row, "sample_rate"), float(_get(row, "duration_s"))
        if not (math.isfinite(unit_s) and MIN_UNIT_S - 1e-6 <= unit_s <= MAX_UNIT_S + 1e-6):
            return f"unit_s {unit_s} is outside [{MIN_UNIT_S}, {MAX_UNIT_S}] s"
        if sr not in SUPPORTED_SAMPLE_RATES:
            return f"sample_rate {sr} Hz is not supported; supported: {list(SUPPORTED_SAMPLE_RATES)}"
        if not (math.isfinite(duration) and duration > 0):
            return f"duration_s {duration} is not a positive number of seconds"
        end = duration + TIME_SLACK_S
        for what, items in (("word", _get(row, "words") or []), ("event", _get(row, "events") or [])):
            for i, x in enumerate(items):
                a, b = float(_get(x, "start_s")), float(_get(x, "end_s"))
                if not (math.isfinite(a) and math.isfinite(b) and 0 <= a <= b <= end):
                    name = _get(x, "id") if what == "event" else _get(x, "word")
                    return f"{what} {i} ({str(name)[:30]}) spans {a}-{b} s, outside the row's 0-{duration} s"
                if what == "event":
                    safe_name(str(_get(x, "id")), f"event {i} id")
                    no_markup(str(_get(x, "text") or ""), f"event {i} text")
    except (TypeError, ValueError) as err:
        return str(err).splitlines()[0] if str(err) else type(err).__name__
    return None


class FailedRecord(_M):
    """A trajectory that could not be rendered: kept, explicit, never silently dropped."""

    id: str
    seed: int
    scenario: str
    shard: Int32
    index: Int32
    error: str
    traceback: str
