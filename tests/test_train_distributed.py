"""FSDP2 with 2 CPU processes (torchrun, gloo) and Ray Train with 2 workers: both train and checkpoint."""
from __future__ import annotations

import json
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
import yaml

from model.config import CONFIG_DIR
from model.train import TrainArgs, train
from tests.generated import export_dataset

ROOT = Path(__file__).resolve().parents[1]


def _losses(out: Path) -> dict[int, float]:
    return {r["step"]: r["loss"] for r in map(json.loads, (out / "metrics.jsonl").read_text().splitlines())}


@pytest.fixture(scope="module")
def data(tmp_path_factory, generated) -> Path:
    return export_dataset(tmp_path_factory.mktemp("dist"), generated, rows=12, val_fraction=0.25)


@pytest.fixture(scope="module")
def per_rank_config(tmp_path_factory) -> Path:
    """tiny with grad_accum 1: two ranks then see the same global batch as one rank with grad_accum 2."""
    spec = yaml.safe_load((CONFIG_DIR / "tiny.yaml").read_text())
    spec["train"]["grad_accum"] = 1
    p = tmp_path_factory.mktemp("cfg") / "tiny-2rank.yaml"
    p.write_text(yaml.safe_dump(spec))
    return p


def _torchrun(config: Path, data: Path, out: Path, *extra: str, meanwhile: Callable[[], object] = lambda: None) -> str:
    """`duplexsynth train --nproc-per-node 2`; its stderr. `meanwhile` runs here while it trains."""
    cmd = [sys.executable, "-m", "jobs.cli", "train", "--config", str(config), "--data", str(data),
           "--out", str(out), "--max-steps", "4", "--save-every", "2", "--nproc-per-node", "2", *extra]
    logs = out.parent / f"{out.name}.out", out.parent / f"{out.name}.err"   # files: nobody reads a pipe meanwhile
    with open(logs[0], "w") as o, open(logs[1], "w") as e:
        p = subprocess.Popen(cmd, cwd=ROOT, stdout=o, stderr=e)
    try:
        meanwhile()
        p.wait(timeout=400)
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
    stdout, stderr = (f.read_text() for f in logs)
    assert p.returncode == 0, stdout[-2000:] + stderr[-4000:]
    return stderr


def test_fsdp2_two_cpu_processes_match_one_process_and_resume(data, per_rank_config, tmp_path):
    fsdp, single = tmp_path / "fsdp", tmp_path / "single"

    def one_process() -> None:   # the reference, trained here while the two ranks start up and train
        train(TrainArgs(config="tiny", data=str(data), out=str(single), max_steps=4, save_every=2))

    log = _torchrun(per_rank_config, data, fsdp, meanwhile=one_process)
    assert "2 process(es), cpu, fsdp=True" in log
    for step in (2, 4):
        d = fsdp / "checkpoints" / f"step-{step:08d}"
        assert sorted(p.name for p in d.glob("*.distcp")) == ["__0_0.distcp", "__1_0.distcp"]   # one shard per rank
        assert (d / "rng-rank00001.pt").is_file()
        assert json.loads((d / "trainer_state.json").read_text())["world_size"] == 2
    # the same global batches on one process (grad_accum 2) give the same losses
    a, b = _losses(fsdp), _losses(single)
    assert sorted(a) == [1, 2, 3, 4]
    diff = max(abs(a[s] - b[s]) for s in a)
    print(f"FSDP2 2x1 vs 1 process x2 accum: max |loss diff| {diff:.3g}; losses {a}")
    assert diff < 1e-4, (a, b)
    # sharded resume: continue the FSDP run from its step-2 checkpoint on 2 processes
    resumed = tmp_path / "resumed"
    (resumed / "checkpoints").mkdir(parents=True)
    shutil.copytree(fsdp / "checkpoints" / "step-00000002", resumed / "checkpoints" / "step-00000002")
    log = _torchrun(per_rank_config, data, resumed, "--resume", "auto")
    assert "resumed from" in log
    c = _losses(resumed)
    assert sorted(c) == [3, 4] and max(abs(c[s] - a[s]) for s in c) < 1e-5
    print(f"FSDP2 sharded resume: max |loss diff| {max(abs(c[s] - a[s]) for s in c):.3g}")


def test_fsdp2_venus_keeps_the_frozen_speech_decoder_out_of_training(data, tmp_path):
    """recipe venus under FSDP2: the frozen decoder is its own group, never gathered, never reduced."""
    import torch

    from model.eval_decisions import load_model

    spec = yaml.safe_load((CONFIG_DIR / "venus-tiny.yaml").read_text())
    spec["train"]["grad_accum"] = 1
    cfg = tmp_path / "venus-2rank.yaml"
    cfg.write_text(yaml.safe_dump(spec))
    fsdp, single = tmp_path / "fsdp", tmp_path / "single"

    def one_process() -> None:
        train(TrainArgs(config="venus-tiny", data=str(data), out=str(single), max_steps=4, save_every=4))

    assert "2 process(es), cpu, fsdp=True" in _torchrun(cfg, data, fsdp, meanwhile=one_process)
    a, b = _losses(fsdp), _losses(single)
    assert sorted(a) == [1, 2, 3, 4] and max(abs(a[s] - b[s]) for s in a) < 1e-4, (a, b)
    m2, _, _ = load_model(fsdp / "checkpoints" / "step-00000004")
    m1, _, _ = load_model(single / "checkpoints" / "step-00000004")
    init, _, _ = load_model(fsdp / "checkpoints" / "step-00000002")
    for k, v in m2.speech_decoder.state_dict().items():   # frozen: as at step 2, and as on one process
        assert torch.equal(v, init.speech_decoder.state_dict()[k]) and torch.equal(v, m1.speech_decoder.state_dict()[k])
    assert not torch.equal(m2.llm.lm_head.weight, init.llm.lm_head.weight)   # while the LLM trained


def test_ray_train_two_workers_trains_and_checkpoints(data, tmp_path, capsys, ray_head):
    """`duplexsynth train --ray-workers 2 --ray-address HOST:PORT`: Ray Train on a cluster (the session's
    loopback `ray start --head`, as a user's cluster would be reached), 2 workers."""
    ray = pytest.importorskip("ray")
    from jobs.cli import main as cli

    out = tmp_path / "ray-run"
    try:
        rc = cli(["train", "--config", "tiny", "--data", str(data), "--out", str(out), "--max-steps", "3",
                  "--save-every", "3", "--ray-workers", "2", "--ray-address", ray_head])
    finally:
        ray.shutdown()
    assert rc == 0
    m = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert m["step"] == 3
    ck = out / "checkpoints" / "step-00000003"
    assert m["checkpoint"] == m["ray_checkpoint"] == str(ck)      # registered with Ray in place
    assert sorted(p.name for p in ck.glob("*.distcp")) == ["__0_0.distcp", "__1_0.distcp"]
    state = json.loads((ck / "trainer_state.json").read_text())
    assert state["world_size"] == 2 and state["step"] == 3
    assert sorted(_losses(out)) == [1, 2, 3]
