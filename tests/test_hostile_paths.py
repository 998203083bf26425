"""Issue #30 items 1, 2 and 9: nothing written outside the output, no link followed, no path from data
leaving its folder, no run lost to another or litter left behind.

Each case is a hostile input made in the test (a FIFO, a planted symlink, a crafted split.json or
checkpoint metadata, a model yaml that runs a command, a held lock) and asserts: a non-zero exit
with ONE line naming the field or file (no traceback, no "unexpected" marker), nothing changed
outside the output, all in bounded time (every subprocess has a timeout).
"""
from __future__ import annotations

import json
import os
import pickle
import re
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from tests.generated import FAST_VOICES_YAML, write_dataset

ROOT = Path(__file__).resolve().parents[1]
TIMEOUT_S = 120


def cli(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "jobs.cli", *args], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=TIMEOUT_S)


def refusal(proc: subprocess.CompletedProcess, *names: str) -> str:
    """The one stderr line of a refused command; it must name each of `names`."""
    lines = [ln for ln in proc.stderr.splitlines() if ln.strip()]
    assert proc.returncode not in (0, 1), (proc.returncode, proc.stderr)
    assert "Traceback" not in proc.stderr and "unexpected" not in proc.stderr, proc.stderr
    assert len(lines) == 1, proc.stderr
    for name in names:
        assert name in lines[0], (name, lines[0])
    return lines[0]


def write_scripts(out: str, *extra: str, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    return cli("write-scripts", "--config", str(FAST_VOICES_YAML), "--num", "2", "--no-progress", "--out", out,
               *extra, cwd=cwd)


@pytest.fixture(scope="module")
def dataset(generated, tmp_path_factory) -> Path:
    """A 2-row generator output folder (real rows, real manifest), made in-process."""
    return write_dataset(tmp_path_factory.mktemp("hostile") / "ds", generated.rows(2))


# ------------------------------------------------------------------ item 1: writes outside the output
def test_eval_report_never_writes_through_a_symlink_at_its_temp_name(tmp_path):
    from model.eval_decisions import emit_report

    victim = tmp_path / "victim.txt"
    victim.write_text("keep me")
    out = tmp_path / "report.json"
    (tmp_path / "report.json.tmp").symlink_to(victim)   # main wrote OUT.tmp, then renamed it
    emit_report({"all": {"units": 1}}, str(out))
    assert victim.read_text() == "keep me"
    assert json.loads(out.read_text()) == {"all": {"units": 1}}
    assert not [p for p in tmp_path.iterdir() if ".tmp-" in p.name]   # no temp left behind


@pytest.mark.parametrize("kind", ["fifo", "symlink", "folder"])
def test_eval_out_that_is_not_a_regular_file_is_refused_before_evaluating(tmp_path, kind):
    out = tmp_path / "report.json"
    if kind == "fifo":
        os.mkfifo(out)
    elif kind == "symlink":
        (tmp_path / "elsewhere.json").write_text("{}")
        out.symlink_to(tmp_path / "elsewhere.json")
    else:
        out.mkdir()
    for cmd in ("eval-decisions", "eval-duplex") if kind == "fifo" else ("eval-decisions",):
        proc = cli(cmd, str(tmp_path / "no-checkpoint"), "--data", str(tmp_path / "no-data"), "--out", str(out))
        refusal(proc, "--out", str(out), "not a regular file")
    st = os.lstat(out)
    assert {"fifo": stat.S_ISFIFO, "symlink": stat.S_ISLNK, "folder": stat.S_ISDIR}[kind](st.st_mode)
    if kind == "symlink":
        assert (tmp_path / "elsewhere.json").read_text() == "{}"


def test_eval_report_refuses_a_fifo_even_when_called_directly(tmp_path):
    from model.eval_decisions import emit_report
    from schemas.errors import UsageError

    out = tmp_path / "fifo"
    os.mkfifo(out)
    with pytest.raises(UsageError, match="a FIFO"):
        emit_report({"all": {}}, str(out))
    assert stat.S_ISFIFO(os.lstat(out).st_mode)   # main replaced it (as root, /dev/full too) by a JSON file


def test_llm_cache_symlinked_out_of_the_folder_is_refused(tmp_path):
    out, outside = tmp_path / "out", tmp_path / "outside"
    out.mkdir()
    outside.mkdir()
    (out / "llm_cache").symlink_to(outside)
    refusal(write_scripts(str(out)), "llm_cache", "symlink")
    assert list(outside.iterdir()) == []
    assert not (out / "scripts.jsonl").exists()


def test_empty_out_is_refused_not_the_current_folder(tmp_path):
    before = sorted(tmp_path.iterdir())
    refusal(write_scripts("", cwd=tmp_path), "--out", "empty")
    refusal(cli("stats", str(tmp_path / "nope"), "--png", "", cwd=tmp_path), "--png", "empty")
    assert sorted(tmp_path.iterdir()) == before


def test_stats_png_is_written_at_exactly_the_name_given(dataset, tmp_path):
    name = tmp_path / "figure"   # no suffix: matplotlib saved figure.png and we reported figure
    proc = cli("stats", str(dataset), "--png", str(name), "--workers", "1")
    assert proc.returncode == 0, proc.stderr
    assert name.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["figure"]
    fifo = tmp_path / "fifo.png"
    os.mkfifo(fifo)
    refusal(cli("stats", str(dataset), "--png", str(fifo), "--workers", "1"), "--png", str(fifo))


# ------------------------------------------------------------------ item 2: paths from data
def _metadata(relative_path: str) -> bytes:
    from torch.distributed.checkpoint.filesystem import _StorageInfo
    from torch.distributed.checkpoint.metadata import BytesStorageMetadata, Metadata, MetadataIndex

    return pickle.dumps(Metadata(state_dict_metadata={"w": BytesStorageMetadata()},
                                 storage_data={MetadataIndex("w"): _StorageInfo(relative_path, 0, 4)}))


@pytest.mark.parametrize("rel", ["../../x.distcp", "/etc/passwd", "link/x.distcp"])
def test_checkpoint_metadata_naming_a_file_outside_the_checkpoint_is_refused(tmp_path, rel):
    from model.train import TrainError, _read_metadata

    ckpt = tmp_path / "run" / "checkpoints" / "step-00000001"
    ckpt.mkdir(parents=True)
    (ckpt / "link").symlink_to(tmp_path)
    (ckpt / ".metadata").write_bytes(_metadata(rel))
    with pytest.raises(TrainError, match=r"\.metadata: relative_path of w: .* points outside"):
        _read_metadata(ckpt)
    (ckpt / ".metadata").write_bytes(_metadata("__0_0.distcp"))   # the plain name DCP writes is fine
    assert _read_metadata(ckpt) is not None


@pytest.mark.parametrize("field,info", [
    # the tokenizer may sit in the export folder beside the splits ('../tokenizer/...'), never above it
    ("tokenizer", {"tokenizer": "../../secret.json", "shards": [{"path": "a.parquet"}]}),   # main: KeyError
    ("shards[0].path", {"tokenizer": "../tokenizer/protocol.json", "shards": [{"path": "/etc/passwd"}]}),
    ("shards[0].path", {"tokenizer": "../tokenizer/protocol.json", "shards": [{"path": "../secret.json"}]}),
])
def test_split_json_naming_a_file_outside_the_split_is_refused(tmp_path, field, info):
    from model.dataset import DataError, TrainSplit

    split = tmp_path / "export" / "train"
    split.mkdir(parents=True)
    (tmp_path / "secret.json").write_text("{}")   # files that exist, outside the export and the split
    (tmp_path / "export" / "secret.json").write_text("{}")
    (split / "split.json").write_text(json.dumps(info))
    with pytest.raises(DataError, match=f"split.json: {re.escape(field)}: .* points outside"):
        TrainSplit(split)
    if field == "tokenizer":   # the CLI: one line naming the file and the field
        proc = cli("train", "--estimate-memory", "--config", "tiny", "--data", str(split))
        assert proc.returncode == 2 and "split.json: tokenizer" in proc.stderr and "Traceback" not in proc.stderr


def test_preset_is_a_bundled_name_never_a_path(tmp_path):
    (tmp_path / "base.yaml").write_text("seed: 5\n")
    rel = os.path.relpath(tmp_path / "base", ROOT / "schemas" / "presets")
    out = tmp_path / "out"
    refusal(write_scripts(str(out), "--preset", rel), "--preset", "unknown preset")
    assert not out.exists()


def test_cosyvoice_yaml_that_runs_a_command_is_refused_before_it_is_read(tmp_path):
    from jobs.cosyvoice_actor import REQUIRED_FILES

    model = tmp_path / "model"
    model.mkdir()
    for name in REQUIRED_FILES:
        (model / name).touch()
    (model / "prompts").mkdir()   # one voice, so that only the yaml is at fault
    import numpy as np
    import soundfile as sf
    sf.write(model / "prompts" / "alice.wav", np.zeros(16000, dtype=np.float32), 16000)
    (model / "prompts" / "alice.txt").write_text("Hello there.")
    marker = tmp_path / "ran"
    (model / "cosyvoice2.yaml").write_text(f"sample_rate: 24000\n__x: !apply:os.system ['touch {marker}']\n")
    cfg = tmp_path / "cfg.yaml"
    cfg.write_text(f"voices:\n  cast: espeak\n  cosyvoice: {{model_dir: {model}}}\n")
    proc = cli("write-scripts", "--config", str(cfg), "--num", "1", "--no-progress", "--out", str(tmp_path / "out"))
    refusal(proc, "cosyvoice2.yaml", "line 2", "!apply:os.system")
    assert not marker.exists()
    assert not (tmp_path / "out").exists()


# ------------------------------------------------------------------ item 9: locks and litter
def test_write_scripts_into_a_folder_another_run_holds_is_refused(tmp_path):
    from jobs.lock import output_lock
    from pipeline.io import Store

    out = tmp_path / "out"
    out.mkdir()
    with output_lock(Store(out), "duplexsynth write-scripts"):
        refusal(write_scripts(str(out)), str(out), "in use by another run")
    assert not (out / "scripts.jsonl").exists()
    assert write_scripts(str(out)).returncode == 0   # free again
    assert (out / "scripts.jsonl").stat().st_size > 0


def test_killed_export_leaves_no_staging_folder_after_a_rerun(dataset, tmp_path):
    out = tmp_path / "moshi"
    stale = tmp_path / f".{out.name}.partial-999999"   # what `kill -9` of an export (pid 999999) leaves
    stale.mkdir()
    (stale / "half.wav").write_bytes(b"RIFF")
    proc = cli("export", str(dataset), "--format", "moshi", "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["moshi"]


def test_refused_export_leaves_no_lock_file_and_no_folder(dataset, tmp_path):
    out = tmp_path / "train"
    refusal(cli("export", str(dataset), "--out", str(out), "--val-fraction", "2"), "--val-fraction")
    assert not out.exists()
    out.mkdir()   # a folder the user made stays, empty as it was
    refusal(cli("export", str(dataset), "--out", str(out), "--val-fraction", "2"), "--val-fraction")
    assert list(out.iterdir()) == []


def test_export_holds_its_source_while_reading_it(dataset, tmp_path):
    from jobs.lock import OutputLocked, output_lock
    from pipeline.io import Store

    out = tmp_path / "moshi"
    with output_lock(Store(dataset), "duplexsynth generate"):   # a run is writing the source
        refusal(cli("export", str(dataset), "--format", "moshi", "--out", str(out)), str(dataset),
                "being written by another run")
    assert not out.exists()
    from jobs.lock import source_lock
    with source_lock(dataset, "export"):   # an export is reading it: generate (--force-new-run) is refused
        with pytest.raises(OutputLocked, match="an export is reading it"):
            with output_lock(Store(dataset), "duplexsynth generate"):
                pass
        with source_lock(dataset, "export"):   # two exports of one source read side by side
            pass
