"""`duplexsynth write-scripts` (issue #14 item 6): scripts without audio, as `generate` would plan them.

Run in-process through jobs.cli.main (the real command line) on the procedural default, a corpus
with broken lines (tests/test_corpus.py's), and an LLM source on the scripted loopback server of
tests/test_llm_writer.py; each output line is read back as a ScriptRecord holding a Script.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from generators.corpus import FAMILIES as CORPUS_FAMILIES
from generators.llm import FAMILIES as LLM_FAMILIES
from generators.registry import (
    language_for,
    plan_sourced,
    plan_trajectory,
    scenario_for,
    scenario_weights,
    source_for,
    trajectory_seed,
)
from jobs.cli import main
from jobs.shards import trajectory_id
from schemas.config import load_config
from schemas.provenance import ScriptRecord
from schemas.script import Script
from tests.test_corpus import _write_jsonl
from tests.test_llm_writer import KEY_ENV, SECRET, ScriptedServer


def _records(out: Path) -> list[ScriptRecord]:
    lines = (out / "scripts.jsonl").read_text(encoding="utf-8").splitlines()
    return [ScriptRecord.model_validate_json(line) for line in lines]


def test_procedural_scripts_are_the_ones_generate_plans(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rc = main(["write-scripts", "--num", "12", "--shard-size", "5", "--seed", "4", "--out", str(tmp_path / "w"),
               "--no-progress"])
    assert rc == 0
    cfg = load_config(None, {"num": 12, "seed": 4, "shard_size": 5})
    recs = _records(tmp_path / "w")
    assert [r.index for r in recs] == list(range(12))
    for r in recs:
        seed = trajectory_seed(4, r.index)
        assert isinstance(r.script, Script) and r.source is None
        assert r.id == trajectory_id(4, r.index // 5, r.index)   # the row id generate gives it
        assert r.script == plan_trajectory(cfg, scenario_for(r.index, 4, cfg.scenarios), seed)
    assert (tmp_path / "w" / "failed.jsonl").read_text() == ""
    assert "wrote 12 scripts (0 failed)" in capsys.readouterr().out


def test_corpus_scripts_and_failed_lines(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    corpus = tmp_path / "chats.jsonl"
    expect = _write_jsonl(corpus)
    old = [s for s in CORPUS_FAMILIES if s not in ("interruption_repair", "delegation")]   # no llm; bank-free
    data = {"num": 2 * len(expect), "seed": 2, "scenarios": {s: 1.0 for s in old},
            "script_source": {"kind": "corpus", "path": str(corpus)}}
    (tmp_path / "c.yaml").write_text(yaml.safe_dump(data), encoding="utf-8")
    rc = main(["write-scripts", "--config", str(tmp_path / "c.yaml"), "--out", str(tmp_path / "w"),
               "--progress-interval", "0"])
    out, err = capsys.readouterr()
    assert rc == 3 and "write-scripts: 18/18 planned, 12 failed" in err   # 6 bad records, each taken twice
    assert "wrote 6 scripts (12 failed)" in out and "failures:" in out
    cfg = load_config(str(tmp_path / "c.yaml"))
    src = source_for(cfg, tmp_path / "w")
    recs = _records(tmp_path / "w")
    assert sorted({r.index % len(expect) for r in recs}) == [i for i, (_, why) in expect.items() if why is None]
    for r in recs:
        seed = trajectory_seed(2, r.index)
        assert r.source is not None and r.source["line"] == expect[r.index % len(expect)][0]
        scenario = scenario_for(r.index, 2, scenario_weights(cfg, language_for(cfg, seed)))
        assert plan_sourced(cfg, scenario, seed, "en", src, r.index) == (r.script, r.source)   # generate's plan
    failed = [json.loads(line) for line in (tmp_path / "w" / "failed.jsonl").read_text().splitlines()]
    assert len(failed) == 12
    for f in failed:
        line, why = expect[f["index"] % len(expect)]
        assert why is not None and f"{corpus}:{line}: " in f["error"] and why in f["error"]


def test_llm_scripts_are_cached_for_a_rerun(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv(KEY_ENV, SECRET)
    with ScriptedServer() as srv:
        data = {"num": 6, "seed": 1, "scenarios": {s: 1.0 for s in LLM_FAMILIES},
                "script_source": {"kind": "llm", "base_url": srv.base_url, "model": "scripted-test-model",
                                  "api_key_env": KEY_ENV, "timeout_s": 5.0, "backoff_s": 0.01}}
        (tmp_path / "l.yaml").write_text(yaml.safe_dump(data), encoding="utf-8")
        args = ["write-scripts", "--config", str(tmp_path / "l.yaml"), "--out", str(tmp_path / "w"), "--no-progress"]
        assert main(args) == 0
        calls, first = len(srv.requests), (tmp_path / "w" / "scripts.jsonl").read_bytes()
        assert calls == 6 and ", llm 6 calls (" in (out := capsys.readouterr().out) and "), 0 failed, 0 cache hits" in out
        assert main(args) == 0
        assert len(srv.requests) == calls and (tmp_path / "w" / "scripts.jsonl").read_bytes() == first
        assert "llm 0 calls (0.00/s), 0 failed, 6 cache hits" in capsys.readouterr().out
    recs = _records(tmp_path / "w")
    assert len(recs) == 6 and all(r.source is not None and r.source["model"] == "scripted-test-model" for r in recs)
    assert list((tmp_path / "w" / "llm_cache").rglob("*.json"))   # where generate --out w looks for them
    for p in (tmp_path / "w").rglob("*"):
        assert not p.is_file() or SECRET.encode() not in p.read_bytes(), p


def test_bad_out_or_config_is_one_line_and_writes_nothing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "file").write_text("x")
    assert main(["write-scripts", "--num", "2", "--out", str(tmp_path / "file")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "exists and is not a folder" in err
    (tmp_path / "c.yaml").write_text(yaml.safe_dump({"script_source": {"kind": "corpus", "path": str(tmp_path / "no.jsonl")}}))
    assert main(["write-scripts", "--config", str(tmp_path / "c.yaml"), "--out", str(tmp_path / "w")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "script_source.path: corpus not found" in err
    assert not (tmp_path / "w").exists()
