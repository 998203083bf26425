"""Two CPU ranks (gloo): DDP (`fsdp: off`) ends with the same weights on every rank, and gradient
accumulation reduces gradients once per optimizer step under DDP and FSDP2 (counted).

Each run spawns two processes that call model.train.train with TrainHooks: `on_built` installs a
counter on the real collective (a DDP comm hook; an FSDP2 custom reduce-scatter), `on_done` saves
the rank's final weights. grad_accum 2 over 3 steps: one reduction per step is 3 rounds, one per
micro-batch would be 6.
"""
from __future__ import annotations

import json
import socket
from pathlib import Path

import pytest
import torch
import yaml

from model.config import CONFIG_DIR
from tests.generated import export_dataset

STEPS, ACCUM = 3, 2


@pytest.fixture(scope="module")
def data(tmp_path_factory, generated) -> Path:
    return export_dataset(tmp_path_factory.mktemp("sync"), generated, rows=8, val_fraction=0.0)


def _config(tmp: Path, fsdp: str, defer: bool = True) -> Path:
    spec = yaml.safe_load((CONFIG_DIR / "tiny.yaml").read_text())
    spec["train"].update(fsdp=fsdp, grad_accum=ACCUM, max_steps=STEPS, save_every=STEPS, defer_grad_sync=defer,
                         activation_checkpointing=False)   # recompute changes no number here, only time
    p = tmp / f"tiny-{fsdp}-{defer}.yaml"
    p.write_text(yaml.safe_dump(spec))
    return p


def _rank_main(rank: int, world: int, port: int, config: str, data: str, out: str, results: str) -> None:
    """One rank: train with counting hooks, then save this rank's weights and counts."""
    import os

    import torch.distributed as dist

    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port), RANK=str(rank), WORLD_SIZE=str(world),
                      LOCAL_RANK=str(rank))
    from model.train import TrainArgs, TrainHooks, train

    seen: dict[str, object] = {"rounds": 0, "calls": 0, "fsdp_modules": 0}

    def on_built(model: torch.nn.Module, mode: str) -> None:
        seen["mode"] = mode
        if mode == "ddp":
            from torch.distributed.algorithms.ddp_comm_hooks.default_hooks import allreduce_hook

            def counting(state, bucket):      # no annotations: DDP checks them against dist.GradBucket
                seen["calls"] += 1
                seen["rounds"] += int(bucket.index() == 0)      # every reduction round has a bucket 0
                return allreduce_hook(None, bucket)

            model.register_comm_hook(None, counting)
        elif mode == "fsdp":
            from torch.distributed.fsdp import FSDPModule
            from torch.distributed.fsdp._fully_shard._fsdp_collectives import DefaultReduceScatter

            class Counting(DefaultReduceScatter):
                def __call__(self, *args, **kwargs):
                    seen["calls"] += 1
                    return super().__call__(*args, **kwargs)

            for m in model.modules():
                if isinstance(m, FSDPModule):
                    m.set_custom_reduce_scatter(Counting())
                    seen["fsdp_modules"] += 1

    def on_done(model: torch.nn.Module, mode: str) -> None:
        inner = getattr(model, "module", model)
        torch.save({k: (v.full_tensor() if hasattr(v, "full_tensor") else v).detach().clone()
                    for k, v in inner.state_dict().items()}, Path(results) / f"weights-{rank}.pt")

    try:
        train(TrainArgs(config=config, data=data, out=out), hooks=TrainHooks(on_built=on_built, on_done=on_done))
    finally:
        if dist.is_initialized():
            dist.destroy_process_group()
    (Path(results) / f"seen-{rank}.json").write_text(json.dumps(seen))


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _two_ranks(config: Path, data: Path, tmp: Path) -> tuple[list[dict], list[dict[str, torch.Tensor]], Path]:
    import torch.multiprocessing as mp

    out, results = tmp / "run", tmp / "results"
    results.mkdir()
    # fork: the ranks start in a second instead of re-importing torch and transformers each
    mp.start_processes(_rank_main, args=(2, _free_port(), str(config), str(data), str(out), str(results)), nprocs=2,
                       join=True, start_method="fork")
    seen = [json.loads((results / f"seen-{r}.json").read_text()) for r in (0, 1)]
    weights = [torch.load(results / f"weights-{r}.pt", weights_only=True) for r in (0, 1)]
    return seen, weights, out


def _losses(out: Path) -> list[float]:
    return [json.loads(line)["loss"] for line in (out / "metrics.jsonl").read_text().splitlines()]


def test_ddp_ranks_end_with_identical_weights_and_reduce_once_per_step(data, tmp_path):
    seen, (w0, w1), out = _two_ranks(_config(tmp_path, "off"), data, tmp_path)
    assert [s["mode"] for s in seen] == ["ddp", "ddp"]
    assert [s["rounds"] for s in seen] == [STEPS, STEPS], seen     # not STEPS * ACCUM: no_sync until the last
    assert w0.keys() == w1.keys() and len(w0) > 10
    differ = [k for k in w0 if not torch.equal(w0[k], w1[k])]
    assert not differ, f"{len(differ)} tensors differ across ranks, e.g. {differ[:3]}"
    assert len(_losses(out)) == STEPS


def test_ddp_without_deferral_reduces_every_micro_batch(data, tmp_path):
    """The counter can tell: with defer_grad_sync off the same run reduces after each micro-batch."""
    seen, (w0, w1), _ = _two_ranks(_config(tmp_path, "off", defer=False), data, tmp_path)
    assert [s["rounds"] for s in seen] == [STEPS * ACCUM] * 2, seen
    assert all(torch.equal(w0[k], w1[k]) for k in w0)


def test_fsdp2_reduce_scatters_once_per_step(data, tmp_path):
    seen, (w0, w1), out = _two_ranks(_config(tmp_path, "on"), data, tmp_path)
    assert [s["mode"] for s in seen] == ["fsdp", "fsdp"]
    n = seen[0]["fsdp_modules"]
    assert n == 2 + 2 + 1            # tiny: 2 decoder layers, 2 Whisper layers, the root
    assert [s["calls"] for s in seen] == [n * STEPS] * 2, seen     # one reduce-scatter per module per step
    assert all(torch.equal(w0[k], w1[k]) for k in w0)              # the gathered full weights agree
    assert len(_losses(out)) == STEPS
