"""Where a run's per-step metrics go (`train.loggers`): the local JSONL, TensorBoard, W&B.

`OUT/metrics.jsonl` is the run's own record (resume truncates it to the resumed step, tests and
eval read it), so it is always written. `tensorboard` adds event files under OUT/tensorboard
(torch.utils.tensorboard; a resumed run purges the events after its step, so the curves read as
one run). `wandb` logs to Weights & Biases in `train.wandb_mode` (offline by default: nothing leaves
the machine; `wandb sync OUT/wandb/offline-run-*` uploads later), one W&B run per OUT, resumed by
the id kept in OUT/wandb-run-id. Only rank 0 logs. A logger asked for whose package is not
installed is refused before anything starts (`check_loggers`).
"""
from __future__ import annotations

import importlib.util
import json
import secrets
from pathlib import Path
from typing import Any

from model.config import LOGGER_TENSORBOARD, LOGGER_WANDB, RunSpec, TrainConfigError

_PACKAGES = {LOGGER_TENSORBOARD: ("tensorboard", "pip install tensorboard"),
             LOGGER_WANDB: ("wandb", "pip install wandb")}
WANDB_ID_FILE = "wandb-run-id"


def missing_loggers(loggers: list[str]) -> list[str]:
    """The asked-for loggers whose package is not importable here."""
    return [name for name in loggers if name in _PACKAGES and importlib.util.find_spec(_PACKAGES[name][0]) is None]


def check_loggers(loggers: list[str]) -> None:
    """Refuse, in one line, loggers that cannot run here (before the run builds anything)."""
    miss = missing_loggers(loggers)
    if miss:
        how = "; ".join(f"{_PACKAGES[m][1]}" for m in miss)
        raise TrainConfigError(f"train.loggers asks for {', '.join(miss)} but it is not installed ({how}), "
                         f"or remove it from train.loggers")


def _scalars(rec: dict[str, Any]) -> dict[str, float]:
    return {k: float(v) for k, v in rec.items() if isinstance(v, (int, float)) and not isinstance(v, bool)
            and k != "step"}


class ExperimentLog:
    """Writes each step's record to every configured logger (rank 0 only)."""

    def __init__(self, spec: RunSpec, out: Path, start_step: int, active: bool):
        self.jsonl = out / "metrics.jsonl"
        self.active = active
        self.tb = None
        self.wandb_run = None
        if not active:
            return
        loggers = spec.train.loggers
        if LOGGER_TENSORBOARD in loggers:
            from torch.utils.tensorboard import SummaryWriter

            self.tb = SummaryWriter(log_dir=str(out / "tensorboard"), purge_step=start_step + 1)
        if LOGGER_WANDB in loggers:
            import wandb

            id_file = out / WANDB_ID_FILE
            run_id = id_file.read_text().strip() if id_file.is_file() else secrets.token_hex(4)
            id_file.write_text(run_id + "\n")
            self.wandb_run = wandb.init(project=spec.train.wandb_project, name=spec.name, id=run_id,
                                        resume="allow", dir=str(out), mode=spec.train.wandb_mode,
                                        config=json.loads(json.dumps(spec.model_dump(mode="json"))))

    def write(self, rec: dict[str, Any]) -> None:
        if not self.active:
            return
        with open(self.jsonl, "a") as f:
            f.write(json.dumps(rec) + "\n")
        step = int(rec["step"])
        vals = _scalars(rec)
        if self.tb is not None:
            for k, v in vals.items():
                self.tb.add_scalar(k, v, step)
        if self.wandb_run is not None:
            self.wandb_run.log(vals, step=step, commit=True)   # the row is written now, not when the next step opens

    def close(self) -> None:
        if self.tb is not None:
            self.tb.close()
            self.tb = None
        if self.wandb_run is not None:
            self.wandb_run.finish()
            self.wandb_run = None

