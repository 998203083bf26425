"""End to end on generated rows: `generate` -> `validate` -> `export` -> `train` (a few steps) -> `eval-decisions`.

Every step is the real CLI in its own process (generate starts its own local Ray: the session's
`cli_dataset`, which other read-only tests share), and each step's real output is checked: row
counts, a clean validate, the export's split, finite losses, and an eval report with the decision
metrics per scenario family.
"""
from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import pyarrow.parquet as pq

from tests.generated import FAST_VOICES_YAML, read_rows, row_texts, train_tokenizer

ROOT = Path(__file__).resolve().parents[1]
NUM = 4   # cli_dataset: --num 4 --shard-size 2
STEPS = 4


def _cli(*args: str, timeout: int = 300) -> subprocess.CompletedProcess:
    proc = subprocess.run([sys.executable, "-m", "jobs.cli", *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=timeout)
    assert proc.returncode == 0, f"duplexsynth {' '.join(args)}:\n{proc.stdout[-2000:]}\n{proc.stderr[-3000:]}"
    return proc


def test_generate_export_train_eval_decisions(tmp_path, cli_dataset):
    gen = cli_dataset
    manifest = json.loads((gen / "manifest.json").read_text())
    assert manifest["rows"] == NUM and manifest["failed"] == 0 and len(manifest["shards"]) == 2
    rows = read_rows(gen)
    assert len(rows) == NUM and len({r.scenario for r in rows}) >= 4

    # validate only reads the dataset and works on one core: it runs beside export -> train -> eval
    logs = tmp_path / "validate.out", tmp_path / "validate.err"    # files, not pipes: nobody reads them meanwhile
    with open(logs[0], "w") as out, open(logs[1], "w") as err:
        validate = subprocess.Popen([sys.executable, "-m", "jobs.cli", "validate", str(gen)], cwd=ROOT, stdout=out,
                                    stderr=err)
    try:
        _export_train_eval(gen, rows, tmp_path)
        validate.wait(timeout=300)
    finally:
        if validate.poll() is None:
            validate.kill()
            validate.wait()
    out, err = (p.read_text() for p in logs)
    assert validate.returncode == 0, f"duplexsynth validate:\n{out[-2000:]}\n{err[-3000:]}"
    assert f"OK: {NUM} rows" in out


def _export_train_eval(gen: Path, rows: list, tmp_path: Path) -> None:
    """export -> train (a few steps) -> eval-decisions of the generated dataset, each checked."""
    train, run, report = tmp_path / "train", tmp_path / "run", tmp_path / "eval.json"
    tok = train_tokenizer(tmp_path / "tok" / "tokenizer.json", row_texts(rows))
    # four rows over four families: a stratified val split would be empty, so every row trains and is evaluated
    _cli("export", str(gen), "--tokenizer", str(tok), "--out", str(train), "--val-fraction", "0", "--seed", "1")
    m = json.loads((train / "manifest.json").read_text())
    assert m["split"]["train"]["rows"] == NUM
    assert set(m["mix"]["families"]) == {r.scenario for r in rows}
    exported = [r for p in sorted((train / "train").glob("*.parquet"))
                for r in pq.read_table(p, columns=["id", "num_units"]).to_pylist()]
    assert sorted(r["id"] for r in exported) == sorted(r.id for r in rows)
    assert {r["id"]: r["num_units"] for r in exported} == {r.id: len(r.units) for r in rows}

    _cli("train", "--config", str(ROOT / "model" / "configs" / "tiny.yaml"), "--data", str(train), "--out", str(run),
         "--max-steps", str(STEPS))
    losses = [json.loads(line)["loss"] for line in (run / "metrics.jsonl").read_text().splitlines()]
    assert len(losses) == STEPS and all(math.isfinite(x) and x > 0 for x in losses)
    assert (run / "checkpoints" / "latest").read_text().strip() == f"step-{STEPS:08d}"

    _cli("eval-decisions", str(run), "--data", str(train / "train"), "--out", str(report))
    rep = json.loads(report.read_text())
    assert rep["step"] == STEPS
    assert set(rep["families"]) == {r.scenario for r in rows}
    for fam in list(rep["families"].values()) + [rep["all"]]:
        for k in ("decision_accuracy", "speak_f1", "listen_f1", "turn_eos_accuracy", "turn_eos_f1"):
            assert 0.0 <= fam[k] <= 1.0, (k, fam)
    assert rep["all"]["units"] == sum(f["units"] for f in rep["families"].values()) == sum(len(r.units) for r in rows)
