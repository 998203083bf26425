"""Run a generation job on Ray: one task per shard, bounded in flight, resumable, manifest last."""
from __future__ import annotations

import json
import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from generators.registry import GENERATOR_VERSION
from jobs.shards import ShardPlan, plan_shards, run_shard, shard_is_complete, variety
from pipeline.io import atomic_write_bytes, atomic_write_json
from schemas.config import RunConfig, dump_config, load_config

MANIFEST = "manifest.json"
CONFIG_FILE = "config.yaml"


class RunRefused(RuntimeError):
    """The output folder holds a different run; the message says how to proceed."""


@dataclass
class RunResult:
    out: Path
    rows: int = 0
    failed: int = 0
    audio_s: float = 0.0
    wall_s: float = 0.0
    shards_done: int = 0
    shards_skipped: int = 0
    shards_incomplete: list[int] = field(default_factory=list)
    variety: dict[str, Any] = field(default_factory=dict)
    speech_tokens: bool = False

    @property
    def ok(self) -> bool:
        return not self.shards_incomplete


def _check_previous_run(cfg: RunConfig, out: Path, force_new_run: bool) -> None:
    prev = out / CONFIG_FILE
    if not prev.exists():
        return
    old = load_config(prev)
    if old.config_hash() != cfg.config_hash() and not force_new_run:
        raise RunRefused(
            f"{out} holds a run with a different config (hash {old.config_hash()} != {cfg.config_hash()}). "
            "Use another --out, or --force-new-run to discard the old shards.")
    if old.config_hash() != cfg.config_hash():
        for sub in ("shards", "failed", "summaries"):
            for p in (out / sub).glob("*"):
                p.unlink()
        (out / MANIFEST).unlink(missing_ok=True)


def _shard_task(cfg_json: str, plan: tuple[int, int, int], out: str) -> dict[str, Any]:
    cfg = RunConfig.model_validate_json(cfg_json)
    s = run_shard(cfg, ShardPlan(*plan), Path(out))
    return {**s.to_json(), "assistant_text": s.assistant_text}


def generate(cfg: RunConfig, out: str | Path, workers: int = 2, address: str | None = None,
             force_new_run: bool = False, progress: bool = True) -> RunResult:
    """Generate (or resume) the dataset of `cfg` into `out`. Complete shards are verified and skipped."""
    import ray

    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    _check_previous_run(cfg, out, force_new_run)
    atomic_write_bytes(out / CONFIG_FILE, dump_config(cfg).encode())
    (out / MANIFEST).unlink(missing_ok=True)   # rewritten last: its presence means the run finished

    plans = plan_shards(cfg.num, cfg.shard_size)
    summaries: dict[int, dict[str, Any]] = {}
    todo: list[ShardPlan] = []
    for p in plans:
        s = shard_is_complete(out, p)
        if s is not None:
            summaries[p.index] = s
        else:
            todo.append(p)
    res = RunResult(out=out, shards_skipped=len(summaries), speech_tokens=cfg.speech_tokenizer.onnx_path is not None)
    texts: list[str] = []
    t0 = time.perf_counter()
    started_ray = False
    if todo:
        if not ray.is_initialized():
            if address:
                ray.init(address=address, log_to_driver=False)
            else:
                ray.init(num_cpus=workers, include_dashboard=False, log_to_driver=False,
                         object_store_memory=200 * 1024 * 1024)
            started_ray = True
        task = ray.remote(num_cpus=1, max_retries=cfg.max_shard_attempts - 1, retry_exceptions=True)(_shard_task)
        cfg_json = cfg.model_dump_json()
        max_in_flight = max(2, 2 * workers)
        pending: dict[Any, ShardPlan] = {}
        queue = list(todo)
        with _Progress(enabled=progress, total=sum(p.stop - p.start for p in plans),
                       done=sum(s["rows"] + s["failed"] for s in summaries.values())) as bar:
            while queue or pending:
                while queue and len(pending) < max_in_flight:
                    p = queue.pop(0)
                    pending[task.remote(cfg_json, (p.index, p.start, p.stop), str(out.resolve()))] = p
                ready, _ = ray.wait(list(pending), num_returns=1)
                for ref in ready:
                    p = pending.pop(ref)
                    try:
                        s = ray.get(ref)
                    except Exception as err:  # noqa: BLE001 - a shard that failed every retry
                        res.shards_incomplete.append(p.index)
                        bar.note(f"shard {p.index} failed after {cfg.max_shard_attempts} attempts: {err}")
                        continue
                    texts.extend(s.pop("assistant_text"))
                    summaries[p.index] = s
                    res.shards_done += 1
                    bar.advance(s["rows"], s["failed"], s["audio_s"])
        if started_ray:
            ray.shutdown()
    res.wall_s = time.perf_counter() - t0
    for s in summaries.values():
        res.rows += s["rows"]
        res.failed += s["failed"]
        res.audio_s += s["audio_s"]
    res.variety = variety(texts) if texts else {}
    if res.ok:
        _write_manifest(cfg, out, [summaries[p.index] for p in plans], res)
    return res


def _write_manifest(cfg: RunConfig, out: Path, shards: list[dict[str, Any]], res: RunResult) -> None:
    from jobs.shards import load_tokenizer
    tok = load_tokenizer(cfg)
    manifest = {
        "generator_version": GENERATOR_VERSION,
        "config_hash": cfg.config_hash(),
        "config": cfg.model_dump(mode="json"),
        "rows": res.rows, "failed": res.failed, "audio_hours": round(res.audio_s / 3600, 6),
        "speech_tokenizer": tok.identity() if tok is not None else None,
        "speech_tokens": "s3 25 Hz codebook 6561" if tok is not None else "none: no speech tokenizer configured",
        "tts": {"backend": cfg.tts.backend},
        "shards": [{k: s[k] for k in ("shard", "path", "rows", "failed", "sha256", "failed_path", "failed_sha256",
                                      "audio_s")} for s in shards],
    }
    atomic_write_json(out / MANIFEST, manifest)


class _Progress:
    """Live progress: trajectories done and failed, audio hours, throughput, ETA (rich, or log lines)."""

    def __init__(self, enabled: bool, total: int, done: int) -> None:
        self.enabled, self.total, self.done = enabled, total, done
        self.failed, self.audio_s, self.t0 = 0, 0.0, time.perf_counter()
        self._p: Any = None

    def __enter__(self) -> "_Progress":
        if self.enabled:
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn
            self._p = Progress(TextColumn("[bold]generating"), BarColumn(), MofNCompleteColumn(),
                               TextColumn("{task.fields[info]}"), TimeRemainingColumn())
            self._p.start()
            self._task = self._p.add_task("gen", total=self.total, completed=self.done, info="")
        return self

    def advance(self, rows: int, failed: int, audio_s: float) -> None:
        self.done += rows + failed
        self.failed += failed
        self.audio_s += audio_s
        el = max(time.perf_counter() - self.t0, 1e-9)
        info = f"failed {self.failed}  audio {self.audio_s / 3600:.3f} h  {self.audio_s / el:.1f} audio-s/s"
        if self._p is not None:
            self._p.update(self._task, completed=self.done, info=info)
        elif os.environ.get("DUPLEXSYNTH_LOG_PROGRESS"):
            print(f"progress {self.done}/{self.total} {info}", flush=True)

    def note(self, msg: str) -> None:
        if self._p is not None:
            self._p.console.print(f"[red]{msg}")
        else:
            print(msg, flush=True)

    def __exit__(self, *exc: object) -> None:
        if self._p is not None:
            self._p.stop()


def summary_text(res: RunResult) -> str:
    v = res.variety
    lines = [
        f"rows written     {res.rows}",
        f"failed rows      {res.failed}",
        f"audio            {res.audio_s / 3600:.3f} h ({res.audio_s:.0f} s)",
        f"throughput       {res.audio_s / max(res.wall_s, 1e-9):.1f} audio-s per wall-s over {res.wall_s:.1f} s"
        + (f" ({res.shards_skipped} shards already complete, skipped)" if res.shards_skipped else ""),
        f"speech tokens    {'S3 25 Hz' if res.speech_tokens else 'none (no speech tokenizer configured)'}",
    ]
    if v:
        lines.append(f"variety          distinct-2 {v['distinct_2']:.3f}, top assistant sentence "
                     f"{100 * v['max_sentence_share']:.2f}% of {v['sentences']} (over {v['rows']} rows)")
    if res.shards_incomplete:
        lines.append(f"INCOMPLETE       shards {res.shards_incomplete} failed every attempt; rerun to retry")
    lines.append(f"output           {res.out.resolve()}")
    return "\n".join(lines)


def read_manifest(out: str | Path) -> dict[str, Any]:
    return json.loads((Path(out) / MANIFEST).read_text())
