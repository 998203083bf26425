"""What the consumer-format exports (`--format moshi`, `--format lhotse`) share.

One export reads the source folder once, row after row (jobs/dataset_reader.py checks it first:
strict unless `--allow-incomplete`), hands each row to the format's writer, and keeps going when
a row cannot be converted: that row becomes a record in ``OUT/failed.json`` (id, index, reason).
``OUT`` must be absent or empty, or an earlier export of the same format with ``--overwrite``
(jobs/export.check_output_folder, the rule the trainer export follows too); the export holds
``OUT/.duplexsynth.lock`` throughout, as every writer of a folder does (jobs/lock.py). Everything
is written into a staging folder beside ``OUT``; only when it is complete is ``OUT`` emptied and the
staged entries renamed into it, ``manifest.json`` last (its presence means the export finished). A
failed export removes its staging folder and leaves ``OUT`` as it was.

    OUT/manifest.json    format, source (folder, manifest sha256, shards), rows, failed, hours, the format's layout
    OUT/failed.json      [{id, index, error}] for every row that could not be converted ([] when none)
    OUT/...              the format's own files

The failure list is JSON, not JSON lines, on purpose: moshi-finetune takes every ``*jsonl`` file
under a data folder as an index.
"""
from __future__ import annotations

import io
import json
import os
import re
import shutil
import sys
import time
from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from jobs.dataset_reader import DatasetError, DatasetReader
from jobs.export import FAILED_NAME, ExportError, check_output_folder, clear_folder
from jobs.lock import export_output, source_lock
from pipeline.io import sha256_file
from schemas.trajectory import row_field_problem
from schemas.vocab import Role

# The two-channel exports keep moshi-finetune's order: channel 0 is what the assistant played,
# channel 1 what its microphone heard (user, other-directed and background speech, noise).
ASSISTANT_CHANNEL, USER_CHANNEL = 0, 1
AUDIO_COLUMNS = {ASSISTANT_CHANNEL: "assistant_audio", USER_CHANNEL: "user_audio"}
MANIFEST_NAME = "manifest.json"
# Omni rows' frames (one JPEG per unit) where a format has a place for them: a folder per session
FRAMES_DIR = "frames"
# what a writer's layout says when its consumer has no place for frames (export_cmd warns in one line)
FRAMES_DROPPED = "frames_dropped_rows"
_PROGRESS_EVERY = 8   # rows between progress-line updates


class RowFailed(Exception):
    """This row cannot be converted; the message is the reason kept in the failure record."""


@dataclass(frozen=True)
class LateFailure:
    """A row a writer accepted but held for a partner row that never came (`--format fdb`'s clean
    twins): reported by the writer's optional `unmatched()` at the end, then counted as failed."""

    id: str
    index: int
    error: str
    duration_s: float


def frame_names(n: int) -> list[str]:
    """The file names of n frames in unit order: 000000.jpg, ... (frame k is input of unit k)."""
    return [f"{k:06d}.jpg" for k in range(n)]


def write_frames(folder: Path, frames: list[bytes] | None) -> None:
    """An Omni row's frames as `folder`/000000.jpg, ..., the JPEG bytes as stored (no folder when none)."""
    if not frames:
        return
    folder.mkdir(parents=True)
    for name, blob in zip(frame_names(len(frames)), frames):
        (folder / name).write_bytes(blob)


def channel_of(role: str) -> int:
    """The channel a speaker is heard on: the assistant's own, or the microphone's."""
    return ASSISTANT_CHANNEL if role == Role.ASSISTANT else USER_CHANNEL


class FormatWriter(Protocol):
    """One format's writer, created on the staging folder."""

    def add(self, row: dict[str, Any]) -> float | None:
        """Convert and write one trajectory row; raise RowFailed (nothing written) when it cannot.
        Returns the seconds of audio written when they differ from the row's (None: the row's duration_s)."""

    def close(self) -> dict[str, Any]:
        """Finish the format's files; return what the manifest says about its layout."""


@dataclass
class ExportSummary:
    out: Path
    format: str
    rows: int = 0
    failed: list[dict[str, Any]] = field(default_factory=list)
    audio_s: float = 0.0
    elapsed_s: float = 0.0
    skipped_line: str = ""    # what --allow-incomplete left out of the source, "" when it is whole
    frames_dropped: int = 0   # Omni rows whose frames the format has no place for (the writer's layout says)

    def as_json(self) -> dict[str, Any]:
        return {"out": str(self.out), "format": self.format, "rows": self.rows, "failed": len(self.failed),
                "hours": round(self.audio_s / 3600, 4), "elapsed_s": round(self.elapsed_s, 2)}


def session_audio(row: dict[str, Any]) -> tuple[dict[int, np.ndarray], int]:
    """Both audio columns decoded (float32 mono per channel) and checked against the row's units."""
    import soundfile as sf

    sr = int(row["sample_rate"])
    expect = int(round(len(row["units"]) * float(row["unit_s"]) * sr))
    out: dict[int, np.ndarray] = {}
    for ch, col in AUDIO_COLUMNS.items():
        blob = (row.get(col) or {}).get("bytes")
        if not blob:
            raise RowFailed(f"{col} has no bytes")
        try:
            x, got_sr = sf.read(io.BytesIO(blob), dtype="float32", always_2d=True)
        except (sf.LibsndfileError, RuntimeError, ValueError) as err:
            raise RowFailed(f"{col} does not decode ({err})") from None
        if got_sr != sr or x.shape[1] != 1 or x.shape[0] != expect:
            raise RowFailed(f"{col} holds {x.shape[0]} samples x {x.shape[1]} channel(s) at {got_sr} Hz; the row "
                            f"needs {expect} x 1 at {sr} Hz ({len(row['units'])} units x {row['unit_s']} s)")
        out[ch] = x[:, 0]
    return out, sr


def words_by_event(row: dict[str, Any], duration_s: float) -> dict[str, list[dict[str, Any]]]:
    """The row's voiced words grouped by event id, in time order, each checked to lie in the session."""
    out: dict[str, list[dict[str, Any]]] = {}
    for w in sorted(row["words"], key=lambda w: (w["start_s"], w["end_s"])):
        if not 0.0 <= w["start_s"] <= w["end_s"] <= duration_s + 1e-6:
            raise RowFailed(f"word {w['word']!r} of {w['event_id']} spans {w['start_s']}..{w['end_s']} s, "
                            f"outside the {duration_s} s session")
        out.setdefault(w["event_id"], []).append(w)
    return out


def safe_name(row_id: str) -> str:
    """The row id as a file name; an id that could climb out of the folder is refused."""
    if not row_id or row_id.startswith(".") or any(c in row_id for c in "/\\\0") or not row_id.isprintable():
        raise RowFailed(f"id {row_id!r} cannot name a file")
    return row_id


def new_name(row_id: str, taken: Collection[str]) -> str:
    """`safe_name`, refused when an earlier row of this export already took it (its files would be overwritten)."""
    name = safe_name(row_id)
    if name in taken:
        raise RowFailed(f"id {name!r} appears twice in the source; its first row is exported")
    return name


def export_format(src: str | Path, out: str | Path, *, fmt: str, make_writer: Callable[[Path], FormatWriter],
                  overwrite: bool = False, allow_incomplete: bool = False,
                  progress: bool = False) -> ExportSummary:
    """Run one consumer export: check, stage, convert row by row, write manifest and failures, rename."""
    t0 = time.time()
    src, out = Path(src).resolve(), Path(out).resolve()
    if not src.is_dir():
        raise ExportError(f"source folder not found: {src}")
    check_output_folder(src, out, overwrite, fmt)
    # the source is held (shared) from its listing to the last row read: no --force-new-run under us
    with source_lock(src, f"export ({fmt})", allow_incomplete):
        try:
            reader = DatasetReader(src, allow_incomplete)
        except DatasetError as err:
            raise ExportError(str(err)) from None
        summary = ExportSummary(out=out, format=fmt,
                                skipped_line="" if reader.check.complete else reader.check.skipped_line())
        with export_output(out, f"duplexsynth export ({fmt})"):
            check_output_folder(src, out, overwrite, fmt)   # again, now that no other export can write here
            _remove_stale_stages(out)
            _convert(reader, out, summary, make_writer, progress, t0)
    return summary


def _stage_name(out: Path, pid: int) -> Path:
    """The staging folder beside `out` an export of process `pid` converts into before moving it in."""
    return out.with_name(f".{out.name}.partial-{pid}")


def _remove_stale_stages(out: Path) -> None:
    """Staging folders of killed exports of `out` (any pid): OUT's lock is held, so none is live."""
    stage = re.compile(rf"\.{re.escape(out.name)}\.partial-\d+")
    for p in out.parent.iterdir():
        if stage.fullmatch(p.name) and p.is_dir() and not p.is_symlink():
            shutil.rmtree(p)


def _convert(reader: DatasetReader, out: Path, summary: ExportSummary, make_writer: Callable[[Path], FormatWriter],
             progress: bool, t0: float) -> None:
    """Convert every row into a staging folder, then move it into `out` (the lock is held)."""
    stage = _stage_name(out, os.getpid())   # _remove_stale_stages cleared any earlier one
    stage.mkdir()
    try:
        writer = make_writer(stage)
        total = reader.check.rows
        for index, row in enumerate(reader.iter_rows()):
            try:
                why = row_field_problem(row)
                if why:
                    raise RowFailed(why)
                written_s = writer.add(row)
            except RowFailed as err:
                summary.failed.append({"id": row.get("id"), "index": index, "error": str(err)})
            else:
                summary.rows += 1
                summary.audio_s += float(row["duration_s"]) if written_s is None else written_s
            if progress and ((index + 1) % _PROGRESS_EVERY == 0 or index + 1 == total):
                print(f"\rexport {summary.format}: {index + 1}/{total} rows, {len(summary.failed)} failed",
                      end="", file=sys.stderr, flush=True)
        if progress:
            print(file=sys.stderr)
        for late in getattr(writer, "unmatched", list)():   # held for a partner that never came
            summary.failed.append({"id": late.id, "index": late.index, "error": late.error})
            summary.rows -= 1
            summary.audio_s -= late.duration_s
        summary.failed.sort(key=lambda f: f["index"])
        layout = writer.close()
        summary.frames_dropped = int(layout.get(FRAMES_DROPPED, 0))
        summary.elapsed_s = time.time() - t0
        _write_json(stage / FAILED_NAME, summary.failed)
        _write_json(stage / MANIFEST_NAME, _manifest(reader, summary, layout))
        _move_into(stage, out)
    finally:
        shutil.rmtree(stage, ignore_errors=True)


def _manifest(reader: DatasetReader, summary: ExportSummary, layout: dict[str, Any]) -> dict[str, Any]:
    chk = reader.check
    src_manifest = chk.manifest or {}
    return {
        "format": summary.format,
        "created_unix": int(time.time()),
        "source": {"dir": str(reader.root), "manifest_sha256": chk.manifest_sha256,
                   "generator_version": src_manifest.get("generator_version"),
                   "shards": [{"path": str(p.relative_to(reader.root)), "sha256": chk.digests.get(p) or sha256_file(p)}
                              for p in chk.shards],
                   "skipped": None if chk.complete else {"shards": chk.shards_skipped, "rows": chk.rows_skipped,
                                                         "problems": chk.problems[:50]}},
        "rows": summary.rows, "failed": len(summary.failed), "failed_path": FAILED_NAME,
        "hours": round(summary.audio_s / 3600, 6),
        "channels": {str(ASSISTANT_CHANNEL): Role.ASSISTANT.value, str(USER_CHANNEL): "microphone (user side)"},
        "layout": layout,
        "elapsed_s": round(summary.elapsed_s, 2),
    }


def _write_json(path: Path, obj: Any) -> None:
    path.write_text(json.dumps(obj, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


def _move_into(stage: Path, out: Path) -> None:
    """Empty `out` (an earlier export, checked; never the lock) and rename the staged entries into it."""
    clear_folder(out)
    entries = sorted(stage.iterdir(), key=lambda p: p.name == MANIFEST_NAME)   # the manifest last
    for p in entries:
        p.rename(out / p.name)


def resample(x: np.ndarray, sr: int, target: int) -> np.ndarray:
    """`x` at `target` Hz, exactly round(len * target / sr) samples (soxr, very high quality)."""
    import soxr

    n = int(round(len(x) * target / sr))
    y = x if sr == target else soxr.resample(x, sr, target, quality="VHQ").astype(np.float32)
    if len(y) < n:
        y = np.pad(y, (0, n - len(y)))
    return y[:n]
