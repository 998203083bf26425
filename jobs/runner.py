"""Run a generation job on Ray: one task per shard, bounded in flight, resumable, manifest last.

The same code runs everywhere: `duplexsynth generate` starts an embedded local Ray (or attaches with
`--address`), and a job sent by `duplexsynth submit` runs `duplexsynth generate --address auto`
inside the cluster.

- Planning is deterministic (jobs/shards.py): shard i holds trajectories [i*S, (i+1)*S).
- Each task owns one shard: it verifies the files already there against their sha256 sidecar and
  returns at once when they match, or renders the shard, writes it (temp name, then rename) and
  returns a summary of a few hundred bytes. The driver never sees rows, so its memory does not
  grow with the data, and at most `max_in_flight` tasks exist at a time.
- A trajectory that raises is a failed record in the shard's failure table. A task that raises or
  whose worker dies is retried by Ray (`max_shard_attempts` in all); a shard that fails every attempt
  is reported and the run is incomplete: no manifest, non-zero exit. Rerunning redoes only what is
  missing, corrupt or incomplete.
- The manifest is written last; its presence means the dataset is complete.
- A corpus source's content fingerprint is pinned into the config before the resume check, so an
  edited corpus is a changed config. An llm source with `max_concurrency` has its requests pass one
  gate actor (jobs/llm_gate.py) across all tasks; each task returns its LLM calls, failed calls and
  cache hits for the progress line.

Fault injection for tests (never set in production): DUPLEXSYNTH_FAULTS="raise:3,exit:4,exit-once:5"
makes shard 3 raise on every attempt, kills the worker process of shard 4 on every attempt
(os._exit, as a kill -9 would), and kills it on the first attempt of shard 5 only (marker files in
DUPLEXSYNTH_FAULTS_DIR); "row:s3-00000-0000001" makes that one trajectory raise, so it becomes a
failed record of its shard. The driver reads them and hands them to the tasks; they are not part of
the config, so they do not change its hash.
"""
from __future__ import annotations

import json
import os
import re
import sys
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from generators.version import GENERATOR_VERSION
from generators.corpus import pin_corpus
from generators.scenes.video import pin_videos
from generators.llm import LLMFigures
from generators.llm.cache import CACHE_DIR
from jobs.card import CARD, CardRefused, Counts, check_card_slot, count_shard, dataset_card, write_card
from jobs.llm_gate import gate_of, start_gates
from jobs.lock import output_lock
from jobs.shards import (
    ShardPlan, check_shard, iter_plans, num_shards, preflight, run_shard, shard_paths, token_sources, tokenizer_path,
    variety,
)
from pipeline.io import Store
from schemas.bounds import reachable
from schemas.config import LLM_KIND, ConfigError, RunConfig, dump_config, parse_config
from schemas.errors import UsageError
from schemas.protocol import SPEECH_CODEBOOK, SPEECH_TOKEN_SOURCE_KEY, SPEECH_TOKENS_PER_SECOND

MANIFEST = "manifest.json"
CONFIG_FILE = "config.yaml"
OUTPUT_DIRS = ("shards", "failed", "summaries")
# The names this project writes, per folder ("" is the root): --force-new-run and temp cleanup
# touch nothing else, so a user's own file in the output folder is never deleted.
OWN_FILES: dict[str, re.Pattern[str]] = {
    "": re.compile(r"manifest\.json|config\.yaml|README\.md"),
    "shards": re.compile(r"shard-\d{5,}\.parquet"),
    "failed": re.compile(r"shard-\d{5,}\.parquet"),
    "summaries": re.compile(r"shard-\d{5,}\.json"),
}
MANIFEST_KEYS = ("shard", "path", "rows", "failed", "sha256", "failed_path", "failed_sha256", "audio_s")
MAX_FAILURE_EXAMPLES = 20


class RunRefused(UsageError, RuntimeError):
    """The output folder holds a different run; the message says how to proceed."""


@dataclass
class RunResult:
    out: str
    num: int = 0
    shards: int = 0
    rows: int = 0
    failed: int = 0
    audio_s: float = 0.0
    wall_s: float = 0.0
    new_audio_s: float = 0.0          # audio rendered by this invocation (skipped shards excluded)
    shards_done: int = 0              # rendered by this invocation
    shards_skipped: int = 0           # already complete and verified
    shards_redone: dict[int, str] = field(default_factory=dict)       # shard -> why it was redone
    shards_incomplete: list[int] = field(default_factory=list)
    shard_errors: dict[int, str] = field(default_factory=dict)        # shard -> last error
    failure_examples: list[dict[str, str]] = field(default_factory=list)
    variety: dict[str, Any] = field(default_factory=dict)
    speech_tokens: bool = False
    manifest: str | None = None
    llm: LLMFigures | None = None     # LLM calls, failed calls, cache hits of this invocation (llm runs)

    @property
    def ok(self) -> bool:
        return not self.shards_incomplete


def _changed(old: Any, new: Any, at: str = "") -> list[str]:
    """The dotted paths where two config dumps differ (a mapping's keys, a list's items), depth first."""
    if isinstance(old, dict) and isinstance(new, dict):
        return [p for k in sorted(set(old) | set(new), key=str)
                for p in _changed(old.get(k), new.get(k), f"{at}.{k}" if at else str(k))]
    if isinstance(old, list) and isinstance(new, list) and len(old) == len(new):
        return [p for i, (a, b) in enumerate(zip(old, new)) for p in _changed(a, b, f"{at}[{i}]")]
    return [] if old == new else [at]


def _check_previous_run(cfg: RunConfig, store: Store, force_new_run: bool) -> None:
    if not store.exists(CONFIG_FILE):
        return
    changed: list[str] = []
    try:
        old = parse_config(yaml.safe_load(store.read_text(CONFIG_FILE)) or {}, store.display(CONFIG_FILE))
        old_hash = old.config_hash()
        changed = _changed(old.model_dump(mode="json"), cfg.model_dump(mode="json"))
    except (ConfigError, yaml.YAMLError) as err:
        old_hash = f"unreadable ({str(err).splitlines()[0]})"
    if old_hash == cfg.config_hash():
        return
    if not force_new_run:
        corpus = [p for p in changed if p.endswith(".corpus_sha256")]
        rest = [p for p in changed if p not in corpus]
        what = f"; the corpus at the same path has changed since that run ({', '.join(corpus)})" if corpus else ""
        if rest:
            what += f"; {'also ' if corpus else ''}changed: {', '.join(rest[:4])}" + (" ..." if len(rest) > 4 else "")
        raise RunRefused(
            f"{store.display()} holds a run with a different config (hash {old_hash} != {cfg.config_hash()}{what}); "
            f"see {store.display(CONFIG_FILE)}. Use another --out, or --force-new-run to discard the old shards.")
    for sub in OUTPUT_DIRS:   # only our own file names; folders were checked not to leave the root
        for name in store.listdir(sub):
            if OWN_FILES[sub].fullmatch(name):
                store.remove(f"{sub}/{name}")
    store.remove(MANIFEST)


def check_output_subfolders(store: Store) -> None:
    """Refuse an output whose subfolders are symlinks out of it (we would write and delete there);
    `llm_cache/` too, which an llm script source fills (write-scripts runs this same check)."""
    for sub in (*OUTPUT_DIRS, CACHE_DIR):
        if store.escapes_root(sub):
            raise RunRefused(f"{store.display(sub)} is a symlink to a folder outside {store.display()}; "
                             "duplexsynth writes and deletes only inside its output folder: replace it with a "
                             "real folder or choose another --out")


def _remove_litter(store: Store) -> None:
    """Temp files of writes cut short by a killed run, in the root and every output folder."""
    for sub in ("", *OUTPUT_DIRS):
        store.remove_temp_files(sub, OWN_FILES[sub])


def _open_store(out: str | Path) -> Store:
    """The output Store, refusing locations a run cannot use (named in the message)."""
    try:
        store = Store(out)
    except ValueError as err:
        raise RunRefused(str(err)) from None
    if store.local is None and "memory" in (store.fs.protocol if isinstance(store.fs.protocol, tuple)
                                            else (store.fs.protocol,)):
        raise RunRefused(f"--out {out}: a memory:// filesystem lives inside one process and vanishes with it "
                         "(Ray workers would each write into their own); use a folder or a shared URI")
    if store.local is not None and store.local.exists() and not store.local.is_dir():
        raise RunRefused(f"--out {store.display()}: exists and is not a folder")
    try:
        store.makedirs()
    except OSError as err:
        raise RunRefused(f"--out {store.display()}: cannot create the output folder ({err.strerror or err})") from None
    return store


def read_faults(env: dict[str, str] | None = None) -> dict[str, Any]:
    """The fault-injection plan from DUPLEXSYNTH_FAULTS (tests only; see the module doc)."""
    env = os.environ if env is None else env
    spec = env.get("DUPLEXSYNTH_FAULTS", "").strip()
    if not spec:
        return {}
    shards: dict[int, str] = {}
    rows: list[str] = []
    for item in spec.split(","):
        kind, _, idx = item.strip().partition(":")
        if kind == "row" and idx:
            rows.append(idx)   # a trajectory id, e.g. row:s3-00000-0000001
            continue
        if kind not in ("raise", "exit", "exit-once") or not idx.isdigit():
            raise ValueError(f"DUPLEXSYNTH_FAULTS: bad item {item!r} "
                             "(want raise:N, exit:N, exit-once:N or row:TRAJECTORY_ID)")
        shards[int(idx)] = kind
    faults_dir = env.get("DUPLEXSYNTH_FAULTS_DIR")
    if "exit-once" in shards.values() and not faults_dir:
        raise ValueError("DUPLEXSYNTH_FAULTS exit-once:N needs DUPLEXSYNTH_FAULTS_DIR for its marker files")
    return {"shards": shards, "rows": rows, "dir": faults_dir}


def _inject_fault(index: int, faults: dict[str, Any]) -> None:
    kind = faults.get("shards", {}).get(index) if faults else None
    if kind == "raise":
        raise RuntimeError(f"planted failure of shard {index} (DUPLEXSYNTH_FAULTS)")
    if kind == "exit" or kind == "exit-once":
        if kind == "exit-once":
            marker = Path(faults["dir"]) / f"exit-once-{index}"
            if marker.exists():
                return
            marker.parent.mkdir(parents=True, exist_ok=True)
            marker.touch()
        sys.stdout.flush()
        os._exit(137)   # the worker dies as under kill -9: no cleanup, no exception


def _shard_task(cfg_json: str, plan: tuple[int, int, int], out: str, faults: dict[str, Any],
                gates: list[Any] | None = None) -> dict[str, Any]:
    """One shard, idempotent: verified and skipped when complete, else rendered. Returns a small summary.
    `gates`: per script source entry, the actor bounding its LLM requests job-wide (jobs/llm_gate.py)."""
    cfg = RunConfig.model_validate_json(cfg_json)
    sp = ShardPlan(*plan)
    store = Store(out)
    stored, why = check_shard(store, sp, cfg.config_hash())
    if stored is not None:
        return {**{k: stored.get(k) for k in MANIFEST_KEYS}, "twins": stored.get("twins", 0), "skipped": True,
                "failures": [], "counts": count_shard(store, stored["path"], stored.get("failed_path"))}
    _inject_fault(sp.index, faults)
    s = run_shard(cfg, sp, store, faults=faults, gates=[gate_of(g) if g is not None else None for g in gates or ()])
    return {**{k: getattr(s, k) for k in MANIFEST_KEYS}, "twins": s.twins, "skipped": False, "redo_reason": why,
            "failures": s.failures, "assistant_text": s.assistant_text, "llm": s.llm,
            "counts": count_shard(store, s.path, s.failed_path)}   # what the card counts, read as written


def _init_ray(address: str | None, workers: int) -> tuple[bool, int]:
    """Start an embedded local Ray (address None) or attach to a cluster. Returns (started, CPUs)."""
    import ray
    if ray.is_initialized():
        return False, int(ray.cluster_resources().get("CPU", workers))
    if address:
        from jobs.ray_cluster import prepare_client_auth
        prepare_client_auth()
        ray.init(address=address, log_to_driver=False)
        return True, max(1, int(ray.cluster_resources().get("CPU", 1)))
    # address="local": always a fresh local instance, never a `ray start` cluster found by accident.
    # Its processes are tagged and recorded with our pid, so a run after a SIGKILLed driver ends the
    # ones that outlived it (jobs/ray_cluster.py: the raylet's agents survive their driver).
    # A busy host gets a long start-up wait and one retry (jobs/ray_cluster.start_local_ray).
    from jobs.ray_cluster import embedded_ray_tag, reap_orphaned_embedded, start_local_ray
    for driver, pids in reap_orphaned_embedded().items():
        print(f"note: ended {len(pids)} processes left by an embedded Ray whose driver (pid {driver}) was killed",
              file=sys.stderr)
    with embedded_ray_tag() as tag:
        start_local_ray(lambda: ray.init(address="local", num_cpus=workers, include_dashboard=False,
                                         log_to_driver=False, object_store_memory=200 * 1024 * 1024), tag)
    return True, workers


def generate(cfg: RunConfig, out: str | Path, workers: int | None = None, address: str | None = None,
             force_new_run: bool = False, progress: bool | str = True, progress_interval: float = 10.0,
             max_in_flight: int | None = None,
             shard_task: Callable[..., dict[str, Any]] | None = None) -> RunResult:
    """Generate (or resume) the dataset of `cfg` into `out` (a folder or an fsspec URI).

    workers: CPUs of the embedded local Ray (default 2); with `address`, the cluster's CPUs are used
    unless given. progress: True/"bar" for a rich bar, "log" for plain periodic lines on stderr
    (what Ray job logs show), False for none. shard_task replaces the per-shard work (benchmarks).
    """
    try:
        faults = read_faults()
    except ValueError as err:
        raise RunRefused(str(err)) from None
    if address:   # Ray retries an address nothing answers at without end: a bounded connect first
        reachable(address, "--address")
    # file-reading and language config checks, before anything is written or any worker starts
    for note in preflight(cfg):
        print(note, file=sys.stderr, flush=True)
    cfg = pin_corpus(cfg)   # a corpus's content fingerprint into the config (its hash, the resume check)
    cfg = pin_videos(cfg)   # likewise the videos' and annotations' fingerprint
    store = _open_store(out)
    with output_lock(store, "duplexsynth generate"):
        check_output_subfolders(store)
        try:
            check_card_slot(store)   # someone's own README.md is refused before anything is written
        except CardRefused as err:
            raise RunRefused(str(err)) from None
        try:
            _check_previous_run(cfg, store, force_new_run)
            store.write_bytes(CONFIG_FILE, dump_config(cfg).encode())
            store.remove(MANIFEST)   # rewritten last: its presence means the run finished
            store.remove(CARD)       # rewritten just before it, from the shards the run ends with
            _remove_litter(store)
        except OSError as err:   # a full disk or a read-only folder, before any work starts
            raise RunRefused(f"{store.display()}: cannot write the run's files ({err.strerror or err})") from None
        res = _run(cfg, store, workers, address, progress, progress_interval, max_in_flight, shard_task, faults)
        _remove_litter(store)
    return res


def _run(cfg: RunConfig, store: Store, workers: int | None, address: str | None, progress: bool | str,
         progress_interval: float, max_in_flight: int | None,
         shard_task: Callable[..., dict[str, Any]] | None, faults: dict[str, Any]) -> RunResult:
    """The shard loop of `generate`, run while the output lock is held."""
    import ray

    n_shards = num_shards(cfg.num, cfg.shard_size)
    res = RunResult(out=store.display(), num=cfg.num, shards=n_shards,
                    speech_tokens=tokenizer_path(cfg) is not None)
    entries: dict[int, tuple] = {}     # compact manifest entries (_pack), a couple of hundred bytes a shard
    counts = Counts()                  # the card's counts, summed as shards finish (integers: order-free)
    texts: list[str] = []
    t0 = time.perf_counter()
    started_ray, cpus = _init_ray(address, workers or 2)
    try:
        # the run's CosyVoice actors, owned by this driver for the run; its workers find them by name
        cosyvoice = _start_cosyvoice(cfg)  # noqa: F841 - held so the actors live until the run ends
        elastic = workers is None and max_in_flight is None and (address is not None or not started_ray)
        if workers is None:
            workers = cpus
        limit = max_in_flight or max(2, 2 * workers)
        refreshed = time.monotonic()
        task = ray.remote(num_cpus=1, max_retries=cfg.max_shard_attempts - 1, retry_exceptions=True)(
            shard_task or _shard_task)
        cfg_ref = ray.put(cfg.model_dump_json())
        gates = start_gates(cfg)   # None for each source without a job-wide bound
        extra = {"gates": gates} if any(g is not None for g in gates) else {}
        plans: Iterator[ShardPlan] = iter_plans(cfg.num, cfg.shard_size)
        pending: dict[Any, ShardPlan] = {}
        bar = _Progress(progress, total=cfg.num, shards=n_shards, interval=progress_interval,
                        llm=any(e.kind == LLM_KIND or e.llm is not None for e in cfg.source_entries()))
        bar.note(f"generating {cfg.num} trajectories in {n_shards} shards into {store.display()} "
                 f"({workers} CPUs, at most {limit} shard tasks in flight)", always=True)
        with bar:
            while True:
                for p in plans:
                    pending[task.remote(cfg_ref, (p.index, p.start, p.stop), store.uri, faults, **extra)] = p
                    if len(pending) >= limit:
                        break
                if not pending:
                    break
                ready, _ = ray.wait(list(pending), num_returns=1)
                if elastic and time.monotonic() - refreshed > 10:   # nodes join and leave (autoscaling, preemption)
                    refreshed = time.monotonic()
                    limit = max(2, 2 * int(ray.cluster_resources().get("CPU", 0)))
                for ref in ready:
                    p = pending.pop(ref)
                    try:
                        s = ray.get(ref)
                    except Exception as err:  # noqa: BLE001 - a shard that failed every attempt
                        msg = _short_error(err)
                        res.shards_incomplete.append(p.index)
                        res.shard_errors[p.index] = msg
                        bar.note(f"shard {p.index} failed all {cfg.max_shard_attempts} attempts: {msg}", always=True)
                        bar.advance(p.stop - p.start, 0, 0.0, lost=True)
                        continue
                    entries[p.index] = _pack(s)
                    if s.get("counts") is not None:
                        counts.add(s["counts"])
                    if bar.llm is not None:   # before `advance`, which may print the line
                        bar.llm.add(s.get("llm") or {})
                    res.rows += s["rows"]
                    res.failed += s["failed"]
                    res.audio_s += s["audio_s"]
                    if s["skipped"]:
                        res.shards_skipped += 1
                    else:
                        res.shards_done += 1
                        res.new_audio_s += s["audio_s"]
                        if s.get("redo_reason") and s["redo_reason"] != "missing":
                            res.shards_redone[p.index] = s["redo_reason"]
                            bar.note(f"shard {p.index} redone: {s['redo_reason']}", always=True)
                        texts.extend(s.get("assistant_text", []))
                        room = MAX_FAILURE_EXAMPLES - len(res.failure_examples)
                        res.failure_examples.extend(s["failures"][:max(room, 0)])
                    bar.advance(s["rows"], s["failed"], s["audio_s"], skipped=s["skipped"])
    finally:
        if started_ray:
            ray.shutdown()
    res.wall_s = time.perf_counter() - t0
    res.llm = bar.llm
    res.shards_incomplete.sort()
    res.variety = variety(texts) if texts else {}
    if res.ok:   # the card, then the manifest last
        write_card(store, dataset_card(cfg, res.rows, res.failed, counts, speech_tokens_text(cfg)))
        _write_manifest(cfg, store, (_unpack(i, entries[i]) for i in range(n_shards)), res)
        res.manifest = store.display(MANIFEST)
    return res


def _start_cosyvoice(cfg: RunConfig) -> Any:
    """The shared CosyVoice client when the run's voices use it (one model load per actor), else None."""
    from generators.voice_bank import COSYVOICE, engines_used
    c = cfg.voices.cosyvoice
    if c is None or COSYVOICE not in engines_used(cfg.voices):
        return None
    from jobs.cosyvoice_actor import shared_client
    return shared_client(str(c.model_dir), c.actors)


def _pack(s: dict[str, Any]) -> tuple:
    """A shard's manifest entry in ~150 bytes (paths follow from the index, digests as bytes)."""
    return (s["rows"], s["failed"], bytes.fromhex(s["sha256"]),
            bytes.fromhex(s["failed_sha256"]) if s.get("failed_sha256") else None, float(s["audio_s"]),
            int(s.get("twins") or 0))


def _unpack(index: int, e: tuple) -> dict[str, Any]:
    rows, failed, sha, failed_sha, audio_s, twins = e
    paths = shard_paths(ShardPlan(index, 0, 0))
    extra = {"twins": twins} if twins else {}   # rows + failed = planned + twins; absent without twins
    return {"shard": index, "path": paths["rows"], "rows": rows, "failed": failed, "sha256": sha.hex(),
            "failed_path": paths["failed"] if failed_sha is not None else None,
            "failed_sha256": failed_sha.hex() if failed_sha is not None else None, "audio_s": audio_s, **extra}


def _short_error(err: BaseException) -> str:
    """One line for a Ray task error: the innermost exception, not Ray's wrapper text."""
    cause = getattr(err, "cause", None)
    if isinstance(cause, BaseException):
        return f"{type(cause).__name__}: {cause}".splitlines()[0][:300]
    lines = [ln.strip() for ln in str(err).splitlines() if ln.strip()]
    tail = next((ln for ln in reversed(lines) if "Error" in ln or "died" in ln or "exit" in ln),
                lines[-1] if lines else "")
    return f"{type(err).__name__}: {tail}"[:300]


def speech_tokens_text(cfg: RunConfig) -> str:
    """The manifest's (and the card's) `speech_tokens`: the token stream the rows carry, or why none."""
    if tokenizer_path(cfg) is None:
        return "none: no speech tokenizer configured"
    return f"s3 {SPEECH_TOKENS_PER_SECOND} Hz codebook {SPEECH_CODEBOOK}"


def _write_manifest(cfg: RunConfig, store: Store, shards: Iterable[dict[str, Any]], res: RunResult) -> None:
    """manifest.json, streamed one shard entry at a time (a million shards never sit in memory as JSON)."""
    from pipeline.speech_tokens import tokenizer_identity
    onnx = tokenizer_path(cfg)
    head = {
        "generator_version": GENERATOR_VERSION,
        "config_hash": cfg.config_hash(),
        "config": cfg.model_dump(mode="json"),
        "rows": res.rows, "failed": res.failed, "audio_hours": round(res.audio_s / 3600, 6),
        "speech_tokenizer": tokenizer_identity(onnx) if onnx is not None else None,
        "speech_tokens": speech_tokens_text(cfg),
        "tts": {"backend": cfg.tts.backend},
    }
    if cfg.voices.cosyvoice is not None and onnx is not None:   # other runs' manifests stay as they were
        head[SPEECH_TOKEN_SOURCE_KEY] = token_sources(cfg)
    with store.open_atomic(MANIFEST) as f:
        f.write(json.dumps(head, indent=2, sort_keys=True)[:-2].encode())   # without the closing "\n}"
        f.write(b',\n  "shards": [')
        for i, entry in enumerate(shards):
            f.write((",\n    " if i else "\n    ").encode() + json.dumps(entry, sort_keys=True).encode())
        f.write(b"\n  ]\n}\n")


def _hms(seconds: float) -> str:
    s = int(round(seconds))
    return f"{s // 3600}:{s // 60 % 60:02d}:{s % 60:02d}"


class _Progress:
    """Live progress: trajectories done and failed, audio hours, throughput, ETA.

    mode True/"bar": a rich bar (a terminal); "log": a plain line on stderr every `interval` seconds
    and at the end (CI logs, Ray job logs); False: nothing but notes.
    """

    def __init__(self, mode: bool | str, total: int, shards: int, interval: float = 10.0, llm: bool = False) -> None:
        self.mode = "bar" if mode is True else (mode or "none")
        self.total, self.shards, self.interval = total, shards, interval
        self.llm = LLMFigures() if llm else None
        self.done = self.failed = self.skipped = self.lost = self.shards_seen = 0
        self.audio_s = self.new_audio_s = 0.0
        self.t0 = self.last = time.perf_counter()
        self._p: Any = None

    def __enter__(self) -> "_Progress":
        if self.mode == "bar":
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn
            self._p = Progress(TextColumn("[bold]generating"), BarColumn(), MofNCompleteColumn(),
                               TextColumn("{task.fields[info]}"), TimeRemainingColumn())
            self._p.start()
            self._task = self._p.add_task("gen", total=self.total, completed=0, info="")
        return self

    def line(self) -> str:
        el = max(time.perf_counter() - self.t0, 1e-9)
        new = self.done - self.skipped - self.lost
        rate = new / el
        left = self.total - self.done
        eta = _hms(left / rate) if rate > 0 and left > 0 else ("0:00:00" if left <= 0 else "?")
        return (f"progress {self.done}/{self.total} trajectories ({self.failed} failed"
                + (f", {self.skipped} verified from an earlier run" if self.skipped else "")
                + (f", {self.lost} in failed shards" if self.lost else "")
                + f"), shards {self.shards_seen}/{self.shards}, audio {self.audio_s / 3600:.3f} h, "
                f"{self.new_audio_s / el:.1f} audio-s/s, {rate:.2f} traj/s, ETA {eta}" + self.llm_text(el))

    def llm_text(self, elapsed: float) -> str:
        """`, llm N calls (R/s), E failed, H cache hits` for a run with an llm source, else ""."""
        return self.llm.text(elapsed) if self.llm is not None else ""

    def advance(self, rows: int, failed: int, audio_s: float, skipped: bool = False, lost: bool = False) -> None:
        n = rows + failed
        self.done += n
        self.failed += failed
        self.shards_seen += 1
        self.audio_s += audio_s
        if lost:
            self.lost += n
        elif skipped:
            self.skipped += n
        else:
            self.new_audio_s += audio_s
        now = time.perf_counter()
        if self._p is not None:
            el = max(now - self.t0, 1e-9)
            info = (f"failed {self.failed}  audio {self.audio_s / 3600:.3f} h  {self.new_audio_s / el:.1f} audio-s/s"
                    + self.llm_text(el))
            self._p.update(self._task, completed=self.done, info=info)
        elif self.mode == "log" and (now - self.last >= self.interval or self.shards_seen == self.shards):
            self.last = now
            print(self.line(), file=sys.stderr, flush=True)

    def note(self, msg: str, always: bool = False) -> None:
        if self._p is not None:
            self._p.console.print(msg, markup=False, style="red" if "fail" in msg else None)
        elif self.mode == "log" or always:
            print(msg, file=sys.stderr, flush=True)

    def __exit__(self, *exc: object) -> None:
        if self._p is not None:
            self._p.stop()


def summary_text(res: RunResult) -> str:
    v = res.variety
    lines = [
        f"rows written     {res.rows}",
        f"failed rows      {res.failed}",
        f"audio            {res.audio_s / 3600:.3f} h ({res.audio_s:.0f} s)",
        f"throughput       {res.new_audio_s / max(res.wall_s, 1e-9):.1f} audio-s per wall-s over {res.wall_s:.1f} s"
        + f" ({res.shards_done} shard{'' if res.shards_done == 1 else 's'} rendered"
        + (f", {res.shards_skipped} already complete, verified and skipped" if res.shards_skipped else "") + ")",
        f"speech tokens    {'S3 25 Hz' if res.speech_tokens else 'none (no speech tokenizer configured)'}",
    ]
    if res.llm is not None:
        lines.append(f"llm              {res.llm.calls} calls ({res.llm.errors} failed), "
                     f"{res.llm.cache_hits} responses from the cache")
    if v:
        lines.append(f"variety          distinct-2 {v['distinct_2']:.3f}, top assistant sentence "
                     f"{100 * v['max_sentence_share']:.2f}% of {v['sentences']} (over {v['rows']} rows)")
    if res.shards_redone:
        lines.append("redone           " + "; ".join(f"shard {i}: {why}" for i, why in sorted(res.shards_redone.items())))
    for f in res.failure_examples[:5]:
        lines.append(f"failed record    {f['id']} ({f['scenario']}): {f['error']}")
    if res.shards_incomplete:
        lines.append(f"INCOMPLETE       {len(res.shards_incomplete)} of {res.shards} shards failed every attempt; "
                     "no manifest written; rerun the same command to retry them")
        for i in res.shards_incomplete[:10]:
            lines.append(f"  shard {i}: {res.shard_errors.get(i, '')}")
    lines.append(f"output           {res.out}")
    return "\n".join(lines)


def read_manifest(out: str | Path) -> dict[str, Any]:
    return json.loads(Store(out).read_bytes(MANIFEST))
