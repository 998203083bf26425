"""The LLM script writer: the same `Script` the planners produce, with the words written by an LLM.

Per trajectory: a persona, register and domain are drawn from its seed (a stream of its own); the
family's prompt (prompts.yaml) asks for a JSON reply of the family's model (content.py), with
response_format json_schema where the server takes it; a reply that fails its schema or checks is
re-asked at most `max_retries` times with the error fed back. The accepted words go through the
planners' own machinery (generators/common.Planner, generators/scenarios) for timing, overlays'
placement, cuts, voices and harness calls, so an LLM script obeys DESIGN §2 as a planned one does.

Rule 7: a repair is a `Continuation` (its text is resolved by composition from where the cut fell),
so the LLM writes the repaired answer element by element before the cut is known and composition
speaks only what the user did not hear. Rule 6: a relay is written from the harness's result text,
and a relay stating a number the result does not is refused.
"""
from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, TypeVar

import numpy as np
import yaml
from pydantic import ValidationError

from generators import text_bank as tb
from generators.common import Planner
from generators.llm import content as ct
from generators.llm.cache import CACHE_DIR, ResponseCache, request_key
from generators.llm.client import MAX_RAW_CHARS, CallGate, ChatClient
from generators.scenarios import delegation, interruption, overlay
from generators.text_lint import lint_script
from schemas.config import (
    LLM_KIND,
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
from schemas.provenance import LLMCall, ScriptProvenance
from schemas.script import Continuation, Pause, Script, ScriptTurn
from schemas.vocab import InterruptAction, TaskOutcome, Trigger, TurnAttr

_PROMPT_STREAM = 0x6C6C6D70   # the trajectory seed's stream for the prompt draws ("llmp")
T = TypeVar("T")


class LLMWriteError(RuntimeError):
    """No valid script after every retry; the message quotes the last raw response (the failed record)."""

    def __init__(self, message: str, raw: str):
        super().__init__(f"{message}; raw response: {raw[:MAX_RAW_CHARS]!r}")
        self.raw = raw


@lru_cache(maxsize=1)
def prompts() -> dict[str, Any]:
    """prompts.yaml: the system text, personas, registers and each family's instructions."""
    return yaml.safe_load(Path(__file__).with_name("prompts.yaml").read_text(encoding="utf-8"))


# ------------------------------------------------------------------------------------- families

Fields = dict[str, str]   # the prompt's fields: persona, register, domain, language and the family's own


@dataclass(frozen=True)
class Family:
    """One scenario family as the writer sees it: the reply it asks for, and how the reply becomes turns.

    `prepare(p, fields, rng)` adds the family's own prompt fields (drawing from `rng`, the prompt
    stream) and returns the context `build` needs (a harness execution, say); it may draw from the
    planner. `check(lang, reply, ctx)` lists what is wrong with a schema-valid reply;
    `build(p, fields, reply, ctx)` returns the script's (domain, turns).
    """

    reply: type[ct._Reply]
    prepare: Callable[[Planner, Fields, np.random.Generator], Any]
    check: Callable[[Language, Any, Any], list[str]]
    build: Callable[[Planner, Fields, Any, Any], tuple[str, list[ScriptTurn]]]


def _no_context(p: Planner, fields: Fields, rng: np.random.Generator) -> None:
    return None


def _prepare_turn_taking(p: Planner, fields: Fields, rng: np.random.Generator) -> None:
    fields["exchanges"] = str(1 + int(rng.integers(0, 2)))   # one or two exchanges, as turn_taking.plan


def _check_turn_taking(lang: Language, r: ct.TurnTakingReply, ctx: None) -> list[str]:
    out = ct.text_problems(lang, [x for e in r.exchanges for x in (e.user, *e.assistant)])
    return out + [m for i, e in enumerate(r.exchanges)
                  for m in ct.sentence_problems(lang, f"exchanges[{i}].assistant", e.assistant)]


def _build_turn_taking(p: Planner, fields: Fields, r: ct.TurnTakingReply, ctx: None) -> tuple[str, list[ScriptTurn]]:
    turns: list[ScriptTurn] = []
    for e in r.exchanges:
        turns += [p.user(e.user), p.assistant(p.lang.join(e.assistant))]
    return fields["domain"], turns


def _overlay_family(fam: overlay.OverlayFamily, lines_field: str) -> tuple[Callable[..., list[str]], Callable[..., Any]]:
    """(check, build) of an overlay family (backchannel, other_directed, background_speech): the user
    asks, the assistant answers in full, and the reply's `lines_field` lines are spoken over it at
    the answer's phrase boundaries by the planners' own placement (overlay.place, rule 4)."""

    def check(lang: Language, r: Any, ctx: None) -> list[str]:
        lines = list(getattr(r, lines_field))
        out = ct.text_problems(lang, [r.user, *r.assistant, *lines]) + ct.sentence_problems(lang, "assistant", r.assistant)
        if not lang.phrase_boundaries(lang.join(r.assistant)):
            out.append(f"the answer has no comma or sentence end inside it, where {lines_field} could fall")
        return out

    def build(p: Planner, fields: Fields, r: Any, ctx: None) -> tuple[str, list[ScriptTurn]]:
        answer = p.lang.join(r.assistant)
        overlays = overlay.place(p, answer, fam, list(getattr(r, lines_field)))
        return fields["domain"], [p.user(r.user), p.assistant(answer, overlays=overlays)]

    return check, build


def _prepare_discard(p: Planner, fields: Fields, rng: np.random.Generator) -> None:
    fields["followups"] = str(int(rng.random() < 0.5))   # a new request after the stop, as plan_discard


def _check_discard(lang: Language, r: ct.DiscardReply, ctx: None) -> list[str]:
    texts = [r.user, *r.answer, r.stop, r.ack, *(x for e in r.followup for x in (e.user, *e.assistant))]
    out = ct.text_problems(lang, texts) + ct.sentence_problems(lang, "answer", r.answer)
    return out + [m for e in r.followup for m in ct.sentence_problems(lang, "followup.assistant", e.assistant)]


def _build_discard(p: Planner, fields: Fields, r: ct.DiscardReply, ctx: None) -> tuple[str, list[ScriptTurn]]:
    # interruption.plan_discard's shape: cut, a short acknowledgement, maybe a new request
    answer = p.assistant(p.lang.join(r.answer), interruption=interruption.cut_in(p, InterruptAction.DISCARD, r.stop))
    turns = [p.user(r.user), answer, p.assistant(r.ack)]
    for e in r.followup:
        turns += [p.user(e.user), p.assistant(p.lang.join(e.assistant))]
    return fields["domain"], turns


def _check_pause(lang: Language, r: ct.PauseReply, ctx: None) -> list[str]:
    out = ct.text_problems(lang, [r.user, *r.assistant]) + ct.sentence_problems(lang, "assistant", r.assistant)
    if len(lang.words(r.user)) < 4:
        out.append(f"the user's request {r.user!r} is too short to pause inside (at least 4 words)")
    return out


def _build_pause(p: Planner, fields: Fields, r: ct.PauseReply, ctx: None) -> tuple[str, list[ScriptTurn]]:
    # pause.plan's draws: where the user hesitates, the filler (from the bank), the pause length
    first, _ = tb.split_for_pause(p.rng, r.user, lang=p.lang.code)
    filler = tb.draw_hesitation(p.rng, p.lang.words(first)[-1], lang=p.lang.code) if p.rng.random() < 0.6 else None
    pause = Pause(after_word=len(p.lang.words(first)), dur_s=p.draw(p.timing.pause_s), filler=filler)
    return fields["domain"], [p.user(r.user, pause=pause), p.assistant(p.lang.join(r.assistant))]


def _prepare_park(p: Planner, fields: Fields, rng: np.random.Generator) -> None:
    fields["resumes"] = str(int(rng.random() < 0.7))   # the parked answer is resumed, as plan_park


def _check_park(lang: Language, r: ct.ParkReply, ctx: None) -> list[str]:
    out = ct.text_problems(lang, [r.user, *r.answer, r.new_request, *r.new_answer, *r.resume_prefix])
    return out + ct.sentence_problems(lang, "answer", r.answer) + ct.sentence_problems(lang, "new_answer", r.new_answer)


def _build_park(p: Planner, fields: Fields, r: ct.ParkReply, ctx: None) -> tuple[str, list[ScriptTurn]]:
    # interruption.plan_park's shape: a new request cuts in, is served, and the parked answer resumes
    # from the first sentence the user did not hear (a Continuation, resolved at composition, rule 7)
    answer = p.assistant(p.lang.join(r.answer), interruption=interruption.cut_in(p, InterruptAction.PARK, r.new_request))
    turns = [p.user(r.user), answer, p.assistant(p.lang.join(r.new_answer))]
    for prefix in r.resume_prefix:
        resume = Continuation(of_turn=answer.id, prefix=prefix, sentences=tuple(r.answer))
        turns.append(p.assistant("", continuation=resume, trigger=Trigger.FOLLOW, attrs={TurnAttr.RESUMES: answer.id}))
    if not r.resume_prefix:   # not resumed: set aside out loud (a bank line), as plan_park does
        turns.append(interruption.drop_parked(p, answer, fields["domain"]))
    return fields["domain"], turns


def _check_repair(lang: Language, r: ct.RepairReply, ctx: None) -> list[str]:
    out = ct.text_problems(lang, [r.user, *r.answer, r.correction, r.repair_ack, *r.repaired])
    out += ct.sentence_problems(lang, "answer", r.answer) + ct.sentence_problems(lang, "repaired", r.repaired)
    if len(r.repaired) != len(r.answer):
        out.append(f"repaired has {len(r.repaired)} items and answer {len(r.answer)}; they must match item for item")
    return out


def _build_repair(p: Planner, fields: Fields, r: ct.RepairReply, ctx: None) -> tuple[str, list[ScriptTurn]]:
    # interruption.plan_repair's shape, with the planners' own cut-in draw (onset fraction, detect, fade, eot)
    answer, repair = interruption.repaired(p, p.lang.join(r.answer), r.correction, r.repair_ack, tuple(r.repaired))
    return fields["domain"], [p.user(r.user), answer, repair]


def _prepare_delegation(p: Planner, fields: Fields, rng: np.random.Generator) -> tuple[Any, Any, Any]:
    """The bank picks the request and its tool call and the harness really runs it (delegation.plan's
    draws), so the LLM phrases a real result: the relay is written from the result text alone."""
    c = tb.draw_delegation(p.rng, tools=p.tools, lang=p.lang.code)
    d, ex = delegation.task_for(p, "t1", c)
    ok = d.outcome == TaskOutcome.RELAYED
    fields.update(topic=c.topic, tool=c.call.tool, request=c.user_request, result=ex.text, domain=c.domain,
                  outcome_note=prompts()["families"]["delegation"]["outcome_ok" if ok else "outcome_failed"])
    return c, d, ex


def _check_delegation(lang: Language, r: ct.DelegationReply, ctx: tuple[Any, Any, Any]) -> list[str]:
    c, _, ex = ctx
    out = ct.text_problems(lang, [r.user, r.ack, *r.relay]) + ct.sentence_problems(lang, "the relay", r.relay)
    if lang.numbers(r.user) != lang.numbers(c.user_request):
        out.append(f"the user's request must state exactly the numbers of {c.user_request!r}")
    out += ct.rule6_problems(lang, r.ack, [r.user])
    return out + ct.rule6_problems(lang, lang.join(r.relay), [ex.text, r.user])


def _build_delegation(p: Planner, fields: Fields, r: ct.DelegationReply, ctx: tuple[Any, Any, Any]
                      ) -> tuple[str, list[ScriptTurn]]:
    _, d, _ = ctx
    return fields["domain"], [p.user(r.user), p.assistant(r.ack, delegate=d),
                              p.assistant(p.lang.join(r.relay), trigger=Trigger.BACKEND, ref=d.task_id)]


# The families the writer covers; `check_source` refuses an llm run that asks for any other.
FAMILIES: dict[str, Family] = {
    Scenario.TURN_TAKING.value: Family(ct.TurnTakingReply, _prepare_turn_taking, _check_turn_taking, _build_turn_taking),
    Scenario.BACKCHANNEL.value: Family(ct.BackchannelReply, _no_context,
                                       *_overlay_family(overlay.BACKCHANNEL, "backchannels")),
    Scenario.OTHER_DIRECTED.value: Family(ct.OtherDirectedReply, _no_context,
                                          *_overlay_family(overlay.OTHER_DIRECTED, "asides")),
    Scenario.BACKGROUND_SPEECH.value: Family(ct.BackgroundReply, _no_context,
                                             *_overlay_family(overlay.BACKGROUND_SPEECH, "background")),
    Scenario.INTERRUPTION_DISCARD.value: Family(ct.DiscardReply, _prepare_discard, _check_discard, _build_discard),
    Scenario.PAUSE.value: Family(ct.PauseReply, _no_context, _check_pause, _build_pause),
    Scenario.INTERRUPTION_PARK.value: Family(ct.ParkReply, _prepare_park, _check_park, _build_park),
    Scenario.INTERRUPTION_REPAIR.value: Family(ct.RepairReply, _no_context, _check_repair, _build_repair),
    Scenario.DELEGATION.value: Family(ct.DelegationReply, _prepare_delegation, _check_delegation, _build_delegation),
}


def check_source(cfg: RunConfig) -> None:
    """Refuse (ConfigError, naming the field) an llm run asking for a family the writer has no prompt for.
    (In a mix of sources, generators.registry.check_sources leaves those families to the other sources.)"""
    if cfg.script_sources is not None or cfg.script_source.kind != LLM_KIND:
        return
    asked = [s for s, w in cfg.scenarios.items() if w > 0 and s not in FAMILIES]
    if asked:
        raise ConfigError(f"scenarios: script_source kind llm writes {', '.join(FAMILIES)} only; "
                          f"{', '.join(asked)} asked for (set scenarios to those families)")


# ------------------------------------------------------------------------------------- the writer

def _parse(raw: str) -> Any:
    """The JSON object of a reply, repaired of the usual wrapping (code fences, prose around it)."""
    text = raw.strip()
    if text.startswith("```"):
        text = text.split("\n", 1)[1] if "\n" in text else ""
        text = text.rsplit("```", 1)[0]
    lo, hi = text.find("{"), text.rfind("}")
    if lo < 0 or hi < lo:
        raise ValueError("the reply holds no JSON object")
    try:
        return json.loads(text[lo:hi + 1])
    except json.JSONDecodeError as err:
        raise ValueError(f"the reply is not valid JSON ({err})") from None


def _schema_errors(err: ValidationError) -> str:
    return "; ".join(f"{'.'.join(str(x) for x in e['loc']) or 'reply'}: {e['msg']}" for e in err.errors())


class LLMWriter:
    """Writes scripts for one run's llm `script_source`, caching every response under `cache_root`."""

    def __init__(self, src: ScriptSourceConfig, cache_root: str | Path, client: ChatClient | None = None):
        self.src = src
        self.client = client if client is not None else ChatClient(src)
        self.cache = ResponseCache(Path(cache_root))

    def _planner(self, seed: int, timing: TimingConfig, lang: Language, harness: HarnessConfig | None,
                 voices: VoicesConfig | None) -> Planner:
        """A fresh planner as plan_script makes one: every attempt replays the same draws from `seed`."""
        return Planner.create(np.random.default_rng(seed), timing, harness, lang=lang, voices=voices)

    def _fields(self, scenario: str, seed: int, lang: Language, p: Planner) -> tuple[Fields, Any]:
        cfg = prompts()
        rng = np.random.default_rng([seed, _PROMPT_STREAM])
        fields: Fields = {"persona": str(rng.choice(cfg["personas"])), "register": str(rng.choice(cfg["registers"])),
                          "domain": str(rng.choice(tb.domains(lang.code))), "language": cfg["languages"][lang.code]}
        ctx = FAMILIES[scenario].prepare(p, fields, rng)
        return fields, ctx

    def _messages(self, instructions: str, reply: type[ct._Reply], fields: Fields) -> list[dict[str, str]]:
        schema = json.dumps(reply.model_json_schema(), sort_keys=True)
        return [{"role": "system", "content": prompts()["system"].format(language=fields["language"], schema=schema)},
                {"role": "user", "content": instructions.format(**fields)}]

    def _complete(self, name: str, reply: type[ct._Reply], messages: list[dict[str, str]], seed: int
                  ) -> tuple[str, str]:
        """(request key, raw response): from the cache, else one call (cached before it is used)."""
        assert self.src.model is not None
        sampling = {"temperature": self.src.temperature, "max_tokens": self.src.max_tokens}
        key = request_key(self.src.model, messages, sampling, seed)
        raw = self.cache.get(key)
        if raw is None:
            raw = self.client.complete(messages, name, reply.model_json_schema(), seed % 2**31)
            self.cache.put(key, self.src.model, raw)
        return key, raw

    def ask(self, name: str, instructions: str, reply: type[ct._Reply], fields: Fields, seed: int,
            accept: Callable[[Any], tuple[T | None, list[str]]]) -> tuple[T, tuple[LLMCall, ...]]:
        """What `accept` makes of the first reply it takes, and every call made for it.

        `instructions` (filled with `fields`) asks for a JSON `reply`; `accept(reply)` returns (result,
        []) or (None, problems). A reply that is not JSON, fails its schema, or has problems is re-asked
        at most `max_retries` times with the problems fed back. Raises LLMWriteError (quoting the last
        raw response) when none passes, LLMCallError when the endpoint gives no reply. Also what a
        corpus source asks its `llm` for (generators/corpus)."""
        messages = self._messages(instructions, reply, fields)
        calls: list[LLMCall] = []
        error, raw = "", ""
        for _ in range(self.src.max_retries + 1):
            key, raw = self._complete(name, reply, messages, seed)
            calls.append(LLMCall(prompt_sha256=key, response=raw))
            try:
                out, problems = accept(reply.model_validate(_parse(raw)))
                if out is not None and not problems:
                    return out, tuple(calls)
            except ValidationError as err:
                problems = [_schema_errors(err)]
            except ValueError as err:
                problems = [str(err)]
            error = "; ".join(problems)
            messages = messages + [{"role": "assistant", "content": raw},
                                   {"role": "user", "content": prompts()["retry"].format(error=error)}]
        raise LLMWriteError(f"{name}: no valid script after {len(calls)} attempt(s): {error}", raw)

    def write(self, scenario: str, seed: int, timing: TimingConfig, language: str = "en",
              harness: HarnessConfig | None = None, voices: VoicesConfig | None = None
              ) -> tuple[Script, ScriptProvenance]:
        """One trajectory's script and its provenance (the row's meta). Raises LLMWriteError when no
        reply passes after `max_retries` re-asks, LLMCallError when the endpoint gives no reply."""
        if scenario not in FAMILIES:
            raise ValueError(f"the llm writer has no prompt for {scenario!r}; it writes {list(FAMILIES)}")
        lang, fam = language_of(language), FAMILIES[scenario]
        fields, _ = self._fields(scenario, seed, lang, self._planner(seed, timing, lang, harness, voices))

        def accept(reply: Any) -> tuple[Script | None, list[str]]:
            p = self._planner(seed, timing, lang, harness, voices)
            _, ctx = self._fields(scenario, seed, lang, p)   # the same draws again, on this attempt's planner
            problems = fam.check(lang, reply, ctx)
            if problems:
                return None, problems
            domain, turns = fam.build(p, fields, reply, ctx)
            script = Script(scenario=scenario, seed=seed, language=language, domain=domain,
                            lead_in_s=p.draw(timing.lead_in_s), tail_s=p.draw(timing.tail_s), turns=tuple(turns))
            problems = lint_script(script)
            return (None, problems) if problems else (script, [])

        script, calls = self.ask(scenario, prompts()["families"][scenario]["instructions"], fam.reply, fields, seed,
                                 accept)
        return script, ScriptProvenance(kind="llm", model=self.src.model or "", prompt=fields, calls=calls)


def writer_for(src: ScriptSourceConfig, out_root: str | Path | None, gate: CallGate | None = None) -> LLMWriter | None:
    """The writer of an llm script source (None for any other kind); its cache lives under the output
    root, and its requests pass `gate` (a job-wide concurrency bound) when given."""
    if src.kind != LLM_KIND:
        return None
    if out_root is None:
        raise ConfigError("script_source: kind llm needs a local output folder for its response cache "
                          f"({CACHE_DIR}/ under it)")
    return LLMWriter(src, Path(out_root) / CACHE_DIR, ChatClient(src, gate=gate))
