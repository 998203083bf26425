"""Issue #30 items 5-7: hostile flags, rows, manifests and checkpoints are refused in one line.

Every case exits non-zero with one line naming the flag, field or file: no traceback, no
"unexpected" marker (jobs/cli.py's catch-all for defects), nothing half-written, in seconds.
Flag cases run `jobs.cli.main` in-process (argparse refuses before any file is read, so the
folders they name need not exist); row and manifest cases mutate a small dataset written by the
real manifest writer and re-hash it, as a writer that vouched for bad bytes would.
"""
from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path
from typing import Any, Callable

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from jobs.cli import main
from schemas.arrow import TRAJECTORY_SCHEMA, row_from_dict
from tests.generated import FAST_VOICES_YAML, write_dataset

UNEXPECTED = "unexpected"   # jobs/cli.py's marker of a defect of ours


def _run(capfd: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    """(exit status, stderr) of one in-process CLI call; argparse's SystemExit counts as a status."""
    try:
        rc = main(list(argv))
    except SystemExit as e:
        rc = e.code if isinstance(e.code, int) else 1
    return rc, capfd.readouterr().err


def _refused(rc: int, err: str, *names: str) -> None:
    """Non-zero, no traceback, no catch-all, and the message line names each of `names`.
    argparse prints its usage block first; the message is its last line."""
    lines = [ln for ln in err.strip().splitlines() if ln.strip()]
    assert rc not in (0, None), err
    assert lines, "no message"
    assert "Traceback" not in err and UNEXPECTED not in err, err
    usage = [ln for ln in lines[:-1] if not (ln.startswith("usage:") or ln.startswith(" "))]
    assert not usage, f"more than one message line: {lines}"
    for n in names:
        assert n in lines[-1], f"{n!r} not named in {lines[-1]!r}"


# ----------------------------------------------------------------------------- 6/7: flags

FLAG_CASES = [
    (("stats", "DIR", "--workers", "0"), "--workers"),
    (("stats", "DIR", "--workers", "-2"), "--workers"),
    (("export", "DIR", "--out", "OUT", "--workers", "0"), "--workers"),
    (("export", "DIR", "--out", "OUT", "--workers", "-2"), "--workers"),
    (("export", "DIR", "--out", "OUT", "--image-tokens", "-1"), "--image-tokens"),
    (("preview", "DIR", "--width", "0"), "--width"),
    (("preview", "DIR", "--width", "1000000000"), "--width"),
    (("eval-decisions", "CKPT", "--data", "D", "--max-samples", "-1"), "--max-samples"),
    (("eval-duplex", "CKPT", "--data", "D", "--max-text-tokens", "-5"), "--max-text-tokens"),
    (("train", "--config", "tiny", "--data", "D", "--nproc-per-node", "0"), "--nproc-per-node"),
    (("train", "--config", "tiny", "--estimate-memory", "--gpu-mem-gb", "nan"), "--gpu-mem-gb"),
    (("generate", "--out", "OUT", "--workers", "100000"), "--workers"),
    (("generate", "--out", "OUT", "--address", "not an address"), "--address"),
    (("voices", "--language", "xx"), "--language"),
    (("export", "DIR", "--out", "OUT", "--mix", "turn_taking=nan"), "--mix"),
    (("export", "DIR", "--out", "OUT", "--mix", "turn_taking=1e308"), "--mix"),
    (("export", "DIR", "--out", "OUT", "--format", "moshi", "--image-tokens", "32"), "--image-tokens"),
    (("export", "DIR", "--out", "OUT", "--format", "moshi", "--tokenizer", "x.json"), "--tokenizer"),
    (("export", "DIR", "--out", "OUT", "--format", "lhotse", "--workers", "4"), "--workers"),
    (("export", "DIR", "--out", "OUT", "--format", "moshi", "--rows-per-shard", "8"), "--rows-per-shard"),
]


@pytest.mark.parametrize("argv, flag", FLAG_CASES, ids=[" ".join(a[:1] + a[-2:]) for a, _ in FLAG_CASES])
def test_bad_flag_is_refused_in_one_line_before_any_work(argv, flag, tmp_path, monkeypatch, capfd):
    monkeypatch.chdir(tmp_path)   # relative DIR/OUT land here: nothing may be written
    rc, err = _run(capfd, *argv)
    _refused(rc, err, flag)
    assert list(tmp_path.iterdir()) == [], "a refused command wrote something"


def test_cluster_timeout_env_is_checked(monkeypatch, capfd):
    monkeypatch.setenv("DUPLEXSYNTH_CLUSTER_TIMEOUT", "abc")
    rc, err = _run(capfd, "jobs", "list", "--address", "127.0.0.1:1")
    _refused(rc, err, "DUPLEXSYNTH_CLUSTER_TIMEOUT")


def test_train_config_that_is_not_a_mapping_names_the_file(tmp_path):
    from model.config import load_run_spec
    from schemas.errors import UsageError

    bad = tmp_path / "passwd"
    bad.write_text("root:x:0:0:root:/root:/bin/bash\n")
    with pytest.raises(UsageError, match="passwd"):
        load_run_spec(bad, {"max_steps": 1})


def test_a_run_whose_every_trajectory_failed_exits_non_zero(tmp_path, monkeypatch, capfd):
    import jobs.runner
    from jobs.runner import RunResult

    out = str(tmp_path / "ds")

    def all_failed(cfg: Any, out_: str, **kw: Any) -> RunResult:
        return RunResult(out=out_, num=3, shards=1, rows=0, failed=3,
                         failure_examples=[{"id": "s0-00000-0000000", "scenario": "pause", "error": "boom\nmore"}])

    monkeypatch.setattr(jobs.runner, "generate", all_failed)
    rc, err = _run(capfd, "generate", "--config", str(FAST_VOICES_YAML), "--num", "3", "--out", out, "--no-progress")
    _refused(rc, err, "every trajectory failed", "s0-00000-0000000: boom")


# ----------------------------------------------------------------------------- 5: rows and manifests

@pytest.fixture(scope="module")
def source(generated, tmp_path_factory) -> Path:
    """Two real rows (espeak, so validate can re-render them), written as a generator output folder."""
    return write_dataset(tmp_path_factory.mktemp("hostile") / "src", generated.rows(2, tts="espeak"), rows_per_shard=2)


def _mutated(source: Path, dst: Path, row: Callable[[dict[str, Any]], None] | None = None,
             manifest: Callable[[dict[str, Any]], None] | None = None) -> Path:
    """A copy of `source` with row 0 and/or the manifest changed, every sha256 made to match."""
    shutil.copytree(source, dst)
    m = json.loads((dst / "manifest.json").read_text())
    if row is not None:
        entry = m["shards"][0]
        p = dst / entry["path"]
        rows = pq.read_table(p).to_pylist()
        row(rows[0])
        pq.write_table(pa.Table.from_pylist(rows, schema=TRAJECTORY_SCHEMA), p)
        entry["sha256"] = hashlib.sha256(p.read_bytes()).hexdigest()
    if manifest is not None:
        manifest(m)
    (dst / "manifest.json").write_text(json.dumps(m))
    return dst


def _set(key: str, value: Any) -> Callable[[dict[str, Any]], None]:
    return lambda r: r.__setitem__(key, value)


def _word_end(r: dict[str, Any]) -> None:
    r["words"][0]["end_s"] = 1e9


def _event_text(r: dict[str, Any]) -> None:
    r["events"][0]["text"] = "<script>alert(1)</script>"


ROW_CASES = [
    ("scenario", _set("scenario", "🔥bogus"), "scenario"),
    ("id_dotdot", _set("id", "../../x"), "id"),
    ("id_absolute", _set("id", "/etc/passwd"), "id"),
    ("event_markup", _event_text, "markup"),
    ("unit_s_0", _set("unit_s", 0.0), "unit_s"),
    ("sample_rate_7", _set("sample_rate", 7), "sample_rate"),
    ("word_1e9", _word_end, "word 0"),
]


@pytest.mark.parametrize("name, change, field", ROW_CASES, ids=[c[0] for c in ROW_CASES])
def test_the_row_schema_refuses_garbage(source, name, change, field):
    d = pq.read_table(next((source / "shards").glob("*.parquet"))).to_pylist()[0]
    row_from_dict(d)   # the untouched row is fine
    change(d)
    with pytest.raises(ValueError, match=field):
        row_from_dict(d)


@pytest.mark.parametrize("name, change, field", [ROW_CASES[0], ROW_CASES[3], ROW_CASES[6]],
                         ids=["scenario", "event_markup", "word_1e9"])
def test_validate_fails_on_a_garbage_row(source, tmp_path, capfd, name, change, field):
    root = _mutated(source, tmp_path / "ds", row=change)
    rc = main(["validate", str(root), "--workers", "1"])
    text = capfd.readouterr()
    assert rc == 1 and field in text.out + text.err and UNEXPECTED not in text.err, text.out[-500:]


def _config(key: str, value: Any) -> Callable[[dict[str, Any]], None]:
    def change(m: dict[str, Any]) -> None:
        if key == "cast":
            m["config"]["voices"]["cast"] = value
        else:
            m["config"][key] = value
    return change


@pytest.mark.parametrize("key, value", [("unit_s", 0.04), ("sample_rate", 7), ("cast", "../../etc/passwd")])
def test_validate_fails_on_a_manifest_config_the_generator_could_not_have_run(source, tmp_path, capsys, key, value):
    root = _mutated(source, tmp_path / "ds", manifest=_config(key, value))
    rc = main(["validate", str(root), "--workers", "1"])
    text = capsys.readouterr()
    assert rc == 1, text.out[-500:]
    assert "config: " in text.out + text.err and key in text.out + text.err


def test_preview_of_a_row_with_unit_s_0_names_the_field(source, tmp_path, capfd):
    root = _mutated(source, tmp_path / "ds", row=_set("unit_s", 0.0))
    rc, err = _run(capfd, "preview", str(root), "--index", "0", "--out", str(tmp_path / "p.html"))
    _refused(rc, err, "unit_s")
    assert not (tmp_path / "p.html").exists()


def test_moshi_export_makes_a_garbage_row_a_failed_record(source, tmp_path, capfd):
    root = _mutated(source, tmp_path / "ds", row=_word_end)
    rc, err = _run(capfd, "export", str(root), "--format", "moshi", "--out", str(tmp_path / "m"))
    assert rc == 0, err
    failed = json.loads((tmp_path / "m" / "failed.json").read_text())
    assert len(failed) == 1 and "word 0" in failed[0]["error"]


def test_garbage_flac_is_one_failed_record_of_the_trainer_export(source, tmp_path, capfd):
    from tests.generated import row_texts, train_tokenizer

    def garbage(r: dict[str, Any]) -> None:
        r["user_audio"]["bytes"] = b"fLaC" + b"\0garbage" * 64

    root = _mutated(source, tmp_path / "ds", row=garbage)
    rows = [row_from_dict(d) for d in pq.read_table(next((source / "shards").glob("*.parquet"))).to_pylist()]
    tok = train_tokenizer(tmp_path / "tok" / "tokenizer.json", row_texts(rows))
    rc, err = _run(capfd, "export", str(root), "--tokenizer", str(tok), "--out", str(tmp_path / "t"),
                   "--val-fraction", "0")
    assert rc == 0, err
    assert "1 row(s) could not be converted" in err and UNEXPECTED not in err
    failed = json.loads((tmp_path / "t" / "failed.json").read_text())
    assert [f["source_row"] for f in failed] == [0]
    m = json.loads((tmp_path / "t" / "manifest.json").read_text())
    assert m["split"]["train"]["rows"] == 1 and m["failed"]["rows"] == 1


def test_validate_reports_garbage_flac_as_a_violation(source, tmp_path, capfd):
    root = _mutated(source, tmp_path / "ds", row=lambda r: r["user_audio"].__setitem__("bytes", b"fLaC" + b"\0" * 64))
    rc, err = _run(capfd, "validate", str(root), "--workers", "1")
    assert rc == 1 and UNEXPECTED not in err, err


def test_export_refuses_a_tokenizer_that_is_not_one_before_writing(source, tmp_path, capfd):
    bad = tmp_path / "passwd"
    bad.write_text("root:x:0:0:root:/root:/bin/bash\n")
    rc, err = _run(capfd, "export", str(source), "--tokenizer", str(bad), "--out", str(tmp_path / "t"))
    _refused(rc, err, str(bad))
    assert not (tmp_path / "t").exists()


# ----------------------------------------------------------------------------- 6: checkpoints

def test_a_truncated_checkpoint_is_one_line_naming_it(tmp_path):
    import torch
    import torch.distributed.checkpoint as dcp

    from model.train import Env, TrainError, _dcp_load

    ck = tmp_path / "ck"
    dcp.save({"model": {"w": torch.arange(4096, dtype=torch.float32)}}, checkpoint_id=str(ck), no_dist=True)
    for f in ck.glob("*.distcp"):
        f.write_bytes(f.read_bytes()[:100])
    sd = {"model": {"w": torch.zeros(4096)}}
    with pytest.raises(TrainError, match=str(ck)):
        _dcp_load(sd, ck, Env())


def test_a_checkpoint_config_with_a_python_tag_is_refused(tmp_path, capfd):
    ck = tmp_path / "ck"
    ck.mkdir()
    (ck / "trainer_state.json").write_text("{}")
    (ck / "config.yaml").write_text("model: !!python/name:os.system\n")
    rc, err = _run(capfd, "eval-decisions", str(ck), "--data", str(tmp_path / "none"))
    _refused(rc, err, "config.yaml")


def test_input_ids_outside_the_vocabulary_name_the_shard(generated, tmp_path):
    from model.dataset import DataError, TrainSplit
    from tests.generated import export_dataset

    data = export_dataset(tmp_path, generated, rows=4, val_fraction=0.25, rows_per_shard=4) / "train"
    info = json.loads((data / "split.json").read_text())
    shard = data / info["shards"][0]["path"]
    t = pq.read_table(shard)
    rows = t.to_pylist()
    rows[0]["input_ids"][0] = 10**9
    pq.write_table(pa.Table.from_pylist(rows, schema=t.schema), shard)
    info["shards"][0]["sha256"] = hashlib.sha256(shard.read_bytes()).hexdigest()
    (data / "split.json").write_text(json.dumps(info))
    split = TrainSplit(data, max_seq_len=8192)
    item = next(i for i in split.items if (i.shard, i.row, i.lo) == (0, 0, 0))
    with pytest.raises(DataError, match=r"shard-00000\.parquet row 0: input_ids holds 1000000000"):
        split.load(item)
