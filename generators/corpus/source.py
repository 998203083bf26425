"""Corpus import as a script source: a corpus conversation's words, the planners' overlays and timing.

Which conversation: trajectory j speaks record j mod N of the corpus's N records, in stored order
(not a draw from its seed). A run of num = N then speaks every conversation once, a bad record gives
exactly one failed record, and record j's trajectory is found from j alone; it is still a function
of (config, index) only, so any worker count gives the same bytes. Every draw (voices, timing, where
overlays and cuts fall, the bank lines spoken over or into the answer) comes from the trajectory
seed, through a Planner made as plan_script makes one.

The scenario family decides what is planned onto the first exchange; later exchanges follow as
plain turns, except after a cut (the corpus's next request answered words the user never heard):

- turn_taking: the exchanges as they are;
- pause: the user hesitates inside the first request (the bank's fillers, pause.plan's draws);
- backchannel / other_directed / background_speech: the bank's lines over the first answer, at its
  phrase boundaries (overlay.place, rule 4);
- interruption_discard: the user stops the first answer (bank stop and acknowledgement);
- interruption_park: an unrelated bank request cuts in, is served, and the parked corpus answer is
  resumed as a `Continuation` from the first sentence the user did not hear (rule 7, resolved by
  composition from where the cut fell).

- interruption_repair (only with the source's `llm`): the LLM reads the first exchange and writes the
  user's correction, the acknowledgement and the answer repaired sentence by sentence; the cut falls
  by the planners' draws and the repair is a `Continuation` from the first sentence the user did not
  hear (rule 7, resolved by composition). Without an `llm` a corpus holds no correction, so the
  family is refused (`check_source`) rather than made up;
- delegation: the user hands a task to a tool (the bank's request, the harness really runs it), the
  corpus's first exchange is the talk while it runs, and the result is relayed from the result text
  alone (delegation.plan's relay, rule 6). A corpus request is not one a tool answers, so the task is
  the bank's; the talk meanwhile is the corpus's.

The bank-only families are refused for a corpus run.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from generators import text_bank as tb
from generators.common import Planner
from generators.corpus.read import LAYOUTS, Conversation, CorpusRecordError, corpus_fingerprint, open_corpus
from generators.corpus.spoken import Unspeakable, spoken_sentences
from generators.llm import LLMWriter, writer_for
from generators.llm import content as ct
from generators.llm.client import CallGate
from generators.llm.content import text_problems
from generators.llm.writer import prompts
from generators.scenarios import delegation, interruption, overlay
from generators.text_lint import lint_script
from schemas.config import (
    CORPUS_KIND,
    ConfigError,
    HarnessConfig,
    RunConfig,
    Scenario,
    ScriptSourceConfig,
    TimingConfig,
    VoicesConfig,
)
from schemas.language import Language
from schemas.language import language as language_of
from schemas.provenance import CorpusProvenance, ScriptProvenance
from schemas.replace import replace
from schemas.script import Continuation, Pause, Script, ScriptTurn
from schemas.vocab import InterruptAction, Trigger, TurnAttr

MIN_PAUSE_WORDS = 4        # a request shorter than this has no inside to hesitate in (as the llm writer)
MIN_CUT_SENTENCES = 2      # an answer cut into needs a sentence after the one the cut may fall in
RESUME_PROB = 0.7          # a parked answer is resumed, as interruption.plan_park


@dataclass(frozen=True)
class Spoken:
    """One exchange as it is said: the request's text and the answer's sentence elements."""

    user: str
    answer: tuple[str, ...]


@dataclass(frozen=True)
class Dialogue:
    """A conversation as it is said, cut to the source's limits."""

    exchanges: tuple[Spoken, ...]
    truncated: bool   # it says less than the record holds (an answer cut short, exchanges left out)


Build = Callable[[Planner, Dialogue], list[ScriptTurn]]


def _plain(p: Planner, exchanges: tuple[Spoken, ...]) -> list[ScriptTurn]:
    out: list[ScriptTurn] = []
    for e in exchanges:
        out += [p.user(e.user), p.assistant(p.lang.join(e.answer))]
    return out


def _needs(d: Dialogue, scenario: str, sentences: int) -> None:
    if len(d.exchanges[0].answer) < sentences:
        raise CorpusRecordError(f"the first answer has {len(d.exchanges[0].answer)} sentence(s); "
                                f"{scenario} needs {sentences}")


def _turn_taking(p: Planner, d: Dialogue) -> list[ScriptTurn]:
    return _plain(p, d.exchanges)


def _pause(p: Planner, d: Dialogue) -> list[ScriptTurn]:
    # pause.plan's draws: where the user hesitates, the filler (from the bank), the pause length
    first = d.exchanges[0]
    if len(p.lang.words(first.user)) < MIN_PAUSE_WORDS:
        raise CorpusRecordError(f"the first request is under {MIN_PAUSE_WORDS} words, too short to pause inside")
    head, _ = tb.split_for_pause(p.rng, first.user, lang=p.lang.code)
    filler = tb.draw_hesitation(p.rng, p.lang.words(head)[-1], lang=p.lang.code) if p.rng.random() < 0.6 else None
    pause = Pause(after_word=len(p.lang.words(head)), dur_s=p.draw(p.timing.pause_s), filler=filler)
    return [p.user(first.user, pause=pause), p.assistant(p.lang.join(first.answer))] + _plain(p, d.exchanges[1:])


def _overlaid(fam: overlay.OverlayFamily) -> Build:
    def build(p: Planner, d: Dialogue) -> list[ScriptTurn]:
        # overlay.plan's draws: 1..max_lines of the family's bank lines, placed at distinct phrase boundaries
        first = d.exchanges[0]
        answer = p.lang.join(first.answer)
        if not p.lang.phrase_boundaries(answer):
            raise CorpusRecordError(f"the first answer has no phrase boundary inside it for {fam.kind} to fall at")
        lines = [fam.line(p.rng, p.lang.code) for _ in range(int(p.rng.integers(1, fam.max_lines + 1)))]
        turns = [p.user(first.user), p.assistant(answer, overlays=overlay.place(p, answer, fam, lines))]
        return turns + _plain(p, d.exchanges[1:])
    return build


def _discard(p: Planner, d: Dialogue) -> list[ScriptTurn]:
    # interruption.plan_discard's shape: the user says stop, a short acknowledgement, the session ends
    _needs(d, Scenario.INTERRUPTION_DISCARD, MIN_CUT_SENTENCES)
    first = d.exchanges[0]
    cut = interruption.cut_in(p, InterruptAction.DISCARD, tb.draw_stop_request(p.rng, lang=p.lang.code))
    return [p.user(first.user), p.assistant(p.lang.join(first.answer), interruption=cut),
            p.assistant(tb.draw_discard_ack(p.rng, "", lang=p.lang.code))]


def _park(p: Planner, d: Dialogue) -> list[ScriptTurn]:
    # interruption.plan_park's shape: an unrelated request cuts in and is served, then the parked answer
    # resumes from the first sentence the user did not hear (a Continuation, resolved at composition)
    _needs(d, Scenario.INTERRUPTION_PARK, MIN_CUT_SENTENCES)
    first = d.exchanges[0]
    nxt = tb.draw_followup(p.rng, exclude_domain="", lang=p.lang.code)
    answer = p.assistant(p.lang.join(first.answer),
                         interruption=interruption.cut_in(p, InterruptAction.PARK, nxt.user_request))
    turns = [p.user(first.user), answer, p.assistant(p.lang.join(nxt.said(int(p.rng.integers(2, 4)))))]
    if p.rng.random() < RESUME_PROB:
        resume = Continuation(of_turn=answer.id, prefix=tb.draw_resume_phrase(p.rng, "", lang=p.lang.code),
                              sentences=first.answer)
        turns.append(p.assistant("", continuation=resume, trigger=Trigger.FOLLOW, attrs={TurnAttr.RESUMES: answer.id}))
    else:
        turns.append(interruption.drop_parked(p, answer, ""))
    return turns


def _delegation(p: Planner, d: Dialogue) -> list[ScriptTurn]:
    # delegation.plan's shape with the corpus exchange as the talk while the task runs: the relay comes
    # next, unprompted, so the corpus answer may not end in a question (rule 7: it would leave the
    # user no room); a trailing question is left unsaid, an answer that is only a question refused
    first = d.exchanges[0]
    answer = list(first.answer)
    while answer and p.lang.is_question(answer[-1]):
        answer.pop()
    if not answer:
        raise CorpusRecordError("the first answer is only a question, which a relay cannot follow unprompted")
    c = tb.draw_delegation(p.rng, tools=p.tools, lang=p.lang.code)
    task, ex = delegation.task_for(p, "t1", c)
    return [p.user(c.user_request), p.assistant(c.ack, delegate=task), p.user(first.user),
            p.assistant(p.lang.join(answer)), delegation.act_on(p, c, task, ex)]


def _repair(p: Planner, d: Dialogue, r: ct.CorpusRepairReply) -> list[ScriptTurn]:
    # interruption.plan_repair's shape over the corpus answer, with the planners' own cut-in draw
    first = d.exchanges[0]
    answer, repair = interruption.repaired(p, p.lang.join(first.answer), r.correction, r.repair_ack,
                                           tuple(r.repaired))
    return [p.user(first.user), answer, repair]


def _repair_problems(lang: Language, first: Spoken, r: ct.CorpusRepairReply) -> list[str]:
    """What is wrong with an LLM's repair of a corpus answer (fed back in the retry prompt)."""
    out = text_problems(lang, [r.correction, r.repair_ack, *r.repaired])
    out += ct.sentence_problems(lang, "repaired", r.repaired)
    if len(r.repaired) != len(first.answer):
        out.append(f"repaired has {len(r.repaired)} items and the answer {len(first.answer)}; they must match "
                   "item for item")
    elif tuple(r.repaired) == first.answer:
        out.append("repaired is the answer unchanged; the correction must change at least one item")
    return out


# Families that cut into the first answer (or speak it as talk meanwhile): the corpus's later
# exchanges are not spoken after them.
CUT_FAMILIES = frozenset({Scenario.INTERRUPTION_DISCARD.value, Scenario.INTERRUPTION_PARK.value,
                          Scenario.INTERRUPTION_REPAIR.value, Scenario.DELEGATION.value})
# Families only a corpus source with an `llm` carries (the words the corpus lacks are the LLM's).
LLM_FAMILIES = frozenset({Scenario.INTERRUPTION_REPAIR.value})

# The families a corpus conversation can carry; `check_source` refuses a corpus run asking for others.
# interruption_repair is built by CorpusSource.write with its LLM's reply (`_repair`), not from here.
FAMILIES: dict[str, Build | None] = {
    Scenario.TURN_TAKING.value: _turn_taking,
    Scenario.PAUSE.value: _pause,
    Scenario.BACKCHANNEL.value: _overlaid(overlay.BACKCHANNEL),
    Scenario.OTHER_DIRECTED.value: _overlaid(overlay.OTHER_DIRECTED),
    Scenario.BACKGROUND_SPEECH.value: _overlaid(overlay.BACKGROUND_SPEECH),
    Scenario.INTERRUPTION_DISCARD.value: _discard,
    Scenario.INTERRUPTION_REPAIR.value: None,
    Scenario.INTERRUPTION_PARK.value: _park,
    Scenario.DELEGATION.value: _delegation,
}


def families_of(src: ScriptSourceConfig) -> tuple[str, ...]:
    """The families a corpus source carries: every one of FAMILIES with an `llm`, else those without one."""
    return tuple(f for f in FAMILIES if src.llm is not None or f not in LLM_FAMILIES)


def check_source(cfg: RunConfig) -> None:
    """Refuse (ConfigError, naming the field) a corpus run asking for a family a corpus cannot carry,
    or whose corpus cannot be opened or no longer matches its pinned `corpus_sha256` (read once here,
    on the driver, before any worker starts). In a mix of sources (`script_sources`), the families a
    corpus cannot carry are left to the other sources (generators.registry.check_sources)."""
    entries = [e for e in cfg.source_entries() if e.kind == CORPUS_KIND]
    if not entries:
        return
    if cfg.script_sources is None:
        own = families_of(cfg.script_source)
        asked = [s for s, w in cfg.scenarios.items() if w > 0 and s not in own]
        if asked:
            why = ("an interruption_repair needs a correction the corpus does not hold: give the source an "
                   "`llm` to write it" if asked == [Scenario.INTERRUPTION_REPAIR.value] else
                   "the others need words the corpus does not hold")
            raise ConfigError(f"scenarios: script_source kind corpus carries {', '.join(own)} only "
                              f"({', '.join(asked)} asked for; {why}); set scenarios to those families")
    for e in entries:
        assert e.path is not None
        open_corpus(e.path)
        _check_pinned(e)


def _check_pinned(src: ScriptSourceConfig) -> str:
    """The corpus's fingerprint; ConfigError when it differs from the one the config pins."""
    assert src.path is not None
    actual = corpus_fingerprint(src.path)
    if src.corpus_sha256 is not None and src.corpus_sha256 != actual:
        raise ConfigError(f"script_source.corpus_sha256: the corpus {src.path} has changed since this run's config "
                          f"was written (its content sha256 is {actual[:16]}…, the config pins "
                          f"{src.corpus_sha256[:16]}…); restore it, or start a new run (another --out, or "
                          "--force-new-run)")
    return actual


def pin_corpus(cfg: RunConfig) -> RunConfig:
    """`cfg` with each corpus source's content fingerprint (`corpus_sha256`) filled in, so the config hash
    (the resume check, every shard's sidecar) changes when the corpus does. A fingerprint the config
    already gives must match (ConfigError otherwise). Other configs are returned as they are."""
    def pinned(e: ScriptSourceConfig) -> ScriptSourceConfig:
        if e.kind != CORPUS_KIND:
            return e
        return replace(e, corpus_sha256=_check_pinned(e))
    if cfg.script_sources is not None:
        return replace(cfg, script_sources=[pinned(e) for e in cfg.script_sources])
    return replace(cfg, script_source=pinned(cfg.script_source))


def _spoken(conv: Conversation, lang: Language, src: ScriptSourceConfig) -> Dialogue:
    """The conversation in spoken register, cut to `max_exchanges` and `max_sentences`; an answer cut
    short (or ended at a question, which ends an assistant turn, DESIGN §2 rule 7) ends the dialogue."""
    out: list[Spoken] = []
    truncated = False
    field = LAYOUTS[conv.layout][0]   # the record's messages field, as errors name a message
    for e in conv.exchanges[: src.max_exchanges]:
        said: list[list[str]] = []
        for text, at in ((e.user, e.user_at), (e.assistant, e.assistant_at)):
            try:
                sentences = spoken_sentences(text, lang)
            except Unspeakable as err:
                raise CorpusRecordError(f"{conv.where}: {field}[{at}]: {err}") from None
            problems = text_problems(lang, sentences)
            if problems:
                raise CorpusRecordError(f"{conv.where}: {field}[{at}]: {problems[0]}")
            said.append(sentences)
        user, answer = said
        ask = next((i for i, s in enumerate(answer) if lang.is_question(s)), len(answer) - 1)
        keep = min(ask + 1, src.max_sentences)
        out.append(Spoken(lang.join(user), tuple(answer[:keep])))
        if keep < len(answer):
            truncated = True
            break
    return Dialogue(tuple(out), truncated or len(conv.exchanges) > len(out))


class CorpusSource:
    """Scripts spoken from one run's corpus `script_source`; `llm` writes what a record lacks (a repair)."""

    def __init__(self, src: ScriptSourceConfig, llm: LLMWriter | None = None):
        assert src.path is not None
        self.src = src
        self.llm = llm
        self.corpus = open_corpus(src.path)
        if src.corpus_sha256 is not None:   # this worker reads the corpus the run was pinned to, or none
            _check_pinned(src)

    def write(self, index: int, scenario: str, seed: int, timing: TimingConfig, language: str = "en",
              harness: HarnessConfig | None = None, voices: VoicesConfig | None = None
              ) -> tuple[Script, CorpusProvenance]:
        """Trajectory `index`'s script from record index mod N, and its provenance (the row's meta).
        Raises CorpusRecordError naming the file and line (or row) when the record cannot carry it,
        LLMWriteError / LLMCallError when the source's `llm` gives no usable repair."""
        if scenario not in families_of(self.src) or (scenario in LLM_FAMILIES and self.llm is None):
            raise ValueError(f"this corpus source carries {list(families_of(self.src))}, not {scenario!r}")
        conv = self.corpus.conversation(index % len(self.corpus))
        lang = language_of(language)
        dialogue = _spoken(conv, lang, self.src)
        if scenario in CUT_FAMILIES:
            dialogue = Dialogue(dialogue.exchanges[:1], dialogue.truncated or len(dialogue.exchanges) > 1)

        def planner() -> Planner:
            return Planner.create(np.random.default_rng(seed), timing, harness, lang=lang, voices=voices)

        def script_of(p: Planner, turns: list[ScriptTurn]) -> Script:
            return Script(scenario=scenario, seed=seed, language=language, lead_in_s=p.draw(timing.lead_in_s),
                          tail_s=p.draw(timing.tail_s), turns=tuple(turns))

        llm: ScriptProvenance | None = None
        if scenario in LLM_FAMILIES:
            script, llm = self._repaired(conv.where, dialogue, lang, seed, planner, script_of)
        else:
            build = FAMILIES[scenario]
            assert build is not None
            p = planner()
            try:
                turns = build(p, dialogue)
            except CorpusRecordError as err:
                raise CorpusRecordError(f"{conv.where}: {err}") from None
            script = script_of(p, turns)
            problems = lint_script(script)
            if problems:
                raise CorpusRecordError(f"{conv.where}: the text lint refuses it: {problems[0]}")
        return script, CorpusProvenance(kind=CORPUS_KIND, path=str(self.src.path), index=conv.index, line=conv.line,
                                        layout=conv.layout, sha256=conv.sha256, exchanges=len(dialogue.exchanges),
                                        truncated=dialogue.truncated, llm=llm)

    def _repaired(self, where: str, d: Dialogue, lang: Language, seed: int, planner: Callable[[], Planner],
                  script_of: Callable[[Planner, list[ScriptTurn]], Script]) -> tuple[Script, ScriptProvenance]:
        """An interruption_repair over the first exchange, its correction and repair written by the LLM
        (a fresh planner each attempt, so every attempt replays the same draws)."""
        assert self.llm is not None
        first = d.exchanges[0]
        if len(first.answer) < MIN_CUT_SENTENCES:
            raise CorpusRecordError(f"{where}: the first answer has {len(first.answer)} sentence(s); "
                                    f"{Scenario.INTERRUPTION_REPAIR.value} needs {MIN_CUT_SENTENCES}")
        fields = {"language": prompts()["languages"][lang.code], "request": first.user,
                  "answer": "\n".join(f"{i}. {s}" for i, s in enumerate(first.answer, start=1)),
                  "count": str(len(first.answer))}

        def accept(r: ct.CorpusRepairReply) -> tuple[Script | None, list[str]]:
            problems = _repair_problems(lang, first, r)
            if problems:
                return None, problems
            p = planner()
            script = script_of(p, _repair(p, d, r))
            problems = lint_script(script)
            return (None, problems) if problems else (script, [])

        name = Scenario.INTERRUPTION_REPAIR.value
        script, calls = self.llm.ask(name, prompts()["corpus"][name]["instructions"], ct.CorpusRepairReply, fields,
                                     seed, accept)
        return script, ScriptProvenance(kind="llm", model=self.llm.src.model or "", prompt=fields, calls=calls)


def corpus_for(src: ScriptSourceConfig, out_root: str | Path | None = None, gate: CallGate | None = None
               ) -> CorpusSource | None:
    """The source of a corpus script source entry (None for any other kind). Its `llm`'s response cache
    lives under `out_root`, and its requests pass `gate` (the entry's job-wide bound) when given."""
    if src.kind != CORPUS_KIND:
        return None
    return CorpusSource(src, writer_for(src.llm, out_root, gate) if src.llm is not None else None)
