"""`duplexsynth validate DIR`: check every DESIGN §5 invariant; exit non-zero on any violation.

The folder is first checked as a whole by jobs/dataset_reader.check_dataset (manifest well formed,
every listed path inside DIR, every shard and failure table present with its sha256, its columns
and its row count, rows + failed adding up to the config's `num`); then every row of every shard
that passed is checked against DESIGN §5. A dataset with no rows never passes.
"""
from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("validate", help="check every timeline and schema invariant of a dataset")
    p.add_argument("dir", help="dataset folder (holds manifest.json)")
    p.add_argument("--max-report", type=int, default=30, help="violations to print in full")
    p.set_defaults(func=run)


def validate_dataset(root: Path) -> tuple[int, list[str], Counter]:
    """(rows checked, violation lines, violations per rule). Verifies shard and failure-table hashes too."""
    from jobs.dataset_reader import MANIFEST_NAME, DatasetError, check_dataset
    from pipeline.validate import validate_row
    from schemas.arrow import TRAJECTORY_SCHEMA, row_from_dict

    root = Path(root)
    try:
        check = check_dataset(root)
    except DatasetError as err:
        return 0, [str(err)], Counter(manifest=1)
    lines: list[str] = list(check.problems)
    per_rule: Counter = Counter(manifest=len(check.problems)) if check.problems else Counter()
    manifest = check.manifest
    if manifest is None:          # missing or malformed: nothing it says can be checked
        return 0, lines, per_rule
    config = manifest.get("config")
    if not isinstance(config, dict) or "num" not in config:
        lines.append(f"{root / MANIFEST_NAME}: config.num is missing; cannot tell whether every "
                     "planned trajectory is there")
        per_rule["manifest"] += 1
    expect_tokens = manifest.get("speech_tokenizer") is not None
    rows = 0
    seen: set[str] = set()
    for path in check.shards:
        try:
            table = pq.read_table(path)
        except (pa.ArrowException, OSError, ValueError) as err:
            first = (str(err).splitlines() or [""])[0]
            lines.append(f"{path}: not readable as a Parquet trajectory shard ({type(err).__name__}: {first})")
            per_rule["parquet"] += 1
            continue
        if not table.schema.equals(TRAJECTORY_SCHEMA, check_metadata=False):
            lines.append(f"{path}: schema differs from the trajectory schema")
            per_rule["schema"] += 1
            continue
        for k, d in enumerate(table.to_pylist()):
            try:
                row = row_from_dict(d)
            except ValueError as err:      # pydantic ValidationError is a ValueError
                lines.append(f"{path} row {k}: not a valid trajectory row "
                             f"({(str(err).splitlines() or [''])[0]})")
                per_rule["schema"] += 1
                continue
            rows += 1
            if row.id in seen:
                lines.append(f"{row.id}: duplicate id")
                per_rule["duplicate"] += 1
            seen.add(row.id)
            for viol in validate_row(row, expect_tokens=expect_tokens, recompose=True):   # rule 4 re-composes
                lines.append(str(viol))
                per_rule[viol.rule] += 1
    if rows == 0:
        lines.append(f"{root}: 0 rows: nothing to validate (a dataset must hold at least one trajectory)")
        per_rule["empty"] += 1
    return rows, lines, per_rule


def run(args: argparse.Namespace) -> int:
    root = Path(args.dir)
    rows, lines, per_rule = validate_dataset(root)
    for line in lines[: args.max_report]:
        print(line)
    if len(lines) > args.max_report:
        print(f"... and {len(lines) - args.max_report} more")
    if lines:
        print(f"FAILED: {len(lines)} violation(s) in {rows} rows: " +
              ", ".join(f"{k} {c}" for k, c in sorted(per_rule.items())) + f" (first: {lines[0]})",
              file=sys.stderr)
        return 1
    print(f"OK: {rows} rows in {root} satisfy every invariant (DESIGN §5)")
    return 0
