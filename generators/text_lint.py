"""A lint for generated text: the template artefacts a model would copy (issue #12, DESIGN §6).

Each check has an id and a message that quotes the offending words. `lint_script` runs them over
everything a script will say or read (turns, continuation sentences, cut-ins, overlays, delegate
requests, backend results), and `pipeline/validate` runs it on every row (rule `text_lint`), so a
bank, a planner or an LLM-written script that produces one is caught whatever wrote it. Each
language brings its own checks: `generators/banks/<lang>/lint.py` defines its `LINTS` (a `Lints`), found by
`lints_for`; a language without that module is not linted.
"""
from __future__ import annotations

import importlib
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from schemas.language import language
from schemas.script import Script
from schemas.vocab import EventKind, Role

# Pure hesitation sounds: the only fillers that can follow an article naturally ("a, uh, sewing machine").
HESITATION_SOUNDS = frozenset("uh um er erm hmm mm".split())
ARTICLES = frozenset("a an the".split())

# a template's marks left in the text: an alternation or a slot that was never resolved
TEMPLATE_MARK = re.compile(r"[^\s\[\]{}|]*[\[\]{}|][^\s]*")


@dataclass(frozen=True)
class Hit:
    check: str
    words: str

    def __str__(self) -> str:
        return f"{self.check}: {self.words!r}"


def found(check: str, pattern: re.Pattern[str], text: str) -> Iterator[Hit]:
    for m in pattern.finditer(text):
        yield Hit(check, m.group(0))


def numbers_in(text: str) -> set[str]:
    return set(re.findall(r"\d+", text.replace(",", "")))


def mood(user_text: str, assistant_text: str, good: re.Pattern[str], consoling: re.Pattern[str]) -> list[Hit]:
    if good.search(user_text) and (m := consoling.search(assistant_text)):
        return [Hit("mood_mismatch", m.group(0))]
    return []


def self_blame(user_text: str, assistant_text: str, user_slip: re.Pattern[str], own: re.Pattern[str]) -> list[Hit]:
    """The assistant owning a mistake the user made: after "Oops, I meant Friday", "Ah, my mistake"."""
    if user_slip.search(user_text):
        return [Hit("self_blame", m.group(0)) for m in own.finditer(assistant_text)]
    return []


def no_hits(*_: str) -> list[Hit]:
    return []


@dataclass(frozen=True)
class Lints:
    utterance: Callable[[str], list[Hit]]            # everything said, heard or read
    reply: Callable[[str, str], list[Hit]]           # (the user's last turn, an assistant turn)
    hesitation: Callable[[str, str], list[Hit]]      # (the word before a filler, the filler)
    speech: Callable[[str], list[Hit]] = no_hits    # what is said aloud only
    request: Callable[[str], list[Hit]] = no_hits   # a delegate's private request text


def lints_for(code: str) -> Lints | None:
    """The checks of language `code`: `generators/banks/<code>/lint.py`'s `LINTS`, or None (not linted)."""
    try:
        module = importlib.import_module(f"generators.banks.{code}.lint")
    except ModuleNotFoundError as e:
        if e.name != f"generators.banks.{code}.lint":
            raise
        return None
    return module.LINTS


def lint_script(script: Script) -> list[str]:
    """Every lint hit of a script, as "<turn id>: <check>: '<words>'" (empty: clean)."""
    lints = lints_for(script.language)
    if lints is None:
        return []
    out: list[str] = []
    last_user = ""
    user_numbers: set[str] = set()   # every number the user has said so far: facts the assistant may restate
    for t in script.turns:
        said = [t.text]
        if t.continuation is not None:
            said += [t.continuation.prefix, *t.continuation.sentences]
        heard = [t.interruption.text] if t.interruption is not None else []
        heard += [o.text for o in t.overlays if o.kind != EventKind.BACKCHANNEL]   # "yeah yeah" is speech
        read = [t.delegate.request, t.delegate.result] if t.delegate is not None else []
        hits = [h for text in said + heard + read if text for h in lints.utterance(text)]
        hits += [h for text in said + heard if text for h in lints.speech(text)]
        if t.delegate is not None and t.delegate.request:
            hits += lints.request(t.delegate.request)
        if t.role == Role.USER:
            last_user = t.text
            user_numbers |= numbers_in(t.text)
        else:
            hits += [h for text in said if text for h in lints.reply(last_user, text)
                     if not (h.check == "unsaid_user_fact" and numbers_in(h.words) <= user_numbers)]
            if t.interruption is not None and t.interruption.text:   # what the user cut in with is answered next
                last_user = t.interruption.text
                user_numbers |= numbers_in(t.interruption.text)
        if t.pause is not None and t.pause.filler:
            hits += lints.hesitation(language(script.language).words(t.text)[t.pause.after_word - 1], t.pause.filler)
        out += [f"{t.id}: {h}" for h in hits]
    return out
