"""Parquet and audio I/O: FLAC bytes in HF Audio structs, shards written to a temp name then renamed.

Output locations (`Store`) are a local folder or any fsspec URI (`s3://`, `gs://`, `file://`, ...;
a scheme only pyarrow knows, such as `hdfs://`, goes through fsspec's ArrowFSWrapper). Every write
lands under a temp name first and is then renamed into place, so a reader, or a resumed run, never
sees half a file.
"""
from __future__ import annotations

import contextlib
import hashlib
import io
import json
import os
import re
import tempfile
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import soundfile as sf

from schemas.arrow import HEAVY_COLUMNS
from schemas.bounds import MAX_AUDIO_OVERRUN_S, BoundsError, audio_frame_bound
from schemas.safe_paths import (  # noqa: F401
    TMP_MARK,
    UnsafePath,
    atomic_write_bytes,
    contained,
    refuse_unsafe_target,
)

ROW_GROUP_SIZE = 2   # 1-4 rows per group: reading one trajectory reads only that trajectory


def encode_flac(audio: np.ndarray, sample_rate: int, compression: int = 5) -> bytes:
    """16-bit FLAC bytes. Deterministic: same samples give the same bytes."""
    buf = io.BytesIO()
    pcm = np.clip(np.round(audio.astype(np.float64) * 32767.0), -32768, 32767).astype(np.int16)
    sf.write(buf, pcm, sample_rate, format="FLAC", subtype="PCM_16",
             compression_level=compression / 8.0)
    return buf.getvalue()


def decode_audio(blob: bytes, duration_s: float | None = None, what: str = "audio") -> tuple[np.ndarray, int]:
    """Float32 samples and rate from encoded bytes (FLAC/WAV). With `duration_s` (the row's), audio
    that holds more frames than duration_s + MAX_AUDIO_OVERRUN_S is refused (BoundsError naming
    `what`) from its header, before it is decoded: a 3-hour FLAC in a 17 s row is 1 GB of floats."""
    if duration_s is not None:
        info = sf.info(io.BytesIO(blob))
        bound = audio_frame_bound(duration_s, info.samplerate)
        if info.frames > bound:
            raise BoundsError(f"{what}: {info.frames:,} frames ({info.frames / max(info.samplerate, 1):.1f} s) at "
                              f"{info.samplerate} Hz in a row of duration_s {duration_s:g}; at most "
                              f"{MAX_AUDIO_OVERRUN_S:g} s more is decoded (MAX_AUDIO_OVERRUN_S)")
    data, sr = sf.read(io.BytesIO(blob), dtype="float32")
    return data, int(sr)


def sha256_stream(f: Any) -> str:
    """sha256 of a binary file object, read in 1 MiB blocks (shards can be large)."""
    h = hashlib.sha256()
    for chunk in iter(lambda: f.read(1 << 20), b""):
        h.update(chunk)
    return h.hexdigest()


def sha256_file(path: str | Path) -> str:
    with open(path, "rb") as f:
        return sha256_stream(f)


def atomic_write_json(path: str | Path, obj: Any) -> None:
    atomic_write_bytes(path, (json.dumps(obj, indent=2, sort_keys=True) + "\n").encode())


def _write_parquet_file(table: pa.Table, path: str | Path) -> None:
    light = [c for c in table.column_names if c not in HEAVY_COLUMNS]
    compression = {c: ("NONE" if c in HEAVY_COLUMNS else "ZSTD") for c in table.column_names}
    pq.write_table(table, path, row_group_size=ROW_GROUP_SIZE, compression=compression,
                   use_dictionary=light, write_statistics=light, store_schema=True)
    with open(path, "rb+") as f:
        os.fsync(f.fileno())


def write_parquet(table: pa.Table, path: str | Path) -> str:
    """Write a shard atomically; heavy columns uncompressed, no statistics, no dictionary. Returns sha256."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    _write_parquet_file(table, tmp)
    digest = sha256_file(tmp)
    os.replace(tmp, path)
    return digest


_TMP_NAME = re.compile(r"\.(.+)\.tmp-\d+(?:-[0-9a-f]+)?")


def is_uri(location: str | Path) -> bool:
    """True for `scheme://...` locations (handled by fsspec), False for plain local paths."""
    return isinstance(location, str) and "://" in location


def _url_to_fs(uri: str) -> tuple[Any, str]:
    import fsspec
    try:
        return fsspec.core.url_to_fs(uri)
    except (ValueError, ImportError) as err:   # unknown to fsspec (or its backend is not installed)
        try:
            from fsspec.implementations.arrow import ArrowFSWrapper
            from pyarrow import fs as pafs
            afs, path = pafs.FileSystem.from_uri(uri)
        except Exception:  # noqa: BLE001 - report the fsspec error, it names the missing package
            raise ValueError(f"cannot open output location {uri!r}: {err}") from err
        return ArrowFSWrapper(afs), path


class Store:
    """A dataset output location: a local folder, or any fsspec / pyarrow filesystem URI.

    Methods take '/'-separated paths relative to the root. A local folder keeps the fast path
    (write, fsync, os.replace). A URI writes to a local temp file, puts it under a temp name next
    to its destination and renames it there (on object stores the final object appears whole).
    The store is rebuilt from `uri` in each Ray worker (a string travels; a filesystem object need not).
    """

    def __init__(self, location: str | Path):
        if isinstance(location, Store):
            location = location.uri
        self.location = str(location)
        self.fs: Any = None
        self.local: Path | None = None
        if is_uri(self.location):
            self.fs, root = _url_to_fs(self.location)
            self.root = root.rstrip("/") or "/"
        else:
            self.local = Path(location).absolute()
            self.root = str(self.local)

    @property
    def uri(self) -> str:
        """The location to hand to another process: an absolute local path, or the URI as given."""
        return self.root if self.local is not None else self.location

    def __repr__(self) -> str:
        return f"Store({self.uri!r})"

    def path(self, rel: str = "") -> str:
        """The full path of `rel` (local path, or the filesystem's own path without the scheme)."""
        rel = rel.strip("/")
        if self.local is not None:
            return str(self.local / rel) if rel else str(self.local)
        return f"{self.root.rstrip('/')}/{rel}" if rel else self.root

    def display(self, rel: str = "") -> str:
        """`rel` as a person would type it: a local path, or a URI with its scheme."""
        if self.local is not None:
            return self.path(rel)
        return self.fs.unstrip_protocol(self.path(rel))

    def makedirs(self, rel: str = "") -> None:
        if self.local is not None:
            Path(self.path(rel)).mkdir(parents=True, exist_ok=True)
        else:
            self.fs.makedirs(self.path(rel), exist_ok=True)

    def exists(self, rel: str) -> bool:
        if self.local is not None:
            return os.path.exists(self.path(rel))
        return bool(self.fs.exists(self.path(rel)))

    def read_bytes(self, rel: str) -> bytes:
        if self.local is not None:
            return Path(self.path(rel)).read_bytes()
        return self.fs.cat_file(self.path(rel))

    def read_text(self, rel: str) -> str:
        return self.read_bytes(rel).decode()

    def read_table(self, rel: str, columns: list[str]) -> pa.Table:
        """The named columns of Parquet file `rel` (only their pages are read)."""
        if self.local is not None:
            return pq.read_table(self.path(rel), columns=columns)
        with self.fs.open(self.path(rel), "rb") as f:
            return pq.read_table(f, columns=columns)

    def sha256(self, rel: str) -> str:
        if self.local is not None:
            return sha256_file(self.path(rel))
        with self.fs.open(self.path(rel), "rb") as f:
            return sha256_stream(f)

    def remove(self, rel: str) -> None:
        """Delete `rel` if it exists."""
        if self.local is not None:
            Path(self.path(rel)).unlink(missing_ok=True)
        elif self.fs.exists(self.path(rel)):
            self.fs.rm_file(self.path(rel))

    def listdir(self, rel: str) -> list[str]:
        """Names (not paths) of the files directly under `rel`; [] when it does not exist."""
        if self.local is not None:
            d = Path(self.path(rel))
            return sorted(p.name for p in d.iterdir() if p.is_file()) if d.is_dir() else []
        try:
            entries = self.fs.ls(self.path(rel), detail=True)
        except (FileNotFoundError, OSError):
            return []
        return sorted(e["name"].rstrip("/").rsplit("/", 1)[-1] for e in entries if e.get("type") == "file")

    def _put(self, local_tmp: str, rel: str) -> None:
        dest = self.path(rel)
        parent, name = dest.rsplit("/", 1)
        self.fs.makedirs(parent, exist_ok=True)
        tmp = f"{parent}/.{name}{TMP_MARK}{os.getpid()}-{uuid.uuid4().hex[:8]}"
        self.fs.put_file(local_tmp, tmp)
        try:
            self.fs.mv(tmp, dest)
        except BaseException:
            with contextlib.suppress(Exception):
                self.fs.rm_file(tmp)
            raise

    def write_bytes(self, rel: str, data: bytes) -> None:
        """Atomic: the file is either absent, the previous version, or all of `data`."""
        if self.local is not None:
            atomic_write_bytes(self.path(rel), data)
            return
        with tempfile.NamedTemporaryFile(prefix="duplexsynth-") as f:
            f.write(data)
            f.flush()
            self._put(f.name, rel)

    @contextlib.contextmanager
    def open_atomic(self, rel: str) -> Iterator[Any]:
        """A binary file to write `rel` through, streamed; it appears whole on a clean exit, else not at all."""
        if self.local is not None:
            path = Path(self.path(rel))
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp = path.with_name(f".{path.name}{TMP_MARK}{os.getpid()}")
            try:
                with open(tmp, "wb") as f:
                    yield f
                    f.flush()
                    os.fsync(f.fileno())
                os.replace(tmp, path)
            finally:
                tmp.unlink(missing_ok=True)
            return
        with tempfile.NamedTemporaryFile(prefix="duplexsynth-") as f:
            yield f
            f.flush()
            self._put(f.name, rel)

    def write_json(self, rel: str, obj: Any) -> None:
        self.write_bytes(rel, (json.dumps(obj, indent=2, sort_keys=True) + "\n").encode())

    def write_parquet(self, table: pa.Table, rel: str) -> str:
        """Write a Parquet shard atomically (layout as `write_parquet`); returns its sha256."""
        if self.local is not None:
            return write_parquet(table, self.path(rel))
        with tempfile.TemporaryDirectory(prefix="duplexsynth-") as d:
            tmp = os.path.join(d, "shard.parquet")
            _write_parquet_file(table, tmp)
            digest = sha256_file(tmp)
            self._put(tmp, rel)
        return digest

    def remove_temp_files(self, rel: str, owned: "re.Pattern[str] | None" = None) -> list[str]:
        """Delete leftovers of interrupted writes (".<name>.tmp-<pid>[-<nonce>]") directly under `rel`.

        With `owned`, only temp files of names that pattern matches (the project's own file names) go.
        A symlinked folder is left alone (its files live outside the output root). Returns the names.
        """
        gone = []
        if self.local is not None:
            d = Path(self.path(rel))
            names = sorted(p.name for p in d.iterdir()) if d.is_dir() and not d.is_symlink() else []
        else:
            names = self.listdir(rel)
        for name in names:
            m = _TMP_NAME.fullmatch(name)
            if m and (owned is None or owned.fullmatch(m.group(1))):
                self.remove(f"{rel}/{name}" if rel else name)
                gone.append(name)
        return gone

    def escapes_root(self, rel: str) -> bool:
        """True when local `rel` is (or passes through) a symlink resolving outside the root."""
        if self.local is None:
            return False
        root = self.local.resolve()
        return not Path(self.path(rel)).resolve().is_relative_to(root)
