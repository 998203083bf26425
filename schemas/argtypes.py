"""argparse `type=` functions for numeric options, shared by every command.

A flag out of range is refused by argparse itself, before any work, in one line that names the
option ("argument --workers: must be >= 1, got 0"), so no command re-checks its own numbers.
The upper bounds are sanity bounds: they keep a typo (1e9 columns, 100000 workers) from hanging
or exhausting a machine.
"""
from __future__ import annotations

import argparse
import math
import os
from typing import Callable

# The most processes/CPUs a flag may ask for: well above any single host, far below a typo.
MAX_WORKERS = 4096
# The widest preview timeline in pixels (a 4K screen is 3840).
MAX_PREVIEW_WIDTH = 20000
MIN_PREVIEW_WIDTH = 200
# The most training copies `export --mix` may ask of one trajectory (0 drops a family).
MAX_MIX_WEIGHT = 1000.0


def whole_number(lo: int, hi: int | None = None) -> Callable[[str], int]:
    """An argparse `type=` for an integer in [lo, hi]; argparse names the option in its one-line error."""
    def parse(text: str) -> int:
        try:
            v = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"must be a whole number >= {lo}, got {text!r}") from None
        if v < lo:
            raise argparse.ArgumentTypeError(f"must be >= {lo}, got {v}")
        if hi is not None and v > hi:
            raise argparse.ArgumentTypeError(f"must be <= {hi}, got {v}")
        return v
    parse.__name__ = f"whole number >= {lo}"
    return parse


def finite_number(lo: float, hi: float, what: str = "a number") -> Callable[[str], float]:
    """An argparse `type=` for a finite float in [lo, hi] (nan and inf are refused)."""
    def parse(text: str) -> float:
        v = parse_finite(text, lo, hi, what)
        if isinstance(v, str):
            raise argparse.ArgumentTypeError(v)
        return v
    parse.__name__ = what
    return parse


def parse_finite(text: str, lo: float, hi: float, what: str = "a number") -> float | str:
    """`text` as a finite float in [lo, hi], or the one-line reason it is not (for flags, env and
    key=value lists alike)."""
    try:
        v = float(text)
    except (TypeError, ValueError):
        return f"must be {what} in [{lo:g}, {hi:g}], got {text!r}"
    if not math.isfinite(v) or not lo <= v <= hi:
        return f"must be {what} in [{lo:g}, {hi:g}], got {text!r}"
    return v


def seconds(text: str) -> float:
    """An argparse `type=` for a finite number of seconds >= 0 (nan and inf are refused)."""
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a number of seconds >= 0, got {text!r}") from None
    if not math.isfinite(v) or v < 0:
        raise argparse.ArgumentTypeError(f"must be a finite number of seconds >= 0, got {text!r}")
    return v


def env_number(name: str, default: float, lo: float, hi: float) -> float:
    """A numeric environment variable in [lo, hi]; a bad value raises UsageError naming the variable."""
    from schemas.errors import UsageError

    text = os.environ.get(name)
    if text is None or text == "":
        return default
    v = parse_finite(text, lo, hi, "a number of seconds")
    if isinstance(v, str):
        raise UsageError(f"${name} {v}")
    return v


def ray_address(text: str) -> str:
    """An argparse `type=` for a Ray cluster to attach to: 'auto', or [ray://]HOST:PORT."""
    import re

    t = text.strip()
    if t == "auto":
        return t
    m = re.fullmatch(r"(?:ray://)?([A-Za-z0-9._\-]+|\[[0-9A-Fa-f:.]+\]):([0-9]{1,5})", t)
    if m is None or not 1 <= int(m.group(2)) <= 65535:
        raise argparse.ArgumentTypeError(f"must be 'auto' or HOST:PORT (ray://HOST:PORT), got {text!r}")
    return t
