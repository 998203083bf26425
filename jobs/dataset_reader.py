"""Read the trajectory shards of an output folder (DESIGN §3), with errors that say what exists.

An output folder ``DIR`` written by ``duplexsynth generate`` holds ``DIR/manifest.json`` and
Parquet shards. Which shards belong to the dataset:

1. ``manifest.json`` ``shards[*].path`` (relative to ``DIR``), in manifest order, when the manifest
   exists and lists shards;
2. otherwise every ``DIR/shards/*.parquet`` whose name does not contain ``failed`` (failure shards
   hold :class:`schemas.trajectory.FailedRecord` rows, not trajectories) and does not start with
   ``.`` (a shard still being written), sorted by name.

Rows are numbered across shards in that order: the global ``index`` of a row is its position in
the concatenation of the shards.

Usage::

    reader = DatasetReader("out/run1")
    for row in reader.iter_rows(columns=["id", "scenario", "events"]):   # streamed, dicts
        ...
    ref = reader.find(scenario="backchannel")       # or find(id=...), find(index=...)
    row = reader.read_trajectory(ref)              # -> schemas.trajectory.TrajectoryRow

Errors are :class:`DatasetError` subclasses with messages meant for a person at a terminal:

- :class:`RowNotFoundError` (also a ``LookupError``): the id / index / scenario is absent; the
  message lists the ids (first few) or scenarios that do exist, or the valid index range.
- :class:`ShardError`: a shard is missing, truncated, not Parquet, or lacks a needed column; the
  message and the ``path`` attribute name the file.
- :class:`DatasetError` itself: the folder is missing, has no shards, or its manifest is not JSON.

This module only reads; it has no Ray imports and caches nothing but the light ``id``/``scenario``
index of the folder (built once per reader, on first lookup).
"""
from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from schemas.arrow import row_from_dict
from schemas.trajectory import TrajectoryRow

__all__ = [
    "DatasetError", "ShardError", "RowNotFoundError", "RowRef", "DatasetReader", "list_shards",
]

MANIFEST_NAME = "manifest.json"
_INDEX_COLUMNS = ("id", "scenario")
_LIST_LIMIT = 20   # how many ids an error message lists before "... and N more"


class DatasetError(Exception):
    """The output folder cannot be read as a trajectory dataset."""


class ShardError(DatasetError):
    """One shard file is missing or unreadable. ``path`` names it."""

    def __init__(self, path: Path, reason: str):
        self.path = Path(path)
        self.reason = reason
        super().__init__(f"shard {self.path}: {reason}")


class RowNotFoundError(DatasetError, LookupError):
    """No row matches the requested id, index or scenario."""


@dataclass(frozen=True)
class RowRef:
    """Where one row lives: its shard file, its row number in that shard, its global index."""

    index: int
    shard: Path
    shard_row: int
    id: str
    scenario: str


def _load_manifest(root: Path) -> dict[str, Any] | None:
    path = root / MANIFEST_NAME
    if not path.is_file():
        return None
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as err:
        raise DatasetError(f"{path}: not a readable JSON manifest ({err})") from err
    if not isinstance(manifest, dict):
        raise DatasetError(f"{path}: expected a JSON object, found {type(manifest).__name__}")
    return manifest


def list_shards(root: str | Path) -> list[Path]:
    """The trajectory shard files of output folder ``root``, in dataset order (see module doc).

    Raises :class:`DatasetError` when the folder does not exist or holds no shard, and
    :class:`ShardError` when the manifest lists a shard that is not there.
    """
    root = Path(root)
    if not root.is_dir():
        raise DatasetError(f"{root}: no such output folder")
    manifest = _load_manifest(root)
    entries = (manifest or {}).get("shards") or []
    if entries:
        shards: list[Path] = []
        for i, entry in enumerate(entries):
            rel = entry.get("path") if isinstance(entry, dict) else entry
            if not isinstance(rel, str) or not rel:
                raise DatasetError(f"{root / MANIFEST_NAME}: shards[{i}] has no 'path'")
            path = root / rel
            if not path.is_file():
                raise ShardError(path, f"listed in {MANIFEST_NAME} (shards[{i}]) but not found")
            shards.append(path)
        return shards
    shards = sorted(p for p in (root / "shards").glob("*.parquet")
                    if "failed" not in p.name and not p.name.startswith("."))
    if not shards:
        where = f"{MANIFEST_NAME} lists none and " if manifest is not None else ""
        raise DatasetError(f"{root}: no trajectory shards ({where}no shards/*.parquet)")
    return shards


def _open(path: Path) -> pq.ParquetFile:
    try:
        return pq.ParquetFile(path)
    except (pa.ArrowException, OSError, ValueError) as err:
        raise ShardError(path, f"corrupt or not a Parquet file ({err})") from err


def _check_columns(path: Path, pf: pq.ParquetFile, columns: Sequence[str] | None) -> None:
    if columns is None:
        return
    names = set(pf.schema_arrow.names)
    missing = [c for c in columns if c not in names]
    if missing:
        raise ShardError(path, f"missing column(s) {', '.join(missing)}")


def _short_list(items: Sequence[str], limit: int = _LIST_LIMIT) -> str:
    shown = ", ".join(items[:limit])
    more = len(items) - limit
    return shown + (f", ... and {more} more" if more > 0 else "")


class DatasetReader:
    """Reader of one output folder. Cheap to create; shards are opened lazily, one at a time."""

    def __init__(self, root: str | Path):
        self.root = Path(root)
        self.shards: list[Path] = list_shards(self.root)
        self._refs: list[RowRef] | None = None

    # -- whole-dataset access ---------------------------------------------------------------------

    @property
    def manifest(self) -> dict[str, Any] | None:
        """The parsed ``manifest.json``, or None when the folder has none."""
        return _load_manifest(self.root)

    def iter_rows(self, columns: Sequence[str] | None = None,
                  batch_size: int = 16) -> Iterator[dict[str, Any]]:
        """Yield every row as a plain dict (pyarrow ``to_pylist`` form), shard after shard.

        ``columns`` limits what is decoded (skip the audio columns for fast scans).
        """
        for path in self.shards:
            pf = _open(path)
            _check_columns(path, pf, columns)
            try:
                for batch in pf.iter_batches(batch_size=batch_size,
                                             columns=list(columns) if columns else None):
                    yield from batch.to_pylist()
            except (pa.ArrowException, OSError, ValueError) as err:
                raise ShardError(path, f"corrupt data ({err})") from err

    def iter_trajectories(self) -> Iterator[TrajectoryRow]:
        """Yield every row validated as :class:`TrajectoryRow`."""
        for row in self.iter_rows():
            yield row_from_dict(row)

    def refs(self) -> list[RowRef]:
        """A light index of every row (reads only the ``id`` and ``scenario`` columns)."""
        if self._refs is None:
            refs: list[RowRef] = []
            for path in self.shards:
                pf = _open(path)
                _check_columns(path, pf, _INDEX_COLUMNS)
                try:
                    table = pf.read(columns=list(_INDEX_COLUMNS))
                except (pa.ArrowException, OSError, ValueError) as err:
                    raise ShardError(path, f"corrupt data ({err})") from err
                for k, (rid, scen) in enumerate(zip(table.column("id").to_pylist(),
                                                    table.column("scenario").to_pylist())):
                    refs.append(RowRef(len(refs), path, k, rid, scen))
            self._refs = refs
        return self._refs

    def __len__(self) -> int:
        return len(self.refs())

    def scenarios(self) -> dict[str, list[RowRef]]:
        """Rows grouped by scenario family, families in order of first appearance."""
        out: dict[str, list[RowRef]] = {}
        for ref in self.refs():
            out.setdefault(ref.scenario, []).append(ref)
        return out

    # -- lookup -----------------------------------------------------------------------------------

    def find(self, *, id: str | None = None, index: int | None = None,
             scenario: str | None = None) -> RowRef:
        """The row with this ``id``, at this global ``index``, or the first of this ``scenario``.

        Exactly one criterion may be given; none means index 0. Raises :class:`RowNotFoundError`
        with the ids / index range / scenarios that do exist.
        """
        given = [name for name, v in (("id", id), ("index", index), ("scenario", scenario))
                 if v is not None]
        if len(given) > 1:
            raise ValueError(f"give at most one of id, index, scenario (got {', '.join(given)})")
        refs = self.refs()
        if not refs:
            raise RowNotFoundError(f"{self.root}: the dataset has no rows")
        if id is not None:
            for ref in refs:
                if ref.id == id:
                    return ref
            ids = [r.id for r in refs]
            raise RowNotFoundError(
                f"no trajectory with id {id!r} in {self.root}; {len(ids)} ids exist: {_short_list(ids)}")
        if scenario is not None:
            groups = self.scenarios()
            if scenario in groups:
                return groups[scenario][0]
            names = [f"{name} ({len(rs)})" for name, rs in sorted(groups.items())]
            raise RowNotFoundError(
                f"no trajectory of scenario {scenario!r} in {self.root}; "
                f"scenarios present: {', '.join(names)}")
        i = 0 if index is None else index
        if not 0 <= i < len(refs):
            raise RowNotFoundError(
                f"index {i} out of range for {self.root}: it holds {len(refs)} rows (0..{len(refs) - 1})")
        return refs[i]

    def read(self, ref: RowRef, columns: Sequence[str] | None = None) -> dict[str, Any]:
        """Decode the one row ``ref`` points at, as a plain dict."""
        pf = _open(ref.shard)
        _check_columns(ref.shard, pf, columns)
        try:
            start = 0
            for g in range(pf.metadata.num_row_groups):
                n = pf.metadata.row_group(g).num_rows
                if ref.shard_row < start + n:
                    table = pf.read_row_group(g, columns=list(columns) if columns else None)
                    return table.slice(ref.shard_row - start, 1).to_pylist()[0]
                start += n
        except (pa.ArrowException, OSError, ValueError) as err:
            raise ShardError(ref.shard, f"corrupt data ({err})") from err
        raise ShardError(ref.shard, f"has no row {ref.shard_row} (changed since it was indexed?)")

    def read_trajectory(self, ref: RowRef) -> TrajectoryRow:
        """Decode and validate the row ``ref`` points at."""
        return row_from_dict(self.read(ref))

    def get(self, *, id: str | None = None, index: int | None = None,
            scenario: str | None = None) -> dict[str, Any]:
        """``read(find(...))``: one full row as a dict."""
        return self.read(self.find(id=id, index=index, scenario=scenario))
