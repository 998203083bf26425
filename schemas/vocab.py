"""The closed vocabularies of the contract (DESIGN §3): every event kind, role, label and value name.

Each is a `StrEnum`, so a member *is* its string: stored values, JSON and Parquet bytes are the
plain strings, while code names them (`EventKind.USER_TURN`) and a typo fails at import, not in
the data. Adding a value here is the one edit that makes it part of the contract.
"""
from __future__ import annotations

from enum import StrEnum


class EventKind(StrEnum):
    """`events[*].kind`: what happened on the timeline."""

    USER_TURN = "user_turn"
    ASSISTANT_TURN = "assistant_turn"
    BACKCHANNEL = "backchannel"
    INTERRUPTION = "interruption"
    OTHER_DIRECTED = "other_directed"
    BACKGROUND_SPEECH = "background_speech"
    PAUSE = "pause"
    DELEGATE = "delegate"
    BACKEND = "backend"
    NOISE = "noise"
    VISUAL = "visual"
    TIMER = "timer"


# Speech on the user channel that must leave the assistant's output unchanged (DESIGN §2 rule 4).
OVERLAY_KINDS: tuple[EventKind, ...] = (EventKind.BACKCHANNEL, EventKind.OTHER_DIRECTED,
                                        EventKind.BACKGROUND_SPEECH)


class Role(StrEnum):
    """`role` of events and words: who produced the sound (or the record)."""

    USER = "user"
    ASSISTANT = "assistant"
    OTHER = "other"              # a person the user talks to
    BACKGROUND = "background"    # a background speaker, or noise
    HARNESS = "harness"          # the delegation harness / timers


class Label(StrEnum):
    """`units[*].labels`: every label is derived from events by pipeline.units, never typed by hand."""

    USER_SPEECH = "user_speech"                # the user (floor-taking) speaks in window k
    HESITATION_PAUSE = "hesitation_pause"      # window k overlaps a pause inside a user turn
    BACKCHANNEL = "backchannel"                # window k overlaps a backchannel
    OTHER_DIRECTED = "other_directed"          # window k overlaps the user talking to someone else
    BACKGROUND_SPEECH = "background_speech"    # window k overlaps background speech
    INTERRUPTION_ONSET = "interruption_onset"  # an interruption starts in window k
    STOP_DISCARD = "stop_discard"              # output of unit k is the first listen after a cut, action discard
    STOP_REPAIR = "stop_repair"                # ... action repair
    STOP_PARK = "stop_park"                    # ... action park
    RESPOND = "respond"                        # output of unit k starts a reply to user speech
    RELAY = "relay"                            # output of unit k starts relaying a backend result
    PROACTIVE = "proactive"                    # output of unit k starts speaking unprompted (timer)
    DELEGATE = "delegate"                      # unit k issues a delegate request
    BACKEND_RESULT = "backend_result"          # a backend result is readable from unit k
    TIMER_FIRED = "timer_fired"                # a timer event is readable from unit k
    VISUAL_EVENT = "visual_event"              # frame k first shows a visual change (Omni)
    TURN_EOS = "turn_eos"                      # an assistant turn ends naturally in window k+1


class Decision(StrEnum):
    """`units[*].decision`: what the output of unit k does in window k+1."""

    SPEAK = "speak"
    LISTEN = "listen"


class Trigger(StrEnum):
    """What an assistant turn answers (`ScriptTurn.trigger`, `attrs.trigger` of assistant_turn)."""

    USER = "user"          # user speech: DESIGN §2 rule 2
    BACKEND = "backend"    # a backend result: rule 5 (a relay)
    TIMER = "timer"        # a timer firing: proactive speech
    FOLLOW = "follow"      # straight after the assistant's previous turn (ack, resume)
    VISUAL = "visual"      # a watched visual change (Omni): proactive speech after the frame showing it
    VISUAL_CHANGE = "visual_change"   # a change shown mid-answer made the answer stale (Omni): the repair
                                      # after the cut, unprompted; as the cause of a cut: `attrs.cut_by`


class InterruptAction(StrEnum):
    """`attrs.action` of an interruption: what the assistant does with its cut turn."""

    DISCARD = "discard"
    REPAIR = "repair"
    PARK = "park"


class TaskStatus(StrEnum):
    """How a delegated task's harness call ended (`Delegation.status`, backend `attrs.status`)."""

    OK = "ok"
    ERROR = "error"
    TIMEOUT = "timeout"
    PARTIAL = "partial"


class TaskOutcome(StrEnum):
    """What happens to a delegated task's result (`Delegation.outcome`, delegate/backend `attrs.outcome`).

    Relayed (`relayed`, `revised` for a task that replaced an older one, `fallback` when the
    assistant explains a failure, `retried` for a failed task whose retry's turn acts on it) or
    never relayed (`cancelled` by the user, `superseded` by a revision).
    """

    RELAYED = "relayed"
    CANCELLED = "cancelled"
    REVISED = "revised"
    RETRIED = "retried"
    FALLBACK = "fallback"
    SUPERSEDED = "superseded"


RELAYED_OUTCOMES: tuple[TaskOutcome, ...] = (TaskOutcome.RELAYED, TaskOutcome.REVISED, TaskOutcome.FALLBACK,
                                             TaskOutcome.RETRIED)
DROPPED_OUTCOMES: tuple[TaskOutcome, ...] = (TaskOutcome.CANCELLED, TaskOutcome.SUPERSEDED)


class TurnAttr(StrEnum):
    """Keys of `ScriptTurn.attrs`: planner-to-composer notes (str values), declared here like attrs keys."""

    SILENT_STRETCH = "silent_stretch"   # user turn: the gap before it is a silent stretch ("1")
    RESUMES = "resumes"                 # assistant turn: the parked turn it resumes (copied to attrs)
    DROPS = "drops"                     # assistant turn: the parked turn it sets aside out loud (copied to attrs)
    # A call-off turn's variant (a cancel, or the undo of a booking) for a task whose result is already in
    # when its request is written (composition picks it by what that unit has read; not copied to
    # attrs): what is said, and the request.
    AFTER_RESULT_TEXT = "after_result_text"
    AFTER_RESULT_REQUEST = "after_result_request"


# Planner notes composition consumes: they choose what a turn says and are not event attrs.
COMPOSER_ONLY_TURN_ATTRS: frozenset[str] = frozenset({TurnAttr.AFTER_RESULT_TEXT, TurnAttr.AFTER_RESULT_REQUEST})


# User turns carry the session's closed-loop timing targets as `ctl_<field>` (generators/timing/control).
CONTROL_ATTR_PREFIX = "ctl_"


class Scenario(StrEnum):
    """A scenario family: the `scenario` column and the keys of `RunConfig.scenarios`."""

    TURN_TAKING = "turn_taking"
    PAUSE = "pause"
    BACKCHANNEL = "backchannel"
    INTERRUPTION_DISCARD = "interruption_discard"
    INTERRUPTION_REPAIR = "interruption_repair"
    INTERRUPTION_PARK = "interruption_park"
    OTHER_DIRECTED = "other_directed"
    BACKGROUND_SPEECH = "background_speech"
    DELEGATION = "delegation"
    DELEGATION_MULTI = "delegation_multi"
    DELEGATION_CANCEL = "delegation_cancel"
    DELEGATION_REVISE = "delegation_revise"
    DELEGATION_FAILURE = "delegation_failure"
    PROACTIVE_TIMER = "proactive_timer"
    CONVERSATION = "conversation"
    VISUAL_QA = "visual_qa"
    VISUAL_WATCH = "visual_watch"
    VISUAL_CHANGE = "visual_change"
    VISUAL_INTERRUPTION = "visual_interruption"   # interruption_repair about the scene: "no, the other one"
    VISUAL_DELEGATION = "visual_delegation"       # a lookup about what the camera reads (a ticket's flight)


# Plain strings (not enum members), so configs and manifests dump as ordinary YAML / JSON.
SCENARIOS: tuple[str, ...] = tuple(s.value for s in Scenario)
