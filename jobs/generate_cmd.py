"""`duplexsynth generate`: render a dataset of trajectories as Parquet shards on local Ray."""
from __future__ import annotations

import argparse
import sys


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("generate", help="generate trajectories into Parquet shards")
    p.add_argument("--config", help="YAML run config (default: embedded defaults)")
    p.add_argument("--num", type=int, help="number of trajectories")
    p.add_argument("--out", required=True, help="output folder")
    p.add_argument("--workers", type=int, default=2, help="local Ray CPUs (one shard task each)")
    p.add_argument("--scenario", nargs="+", help="only these scenario families (equal weights)")
    p.add_argument("--seed", type=int, help="run seed")
    p.add_argument("--shard-size", type=int, help="trajectories per shard")
    p.add_argument("--address", help="attach to a running Ray cluster (e.g. auto)")
    p.add_argument("--force-new-run", action="store_true", help="discard an older run with another config")
    p.add_argument("--no-progress", action="store_true")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from jobs.runner import RunRefused, generate, summary_text
    from schemas.config import ConfigError, load_config

    overrides = {"num": args.num, "seed": args.seed, "shard_size": args.shard_size}
    if args.scenario:
        overrides["scenarios"] = {s: 1.0 for s in args.scenario}
    try:
        cfg = load_config(args.config, overrides)
        res = generate(cfg, args.out, workers=args.workers, address=args.address,
                       force_new_run=args.force_new_run, progress=not args.no_progress and sys.stderr.isatty())
    except (ConfigError, RunRefused) as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    print(summary_text(res))
    return 0 if res.ok else 3
