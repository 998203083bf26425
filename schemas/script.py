"""The dialogue script: what a planner decides before any audio exists.

A script holds the text and every timing draw of one trajectory. Composition renders it with TTS
and schedules it deterministically, so the script plus the TTS backend fully determine the row.
"""
from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, SerializerFunctionWrapHandler, field_validator, model_serializer

from schemas.language import language
from schemas.protocol import DELEGATE_MAX_CHARS
from schemas.scene import Scene
from schemas.thresholds import DETECT_MAX_S, DETECT_MIN_S, FADE_MAX_S, FADE_MIN_S, MIN_EOT_S
from schemas.vocab import OVERLAY_KINDS, EventKind, InterruptAction, Role, TaskOutcome, TaskStatus, Trigger


class _M(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class VoiceSpec(_M):
    """A speaker: what the planner draws, what every TTS backend speaks with, what the row records.

    The one voice type (pipeline/tts takes it as is). Frozen and hashable, so renders can be
    cached by it; `model_dump` / `model_validate` round-trip it through JSON. Value ranges are the
    backend's to check (espeak-ng: rate 80..450 wpm, pitches 0..99).
    """

    name: str              # backend voice id; for espeak-ng "<language>[+<variant>]", e.g. "en-us+f3"
    rate: int = 170        # speaking rate, words per minute
    pitch: int = 50        # base pitch, 0..99 (backend-relative scale)
    pitch_range: int = 50  # intonation range, 0..99 (0 = monotone)


class Pause(_M):
    """A hesitation inside a user turn: silence after word `after_word` (0-based, exclusive split)."""

    after_word: int = Field(ge=1)
    dur_s: float = Field(gt=0)
    filler: str | None = None   # e.g. "um", voiced right after the first part, before the silence


class Overlay(_M):
    """Speech on the user channel that must NOT change the assistant's output (DESIGN §2 rule 4)."""

    kind: EventKind                  # one of OVERLAY_KINDS; the event kind it becomes
    text: str
    role: Literal[Role.USER, Role.OTHER, Role.BACKGROUND]
    voice: VoiceSpec
    boundary: int = Field(ge=0)   # index of the assistant phrase boundary it is placed against
    offset_s: float               # onset relative to that boundary's time (ex-Gaussian for backchannels)

    @field_validator("kind")
    @classmethod
    def _overlay_kind(cls, v: EventKind) -> EventKind:
        if v not in OVERLAY_KINDS:
            raise ValueError(f"an overlay is one of {[k.value for k in OVERLAY_KINDS]}, not {v}")
        return v


class Interruption(_M):
    """A floor-taking user cut-in during an assistant turn."""

    action: InterruptAction
    text: str
    at_fraction: float = Field(gt=0, lt=1)   # onset, as a fraction of the planned turn's voiced span
    detect_s: float = Field(ge=DETECT_MIN_S, le=DETECT_MAX_S)
    fade_s: float = Field(ge=FADE_MIN_S, le=FADE_MAX_S)
    eot_s: float = Field(ge=MIN_EOT_S)


Outcome = TaskOutcome   # the task outcome vocabulary lives in schemas/vocab.py


class Delegation(_M):
    """A private request to the background harness, issued at the unit that starts this turn.

    `outcome` is what happens to the task: its result is relayed (`relayed`, or `revised` for a
    task that replaced an older one, or `fallback` when the assistant explains a failure), or
    never relayed (`cancelled` by the user, `superseded` by a revision, `retried` after failing).
    A control request (`tool="cancel"`) names its target in `cancels` and yields no result.
    """

    task_id: str
    tool: str
    request: str = Field(min_length=1, max_length=DELEGATE_MAX_CHARS)
    args: dict[str, str] = Field(default_factory=dict)
    latency_s: float = Field(gt=0)
    result: str = ""
    status: TaskStatus = TaskStatus.OK
    outcome: TaskOutcome | None = TaskOutcome.RELAYED
    cancels: str | None = None
    supersedes: str | None = None
    retry_of: str | None = None


class Timer(_M):
    """A timer the assistant sets at the unit that starts this turn; it fires as an input event."""

    timer_id: str
    seconds: float = Field(gt=0)
    label: str


class Continuation(_M):
    """Text resolved at schedule time from where an earlier turn was cut.

    Repair and resume must say only what was not yet heard, and that depends on where the cut
    fell in the rendered audio; so the turn's text is `prefix` + the sentence elements of
    `sentences` from j on (Language.sentence_elements), where j is the element of `of_turn` that
    holds its first word not fully heard. `sentences` has the elements `of_turn` has, in order.
    """

    of_turn: str
    prefix: str
    sentences: tuple[str, ...]


class ScriptTurn(_M):
    """One utterance of the main dialogue, in order.

    User turns start `gap_s` after the previous assistant turn ends. Assistant turns start in the
    earliest window their trigger allows (DESIGN §2 rules 2 and 5), plus `lead_s` of silence.
    """

    id: str
    role: Literal[Role.USER, Role.ASSISTANT]
    text: str
    voice: VoiceSpec
    gap_s: float = 0.3
    eot_s: float = Field(0.3, ge=MIN_EOT_S)
    pause: Pause | None = None
    lead_s: float = Field(0.1, ge=0.0)
    trigger: Trigger = Trigger.USER
    ref: str | None = None              # task id or timer id for backend / timer triggers
    overlays: tuple[Overlay, ...] = ()
    interruption: Interruption | None = None
    delegate: Delegation | None = None
    timer: Timer | None = None
    continuation: Continuation | None = None
    attrs: dict[str, str] = Field(default_factory=dict)


class Script(_M):
    scenario: str
    seed: int
    language: str = "en"   # a code of schemas/language.LANGUAGES: how its text splits into words
    domain: str = ""
    lead_in_s: float = 0.5
    tail_s: float = 1.0
    turns: tuple[ScriptTurn, ...]
    scene: Scene | None = None   # Omni: what the camera sees (schemas/scene.py)

    @model_serializer(mode="wrap")
    def _dump(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        """A script without a scene dumps as before scenes existed, so audio-only rows keep their bytes."""
        out: dict[str, Any] = handler(self)
        if self.scene is None:
            out.pop("scene", None)
        return out

    @field_validator("language")
    @classmethod
    def _known_language(cls, v: str) -> str:
        language(v)   # raises, naming the supported ones
        return v
