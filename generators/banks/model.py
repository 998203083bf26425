"""The schema of a text-bank folder (``generators/banks/<lang>/*.yaml``).

A folder holds ``language.yaml`` (which domain and delegation files exist, in the order the
planners draw them), ``common.yaml`` (values several domains share and the generic correction
phrases), ``chatter.yaml`` (short utterances), one file per domain (``weather.yaml``...), one file
per harness tool of delegated requests (``delegation_weather.yaml``...) and ``delegation.yaml``
(the phrases every delegated request shares). Every model
forbids unknown keys, so a misspelt key is a load error rather than silently ignored content.

Template syntax: ``[a|b]`` picks one option (options may be empty and may nest), ``{slot}``
is replaced by a slot value. Numbers are spelt as the language says them by the derive
functions, never by the templates.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, model_validator

Templates = tuple[str, ...]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=False)


class SlotSpec(_Strict):
    """How one slot is drawn; exactly one source. Slots are drawn in the order they are written.

    ``list``: an element of a named list; ``values``: an element of an inline list; ``table``:
    a whole row of a named table; ``keys``: the key of a random row of a named table;
    ``int``: ``[lo, hi]`` or ``[lo, hi, step]`` inclusive; ``cents``: ``[lo, hi]`` cents inclusive,
    an exact decimal amount (``[2000, 39999]``: 20 to 399.99); ``seed``: a hidden per-dialogue seed
    for derived numbers; ``sample``: a named sample function (``fn(rng, slots, data)``, ``slots``
    being the slots drawn before it, for a value that depends on them).
    """

    list_: str | None = Field(None, alias="list")
    values: tuple[Any, ...] | None = None
    table: str | None = None
    keys: str | None = None
    int_: tuple[int, int] | tuple[int, int, int] | None = Field(None, alias="int")
    cents: tuple[int, int] | None = None
    seed: bool = False
    sample: str | None = None

    @model_validator(mode="after")
    def _one_source(self) -> SlotSpec:
        given = [v for v in (self.list_, self.values, self.table, self.keys, self.int_, self.cents, self.sample)
                 if v is not None]
        if len(given) + int(self.seed) != 1:
            raise ValueError("a slot needs exactly one of list, values, table, keys, int, cents, seed, sample")
        if self.values is not None and not self.values:
            raise ValueError("values must not be empty")
        return self


class Table(_Strict):
    """Rows of named fields; ``key`` names the field that identifies a row (unique)."""

    key: str
    rows: tuple[dict[str, Any], ...] = Field(min_length=1)


class Data(_Strict):
    """Named value lists and tables; one namespace per language folder."""

    lists: dict[str, tuple[Any, ...]] = {}
    tables: dict[str, Table] = {}


class Correction(_Strict):
    """A user correction that changes one slot mid-answer.

    ``show`` names the slot's value for the generic phrases ("{servings} people"); ``user`` and
    ``ack`` are slot-specific phrases that may also use ``{new}``, ``{old}`` and ``{old_<slot>}``.
    """

    slot: str
    show: str
    user: Templates = ()
    ack: Templates = ()
    generic: bool = True
    # request slots that say the corrected slot another way ("on Monday" for "Monday"): they change with it
    forms: tuple[str, ...] = ()


class SlotSet(_Strict):
    """Slots drawn in order, then (optionally) a named derive function adds computed slots.

    ``derived`` declares every slot the derive function may return, so templates can be
    checked against it without running it.
    """

    slots: dict[str, SlotSpec] = {}
    derive: str | None = None
    derived: tuple[str, ...] = ()

    @model_validator(mode="after")
    def _derived_needs_derive(self) -> SlotSet:
        if self.derived and self.derive is None:
            raise ValueError("derived slots need a derive function")
        return self


class Scenario(SlotSet):
    """One kind of request inside a domain: the request, a sentence-by-sentence answer
    (one template list per answer position), the corrections and topic phrases."""

    name: str
    weight: float = Field(1.0, gt=0)
    request: Templates = Field(min_length=1)
    answer: tuple[Templates, ...] = Field(min_length=2)
    # the first `keep` answer positions are always said (the ones that answer the question); an answer
    # says its first n positions (n drawn, at least `keep`), so a position may build on any before it
    # ("Then...", "Step two", "另外…")
    keep: int = Field(1, ge=1)
    corrections: tuple[Correction, ...] = Field(min_length=1)
    topic: Templates = Field(min_length=1)
    # drawn slots the assistant chooses itself (a snack it suggests, the way it says a time): the answer may
    # vary with them although no request says them; every other fact comes from the request (facts.py)
    own: tuple[str, ...] = ()

    @model_validator(mode="after")
    def _keep_fits(self) -> Scenario:
        if self.keep > len(self.answer):
            raise ValueError(f"keep: {self.keep} is more than the {len(self.answer)} answer positions")
        unknown = sorted(set(self.own) - set(self.slots))
        if unknown:
            raise ValueError(f"own: {unknown} are not drawn slots of the scenario")
        return self


class DomainFile(Data):
    """``<domain>.yaml``: the exchanges of one domain."""

    domain: str
    topic: str              # how the assistant names the domain when nothing better is known
    scenarios: tuple[Scenario, ...] = Field(min_length=1)


class GenericCorrections(_Strict):
    """Correction phrases that work for any slot: they may use only ``{new}`` and ``{old}``."""

    user: Templates = Field(min_length=1)
    ack: Templates = Field(min_length=1)


class CommonFile(Data):
    """``common.yaml``: values several domains share and the generic correction phrases."""

    corrections: GenericCorrections


class OtherPeople(SlotSet):
    """The user talking to someone else, and speech in the background, over shared slots."""

    other_directed: Templates = Field(min_length=1)
    background: Templates = Field(min_length=1)


class SmalltalkPair(_Strict):
    user: Templates = Field(min_length=1)
    reply: Templates = Field(min_length=1)


class Smalltalk(SlotSet):
    """Small talk: a user line and a reply that fits it. A reply says only slots every user line of its
    pair says, or slots in ``own``: the assistant's own words ("let's hope {day} is brighter", a comfort
    it offers), never a fact about the user the user did not give."""

    pairs: tuple[SmalltalkPair, ...] = Field(min_length=1)
    own: tuple[str, ...] = ()


class Timer(SlotSet):
    request: Templates = Field(min_length=1)
    ack: Templates = Field(min_length=1)
    announce: Templates = Field(min_length=1)


class Closing(_Strict):
    """A closing of a long conversation: the user's last line and the assistant's reply, said as written."""

    user: str
    reply: str


class ChatterFile(Data):
    """``chatter.yaml``: short utterances around the exchanges.

    ``backchannels``, ``hesitations``, ``acks`` (the user's short thanks before a next request)
    and ``closings`` are said as written (no alternations, no slots); ``resume``, ``discard`` and
    ``park_drop`` (a parked answer the assistant will not come back to, said so) may use ``{topic}``.
    """

    resume: Templates = Field(min_length=1)
    discard: Templates = Field(min_length=1)
    park_drop: Templates = Field(min_length=1)
    stop: Templates = Field(min_length=1)
    backchannels: Templates = Field(min_length=1)
    hesitations: Templates = Field(min_length=1)
    other_people: OtherPeople
    smalltalk: Smalltalk
    timer: Timer
    acks: Templates = Field(min_length=1)
    closings: tuple[Closing, ...] = Field(min_length=1)


# =========================================================================== delegated requests


class RelayPart(_Strict):
    """One relay sentence and the facts it needs; exactly one of ``main``, ``extra``, ``note``.

    ``main`` parts answer the question; ``extra`` parts add facts (never one already said); a
    ``note`` is a remark that only needs its facts to be present ("that includes the tip").
    """

    main: tuple[str, ...] | None = None
    extra: tuple[str, ...] | None = None
    note: tuple[str, ...] | None = None
    say: Templates = Field(min_length=1)

    @model_validator(mode="after")
    def _one_kind(self) -> RelayPart:
        given = [v for v in (self.main, self.extra, self.note) if v is not None]
        if len(given) != 1 or not given[0]:
            raise ValueError("a relay part needs exactly one non-empty list of facts: main, extra or note")
        return self

    @property
    def needs(self) -> tuple[str, ...]:
        return self.main or self.extra or self.note or ()


class Reader(_Strict):
    """A named reader function and the keyword arguments it is called with."""

    fn: str
    with_: dict[str, Any] = Field(default_factory=dict, alias="with")


class Revision(_Strict):
    """A one-slot change the user can make while the task runs ("actually, make that Thursday").

    ``draw`` says how the new value is drawn (a ``sample`` function sees the current slots);
    ``show`` names the value for the shared phrases; ``user`` and ``ack`` are slot-specific phrases
    that may also use ``{new}``, ``{old}``, ``{verb}`` and ``{old_<slot>}``.
    """

    slot: str
    show: str
    draw: SlotSpec
    verb: str                   # for "Got it, {verb} {new} instead."
    user: Templates = ()
    ack: Templates = ()


class DelegationSpec(SlotSet):
    """A request the background harness answers: what is said around it and how its result is read.

    ``args`` are the harness call's arguments, each a template filled with the slots (no
    alternations); ``read`` names the function that reads the result into facts, every one of
    which ``facts`` declares; ``relay`` says them. ``service`` and ``fallback`` default to the file's.
    """

    name: str
    domain: str
    weight: float = Field(1.0, gt=0)
    args: dict[str, str] = Field(min_length=1)
    user: Templates = Field(min_length=1)
    ack: Templates = Field(min_length=1)
    topic: str                  # "the forecast for {city} {day_on}"
    short: Templates = Field(min_length=1)   # "the forecast", for cancels and fallbacks
    service: str | None = None  # "the weather service"
    request: str                # the private request, plain language, never spoken
    read: str | Reader
    facts: tuple[str, ...] = Field(min_length=1)
    relay: tuple[RelayPart, ...] = Field(min_length=1)
    revisions: tuple[Revision, ...] = ()
    fallback: Templates | None = None   # spec-specific next steps when the tool fails
    # the harness call that takes the request's effect back (a booking deleted), for a user who calls
    # it off: the call may already have gone through, so stopping it is not enough (args as ``args``)
    undo: dict[str, str] | None = None


class DelegationFile(Data):
    """``delegation_<tool>.yaml``: the delegated requests one harness tool answers."""

    tool: str
    service: str                # the default of the specs' ``service``
    fallback: Templates = ()    # the default of the specs' ``fallback``
    specs: tuple[DelegationSpec, ...] = Field(min_length=1)


class PartialPhrases(_Strict):
    open: Templates = Field(min_length=1)      # a partial result with facts in it
    nothing: Templates = Field(min_length=1)   # a partial result without the answer
    offer: Templates = Field(min_length=1)     # offer to fetch the rest


class FailurePhrases(_Strict):
    timeout: Templates = Field(min_length=1)
    down: Templates = Field(min_length=1)
    clash: Templates = Field(min_length=1)     # a calendar refusal: may use {c_day}, {c_time}, {c_title}
    refused: Templates = Field(min_length=1)


class NextPhrases(_Strict):
    retry: Templates = Field(min_length=1)
    clash: Templates = Field(min_length=1)


class RetryPhrases(_Strict):
    error: Templates = Field(min_length=1)
    timeout: Templates = Field(min_length=1)


class CancelPhrases(_Strict):
    user: Templates = Field(min_length=1)
    ack: Templates = Field(min_length=1)
    request: str                               # the private cancel request; only {topic}
    # a request with an `undo` call: the ack that sends it, the private request (only {topic}) and
    # what is said once the harness has answered that the effect was taken back
    undo_ack: Templates = Field(min_length=1)
    undo_request: str
    undo_done: Templates = Field(min_length=1)
    # the same call-off once the task's result is in: what is said, and the private request (only {topic})
    late_ack: Templates = Field(min_length=1)
    late_request: str
    late_undo_ack: Templates = Field(min_length=1)   # the undo, once the booking is known to be in
    late_undo_request: str


class RevisePhrases(_Strict):
    user: Templates = Field(min_length=1)
    ack: Templates = Field(min_length=1)


class DelegationPhrasesFile(_Strict):
    """``delegation.yaml``: the phrases every delegated request shares."""

    partial: PartialPhrases
    failure: FailurePhrases
    next: NextPhrases
    retry: RetryPhrases
    cancel: CancelPhrases
    revise: RevisePhrases


class LanguageFile(_Strict):
    """``language.yaml``: the domain and delegation files of the folder, in the order the planners draw them."""

    domains: tuple[str, ...] = Field(min_length=1)
    delegations: tuple[str, ...] = ()   # harness tools: delegation_<tool>.yaml (none: no delegation.yaml either)


class BabbleFile(_Strict):
    """`<lang>/babble.yaml`: the sentences the language's babble talkers read, in order."""
    sentences: list[str] = Field(min_length=1)
