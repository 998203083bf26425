"""One writer per output folder: an exclusive lock file held for the whole run.

Two `generate` (or `export`) runs into one folder would overwrite each other's shards while each
believes it owns the folder. The first run takes `ROOT/.duplexsynth.lock` (JSON: pid, host, start
time, command); a second run finds it and refuses, naming the holder.

- Local folder: the lock file is held with `flock` for the run, so a holder that died (even by
  kill -9) leaves a lock nobody holds: the next run reports it as stale and takes it over. A
  finished run empties the file and leaves it (an empty lock file is free).
- A reader (`export`) holds a shared flock on its source's lock file while it reads, so a
  `generate --force-new-run` into the source is refused until the export is done (and an export is
  refused while a run writes its source, unless it reads an incomplete one on purpose).
- An export's output (`export_output`): a refused or failed export leaves no lock file and no
  folder it created itself.
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
from pathlib import Path
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
            who = _holder_text(held) if held else "an export is reading it"   # readers write no holder
            raise OutputLocked(f"{store.display()} is in use by another run: {who}; "
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


@contextlib.contextmanager
def source_lock(root: Path, command: str, allow_incomplete: bool = False) -> Iterator[None]:
    """Hold a shared lock on the dataset folder `root` while `command` reads it (see module doc).

    A folder we cannot lock (read-only and without a lock file) is read unlocked: nothing can
    write there either. With `allow_incomplete`, a source a live run is writing is read anyway.
    """
    path = root / LOCK_NAME
    fd = None
    for flags in (os.O_RDONLY | os.O_NOFOLLOW, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW):
        try:
            fd = os.open(path, flags, 0o644)
            break
        except OSError:
            continue
    if fd is None:
        yield
        return
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            if not allow_incomplete:
                held = _read_info(os.pread(fd, 4096, 0))
                raise OutputLocked(f"{root} is being written by another run: {_holder_text(held)}; wait for it "
                                   f"to finish before {command} reads it (or pass --allow-incomplete to read "
                                   "the shards it has finished)") from None
            print(f"note: {root} is being written by another run; reading the shards it has finished",
                  file=sys.stderr, flush=True)
        yield
    finally:
        os.close(fd)   # releases the shared flock


@contextlib.contextmanager
def export_output(out: Path, command: str) -> Iterator[None]:
    """Create `out` and hold its lock for an export; one that fails or is refused leaves neither a lock
    file nor a folder it created itself (a lock file it found, an earlier export's, stays)."""
    created = not os.path.lexists(out)
    had_lock = os.path.lexists(out / LOCK_NAME)
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise UsageError(f"--out {out}: cannot create the output folder ({err.strerror or err})") from None
    failed = False
    try:
        with output_lock(Store(out), command):
            try:
                yield
            except BaseException:
                failed = True
                if not had_lock:   # unlinked while held: no other run can be holding this inode
                    with contextlib.suppress(OSError):
                        (out / LOCK_NAME).unlink()
                raise
    finally:
        if failed and created:
            with contextlib.suppress(OSError):
                out.rmdir()   # only when empty: the failed export cleared what it wrote


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
