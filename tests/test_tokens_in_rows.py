"""Speech tokens through the real job path: rows carry 25 tokens per speak unit and validate, the manifest names the file."""
from __future__ import annotations

import json

import pyarrow.parquet as pq

from jobs.runner import RunResult, _write_manifest
from jobs.shards import ShardPlan, load_tokenizer, run_shard
from pipeline.io import Store
from pipeline.validate import validate_row
from schemas.arrow import row_from_dict
from schemas.config import RunConfig
from tests.generated import FAST_VOICES
from tests.onnx_fixtures import build_tiny_s3_onnx


def test_rows_with_speech_tokens_validate_and_manifest_names_the_tokenizer(tmp_path, espeak):
    onnx = build_tiny_s3_onnx(tmp_path / "speech_tokenizer_v2.onnx")
    cfg = RunConfig(seed=2, num=3, shard_size=3, speech_tokenizer={"onnx_path": str(onnx)},
                    scenarios={"turn_taking": 1.0, "interruption_discard": 1.0}, voices=FAST_VOICES)
    s = run_shard(cfg, ShardPlan(0, 0, 3), tmp_path / "out", tts=espeak)
    assert s.rows == 3 and s.failed == 0 and not s.no_speech_tokens
    rows = [row_from_dict(d) for d in pq.read_table(tmp_path / "out" / s.path).to_pylist()]
    for r in rows:
        assert validate_row(r, expect_tokens=True) == []
        assert all(len(u.speech_tokens) == (25 if u.decision == "speak" else 0) for u in r.units)
    _write_manifest(cfg, Store(str(tmp_path / "out")), [], RunResult(out=tmp_path / "out"))
    manifest = json.loads((tmp_path / "out" / "manifest.json").read_text())
    assert manifest["speech_tokenizer"] == load_tokenizer(cfg).identity()
    assert manifest["speech_tokens"].startswith("s3 25 Hz")
