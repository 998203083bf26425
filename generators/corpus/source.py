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

A repair needs a correction and the answer it changes, and a delegation a request some tool can
answer: a corpus holds neither, so those families (and the bank-only ones) are refused for a corpus
run (`check_source`) rather than made up.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from generators import text_bank as tb
from generators.common import Planner
from generators.corpus.read import LAYOUTS, Conversation, CorpusRecordError, corpus_fingerprint, open_corpus
from generators.corpus.spoken import Unspeakable, spoken_sentences
from generators.llm.content import text_problems
from generators.scenarios import interruption, overlay
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
from schemas.provenance import CorpusProvenance
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
    cut = interruption._cut_in(p, InterruptAction.DISCARD, tb.draw_stop_request(p.rng, lang=p.lang.code))
    return [p.user(first.user), p.assistant(p.lang.join(first.answer), interruption=cut),
            p.assistant(tb.draw_discard_ack(p.rng, "", lang=p.lang.code))]


def _park(p: Planner, d: Dialogue) -> list[ScriptTurn]:
    # interruption.plan_park's shape: an unrelated request cuts in and is served, then the parked answer
    # resumes from the first sentence the user did not hear (a Continuation, resolved at composition)
    _needs(d, Scenario.INTERRUPTION_PARK, MIN_CUT_SENTENCES)
    first = d.exchanges[0]
    nxt = tb.draw_followup(p.rng, exclude_domain="", lang=p.lang.code)
    answer = p.assistant(p.lang.join(first.answer),
                         interruption=interruption._cut_in(p, InterruptAction.PARK, nxt.user_request))
    turns = [p.user(first.user), answer, p.assistant(p.lang.join(nxt.answer[: int(p.rng.integers(2, 4))]))]
    if p.rng.random() < RESUME_PROB:
        resume = Continuation(of_turn=answer.id, prefix=tb.draw_resume_phrase(p.rng, "", lang=p.lang.code),
                              sentences=first.answer)
        turns.append(p.assistant("", continuation=resume, trigger=Trigger.FOLLOW, attrs={TurnAttr.RESUMES: answer.id}))
    return turns


# Families that cut into the first answer: the corpus's later exchanges are not spoken after them.
CUT_FAMILIES = frozenset({Scenario.INTERRUPTION_DISCARD.value, Scenario.INTERRUPTION_PARK.value})

# The families a corpus conversation can carry; `check_source` refuses a corpus run asking for others.
FAMILIES: dict[str, Build] = {
    Scenario.TURN_TAKING.value: _turn_taking,
    Scenario.PAUSE.value: _pause,
    Scenario.BACKCHANNEL.value: _overlaid(overlay.BACKCHANNEL),
    Scenario.OTHER_DIRECTED.value: _overlaid(overlay.OTHER_DIRECTED),
    Scenario.BACKGROUND_SPEECH.value: _overlaid(overlay.BACKGROUND_SPEECH),
    Scenario.INTERRUPTION_DISCARD.value: _discard,
    Scenario.INTERRUPTION_PARK.value: _park,
}


def check_source(cfg: RunConfig) -> None:
    """Refuse (ConfigError, naming the field) a corpus run asking for a family a corpus cannot carry,
    or whose corpus cannot be opened or no longer matches its pinned `corpus_sha256` (read once here,
    on the driver, before any worker starts). In a mix of sources (`script_sources`), the families a
    corpus cannot carry are left to the other sources (generators.registry.check_sources)."""
    entries = [e for e in cfg.source_entries() if e.kind == CORPUS_KIND]
    if not entries:
        return
    asked = [s for s, w in cfg.scenarios.items() if w > 0 and s not in FAMILIES]
    if asked and cfg.script_sources is None:
        raise ConfigError(f"scenarios: script_source kind corpus carries {', '.join(FAMILIES)} only "
                          f"({', '.join(asked)} asked for; a repair or a delegation needs words the corpus "
                          "does not hold); set scenarios to those families")
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
        return e.model_copy(update={"corpus_sha256": _check_pinned(e)})
    if cfg.script_sources is not None:
        return cfg.model_copy(update={"script_sources": [pinned(e) for e in cfg.script_sources]})
    return cfg.model_copy(update={"script_source": pinned(cfg.script_source)})


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
    """Scripts spoken from one run's corpus `script_source`."""

    def __init__(self, src: ScriptSourceConfig):
        assert src.path is not None
        self.src = src
        self.corpus = open_corpus(src.path)
        if src.corpus_sha256 is not None:   # this worker reads the corpus the run was pinned to, or none
            _check_pinned(src)

    def write(self, index: int, scenario: str, seed: int, timing: TimingConfig, language: str = "en",
              harness: HarnessConfig | None = None, voices: VoicesConfig | None = None
              ) -> tuple[Script, CorpusProvenance]:
        """Trajectory `index`'s script from record index mod N, and its provenance (the row's meta).
        Raises CorpusRecordError naming the file and line (or row) when the record cannot carry it."""
        if scenario not in FAMILIES:
            raise ValueError(f"a corpus carries {list(FAMILIES)}, not {scenario!r}")
        conv = self.corpus.conversation(index % len(self.corpus))
        lang = language_of(language)
        dialogue = _spoken(conv, lang, self.src)
        if scenario in CUT_FAMILIES:
            dialogue = Dialogue(dialogue.exchanges[:1], dialogue.truncated or len(dialogue.exchanges) > 1)
        p = Planner.create(np.random.default_rng(seed), timing, harness, lang=lang, voices=voices)
        try:
            turns = FAMILIES[scenario](p, dialogue)
        except CorpusRecordError as err:
            raise CorpusRecordError(f"{conv.where}: {err}") from None
        script = Script(scenario=scenario, seed=seed, language=language, lead_in_s=p.draw(timing.lead_in_s),
                        tail_s=p.draw(timing.tail_s), turns=tuple(turns))
        problems = lint_script(script)
        if problems:
            raise CorpusRecordError(f"{conv.where}: the text lint refuses it: {problems[0]}")
        return script, CorpusProvenance(kind=CORPUS_KIND, path=str(self.src.path), index=conv.index, line=conv.line,
                                        layout=conv.layout, sha256=conv.sha256, exchanges=len(dialogue.exchanges),
                                        truncated=dialogue.truncated)


def corpus_for(src: ScriptSourceConfig) -> CorpusSource | None:
    """The source of a corpus script source entry (None for any other kind)."""
    return CorpusSource(src) if src.kind == CORPUS_KIND else None
