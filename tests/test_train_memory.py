"""The per-GPU memory estimate: printed by `train --estimate-memory` for the 9B config on 8 GPUs,
split the way FSDP2 shards (and DDP does not), and printed at the start of every run."""
from __future__ import annotations

import pytest

from jobs.cli import main as cli
from model.memory import GIB, estimate_offline


def test_estimate_memory_command_for_venus_audio_9b_on_8x80(capsys):
    assert cli(["train", "--estimate-memory", "--config", "venus-audio-9b", "--gpus", "8", "--gpu-mem-gb", "80"]) == 0
    out = capsys.readouterr()
    line = out.out.strip()
    assert line.startswith("memory estimate per GPU (8.73B params, 8.52B trained, FSDP over 8): ") \
        and "of 80.0 GiB" in line, line
    assert "exceeds" not in out.err
    e = estimate_offline("venus-audio-9b", 8)
    p, t = e.params, e.trainable
    assert 8.65e9 < p < 8.8e9 and 8.45e9 < t < 8.6e9
    # FSDP over 8: fp32 weights (4 bytes/param, the frozen speech decoder's too), fp32 grads and
    # Adam m+v (4 + 8 bytes per trained param) are split 8 ways; deferred reduction over 8
    # micro-batches keeps one unsharded fp32 gradient (4 bytes per trained param)
    assert (e.weights, e.grads, e.optimizer, e.grads_accumulation) == (4 * p // 8, 4 * t // 8, 8 * t // 8, 4 * t)
    # in flight: the bf16 root (embeddings + LM head ~1.24B) and up to three decoder layers (~0.19B
    # each); the frozen decoder is its own group, never gathered by a training step
    assert 1.24e9 * 2 < e.weights_in_flight < (1.3e9 + 3 * 0.2e9) * 2
    assert 4 * GIB < e.activations < 20 * GIB
    assert f"= {e.total / GIB:.1f} GiB" in line and e.total < 80 * GIB


def test_one_gpu_holds_everything_and_says_it_does_not_fit(capsys):
    e = estimate_offline("venus-audio-9b", 1)
    assert e.mode == "none" and e.world == 1 and e.weights_in_flight == e.grads_accumulation == 0
    assert e.weights + e.grads + e.optimizer == 4 * e.params + 12 * e.trainable
    assert cli(["train", "--estimate-memory", "--config", "venus-audio-9b", "--gpus", "1", "--gpu-mem-gb", "80"]) == 0
    assert "exceeds the GPU's memory" in capsys.readouterr().err


def test_estimate_memory_refuses_bad_input(capsys):
    assert cli(["train", "--estimate-memory", "--config", "no-such-config"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "config not found: no-such-config" in err[0]
    with pytest.raises(SystemExit) as exit_:   # refused by argparse (schemas/argtypes), before any work
        cli(["train", "--estimate-memory", "--config", "tiny", "--gpus", "0"])
    assert exit_.value.code == 2 and "argument --gpus: must be >= 1" in capsys.readouterr().err
    assert cli(["train", "--config", "tiny"]) == 2
    assert "--data is required" in capsys.readouterr().err
