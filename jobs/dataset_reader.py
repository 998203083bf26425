"""Open a dataset folder (DESIGN §3), check it is whole, and read its trajectory shards.

An output folder ``DIR`` written by ``duplexsynth generate`` holds ``DIR/manifest.json`` (written
last: its presence means the run finished), ``shards/*.parquet``, ``failed/*.parquet`` (failure
records) and ``summaries/*.json`` (one sidecar per shard, with its sha256).

:func:`check_dataset` is the one place that decides whether a folder is complete and intact:

- the manifest is present, UTF-8 JSON, and every field has its type (a problem names
  ``manifest.json`` and the field, e.g. ``shards[3].sha256 is not a string``);
- every path it lists (``shards[*].path`` and ``shards[*].failed_path``) is relative and resolves,
  symlinks followed, inside ``DIR``;
- every shard and failure table is there, matches its sha256 and holds the listed number of rows;
- the counts add up: ``rows``/``failed`` are the sums over the shards, and rows + failed equal the
  config's ``num``.

It returns a :class:`DatasetCheck` (``complete``, ``problems``, the shards that pass, what was
skipped). Readers take a policy: by default (strict) an incomplete or corrupt folder is refused
with :class:`IncompleteDatasetError`, one line naming the first few bad files; with
``allow_incomplete=True`` only the shards that pass are read and the caller reports
:meth:`DatasetCheck.skipped_line`. Without a manifest (only with ``allow_incomplete``) the shards
are ``DIR/shards/*.parquet`` (no ``failed`` in the name, no leading ``.``), each kept when its
sidecar in ``summaries/`` names it and matches its sha256, or, when the folder has no sidecars at
all, when it opens as Parquet.

Rows are numbered across shards in dataset order (manifest order, else by name): the global
``index`` of a row is its position in the concatenation of the shards.

Usage::

    reader = DatasetReader("out/run1")                       # strict: refuses a broken folder
    for row in reader.iter_rows(columns=["id", "scenario", "events"]):   # streamed, dicts
        ...
    ref = reader.find(scenario="backchannel")       # or find(id=...), find(index=...)
    row = reader.read_trajectory(ref)              # -> schemas.trajectory.TrajectoryRow

Errors are :class:`DatasetError` subclasses (a ``UsageError``) with messages meant for a person:

- :class:`IncompleteDatasetError`: the folder is incomplete or corrupt (strict policy).
- :class:`RowNotFoundError` (also a ``LookupError``): the id / index / scenario is absent; the
  message lists the ids (first few) or scenarios that do exist, or the valid index range.
- :class:`ShardError`: a shard is truncated, not Parquet, or lacks a needed column; the message
  and the ``path`` attribute name the file. It pickles, so it crosses process pools whole.
- :class:`DatasetError` itself: the folder is missing or holds no shard at all.

This module only reads; it has no Ray imports and caches nothing but the light ``id``/``scenario``
index of the folder (built once per reader, on first lookup).
"""
from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path, PureWindowsPath
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from pipeline.io import sha256_file
from schemas.arrow import FAILED_SCHEMA, TRAJECTORY_SCHEMA, row_from_dict
from schemas.errors import UsageError, validation_summary
from schemas.trajectory import TrajectoryRow

__all__ = [
    "DatasetError", "ShardError", "RowNotFoundError", "IncompleteDatasetError", "RowRef",
    "DatasetCheck", "DatasetReader", "check_dataset", "open_dataset", "open_shard", "list_shards",
    "ALLOW_INCOMPLETE_HELP",
]

MANIFEST_NAME = "manifest.json"
CONFIG_NAME = "config.yaml"
SHARDS_DIR, SUMMARIES_DIR = "shards", "summaries"
_INDEX_COLUMNS = ("id", "scenario")
_LIST_LIMIT = 20   # how many ids an error message lists before "... and N more"
_SHOW_PROBLEMS = 3  # problems a refusal shows before "... and N more"
ALLOW_INCOMPLETE_HELP = ("read an incomplete or corrupt dataset anyway: only the shards that pass "
                         "their checks (sha256, sidecar); prints what was skipped on stderr")


class DatasetError(UsageError):
    """The output folder cannot be read as a trajectory dataset."""


class ShardError(DatasetError):
    """One shard file is missing or unreadable. ``path`` names it."""

    def __init__(self, path: Path | str, reason: str):
        self.path = Path(path)
        self.reason = reason
        super().__init__(f"shard {self.path}: {reason}")

    def __reduce__(self) -> tuple[Any, ...]:
        # a process pool pickles the error of a worker; rebuild it from (path, reason)
        return (type(self), (str(self.path), self.reason))


class IncompleteDatasetError(DatasetError):
    """The folder is incomplete or corrupt and the policy is strict. ``check`` holds the report."""

    def __init__(self, check: "DatasetCheck"):
        self.check = check
        super().__init__(check.refusal())

    def __reduce__(self) -> tuple[Any, ...]:
        # the report stays behind; across a process boundary the one-line message is what counts
        return (DatasetError, (str(self),))


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


# ----------------------------------------------------------------------------- the integrity check

@dataclass
class DatasetCheck:
    """What :func:`check_dataset` found. ``shards`` are the ones that pass, in dataset order."""

    root: Path
    manifest: dict[str, Any] | None = None
    manifest_sha256: str | None = None
    shards: list[Path] = field(default_factory=list)
    rows: int = 0                      # rows in the shards that pass
    problems: list[str] = field(default_factory=list)
    bad_shards: list[str] = field(default_factory=list)   # trajectory shards left out (paths)
    rows_skipped: int = 0              # trajectories known to be left out (listed, sidecar, plan)
    rows_skipped_exact: bool = True    # False when a skipped shard's row count is unknown
    failed_records: int = 0            # failure records listed by the manifest
    failed_tables: list[Path] = field(default_factory=list)   # failure tables that pass
    digests: dict[Path, str] = field(default_factory=dict)     # sha256 verified here, by shard that passes

    @property
    def complete(self) -> bool:
        """True when nothing is missing, corrupt or inconsistent."""
        return not self.problems

    @property
    def shards_skipped(self) -> int:
        return len(self.bad_shards)

    def problems_line(self, limit: int = _SHOW_PROBLEMS) -> str:
        shown = "; ".join(self.problems[:limit])
        more = len(self.problems) - limit
        return shown + (f"; ... and {more} more problem(s)" if more > 0 else "")

    def rows_skipped_text(self) -> str:
        return f"{'at least ' if not self.rows_skipped_exact else ''}{self.rows_skipped} rows"

    def refusal(self) -> str:
        """The one-line refusal of the strict policy: what is wrong and how to go on anyway."""
        if self.shards:
            hint = (f"pass --allow-incomplete to read only the {len(self.shards)} shard(s) "
                    f"({self.rows} rows) that pass, or regenerate")
        else:
            hint = "no shard passes its checks; regenerate the dataset"
        bad = (f"{self.shards_skipped} shard(s) unusable ({self.rows_skipped_text()}); "
               if self.bad_shards else "")
        return f"{self.root}: incomplete or corrupt dataset: {bad}{self.problems_line()}; {hint}"

    def skipped_line(self) -> str:
        """The stderr note of the allow-incomplete policy: what is read and what is left out."""
        return (f"warning: {self.root} is incomplete or corrupt; reading {len(self.shards)} shard(s) "
                f"({self.rows} rows), skipped {self.shards_skipped} shard(s) ({self.rows_skipped_text()}): "
                f"{self.problems_line()}")


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def contained_path(root: Path, rel: Any) -> tuple[Path | None, str]:
    """(root / rel, "") when ``rel`` is a relative path that stays inside ``root``, else (None, why).

    Refuses absolute paths (POSIX or Windows), ``..`` parts, and paths whose symlinks resolve
    outside ``root``: a manifest or sidecar must never make a reader hash or read another file.
    """
    if not isinstance(rel, str) or not rel:
        return None, "is missing or not a non-empty string"
    if rel.startswith(("/", "\\")) or PureWindowsPath(rel).drive:
        return None, f"{rel!r} is an absolute path; paths must be relative to the dataset folder"
    if ".." in rel.replace("\\", "/").split("/"):
        return None, f"{rel!r} climbs out of the dataset folder with '..'"
    path = root / rel
    real_root = root.resolve()
    real = path.resolve()
    if real != real_root and real_root not in real.parents:
        return None, f"{rel!r} resolves outside the dataset folder (to {real})"
    return path, ""


def _parquet_rows(path: Path, schema: pa.Schema = TRAJECTORY_SCHEMA) -> tuple[int | None, str]:
    """(rows in the footer, "") or (None, why the file is not a Parquet file of ``schema``).

    Reads only the footer: every column of ``schema`` must be there with its type (a Parquet file
    of another kind, e.g. training rows, is not a trajectory shard whatever its sha256 says).
    """
    try:
        pf = pq.ParquetFile(path)
        have = pf.schema_arrow
    except (pa.ArrowException, OSError, ValueError) as err:
        first = (str(err).splitlines() or [""])[0]
        return None, f"not a readable Parquet file ({type(err).__name__}: {first})"
    kind = "trajectory shard" if schema is TRAJECTORY_SCHEMA else "failure-record table"
    missing = [f.name for f in schema if have.get_field_index(f.name) < 0]
    if missing:
        return None, f"not a {kind}: missing column(s) {', '.join(missing[:5])}" + (
            f" and {len(missing) - 5} more" if len(missing) > 5 else "")
    wrong = [f.name for f in schema if not have.field(f.name).type.equals(f.type)]
    if wrong:
        return None, f"not a {kind}: column(s) {', '.join(wrong[:5])} of another type"
    return pf.metadata.num_rows, ""


def _load_manifest(root: Path) -> tuple[dict[str, Any] | None, str | None, str]:
    """(manifest, sha256 of its bytes, "") or (None, sha256 or None, the one-line problem)."""
    path = root / MANIFEST_NAME
    if not path.is_file():
        return None, None, f"{path}: missing (the run did not finish, or this is not a dataset folder)"
    raw = path.read_bytes()
    digest = hashlib.sha256(raw).hexdigest()
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as err:
        return None, digest, f"{path}: not UTF-8 text (byte 0x{raw[err.start]:02x} at offset {err.start})"
    try:
        manifest = json.loads(text)
    except json.JSONDecodeError as err:
        return None, digest, f"{path}: not JSON ({err.msg} at line {err.lineno} column {err.colno})"
    if not isinstance(manifest, dict):
        return None, digest, f"{path}: expected a JSON object, found a JSON {type(manifest).__name__}"
    if "shards" not in manifest:
        return None, digest, f"{path}: shards is missing"
    if not isinstance(manifest["shards"], list):
        return None, digest, f"{path}: shards is not a list (found {type(manifest['shards']).__name__})"
    return manifest, digest, ""


def _entry_problems(entry: dict[str, Any], where: str) -> list[str]:
    """Type problems of one ``shards[i]`` entry (``path`` is checked by :func:`contained_path`)."""
    out = []
    if "sha256" not in entry:
        out.append(f"{where}.sha256 is missing")
    elif not isinstance(entry["sha256"], str):
        out.append(f"{where}.sha256 is not a string")
    if "rows" not in entry:
        out.append(f"{where}.rows is missing")
    elif not _is_int(entry["rows"]) or entry["rows"] < 0:
        out.append(f"{where}.rows is not a non-negative integer")
    failed = entry.get("failed", 0)
    if not _is_int(failed) or failed < 0:
        out.append(f"{where}.failed is not a non-negative integer")
    fsha = entry.get("failed_sha256")
    if fsha is not None and not isinstance(fsha, str):
        out.append(f"{where}.failed_sha256 is not a string")
    if _is_int(failed) and failed > 0 and (entry.get("failed_path") is None or fsha is None):
        out.append(f"{where}.failed is {failed} but failed_path/failed_sha256 do not name its table")
    if entry.get("failed_path") is not None and fsha is None:
        out.append(f"{where}.failed_path is set but failed_sha256 is null")
    return out


def _check_manifest(root: Path, manifest: dict[str, Any], chk: DatasetCheck) -> None:
    """Fill ``chk`` from a well-formed-at-the-top manifest: entries, files, hashes, totals."""
    mpath = root / MANIFEST_NAME
    seen: dict[Path, str] = {}
    failed_problems: list[str] = []    # reported after the shards' own: a refusal names shards first
    listed_rows = listed_failed = listed_twins = 0
    totals_known = True
    for i, entry in enumerate(manifest["shards"]):
        where = f"shards[{i}]"
        if not isinstance(entry, dict):
            chk.problems.append(f"{mpath}: {where} is not an object")
            chk.bad_shards.append(where)
            chk.rows_skipped_exact = totals_known = False
            continue
        problems = [f"{mpath}: {p}" for p in _entry_problems(entry, where)]
        path, why = contained_path(root, entry.get("path"))
        if path is None:
            problems.append(f"{mpath}: {where}.path {why}")
        rows, failed = entry.get("rows"), entry.get("failed", 0)
        rows = rows if _is_int(rows) and rows >= 0 else None
        failed = failed if _is_int(failed) and failed >= 0 else None
        if rows is None or failed is None:
            totals_known = False
        listed_rows += rows or 0
        listed_failed += failed or 0
        twins = entry.get("twins", 0)   # contrastive twins: rows beyond config.num (schemas/twins.py)
        listed_twins += twins if _is_int(twins) and twins >= 0 else 0
        if path is not None and path.resolve() in seen:
            problems.append(f"{mpath}: {where}.path names the same file as {seen[path.resolve()]}")
        elif path is not None:
            seen[path.resolve()] = where
        if not problems:
            problems = _check_file(path, entry["sha256"], rows, f"{MANIFEST_NAME} {where}", "rows")
        if problems:
            chk.problems.extend(problems)
            chk.bad_shards.append(str(path) if path is not None else where)
            chk.rows_skipped += rows or 0
            chk.rows_skipped_exact &= rows is not None
        else:
            chk.shards.append(path)
            chk.digests[path] = entry["sha256"]
            chk.rows += rows
        _check_failed_table(root, entry, where, chk, failed_problems)
    chk.problems.extend(failed_problems)
    chk.failed_records = listed_failed
    if totals_known:
        for key, total in (("rows", listed_rows), ("failed", listed_failed)):
            if key in manifest and manifest[key] != total:
                chk.problems.append(f"{mpath}: {key} is {manifest[key]!r} but shards[*].{key} add up to {total}")
    config = manifest.get("config")
    if config is not None and not isinstance(config, dict):
        chk.problems.append(f"{mpath}: config is not an object")
    elif isinstance(config, dict) and "num" in config:
        num = config["num"]
        if not _is_int(num):
            chk.problems.append(f"{mpath}: config.num is not an integer")
        elif totals_known and listed_rows + listed_failed - listed_twins != num:
            held = listed_rows + listed_failed - listed_twins
            gap = (f"short by {num - held}" if held < num else f"{held - num} more than planned")
            chk.problems.append(f"{mpath}: shards hold {listed_rows} rows + {listed_failed} failed = {held} "
                                f"trajectories but config.num is {num} ({gap})")
            chk.rows_skipped += max(0, num - held)


def _check_file(path: Path, sha: str, rows: int | None, listed: str, what: str,
                schema: pa.Schema = TRAJECTORY_SCHEMA) -> list[str]:
    """Problems of one listed Parquet file: missing, sha256 differs, not Parquet of `schema`, rows differ."""
    if not path.is_file():
        return [f"{path}: listed in {listed} but missing"]
    if sha256_file(path) != sha:
        return [f"{path}: sha256 differs from {listed} (changed or truncated)"]
    n, why = _parquet_rows(path, schema)
    if n is None:
        return [f"{path}: {why}"]
    if rows is not None and n != rows:
        return [f"{path}: holds {n} {what}, {listed} says {rows}"]
    return []


def _check_failed_table(root: Path, entry: dict[str, Any], where: str, chk: DatasetCheck,
                        out: list[str]) -> None:
    """The failure table of one entry: inside the root, present, sha256, record count (problems to `out`)."""
    rel, sha = entry.get("failed_path"), entry.get("failed_sha256")
    if rel is None:
        return
    mpath = root / MANIFEST_NAME
    path, why = contained_path(root, rel)
    if path is None:
        out.append(f"{mpath}: {where}.failed_path {why}")
        return
    if not isinstance(sha, str):
        return   # reported by _entry_problems
    failed = entry.get("failed") if _is_int(entry.get("failed")) else None
    problems = _check_file(path, sha, failed, f"{MANIFEST_NAME} {where}.failed_path", "failure records",
                           FAILED_SCHEMA)
    out.extend(problems)
    if not problems:
        chk.failed_tables.append(path)


def _planned_shards(root: Path) -> tuple[int, int] | None:
    """(num, shard_size) from ``config.yaml`` (written when a run starts), or None."""
    import yaml

    try:
        cfg = yaml.safe_load((root / CONFIG_NAME).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError):
        return None
    if not isinstance(cfg, dict):
        return None
    num, size = cfg.get("num"), cfg.get("shard_size")
    if _is_int(num) and _is_int(size) and num > 0 and size > 0:
        return num, size
    return None


def _check_without_manifest(root: Path, chk: DatasetCheck) -> None:
    """No usable manifest: keep the shards whose sidecar matches (or that open, without sidecars)."""
    files = sorted(p for p in (root / SHARDS_DIR).glob("*.parquet")
                   if "failed" not in p.name and not p.name.startswith("."))
    if not files:
        raise DatasetError(f"{root}: no trajectory shards (no usable {MANIFEST_NAME} and no "
                           f"{SHARDS_DIR}/*.parquet)")
    summaries = root / SUMMARIES_DIR
    use_sidecars = summaries.is_dir() and any(not p.name.startswith(".") for p in summaries.glob("*.json"))
    plan = _planned_shards(root)
    planned: dict[str, int] = {}       # shard stem -> trajectories it should hold
    if plan is not None:
        num, size = plan
        planned = {f"shard-{i:05d}": min(size, num - i * size) for i in range(math.ceil(num / size))}
    for path in files:
        rel = f"{SHARDS_DIR}/{path.name}"
        n, why = _parquet_rows(path)
        problem = f"{path}: {why}" if n is None else ""
        if not problem and use_sidecars:
            problem, sha = _sidecar_problem(root, rel, path)
            if not problem:
                chk.digests[path] = sha
        if problem:
            chk.problems.append(problem)
            chk.bad_shards.append(str(path))
            known = n if n is not None else planned.get(path.stem)
            chk.rows_skipped += known or 0
            chk.rows_skipped_exact &= known is not None
        else:
            chk.shards.append(path)
            chk.rows += n
    present = {p.stem for p in files}
    never = [stem for stem in planned if stem not in present]
    if never:
        chk.problems.append(f"{root / SHARDS_DIR}: {len(never)} shard(s) of the {CONFIG_NAME} plan were "
                            f"never written (first: {never[0]}.parquet)")
        chk.bad_shards.extend(str(root / SHARDS_DIR / f"{stem}.parquet") for stem in never)
        chk.rows_skipped += sum(planned[stem] for stem in never)


def _sidecar_problem(root: Path, rel: str, path: Path) -> tuple[str, str]:
    """("", sha256) when ``summaries/<stem>.json`` names ``rel`` and matches its sha256, else (problem, "")."""
    side = root / SUMMARIES_DIR / f"{path.stem}.json"
    try:
        summary = json.loads(side.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return f"{path}: no sidecar {side} (its write was interrupted)", ""
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as err:
        return f"{side}: unreadable sidecar ({type(err).__name__})", ""
    if not isinstance(summary, dict) or not isinstance(summary.get("sha256"), str):
        return f"{side}: sidecar lacks sha256", ""
    if summary.get("path") != rel:
        return f"{side}: sidecar names path {summary.get('path')!r}, not {rel!r}", ""
    if sha256_file(path) != summary["sha256"]:
        return f"{path}: sha256 differs from its sidecar {side} (changed or truncated)", ""
    return "", summary["sha256"]


def check_dataset(root: str | Path) -> DatasetCheck:
    """Check the folder is complete and intact (module doc); report, never raise on content.

    Raises :class:`DatasetError` only when there is nothing to check: the folder does not exist,
    or it has no usable manifest and no shard file either.
    """
    root = Path(root)
    if not root.is_dir():
        raise DatasetError(f"{root}: no such output folder")
    manifest, digest, problem = _load_manifest(root)
    chk = DatasetCheck(root=root, manifest=manifest, manifest_sha256=digest)
    if manifest is None:
        chk.problems.append(problem)
        _check_without_manifest(root, chk)
    else:
        _check_manifest(root, manifest, chk)
    return chk


def open_dataset(root: str | Path, allow_incomplete: bool = False) -> DatasetCheck:
    """:func:`check_dataset` under a policy: strict refuses an incomplete folder; allowed keeps what passes.

    Raises :class:`IncompleteDatasetError` (strict, incomplete) or :class:`DatasetError` (no shard
    to read at all, or none that passes).
    """
    chk = check_dataset(root)
    if not chk.complete and not allow_incomplete:
        raise IncompleteDatasetError(chk)
    if not chk.shards:
        if chk.problems:
            raise DatasetError(f"{chk.root}: no shard passes its checks: {chk.problems_line()}")
        raise DatasetError(f"{chk.root}: no trajectory shards ({MANIFEST_NAME} lists none)")
    return chk


def list_shards(root: str | Path, allow_incomplete: bool = False) -> list[Path]:
    """The trajectory shard files of output folder ``root`` that pass, in dataset order.

    Strict by default: raises :class:`IncompleteDatasetError` when anything is missing or corrupt.
    """
    return open_dataset(root, allow_incomplete).shards


def _open(path: Path) -> pq.ParquetFile:
    try:
        return pq.ParquetFile(path)
    except (pa.ArrowException, OSError, ValueError) as err:
        first = (str(err).splitlines() or [""])[0]
        raise ShardError(path, f"corrupt or not a Parquet file ({type(err).__name__}: {first})") from err


def _check_columns(path: Path, pf: pq.ParquetFile, columns: Sequence[str] | None) -> None:
    if columns is None:
        return
    names = set(pf.schema_arrow.names)
    missing = [c for c in columns if c not in names]
    if missing:
        raise ShardError(path, f"missing column(s) {', '.join(missing)}")


def open_shard(path: str | Path, columns: Sequence[str] | None = None) -> pq.ParquetFile:
    """The shard opened as Parquet, with ``columns`` checked; :class:`ShardError` names it otherwise."""
    path = Path(path)
    pf = _open(path)
    _check_columns(path, pf, columns)
    return pf


def _short_list(items: Sequence[str], limit: int = _LIST_LIMIT) -> str:
    shown = ", ".join(items[:limit])
    more = len(items) - limit
    return shown + (f", ... and {more} more" if more > 0 else "")


class DatasetReader:
    """Reader of one output folder. Cheap to create; shards are opened lazily, one at a time."""

    def __init__(self, root: str | Path, allow_incomplete: bool = False):
        """Check the folder first (:func:`open_dataset`): strict unless ``allow_incomplete``."""
        self.root = Path(root)
        self.check: DatasetCheck = open_dataset(self.root, allow_incomplete)
        self.shards: list[Path] = self.check.shards
        self._refs: list[RowRef] | None = None

    # -- whole-dataset access ---------------------------------------------------------------------

    @property
    def manifest(self) -> dict[str, Any] | None:
        """The parsed ``manifest.json``, or None when the folder has no usable one."""
        return self.check.manifest

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
        for k, row in enumerate(self.iter_rows()):
            try:
                yield row_from_dict(row)
            except ValueError as err:   # pydantic ValidationError
                raise DatasetError(f"{self.root}: row {k} ({str(row.get('id'))[:40]}) is not a valid trajectory "
                                   f"row ({validation_summary(err)})") from None

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
        """Decode and validate the row ``ref`` points at (an invalid row is a ShardError naming its field)."""
        d = self.read(ref)
        try:
            return row_from_dict(d)
        except ValueError as err:   # pydantic ValidationError
            raise ShardError(ref.shard, f"row {ref.shard_row} is not a valid trajectory row "
                                        f"({validation_summary(err)})") from None

    def get(self, *, id: str | None = None, index: int | None = None,
            scenario: str | None = None) -> dict[str, Any]:
        """``read(find(...))``: one full row as a dict."""
        return self.read(self.find(id=id, index=index, scenario=scenario))
