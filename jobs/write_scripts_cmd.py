"""`duplexsynth write-scripts`: the run's scripts without audio, as JSONL, to preview a source quickly.

Each trajectory is planned exactly as `generate` plans it (same seed, language, scenario and id),
from the config's script source: the procedural planners, a corpus, or an LLM, whose responses are
cached under --out (`llm_cache/`), so a later `generate --out` on the same folder makes no new call.
One `schemas.provenance.ScriptRecord` JSON a line goes to scripts.jsonl; each trajectory that fails
(a bad corpus record, an LLM reply that never validated) is a line of failed.jsonl saying why. Both
are written to temp names and renamed at the end, so an interrupted command leaves neither half written.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any, TextIO

from jobs.generate_cmd import add_plan_args, resolve_config, seconds
from schemas.safe_paths import refuse_unsafe_target

SCRIPTS_FILE = "scripts.jsonl"
FAILED_FILE = "failed.jsonl"


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("write-scripts", help="plan scripts without audio into JSONL (preview a script source, "
                       "fill the LLM cache)")
    add_plan_args(p)
    p.add_argument("--out", required=True, help=f"local output folder ({SCRIPTS_FILE}, {FAILED_FILE}, llm_cache/)")
    p.add_argument("--no-progress", action="store_true", help="no progress lines")
    p.add_argument("--progress-interval", type=seconds, default=2.0, help="seconds between progress lines (default 2)")
    p.set_defaults(func=run)


def _tmp(path: Path) -> Path:
    return path.with_name(f".{path.name}.{os.getpid()}.tmp")


def _open_tmp(path: Path) -> TextIO:
    """The temp file of `path`, new (O_EXCL|O_NOFOLLOW: a symlink planted at its name is never written
    through); a leftover of a killed run is removed first (the output lock is held). A `path` that
    exists and is not a regular file is refused before any planning."""
    refuse_unsafe_target(path, "--out")
    tmp = _tmp(path)
    tmp.unlink(missing_ok=True)
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644)
    return os.fdopen(fd, "w", encoding="utf-8")


def run(args: argparse.Namespace) -> int:
    """Refusals (ConfigError, a bad --out) are UsageErrors: jobs.cli.main prints them in one line."""
    from jobs.lock import output_lock
    from jobs.runner import RunRefused, check_output_subfolders
    from jobs.shards import preflight
    from pipeline.io import Store

    cfg = resolve_config(args)
    out = Path(args.out)
    if "://" in args.out:
        raise RunRefused(f"--out {args.out}: write-scripts writes a local folder, not a URI")
    if out.exists() and not out.is_dir():
        raise RunRefused(f"--out {out}: exists and is not a folder")
    for note in preflight(cfg):
        print(note, file=sys.stderr)
    out.mkdir(parents=True, exist_ok=True)
    store = Store(out)
    with output_lock(store, "duplexsynth write-scripts"):   # two runs into one folder: the second is refused
        check_output_subfolders(store)   # llm_cache/ a symlink out of --out is refused, as generate refuses it
        return _write(args, cfg, out)


def _write(args: argparse.Namespace, cfg: Any, out: Path) -> int:
    """Plan every trajectory into the two JSONL files (the output lock is held)."""
    from generators.registry import (
        language_for,
        plan_sourced,
        scenario_for,
        source_for,
        trajectory_seed,
        trajectory_weights,
    )
    from jobs.shards import trajectory_id
    from schemas.provenance import ScriptRecord

    writer = source_for(cfg, out)
    paths = {name: out / name for name in (SCRIPTS_FILE, FAILED_FILE)}
    t0 = last = time.monotonic()
    counts: Counter[str] = Counter()
    failed = 0
    with _open_tmp(paths[SCRIPTS_FILE]) as good, _open_tmp(paths[FAILED_FILE]) as bad:
        for j in range(cfg.num):
            tid = trajectory_id(cfg.seed, j // cfg.shard_size, j)
            seed = trajectory_seed(cfg.seed, j)
            lang = language_for(cfg, seed)
            scenario = scenario_for(j, cfg.seed, trajectory_weights(cfg, lang, seed))
            try:
                script, source = plan_sourced(cfg, scenario, seed, lang, writer, j)
            except Exception as err:  # noqa: BLE001 - every failure is recorded, as generate records it
                failed += 1
                _line(bad, {"id": tid, "index": j, "seed": seed, "scenario": scenario,
                            "error": f"{type(err).__name__}: {err}"})
            else:
                counts[scenario] += 1
                good.write(ScriptRecord(id=tid, index=j, script=script, source=source).model_dump_json() + "\n")
            now = time.monotonic()
            if not args.no_progress and now - last >= args.progress_interval:
                last = now
                print(f"write-scripts: {j + 1}/{cfg.num} planned, {failed} failed, "
                      f"{(j + 1) / (now - t0):.0f} scripts/s{_llm_figures(writer, now - t0)}", file=sys.stderr, flush=True)
    for path in paths.values():
        os.replace(_tmp(path), path)
    wall = time.monotonic() - t0
    mix = ", ".join(f"{s} {n}" for s, n in sorted(counts.items()))
    print(f"wrote {sum(counts.values())} scripts ({failed} failed) to {paths[SCRIPTS_FILE]} in {wall:.1f} s "
          f"({cfg.num / max(wall, 1e-9):.0f} scripts/s){_llm_figures(writer, wall)}; by scenario: {mix or 'none'}"
          + (f"; failures: {paths[FAILED_FILE]}" if failed else ""), flush=True)
    return 0 if not failed else 3


def _line(f: TextIO, obj: dict[str, Any]) -> None:
    f.write(json.dumps(obj, ensure_ascii=False) + "\n")


def _llm_figures(writer: Any, elapsed_s: float) -> str:
    """The LLM's calls, failed calls and cache hits so far (a run with an llm source only)."""
    return writer.stats().text(elapsed_s) if writer.has_llm else ""
