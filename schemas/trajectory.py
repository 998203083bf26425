"""The stored trajectory (DESIGN §3): events, words, units and the row. Field names are contract."""
from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

Role = Literal["user", "assistant", "other", "background", "harness"]
EVENT_KINDS: tuple[str, ...] = (
    "user_turn", "assistant_turn", "backchannel", "interruption", "other_directed",
    "background_speech", "pause", "delegate", "backend", "noise", "visual", "timer",
)
EventKind = Literal[
    "user_turn", "assistant_turn", "backchannel", "interruption", "other_directed",
    "background_speech", "pause", "delegate", "backend", "noise", "visual", "timer",
]

# Every unit label, all derived from events by pipeline.units (never typed by hand).
LABELS: tuple[str, ...] = (
    "user_speech",          # the user (floor-taking) speaks in window k
    "hesitation_pause",     # window k overlaps a pause inside a user turn
    "backchannel",          # window k overlaps a backchannel
    "other_directed",       # window k overlaps the user talking to someone else
    "background_speech",    # window k overlaps background speech
    "interruption_onset",   # an interruption starts in window k
    "stop_discard",         # output of unit k is the first listen after a cut, action discard
    "stop_repair",          # ... action repair
    "stop_park",            # ... action park
    "respond",              # output of unit k starts a reply to user speech
    "relay",                # output of unit k starts relaying a backend result
    "proactive",            # output of unit k starts speaking unprompted (timer)
    "delegate",             # unit k issues a delegate request
    "backend_result",       # a backend result is readable from unit k
    "timer_fired",          # a timer event is readable from unit k
    "turn_eos",             # an assistant turn ends naturally in window k+1
)


class _M(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Event(_M):
    id: str
    kind: EventKind
    role: Role
    start_s: float
    end_s: float
    text: str = ""
    attrs: str = "{}"   # JSON string, as stored


class Word(_M):
    role: Role
    word: str
    start_s: float
    end_s: float
    event_id: str


class InputEvent(_M):
    kind: str
    task_id: str = ""
    text: str = ""


class Unit(_M):
    index: int
    user_text: str = ""
    input_events: list[InputEvent] = Field(default_factory=list)
    decision: Literal["speak", "listen"]
    spoken_text: str = ""
    speech_tokens: list[int] = Field(default_factory=list)
    turn_eos: bool = False
    delegate: str | None = None
    task_id: str | None = None
    labels: list[str] = Field(default_factory=list)


class AudioBlob(_M):
    """Hugging Face `Audio` storage layout: encoded file bytes plus an optional path."""

    bytes: bytes
    path: str | None = None


class TrajectoryRow(_M):
    id: str
    seed: int
    scenario: str
    language: str
    unit_s: float
    duration_s: float
    sample_rate: int
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
    shard: int
    index: int
    error: str
    traceback: str
