"""Deterministic shard planning and the work of one shard (Ray-free; jobs/runner.py wraps it).

Shard i holds trajectories [i*S, (i+1)*S); trajectory j is seeded from (run seed, j) alone, so the
output does not depend on worker count or scheduling. A worker writes its own shard and returns a
small summary, so driver memory stays flat whatever the number of shards.
"""
from __future__ import annotations

import atexit
import functools
import json
import time
import traceback
from collections.abc import Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import AbstractContextManager, nullcontext
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from generators.corpus import check_source as check_corpus_source
from generators.llm import CallGate, check_source
from generators.registry import (ScriptSources, check_sources, families_for, language_for, missing_content,
                                 plan_sourced, scenario_for, scenario_weights, source_for, trajectory_seed,
                                 trajectory_weights)
from generators.text_bank import split_sentences
from generators.version import GENERATOR_VERSION
from generators.voice_bank import COSYVOICE, engine_of, engines_used
from jobs.cosyvoice_actor import TOKENIZER_FILE
from jobs.twins import rows_with_twin
from pipeline.io import Store
from pipeline.compose import known_lines
from pipeline.render import render_trajectory
from pipeline.tts.batch import Prefetched, batch_engine, prefetch
from schemas.arrow import failures_to_table, rows_to_table
from schemas.protocol import NATIVE_TOKENS, RETOKENIZED
from schemas.config import DEFAULT_SCENARIOS, ESPEAK_CAST, ConfigError, RunConfig, VoicesConfig
from schemas.script import Script
from schemas.trajectory import FailedRecord, TrajectoryRow
from schemas.vocab import EventKind

VARIETY_SAMPLE_ROWS = 2000   # assistant text returned to the driver for variety figures, at most


@dataclass(frozen=True)
class ShardPlan:
    index: int
    start: int
    stop: int

    @property
    def name(self) -> str:
        return f"shard-{self.index:05d}"


def num_shards(num: int, shard_size: int) -> int:
    return -(-num // shard_size)


def shard_plan(index: int, num: int, shard_size: int) -> ShardPlan:
    """Shard `index` holds trajectories [index*S, min((index+1)*S, num))."""
    start = index * shard_size
    if not 0 <= start < num:
        raise IndexError(f"shard {index} is outside a run of {num} trajectories in shards of {shard_size}")
    return ShardPlan(index, start, min(start + shard_size, num))


def iter_plans(num: int, shard_size: int) -> Iterator[ShardPlan]:
    """The shard plans in order, lazily (planning a million shards holds one at a time)."""
    for i in range(num_shards(num, shard_size)):
        yield shard_plan(i, num, shard_size)


def plan_shards(num: int, shard_size: int) -> list[ShardPlan]:
    return list(iter_plans(num, shard_size))


def trajectory_id(run_seed: int, shard: int, index: int) -> str:
    return f"s{run_seed}-{shard:05d}-{index:07d}"


def shard_paths(plan: ShardPlan) -> dict[str, str]:
    """Where shard `plan` lives, relative to the output root: rows, failure table, summary sidecar."""
    return {"rows": f"shards/{plan.name}.parquet", "failed": f"failed/{plan.name}.parquet",
            "summary": f"summaries/{plan.name}.json"}


@dataclass
class ShardSummary:
    shard: int
    path: str
    rows: int
    failed: int
    sha256: str
    failed_path: str | None
    failed_sha256: str | None
    audio_s: float
    wall_s: float
    no_speech_tokens: bool
    config_hash: str = ""
    generator_version: str = ""
    twins: int = 0   # twin rows and failed twins: rows + failed = planned trajectories + twins
    assistant_text: list[str] = field(default_factory=list)
    failures: list[dict[str, str]] = field(default_factory=list)
    llm: dict[str, int] = field(default_factory=dict)   # this invocation's LLM calls, errors, cache hits

    def to_json(self) -> dict[str, Any]:
        d = asdict(self)
        d.pop("assistant_text")
        d.pop("llm")   # figures of one invocation, not of the shard's bytes: the driver's progress line
        if not self.twins:   # a run without twins keeps its sidecar as it was
            d.pop("twins")
        return d


def load_tts(cfg: RunConfig) -> Any:
    """This process's backend for the run's voices: built once per process and voices config, not
    once per shard (a Piper worker takes seconds to start), and closed when the process exits."""
    return _tts_for_voices(cfg.voices.model_dump_json())


@functools.cache
def _tts_for_voices(voices_json: str) -> Any:
    """Keyed by the voices config alone: that is all `tts_for_voices` reads, and a backend's
    output is a pure function of (text, voice, rate), so sharing it across shards changes no byte."""
    from pipeline.tts import tts_for_voices
    voices = VoicesConfig.model_validate_json(voices_json)
    clients = None
    if voices.cosyvoice is not None:   # the run's shared CosyVoice actors (the driver started them)
        from jobs.cosyvoice_actor import shared_client
        actors = voices.cosyvoice.actors
        clients = lambda d: shared_client(d, actors)   # noqa: E731
    tts = tts_for_voices(voices, clients)   # espeak-ng, or a router over engines
    close = getattr(tts, "close", None)
    if close is not None:
        atexit.register(close)   # end its engine processes by their pids when this worker exits
    return tts


def tokenizer_path(cfg: RunConfig) -> Path | None:
    """The S3 tokenizer a run tokenizes its assistant channel with: the configured one, else, when
    the assistant speaks CosyVoice, its model folder's own speech_tokenizer_v2.onnx (its tokens are
    native where CosyVoice speaks; this one fills the rest: silence, other engines). None: no tokens."""
    if cfg.speech_tokenizer.onnx_path is not None:
        return cfg.speech_tokenizer.onnx_path
    if cfg.voices.cosyvoice is not None and any(engine_of(v) == COSYVOICE for v in assistant_voices(cfg)):
        return cfg.voices.cosyvoice.model_dir / TOKENIZER_FILE
    return None


def assistant_voices(cfg: RunConfig) -> list[str]:
    """The voice ids the assistant can speak with in this run's languages: per language the
    configured `voices.assistant` where it speaks it, else the cast's (as generators/voices draws)."""
    from generators.voice_bank import by_id, cast_for
    known = by_id(cfg.voices)
    out: list[str] = []
    for code in cfg.language_weights():
        mine = cfg.voices.assistant
        if mine in known and known[mine].language == code:
            out.append(mine)
            continue
        lc = cast_for(cfg.voices.cast, code)
        out += [lc.assistant] if isinstance(lc.assistant, str) else lc.assistant
    return sorted(set(out))


def token_sources(cfg: RunConfig) -> dict[str, str]:
    """{assistant voice: native | retokenized} (manifest `speech_token_source`): CosyVoice's own
    tokens at speed 1.0, the tokenizer's everywhere else. Empty without tokens."""
    if tokenizer_path(cfg) is None:
        return {}
    native = cfg.voices.cosyvoice is not None and cfg.voices.cosyvoice.speed == 1.0
    return {v: NATIVE_TOKENS if native and engine_of(v) == COSYVOICE else RETOKENIZED for v in assistant_voices(cfg)}


def load_tokenizer(cfg: RunConfig) -> Any | None:
    path = tokenizer_path(cfg)
    if path is None:
        return None
    from pipeline.speech_tokens import S3SpeechTokenizer
    return S3SpeechTokenizer(path)


def check_languages(cfg: RunConfig) -> list[str]:
    """The scenario families each language of the run can plan; the notes to print (one line a language).

    A family a language has no content for is left out of that language's mix (the note says which
    and why), unless the config asks for its own families (`scenarios` other than the default mix,
    `--scenario`) in a run of one language: then asking for it is refused. (The default mix is told
    by its value, not by whether it was typed, so a dumped and reloaded config, as `submit` sends,
    is judged the same.) A family no language of the run has, or a language left with no family at
    all, is refused too. Raises ConfigError naming the fields.
    """
    langs = list(cfg.language_weights())
    tools = tuple(cfg.harness.tools)
    explicit = cfg.scenarios != {s: 1.0 for s in DEFAULT_SCENARIOS}
    field = "language" if cfg.languages is None else "languages"
    asked = [s for s, w in cfg.scenarios.items() if w > 0]
    if explicit and len(langs) == 1:
        code = langs[0]
        refused = [s for s in asked if missing_content(s, code, tools)]
        if refused:
            raise ConfigError(f"scenarios: {', '.join(refused)} cannot be made in language {code} "
                              f"({missing_content(refused[0], code, tools)}); families {code} has content for: "
                              f"{', '.join(families_for(code, tools))}")
    for s in asked if explicit else ():
        if all(missing_content(s, code, tools) for code in langs):
            raise ConfigError(f"scenarios: {s} cannot be made in {field} {', '.join(langs)} "
                              f"({missing_content(s, langs[0], tools)}); families {langs[0]} has content for: "
                              f"{', '.join(families_for(langs[0], tools))}")
    notes: list[str] = []
    for code in langs:
        left_out = [s for s in asked if missing_content(s, code, tools)]
        if not left_out:
            continue
        why = missing_content(left_out[0], code, tools)
        if not scenario_weights(cfg, code):
            raise ConfigError(f"scenarios: none of {', '.join(asked)} can be made in {code} ({why}); "
                              f"families {code} has content for: {', '.join(families_for(code, tools))}")
        others = [c for c in langs if c != code]
        notes.append(f"note: {code} rows leave out {', '.join(left_out)} ({why})"
                     + (f"; those families are drawn in {', '.join(others)} only" if others else ""))
    return notes


def preflight(cfg: RunConfig) -> list[str]:
    """The config checks that read files, run once on the driver before any worker starts.

    pydantic (schemas/config.py) checks values, and that files and folders exist; it runs again in
    every worker, so what reads more than that lives here: audio inside noise_dir / rir_dir when
    they are drawn from, and the speech tokenizer ONNX (loadable, S3 signature, 25 Hz output).
    Without it each of these fails every trajectory in the workers. Raises ConfigError. Returns the
    notes of `check_languages` for the driver to print.
    """
    from pipeline.rooms import AUDIO_EXTS, list_audio
    from pipeline.speech_tokens import TokenizerModelError, check_onnx_model

    a = cfg.acoustics
    exts = "/".join(AUDIO_EXTS)
    if a.noise_file_prob > 0 and a.noise_dir is not None and not list_audio(a.noise_dir):
        raise ConfigError(f"acoustics.noise_dir: no {exts} file under {a.noise_dir} "
                          "(noise_file_prob > 0 draws noise files from it)")
    if a.reverb_prob > 0 and "file" in a.reverb_kinds and a.rir_dir is not None and not list_audio(a.rir_dir):
        raise ConfigError(f"acoustics.rir_dir: no {exts} file under {a.rir_dir} (reverb kind 'file' draws RIRs from it)")
    if cfg.speech_tokenizer.onnx_path is not None:
        try:
            check_onnx_model(cfg.speech_tokenizer.onnx_path)
        except TokenizerModelError as err:
            raise ConfigError(f"speech_tokenizer.onnx_path: {err}") from None
    from generators.voice_bank import check_config as check_voices
    check_cosyvoice(cfg)
    check_voices(cfg)
    check_voices_installed(cfg)
    check_source(cfg)
    check_corpus_source(cfg)
    check_video_source(cfg)
    return check_languages(cfg) + check_sources(cfg)


def check_video_source(cfg: RunConfig) -> None:
    """Refuse, before anything is written, a video scene source whose annotations or videos do not read,
    or that holds nothing a visual family the run asks for can use (generators/scenes/video.py)."""
    from generators.scenes.bank import has_visual, visual_bank
    from generators.scenes.video import check_videos
    codes = [code for code in cfg.language_weights() if has_visual(code)]
    states = {code: tuple(visual_bank(code).watch.states) for code in codes}
    stale = {code: (tuple(visual_bank(code).change.states), tuple(visual_bank(code).change.texts)) for code in codes}
    check_videos(cfg, states, stale)


def check_cosyvoice(cfg: RunConfig) -> None:
    """Refuse, before anything is written, a CosyVoice model folder that lacks a file, an instruction
    for a model without instruct mode, a voice whose prompt recording or transcript is missing, and
    a speed that needs a tokenizer none names."""
    c = cfg.voices.cosyvoice
    if c is None:
        return
    from jobs.cosyvoice_actor import check_model_dir, instruct_refusal
    from generators.voice_bank import voices_used
    from pipeline.tts.cosyvoice import PREFIX, load_prompt
    try:
        check_model_dir(c.model_dir)
    except ValueError as err:
        raise ConfigError(f"voices.cosyvoice.model_dir: {err}") from None
    if c.instruct is not None and (why := instruct_refusal(c.model_dir)) is not None:
        raise ConfigError(f"voices.cosyvoice.instruct: {why}")
    for v in voices_used(cfg.voices, cfg.language_weights()):
        if v.startswith(PREFIX):
            try:
                load_prompt(Path(c.model_dir), v[len(PREFIX):])
            except ValueError as err:
                raise ConfigError(f"voices: {err}") from None
            except RuntimeError as err:   # soundfile: not a readable recording
                raise ConfigError(f"voices: cosyvoice voice {v!r}: {c.model_dir}/prompts/{v[len(PREFIX):]}.wav "
                                  f"is not readable audio ({str(err).splitlines()[0] if str(err) else type(err).__name__})") from None
    if c.speed != 1.0 and cfg.speech_tokenizer.onnx_path is None and \
            any(engine_of(v) == COSYVOICE for v in assistant_voices(cfg)):
        raise ConfigError(f"voices.cosyvoice.speed: {c.speed} time-stretches the audio, so the assistant's "
                          "speech tokens must be retokenized: set speech_tokenizer.onnx_path (or speed 1.0 for native tokens)")


def check_voices_installed(cfg: RunConfig) -> None:
    """Refuse, before any worker starts, a run whose voices need an engine this machine lacks (the
    natural default needs scripts/setup.sh's engines); never fall back to other voices, which would
    make the bytes depend on the machine."""
    from generators.voice_bank import by_id, voices_used
    from jobs.voices_cmd import installed

    known = by_id(cfg.voices)
    missing = [i for i in voices_used(cfg.voices, cfg.language_weights()) if not installed(known[i].engine, known[i].source)]
    if missing:
        raise ConfigError(f"voices: {', '.join(missing)} (cast {cfg.voices.cast!r}) not installed here; "
                          f"scripts/setup.sh installs them, or set `voices: {{cast: {ESPEAK_CAST}}}` (espeak-ng only)")


@dataclass(frozen=True)
class _Planned:
    """A trajectory planned and waiting for its group's lines to be rendered."""

    index: int
    tid: str
    seed: int
    scenario: str
    script: Script
    source: dict[str, Any] | None


def batch_size(cfg: RunConfig) -> int:
    """Lines per call to a batching engine (CosyVoice's actors); 1: each line as composition asks."""
    c = cfg.voices.cosyvoice
    return c.batch_size if c is not None and COSYVOICE in engines_used(cfg.voices) else 1


def assistant_text(row: TrajectoryRow) -> str:
    return " ".join(e.text for e in row.events if e.kind == EventKind.ASSISTANT_TURN)


def _script_pool(writer: ScriptSources, plan: ShardPlan) -> AbstractContextManager[ThreadPoolExecutor | None]:
    """The threads a shard task writes LLM scripts on (`ScriptSources.threads`); None: one at a time."""
    n = writer.threads(plan.stop - plan.start)
    return ThreadPoolExecutor(n, thread_name_prefix="llm-script") if n > 1 else nullcontext()


def _write_ahead(cfg: RunConfig, plan: ShardPlan, writer: ScriptSources, pool: ThreadPoolExecutor | None,
                 planted: set[str]) -> dict[int, Future[tuple[Script, dict[str, Any] | None]]]:
    """Start every LLM-written script of the shard on `pool`, so their requests are in flight together
    (each waits for a permit of the job-wide gate, if any) while the shard renders in order.

    A script depends on its trajectory's seed alone and the shard takes the results in trajectory
    order, so the rows are the bytes a one-at-a-time run writes. A trajectory whose draws fail here is
    left to the loop, which meets the same error in its own try and records it.
    """
    if pool is None:
        return {}
    out: dict[int, Future[tuple[Script, dict[str, Any] | None]]] = {}
    for j in range(plan.start, plan.stop):
        if trajectory_id(cfg.seed, plan.index, j) in planted:
            continue
        try:
            seed = trajectory_seed(cfg.seed, j)
            if not writer.waits_on_llm(seed):
                continue
            lang = language_for(cfg, seed)
            scenario = scenario_for(j, cfg.seed, trajectory_weights(cfg, lang, seed))
        except Exception:  # noqa: BLE001 - the loop records it
            continue
        out[j] = pool.submit(plan_sourced, cfg, scenario, seed, lang, writer, j)
    return out


def run_shard(cfg: RunConfig, plan: ShardPlan, out: str | Path | Store, tts: Any = None,
              tokenizer: Any = None, faults: dict[str, Any] | None = None,
              gates: Sequence[CallGate | None] = ()) -> ShardSummary:
    """Render and write one shard. A trajectory that raises becomes a FailedRecord; the rest go on.

    `faults` is the test-only fault plan of jobs.runner.read_faults: its "rows" (trajectory ids)
    raise inside the per-trajectory try, so each becomes a failed record. It is not config: it
    does not change the config hash.

    `gates`: per script source entry, the job-wide bound on its LLM requests in flight (jobs/llm_gate.py).

    Files land under temp names and are renamed into place: the failure table first, then the
    rows, then the summary sidecar (sha256 of both), so a sidecar always describes whole files.
    """
    t0 = time.perf_counter()
    store = out if isinstance(out, Store) else Store(out)
    tts = tts if tts is not None else load_tts(cfg)
    tokenizer = tokenizer if tokenizer is not None else load_tokenizer(cfg)
    rows: list[TrajectoryRow] = []
    failures: list[FailedRecord] = []
    planted = set((faults or {}).get("rows", ()))
    twins = 0   # twin rows (or failed twins) beyond the shard's planned trajectories
    writer = source_for(cfg, store.local, gates)   # an LLM's cache is under the root
    batch = batch_size(cfg)

    def failed(tid: str, seed: int, scenario: str, j: int, err: Exception) -> FailedRecord:
        return FailedRecord(id=tid, seed=seed, scenario=scenario, shard=plan.index, index=j,
                            error=f"{type(err).__name__}: {err}", traceback=traceback.format_exc())

    group: list[_Planned | FailedRecord] = []   # planned trajectories whose lines are gathered, in order
    lines: list[tuple[str, Any]] = []

    def render_group() -> None:
        nonlocal twins
        speaker = tts
        if lines:   # the batching engine's lines of the whole group, in calls of `batch` (same bytes as alone)
            speaker = Prefetched(tts, prefetch(tts, lines, cfg.sample_rate, batch), cfg.sample_rate)
        for p in group:
            if isinstance(p, FailedRecord):
                failures.append(p)
                continue
            try:
                row = render_trajectory(cfg=cfg, traj_id=p.tid, script=p.script, tts=speaker, tokenizer=tokenizer,
                                        source=p.source)
                made, twin_failure, attempted = rows_with_twin(cfg, row, p.script, speaker, tokenizer, p.source,
                                                               plan.index, p.index)
                rows.extend(made)
                failures.extend([twin_failure] if twin_failure is not None else [])
                twins += attempted
            except Exception as err:  # noqa: BLE001 - every failure is recorded, never dropped
                failures.append(failed(p.tid, p.seed, p.scenario, p.index, err))
        group.clear()
        lines.clear()

    with _script_pool(writer, plan) as pool:
        written = _write_ahead(cfg, plan, writer, pool, planted)
        for j in range(plan.start, plan.stop):
            tid = trajectory_id(cfg.seed, plan.index, j)
            seed, scenario = -1, ""   # -1 / "": what a record says if the seed or scenario itself failed
            try:
                seed = trajectory_seed(cfg.seed, j)
                lang = language_for(cfg, seed)
                scenario = scenario_for(j, cfg.seed, trajectory_weights(cfg, lang, seed))
                if tid in planted:
                    raise RuntimeError(f"planted failure for {tid} (DUPLEXSYNTH_FAULTS row:{tid})")
                # planning is a generator's; an LLM-written script was started on the pool, in order
                script, source = written[j].result() if j in written else plan_sourced(cfg, scenario, seed, lang,
                                                                                         writer, j)
                if batch > 1:
                    lines.extend(ln for ln in known_lines(script) if batch_engine(tts, ln[1]) is not None)
                group.append(_Planned(j, tid, seed, scenario, script, source))
            except Exception as err:  # noqa: BLE001 - every failure is recorded, never dropped
                group.append(failed(tid, seed, scenario, j, err))
            if len(lines) >= batch or batch == 1 or j == plan.stop - 1:
                render_group()
    paths = shard_paths(plan)
    store.remove(paths["summary"])   # the old sidecar must not vouch for files being rewritten
    failed_sha = None
    if failures:
        failed_sha = store.write_parquet(failures_to_table(failures), paths["failed"])
    else:
        store.remove(paths["failed"])
    sha = store.write_parquet(rows_to_table(rows), paths["rows"])
    summary = ShardSummary(
        shard=plan.index, path=paths["rows"], rows=len(rows), failed=len(failures),
        sha256=sha, failed_path=paths["failed"] if failures else None,
        failed_sha256=failed_sha, audio_s=float(sum(r.duration_s for r in rows)),
        wall_s=time.perf_counter() - t0, no_speech_tokens=tokenizer is None, config_hash=cfg.config_hash(),
        generator_version=GENERATOR_VERSION, twins=twins,
        assistant_text=[assistant_text(r) for r in rows] if plan.start < VARIETY_SAMPLE_ROWS else [],
        failures=[{"id": f.id, "scenario": f.scenario, "error": f.error} for f in failures],
        llm=asdict(writer.stats()) if writer.has_llm else {},
    )
    store.write_json(paths["summary"], summary.to_json())
    return summary


def check_shard(out: str | Path | Store, plan: ShardPlan, config_hash: str | None = None
                ) -> tuple[dict[str, Any] | None, str]:
    """(stored summary, "") when the shard's files match its sidecar, else (None, why it must be redone).

    The sidecar (summaries/shard-NNNNN.json) holds the sha256 of the rows file and of the failure
    table; it is written after both, so a shard without one was interrupted. `config_hash`, when
    given, must match the one the shard was made with.
    """
    store = out if isinstance(out, Store) else Store(out)
    paths = shard_paths(plan)
    try:
        summary = json.loads(store.read_bytes(paths["summary"]))
    except FileNotFoundError:
        return None, "missing" if not store.exists(paths["rows"]) else "no summary sidecar (interrupted)"
    except (OSError, ValueError) as err:
        return None, f"unreadable summary sidecar ({type(err).__name__})"
    try:
        if (summary["shard"] != plan.index
                or summary["rows"] + summary["failed"] - summary.get("twins", 0) != plan.stop - plan.start):
            return None, "sidecar describes another shard layout"
        if config_hash is not None and summary.get("config_hash", config_hash) != config_hash:
            return None, "made with another config"
        if summary.get("generator_version") != GENERATOR_VERSION:   # rows of another format: redo, never mix
            return None, f"made by generator {summary.get('generator_version') or '< 0.2.0'} (this is {GENERATOR_VERSION})"
        # the sidecar may only name this shard's own files: never hash or read anything else
        for key, own in (("path", paths["rows"]), ("failed_path", paths["failed"])):
            named = summary[key] if key == "path" else summary.get(key)
            if named != own and not (key == "failed_path" and named is None):
                return None, (f"sidecar names a path outside the dataset or not this shard's "
                              f"({key} {named!r}, expected {own!r})")
        for key, sha_key in (("path", "sha256"), ("failed_path", "failed_sha256")):
            if summary.get(sha_key) is None:
                continue
            try:
                actual = store.sha256(summary[key])
            except (FileNotFoundError, OSError):
                return None, f"{summary[key]} missing"
            if actual != summary[sha_key]:
                return None, f"{summary[key]} sha256 differs from its sidecar (corrupt)"
    except (KeyError, TypeError):
        return None, "summary sidecar lacks fields"
    return summary, ""


def shard_is_complete(out: str | Path | Store, plan: ShardPlan, config_hash: str | None = None
                      ) -> dict[str, Any] | None:
    """The stored summary if the shard on disk matches its sidecar sha256, else None (redo it)."""
    return check_shard(out, plan, config_hash)[0]


def variety(texts: list[str]) -> dict[str, Any]:
    """distinct-2 of assistant text and the share of the most frequent assistant sentence."""
    from generators.text_bank import distinct_n, max_sentence_share
    sentences = [s for t in texts for s in split_sentences(t)]
    share, top = max_sentence_share(sentences) if sentences else (0.0, "")
    return {"distinct_2": distinct_n(texts, 2) if texts else 0.0, "max_sentence_share": share,
            "top_sentence": top, "rows": len(texts), "sentences": len(sentences)}
