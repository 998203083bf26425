"""The `duplexsynth` command line. Each subcommand lives in its own module and registers itself.

A module in SUBCOMMANDS exposes `register(subparsers) -> None`, adding a parser whose default
`func(args) -> int` runs the command. Imports stay lazy so `duplexsynth --help` is fast.
"""
from __future__ import annotations

import argparse
import importlib
import os
import sys

SUBCOMMANDS: tuple[str, ...] = (
    "jobs.generate_cmd",   # generate
    "jobs.validate_cmd",   # validate
    "jobs.submit_cmd",     # submit (a Ray Job on a cluster)
    "jobs.jobs_cmd",       # jobs status|logs|stop|list
    "jobs.preview_cmd",    # preview
    "jobs.export_cmd",     # export
    "model.train_cmd",     # train, eval-decisions, eval-duplex, export-checkpoint
    "jobs.stats_cmd",      # stats
    "jobs.fit_timing_cmd",  # fit-timing
    "jobs.voices_cmd",     # voices
    "jobs.write_scripts_cmd",  # write-scripts
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
    """Run one subcommand. Every refusal is one line on stderr and a non-zero exit, never a traceback.

    UsageError (schemas/errors.py) is the refusal a command raises on purpose (exit 2); an OSError
    names the file it hit (exit 2); anything else is a defect of ours and says so in one line
    (exit 1; DUPLEXSYNTH_DEBUG=1 re-raises it to show the traceback).
    """
    from schemas.errors import UsageError

    args = build_parser().parse_args(argv)
    try:
        _refuse_empty_paths(args)
        return int(args.func(args) or 0)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except UsageError as err:
        print(f"error: {one_line(str(err))}", file=sys.stderr)
        return err.exit_code
    except OSError as err:
        if os.environ.get("DUPLEXSYNTH_DEBUG"):
            raise
        where = f"{err.filename}: " if err.filename else ""
        print(f"error: {where}{err.strerror or err}", file=sys.stderr)
        return 2
    except Exception as err:  # noqa: BLE001 - the last guard: one line, not a traceback
        if os.environ.get("DUPLEXSYNTH_DEBUG"):
            raise
        print(f"error: unexpected {type(err).__name__}: {one_line(str(err))} "
              "(a defect of duplexsynth; DUPLEXSYNTH_DEBUG=1 shows the traceback)", file=sys.stderr)
        return 1


PATH_OPTIONS = ("out", "png")   # options naming a file or folder we write: '' would mean the current folder


def _refuse_empty_paths(args: argparse.Namespace) -> None:
    """`--out ''` is Path('') = the current folder: refuse it rather than write (or clear) there."""
    from schemas.errors import UsageError

    for name in PATH_OPTIONS:
        value = getattr(args, name, None)
        if isinstance(value, str) and not value.strip():
            raise UsageError(f"--{name}: empty path; name a file or folder")


def one_line(msg: str) -> str:
    """A message on one line: its lines joined with '; ' (a config with several bad fields)."""
    return "; ".join(part.strip() for part in msg.splitlines() if part.strip())


if __name__ == "__main__":
    sys.exit(main())
