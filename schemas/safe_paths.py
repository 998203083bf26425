"""Paths we write and paths data names: one place for the rules that keep both inside their folder.

Every result file goes through `atomic_write_bytes` (refuse a non-regular target, a fresh temp opened
O_EXCL|O_NOFOLLOW, fsync, rename); every file name read from data goes through `contained`. They
live in schemas because every layer (pipeline, jobs, model) writes results and reads such names.
"""
from __future__ import annotations

import contextlib
import os
import stat
import uuid
from pathlib import Path

from schemas.errors import UsageError

TMP_MARK = ".tmp-"   # temp names are ".<name>.tmp-<pid>[-<nonce>]"


class UnsafePath(UsageError, ValueError):
    """A path we would write, or a path a data file names, that leaves where it must stay."""


def refuse_unsafe_target(path: str | Path, what: str = "--out") -> None:
    """Refuse a result path that exists and is not a regular file (a FIFO, a device, a folder, a symlink).

    Renaming over such a target replaces it (as root, /dev/full would become a JSON file) or writes
    through a link to wherever it points; an empty path would mean the current folder.
    """
    if not str(path).strip():
        raise UnsafePath(f"{what}: empty path; name a file")
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return
    if not stat.S_ISREG(st.st_mode):
        kind = ("a symlink" if stat.S_ISLNK(st.st_mode) else "a folder" if stat.S_ISDIR(st.st_mode)
                else "a FIFO" if stat.S_ISFIFO(st.st_mode) else "a device or socket")
        raise UnsafePath(f"{what} {path}: exists and is {kind}, not a regular file; duplexsynth replaces only "
                         "regular files: choose another path")


def atomic_write_bytes(path: str | Path, data: bytes, what: str = "output file") -> None:
    """Write to a fresh temp name in the same folder, fsync, rename: readers never see half a file.

    The one safe writer of a result file: an existing target must be a regular file
    (`refuse_unsafe_target`), and the temp is created with O_EXCL|O_NOFOLLOW under a name with a
    nonce, so a symlink planted at a guessable temp name is never written through.
    """
    path = Path(path)
    refuse_unsafe_target(path, what)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}{TMP_MARK}{os.getpid()}-{uuid.uuid4().hex[:8]}")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def contained(root: str | Path, rel: str, what: str) -> Path:
    """`root/rel` when it stays inside `root` (symlinks resolved), else a one-line refusal naming `what`.

    For paths read from data (a split's shard list, a checkpoint's storage file names): a relative
    path that climbs out with '..', an absolute one or a symlink out would read any file on the host.
    """
    if not isinstance(rel, str) or not rel.strip():
        raise UnsafePath(f"{what}: {rel!r} is not a file name")
    base = Path(root).resolve()
    target = (base / rel).resolve()
    if Path(rel).is_absolute() or not target.is_relative_to(base):
        raise UnsafePath(f"{what}: {rel!r} points outside {base}; a data file may name only files inside its folder")
    return target
