"""`duplexsynth stats DIR [--json] [--png FILE]`: conversation statistics measured on the audio."""
from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from schemas.argtypes import MAX_WORKERS, whole_number

COLUMNS = ("id", "scenario", "duration_s", "unit_s", "sample_rate", "user_audio", "assistant_audio", "events", "words",
           "units", "meta")


def register(sub: argparse._SubParsersAction) -> None:
    from jobs.dataset_reader import ALLOW_INCOMPLETE_HELP

    p = sub.add_parser("stats", help="IPU / pause / gap / overlap per minute (VAD on the audio) against Fisher",
                       description="Per minute of dialogue: IPU, pause, gap and overlap seconds (dGSLM "
                                   "definitions, energy VAD on both channels), backchannels, interruptions by "
                                   "action, response latency, listen/speak balance per scenario, realised SNRs, "
                                   "visual events per minute and proactive latency (Omni rows), side by side with the Fisher reference.")
    p.add_argument("dir", help="dataset folder (manifest.json + shards)")
    p.add_argument("--json", action="store_true", help="print the figures as JSON instead of the table")
    p.add_argument("--png", help="also write a figure to this PNG file")
    p.add_argument("--raw", action="store_true",
                   help="VAD the raw user channel (echo and noise included) instead of subtracting them")
    p.add_argument("--workers", type=whole_number(1, MAX_WORKERS), default=2, help="processes (one shard at a time each)")
    p.add_argument("--limit", type=whole_number(1), help="only the first N trajectories")
    p.add_argument("--check", action="store_true",
                   help="exit 1 unless every figure the unit clock allows is within +-25%% of Fisher")
    p.add_argument("--allow-incomplete", action="store_true", help=ALLOW_INCOMPLETE_HELP)
    p.set_defaults(func=run)


def _shard_stats(path: str, clean: bool, limit: int | None) -> list[dict[str, Any]]:
    """Stats of one shard's rows. A shard that cannot be read or decoded raises ShardError naming
    it (it pickles, so a worker process hands it back whole)."""
    import pyarrow as pa
    import soundfile as sf

    from jobs.dataset_reader import ShardError, open_shard
    from pipeline.stats import analyse_row
    from schemas.trajectory import row_field_problem

    out: list[dict[str, Any]] = []
    pf = open_shard(path, COLUMNS)
    try:
        for batch in pf.iter_batches(batch_size=4, columns=list(COLUMNS)):
            for row in batch.to_pylist():
                if limit is not None and len(out) >= limit:
                    return out
                why = row_field_problem(row)
                if why:
                    raise ShardError(path, f"row {len(out)}: not a valid trajectory row ({why})")
                r = analyse_row(row, clean=clean)
                out.append({**r.__dict__})
    except (pa.ArrowException, OSError, ValueError, KeyError, TypeError, sf.LibsndfileError) as err:
        first = (str(err).splitlines() or [""])[0]
        raise ShardError(path, f"row {len(out)}: cannot be read or analysed ({type(err).__name__}: {first})") from None
    return out


def collect(root: str, clean: bool = True, workers: int = 2, limit: int | None = None,
            allow_incomplete: bool = False) -> list[Any]:
    """RowStats of every trajectory in the folder (shards in parallel processes).

    The folder is checked first (jobs/dataset_reader.open_dataset): strict unless allow_incomplete.
    """
    from jobs.dataset_reader import open_dataset

    return collect_shards(open_dataset(root, allow_incomplete).shards, clean, workers, limit)


def collect_shards(paths: list[Any], clean: bool = True, workers: int = 2, limit: int | None = None) -> list[Any]:
    """RowStats of every trajectory of these shard files, in order."""
    from pipeline.stats import RowStats

    shards = [str(p) for p in paths]
    results: list[list[dict[str, Any]]] = []
    if workers <= 1 or len(shards) <= 1 or limit is not None:
        for s in shards:
            left = None if limit is None else limit - sum(len(r) for r in results)
            if left is not None and left <= 0:
                break
            results.append(_shard_stats(s, clean, left))
    else:
        import multiprocessing as mp
        from concurrent.futures import ProcessPoolExecutor

        with ProcessPoolExecutor(max_workers=workers, mp_context=mp.get_context("spawn")) as ex:
            try:
                results = list(ex.map(_shard_stats, shards, [clean] * len(shards), [None] * len(shards)))
            except BaseException:
                ex.shutdown(wait=False, cancel_futures=True)   # one bad shard: do not analyse the rest
                raise
    rows = [RowStats(**d) for res in results for d in res]
    return rows[:limit] if limit is not None else rows


def _plain(o: Any) -> Any:
    """numpy scalars as plain JSON numbers / booleans."""
    import numpy as np

    if isinstance(o, np.generic):
        return o.item()
    raise TypeError(f"not JSON serialisable: {type(o).__name__}")


def run(args: argparse.Namespace) -> int:
    from jobs.dataset_reader import DatasetError, open_dataset
    from pipeline.stats import aggregate, format_table, plot
    from schemas.safe_paths import refuse_unsafe_target

    if args.png:
        refuse_unsafe_target(args.png, "--png")   # before reading the dataset, not after
    try:
        check = open_dataset(args.dir, allow_incomplete=args.allow_incomplete)
        if not check.complete:
            print(check.skipped_line(), file=sys.stderr)
        rows = collect_shards(check.shards, clean=not args.raw, workers=args.workers, limit=args.limit)
    except DatasetError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    if not rows:
        print(f"error: no trajectories in {args.dir}", file=sys.stderr)
        return 2
    agg = aggregate(rows)
    agg["mode"] = "raw" if args.raw else "clean"
    if args.json:
        print(json.dumps(agg, indent=2, default=_plain))
    else:
        print(format_table(agg, clean=not args.raw))
    if args.png:
        plot(agg, args.png)
        if not args.json:
            print(f"\nfigure written to {args.png}")
    if args.check and not all(r["within"] for r in agg["reference"].values() if r["clock_allows"]):
        return 1
    return 0
