"""Pipeline throughput against raw synthesis of the same texts by the same engines, side by side in one run.

    python benchmarks/generate_throughput.py [--num 40] [--cast natural|espeak]

The full pipeline (plan, TTS, compose, acoustics, FLAC, units, row) in one process against the raw
engine synthesis of every utterance the trajectories contain, in audio-seconds per CPU-second, and
their ratio: `benchmarks/tts_engines.py`'s cast figures for one cast (the default voices unless
`--cast`), every engine worker started before either clock.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from tts_engines import CASTS, bench_cast  # noqa: E402 - the sibling benchmark

from schemas.config import DEFAULT_CAST  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--num", type=int, default=40)
    ap.add_argument("--cast", default=DEFAULT_CAST, choices=sorted(CASTS))
    args = ap.parse_args()
    bench_cast(args.cast, CASTS[args.cast], args.num)


if __name__ == "__main__":
    main()
