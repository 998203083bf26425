"""`duplexsynth generate`: render a dataset of trajectories as Parquet shards on Ray.

Runs on an embedded local Ray by default; `--address auto` (or HOST:PORT) attaches to a running
cluster, which is what a job sent by `duplexsynth submit` does inside the cluster.
"""
from __future__ import annotations

import argparse
import sys

from schemas.argtypes import MAX_WORKERS, ray_address, seconds, whole_number

EXIT_ALL_FAILED = 4   # the run completed, but every trajectory is a failed record (no rows)


def add_plan_args(p: argparse.ArgumentParser) -> None:
    """The options that decide which scripts a run plans (shared with `write-scripts`)."""
    p.add_argument("--config", help="YAML run config (default: embedded defaults)")
    p.add_argument("--preset", help="start from a bundled preset (schemas/presets: natural); --config merges over it")
    p.add_argument("--num", type=whole_number(1), help="number of trajectories")
    p.add_argument("--scenario", nargs="+", help="only these scenario families (equal weights)")
    p.add_argument("--seed", type=whole_number(0), help="run seed (>= 0)")
    p.add_argument("--language", help="language of every trajectory (en, zh); a config's `languages` mixes them")
    p.add_argument("--shard-size", type=whole_number(1), help="trajectories per shard (an id names its shard)")


def add_run_args(p: argparse.ArgumentParser) -> None:
    """The options that decide what a run makes (shared with `duplexsynth submit`)."""
    add_plan_args(p)
    p.add_argument("--force-new-run", action="store_true", help="discard an older run with another config")


def resolve_config(args: argparse.Namespace):
    """The RunConfig of a generate/submit command line (raises schemas.config.ConfigError)."""
    from schemas.config import load_config
    overrides = {"num": args.num, "seed": args.seed, "shard_size": args.shard_size,
                 "language": getattr(args, "language", None)}
    if args.scenario:
        overrides["scenarios"] = {s: 1.0 for s in args.scenario}
    return load_config(args.config, overrides, preset=getattr(args, "preset", None))


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("generate", help="generate trajectories into Parquet shards")
    add_run_args(p)
    p.add_argument("--out", required=True, help="output folder, or an fsspec URI (s3://bucket/run, file:///...)")
    p.add_argument("--workers", type=whole_number(1, MAX_WORKERS), help="CPUs of the embedded local Ray (default 2); with "
                   "--address, shard tasks to keep busy (default: every CPU of the cluster)")
    p.add_argument("--address", type=ray_address, help="attach to a running Ray cluster (auto, or HOST:PORT) instead of a local one")
    p.add_argument("--max-in-flight", type=whole_number(1), help="shard tasks submitted at once (default 2 x workers)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar or progress lines")
    p.add_argument("--progress-interval", type=seconds, default=10.0,
                   help="seconds between progress lines when stderr is not a terminal (default 10; 0: every shard)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Refusals (ConfigError, RunRefused: UsageError) propagate to jobs.cli.main, which prints one line."""
    from jobs.runner import generate, summary_text

    if args.no_progress:
        progress: bool | str = False
    else:
        progress = "bar" if sys.stderr.isatty() else "log"
    cfg = resolve_config(args)
    res = generate(cfg, args.out, workers=args.workers, address=args.address,
                   force_new_run=args.force_new_run, progress=progress,
                   progress_interval=args.progress_interval, max_in_flight=args.max_in_flight)
    print(summary_text(res), flush=True)
    if not res.ok:
        return 3
    if res.rows == 0 and res.failed > 0:   # a dataset of nothing is a failed run, not a success
        first = res.failure_examples[0] if res.failure_examples else {}
        err = (str(first.get("error", "?")).splitlines() or ["?"])[0]
        why = f"; first: {first.get('id', '?')}: {err}" if first else ""
        print(f"error: every trajectory failed ({res.failed} of {res.failed}, listed in {res.out}/failed/){why}",
              file=sys.stderr)
        return EXIT_ALL_FAILED
    return 0
