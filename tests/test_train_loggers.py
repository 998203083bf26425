"""train.loggers: W&B in offline mode read back from its own run file, and the refusal of a logger
that is not installed. (TensorBoard is read back from a real run in tests/test_train.py.)"""
from __future__ import annotations

import struct
import time
from pathlib import Path

import pytest
import yaml

from model.config import CONFIG_DIR, TrainConfigError, load_run_spec, parse_run_spec


def _spec(loggers: list[str]) -> dict:
    d = yaml.safe_load((CONFIG_DIR / "tiny.yaml").read_text())
    d["train"]["loggers"] = loggers
    return d


def _wandb_history(run_file: Path, wait_s: float = 60.0) -> list[dict[str, str]]:
    """History records of a .wandb file: a LevelDB-style log (7-byte header, 32 KiB blocks, records
    of 7-byte chunk headers: crc, length, type) of wandb's own protobuf Records. wandb's service
    may still be writing the file after finish() returns (seen on a loaded box), so this waits
    for the run's exit record."""
    deadline = time.monotonic() + wait_s
    while True:
        hist, done = _read_wandb(run_file)
        if done or time.monotonic() > deadline:
            return hist
        time.sleep(0.2)


def _read_wandb(run_file: Path) -> tuple[list[dict[str, str]], bool]:
    from wandb.proto import wandb_internal_pb2 as pb

    b, block, pos, buf, out, done = run_file.read_bytes(), 32768, 7, b"", [], False
    while pos + 7 <= len(b):
        if block - pos % block < 7:
            pos += block - pos % block
            continue
        _crc, n, kind = struct.unpack("<IHB", b[pos:pos + 7])
        if (n == 0 and kind == 0) or pos + 7 + n > len(b):    # end, or a chunk still being written
            break
        buf, pos = buf + b[pos + 7:pos + 7 + n], pos + 7 + n
        if kind in (1, 4):            # a full record, or the last chunk of one
            rec = pb.Record()
            rec.ParseFromString(buf)
            buf = b""
            kind_name = rec.WhichOneof("record_type")
            done |= kind_name == "exit"
            if kind_name == "history":
                out.append({i.key or "/".join(i.nested_key): i.value_json for i in rec.history.item})
    return out, done


def test_wandb_offline_logs_every_step_and_resumes_the_same_run(tmp_path, monkeypatch):
    pytest.importorskip("wandb")
    from model.experiment_log import WANDB_ID_FILE, ExperimentLog

    monkeypatch.setenv("WANDB_SILENT", "true")
    spec = parse_run_spec(_spec(["jsonl", "wandb"]))
    assert spec.train.wandb_mode == "offline"
    log = ExperimentLog(spec, tmp_path, start_step=0, active=True)
    for step, loss in ((1, 2.5), (2, 1.25)):
        log.write({"step": step, "loss": loss, "config": "tiny"})
    log.close()
    run_id = (tmp_path / WANDB_ID_FILE).read_text().strip()
    log = ExperimentLog(spec, tmp_path, start_step=2, active=True)   # a resumed run: the same W&B run id
    log.write({"step": 3, "loss": 0.5})
    log.close()
    runs = sorted((tmp_path / "wandb").glob(f"offline-run-*-{run_id}/run-{run_id}.wandb"))
    assert len(runs) == 2, list((tmp_path / "wandb").iterdir())
    hist = [h for r in runs for h in _wandb_history(r)]
    assert [(h["_step"], h["loss"]) for h in hist] == [("1", "2.5"), ("2", "1.25"), ("3", "0.5")]
    assert len((tmp_path / "metrics.jsonl").read_text().splitlines()) == 3


@pytest.mark.parametrize("name", ["tensorboard", "wandb"])
def test_a_logger_not_installed_is_refused_in_one_line_before_the_run_starts(name, tmp_path, monkeypatch):
    import importlib.util

    from model.train import TrainArgs, train

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda mod, *a: None if mod == name else real(mod, *a))
    cfg = tmp_path / "cfg.yaml"
    cfg.write_text(yaml.safe_dump(_spec(["jsonl", name])))
    with pytest.raises(TrainConfigError) as err:      # before the (missing) data is even looked at
        train(TrainArgs(config=str(cfg), data=str(tmp_path / "no-data"), out=str(tmp_path / "out")))
    msg = str(err.value)
    assert "\n" not in msg and f"asks for {name} but it is not installed (pip install {name})" in msg
    assert not (tmp_path / "out").exists()


def test_jsonl_cannot_be_left_out_and_unknown_loggers_name_the_field():
    with pytest.raises(TrainConfigError, match="loggers must include jsonl"):
        parse_run_spec(_spec(["tensorboard"]))
    with pytest.raises(TrainConfigError, match="train.loggers"):
        parse_run_spec(_spec(["jsonl", "mlflow"]))
    assert load_run_spec("tiny").train.loggers == ["jsonl"]
