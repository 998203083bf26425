"""End to end: generate on real local Ray, validate, read back with pyarrow, datasets and duckdb."""
from __future__ import annotations

import io
import json
import subprocess
import sys

import pyarrow.parquet as pq
import pytest
import soundfile as sf

from jobs.runner import read_faults
from jobs.shards import ShardPlan, run_shard
from jobs.validate_cmd import validate_dataset
from schemas.arrow import row_from_dict
from schemas.config import DEFAULT_SCENARIOS, RunConfig, dump_config
from tests.generated import FAST_VOICES

SEED, NUM, SHARD = 26, 14, 7   # with seed 26 the golden-ratio assignment gives each of the 14 default families one row


@pytest.fixture(scope="module")
def two_runs(tmp_path_factory, ray_head):
    """The same config generated with 2 workers (through the CLI, attached to the session's 2-CPU Ray) and with 1 worker (in-process), at
    the same time: two independent runs, so each may as well use the core the other leaves idle."""
    from jobs.runner import generate
    from schemas.config import load_config

    root = tmp_path_factory.mktemp("gen")
    cfg_path = root / "cfg.yaml"
    cfg_path.write_text(dump_config(RunConfig(seed=SEED, num=NUM, shard_size=SHARD, voices=FAST_VOICES)))
    out2 = root / "w2"
    logs = root / "w2.out", root / "w2.err"        # files, not pipes: nobody reads them while it runs
    with open(logs[0], "w") as out, open(logs[1], "w") as err:
        proc = subprocess.Popen([sys.executable, "-m", "jobs.cli", "generate", "--config", str(cfg_path), "--out",
                                 str(out2), "--address", ray_head], stdout=out, stderr=err)
    try:
        res1 = generate(load_config(cfg_path), root / "w1", workers=1, progress=False)
        proc.wait(timeout=600)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 0, logs[1].read_text()[-3000:]
    return out2, root / "w1", logs[0].read_text(), res1


def test_summary_reports_rows_hours_throughput_variety(two_runs):
    _, _, stdout, _ = two_runs
    for key in (f"rows written     {NUM}", "failed rows      0", "audio ", "throughput", "distinct-2", "speech tokens    none",
                "output"):
        assert key in stdout, stdout


def test_byte_identical_across_worker_counts(two_runs):
    out2, out1, _, _ = two_runs
    m1, m2 = (json.loads((o / "manifest.json").read_text()) for o in (out1, out2))
    assert [s["sha256"] for s in m1["shards"]] == [s["sha256"] for s in m2["shards"]]
    assert len(m1["shards"]) == NUM // SHARD
    for s in m2["shards"]:
        assert (out2 / s["path"]).read_bytes() == (out1 / s["path"]).read_bytes()


def test_validate_passes_and_covers_every_family(two_runs, tmp_path):
    """The CLI (its default worker pool) and validate_dataset on one worker, at the same time: each
    re-renders every row, and side by side they cost the time of one on 2 cores."""
    out2, _, _, _ = two_runs
    logs = tmp_path / "validate.out", tmp_path / "validate.err"     # files, not pipes: nobody reads them meanwhile
    with open(logs[0], "w") as out, open(logs[1], "w") as err:
        proc = subprocess.Popen([sys.executable, "-m", "jobs.cli", "validate", str(out2)], stdout=out, stderr=err)
    try:
        rows, lines, _ = validate_dataset(out2, workers=1)
        proc.wait(timeout=600)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert rows == NUM and lines == []
    table = pq.ParquetDataset(str(out2 / "shards")).read(columns=["scenario"])
    scen = set(table.column("scenario").to_pylist())
    assert scen == set(DEFAULT_SCENARIOS)
    stdout = logs[0].read_text()
    assert proc.returncode == 0 and f"OK: {NUM} rows" in stdout, logs[1].read_text()[-3000:]


def test_validate_catches_a_tampered_row(two_runs, tmp_path):
    from pipeline.validate import validate_row
    out2, _, _, _ = two_runs
    d = pq.read_table(sorted((out2 / "shards").glob("*.parquet"))[0]).to_pylist()[0]
    row = row_from_dict(d)
    speak = next(u for u in row.units if u.decision == "speak")
    speak.decision = "listen"                       # a label typed by hand, contradicting events and audio
    rules = {v.rule for v in validate_row(row, expect_tokens=False)}
    assert {"labels_derived", "listen_silent"} <= rules


def test_parquet_layout_and_readers(two_runs):
    out2, _, _, _ = two_runs
    path = sorted((out2 / "shards").glob("*.parquet"))[0]
    md = pq.ParquetFile(path).metadata
    assert all(md.row_group(i).num_rows <= 4 for i in range(md.num_row_groups))
    names = [md.schema.column(i).path for i in range(md.num_columns)]
    for i, name in enumerate(names):
        col = md.row_group(0).column(i)
        if name.startswith(("user_audio", "assistant_audio")):
            assert col.compression == "UNCOMPRESSED" and not col.is_stats_set, name
    # datasets types the audio as Audio from the stored feature metadata
    import datasets
    ds = datasets.load_dataset("parquet", data_files=str(out2 / "shards" / "*.parquet"), split="train")
    assert isinstance(ds.features["user_audio"], datasets.Audio)
    assert len(ds) == NUM
    plain = ds.cast_column("user_audio", datasets.Audio(decode=False)).cast_column(
        "assistant_audio", datasets.Audio(decode=False))
    first = plain[0]
    audio, sr = sf.read(io.BytesIO(first["user_audio"]["bytes"]))
    assert sr == 16000
    assert len(audio) == round(float(first["duration_s"]) * sr)
    import duckdb
    n = duckdb.sql(f"select count(*) from '{out2}/shards/*.parquet'").fetchall()[0][0]
    assert n == NUM
    kinds = duckdb.sql(f"select count(distinct scenario) from '{out2}/shards/*.parquet'").fetchall()[0][0]
    assert kinds == len(DEFAULT_SCENARIOS)


def test_schema_round_trip(two_runs):
    out2, _, _, _ = two_runs
    from schemas.arrow import rows_to_table
    table = pq.read_table(sorted((out2 / "shards").glob("*.parquet"))[1])
    rows = [row_from_dict(d) for d in table.to_pylist()]
    again = rows_to_table(rows)
    assert again.equals(table.cast(again.schema))
    assert [r.model_dump() for r in rows] == [row_from_dict(d).model_dump() for d in again.to_pylist()]


def test_failed_trajectory_becomes_a_record_and_the_shard_goes_on(tmp_path, espeak):
    cfg = RunConfig(seed=3, num=4, shard_size=4, voices=FAST_VOICES)
    faults = read_faults({"DUPLEXSYNTH_FAULTS": "row:s3-00000-0000001"})
    s = run_shard(cfg, ShardPlan(0, 0, 4), tmp_path, tts=espeak, faults=faults)
    assert s.rows == 3 and s.failed == 1
    failed = pq.read_table(tmp_path / s.failed_path).to_pylist()
    assert failed[0]["id"] == "s3-00000-0000001" and "planted failure" in failed[0]["error"]
    assert "Traceback" in failed[0]["traceback"]
    ids = pq.read_table(tmp_path / s.path, columns=["id"]).column(0).to_pylist()
    assert ids == ["s3-00000-0000000", "s3-00000-0000002", "s3-00000-0000003"]


def test_bad_config_names_the_field(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("num: 0\ntiming:\n  eot_s: [0.1, 0.3]\nscenarios: {nope: 1}\n")
    proc = subprocess.run([sys.executable, "-m", "jobs.cli", "generate", "--config", str(bad), "--out",
                           str(tmp_path / "o")], capture_output=True, text=True)
    assert proc.returncode == 2
    for field in ("num:", "timing.eot_s:", "scenarios:"):
        assert field in proc.stderr, proc.stderr
