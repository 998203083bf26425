"""Deterministic shard planning and the work of one shard (Ray-free; jobs/runner.py wraps it).

Shard i holds trajectories [i*S, (i+1)*S); trajectory j is seeded from (run seed, j) alone, so the
output does not depend on worker count or scheduling. A worker writes its own shard and returns a
small summary, so driver memory stays flat whatever the number of shards.
"""
from __future__ import annotations

import json
import time
import traceback
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from generators.registry import scenario_for, trajectory_seed
from generators.text_bank import split_sentences
from pipeline.io import atomic_write_json, sha256_file, write_parquet
from pipeline.render import render_trajectory
from schemas.arrow import failures_to_table, rows_to_table
from schemas.config import RunConfig
from schemas.trajectory import FailedRecord, TrajectoryRow

VARIETY_SAMPLE_ROWS = 2000   # assistant text returned to the driver for variety figures, at most


@dataclass(frozen=True)
class ShardPlan:
    index: int
    start: int
    stop: int

    @property
    def name(self) -> str:
        return f"shard-{self.index:05d}"


def plan_shards(num: int, shard_size: int) -> list[ShardPlan]:
    return [ShardPlan(i, s, min(s + shard_size, num)) for i, s in enumerate(range(0, num, shard_size))]


def trajectory_id(run_seed: int, shard: int, index: int) -> str:
    return f"s{run_seed}-{shard:05d}-{index:07d}"


def shard_paths(out: Path, plan: ShardPlan) -> dict[str, Path]:
    d = out / "shards"
    return {"rows": d / f"{plan.name}.parquet", "failed": out / "failed" / f"{plan.name}.parquet",
            "summary": out / "summaries" / f"{plan.name}.json"}


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
    assistant_text: list[str] = field(default_factory=list)
    failures: list[dict[str, str]] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        d = asdict(self)
        d.pop("assistant_text")
        return d


def load_tts(cfg: RunConfig) -> Any:
    from pipeline.tts.espeak import EspeakBackend
    return EspeakBackend()


def load_tokenizer(cfg: RunConfig) -> Any | None:
    if cfg.speech_tokenizer.onnx_path is None:
        return None
    from pipeline.speech_tokens import S3SpeechTokenizer
    return S3SpeechTokenizer(cfg.speech_tokenizer.onnx_path)


def assistant_text(row: TrajectoryRow) -> str:
    return " ".join(e.text for e in row.events if e.kind == "assistant_turn")


def run_shard(cfg: RunConfig, plan: ShardPlan, out: Path, tts: Any = None, tokenizer: Any = None) -> ShardSummary:
    """Render and write one shard. A trajectory that raises becomes a FailedRecord; the rest go on."""
    t0 = time.perf_counter()
    tts = tts if tts is not None else load_tts(cfg)
    tokenizer = tokenizer if tokenizer is not None else load_tokenizer(cfg)
    weights = cfg.scenarios
    rows: list[TrajectoryRow] = []
    failures: list[FailedRecord] = []
    for j in range(plan.start, plan.stop):
        tid = trajectory_id(cfg.seed, plan.index, j)
        seed = trajectory_seed(cfg.seed, j)
        scenario = scenario_for(j, cfg.seed, weights)
        try:
            if tid in cfg.fail_on:
                raise RuntimeError(f"planted failure for {tid} (config fail_on)")
            rows.append(render_trajectory(cfg=cfg, traj_id=tid, seed=seed, scenario=scenario, tts=tts,
                                          tokenizer=tokenizer))
        except Exception as err:  # noqa: BLE001 - every failure is recorded, never dropped
            failures.append(FailedRecord(id=tid, seed=seed, scenario=scenario, shard=plan.index, index=j,
                                         error=f"{type(err).__name__}: {err}", traceback=traceback.format_exc()))
    paths = shard_paths(out, plan)
    sha = write_parquet(rows_to_table(rows), paths["rows"])
    failed_sha = None
    if failures:
        failed_sha = write_parquet(failures_to_table(failures), paths["failed"])
    elif paths["failed"].exists():
        paths["failed"].unlink()
    summary = ShardSummary(
        shard=plan.index, path=str(paths["rows"].relative_to(out)), rows=len(rows), failed=len(failures),
        sha256=sha, failed_path=str(paths["failed"].relative_to(out)) if failures else None,
        failed_sha256=failed_sha, audio_s=float(sum(r.duration_s for r in rows)),
        wall_s=time.perf_counter() - t0, no_speech_tokens=tokenizer is None,
        assistant_text=[assistant_text(r) for r in rows] if plan.start < VARIETY_SAMPLE_ROWS else [],
        failures=[{"id": f.id, "scenario": f.scenario, "error": f.error} for f in failures],
    )
    atomic_write_json(paths["summary"], summary.to_json())
    return summary


def shard_is_complete(out: Path, plan: ShardPlan) -> dict[str, Any] | None:
    """The stored summary if the shard on disk matches its sidecar sha256, else None (redo it)."""
    paths = shard_paths(out, plan)
    try:
        summary = json.loads(paths["summary"].read_text())
        if sha256_file(paths["rows"]) != summary["sha256"]:
            return None
        if summary.get("failed_sha256") and sha256_file(paths["failed"]) != summary["failed_sha256"]:
            return None
        return summary
    except (OSError, ValueError, KeyError):
        return None


def variety(texts: list[str]) -> dict[str, Any]:
    """distinct-2 of assistant text and the share of the most frequent assistant sentence."""
    from generators.text_bank import distinct_n, max_sentence_share
    sentences = [s for t in texts for s in split_sentences(t)]
    share, top = max_sentence_share(sentences) if sentences else (0.0, "")
    return {"distinct_2": distinct_n(texts, 2) if texts else 0.0, "max_sentence_share": share,
            "top_sentence": top, "rows": len(texts), "sentences": len(sentences)}
