"""One writer per output folder: an exclusive lock file held for the whole run.

Two `generate` (or `export`) runs into one folder would overwrite each other's shards while each
believes it owns the folder. The first run takes `ROOT/.duplexsynth.lock` (JSON: pid, host, start
time, command); a second run finds it and refuses, naming the holder.

- Local folder: the lock file is held with `flock` for the run, so a holder that died (even by
  kill -9) leaves a lock nobody holds: the next run reports it as stale and takes it over. A
  finished run empties the file and leaves it (an empty lock file is free).
- fsspec URI (object stores have no flock): the lock object is written if absent; a lock from
  this host whose pid is dead is stale, and a lock from another host is refused (the message
  says which file to delete once that run is known to be gone).
"""
from __future__ import annotations

import contextlib
import fcntl
import json
import os
import socket
import sys
import time
from collections.abc import Iterator
from typing import Any

from pipeline.io import Store
from schemas.errors import UsageError

LOCK_NAME = ".duplexsynth.lock"


class OutputLocked(UsageError):
    """Another live run holds the output folder."""


def _holder_text(info: dict[str, Any]) -> str:
    when = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(info.get("started", 0)))
    return (f"pid {info.get('pid', '?')} on host {info.get('host', '?')} "
            f"({info.get('command', '?')}, since {when})")


def _read_info(raw: bytes) -> dict[str, Any]:
    try:
        info = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        return {}
    return info if isinstance(info, dict) else {}


def _pid_alive(pid: Any) -> bool:
    if not isinstance(pid, int) or pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _stale_note(display: str, info: dict[str, Any]) -> None:
    print(f"note: {display}: took over a stale lock of a run that is no longer alive ({_holder_text(info)})",
          file=sys.stderr, flush=True)


@contextlib.contextmanager
def output_lock(store: Store, command: str) -> Iterator[None]:
    """Hold the exclusive lock on `store`'s root for the duration of the block (see module doc)."""
    info = {"pid": os.getpid(), "host": socket.gethostname(), "started": time.time(), "command": command}
    payload = (json.dumps(info, sort_keys=True) + "\n").encode()
    if store.local is None:
        yield from _remote_lock(store, payload)
        return
    path = store.path(LOCK_NAME)
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o644)
    except OSError as err:
        raise UsageError(f"{path}: cannot create the lock file ({err.strerror}); "
                         "the output must be a writable folder") from None
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            held = _read_info(os.pread(fd, 4096, 0))
            raise OutputLocked(f"{store.display()} is in use by another run: {_holder_text(held)}; "
                               f"wait for it to finish or choose another --out") from None
        old = _read_info(os.pread(fd, 4096, 0))
        if old:
            _stale_note(store.display(), old)
        try:
            os.ftruncate(fd, 0)
            os.pwrite(fd, payload, 0)
            os.fsync(fd)
        except OSError as err:
            raise UsageError(f"{path}: cannot write the lock file ({err.strerror})") from None
        try:
            yield
        finally:
            # emptied, not unlinked: a run that opened this inode while we held it must not end up
            # holding a lock on a deleted file while a third run creates a new one
            with contextlib.suppress(OSError):
                os.ftruncate(fd, 0)
    finally:
        os.close(fd)   # releases the flock


def _remote_lock(store: Store, payload: bytes) -> Iterator[None]:
    if store.exists(LOCK_NAME):
        held = _read_info(store.read_bytes(LOCK_NAME))
        same_host = held.get("host") == socket.gethostname()
        if same_host and not _pid_alive(held.get("pid")):
            _stale_note(store.display(), held)
        else:
            raise OutputLocked(
                f"{store.display()} is in use by another run: {_holder_text(held)}; if that run is gone, "
                f"delete {store.display(LOCK_NAME)} and rerun")
    store.write_bytes(LOCK_NAME, payload)
    try:
        yield
    finally:
        with contextlib.suppress(OSError, FileNotFoundError):
            store.remove(LOCK_NAME)
