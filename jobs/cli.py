"""The `duplexsynth` command line. Each subcommand lives in its own module and registers itself.

A module in SUBCOMMANDS exposes `register(subparsers) -> None`, adding a parser whose default
`func(args) -> int` runs the command. Imports stay lazy so `duplexsynth --help` is fast.
"""
from __future__ import annotations

import argparse
import importlib
import sys

SUBCOMMANDS: tuple[str, ...] = (
    "jobs.generate_cmd",   # generate
    "jobs.validate_cmd",   # validate
    "jobs.submit_cmd",     # submit (a Ray Job on a cluster)
    "jobs.jobs_cmd",       # jobs status|logs|stop|list
    "jobs.preview_cmd",    # preview
    "jobs.export_cmd",     # export
    "model.train_cmd",     # train, eval-decisions
    "jobs.stats_cmd",      # stats
    "jobs.fit_timing_cmd",  # fit-timing
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="duplexsynth", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    for name in SUBCOMMANDS:
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as err:
            if err.name == name:   # subcommand not built yet
                continue
            raise
        module.register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return int(args.func(args) or 0)


if __name__ == "__main__":
    sys.exit(main())
