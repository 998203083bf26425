"""Natural, varied dialogue content for the scenario planners.

Everything here draws from a caller-supplied ``numpy.random.Generator`` (the
trajectory's own RNG), never from global random state, so a trajectory is
reproducible from its seed.

Content lives in data files, ``generators/banks/<lang>/<domain>.yaml``, as templates
with ``[a|b]`` alternations and ``{slot}`` references (see :mod:`generators.banks.engine`),
loaded and linted by :mod:`generators.banks.loader`; this module turns them into the
frozen dataclasses the planners consume, and provides the variety metrics
(:func:`distinct_n`, :func:`max_sentence_share`) used to check the banks.

All assistant text is plain spoken English for TTS: no markdown, lists, emojis,
symbols or abbreviations; numbers may be digits.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Iterable, Mapping

import numpy as np

from .banks.delegations import Delegations, Spec
from .banks.engine import Correction, Scenario, Slots, fill, new_seed, pick, render, render_rng, tidy
from .banks.loader import Bank, load_language
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
    "distinct_n",
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
    "fallback_lines",
    "max_sentence_share",
    "relay_lines",
    "retry_line",
    "revision_ack",
    "split_for_pause",
    "split_sentences",
]

# =========================================================================== the bank

# The English bank (generators/banks/en/*.yaml), loaded and linted once per process.
_BANK: Bank = load_language("en")

DOMAINS: tuple[str, ...] = _BANK.domains
# the delegated requests (generators/banks/en/delegation_*.yaml) and the phrases they share
_DELEGATIONS: Delegations = _BANK.delegations

_BY_DOMAIN: dict[str, tuple[Scenario, ...]] = {
    d: tuple(sc for sc in _BANK.scenarios if sc.domain == d) for d in DOMAINS
}


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


@dataclass(frozen=True)
class TimerContent:
    """A short timer the assistant announces unprompted when it fires."""

    user_request: str
    ack: str
    seconds: int
    label: str
    announce: str


# =========================================================================== exchanges

def _context(old: Slots, new: Slots, corr: Correction) -> dict[str, object]:
    ctx: dict[str, object] = dict(new)
    ctx.update({f"old_{k}": v for k, v in old.items()})
    ctx["new"] = tidy(fill(corr.show, new), capitalize=False)
    ctx["old"] = tidy(fill(corr.show, old), capitalize=False)
    return ctx


def _redraw(rng: np.random.Generator, sc: Scenario, base: Slots, corr: Correction) -> Slots | None:
    old_show = render(corr.show, sc.view(base), 0)
    for _ in range(40):
        value = sc.slots[corr.slot](rng, base)
        if value == base[corr.slot]:
            continue
        cand = dict(base)
        cand[corr.slot] = value
        if render(corr.show, sc.view(cand), 0) != old_show:
            return cand
    return None


def _exchange_from(rng: np.random.Generator, sc: Scenario) -> Exchange:
    for _attempt in range(20):
        base = sc.draw_slots(rng)
        corr: Correction = pick(rng, sc.corrections)
        new_base = _redraw(rng, sc, base, corr)
        if new_base is None:
            continue
        old, new = sc.view(base), sc.view(new_base)
        olds: list[str] = []
        news: list[str] = []
        for options in sc.answer:
            template = pick(rng, options)
            seed = new_seed(rng)
            olds.append(render(template, old, seed))
            news.append(render(template, new, seed))
        changed = [i for i in range(len(olds)) if olds[i] != news[i]]
        if not changed:
            continue
        n_keep = min(len(olds), int(rng.integers(4, 7)))
        rest = sorted(int(i) for i in rng.choice(np.arange(1, len(olds)), size=n_keep - 1, replace=False))
        keep = [0] + rest
        if not any(i in changed for i in keep):
            forced = int(pick(rng, changed))
            if forced != 0:
                keep[1 + int(rng.integers(len(rest)))] = forced
            keep = sorted(set(keep))
        answer = tuple(olds[i] for i in keep)
        repaired = tuple(news[i] for i in keep)
        ctx = _context(old, new, corr)
        # prefer a request that mentions the slot being corrected
        mentions = tuple(t for t in sc.request if render(t, old, 0) != render(t, new, 0))
        request = render_rng(rng, mentions or sc.request, old)
        correction = render_rng(rng, corr.user + (_BANK.generic_user_corrections if corr.generic else ()), ctx)
        ack = render_rng(rng, corr.ack + (_BANK.generic_acks if corr.generic else ()), ctx)
        topic = render_rng(rng, sc.topic, old, capitalize=False)
        return Exchange(
            domain=sc.domain,
            user_request=request,
            answer=answer,
            correction=correction,
            repaired_answer=(ack,) + repaired,
            repaired_from=repaired,
            repair_ack=ack,
            topic=topic,
        )
    raise RuntimeError(f"could not draw a correctable exchange for {sc.domain}")


def _scenario_for(rng: np.random.Generator, domain: str) -> Scenario:
    options = _BY_DOMAIN[domain]
    weights = np.array([sc.weight for sc in options], dtype=float)
    return options[int(rng.choice(len(options), p=weights / weights.sum()))]


def draw_exchange(rng: np.random.Generator, domain: str | None = None) -> Exchange:
    """A request with a 4-6 sentence answer and a correction that changes one slot."""
    if domain is None:
        domain = pick(rng, DOMAINS)
    if domain not in _BY_DOMAIN:
        raise ValueError(f"unknown domain {domain!r}; known: {DOMAINS}")
    return _exchange_from(rng, _scenario_for(rng, domain))


def draw_followup(rng: np.random.Generator, exclude_domain: str) -> Exchange:
    """A new, unrelated request (another domain) for park-and-follow."""
    options = tuple(d for d in DOMAINS if d != exclude_domain)
    return draw_exchange(rng, pick(rng, options))


# =========================================================================== short phrases

def _topic_phrase(topic: str) -> str:
    topic = topic.strip().rstrip(".!?")
    if topic in _BANK.domain_topics:
        return _BANK.domain_topics[topic]
    return topic or "what we were talking about"


def draw_resume_phrase(rng: np.random.Generator, topic: str) -> str:
    """The assistant picks a parked answer back up: "Anyway, back to your trip to Rome."."""
    return render_rng(rng, _BANK.chatter.resume, {"topic": _topic_phrase(topic)})


def draw_discard_ack(rng: np.random.Generator, topic: str) -> str:
    """Short acknowledgement after the user says stop: "Sure, I'll leave the recipe there."."""
    return render_rng(rng, _BANK.chatter.discard, {"topic": _topic_phrase(topic)})


def draw_stop_request(rng: np.random.Generator) -> str:
    """The user cuts in to stop the assistant."""
    return render_rng(rng, _BANK.chatter.stop)


def draw_backchannel(rng: np.random.Generator) -> str:
    """A listener token that must not take the floor ("mm-hmm", "right")."""
    return str(pick(rng, _BANK.chatter.backchannels))


def draw_hesitation(rng: np.random.Generator, after_word: str = "") -> str:
    """A filler inside a user turn ("um", "let me think"). After an article only a bare hesitation
    sound ("a, uh, sewing machine"): a phrase there splices into the noun phrase ("an so, uh emergency fund")."""
    pool = _BANK.chatter.hesitations
    if after_word.lower() in ARTICLES:
        pool = tuple(h for h in pool if h in HESITATION_SOUNDS)
    return str(pick(rng, pool))


def draw_other_directed(rng: np.random.Generator) -> str:
    """The user talking to someone else in the room."""
    return render_rng(rng, _BANK.chatter.other_directed, _BANK.chatter.other_slots.draw(rng))


def draw_background_speech(rng: np.random.Generator) -> str:
    """Speech by someone in the background (TV, radio, passer-by)."""
    return render_rng(rng, _BANK.chatter.background, _BANK.chatter.other_slots.draw(rng))


def draw_smalltalk(rng: np.random.Generator) -> tuple[str, str]:
    """(user line, assistant reply) small talk while a task runs."""
    item = pick(rng, _BANK.chatter.smalltalk)
    slots = _BANK.chatter.smalltalk_slots.draw(rng)
    return render_rng(rng, item[0], slots), render_rng(rng, item[1], slots)


# =========================================================================== pause splitting

# words after which an utterance is audibly unfinished
_DANGLING = frozenset(
    """a an the my your our their his her its this that these those some any
    in on at to for from with about of into onto by near around between like than
    and or but so if because when while as whether
    is are was be can could would should will do does did
    me you we i it
    what where which who how whats
    make get find tell give help check set book plan""".split()
)


def split_for_pause(rng: np.random.Generator, text: str) -> tuple[str, str]:
    """Split a user request into an audibly unfinished head and the rest.

    The split is on a word boundary, both parts are non-empty, and
    ``head + " " + tail`` equals the whitespace-normalised ``text``. The head ends
    on a function word where possible ("Can you tell me the weather in" /
    "Paris tomorrow?"), never on sentence-final punctuation.
    """
    words = text.split()
    if len(words) < 2:
        raise ValueError(f"cannot split a one-word utterance: {text!r}")
    candidates: list[int] = []  # k: head = words[:k]
    fallback: list[int] = []
    for k in range(1, len(words)):
        last = words[k - 1]
        if last[-1] in ".!?,;:":
            continue
        fallback.append(k)
        if k >= 2 and re.sub(r"[^a-z]", "", last.lower()) in _DANGLING:
            candidates.append(k)
    # prefer splits away from the very start so the head carries some content
    good = [k for k in candidates if k >= 3] or candidates or [k for k in fallback if k >= 2] or fallback
    if not good:
        k = len(words) // 2
    else:
        k = int(pick(rng, good))
    return " ".join(words[:k]), " ".join(words[k:])


# =========================================================================== delegation and timers


def _content(rng: np.random.Generator, spec: Spec, slots: Slots | None = None,
             revised_slot: str = "", previous: Slots | None = None) -> DelegationContent:
    out = _DELEGATIONS.make(rng, spec, slots)
    return DelegationContent(
        domain=spec.domain, user_request=str(out["user_request"]), ack=str(out["ack"]), topic=str(out["topic"]),
        call=out["call"], request=str(out["request"]), revisable=bool(spec.revisions), spec=spec.name,  # type: ignore[arg-type]
        slots=out["slots"], revised_slot=revised_slot, previous_slots=previous or {},  # type: ignore[arg-type]
    )


def draw_delegation(rng: np.random.Generator, domain: str | None = None, tools: tuple[str, ...] | None = None,
                    exclude_domain: str | None = None, revisable: bool = False) -> DelegationContent:
    """A request for a background tool in ``tools`` (all when None); its call runs on a fresh harness state."""
    specs = _DELEGATIONS.eligible(domain, tools, exclude_domain, revisable)
    if not specs:
        raise ValueError(f"no delegation content for domain={domain!r} tools={tools!r} "
                         f"exclude_domain={exclude_domain!r} revisable={revisable}")
    return _content(rng, _DELEGATIONS.draw_spec(rng, specs))


def _spec(content: DelegationContent) -> Spec:
    return _DELEGATIONS.by_name[content.spec]


def relay_lines(rng: np.random.Generator, content: DelegationContent, ex: Execution) -> tuple[str, ...]:
    """1-3 sentences relaying ``ex``: all of it when ok; for a partial result, says so and relays what came."""
    return _DELEGATIONS.relay(rng, _spec(content), dict(content.slots), content.topic, ex)


def fallback_lines(rng: np.random.Generator, content: DelegationContent, ex: Execution) -> tuple[str, ...]:
    """What went wrong (timed out, service down, the tool refused) and an alternative or next step."""
    return _DELEGATIONS.fallback(rng, _spec(content), dict(content.slots), content.topic, ex)


def retry_line(rng: np.random.Generator, content: DelegationContent, ex: Execution) -> str:
    """Said when a failed task is sent again: "That timed out, so I'm trying the forecast again."."""
    return _DELEGATIONS.retry_line(rng, _spec(content), dict(content.slots), content.topic, ex)


def cancel_request(rng: np.random.Generator, content: DelegationContent) -> str:
    """The user calls the task off: "Actually, never mind the forecast."."""
    return _DELEGATIONS.cancel_request(rng, _spec(content), dict(content.slots), content.topic)


def cancel_ack(rng: np.random.Generator, content: DelegationContent) -> str:
    """The assistant confirms the cancel: "Okay, I've called off the weather check."."""
    return _DELEGATIONS.cancel_ack(rng, _spec(content), dict(content.slots), content.topic)


def cancel_request_text(content: DelegationContent) -> str:
    """The private cancel request sent to the harness."""
    return _DELEGATIONS.cancel_request_text(content.topic)


def draw_revision(rng: np.random.Generator, content: DelegationContent) -> tuple[str, DelegationContent]:
    """(user revision line, the revised content): same spec, one slot changed, new call and request."""
    spec = _spec(content)
    old = dict(content.slots)
    rev, new = _DELEGATIONS.revise(rng, spec, old)
    line = _DELEGATIONS.revision_user(rng, spec, rev, old, new)
    return line, _content(rng, spec, new, rev.slot, old)


def revision_ack(rng: np.random.Generator, content: DelegationContent) -> str:
    """The assistant acknowledges a revised request: "Got it, checking Thursday instead."."""
    if not content.revised_slot:
        raise ValueError("revision_ack needs the revised content returned by draw_revision")
    spec = _spec(content)
    rev = next(r for r in spec.revisions if r.slot == content.revised_slot)
    return _DELEGATIONS.revision_ack(rng, spec, rev, dict(content.previous_slots), dict(content.slots))


def draw_timer(rng: np.random.Generator) -> TimerContent:
    """A 6-20 second timer with a varied acknowledgement and announcement."""
    c = _BANK.chatter
    slots = c.timer_slots.draw(rng)
    return TimerContent(
        user_request=render_rng(rng, c.timer_request, slots),
        ack=render_rng(rng, c.timer_ack, slots),
        seconds=int(slots["seconds"]),  # type: ignore[call-overload]
        label=str(slots["label"]),
        announce=render_rng(rng, c.timer_announce, slots),
    )


# =========================================================================== metrics

_SENT_SPLIT = re.compile(r"(?<=[.!?])\s+(?=[\"'(]?[A-Z0-9])")


def split_sentences(text: str) -> list[str]:
    """Split text into sentences at ``.``, ``!`` or ``?`` followed by a capital or digit."""
    text = " ".join(text.split())
    if not text:
        return []
    return [s for s in _SENT_SPLIT.split(text) if s]


def _tokens(text: str) -> list[str]:
    text = text.lower().replace("'", "").replace("\u2019", "")
    return re.sub(r"[^\w\s]", " ", text).split()


def distinct_n(texts: Iterable[str], n: int = 2) -> float:
    """Unique word n-grams / total n-grams (lowercased, punctuation stripped), per text."""
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

