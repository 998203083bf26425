"""Bounds on what one input may cost: time, memory, bytes. Defined once here, each stated in its refusal.

A careless or hostile input (a FIFO where a file belongs, a corpus linked to /dev/zero, an LLM
endpoint that drips a byte a second, a 3-hour FLAC in a 17 s row, an address nothing answers at)
must be refused in bounded time with one line naming the field or file, never hang or exhaust
memory. The readers import these names; the few helpers here are what every layer (model/
included, which sees only schemas/) uses to open an input or reach a cluster within bounds.
"""
from __future__ import annotations

import math
import os
import socket
import stat
from pathlib import Path
from urllib.parse import urlsplit

from schemas.errors import UsageError

# A corpus (generators/corpus): one JSONL record is at most this many bytes, and one message at
# most this many characters (a spoken turn, before the spoken register cuts an answer to sentences).
MAX_CORPUS_RECORD_BYTES = 4 * 2**20
MAX_CORPUS_MESSAGE_CHARS = 20_000
# An LLM reply (generators/llm): the HTTP body read at most to this size (a completion of
# MAX_LLM_TOKENS tokens in its JSON envelope is well under it); a cache entry likewise.
MAX_LLM_REPLY_BYTES = 2 * 2**20
# Stored audio is decoded only if it is at most this much longer than its row's duration_s.
MAX_AUDIO_OVERRUN_S = 1.0
# A Ray cluster address must accept a TCP connection within this many seconds before Ray is asked
# to attach to it (Ray itself retries an address nothing answers at without end).
CLUSTER_CONNECT_TIMEOUT_S = 10.0
# fit-timing reads at most this much of one input file (word timings of a few hundred hours).
MAX_TIMING_INPUT_BYTES = 256 * 2**20


class BoundsError(UsageError, ValueError):
    """An input over one of the bounds above, or not the kind of file it must be."""


def regular_file(path: str | Path, what: str) -> Path:
    """`path` if it is a regular file (a link to one is fine); else BoundsError naming `what`.

    A FIFO blocks the reader until a writer comes, and a device (/dev/zero) never ends: both are
    refused before they are opened."""
    p = Path(path)
    try:
        st = os.stat(p)
    except FileNotFoundError:
        raise BoundsError(f"{what}: {p} not found") from None
    except OSError as err:
        raise BoundsError(f"{what}: cannot read {p} ({err.strerror or err})") from None
    if not stat.S_ISREG(st.st_mode):
        kind = ("a folder" if stat.S_ISDIR(st.st_mode) else "a FIFO" if stat.S_ISFIFO(st.st_mode)
                else "a device" if stat.S_ISCHR(st.st_mode) or stat.S_ISBLK(st.st_mode) else "a socket"
                if stat.S_ISSOCK(st.st_mode) else "not a regular file")
        raise BoundsError(f"{what}: {p} is {kind}, not a regular file")
    return p


def writable_file(path: str | Path, what: str) -> Path:
    """`path` if it may be (over)written as a regular file: absent, or a regular file. A FIFO or a
    device there would block the write or be written into; refused with BoundsError naming `what`."""
    p = Path(path)
    if os.path.lexists(p) and not (p.is_file() and not p.is_symlink()):
        kind = "a folder" if p.is_dir() else "a link" if p.is_symlink() else "not a regular file"
        raise BoundsError(f"{what}: {p} exists and is {kind}; give a new file name")
    return p


def read_bounded(path: str | Path, what: str, max_bytes: int) -> bytes:
    """The bytes of regular file `path`, refused (BoundsError naming `what` and the bound) past `max_bytes`."""
    p = regular_file(path, what)
    try:
        with open(p, "rb") as f:
            blob = f.read(max_bytes + 1)
    except OSError as err:
        raise BoundsError(f"{what}: cannot read {p} ({err.strerror or err})") from None
    if len(blob) > max_bytes:
        raise BoundsError(f"{what}: {p} is larger than {max_bytes:,} bytes, the most it may be")
    return blob


def audio_frame_bound(duration_s: float, sample_rate: int) -> int:
    """The most frames a row's stored audio may hold before it is decoded: duration_s + MAX_AUDIO_OVERRUN_S."""
    if not math.isfinite(duration_s) or duration_s < 0:
        return 0
    return math.ceil((duration_s + MAX_AUDIO_OVERRUN_S) * sample_rate)


# Ray's own default ports: a GCS address (HOST) and a Ray client address (ray://HOST).
RAY_GCS_PORT, RAY_CLIENT_PORT = 6379, 10001


def host_port(address: str) -> tuple[str, int] | None:
    """(host, port) of a Ray address (HOST[:PORT], ray://HOST[:PORT]); None for `auto` / `local`
    (no address to reach). Raises BoundsError for an address with no host or a bad port."""
    a = address.strip()
    if a in ("auto", "local", ""):
        return None
    parts = urlsplit(a if "://" in a else f"tcp://{a}")
    try:
        port = parts.port if parts.port is not None else RAY_CLIENT_PORT if parts.scheme == "ray" else RAY_GCS_PORT
    except ValueError:
        port = None
    if not parts.hostname or port is None:
        raise BoundsError(f"address {address!r} is not HOST:PORT, ray://HOST:PORT or auto")
    return parts.hostname, port


def reachable(address: str, what: str, timeout_s: float = CLUSTER_CONNECT_TIMEOUT_S) -> None:
    """Refuse (BoundsError naming `what`) a cluster address that does not accept a TCP connection
    within `timeout_s`, before a client that retries without end is pointed at it."""
    hp = host_port(address)
    if hp is None:
        return
    try:
        with socket.create_connection(hp, timeout=timeout_s):
            pass
    except (OSError, UnicodeError) as err:
        why = "timed out" if isinstance(err, TimeoutError) else (getattr(err, "strerror", None) or str(err))
        raise BoundsError(f"{what} {address}: nothing accepts a connection at {hp[0]}:{hp[1]} "
                          f"within {timeout_s:g} s ({why}); is the cluster running?") from None
