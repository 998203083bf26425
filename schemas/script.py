"""The dialogue script: what a planner decides before any audio exists.

A script holds the text and every timing draw of one trajectory. Composition renders it with TTS
and schedules it deterministically, so the script plus the TTS backend fully determine the row.
"""
from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field


class _M(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class VoiceSpec(_M):
    """A TTS voice: backend voice name plus prosody. Hashable, so renders can be cached by it."""

    name: str
    rate: int = 170
    pitch: int = 50
    pitch_range: int = 50


class Pause(_M):
    """A hesitation inside a user turn: silence after word `after_word` (0-based, exclusive split)."""

    after_word: int = Field(ge=1)
    dur_s: float = Field(gt=0)
    filler: str | None = None   # e.g. "um", voiced right after the first part, before the silence


class Overlay(_M):
    """Speech on the user channel that must NOT change the assistant's output (DESIGN §2 rule 4)."""

    kind: Literal["backchannel", "other_directed", "background_speech"]
    text: str
    role: Literal["user", "other", "background"]
    voice: VoiceSpec
    boundary: int = Field(ge=0)   # index of the assistant phrase boundary it is placed against
    offset_s: float               # onset relative to that boundary's time (ex-Gaussian for backchannels)


class Interruption(_M):
    """A floor-taking user cut-in during an assistant turn."""

    action: Literal["discard", "repair", "park"]
    text: str
    at_fraction: float = Field(gt=0, lt=1)   # onset, as a fraction of the planned turn's voiced span
    detect_s: float = Field(ge=0.3, le=0.8)
    fade_s: float = Field(ge=0.02, le=0.05)
    eot_s: float = Field(ge=0.2)


Outcome = Literal["relayed", "cancelled", "revised", "retried", "fallback", "superseded"]


class Delegation(_M):
    """A private request to the background harness, issued at the unit that starts this turn.

    `outcome` is what happens to the task: its result is relayed (`relayed`, or `revised` for a
    task that replaced an older one, or `fallback` when the assistant explains a failure), or
    never relayed (`cancelled` by the user, `superseded` by a revision, `retried` after failing).
    A control request (`tool="cancel"`) names its target in `cancels` and yields no result.
    """

    task_id: str
    tool: str
    request: str = Field(min_length=1, max_length=4000)
    args: dict[str, str] = Field(default_factory=dict)
    latency_s: float = Field(gt=0)
    result: str = ""
    status: Literal["ok", "error", "timeout", "partial"] = "ok"
    outcome: Outcome | None = "relayed"
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

    Repair and resume must say only what was not yet voiced, and that depends on where the cut
    fell in the rendered audio; so the turn's text is `prefix` + `sentences[j:]`, where j is the
    sentence of `of_turn` that holds its first unspoken word.
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
    role: Literal["user", "assistant"]
    text: str
    voice: VoiceSpec
    gap_s: float = 0.3
    eot_s: float = Field(0.3, ge=0.2)
    pause: Pause | None = None
    lead_s: float = Field(0.1, ge=0.0)
    trigger: Literal["user", "backend", "timer", "follow"] = "user"
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
    language: str = "en"
    domain: str = ""
    lead_in_s: float = 0.5
    tail_s: float = 1.0
    turns: tuple[ScriptTurn, ...]


PHRASE_END = (".", ",", "?", "!", ";", ":")


def phrase_boundaries(text: str) -> list[int]:
    """Indices of whitespace tokens that end a phrase (not the last token): where listeners backchannel."""
    toks = text.split()
    return [i for i, t in enumerate(toks[:-1]) if t.endswith(PHRASE_END)]


def sentence_of_word(sentences: tuple[str, ...] | list[str]) -> list[int]:
    """For the text ' '.join(sentences), the sentence index of every whitespace token."""
    out: list[int] = []
    for i, s in enumerate(sentences):
        out.extend([i] * len(s.split()))
    return out
