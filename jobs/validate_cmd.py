"""`duplexsynth validate DIR`: check every DESIGN §5 invariant; exit non-zero on any violation."""
from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

import pyarrow.parquet as pq


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("validate", help="check every timeline and schema invariant of a dataset")
    p.add_argument("dir", help="dataset folder (holds manifest.json)")
    p.add_argument("--max-report", type=int, default=30, help="violations to print in full")
    p.set_defaults(func=run)


def validate_dataset(root: Path) -> tuple[int, list[str], Counter]:
    """(rows checked, violation lines, violations per rule). Verifies shard hashes too."""
    from pipeline.io import sha256_file
    from pipeline.validate import validate_row
    from schemas.arrow import TRAJECTORY_SCHEMA, row_from_dict

    manifest_path = root / "manifest.json"
    if not manifest_path.exists():
        return 0, [f"{manifest_path}: missing (the run did not finish, or this is not a dataset folder)"], Counter(manifest=1)
    manifest = json.loads(manifest_path.read_text())
    expect_tokens = manifest.get("speech_tokenizer") is not None
    lines: list[str] = []
    per_rule: Counter = Counter()
    rows = 0
    seen: set[str] = set()
    for sh in manifest["shards"]:
        path = root / sh["path"]
        if not path.exists() or sha256_file(path) != sh["sha256"]:
            lines.append(f"{path}: missing or sha256 differs from the manifest")
            per_rule["manifest"] += 1
            continue
        table = pq.read_table(path)
        if not table.schema.equals(TRAJECTORY_SCHEMA, check_metadata=False):
            lines.append(f"{path}: schema differs from the trajectory schema")
            per_rule["schema"] += 1
        if table.num_rows != sh["rows"]:
            lines.append(f"{path}: {table.num_rows} rows, manifest says {sh['rows']}")
            per_rule["manifest"] += 1
        for d in table.to_pylist():
            row = row_from_dict(d)
            rows += 1
            if row.id in seen:
                lines.append(f"{row.id}: duplicate id")
                per_rule["duplicate"] += 1
            seen.add(row.id)
            for viol in validate_row(row, expect_tokens=expect_tokens):
                lines.append(str(viol))
                per_rule[viol.rule] += 1
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
              ", ".join(f"{k} {c}" for k, c in sorted(per_rule.items())), file=sys.stderr)
        return 1
    print(f"OK: {rows} rows in {root} satisfy every invariant (DESIGN §5)")
    return 0
