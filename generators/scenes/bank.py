"""The visual lines of a language (generators/banks/<lang>/visual.yaml): read, checked and linted once.

A file that breaks the schema, uses a slot its section does not have, has unbalanced brackets or
renders to a line the text lint flags raises one `VisualBankError` naming the file and the entry.
A language without the file has no Omni families (`has_visual`).
"""
from __future__ import annotations

import functools
import re
from pathlib import Path

import numpy as np
import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from generators.banks.engine import render_rng
from generators.banks.loader import BANKS_DIR
from generators.scenes.catalog import catalog
from generators.text_lint import lints_for
from schemas.language import language as language_of

VISUAL_FILE = "visual.yaml"
_SLOT = re.compile(r"\{(\w+)\}")
# what each section's templates may name, and sample values its lint renders them with
SECTION_SLOTS: dict[str, dict[str, str]] = {
    "colour": {"label": "mug", "place": "desk", "colour": "red"},
    "text": {"label": "sign", "place": "street", "text": "no parking"},
}
WATCH_SLOTS: dict[str, str] = {"label": "kettle", "when": "boils", "now": "is boiling"}
CHANGE_ASK_SLOTS: dict[str, str] = {"label": "sign", "place": "street"}
CHANGE_ANSWER_SLOTS: dict[str, str] = {"label": "sign", "fact": "says open", "so": "you can still go in",
                                        "then": "you might want to head in soon"}
CHANGE_REPAIR_SLOTS: dict[str, str] = {"label": "sign", "fact": "says closed"}
ANSWER_SENTENCES = 3   # a visual_change answer: the fact, what follows from it, what to do about it
_LINT_DRAWS = 8   # renders per template, each with its own alternation choices


class VisualBankError(ValueError):
    """A visual.yaml that does not load or does not lint; the message names the file and the entry."""


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class QA(_Strict):
    ask: tuple[str, ...] = Field(min_length=2)
    answer: tuple[str, ...] = Field(min_length=2)


class StatePhrases(_Strict):
    when: str                     # what the user waits for: "boils"
    now: str                      # how the assistant says it happened: "is boiling"


class Watch(_Strict):
    ask: tuple[str, ...] = Field(min_length=2)
    ack: tuple[str, ...] = Field(min_length=2)
    announce: tuple[str, ...] = Field(min_length=2)
    states: dict[str, StatePhrases] = Field(min_length=1)


class Fact(_Strict):
    fact: str                     # how an answer says it: "is off", "says open"
    so: str                       # what follows from it: "you can still go in"
    then: str                     # what the user might do about it: "you might want to head in soon"


class TextFact(Fact):
    to: tuple[str, ...] = ()      # the texts it may flip to (each one of `texts` too)


class ChangeAsk(_Strict):
    state: tuple[str, ...] = Field(min_length=2)
    text: tuple[str, ...] = Field(min_length=2)


class ChangeLines(_Strict):
    """visual_change: a question, a three-sentence answer that a change makes stale, and the repair."""

    ask: ChangeAsk
    answer: tuple[tuple[str, ...], ...] = Field(min_length=ANSWER_SENTENCES, max_length=ANSWER_SENTENCES)
    repair: tuple[str, ...] = Field(min_length=2)
    states: dict[str, Fact] = Field(min_length=1)
    texts: dict[str, TextFact] = Field(min_length=1)


class CorrectAnswer(_Strict):
    colour: tuple[str, ...] = Field(min_length=2)
    text: tuple[str, ...] = Field(min_length=2)


class Correct(_Strict):
    """visual_interruption: a one-sentence answer about the wrong object, the user's cut-in naming
    the right one, and the repair's opening (then the answer again about the right one)."""

    answer: CorrectAnswer
    cut_in: tuple[str, ...] = Field(min_length=2)
    repair: tuple[str, ...] = Field(min_length=2)


class Lookup(_Strict):
    """visual_delegation: the user asks about what a prop shows (a flight on a ticket); the assistant
    reads slot `slot` of the delegated request `spec` off the frame in its acknowledgement."""

    spec: str
    slot: str
    prop: str
    ask: tuple[str, ...] = Field(min_length=2)
    ack: tuple[str, ...] = Field(min_length=2)
    # the private request, in place of the spec's: it may state only what the prop shows ({slot}) or the
    # user said, never a slot the spec derives from it (the flight's destination: rule 6)
    request: str


class Words(_Strict):
    """How a language says the catalogue's words (scenes.yaml keeps one English word per label, colour,
    place and text: what the frames and the events name). A language without it says them as they are."""

    labels: dict[str, tuple[str, ...]]   # per label: the name replies use first, then other names for it
    colours: dict[str, str]
    places: dict[str, str]
    texts: dict[str, str]


class VisualBank(_Strict):
    colour: QA
    text: QA
    watch: Watch
    change: ChangeLines
    correct: Correct
    lookup: Lookup | None = None   # a language without it has no visual_delegation
    words: Words | None = None

    def label(self, label: str) -> str:
        return self.words.labels[label][0] if self.words is not None else label

    def names(self, label: str) -> tuple[str, ...]:
        """Every name a reply may call the object by (what validate looks for)."""
        return self.words.labels[label] if self.words is not None else (label,)

    def colour_name(self, colour: str) -> str:
        return self.words.colours[colour] if self.words is not None else colour

    def place(self, place: str) -> str:
        return self.words.places[place] if self.words is not None else place

    def text_of(self, text: str) -> str:
        """How a reply reads out what the frame prints."""
        return self.words.texts[text] if self.words is not None else text


def _lint_template(where: str, template: str, slots: dict[str, str], language: str) -> None:
    if template.count("[") != template.count("]") or template.count("{") != template.count("}"):
        raise VisualBankError(f"{where}: unbalanced brackets in {template!r}")
    for name in _SLOT.findall(template):
        if name not in slots:
            raise VisualBankError(f"{where}: slot {{{name}}} is not one of {sorted(slots)} in {template!r}")
    lint = lints_for(language)
    rng = np.random.default_rng(0)
    for _ in range(_LINT_DRAWS):
        line = render_rng(rng, (template,), slots)
        hits = lint.utterance(line) if lint is not None else []
        if hits:
            raise VisualBankError(f"{where}: {template!r} renders {line!r}: {hits[0]}")


def read_visual_bank(path: Path, language: str) -> VisualBank:
    """The visual lines at `path`, checked and linted."""
    try:
        bank = VisualBank.model_validate(yaml.safe_load(path.read_text(encoding="utf-8")))
    except (OSError, yaml.YAMLError) as err:
        raise VisualBankError(f"{path.name}: {err}") from None
    except ValidationError as err:
        e = err.errors()[0]
        raise VisualBankError(f"{path.name}: {'.'.join(str(p) for p in e['loc'])}: {e['msg']}") from None
    for section, slots in SECTION_SLOTS.items():
        qa: QA = getattr(bank, section)
        for part in ("ask", "answer"):
            for i, template in enumerate(getattr(qa, part)):
                _lint_template(f"{path.name}: {section}.{part}[{i}]", template, slots, language)
    for part in ("ask", "ack", "announce"):
        for i, template in enumerate(getattr(bank.watch, part)):
            _lint_template(f"{path.name}: watch.{part}[{i}]", template, WATCH_SLOTS, language)
    for state, ph in bank.watch.states.items():
        _lint_template(f"{path.name}: watch.states.{state}", f"{ph.when} {ph.now}", {}, language)
    _check_change(path.name, bank.change, language)
    _check_correct(path.name, bank.correct, language)
    if bank.lookup is not None:
        _check_lookup(path.name, bank.lookup, language)
    if bank.words is not None:
        _check_words(path.name, bank.words, language)
    return bank


def _check_words(name: str, words: Words, language: str) -> None:
    """`words` says every label, colour, place and text the catalogue has, each linted, and no two
    labels of a scene kind share a name (validate could not tell which one a reply named)."""
    cat = catalog()
    wanted = {"labels": {o.label for k in cat.kinds.values() for o in k.objects},
              "colours": set(cat.colours), "places": {k.place for k in cat.kinds.values()},
              "texts": {t for k in cat.kinds.values() for o in k.objects for t in o.texts}}
    for section, keys in wanted.items():
        have = getattr(words, section)
        missing = sorted(keys - set(have))
        if missing:
            raise VisualBankError(f"{name}: words.{section} has no entry for {missing[0]!r} (scenes.yaml has it)")
        for key, said in have.items():
            for text in (said if isinstance(said, tuple) else (said,)):
                if not text:
                    raise VisualBankError(f"{name}: words.{section}.{key} is empty")
                _lint_template(f"{name}: words.{section}.{key}", text, {}, language)
    for kind, spec in cat.kinds.items():
        seen: dict[str, str] = {}
        for o in spec.objects:
            for n in words.labels[o.label]:
                if n in seen and seen[n] != o.label:
                    raise VisualBankError(f"{name}: words.labels: {o.label} and {seen[n]} ({kind}) are both called {n!r}")
                seen[n] = o.label


def _check_change(name: str, ch: ChangeLines, language: str) -> None:
    """visual_change lines: slots and lint as above; every answer template is one sentence element
    (a repair resumes by sentence: the stale and the repaired answer must split alike); every text a
    text may flip to has its own phrases."""
    for part in ("state", "text"):
        for i, template in enumerate(getattr(ch.ask, part)):
            _lint_template(f"{name}: change.ask.{part}[{i}]", template, CHANGE_ASK_SLOTS, language)
    for j, sentence in enumerate(ch.answer):
        if not sentence:
            raise VisualBankError(f"{name}: change.answer[{j}] has no template")
        for i, template in enumerate(sentence):
            _check_one_sentence(f"{name}: change.answer[{j}][{i}]", template, CHANGE_ANSWER_SLOTS, language)
    for i, template in enumerate(ch.repair):
        _lint_template(f"{name}: change.repair[{i}]", template, CHANGE_REPAIR_SLOTS, language)
    for section, facts in (("states", ch.states), ("texts", ch.texts)):
        for key, f in facts.items():
            _lint_template(f"{name}: change.{section}.{key}", f"the sign {f.fact}, so {f.so}. Then {f.then}.", {}, language)
    for key, f in ch.texts.items():
        for to in f.to:
            if to not in ch.texts or to == key:
                raise VisualBankError(f"{name}: change.texts.{key}: flips to {to!r}, which has no phrases of its own")


def _check_one_sentence(where: str, template: str, slots: dict[str, str], language: str) -> None:
    """Lint `template` and refuse it unless it renders as exactly one sentence element: a repair
    re-says such a sentence whole, wherever the cut fell."""
    lang = language_of(language)
    _lint_template(where, template, slots, language)
    line = render_rng(np.random.default_rng(0), (template,), slots)
    if len(lang.sentence_elements((line,))) != 1 or not lang.ends_sentence(lang.words(line)[-1]):
        raise VisualBankError(f"{where}: {template!r} is not exactly one sentence")


def _check_correct(name: str, co: Correct, language: str) -> None:
    """visual_interruption lines: slots and lint; each answer is exactly one sentence element (the
    repair re-says it whole, about the other object, wherever the cut fell)."""
    for kind, slots in (("colour", SECTION_SLOTS["colour"]), ("text", SECTION_SLOTS["text"])):
        for i, template in enumerate(getattr(co.answer, kind)):
            _check_one_sentence(f"{name}: correct.answer.{kind}[{i}]", template, slots, language)
    for i, template in enumerate(co.cut_in):
        _lint_template(f"{name}: correct.cut_in[{i}]", template, {"label": "jar", "old": "bowl"}, language)
    for i, template in enumerate(co.repair):
        _lint_template(f"{name}: correct.repair[{i}]", template, {"label": "jar"}, language)


def _check_lookup(name: str, lk: Lookup, language: str) -> None:
    if lk.prop not in catalog().props:
        raise VisualBankError(f"{name}: lookup.prop {lk.prop!r} is not one of scenes.yaml's props")
    for part in ("ask", "ack"):
        for i, template in enumerate(getattr(lk, part)):
            _lint_template(f"{name}: lookup.{part}[{i}]", template, {lk.slot: "TP 2833"} if part == "ack" else {},
                           language)
    for slot in _SLOT.findall(lk.request):
        if slot != lk.slot:
            raise VisualBankError(f"{name}: lookup.request: slot {{{slot}}} is not {{{lk.slot}}}, the one the prop "
                                  "shows (a request states only what was read or said)")


def has_visual(language: str) -> bool:
    return (BANKS_DIR / language / VISUAL_FILE).is_file()


@functools.cache
def visual_bank(language: str) -> VisualBank:
    """The shipped visual lines of `language` (VisualBankError when it has none)."""
    if not has_visual(language):
        raise VisualBankError(f"no {VISUAL_FILE} in the {language} text bank")
    return read_visual_bank(BANKS_DIR / language / VISUAL_FILE, language)
