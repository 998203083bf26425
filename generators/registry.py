"""Scenario registry and the per-trajectory plan entry point."""
from __future__ import annotations

from collections.abc import Iterable, Sequence
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np

from generators import text_bank as tb
from generators.common import PlanFn, Planner
from generators.corpus import CorpusSource, corpus_for, families_of
from generators.llm import FAMILIES as LLM_FAMILIES
from generators.llm import CallGate, LLMFigures, LLMWriter, writer_for
from generators.scenarios import (conversation, delegation, interruption, overlay, pause, proactive_timer,
                                  turn_taking, visual)
from generators.scenes.bank import has_visual, visual_bank
from generators.scenes.video import VideoLibrary, pinned_library
from generators.text_lint import lint_script
from generators.version import GENERATOR_VERSION  # noqa: F401 - re-exported for jobs (manifest)
from schemas.language import language as language_of
from schemas.config import (CORPUS_KIND, LLM_KIND, LLM_SHARD_THREADS, MAX_LLM_SHARD_THREADS, OMNI_SCENARIOS,
                            PROCEDURAL_KIND, SCENARIOS, VIDEO_KIND, ConfigError, HarnessConfig, RunConfig, Scenario,
                            ScriptSourceConfig, TimingConfig, VoicesConfig)
from schemas.provenance import ProceduralProvenance
from schemas.script import Script
from schemas.thresholds import DEFAULT_UNIT_S

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
    Scenario.VISUAL_INTERRUPTION: visual.plan_correct,
    Scenario.VISUAL_DELEGATION: visual.plan_lookup,
}


# Families whose planners draw delegated requests: a language runs them only when its bank has some.
DELEGATION_FAMILIES: frozenset[str] = frozenset({
    Scenario.DELEGATION, Scenario.DELEGATION_MULTI, Scenario.DELEGATION_CANCEL, Scenario.DELEGATION_REVISE,
    Scenario.DELEGATION_FAILURE})
# Families that draw visual lines (generators/banks/<lang>/visual.yaml) and render frames.
VISUAL_FAMILIES: frozenset[str] = frozenset(OMNI_SCENARIOS)
# A stream of the trajectory seed of its own for the language draw, so the planner's draws stay as they were.
_LANGUAGE_STREAM = 0x6C616E67
# A stream of its own for the draw of a trajectory's script source in a mix (`script_sources`).
_SOURCE_STREAM = 0x73726365
# A stream of its own for the seeds of the redraws of a script its own text lint rejects, and how many.
_LINT_STREAM = 0x6C696E74
LINT_REDRAWS = 4


class ScriptLintError(ValueError):
    """A planned script the text lint (validate's text_lint) rejects in its draw and every redraw."""


def missing_content(scenario: str, language: str, tools: Iterable[str] | None = None) -> str:
    """Why `scenario` cannot be planned in `language` ("" when it can): the content it needs is not in the
    bank, or (with `tools`, the harness tools a run enables) none of it is for those tools."""
    if scenario in VISUAL_FAMILIES and not has_visual(language):
        return f"the {language} text bank has no visual lines (visual.yaml)"
    if scenario == Scenario.VISUAL_DELEGATION:
        lookup = visual_bank(language).lookup
        if lookup is None or not tb.has_delegation_spec(language, lookup.spec, tools):
            return (f"the {language} text bank has no visual lookup (visual.yaml `lookup` and its delegated request)"
                    + (f" for the tools enabled ({', '.join(tools)})" if tools is not None else ""))
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


def scenario_weights(cfg: RunConfig, language: str, source: ScriptSourceConfig | None = None) -> dict[str, float]:
    """The run's scenario mix for trajectories in `language`: the families it has no content for left out,
    and, in a mix of script sources, those the trajectory's `source` cannot write."""
    mix = {s: w for s, w in cfg.scenarios.items() if not missing_content(s, language, cfg.harness.tools)}
    if source is None or cfg.script_sources is None:
        return mix
    own = source_families(source)
    return {s: w for s, w in mix.items() if s in own}


def trajectory_weights(cfg: RunConfig, language: str, seed: int) -> dict[str, float]:
    """The scenario mix a trajectory of `language` and `seed` draws from (its source's families)."""
    return scenario_weights(cfg, language, cfg.source_entries()[source_of(cfg, seed)])


def redraw_seed(seed: int, attempt: int) -> int:
    """The seed of redraw `attempt` (1, 2, ...) of the trajectory of `seed`: a function of the two alone."""
    return int(np.random.SeedSequence([seed, _LINT_STREAM, attempt]).generate_state(1, dtype=np.uint64)[0] >> 1)


def _draw_script(scenario: str, seed: int, timing: TimingConfig, language: str, harness: HarnessConfig | None,
                 voices: VoicesConfig | None, videos: VideoLibrary | None, unit_s: float) -> Script:
    rng = np.random.default_rng(seed)
    p = Planner.create(rng, timing, harness, lang=language_of(language), voices=voices)
    p.videos, p.unit_s = videos, unit_s
    domain, turns = PLANNERS[scenario](p)
    return Script(scenario=scenario, seed=seed, language=language, domain=domain,
                  lead_in_s=p.draw(timing.lead_in_s), tail_s=p.draw(timing.tail_s), turns=tuple(turns),
                  scene=p.scene)


def plan_script(scenario: str, seed: int, timing: TimingConfig, language: str = "en",
                harness: HarnessConfig | None = None, voices: VoicesConfig | None = None,
                videos: VideoLibrary | None = None, unit_s: float = DEFAULT_UNIT_S) -> Script:
    """Draw one trajectory's script. Every draw comes from `seed` alone. `videos`: the annotated videos
    the Omni families take their scenes from (None: procedural scenes); `unit_s`: the run's unit.

    A script the text lint rejects (validate would refuse its row: issue #28 found 1 in 300) is drawn
    again from `redraw_seed(seed, 1)`, `(seed, 2)`... up to LINT_REDRAWS times; the script kept carries the
    seed it was drawn from, so planning that seed gives it back. When every draw is rejected the
    trajectory fails (ScriptLintError naming the hits: a failed record, never a row validate refuses)."""
    if scenario not in PLANNERS:
        raise ValueError(f"unknown scenario {scenario!r}; known: {[s.value for s in PLANNERS]}")
    hits: list[str] = []
    for attempt in range(LINT_REDRAWS + 1):
        script = _draw_script(scenario, seed if attempt == 0 else redraw_seed(seed, attempt), timing, language,
                              harness, voices, videos, unit_s)
        hits = lint_script(script)
        if not hits:
            return script
    raise ScriptLintError(f"{scenario} seed {seed}: the text lint rejects its script and all {LINT_REDRAWS} "
                          f"redraws; the last: {'; '.join(hits[:3])}")


def plan_trajectory(cfg: RunConfig, scenario: str, seed: int, language: str | None = None) -> Script:
    """`plan_script` with the timing, language and harness of a run config: what jobs render.
    `language` is the trajectory's (`language_for`); None: the run's own `language`."""
    videos = pinned_library(cfg.scene_source) if cfg.scene_source.kind == VIDEO_KIND else None
    return plan_script(scenario, seed, cfg.timing, cfg.language if language is None else language, cfg.harness,
                       cfg.voices, videos, cfg.unit_s)


ScriptWriter = LLMWriter | CorpusSource   # a script source other than the procedural planners


def source_families(src: ScriptSourceConfig) -> tuple[str, ...]:
    """The scenario families a script source can write, in SCENARIOS order."""
    own = {LLM_KIND: tuple(LLM_FAMILIES), CORPUS_KIND: families_of(src)}.get(src.kind)
    return SCENARIOS if own is None else tuple(s for s in SCENARIOS if s in own)


def source_of(cfg: RunConfig, seed: int) -> int:
    """Which entry of `cfg.source_entries()` writes a trajectory: the only one, or one of the weighted mix
    drawn from the trajectory's seed alone (a stream of its own, so no other draw changes)."""
    entries = cfg.source_entries()
    if len(entries) == 1:
        return 0
    w = np.array([e.weight for e in entries], dtype=np.float64)
    return int(np.random.default_rng([seed, _SOURCE_STREAM]).choice(len(entries), p=w / w.sum()))


def _llm_of(w: "ScriptWriter | None") -> LLMWriter | None:
    """The LLM writer a script source's scripts wait on: an llm source's own, a corpus's (its `llm`)."""
    if isinstance(w, LLMWriter):
        return w
    return w.llm if isinstance(w, CorpusSource) else None


class ScriptSources:
    """The writers of a run's script sources, one per entry of `cfg.source_entries()` (None: the
    procedural planners). Built once per shard; `stats()` sums the LLM figures of the shard."""

    def __init__(self, cfg: RunConfig, out_root: str | Path | None, gates: Sequence[CallGate | None] = ()):
        self.cfg = cfg
        self.mixed = cfg.script_sources is not None
        entries = cfg.source_entries()
        gates = list(gates) + [None] * (len(entries) - len(gates))
        self.writers: list[ScriptWriter | None] = [writer_for(e, out_root, g) or corpus_for(e, out_root, g)
                                                   for e, g in zip(entries, gates)]

    def _llms(self) -> list[LLMWriter]:
        return [w for w in map(_llm_of, self.writers) if w is not None]

    def stats(self) -> LLMFigures:
        """The LLM requests sent, failed and answered from the cache by these writers so far."""
        llm = self._llms()
        return LLMFigures(calls=sum(w.client.calls for w in llm), errors=sum(w.client.errors for w in llm),
                          cache_hits=sum(w.cache.hits for w in llm))

    @property
    def has_llm(self) -> bool:
        return bool(self._llms())

    def waits_on_llm(self, seed: int) -> bool:
        """Whether the trajectory of `seed` is written by a source that may call an LLM (one worth
        writing on a thread of its own while the shard renders others)."""
        return _llm_of(self.writers[source_of(self.cfg, seed)]) is not None

    def threads(self, trajectories: int) -> int:
        """Scripts a shard task of `trajectories` writes at once: the job-wide bound of its LLM sources
        (`max_concurrency`, the largest) or LLM_SHARD_THREADS without one, at most
        MAX_LLM_SHARD_THREADS; 1 when no source calls an LLM."""
        bounds = [w.src.max_concurrency for w in self._llms()]
        if not bounds:
            return 1
        want = max(b if b > 0 else LLM_SHARD_THREADS for b in bounds)
        return max(1, min(want, MAX_LLM_SHARD_THREADS, trajectories))


def source_for(cfg: RunConfig, out_root: str | Path | None, gates: Sequence[CallGate | None] = ()) -> ScriptSources:
    """The run's script sources for `plan_sourced`. An LLM's response cache lives under `out_root`, and
    entry i's requests pass `gates[i]` (a job-wide concurrency bound, jobs/llm_gate.py) when given; a
    corpus is opened (once per process)."""
    return ScriptSources(cfg, out_root, gates)


def plan_sourced(cfg: RunConfig, scenario: str, seed: int, language: str | None = None,
                 writer: ScriptSources | None = None, index: int = 0) -> tuple[Script, dict[str, Any] | None]:
    """The trajectory's script from its script source (`source_of`), and its provenance for the row's
    meta (None from the procedural planners in a run of one source, whose rows stay as they were).
    `writer`: `source_for(cfg, out)` (None: the procedural planners); `index`: the trajectory's index in
    the run (a corpus speaks its records in order)."""
    if writer is None:
        return plan_trajectory(cfg, scenario, seed, language), None
    one = writer.writers[source_of(cfg, seed)]
    lang = cfg.language if language is None else language
    if one is None:
        script = plan_trajectory(cfg, scenario, seed, lang)
        return script, ProceduralProvenance(kind=PROCEDURAL_KIND).model_dump(mode="json") if writer.mixed else None
    if isinstance(one, CorpusSource):
        script, prov = one.write(index, scenario, seed, cfg.timing, lang, cfg.harness, cfg.voices)
        return script, prov.model_dump(mode="json")
    written, source = one.write(scenario, seed, cfg.timing, lang, cfg.harness, cfg.voices)
    return written, source.model_dump(mode="json")


def check_sources(cfg: RunConfig) -> list[str]:
    """The families each script source of a mix writes; the notes to print (one line a source).

    A family a source cannot write is drawn by the mix's other sources only (the note says so); a
    family no source of the mix can write, or a source (in some language of the run) left with no
    family, is refused: ConfigError naming `script_sources`. A run of one source is judged by its
    own kind's check_source (an llm or corpus run asking for a family it cannot write is refused).
    """
    if cfg.script_sources is None:
        return []
    entries = cfg.script_sources
    asked = [s for s, w in cfg.scenarios.items() if w > 0]
    for s in asked:
        if not any(s in source_families(e) for e in entries):
            raise ConfigError(f"script_sources: no source of the mix writes {s} "
                              f"({', '.join(sorted({e.kind for e in entries}))} do not); set scenarios without it")
    notes = []
    for i, e in enumerate(entries):
        for code in cfg.language_weights():
            if not scenario_weights(cfg, code, e):
                raise ConfigError(f"script_sources[{i}]: kind {e.kind} writes none of the run's scenarios in {code} "
                                  f"(it writes {', '.join(source_families(e))})")
        left = [s for s in asked if s not in source_families(e)]
        if left:
            notes.append(f"note: script_sources[{i}] (kind {e.kind}) leaves out {', '.join(left)}; "
                         "those families are drawn by the other sources only")
    return notes


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
