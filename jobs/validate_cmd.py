"""`duplexsynth validate DIR`: check every DESIGN §5 invariant; exit non-zero on any violation.

The folder is first checked as a whole by jobs/dataset_reader.check_dataset (manifest well formed,
every listed path inside DIR, every shard and failure table present with its sha256, its columns
and its row count, rows + failed adding up to the config's `num`); then every row of every shard
that passed is checked against DESIGN §5. A dataset with no rows never passes.

Checking a row re-composes and re-renders it (rule 4, meta.timeline), so shards are checked in
`--workers` processes, one shard per task. Each worker hands back what it found per row, in row
order, and the driver alone numbers rows and finds duplicate ids, so the report and the exit code
are the same for any worker count. A spawned worker first imports the whole pipeline (about what
checking a few rows costs), so by default a small dataset is checked in this process.

Rows spoken with CosyVoice are re-rendered by its model: this process attaches to Ray (the
cluster RAY_ADDRESS names, else an embedded one) and uses the model folder's shared actors
(jobs/cosyvoice_actor.shared_client; a generate still running on the cluster lends its own), and
such a dataset is checked in this one process, so the model is loaded once.
"""
from __future__ import annotations

import argparse
import functools
import json
import os
import sys
from collections import Counter
from pathlib import Path
from typing import Any, NamedTuple

ROWS_PER_WORKER = 8   # default: a worker only for every 8 rows, so its start-up is repaid


class Finding(NamedTuple):
    rule: str
    line: str


class RowReport(NamedTuple):
    """What one shard entry yields: a readable row (row_id set) or a problem that is not a row (None)."""
    row_id: str | None
    findings: list[Finding]


def _workers(text: str) -> int:
    n = int(text)
    if n < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {n}")
    return n


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("validate", help="check every timeline and schema invariant of a dataset")
    p.add_argument("dir", help="dataset folder (holds manifest.json)")
    p.add_argument("--max-report", type=int, default=30, help="violations to print in full")
    p.add_argument("--workers", type=_workers, default=None,
                   help="processes checking shards in parallel, one shard at a time each (default: "
                        f"min(usable CPU cores, shards, rows/{ROWS_PER_WORKER}), at least 1); the report "
                        "is the same for any number")
    p.set_defaults(func=run)


def default_workers(shards: int, rows: int) -> int:
    """min(usable cores, shards, rows / ROWS_PER_WORKER), at least 1."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    return max(1, min(cores, shards, rows // ROWS_PER_WORKER))


def _speaks_cosyvoice(identity: Any) -> bool:
    from pipeline.tts import CosyVoiceBackend
    if not isinstance(identity, dict):
        return False
    engines = identity.get("engines") if isinstance(identity.get("engines"), dict) else {}
    return identity.get("backend") == CosyVoiceBackend.name or any(_speaks_cosyvoice(e) for e in engines.values())


@functools.lru_cache(maxsize=8)
def _cosyvoice_tts(identity_json: str) -> Any:
    """The backend a CosyVoice row's meta.tts names, reaching the model through its shared actors."""
    import ray

    from jobs.cosyvoice_actor import shared_client
    from jobs.runner import _init_ray
    from pipeline.tts import tts_from_identity
    if not ray.is_initialized():
        _init_ray(os.environ.get("RAY_ADDRESS") or None, 2)
    return tts_from_identity(json.loads(identity_json), shared_client)


def rerender_tts(meta: str) -> Any:
    """The TTS validate re-renders a row with: None (meta.tts rebuilt as always) unless it names CosyVoice."""
    try:
        identity = json.loads(meta).get("tts")
    except (ValueError, AttributeError):
        return None
    return _cosyvoice_tts(json.dumps(identity, sort_keys=True)) if _speaks_cosyvoice(identity) else None


def check_shard(path: str, expect_tokens: bool) -> list[RowReport]:
    """Every row of one shard against DESIGN §5, in row order (a worker's task: it reads the shard itself)."""
    import pyarrow as pa
    import pyarrow.parquet as pq
    import soundfile as sf

    from pipeline.validate import validate_row, validate_twins
    from schemas.arrow import TRAJECTORY_SCHEMA, row_from_dict
    from schemas.errors import validation_summary
    from schemas.twins import TWIN_META_KEY

    twin_meta_key = f'"{TWIN_META_KEY}":'
    paired: list = []

    try:
        table = pq.read_table(path)
    except (pa.ArrowException, OSError, ValueError) as err:
        first = (str(err).splitlines() or [""])[0]
        return [RowReport(None, [Finding("parquet", f"{path}: not readable as a Parquet trajectory shard "
                                                    f"({type(err).__name__}: {first})")])]
    if not table.schema.equals(TRAJECTORY_SCHEMA, check_metadata=False):
        return [RowReport(None, [Finding("schema", f"{path}: schema differs from the trajectory schema")])]
    out: list[RowReport] = []
    for k, d in enumerate(table.to_pylist()):
        try:
            row = row_from_dict(d)
        except ValueError as err:      # pydantic ValidationError is a ValueError
            out.append(RowReport(None, [Finding("schema", f"{path} row {k}: not a valid trajectory row "
                                                          f"({validation_summary(err)})")]))
            continue
        try:
            viols = validate_row(row, expect_tokens=expect_tokens, recompose=True,   # rule 4 re-composes
                                 tts=rerender_tts(row.meta))
        except sf.LibsndfileError as err:   # garbage audio bytes under a matching sha256
            first = (str(err).splitlines() or [""])[0]
            out.append(RowReport(row.id, [Finding("audio", f"{path} row {k} ({row.id}): audio does not decode "
                                                           f"({first})")]))
            continue
        out.append(RowReport(row.id, [Finding(v.rule, str(v)) for v in viols]))
        if twin_meta_key in row.meta:   # a contrastive twin: its pair is checked once the shard is read
            paired.append(row)
    report_of = {r.row_id: r for r in out}
    for v in validate_twins(paired):   # the generator writes both rows of a pair into one shard
        report_of[v.row_id].findings.append(Finding(v.rule, str(v)))
    return out


def _check_shards(paths: list[str], expect_tokens: bool, workers: int) -> list[list[RowReport]]:
    """check_shard of each path, in the order given; in `workers` spawned processes when more than one."""
    if workers <= 1 or len(paths) <= 1:
        return [check_shard(p, expect_tokens) for p in paths]
    import multiprocessing as mp
    from concurrent.futures import ProcessPoolExecutor

    # spawn, not fork: the caller may hold threads (Ray, a test runner) that a fork would copy
    with ProcessPoolExecutor(max_workers=min(workers, len(paths)), mp_context=mp.get_context("spawn")) as ex:
        return list(ex.map(check_shard, paths, [expect_tokens] * len(paths)))


def manifest_config_problems(config: Any) -> list[str]:
    """Why the manifest's run config is not one the generator could have run (unit_s 0.04, sample_rate 7,
    a cast that is a path), or []. Folders named in voices (piper_dirs, cosyvoice, aligner) are paths of
    the generating host: their existence is not checked here."""
    from jobs.cli import one_line
    from schemas.config import ConfigError, parse_config

    if not isinstance(config, dict):
        return []
    data = dict(config)
    if isinstance(data.get("voices"), dict):
        data["voices"] = {k: v for k, v in data["voices"].items() if k not in ("piper_dirs", "cosyvoice", "aligner")}
    try:
        cfg = parse_config(data, "manifest")
    except ConfigError as err:
        return [one_line(str(err))]
    from generators.voice_bank import cast_names

    if cfg.voices.cast not in cast_names():
        return [f"voices.cast: no cast {cfg.voices.cast!r} in the voice bank (casts: {', '.join(cast_names())})"]
    return []


def validate_dataset(root: Path, workers: int | None = None) -> tuple[int, list[str], Counter]:
    """(rows checked, violation lines, violations per rule). Verifies shard and failure-table hashes too.

    workers: processes checking shards (None: default_workers); the result does not depend on it.
    """
    from jobs.dataset_reader import MANIFEST_NAME, DatasetError, check_dataset

    root = Path(root)
    try:
        check = check_dataset(root)
    except DatasetError as err:
        return 0, [str(err)], Counter(manifest=1)
    lines: list[str] = list(check.problems)
    per_rule: Counter = Counter(manifest=len(check.problems)) if check.problems else Counter()
    manifest = check.manifest
    if manifest is None:          # missing or malformed: nothing it says can be checked
        return 0, lines, per_rule
    config = manifest.get("config")
    if not isinstance(config, dict) or "num" not in config:
        lines.append(f"{root / MANIFEST_NAME}: config.num is missing; cannot tell whether every "
                     "planned trajectory is there")
        per_rule["manifest"] += 1
    for problem in manifest_config_problems(config):
        lines.append(f"{root / MANIFEST_NAME}: config: {problem}")
        per_rule["manifest"] += 1
    expect_tokens = manifest.get("speech_tokenizer") is not None
    paths = [str(p) for p in check.shards]
    n = default_workers(len(paths), check.rows) if workers is None else workers
    if isinstance(config, dict) and (config.get("voices") or {}).get("cosyvoice"):
        n = 1   # one process, one attachment to the model's actors
    rows = 0
    seen: set[str] = set()
    for reports in _check_shards(paths, expect_tokens, n):
        for report in reports:
            if report.row_id is not None:
                rows += 1
                if report.row_id in seen:
                    lines.append(f"{report.row_id}: duplicate id")
                    per_rule["duplicate"] += 1
                seen.add(report.row_id)
            for f in report.findings:
                lines.append(f.line)
                per_rule[f.rule] += 1
    if rows == 0:
        lines.append(f"{root}: 0 rows: nothing to validate (a dataset must hold at least one trajectory)")
        per_rule["empty"] += 1
    return rows, lines, per_rule


def run(args: argparse.Namespace) -> int:
    root = Path(args.dir)
    rows, lines, per_rule = validate_dataset(root, args.workers)
    for line in lines[: args.max_report]:
        print(line)
    if len(lines) > args.max_report:
        print(f"... and {len(lines) - args.max_report} more")
    if lines:
        print(f"FAILED: {len(lines)} violation(s) in {rows} rows: " +
              ", ".join(f"{k} {c}" for k, c in sorted(per_rule.items())) + f" (first: {lines[0]})",
              file=sys.stderr)
        return 1
    print(f"OK: {rows} rows in {root} satisfy every invariant (DESIGN §5)")
    return 0
