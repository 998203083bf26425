"""Reading the harness's result texts into values: what every language's readers start from.

The harness answers in English whatever the dialogue's language (generators/harness/registry.py
writes its texts); a reader in ``generators/banks/<lang>/delegation_<tool>.py`` takes the values
found here and says them in its language. Only the received text is read, never the harness
fields (DESIGN §2 rule 6), and in a partial result only the segments that arrived whole.
"""

from __future__ import annotations

import re

from .delegations import Result, segments


def degrees_value(said: str) -> int:
    """A temperature as the harness writes it ("minus 3", "12") as an integer."""
    return -int(said.removeprefix("minus ")) if said.startswith("minus ") else int(said)


def forecast_values(res: Result) -> dict[str, object]:
    """The forecast's parts the text states: ``cond`` (the condition phrase, only if whole), ``low``
    and ``high`` and ``evening`` (as written: "minus 3"), ``rain`` and ``wind`` (ints)."""
    out: dict[str, object] = {}
    for i, (seg, whole) in enumerate(segments(res, ", ")):
        if i == 0:
            if whole:
                out["cond"] = seg
        elif m := re.fullmatch(r"((?:minus )?\d+) to ((?:minus )?\d+) degrees Celsius", seg):
            out["low"], out["high"] = m.group(1), m.group(2)
        elif m := re.fullmatch(r"((?:minus )?\d+) in the evening", seg):
            out["evening"] = m.group(1)
        elif m := re.fullmatch(r"(\d+)% chance of rain", seg):
            out["rain"] = int(m.group(1))
        elif m := re.fullmatch(r"wind (\d+) km/h", seg):
            out["wind"] = int(m.group(1))
    return out
