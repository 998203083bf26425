"""Typed `attrs` of every event kind (DESIGN §3): one pydantic model per kind, keyed on the kind.

The row stores `attrs` as a JSON string; these models are its schema. Writers build attrs through
the kind's model (`extra="forbid"`, so a wrong key or value fails when the object is built) and
serialise with `dump_attrs`; readers parse through `parse_attrs` (or `schemas.trajectory.attrs_of`).

A field with a default is written only when the writer set it (`model_fields_set`), so an
absent key stays absent: `dump_attrs(parse_attrs(kind, s)) == s` for every stored string.
"""
from __future__ import annotations

import json
from typing import Any, Literal, Union

from pydantic import BaseModel, ConfigDict, model_validator

from schemas.scene import VisualChange
from schemas.script import VoiceSpec
from schemas.vocab import EventKind, InterruptAction, TaskOutcome, TaskStatus, Trigger


class _Attrs(BaseModel):
    model_config = ConfigDict(extra="forbid", validate_assignment=True, use_enum_values=True)


class UserTurnAttrs(_Attrs):
    eot_s: float          # silence the model needs to hear before it knows the turn ended (rule 2)
    voice: VoiceSpec


class PauseAttrs(_Attrs):
    turn: str             # the user turn the hesitation is inside
    filler: str           # "" or the filler voiced before the silence


class TruncatedWord(_Attrs):
    """A voiced word still sounding at a cut (DESIGN §2 rule 8): its stored end_s is clipped to the cut."""

    index: int               # among the turn's words (the voiced ones are a prefix of the planned ones)
    planned_end_s: float     # where it would have ended uncut (rule 8's half-audible test for rule 7)


class AssistantTurnAttrs(_Attrs):
    trigger: Trigger
    voice: VoiceSpec
    planned_text: str
    interrupted: bool
    unspoken_text: str                       # planned words never voiced (rule 3)
    ref: str | None = None                   # task / timer id, for backend and timer triggers
    resumes: str | None = None               # the parked turn this one resumes (TurnAttr.RESUMES)
    drops: str | None = None                 # the parked turn this one sets aside out loud (TurnAttr.DROPS)
    cut_s: float | None = None               # interrupted turns: where the audio is cut
    fade_s: float | None = None               # interrupted turns: the fade after the cut
    action: InterruptAction | None = None
    interruption: str | None = None          # id of the interruption event
    cut_by: str | None = None                # cut by a frame (visual_change): id of the visual event it shows
    truncated: list[TruncatedWord] | None = None   # interrupted turns: words the cut reaches (rule 8)


class InterruptionAttrs(_Attrs):
    action: InterruptAction
    detect_s: float
    eot_s: float
    interrupted_turn: str
    react_unit: int                          # the first unit whose output reacts (listen)
    cut_s: float


class OverlayAttrs(_Attrs):
    """Backchannel, other-directed and background speech: placed against a phrase boundary."""

    over_turn: str
    boundary_s: float
    voice: VoiceSpec
    recipe: Literal["", EventKind.OTHER_DIRECTED, EventKind.BACKGROUND_SPEECH]   # FD-Bench filter applied


class TimerAttrs(_Attrs):
    timer_id: str
    seconds: float
    label: str
    set_s: float
    turn: str


class _TaskAttrs(_Attrs):
    """What delegate and backend events of one task share."""

    task_id: str
    tool: str
    args: dict[str, str]
    issued_s: float
    turn: str
    outcome: TaskOutcome | None              # None for a control request (a cancel)
    ready_s: float | None = None
    latency_s: float | None = None
    status: TaskStatus | None = None
    supersedes: str | None = None
    retry_of: str | None = None
    relay_turn: str | None = None            # the assistant turn that acts on the result
    relay_s: float | None = None
    cancelled_by: str | None = None
    cancelled_s: float | None = None
    superseded_by: str | None = None


class DelegateAttrs(_TaskAttrs):
    unit: int                                # the unit whose output issues the request
    cancels: str | None = None               # a control request: the task it cancels
    after_result: bool | None = None         # a call-off (cancel, undo) written after its target's result was
                                             # readable: its text says the result is in (set only then)


class BackendAttrs(_TaskAttrs):
    ready_s: float
    latency_s: float
    status: TaskStatus


class NoiseAttrs(_Attrs):
    """One noise of the microphone scene: a coloured noise (`color`) or a component (`component`)."""

    snr_db: float
    color: str | None = None
    component: str | None = None

    @model_validator(mode="after")
    def _one_source(self) -> "NoiseAttrs":
        if (self.color is None) == (self.component is None):
            raise ValueError("noise attrs need exactly one of color, component")
        return self


class VisualAttrs(_Attrs):
    """A change the frame of `unit` first shows (schemas/scene.py): readable from unit `unit` on."""

    object: str                              # SceneObject id
    label: str                               # what the object is called
    change: VisualChange
    unit: int                                # the first frame showing it (frame k is input of unit k)
    value: str | None = None                 # the state it changes to, or the text it shows
    stated_by: list[str] | None = None       # assistant turns that state this fact (DESIGN §6)


EventAttrs = Union[UserTurnAttrs, PauseAttrs, AssistantTurnAttrs, InterruptionAttrs, OverlayAttrs, TimerAttrs,
                   DelegateAttrs, BackendAttrs, NoiseAttrs, VisualAttrs]

# The union, keyed on the event kind (attrs carry no tag of their own: the event's kind is it).
ATTRS_MODEL: dict[EventKind, type[_Attrs]] = {
    EventKind.USER_TURN: UserTurnAttrs,
    EventKind.PAUSE: PauseAttrs,
    EventKind.ASSISTANT_TURN: AssistantTurnAttrs,
    EventKind.INTERRUPTION: InterruptionAttrs,
    EventKind.BACKCHANNEL: OverlayAttrs,
    EventKind.OTHER_DIRECTED: OverlayAttrs,
    EventKind.BACKGROUND_SPEECH: OverlayAttrs,
    EventKind.TIMER: TimerAttrs,
    EventKind.DELEGATE: DelegateAttrs,
    EventKind.BACKEND: BackendAttrs,
    EventKind.NOISE: NoiseAttrs,
    EventKind.VISUAL: VisualAttrs,
}
assert set(ATTRS_MODEL) == set(EventKind), "every event kind needs its attrs model"


def attrs_keys() -> frozenset[str]:
    """Every attrs key of every kind: the vocabulary tests/test_contract.py keeps out of stage code."""
    return frozenset(name for model in ATTRS_MODEL.values() for name in model.model_fields)


def check_attrs(kind: str, attrs: _Attrs) -> None:
    """Refuse attrs built with another kind's model."""
    model = ATTRS_MODEL[EventKind(kind)]
    if type(attrs) is not model:
        raise ValueError(f"{kind} event needs {model.__name__} attrs, got {type(attrs).__name__}")


def dump_attrs(attrs: _Attrs) -> str:
    """The stored JSON string: the keys the writer set, sorted, as `json.dumps(sort_keys=True)`."""
    d = attrs.model_dump()
    return json.dumps({k: v for k, v in d.items() if k in attrs.model_fields_set}, sort_keys=True)


def parse_attrs(kind: str, raw: str | dict[str, Any] | None) -> EventAttrs:
    """The typed attrs of an event of `kind` (raises on an unknown kind, key or value)."""
    data = raw if isinstance(raw, dict) else json.loads(raw or "{}")
    if not isinstance(data, dict):
        raise ValueError(f"{kind} attrs must be a JSON object, got {type(data).__name__}")
    return ATTRS_MODEL[EventKind(kind)].model_validate(data)  # type: ignore[return-value]
