"""Delegated (background tool) requests: how a spec is drawn, called, read and phrased.

The content is data (``generators/banks/<lang>/delegation_<tool>.yaml`` and ``delegation.yaml``,
built by :mod:`generators.banks.loader`); this module is the machinery every language shares. A
:class:`Spec` draws slots, builds the harness call (:class:`generators.harness.ToolCall`) and
phrases everything around it: the spoken user request and acknowledgement, a topic noun phrase,
the private plain-language request, and the spoken relay. The relay is never computed here:
:meth:`Delegations.relay` reads the harness :class:`~generators.harness.Execution` (``fields``
for a complete answer, only the received ``text`` for a partial one) with the spec's named
reader and phrases what it finds, so what the assistant says agrees with what the harness returned.

Facts that answer lookups and searches live in ``generators/harness/data/*.tsv``; the banks only
hold what the *user* knows (their flight number, the street they live on, the band they like).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Callable, Mapping

from generators.harness import Execution, ToolCall
from generators.harness.dates import WEEKDAYS

from .engine import Rng, Slots, SlotSampler, draw_slots, fill, pick, realise, tidy

# =========================================================================== reading a result


@dataclass(frozen=True)
class Result:
    """What a reader sees of an execution: the body text (partial suffix removed) and, if complete, the fields."""

    text: str
    fields: Mapping[str, Any]
    complete: bool


# what a reader returns: the facts it found, by name (every name declared in the spec's ``facts``)
Reader = Callable[[Rng, Result, Slots], dict[str, object]]

_PARTIAL_TAIL = re.compile(r"\s*The rest of the result did not arrive\.?\s*$")


def result_of(ex: Execution) -> Result:
    text = _PARTIAL_TAIL.sub("", ex.text).strip()
    return Result(text=text.rstrip("."), fields=dict(ex.fields) if ex.status == "ok" else {}, complete=ex.status == "ok")


def segments(res: Result, sep: str = "; ") -> list[tuple[str, bool]]:
    """The value after the first ': ' split into (segment, whole) pairs.

    In a partial result the last segment may have been cut at any word, so it is not ``whole``:
    readers use it only through patterns that end in a fixed token ("... dollars", a clock time,
    a weekday), never for free text such as a name, which could be missing its last words.
    """
    body = res.text.split(": ", 1)[1] if ": " in res.text else ""
    segs = [x.strip() for x in body.split(sep) if x.strip()] if body else []
    return [(x, res.complete or i < len(segs) - 1) for i, x in enumerate(segs)]


def value(res: Result, pattern: str, field: str, cast: Callable[[Any], Any] = float) -> Any:
    """A value from the fields (complete) or from the received text (partial); None if absent."""
    if res.complete and field in res.fields:
        return cast(res.fields[field])
    m = re.search(pattern, res.text)
    return cast(m.group(1)) if m else None


# =========================================================================== specs


@dataclass(frozen=True)
class Part:
    """One relay sentence: templates that need the facts in ``needs`` (see model.RelayPart)."""

    needs: tuple[str, ...]
    templates: tuple[str, ...]
    main: bool = False
    note: bool = False


@dataclass(frozen=True)
class Revision:
    """A one-slot change the user can make while the task runs ("actually, make that Thursday")."""

    slot: str
    show: str                   # template naming the slot's value: "{day}"
    sample: SlotSampler         # a new value, given the current slots
    verb: str                   # for "Got it, {verb} {new} instead."
    user: tuple[str, ...] = ()
    ack: tuple[str, ...] = ()


@dataclass(frozen=True)
class Spec:
    name: str
    domain: str
    tool: str
    slots: Mapping[str, SlotSampler]
    args: Mapping[str, str]     # harness argument -> template over the slots
    user: tuple[str, ...]
    ack: tuple[str, ...]
    topic: str                  # "the forecast for {city} {day_on}"
    short: tuple[str, ...]      # "the forecast", for cancels and fallbacks
    service: str                # "the weather service"
    request: str                # the private request (template)
    read: Reader
    relay: tuple[Part, ...]
    derive: Callable[[Slots], Slots] | None = None
    revisions: tuple[Revision, ...] = ()
    fallback: tuple[str, ...] = ()   # spec-specific next steps when the tool fails
    weight: float = 1.0
    undo: Mapping[str, str] | None = None   # the call that takes the request's effect back (a booking deleted)

    def draw(self, rng: Rng) -> Slots:
        return draw_slots(rng, self.slots)

    def view(self, base: Slots) -> Slots:
        out: Slots = dict(base)
        if self.derive is not None:
            out.update(self.derive(out))
        out["service"] = self.service
        return out

    def call(self, base: Slots) -> ToolCall:
        view = self.view(base)
        return ToolCall(self.tool, {k: fill(t, view) for k, t in self.args.items()})

    def undo_call(self, base: Slots) -> ToolCall | None:
        """The call that undoes ``call(base)`` (None: the request leaves nothing behind to undo)."""
        if self.undo is None:
            return None
        view = self.view(base)
        return ToolCall(self.tool, {k: fill(t, view) for k, t in self.undo.items()})


@dataclass(frozen=True)
class Phrases:
    """The phrases every delegated request shares (``delegation.yaml``)."""

    partial_open: tuple[str, ...]
    partial_nothing: tuple[str, ...]
    partial_offer: tuple[str, ...]
    fail_timeout: tuple[str, ...]
    fail_down: tuple[str, ...]
    fail_clash: tuple[str, ...]
    fail_refused: tuple[str, ...]
    next_retry: tuple[str, ...]
    next_clash: tuple[str, ...]
    retry_error: tuple[str, ...]
    retry_timeout: tuple[str, ...]
    cancel_user: tuple[str, ...]
    cancel_ack: tuple[str, ...]
    cancel_request: str
    undo_ack: tuple[str, ...]
    undo_request: str
    undo_done: tuple[str, ...]
    late_ack: tuple[str, ...]
    late_request: str
    late_undo_ack: tuple[str, ...]
    late_undo_request: str
    revise_user: tuple[str, ...]
    revise_ack: tuple[str, ...]


_CLASH = re.compile(r"(\w+day) at (\d\d:\d\d) clashes with (.+?)\.?$")


def failure_kind(ex: Execution) -> str:
    """'timeout', 'down' (the service failed to run), 'clash' (calendar refusal) or 'refused' (the tool said no)."""
    if ex.status == "timeout":
        return "timeout"
    if _CLASH.search(ex.text):
        return "clash"
    if re.search(r"unavailable right now", ex.text):
        return "down"
    return "refused"


@dataclass(frozen=True)
class Delegations:
    """The delegated requests of one language and the phrases around them.

    The harness speaks English whatever the dialogue's language (its tools take English arguments
    and answer in English, as most services do); a language's phrases and readers say its results
    in that language. ``say_time`` turns a harness clock time ("18:30") into speech and ``say_day``
    a harness weekday ("Monday"), both for a calendar clash; ``tidy(text, capitalize)`` is the
    language's render rule for filled templates (the bank folder's ``RULES``).
    """

    specs: tuple[Spec, ...]
    phrases: Phrases | None   # None for a language without delegated requests
    say_time: Callable[[Rng, str], str]
    say_day: Callable[[str], str] = str
    tidy: Callable[[str, bool], str] = tidy
    by_name: Mapping[str, Spec] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "by_name", MappingProxyType({s.name: s for s in self.specs}))

    def _say(self, rng: Rng, templates: tuple[str, ...], slots: Slots, capitalize: bool = True) -> str:
        """One of ``templates`` rendered with the language's rule, all with ``rng`` (as engine.render_rng)."""
        return self.tidy(realise(pick(rng, templates), slots, rng), capitalize)

    # ------------------------------------------------------------------ choosing a spec

    def eligible(self, domain: str | None, tools: tuple[str, ...] | None, exclude_domain: str | None,
                 revisable: bool) -> tuple[Spec, ...]:
        return tuple(
            s for s in self.specs
            if (domain is None or s.domain == domain) and (tools is None or s.tool in tools)
            and (exclude_domain is None or s.domain != exclude_domain) and (not revisable or s.revisions)
        )

    @staticmethod
    def draw_spec(rng: Rng, specs: tuple[Spec, ...]) -> Spec:
        """A domain uniformly among those the specs cover, then a spec of it by weight."""
        doms = tuple(dict.fromkeys(s.domain for s in specs))
        d = pick(rng, doms)
        options = tuple(s for s in specs if s.domain == d)
        weights = [s.weight for s in options]
        total = sum(weights)
        return options[int(rng.choice(len(options), p=[w / total for w in weights]))]

    # ------------------------------------------------------------------ the request side

    def make(self, rng: Rng, spec: Spec, slots: Slots | None = None) -> dict[str, object]:
        """Draw (or reuse) slots and render the request side: user line, ack, topic, call, private request."""
        base = spec.draw(rng) if slots is None else slots
        v = spec.view(base)
        topic = self._say(rng, (spec.topic,), v, capitalize=False)
        return {
            "slots": base,
            "user_request": self._say(rng, spec.user, v),
            "ack": self._say(rng, spec.ack, v),
            "topic": topic,
            "call": spec.call(base),
            "request": self._say(rng, (spec.request,), v),
        }

    def _ctx(self, rng: Rng, spec: Spec, slots: Slots, topic: str) -> Slots:
        v = spec.view(slots)
        v["topic"] = topic
        v["short"] = self._say(rng, spec.short, v, capitalize=False)
        return v

    # ------------------------------------------------------------------ results

    def relay(self, rng: Rng, spec: Spec, slots: Slots, topic: str, ex: Execution) -> tuple[str, ...]:
        """1-3 sentences relaying what the harness returned (all of it, or the part that arrived)."""
        if ex.status not in ("ok", "partial"):
            return self.fallback(rng, spec, slots, topic, ex)
        p = self.phrases
        res = result_of(ex)
        facts = spec.read(rng, res, slots)
        ctx = {**self._ctx(rng, spec, slots, topic), **facts}
        usable = [part for part in spec.relay if all(k in facts for k in part.needs)]
        mains = [part for part in usable if part.main]
        extras = [part for part in usable if not part.main]
        if res.complete:
            if not mains:
                raise RuntimeError(f"{spec.name}: complete result {ex.text!r} answers no relay part")
            best = max(len(part.needs) for part in mains)
            head = pick(rng, [part for part in mains if len(part.needs) == best])
            said = set(head.needs)
            want = int(rng.integers(0, 3))
            chosen: list[int] = []
            for i in rng.permutation(len(extras)) if extras else ():
                part = extras[int(i)]
                if len(chosen) < want and (part.note or not said & set(part.needs)):
                    chosen.append(int(i))
                    said |= set(part.needs)
            return (self._say(rng, head.templates, ctx),) + tuple(self._say(rng, extras[i].templates, ctx) for i in sorted(chosen))
        # partial: say so, relay the facts that arrived (never a remark alone), offer to fetch the rest
        facts_parts = [part for part in usable if not part.note]
        if not facts_parts:
            return (self._say(rng, p.partial_nothing, ctx), self._say(rng, p.partial_offer, ctx))
        best = max(len(part.needs) for part in facts_parts)
        first = next(part for part in facts_parts if len(part.needs) == best)
        out = [self._say(rng, p.partial_open, ctx), self._say(rng, first.templates, ctx)]
        more = [part for part in facts_parts if not part.main and not set(part.needs) & set(first.needs)]
        if more and rng.random() < 0.4:
            out.append(self._say(rng, more[0].templates, ctx))
        else:
            out.append(self._say(rng, p.partial_offer, ctx))
        return tuple(out)

    def fallback(self, rng: Rng, spec: Spec, slots: Slots, topic: str, ex: Execution) -> tuple[str, ...]:
        """What went wrong in plain words, then an alternative or next step."""
        p = self.phrases
        kind = failure_kind(ex)
        ctx = self._ctx(rng, spec, slots, topic)
        if kind == "clash":
            m = _CLASH.search(ex.text)
            assert m is not None
            ctx.update(c_day=self.say_day(m.group(1)), c_time=self.say_time(rng, m.group(2)), c_title=m.group(3))
            return self._say(rng, p.fail_clash, ctx), self._say(rng, p.next_clash, ctx)
        first = {"timeout": p.fail_timeout, "down": p.fail_down, "refused": p.fail_refused}[kind]
        nexts = p.next_retry + spec.fallback if kind != "refused" else spec.fallback or p.next_retry
        return self._say(rng, first, ctx), self._say(rng, nexts, ctx)

    def retry_line(self, rng: Rng, spec: Spec, slots: Slots, topic: str, ex: Execution) -> str:
        p = self.phrases
        return self._say(rng, p.retry_timeout if ex.status == "timeout" else p.retry_error, self._ctx(rng, spec, slots, topic))

    # ------------------------------------------------------------------ cancels

    def cancel_request(self, rng: Rng, spec: Spec, slots: Slots, topic: str) -> str:
        return self._say(rng, self.phrases.cancel_user, self._ctx(rng, spec, slots, topic))

    def cancel_ack(self, rng: Rng, spec: Spec, slots: Slots, topic: str) -> str:
        return self._say(rng, self.phrases.cancel_ack, self._ctx(rng, spec, slots, topic))

    def cancel_request_text(self, topic: str) -> str:
        return fill(self.phrases.cancel_request, {"topic": topic})

    def cancel_late_ack(self, rng: Rng, spec: Spec, slots: Slots, topic: str) -> str:
        return self._say(rng, self.phrases.late_ack, self._ctx(rng, spec, slots, topic))

    def cancel_late_request_text(self, topic: str) -> str:
        return fill(self.phrases.late_request, {"topic": topic})

    def undo_late_ack(self, rng: Rng, spec: Spec, slots: Slots, topic: str) -> str:
        return self._say(rng, self.phrases.late_undo_ack, self._ctx(rng, spec, slots, topic))

    def undo_late_request_text(self, topic: str) -> str:
        return fill(self.phrases.late_undo_request, {"topic": topic})

    def undo_ack(self, rng: Rng, spec: Spec, slots: Slots, topic: str) -> str:
        return self._say(rng, self.phrases.undo_ack, self._ctx(rng, spec, slots, topic))

    def undo_done(self, rng: Rng, spec: Spec, slots: Slots, topic: str) -> str:
        return self._say(rng, self.phrases.undo_done, self._ctx(rng, spec, slots, topic))

    def undo_request_text(self, topic: str) -> str:
        return fill(self.phrases.undo_request, {"topic": topic})

    # ------------------------------------------------------------------ revisions

    @staticmethod
    def shown(spec: Spec, rev: Revision, slots: Slots) -> str:
        """The revised slot's value as the phrases name it ("Thursday", "4 people")."""
        return fill(rev.show, spec.view(slots))

    def revise(self, rng: Rng, spec: Spec, slots: Slots) -> tuple[Revision, Slots]:
        """One revisable slot redrawn so that its shown value and the call both change."""
        if not spec.revisions:
            raise ValueError(f"delegation {spec.name!r} is not revisable")
        old_call = spec.call(slots)
        for _ in range(60):
            rev: Revision = pick(rng, spec.revisions)
            new = rev.sample(rng, slots)
            if new == slots[rev.slot]:
                continue
            cand = dict(slots)
            cand[rev.slot] = new
            new_call = spec.call(cand)
            if (self.shown(spec, rev, cand) != self.shown(spec, rev, slots) and new_call != old_call
                    and not _same_weekday(old_call, new_call)):
                return rev, cand
        raise RuntimeError(f"could not revise {spec.name}")

    def revision_context(self, spec: Spec, rev: Revision, old: Slots, new: Slots) -> Slots:
        ctx = spec.view(new)
        ctx.update({f"old_{k}": v for k, v in spec.view(old).items()})
        ctx.update(new=self.shown(spec, rev, new), old=self.shown(spec, rev, old), verb=rev.verb)
        return ctx

    def revision_user(self, rng: Rng, spec: Spec, rev: Revision, old: Slots, new: Slots) -> str:
        return self._say(rng, rev.user + self.phrases.revise_user, self.revision_context(spec, rev, old, new))

    def revision_ack(self, rng: Rng, spec: Spec, rev: Revision, old: Slots, new: Slots) -> str:
        return self._say(rng, rev.ack + self.phrases.revise_ack, self.revision_context(spec, rev, old, new))


def _weekday_of(value: object) -> str | None:
    """The weekday a harness day name names ("next Monday", "this Saturday" -> the weekday), else None."""
    words = str(value).split()
    return words[-1] if words and words[-1] in WEEKDAYS else None


def _same_weekday(old: ToolCall, new: ToolCall) -> bool:
    """Whether a changed argument names the same weekday as before ("Monday" -> "next Monday", 周一 -> 下周一):
    a revision the user would hardly hear, so revise() draws again."""
    for k, v in new.args.items():
        before = old.args.get(k)
        if before != v and _weekday_of(before) is not None and _weekday_of(before) == _weekday_of(v):
            return True
    return False


__all__ = [
    "Delegations", "Part", "Phrases", "Reader", "Result", "Revision", "Spec", "failure_kind", "result_of",
    "segments", "value",
]
