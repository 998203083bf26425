"""Natural, varied dialogue content for the scenario planners.

Everything here draws from a caller-supplied ``numpy.random.Generator`` (the
trajectory's own RNG), never from global random state, so a trajectory is
reproducible from its seed.

Content lives in data files, ``generators/banks/<lang>/<domain>.yaml``, as templates
with ``[a|b]`` alternations and ``{slot}`` references (see :mod:`generators.banks.engine`),
loaded and linted by :mod:`generators.banks.loader`; this module turns them into the
frozen dataclasses the planners consume, and provides the variety metrics
(:func:`distinct_n`, :func:`max_sentence_share`) used to check the banks.

Every draw takes the language code of the planner (``lang``, default ``"en"``): the bank of
that language is loaded on first use and cached per process (:func:`_text`), and its text is
rendered with the language's own rules (the bank's ``rules``, from its folder: English
``engine.tidy``, Mandarin ``tidy_zh``), the one place a language's render rules are chosen.

All assistant text is plain spoken text for TTS: no markdown, lists, emojis, symbols or
abbreviations; English numbers may be digits, Mandarin ones are said in words.
"""

from __future__ import annotations

import functools
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Iterable, Mapping

import numpy as np

from schemas.language import Language, language

from .banks.delegations import Delegations, Spec
from .banks.engine import Correction, Scenario, Slots, expansions, fill, new_seed, pick, realise
from .banks.loader import Bank, BankError, load_language
from .banks.rules import Rules
from .text_lint import ARTICLES, HESITATION_SOUNDS
from .harness import Execution, ToolCall

__all__ = [
    "DOMAINS",
    "DelegationContent",
    "Exchange",
    "TimerContent",
    "cancel_ack",
    "cancel_request",
    "cancel_request_text",
    "cancel_late",
    "distinct_n",
    "domains",
    "draw_background_speech",
    "draw_backchannel",
    "draw_delegation",
    "draw_discard_ack",
    "draw_exchange",
    "draw_followup",
    "draw_hesitation",
    "draw_other_directed",
    "draw_resume_phrase",
    "draw_revision",
    "draw_smalltalk",
    "draw_stop_request",
    "draw_timer",
    "draw_ack",
    "draw_closing",
    "fallback_lines",
    "has_delegations",
    "max_sentence_share",
    "relay_lines",
    "retry_line",
    "revision_ack",
    "split_for_pause",
    "split_sentences",
    "undo_ack",
    "undo_content",
    "undo_late",
    "undo_done",
]

# =========================================================================== languages

# The render rules of each language live with its bank (generators/banks/<lang>/__init__.py RULES,
# schema generators/banks/rules.py): the bank's `rules`.


@dataclass(frozen=True)
class _Text:
    """One language's bank, its render rules and its scenarios by domain."""

    lang: Language
    bank: Bank
    rules: Rules
    by_domain: Mapping[str, tuple[Scenario, ...]]

    @property
    def delegations(self) -> Delegations:
        return self.bank.delegations

    def render(self, template: str, slots: Mapping[str, object], seed: int) -> str:
        """``template`` with its alternation choices fixed by ``seed`` (as ``engine.render``)."""
        return self.rules.tidy(realise(template, slots, np.random.default_rng(seed)), True)

    def render_rng(self, rng: np.random.Generator, templates: Sequence[str],
                   slots: Mapping[str, object] | None = None, capitalize: bool = True) -> str:
        """Pick a template and render it, all with ``rng`` (as ``engine.render_rng``)."""
        template = pick(rng, templates)
        return self.rules.tidy(realise(template, slots or {}, rng), capitalize)


@functools.cache
def _text(lang: str) -> _Text:
    """The bank of language ``lang`` (generators/banks/<lang>/), loaded and linted once per process."""
    try:
        bank = load_language(lang)
    except BankError as err:
        raise ValueError(str(err)) from None
    by_domain = {d: tuple(sc for sc in bank.scenarios if sc.domain == d) for d in bank.domains}
    return _Text(lang=language(lang), bank=bank, rules=bank.rules, by_domain=MappingProxyType(by_domain))


def __getattr__(name: str) -> object:
    """``DOMAINS`` and ``_BANK``: the English bank's, as before the language axis (loaded on first use)."""
    if name == "DOMAINS":
        return _text("en").bank.domains
    if name == "_BANK":
        return _text("en").bank
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def domains(lang: str = "en") -> tuple[str, ...]:
    """The exchange domains of a language's bank, in its language.yaml order."""
    return _text(lang).bank.domains


def has_delegations(lang: str, tools: Iterable[str] | None = None, domains: int = 1) -> bool:
    """Whether a language's bank has delegated requests (the delegation families need them), for one
    of ``tools`` when given (the harness tools a run enables), in at least ``domains`` domains (several
    tasks in flight are about different things)."""
    wanted = None if tools is None else set(tools)
    specs = [s for s in _text(lang).delegations.specs if wanted is None or s.tool in wanted]
    return len({s.domain for s in specs}) >= domains


# =========================================================================== dataclasses


@dataclass(frozen=True)
class Exchange:
    """One user request with a long assistant answer, plus a one-slot correction of it.

    Each element of ``answer`` is one spoken unit: a sentence, occasionally led by a
    short exclamation or question ("Fun dilemma, Rome or Paris? Here's Saturday!").
    ``repaired_answer`` is ``(repair_ack,) + repaired_from``, so after an interruption
    at element ``j`` a planner speaks ``repaired_answer[0]`` and then
    ``repaired_from[j:]``.
    """

    domain: str
    user_request: str
    answer: tuple[str, ...]
    correction: str
    repaired_answer: tuple[str, ...]
    repaired_from: tuple[str, ...]
    repair_ack: str
    # noun phrase naming what the answer is about ("your trip to Rome"), for
    # draw_resume_phrase / draw_discard_ack
    topic: str = ""
    # the leading answer positions that answer the question (the scenario's `keep`)
    keep: int = 1

    def said(self, n: int) -> tuple[str, ...]:
        """The answer cut to its first n positions, never before the ones that answer the question."""
        return self.answer[:max(n, self.keep)]


@dataclass(frozen=True)
class DelegationContent:
    """A request served by the background harness: what is said, and the call that answers it.

    The result is not here: the harness executes ``call`` and :func:`relay_lines` phrases its
    :class:`~generators.harness.Execution`. ``spec`` and ``slots`` let the phrasing functions
    find the request's templates and values again; a revised request also carries the slot
    that changed and the slots before the change.
    """

    domain: str
    user_request: str          # spoken by the user
    ack: str                   # said right away
    topic: str                 # "the forecast for Oslo on Saturday"
    call: ToolCall             # harness tool + args (all values str)
    request: str               # private delegate request, plain language, never spoken
    revisable: bool            # draw_revision can change one slot of it
    spec: str = ""
    slots: Mapping[str, object] = field(default_factory=dict)
    revised_slot: str = ""                                           # set on a revised request: the slot
    previous_slots: Mapping[str, object] = field(default_factory=dict)   # and the slots before the change
    language: str = "en"                                             # whose bank the spec is in


@dataclass(frozen=True)
class TimerContent:
    """A short timer the assistant announces unprompted when it fires."""

    user_request: str
    ack: str
    seconds: int
    label: str
    announce: str


# =========================================================================== exchanges

def _context(t: _Text, old: Slots, new: Slots, corr: Correction) -> dict[str, object]:
    ctx: dict[str, object] = dict(new)
    ctx.update({f"old_{k}": v for k, v in old.items()})
    ctx["new"] = t.rules.tidy(fill(corr.show, new), False)
    ctx["old"] = t.rules.tidy(fill(corr.show, old), False)
    return ctx


def _redraw(t: _Text, rng: np.random.Generator, sc: Scenario, base: Slots, corr: Correction) -> Slots | None:
    old_show = t.render(corr.show, sc.view(base), 0)
    for _ in range(40):
        value = sc.slots[corr.slot](rng, base)
        if value == base[corr.slot]:
            continue
        cand = dict(base)
        cand[corr.slot] = value
        if t.render(corr.show, sc.view(cand), 0) != old_show:
            return cand
    return None


def _exchange_from(rng: np.random.Generator, sc: Scenario, lang: str = "en") -> Exchange:
    t = _text(lang)
    for _attempt in range(20):
        base = sc.draw_slots(rng)
        corr: Correction = pick(rng, sc.corrections)
        new_base = _redraw(t, rng, sc, base, corr)
        if new_base is None:
            continue
        old, new = sc.view(base), sc.view(new_base)
        olds: list[str] = []
        news: list[str] = []
        for options in sc.answer:
            template = pick(rng, options)
            seed = new_seed(rng)
            olds.append(t.render(template, old, seed))
            news.append(t.render(template, new, seed))
        changed = [i for i in range(len(olds)) if olds[i] != news[i]]
        if not changed:
            continue
        # The answer says its first n positions: a later one may build on any before it ("Then...",
        # "Step two", "If none of that works"), so none is said without the ones it follows. The first
        # `keep` (what answers the question) always; past them n is drawn, and reaches the first
        # position the correction changes, so the repair has something to say differently.
        n_keep = min(len(olds), max(sc.keep, int(rng.integers(4, 7))))
        keep = list(range(max(n_keep, min(changed) + 1)))
        answer = tuple(olds[i] for i in keep)
        repaired = tuple(news[i] for i in keep)
        ctx = _context(t, old, new, corr)
        # prefer a request that mentions the slot being corrected
        mentions = tuple(r for r in sc.request if t.render(r, old, 0) != t.render(r, new, 0))
        request = t.render_rng(rng, mentions or sc.request, old)
        correction = t.render_rng(rng, corr.user + (t.bank.generic_user_corrections if corr.generic else ()), ctx)
        ack = t.render_rng(rng, corr.ack + (t.bank.generic_acks if corr.generic else ()), ctx)
        topic = t.render_rng(rng, sc.topic, old, capitalize=False)
        return Exchange(
            domain=sc.domain,
            user_request=request,
            answer=answer,
            correction=correction,
            repaired_answer=(ack,) + repaired,
            repaired_from=repaired,
            repair_ack=ack,
            topic=topic,
            keep=min(sc.keep, len(answer)),
        )
    raise RuntimeError(f"could not draw a correctable exchange for {sc.domain}")


def _scenario_for(t: _Text, rng: np.random.Generator, domain: str) -> Scenario:
    options = t.by_domain[domain]
    weights = np.array([sc.weight for sc in options], dtype=float)
    return options[int(rng.choice(len(options), p=weights / weights.sum()))]


def draw_exchange(rng: np.random.Generator, domain: str | None = None, lang: str = "en") -> Exchange:
    """A request with a 4-6 sentence answer and a correction that changes one slot."""
    t = _text(lang)
    if domain is None:
        domain = pick(rng, t.bank.domains)
    if domain not in t.by_domain:
        raise ValueError(f"unknown domain {domain!r} in {lang}; known: {t.bank.domains}")
    return _exchange_from(rng, _scenario_for(t, rng, domain), lang)


def draw_followup(rng: np.random.Generator, exclude_domain: str, lang: str = "en") -> Exchange:
    """A new, unrelated request (another domain) for park-and-follow."""
    options = tuple(d for d in _text(lang).bank.domains if d != exclude_domain)
    return draw_exchange(rng, pick(rng, options), lang)


# =========================================================================== short phrases

def _topic_phrase(t: _Text, topic: str) -> str:
    topic = topic.strip().rstrip(t.rules.topic_ends)
    if topic in t.bank.domain_topics:
        return t.bank.domain_topics[topic]
    return topic or t.rules.topic_fallback


def draw_resume_phrase(rng: np.random.Generator, topic: str, lang: str = "en") -> str:
    """The assistant picks a parked answer back up: "Anyway, back to your trip to Rome."."""
    t = _text(lang)
    return t.render_rng(rng, t.bank.chatter.resume, {"topic": _topic_phrase(t, topic)})


def draw_discard_ack(rng: np.random.Generator, topic: str, lang: str = "en") -> str:
    """Short acknowledgement after the user says stop: "Sure, I'll leave the recipe there."."""
    t = _text(lang)
    return t.render_rng(rng, t.bank.chatter.discard, {"topic": _topic_phrase(t, topic)})


def draw_park_drop(rng: np.random.Generator, topic: str, lang: str = "en") -> str:
    """A parked answer set aside out loud, after the new request was served: "I'll leave the recipe
    there for now; just ask if you want the rest."."""
    t = _text(lang)
    return t.render_rng(rng, t.bank.chatter.park_drop, {"topic": _topic_phrase(t, topic)})


def draw_stop_request(rng: np.random.Generator, lang: str = "en") -> str:
    """The user cuts in to stop the assistant."""
    t = _text(lang)
    return t.render_rng(rng, t.bank.chatter.stop)


def draw_backchannel(rng: np.random.Generator, lang: str = "en") -> str:
    """A listener token that must not take the floor ("mm-hmm", "right"; 嗯, 对)."""
    return str(pick(rng, _text(lang).bank.chatter.backchannels))


def draw_hesitation(rng: np.random.Generator, after_word: str = "", lang: str = "en") -> str:
    """A filler inside a user turn ("um", "let me think"; 呃，). After an English article only a bare
    hesitation sound ("a, uh, sewing machine"): a phrase there splices into the noun phrase ("an so, uh
    emergency fund"). Mandarin fillers carry their own "，" and are joined without a space."""
    pool = _text(lang).bank.chatter.hesitations
    if after_word.lower() in ARTICLES:
        pool = tuple(h for h in pool if h in HESITATION_SOUNDS)
    return str(pick(rng, pool))


def draw_other_directed(rng: np.random.Generator, lang: str = "en") -> str:
    """The user talking to someone else in the room."""
    c = _text(lang).bank.chatter
    return _text(lang).render_rng(rng, c.other_directed, c.other_slots.draw(rng))


def draw_background_speech(rng: np.random.Generator, lang: str = "en") -> str:
    """Speech by someone in the background (TV, radio, passer-by)."""
    c = _text(lang).bank.chatter
    return _text(lang).render_rng(rng, c.background, c.other_slots.draw(rng))


def draw_smalltalk(rng: np.random.Generator, lang: str = "en", question: bool = True) -> tuple[str, str]:
    """(user line, assistant reply) small talk while a task runs. ``question=False`` when the assistant
    speaks next unprompted (a timer, a result): a question must end a turn the user gets to answer
    (DESIGN §2 rule 7), so the reply is then one that cannot end on a question."""
    t = _text(lang)
    item = pick(rng, t.bank.chatter.smalltalk)
    slots = t.bank.chatter.smalltalk_slots.draw(rng)
    replies = item[1] if question else _statements(lang, item[1])
    return t.render_rng(rng, item[0], slots), t.render_rng(rng, replies, slots)


@functools.cache
def _statements(lang: str, templates: tuple[str, ...]) -> tuple[str, ...]:
    """The templates none of whose expansions ends on a question (the loader keeps one per pair)."""
    is_question = _text(lang).lang.is_question
    return tuple(r for r in templates if not any(is_question(x) for x in expansions(r)))


def draw_ack(rng: np.random.Generator, lang: str = "en") -> str:
    """The user's short thanks folded into the next request of a long conversation ("Got it.")."""
    return str(pick(rng, _text(lang).bank.chatter.acks))


def draw_closing(rng: np.random.Generator, lang: str = "en") -> tuple[str, str]:
    """(user's last line, assistant's reply) that close a long conversation."""
    closing: tuple[str, str] = pick(rng, _text(lang).bank.chatter.closings)
    return closing


# =========================================================================== pause splitting


def split_for_pause(rng: np.random.Generator, text: str, lang: str = "en") -> tuple[str, str]:
    """Split a user request into an audibly unfinished head and the rest.

    The split is on a word boundary of the language (``Language.words``: spaces in English, jieba
    words in Mandarin), both parts are non-empty, and ``Language.join([head, tail])`` equals the
    (whitespace-normalised) ``text``; the head has exactly as many words alone as inside the text,
    so a pause after ``len(words(head))`` words falls there. The head ends where the language's
    rules prefer a pause (an English function word: "Can you tell me the weather in" / "Paris
    tomorrow?"; a Mandarin phrase end or particle: "帮我查一下，" / "明天北京的天气。"), never on a
    sentence end (nor, in English, on any punctuation).
    """
    t = _text(lang)
    words = t.lang.words(text)
    if len(words) < 2:
        raise ValueError(f"cannot split a one-word utterance: {text!r}")
    candidates: list[int] = []  # k: head = words[:k]
    fallback: list[int] = []
    for k in range(1, len(words)):
        last = words[k - 1]
        if last.rstrip().endswith(t.rules.no_pause_after) or len(t.lang.words(t.lang.join(words[:k]))) != k:
            continue
        fallback.append(k)
        if k >= 2 and t.rules.pause_after(last.rstrip()):
            candidates.append(k)
    # prefer splits away from the very start so the head carries some content
    good = [k for k in candidates if k >= 3] or candidates or [k for k in fallback if k >= 2] or fallback
    if not good:
        k = len(words) // 2
    else:
        k = int(pick(rng, good))
    return t.lang.join(words[:k]).rstrip(), t.lang.join(words[k:])


# =========================================================================== delegation and timers


def _content(rng: np.random.Generator, spec: Spec, slots: Slots | None = None,
             revised_slot: str = "", previous: Slots | None = None, lang: str = "en") -> DelegationContent:
    out = _text(lang).delegations.make(rng, spec, slots)
    return DelegationContent(
        domain=spec.domain, user_request=str(out["user_request"]), ack=str(out["ack"]), topic=str(out["topic"]),
        call=out["call"], request=str(out["request"]), revisable=bool(spec.revisions), spec=spec.name,  # type: ignore[arg-type]
        slots=out["slots"], revised_slot=revised_slot, previous_slots=previous or {},  # type: ignore[arg-type]
        language=lang,
    )


def draw_delegation(rng: np.random.Generator, domain: str | None = None, tools: tuple[str, ...] | None = None,
                    exclude_domain: str | None = None, revisable: bool = False, lang: str = "en") -> DelegationContent:
    """A request for a background tool in ``tools`` (all when None); its call runs on a fresh harness state."""
    d = _text(lang).delegations
    specs = d.eligible(domain, tools, exclude_domain, revisable)
    if not specs:
        raise ValueError(f"no delegation content in {lang} for domain={domain!r} tools={tools!r} "
                         f"exclude_domain={exclude_domain!r} revisable={revisable}")
    return _content(rng, d.draw_spec(rng, specs), lang=lang)


def has_delegation_spec(lang: str, name: str, tools: Iterable[str] | None = None) -> bool:
    """Whether a language's bank has the delegated request `name` (for one of `tools` when given)."""
    spec = _text(lang).delegations.by_name.get(name)
    return spec is not None and (tools is None or spec.tool in set(tools))


def draw_delegation_of(rng: np.random.Generator, name: str, lang: str = "en") -> DelegationContent:
    """The delegated request `name` (a spec of the bank), its slots drawn: for a planner that needs one
    kind of request (visual_delegation reads a flight code off a ticket the camera shows)."""
    return _content(rng, _text(lang).delegations.by_name[name], lang=lang)


def _delegations(content: DelegationContent) -> Delegations:
    return _text(content.language).delegations


def _spec(content: DelegationContent) -> Spec:
    return _delegations(content).by_name[content.spec]


def relay_lines(rng: np.random.Generator, content: DelegationContent, ex: Execution) -> tuple[str, ...]:
    """1-3 sentences relaying ``ex``: all of it when ok; for a partial result, says so and relays what came."""
    return _delegations(content).relay(rng, _spec(content), dict(content.slots), content.topic, ex)


def fallback_lines(rng: np.random.Generator, content: DelegationContent, ex: Execution) -> tuple[str, ...]:
    """What went wrong (timed out, service down, the tool refused) and an alternative or next step."""
    return _delegations(content).fallback(rng, _spec(content), dict(content.slots), content.topic, ex)


def retry_line(rng: np.random.Generator, content: DelegationContent, ex: Execution) -> str:
    """Said when a failed task is sent again: "That timed out, so I'm trying the forecast again."."""
    return _delegations(content).retry_line(rng, _spec(content), dict(content.slots), content.topic, ex)


def cancel_request(rng: np.random.Generator, content: DelegationContent) -> str:
    """The user calls the task off: "Actually, never mind the forecast."."""
    return _delegations(content).cancel_request(rng, _spec(content), dict(content.slots), content.topic)


def cancel_ack(rng: np.random.Generator, content: DelegationContent) -> str:
    """The assistant confirms the cancel: "Okay, I've called off the weather check."."""
    return _delegations(content).cancel_ack(rng, _spec(content), dict(content.slots), content.topic)


def cancel_request_text(content: DelegationContent) -> str:
    """The private cancel request sent to the harness."""
    return _delegations(content).cancel_request_text(content.topic)


def cancel_late(rng: np.random.Generator, content: DelegationContent) -> tuple[str, str]:
    """(what is said, the private request) when the user calls a task off after its result came in:
    "Sure, never mind then. It had just come back, so I'll just drop it." (composition picks it)."""
    d = _delegations(content)
    return d.cancel_late_ack(rng, _spec(content), dict(content.slots), content.topic), \
        d.cancel_late_request_text(content.topic)


def undo_late(rng: np.random.Generator, content: DelegationContent) -> tuple[str, str]:
    """(what is said, the private request) for the undo of ``content`` once its result is in: the booking
    is known to be there ("it's already in, so I'm having it removed"; composition picks it)."""
    d = _delegations(content)
    return d.undo_late_ack(rng, _spec(content), dict(content.slots), content.topic), \
        d.undo_late_request_text(content.topic)


def undo_content(content: DelegationContent) -> DelegationContent | None:
    """The request that takes ``content``'s effect back (a booking deleted), or None if it leaves
    nothing behind. Its ack is what the assistant says as it sends it; its call runs after the
    original's on the same harness."""
    spec = _spec(content)
    call = spec.undo_call(dict(content.slots))
    if call is None:
        return None
    return replace(content, call=call, request=_delegations(content).undo_request_text(content.topic), ack="",
                   revisable=False)


def undo_ack(rng: np.random.Generator, content: DelegationContent) -> str:
    """Said as the undo goes out, before its result: "Sure, I'll take the dentist appointment off your calendar."."""
    return _delegations(content).undo_ack(rng, _spec(content), dict(content.slots), content.topic)


def undo_done(rng: np.random.Generator, content: DelegationContent) -> str:
    """Said once the harness answered that the effect was taken back: "Done, it's off your calendar."."""
    return _delegations(content).undo_done(rng, _spec(content), dict(content.slots), content.topic)


def draw_revision(rng: np.random.Generator, content: DelegationContent) -> tuple[str, DelegationContent]:
    """(user revision line, the revised content): same spec, one slot changed, new call and request."""
    spec = _spec(content)
    d = _delegations(content)
    old = dict(content.slots)
    rev, new = d.revise(rng, spec, old)
    line = d.revision_user(rng, spec, rev, old, new)
    return line, _content(rng, spec, new, rev.slot, old, content.language)


def revision_ack(rng: np.random.Generator, content: DelegationContent) -> str:
    """The assistant acknowledges a revised request: "Got it, checking Thursday instead."."""
    if not content.revised_slot:
        raise ValueError("revision_ack needs the revised content returned by draw_revision")
    spec = _spec(content)
    rev = next(r for r in spec.revisions if r.slot == content.revised_slot)
    return _delegations(content).revision_ack(rng, spec, rev, dict(content.previous_slots), dict(content.slots))


def draw_timer(rng: np.random.Generator, lang: str = "en") -> TimerContent:
    """A timer of the seconds its task plausibly takes (the label row's range) with a varied acknowledgement and announcement."""
    t = _text(lang)
    c = t.bank.chatter
    slots = c.timer_slots.draw(rng)
    return TimerContent(
        user_request=t.render_rng(rng, c.timer_request, slots),
        ack=t.render_rng(rng, c.timer_ack, slots),
        seconds=int(slots["seconds"]),  # type: ignore[call-overload]
        label=str(slots["label"]),
        announce=t.render_rng(rng, c.timer_announce, slots),
    )


# =========================================================================== metrics

# a sentence end followed by a capital or digit (English), or a full-width one (Mandarin: no space, no case)
_SENT_SPLIT = re.compile(r"(?<=[.!?])\s+(?=[\"'(]?[A-Z0-9])|(?<=[。？！])\s*(?=[^\s”’」』）》])|(?<=[。？！][”’」』）》])\s*(?=\S)")
_HAN_CHAR = re.compile(r"([\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\u3007])")


def split_sentences(text: str) -> list[str]:
    """Split text into sentences at ``.``, ``!`` or ``?`` followed by a capital or digit, or after
    ``。``, ``！`` or ``？`` (text of any language of the banks)."""
    text = " ".join(text.split())
    if not text:
        return []
    return [s for s in _SENT_SPLIT.split(text) if s]


def _tokens(text: str) -> list[str]:
    """Lowercased words without punctuation; a Han character is a token of its own (Mandarin is
    measured on characters: its words are not written apart)."""
    text = text.lower().replace("'", "").replace("\u2019", "")
    return _HAN_CHAR.sub(r" \1 ", re.sub(r"[^\w\s]", " ", text)).split()


def distinct_n(texts: Iterable[str], n: int = 2) -> float:
    """Unique word n-grams / total n-grams (lowercased, punctuation stripped), per text; over
    characters for Mandarin text."""
    seen: set[tuple[str, ...]] = set()
    total = 0
    for text in texts:
        toks = _tokens(text)
        for i in range(len(toks) - n + 1):
            seen.add(tuple(toks[i : i + n]))
            total += 1
    return len(seen) / total if total else 0.0


def max_sentence_share(sentences: Iterable[str]) -> tuple[float, str]:
    """(share of the most frequent exact sentence, that sentence)."""
    counts = Counter(sentences)
    if not counts:
        return 0.0, ""
    sentence, count = counts.most_common(1)[0]
    return count / sum(counts.values()), sentence

