"""The one base class of every refusal meant for a person at a terminal.

A `UsageError` carries a message that names the field or file at fault and says what to fix.
The CLI (jobs/cli.py) prints it as one line `error: ...` and exits 2, with no traceback. Each
layer subclasses it for its own refusals (ConfigError, DatasetError, ExportError, ...).
"""
from __future__ import annotations


class UsageError(Exception):
    """Bad input or a refused operation; the message is what the user sees."""

    exit_code = 2


def validation_summary(err: Exception) -> str:
    """A pydantic ValidationError as 'field.path: message; ...' on one line (the field named, not the
    input echoed), else the error's first line."""
    errors = getattr(err, "errors", None)
    if not callable(errors):
        return (str(err).splitlines() or [type(err).__name__])[0]
    return "; ".join(f"{'.'.join(str(p) for p in e['loc']) or 'row'}: {e['msg']}" for e in errors()[:3])
