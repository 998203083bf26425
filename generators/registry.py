"""Scenario registry and the per-trajectory plan entry point."""
from __future__ import annotations

from collections.abc import Iterable
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np

from generators import text_bank as tb
from generators.common import PlanFn, Planner
from generators.corpus import CorpusSource, corpus_for
from generators.llm import LLMWriter, writer_for
from generators.scenarios import (conversation, delegation, interruption, overlay, pause, proactive_timer,
                                  turn_taking, visual)
from generators.scenes.bank import has_visual
from generators.version import GENERATOR_VERSION  # noqa: F401 - re-exported for jobs (manifest)
from schemas.language import language as language_of
from schemas.config import SCENARIOS, HarnessConfig, RunConfig, Scenario, TimingConfig, VoicesConfig
from schemas.script import Script

# Scenario family (schemas/config.py SCENARIOS names them) -> its planner: the one place a family
# is wired in. tests/test_scenario_registry.py checks it covers exactly SCENARIOS.
PLANNERS: dict[str, PlanFn] = {
    Scenario.TURN_TAKING: turn_taking.plan,
    Scenario.PAUSE: pause.plan,
    Scenario.BACKCHANNEL: partial(overlay.plan, fam=overlay.BACKCHANNEL),
    Scenario.INTERRUPTION_DISCARD: interruption.plan_discard,
    Scenario.INTERRUPTION_REPAIR: interruption.plan_repair,
    Scenario.INTERRUPTION_PARK: interruption.plan_park,
    Scenario.OTHER_DIRECTED: partial(overlay.plan, fam=overlay.OTHER_DIRECTED),
    Scenario.BACKGROUND_SPEECH: partial(overlay.plan, fam=overlay.BACKGROUND_SPEECH),
    Scenario.DELEGATION: delegation.plan,
    Scenario.DELEGATION_MULTI: delegation.plan_multi,
    Scenario.DELEGATION_CANCEL: delegation.plan_cancel,
    Scenario.DELEGATION_REVISE: delegation.plan_revise,
    Scenario.DELEGATION_FAILURE: delegation.plan_failure,
    Scenario.PROACTIVE_TIMER: proactive_timer.plan,
    Scenario.CONVERSATION: conversation.plan,
    Scenario.VISUAL_QA: visual.plan,
    Scenario.VISUAL_WATCH: visual.plan_watch,
    Scenario.VISUAL_CHANGE: visual.plan_change,
}


# Families whose planners draw delegated requests: a language runs them only when its bank has some.
DELEGATION_FAMILIES: frozenset[str] = frozenset({
    Scenario.DELEGATION, Scenario.DELEGATION_MULTI, Scenario.DELEGATION_CANCEL, Scenario.DELEGATION_REVISE,
    Scenario.DELEGATION_FAILURE})
# Families that draw visual lines (generators/banks/<lang>/visual.yaml) and render frames.
VISUAL_FAMILIES: frozenset[str] = frozenset({Scenario.VISUAL_QA, Scenario.VISUAL_WATCH, Scenario.VISUAL_CHANGE})
# A stream of the trajectory seed of its own for the language draw, so the planner's draws stay as they were.
_LANGUAGE_STREAM = 0x6C616E67


def missing_content(scenario: str, language: str, tools: Iterable[str] | None = None) -> str:
    """Why `scenario` cannot be planned in `language` ("" when it can): the content it needs is not in the
    bank, or (with `tools`, the harness tools a run enables) none of it is for those tools."""
    if scenario in VISUAL_FAMILIES and not has_visual(language):
        return f"the {language} text bank has no visual lines (visual.yaml)"
    if scenario in DELEGATION_FAMILIES:
        if not tb.has_delegations(language):
            return f"the {language} text bank has no delegated requests"
        if tools is not None and not tb.has_delegations(language, tools):
            return f"the {language} text bank has no delegated requests for the tools enabled ({', '.join(tools)})"
        if scenario == Scenario.DELEGATION_MULTI and not tb.has_delegations(language, tools, domains=2):
            return f"the {language} text bank has delegated requests in one domain only (tasks in flight need two)"
    return ""


def families_for(language: str, tools: Iterable[str] | None = None) -> tuple[str, ...]:
    """The scenario families a language's text bank has the content for, in SCENARIOS order."""
    return tuple(s for s in SCENARIOS if not missing_content(s, language, tools))


def language_for(cfg: RunConfig, seed: int) -> str:
    """The language of one trajectory: the run's, or one of its weighted mix drawn from the trajectory's
    seed alone (its own stream), so worker counts and shard layouts never change it."""
    weights = cfg.language_weights()
    if cfg.languages is None or len(weights) == 1:
        return next(iter(weights))
    rng = np.random.default_rng([seed, _LANGUAGE_STREAM])
    codes = list(weights)
    w = np.array([weights[c] for c in codes], dtype=np.float64)
    return codes[int(rng.choice(len(codes), p=w / w.sum()))]


def scenario_weights(cfg: RunConfig, language: str) -> dict[str, float]:
    """The run's scenario mix for trajectories in `language`: the families it has no content for left out."""
    return {s: w for s, w in cfg.scenarios.items() if not missing_content(s, language, cfg.harness.tools)}


def plan_script(scenario: str, seed: int, timing: TimingConfig, language: str = "en",
                harness: HarnessConfig | None = None, voices: VoicesConfig | None = None) -> Script:
    """Draw one trajectory's script. Every draw comes from `seed` alone."""
    if scenario not in PLANNERS:
        raise ValueError(f"unknown scenario {scenario!r}; known: {[s.value for s in PLANNERS]}")
    rng = np.random.default_rng(seed)
    p = Planner.create(rng, timing, harness, lang=language_of(language), voices=voices)
    domain, turns = PLANNERS[scenario](p)
    return Script(scenario=scenario, seed=seed, language=language, domain=domain,
                  lead_in_s=p.draw(timing.lead_in_s), tail_s=p.draw(timing.tail_s), turns=tuple(turns),
                  scene=p.scene)


def plan_trajectory(cfg: RunConfig, scenario: str, seed: int, language: str | None = None) -> Script:
    """`plan_script` with the timing, language and harness of a run config: what jobs render.
    `language` is the trajectory's (`language_for`); None: the run's own `language`."""
    return plan_script(scenario, seed, cfg.timing, cfg.language if language is None else language, cfg.harness,
                       cfg.voices)


ScriptWriter = LLMWriter | CorpusSource   # a script source other than the procedural planners


def source_for(cfg: RunConfig, out_root: str | Path | None) -> ScriptWriter | None:
    """The run's script source for `plan_sourced` (None: the procedural planners). An LLM's response
    cache lives under `out_root`; a corpus is opened (and indexed once per process)."""
    return writer_for(cfg, out_root) or corpus_for(cfg)


def plan_sourced(cfg: RunConfig, scenario: str, seed: int, language: str | None = None,
                 writer: ScriptWriter | None = None, index: int = 0) -> tuple[Script, dict[str, Any] | None]:
    """The trajectory's script from the run's script source, and its provenance for the row's meta
    (None from the procedural planners, whose rows stay as they were). `writer`: `source_for(cfg, out)`;
    `index`: the trajectory's index in the run (a corpus speaks its records in order)."""
    if writer is None:
        return plan_trajectory(cfg, scenario, seed, language), None
    lang = cfg.language if language is None else language
    if isinstance(writer, CorpusSource):
        script, prov = writer.write(index, scenario, seed, cfg.timing, lang, cfg.harness, cfg.voices)
        return script, prov.model_dump(mode="json")
    written, source = writer.write(scenario, seed, cfg.timing, lang, cfg.harness, cfg.voices)
    return written, source.model_dump(mode="json")


def trajectory_seed(run_seed: int, index: int) -> int:
    """The per-trajectory seed: a function of (run seed, global index) only. Both must be >= 0
    (RunConfig refuses a negative run seed; numpy's SeedSequence would raise on one)."""
    if run_seed < 0 or index < 0:
        raise ValueError(f"trajectory_seed needs a run seed and index >= 0, got {run_seed}, {index}")
    return int(np.random.SeedSequence([run_seed, index]).generate_state(1, dtype=np.uint64)[0] >> 1)


def scenario_for(index: int, run_seed: int, weights: dict[str, float]) -> str:
    """Weighted scenario choice by a golden-ratio sequence: any prefix of indices covers the mix evenly."""
    names = [s for s in SCENARIOS if weights.get(s, 0.0) > 0]
    w = np.array([weights[s] for s in names], dtype=np.float64)
    edges = np.cumsum(w / w.sum())
    offset = (run_seed * 0.7548776662466927) % 1.0
    u = (offset + index * 0.6180339887498949) % 1.0
    return names[min(int(np.searchsorted(edges, u, side="right")), len(names) - 1)]
