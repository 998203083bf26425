"""The training loop: torchrun / Ray Train, FSDP2, AdamW + warmup-cosine, exact resume.

- Launch: one process (CPU or one GPU), `torchrun` (`--nproc-per-node N` re-executes under
  torch.distributed.run; multi-node torchrun works as usual), or Ray Train (`TorchTrainer`) with
  `--ray-address` / `--ray-workers`, where Ray builds the process group.
- Parallelism: with more than one process (or `fsdp: on`), FSDP2 `fully_shard` on every decoder
  layer, every encoder layer and the root; bf16 compute with fp32 reduction on GPU, fp32 on CPU
  (gloo). With more than one process and `fsdp: off`, DistributedDataParallel: every rank holds
  the whole model and gradients are all-reduced, so every rank ends each step with the same weights.
  Activation checkpointing (non-reentrant) per layer; the loss is chunked (model/modeling.py).
- Steps: grad_accum micro-batches, gradients reduced once, after the last (`defer_grad_sync`); the
  loss is the class-weighted sum of token losses over the whole global batch divided by its
  weighted target-token count (all-reduced first), so the number of ranks and micro-batches does
  not change the objective. Gradient clipping, then AdamW with warmup + cosine decay; the learning
  rate is a pure function of the step, so nothing about it needs restoring.
- Validation (`val_every`): the weighted loss on the export's val split, every rank a strided share.
- Start-up (model/materialize.py): a meta-device skeleton sharded before any parameter exists,
  then per-shard random init, or rank 0's local weights broadcast into every rank's shards.
- A memory estimate (model/memory.py) is printed at start, next to the device's memory.
- Checkpoints (`OUT/checkpoints/step-XXXXXXXX/`): sharded model + optimizer via
  torch.distributed.checkpoint, `trainer_state.json` (step, data cursor: samples consumed, epoch,
  epoch seed, next shard and row), per-rank RNG states, and the resolved config and protocol
  beside them. Written to `*.tmp` and renamed, then `OUT/checkpoints/latest` is updated; `--resume
  auto` picks it up. `OUT/metrics.jsonl` gets one JSON line per step (train loss, per-class losses,
  and the val losses on validation steps; truncated to the resumed step on resume, so it always
  reads as one run), plus TensorBoard / W&B per `train.loggers` (model/experiment_log.py).
"""
from __future__ import annotations

import argparse
import contextlib
import json
import math
import os
import pickle
import random
import shutil
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

import numpy as np
import torch
import torch.distributed as dist

from model.config import (PARALLEL_DDP, PARALLEL_FSDP, ModelConfig, RunSpec, dump_run_spec, load_run_spec,
                          parallel_mode, read_yaml_mapping)
from model.dataset import DataError, MicroBatches, TrainSplit, collate, make_loader, resolve_split_dir
from model.experiment_log import ExperimentLog, check_loggers
from model.materialize import StartupBytes
from model.memory import describe_device_memory, estimate_memory, format_estimate
from model.modeling import DuplexModel, count_parameters
from model.protocol import LOSS_CLASSES, ProtocolVocab
from schemas.bounds import reachable
from schemas.errors import UsageError
from schemas.safe_paths import UnsafePath, contained

CKPT_DIR = "checkpoints"


class TrainError(UsageError, RuntimeError):
    """A run that cannot start or continue; the message says why."""


# ----------------------------------------------------------------------------- process setup
@dataclass
class Env:
    rank: int = 0
    world: int = 1
    local_rank: int = 0
    device: torch.device = torch.device("cpu")

    @property
    def distributed(self) -> bool:
        return dist.is_available() and dist.is_initialized()

    @property
    def main(self) -> bool:
        return self.rank == 0


def setup_env(device: torch.device | None = None) -> Env:
    """Join the process group torchrun or Ray prepared (if any) and pick the device."""
    if torch.cuda.is_available():
        os.environ.setdefault("CUBLAS_WORKSPACE_CONFIG", ":4096:8")   # deterministic cuBLAS
    if not dist.is_initialized() and int(os.environ.get("WORLD_SIZE", "1")) > 1:
        backend = "nccl" if torch.cuda.is_available() else "gloo"
        if torch.cuda.is_available():
            torch.cuda.set_device(int(os.environ.get("LOCAL_RANK", "0")))
        dist.init_process_group(backend)
    rank = dist.get_rank() if dist.is_initialized() else 0
    world = dist.get_world_size() if dist.is_initialized() else 1
    local = int(os.environ.get("LOCAL_RANK", "0"))
    if device is None:
        device = torch.device("cuda", torch.cuda.current_device() if dist.is_initialized() else local) \
            if torch.cuda.is_available() else torch.device("cpu")
    return Env(rank, world, local, device)


def seed_everything(seed: int, rank: int, deterministic: bool) -> None:
    random.seed(seed + rank)
    np.random.seed((seed + rank) % 2**32)
    torch.manual_seed(seed)            # same init on every rank
    if deterministic:
        torch.use_deterministic_algorithms(True, warn_only=True)
        torch.backends.cudnn.benchmark = False


def _all_sum(x: torch.Tensor, env: Env) -> torch.Tensor:
    if env.distributed:
        dist.all_reduce(x, op=dist.ReduceOp.SUM)
    return x


def _barrier(env: Env) -> None:
    if env.distributed:
        dist.barrier()


# ----------------------------------------------------------------------------- model setup
def use_bf16(spec: RunSpec, env: Env) -> bool:
    p = spec.train.precision
    if p == "bf16" and env.device.type != "cuda":
        raise TrainError("precision bf16 is for GPUs; on CPU use precision fp32 or auto")
    return p == "bf16" or (p == "auto" and env.device.type == "cuda")


def reads_weights(spec: RunSpec) -> bool:
    """Whether the model starts from local weight files (any component `path` or `init_from`)."""
    m = spec.model
    return (any(c is not None and c.path for c in (m.llm, m.audio, m.vision)) or m.init_from is not None
            or (m.speech_decoder is not None and m.speech_decoder.path is not None))


def _source_model(spec: RunSpec, vocab: ProtocolVocab, env: Env) -> DuplexModel:
    """The full model on the CPU with the local weights read: built by rank 0 only (or the one process)."""
    torch.manual_seed(spec.train.seed)
    model = DuplexModel(spec.model, vocab)
    if spec.model.init_from is not None:
        from model.minicpmo_weights import load_init_from

        init = spec.model.init_from
        # the TTS decoder / resampler have no module here yet: not read at all
        rep = load_init_from(model, init.kind, init.path, keep_aside=False)
        aside = sorted(rep.aside)
        _log(env, f"init_from {init.kind} {init.path}: {len(rep.loaded)} tensors loaded "
                  f"({len(rep.row_copied)} by leading vocabulary rows), {len(rep.kept_init)} kept at init, "
                  f"{len(rep.skipped)} skipped, not read (no module yet): {aside}")
        del rep
    return model


def build_model(spec: RunSpec, vocab: ProtocolVocab, env: Env,
                startup: StartupBytes | None = None) -> tuple[torch.nn.Module, str]:
    """The DuplexModel, FSDP2-sharded or DDP-wrapped per `parallel_mode`. Returns (model, mode).

    No rank builds the full model unless it has to (model/materialize.py): the module tree is a
    meta-device skeleton, sharded first, then each rank allocates its own shards. Random init
    fills them by `init_parameters` (a function of the seed and each parameter's name, so every
    world size and device count gives the same weights). With local weights only rank 0 (or the
    one process) reads the files, into a full fp32 CPU model, and its state reaches the other
    ranks' shards by broadcast (FSDP2: `set_model_state_dict`; DDP: the wrapper's own broadcast).
    `startup` receives this rank's parameter bytes per phase.
    """
    from model.materialize import (broadcast_full_state, init_parameters, materialize, saved_buffers,
                                   skeleton)

    startup = startup if startup is not None else StartupBytes()
    mode = parallel_mode(spec, env.world)
    if mode == PARALLEL_FSDP and not env.distributed:
        raise TrainError("fsdp: on needs a process group (run under torchrun or Ray, or set fsdp: auto)")
    weights = reads_weights(spec)
    source = _source_model(spec, vocab, env) if weights and env.main else None
    if source is not None:
        startup.record("read weights (full model, CPU)", source)
    if spec.model.speech_decoder is not None and not spec.model.speech_decoder.path and not weights:
        _log(env, "speech decoder: random init (no model.speech_decoder.path; a checkpoint load replaces it); "
                  "it is frozen, so it speaks only once trained weights are given")
    if source is not None and mode != PARALLEL_FSDP:
        model = source           # the one process, or DDP's rank 0 (whose weights DDP broadcasts)
        source = None
    else:
        with skeleton():
            model = DuplexModel(spec.model, vocab, read_weights=False)
        buffers = saved_buffers(model)
        startup.record("skeleton (meta)", model, source)
    if spec.train.activation_checkpointing:
        model.enable_activation_checkpointing()
    if mode == PARALLEL_FSDP:
        from torch.distributed.device_mesh import init_device_mesh
        from torch.distributed.fsdp import MixedPrecisionPolicy, fully_shard

        mesh = init_device_mesh(env.device.type, (env.world,))
        mp = MixedPrecisionPolicy(param_dtype=torch.bfloat16, reduce_dtype=torch.float32) \
            if use_bf16(spec, env) else MixedPrecisionPolicy()
        for layer in model.encoder_layers() + model.decoder_layers():
            fully_shard(layer, mesh=mesh, mp_policy=mp)
        if model.speech_decoder is not None:   # frozen, its own group: never gathered by a training step
            fully_shard(model.speech_decoder, mesh=mesh, mp_policy=mp)
        fully_shard(model, mesh=mesh, mp_policy=mp)
    if any(p.is_meta for p in model.parameters()):
        materialize(model, env.device, buffers)
        startup.record("materialised (own shards)", model, source)
        if not weights:
            init_parameters(model, spec.train.seed, track=startup)
            startup.record("initialised", model, source)
        elif mode == PARALLEL_FSDP:
            broadcast_full_state(model, source.state_dict() if source is not None else None)
            startup.record("weights broadcast from rank 0", model, source)
        del source
    model.to(env.device)
    startup.record("ready", model)
    if mode == PARALLEL_DDP:
        from torch.nn.parallel import DistributedDataParallel

        # DDP broadcasts rank 0's weights here; gradients live in the all-reduce buckets (no second copy).
        # A vision tower leaves parameters without gradient (SigLIP's pooling head; all of it on a
        # batch without frames), which DDP must be told to look for.
        model = DistributedDataParallel(model, device_ids=[env.device.index] if env.device.type == "cuda" else None,
                                        gradient_as_bucket_view=True, find_unused_parameters=model.vision is not None)
    return model, mode


@contextlib.contextmanager
def grad_sync(model: torch.nn.Module, mode: str, sync: bool):
    """Reduce gradients in this backward pass only when `sync` (the last micro-batch of a step)."""
    if mode == PARALLEL_FSDP:
        model.set_requires_gradient_sync(sync)
        yield
    elif mode == PARALLEL_DDP and not sync:
        with model.no_sync():
            yield
    else:
        yield


def build_optimizer(model: torch.nn.Module, spec: RunSpec, env: Env) -> torch.optim.Optimizer:
    """AdamW; no weight decay on norms, biases and 1-D parameters."""
    decay, no_decay = [], []
    for name, p in model.named_parameters():
        if not p.requires_grad:
            continue
        (no_decay if p.ndim < 2 or "norm" in name.lower() else decay).append(p)
    t = spec.train
    groups = [{"params": decay, "weight_decay": t.weight_decay}, {"params": no_decay, "weight_decay": 0.0}]
    kw: dict[str, Any] = {"lr": t.lr, "betas": tuple(t.betas), "eps": t.eps}
    if env.device.type == "cuda":
        kw["fused"] = True
    return torch.optim.AdamW(groups, **kw)


def lr_at(step: int, spec: RunSpec) -> float:
    """Linear warmup to lr over warmup_steps, then cosine down to min_lr_ratio * lr at max_steps."""
    t = spec.train
    if t.warmup_steps and step <= t.warmup_steps:
        return t.lr * step / t.warmup_steps
    span = max(1, t.max_steps - t.warmup_steps)
    progress = min(1.0, (step - t.warmup_steps) / span)
    return t.lr * (t.min_lr_ratio + (1 - t.min_lr_ratio) * 0.5 * (1 + math.cos(math.pi * progress)))


# ----------------------------------------------------------------------------- checkpoints
RNG_FORMAT = 1


def _rng_state() -> dict[str, Any]:
    """This process's RNG states as plain values and tensors only, so `weights_only=True` loads them."""
    version, mt, gauss = random.getstate()
    kind, keys, pos, has_gauss, cached = np.random.get_state()
    s: dict[str, Any] = {
        "format": RNG_FORMAT,
        "python": {"version": int(version), "state": torch.tensor(mt, dtype=torch.int64), "gauss_next": gauss},
        "numpy": {"kind": str(kind), "keys": torch.from_numpy(np.asarray(keys, dtype=np.int64)), "pos": int(pos),
                  "has_gauss": int(has_gauss), "cached_gaussian": float(cached)},
        "torch": torch.get_rng_state(),
    }
    if torch.cuda.is_available():
        s["cuda"] = torch.cuda.get_rng_state()
    return s


def _load_rng_state(path: Path) -> dict[str, Any]:
    """Read an RNG file with `weights_only=True`: a checkpoint folder is data, never code to run."""
    try:
        s = torch.load(path, weights_only=True)
    except Exception as err:  # noqa: BLE001 - torch raises UnpicklingError, RuntimeError, EOFError, ...
        why = str(err).splitlines()[0] if str(err) else type(err).__name__
        raise TrainError(f"{path}: refusing to load this RNG state file: it is not plain tensors and values "
                         f"({why}); delete the checkpoint or resume from another one") from None
    ok = (isinstance(s, dict) and s.get("format") == RNG_FORMAT and isinstance(s.get("python"), dict)
          and isinstance(s.get("numpy"), dict) and isinstance(s.get("torch"), torch.Tensor))
    if not ok:
        raise TrainError(f"{path}: not an RNG state file of this trainer (format {RNG_FORMAT}); "
                         "delete the checkpoint or resume from another one")
    return s


def _set_rng_state(s: dict[str, Any]) -> None:
    py, npy = s["python"], s["numpy"]
    random.setstate((py["version"], tuple(int(x) for x in py["state"].tolist()), py["gauss_next"]))
    np.random.set_state((npy["kind"], npy["keys"].numpy().astype(np.uint32), npy["pos"], npy["has_gauss"],
                         npy["cached_gaussian"]))
    torch.set_rng_state(s["torch"])
    if "cuda" in s and torch.cuda.is_available():
        torch.cuda.set_rng_state(s["cuda"])


def _atomic_text(path: Path, text: str) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text)
    tmp.replace(path)


@contextlib.contextmanager
def _quiet_single_process():
    """DCP warns on every single-process save/load even when asked for exactly that (no_dist=True)."""
    import warnings

    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="torch.distributed is disabled, unavailable or uninitialized")
        yield


def save_checkpoint(out: Path, step: int, model: torch.nn.Module, opt: torch.optim.Optimizer, spec: RunSpec,
                    state: dict[str, Any], protocol_path: Path, env: Env) -> Path:
    """Sharded model + optimizer (DCP), trainer state, RNG, config and protocol; atomic rename."""
    import torch.distributed.checkpoint as dcp
    from torch.distributed.checkpoint.state_dict import get_state_dict

    root = out / CKPT_DIR
    final = root / f"step-{step:08d}"
    tmp = root / f"step-{step:08d}.tmp"
    if env.main:
        if tmp.exists():
            shutil.rmtree(tmp)
        tmp.mkdir(parents=True)
    _barrier(env)
    msd, osd = get_state_dict(model, opt)
    with _quiet_single_process():
        dcp.save({"model": msd, "optim": osd}, checkpoint_id=str(tmp), no_dist=not env.distributed)
    torch.save(_rng_state(), tmp / f"rng-rank{env.rank:05d}.pt")
    _barrier(env)
    if env.main:
        (tmp / "config.yaml").write_text(dump_run_spec(spec))
        shutil.copyfile(protocol_path, tmp / "protocol.json")
        (tmp / "trainer_state.json").write_text(json.dumps(state, indent=2))
        if final.exists():
            shutil.rmtree(final)
        tmp.rename(final)
        _atomic_text(root / "latest", final.name + "\n")
        done = sorted(p for p in root.glob("step-*") if p.is_dir() and not p.name.endswith(".tmp"))
        for old in done[: -spec.train.keep_checkpoints]:
            shutil.rmtree(old, ignore_errors=True)
    _barrier(env)
    return final


def find_resume(out: Path, resume: str | None) -> Path | None:
    """`auto`: the latest complete checkpoint under OUT (or None); a path: that checkpoint."""
    if not resume:
        return None
    if resume != "auto":
        p = Path(resume)
        if not (p / "trainer_state.json").is_file():
            raise TrainError(f"--resume {p}: not a complete checkpoint (no trainer_state.json)")
        return p
    root = out / CKPT_DIR
    latest = root / "latest"
    if latest.is_file():
        p = root / latest.read_text().strip()
        if (p / "trainer_state.json").is_file():
            return p
    done = sorted(p for p in root.glob("step-*") if (p / "trainer_state.json").is_file())
    return done[-1] if done else None


# torch.distributed.checkpoint reads `.metadata` with a bare pickle.load and non-tensor items with
# torch.load(weights_only=False): either runs whatever code a run folder holds. `_dcp_load` replaces
# exactly those reads: the metadata unpickler admits only DCP's own metadata classes and dtypes, and
# the items load with weights_only=True.
_DCP_METADATA_MODULES = ("torch.distributed.checkpoint.metadata",)
_DCP_METADATA_GLOBALS = {("torch", "Size"), ("torch.serialization", "_get_layout"),
                         ("torch.distributed.checkpoint.filesystem", "_StorageInfo"),
                         ("pathlib", "PosixPath"), ("pathlib", "PurePosixPath"), ("pathlib", "WindowsPath"),
                         ("pathlib", "PureWindowsPath"), ("collections", "OrderedDict")}


class _MetadataUnpickler(pickle.Unpickler):
    """Unpickles a DCP `.metadata` file, refusing any global that is not DCP metadata or a dtype."""

    def find_class(self, module: str, name: str) -> Any:
        if "." not in name:      # a dotted name would reach through attributes (metadata.os.system)
            if module == "torch" and isinstance(getattr(torch, name, None), torch.dtype):
                return getattr(torch, name)
            if (module, name) in _DCP_METADATA_GLOBALS:
                return super().find_class(module, name)
            if module in _DCP_METADATA_MODULES:
                obj = super().find_class(module, name)
                if isinstance(obj, type) and obj.__module__ == module:   # its own classes, not its imports
                    return obj
        raise pickle.UnpicklingError(f"global {module}.{name} is not checkpoint metadata")


def _read_metadata(path: Path) -> Any:
    """The checkpoint's `.metadata`, through `_MetadataUnpickler`; a refusal names the file."""
    from torch.distributed.checkpoint.metadata import Metadata

    meta_path = path / ".metadata"
    with open(meta_path, "rb") as f:
        try:
            metadata = _MetadataUnpickler(f).load()
        except (pickle.UnpicklingError, EOFError, AttributeError, ImportError, TypeError, ValueError) as err:
            raise TrainError(f"{meta_path}: refusing to load this checkpoint metadata: it is not plain "
                             f"checkpoint metadata ({err}); delete the checkpoint or resume from another one") \
                from None
    if not isinstance(metadata, Metadata):
        raise TrainError(f"{meta_path}: not checkpoint metadata (it holds a {type(metadata).__name__}); "
                         "delete the checkpoint or resume from another one")
    for index, info in (getattr(metadata, "storage_data", None) or {}).items():
        # DCP opens path / relative_path as written: '../../x.distcp' would load weights from anywhere
        rel = getattr(info, "relative_path", None)
        try:
            contained(path, rel, f"{meta_path}: relative_path of {getattr(index, 'fqn', index)}")
        except UnsafePath as err:
            raise TrainError(f"{err}; delete the checkpoint or resume from another one") from None
    return metadata


def _dcp_load(sd: dict[str, Any], path: Path, env: Env) -> None:
    """dcp.load with the metadata read by `_read_metadata` and non-tensor items loaded weights_only."""
    import torch.distributed.checkpoint as dcp
    from torch.distributed.checkpoint import DefaultLoadPlanner, FileSystemReader
    from torch.distributed.checkpoint._traverse import set_element
    from torch.distributed.checkpoint.api import CheckpointException
    from torch.distributed.checkpoint.metadata import Metadata, StorageMeta

    metadata = _read_metadata(path)   # before DCP, which would wrap our refusal in its own exception

    class SafeReader(FileSystemReader):
        def read_metadata(self, *args: Any, **kwargs: Any) -> Metadata:
            if kwargs.get("rank") is not None:
                raise FileNotFoundError(f"{path}: per-rank metadata is not used by this trainer")
            if getattr(metadata, "storage_meta", None) is None:
                metadata.storage_meta = StorageMeta()
            metadata.storage_meta.load_id = self.load_id
            return metadata

    class SafePlanner(DefaultLoadPlanner):
        def load_bytes(self, read_item: Any, value: Any) -> None:
            fqn = read_item.dest_index.fqn
            try:
                obj = torch.load(value, weights_only=True)
            except Exception as err:  # noqa: BLE001 - UnpicklingError, RuntimeError, ...
                why = str(err).splitlines()[0] if str(err) else type(err).__name__
                raise TrainError(f"{path}: refusing to load checkpoint item {fqn}: it is not plain tensors and "
                                 f"values ({why}); delete the checkpoint or resume from another one") from None
            if self.flatten_state_dict:
                set_element(self.original_state_dict, self.mappings[fqn], obj)
            else:
                self.state_dict[fqn] = obj

    try:
        with _quiet_single_process():
            dcp.load(sd, storage_reader=SafeReader(str(path)), planner=SafePlanner(), no_dist=not env.distributed)
    except CheckpointException as err:   # a BaseException: surface our own refusal, if that is what it wraps
        failures = list(err.failures.values())
        for exc, _trace in failures:
            if isinstance(exc, TrainError):
                raise exc from None
        # a truncated or corrupt .distcp/.metadata: name the checkpoint and the first reason, one line
        exc = failures[0][0] if failures else err
        why = (str(exc).splitlines() or [""])[0]
        raise TrainError(f"{path}: checkpoint cannot be loaded ({type(exc).__name__}{': ' + why if why else ''}); it is truncated "
                         "or corrupt: delete it or resume from another one") from None


def load_checkpoint(path: Path, model: torch.nn.Module, opt: torch.optim.Optimizer | None, env: Env) -> dict[str, Any]:
    """Weights (+ optimizer), this rank's RNG and the trainer state; no file in `path` can run code."""
    from torch.distributed.checkpoint.state_dict import get_state_dict, set_state_dict

    rng = path / f"rng-rank{env.rank:05d}.pt"
    rng_state = _load_rng_state(rng) if rng.is_file() else None   # refuse a bad file before any work
    if opt is None:
        from torch.distributed.checkpoint.state_dict import get_model_state_dict, set_model_state_dict

        sd = {"model": get_model_state_dict(model)}
        _dcp_load(sd, path, env)
        set_model_state_dict(model, sd["model"])
    else:
        msd, osd = get_state_dict(model, opt)
        sd = {"model": msd, "optim": osd}
        _dcp_load(sd, path, env)
        set_state_dict(model, opt, model_state_dict=sd["model"], optim_state_dict=sd["optim"])
    if rng_state is not None:
        _set_rng_state(rng_state)
    return json.loads((path / "trainer_state.json").read_text())


# ----------------------------------------------------------------------------- the loop
@dataclass
class TrainArgs:
    config: str
    data: str
    out: str
    resume: str | None = None
    max_steps: int | None = None
    save_every: int | None = None
    hang_after_step: int | None = None   # test hook: stop making progress after this step (to be killed)

    @classmethod
    def from_namespace(cls, ns: argparse.Namespace) -> "TrainArgs":
        return cls(config=ns.config, data=ns.data, out=ns.out, resume=ns.resume, max_steps=ns.max_steps,
                   save_every=ns.save_every, hang_after_step=getattr(ns, "hang_after_step", None))


def _log(env: Env, msg: str) -> None:
    if env.main:
        print(msg, file=sys.stderr, flush=True)


def _to(batch: dict[str, Any], device: torch.device) -> dict[str, Any]:
    return {k: (v.to(device, non_blocking=True) if isinstance(v, torch.Tensor) else v) for k, v in batch.items()}


def _truncate_metrics(path: Path, step: int) -> None:
    if not path.is_file():
        return
    keep = [ln for ln in path.read_text().splitlines() if ln.strip() and json.loads(ln).get("step", 0) <= step]
    _atomic_text(path, "".join(k + "\n" for k in keep))


@dataclass
class TrainHooks:
    """Access to the live model for tests and tools: once it is wrapped (before the first step) and
    after the last step. Nothing in training depends on them."""

    on_built: Callable[[torch.nn.Module, str], None] | None = None
    on_done: Callable[[torch.nn.Module, str], None] | None = None


def _class_counts(mb: dict[str, Any]) -> torch.Tensor:
    """Target tokens per loss class in one micro-batch (targets are positions 1.., as in forward)."""
    cls = mb["loss_class"][:, 1:].long()
    return torch.bincount(cls[cls >= 0], minlength=len(LOSS_CLASSES)).double()


def _class_metrics(prefix: str, loss: torch.Tensor, count: torch.Tensor) -> dict[str, Any]:
    """`{prefix}loss_<class>` (mean token loss) and `{prefix}loss_tokens_<class>` for every class present."""
    out: dict[str, Any] = {}
    for c, l, n in zip(LOSS_CLASSES, loss.tolist(), count.tolist()):
        if n:
            out[f"{prefix}loss_{c}"] = l / n
            out[f"{prefix}loss_tokens_{c}"] = int(n)
    return out


def open_val_split(data: str | Path, spec: RunSpec, image_size: int | None) -> TrainSplit:
    """The export's val split beside the train split `data` points at (TRAIN_DIR or TRAIN_DIR/train)."""
    try:
        return TrainSplit(resolve_split_dir(data).parent, max_seq_len=spec.train.max_seq_len, seed=spec.train.seed, split="val",
                          image_size=image_size, recipe=spec.model.recipe)
    except DataError as err:
        raise TrainError(f"train.val_every is set but the export has no usable val split ({err}); export with "
                         "--val-fraction > 0 or unset val_every") from None


@torch.no_grad()
def validation_loss(model: torch.nn.Module, val: TrainSplit, spec: RunSpec, env: Env,
                    bf16_autocast: bool) -> dict[str, Any]:
    """Weighted loss (as in training) and per-class losses over the distinct val samples.

    Rank r evaluates samples r, r + world, ...; every rank runs the same number of forward passes
    (FSDP gathers weights collectively), a rank past the end repeating sample 0 and counting nothing.
    """
    items = list(dict.fromkeys(val.items))            # distinct, in split order
    if spec.train.val_max_samples is not None:
        items = items[:spec.train.val_max_samples]
    weights = torch.tensor(spec.model.loss_weights.as_list(), dtype=torch.float64, device=env.device)
    loss = torch.zeros(len(LOSS_CLASSES), dtype=torch.float64, device=env.device)
    count = torch.zeros(len(LOSS_CLASSES), dtype=torch.float64, device=env.device)
    was_training = model.training
    model.eval()
    rounds = -(-len(items) // env.world)
    for k in range(rounds):
        i = k * env.world + env.rank
        b = _to(collate([val.load(items[i if i < len(items) else 0])]), env.device)
        ctx = torch.autocast("cuda", dtype=torch.bfloat16) if bf16_autocast else contextlib.nullcontext()
        with ctx:
            out = model(**b)
        if i < len(items):
            loss += out.class_loss
            count += out.class_count.double()
    model.train(was_training)
    loss, count = _all_sum(loss, env), _all_sum(count, env)
    denom = float((weights * count).sum())
    rec = {"val_loss": float((weights * loss).sum()) / denom if denom else float("nan"), "val_samples": len(items)}
    rec.update(_class_metrics("val_", loss, count))
    return rec


def train(args: TrainArgs, reporter: Callable[[dict[str, Any], Path | None], None] | None = None,
          device: torch.device | None = None, hooks: TrainHooks | None = None) -> dict[str, Any]:
    """Run (or continue) training; returns a summary. Works alone, under torchrun and under Ray."""
    overrides = {"max_steps": args.max_steps, "save_every": args.save_every}
    spec = load_run_spec(args.config, overrides)
    t = spec.train
    check_loggers(t.loggers)   # a logger that cannot run here is refused before anything starts
    hooks = hooks or TrainHooks()
    env = setup_env(device)
    if env.device.type == "cpu" and t.cpu_threads:
        torch.set_num_threads(t.cpu_threads)   # fixed threads: same numerics everywhere, no oversubscription
    seed_everything(t.seed, env.rank, t.deterministic)
    out = Path(args.out).resolve()
    if env.main:
        out.mkdir(parents=True, exist_ok=True)
    _barrier(env)

    image_size = spec.model.vision.config.get("image_size") if spec.model.vision and spec.model.vision.config else None
    if spec.model.vision and image_size is None:
        image_size = 384
    split = TrainSplit(args.data, max_seq_len=t.max_seq_len, seed=t.seed, shuffle_shard_group=t.shuffle_shard_group,
                       image_size=image_size, recipe=spec.model.recipe)
    val = open_val_split(args.data, spec, image_size) if t.val_every else None
    protocol_path = split.dir / split.info["tokenizer"]
    vocab = split.vocab
    _check_layout(spec, split)
    startup = StartupBytes()
    model, mode = build_model(spec, vocab, env, startup)
    opt = build_optimizer(model, spec, env)
    params = count_parameters(model.module if mode == PARALLEL_DDP else model)
    if env.main:
        est = estimate_memory(spec, model.module if mode == PARALLEL_DDP else model, world=env.world, mode=mode,
                              bf16=use_bf16(spec, env))
        _log(env, format_estimate(est) + f"; {describe_device_memory(env.device)}")
        _log(env, "start-up " + startup.describe(env.device))
    if hooks.on_built:
        hooks.on_built(model, mode)

    start_step, consumed = 0, 0
    ckpt = find_resume(out, args.resume)
    if ckpt is not None:
        _check_resumable(ckpt, spec, protocol_path)
        state = load_checkpoint(ckpt, model, opt, env)
        start_step = int(state["step"])
        consumed = split.check_cursor(state["cursor"])
        if int(state.get("world_size", env.world)) != env.world:
            _log(env, f"note: resuming a {state['world_size']}-process run on {env.world} processes; "
                      "the sample order continues, per-rank RNG is re-seeded")
        _log(env, f"resumed from {ckpt} at step {start_step} ({consumed} samples consumed)")
    metrics_path = out / "metrics.jsonl"
    if env.main:
        _truncate_metrics(metrics_path, start_step)
    if start_step >= t.max_steps:
        _log(env, f"nothing to do: step {start_step} >= max_steps {t.max_steps}")
        return {"step": start_step, "out": str(out), "checkpoint": str(ckpt) if ckpt else None}

    log = ExperimentLog(spec, out, start_step, active=env.main)
    ds = MicroBatches(split, consumed, t.max_steps - start_step, world=env.world, rank=env.rank,
                      micro_batch_size=t.micro_batch_size, grad_accum=t.grad_accum)
    loader = iter(make_loader(ds, t.loader_workers))
    per_step = ds.samples_per_step()
    bf16_autocast = use_bf16(spec, env) and mode != PARALLEL_FSDP
    weights = torch.tensor(spec.model.loss_weights.as_list(), dtype=torch.float64, device=env.device)
    _log(env, f"training {spec.name} on {env.world} process(es), {env.device}, fsdp={mode == PARALLEL_FSDP}, "
              f"parallel={mode}, params={params['total']}, {len(split)} samples/epoch, "
              f"{per_step} samples/step, steps {start_step + 1}..{t.max_steps}"
              + (f", val every {t.val_every} steps" if val else ""))
    last_ckpt: Path | None = ckpt
    summary: dict[str, Any] = {}
    model.train()
    for step in range(start_step + 1, t.max_steps + 1):
        t0 = time.perf_counter()
        mbs = [next(loader) for _ in range(t.grad_accum)]
        counts = sum(_class_counts(mb) for mb in mbs)
        local = torch.cat([counts.to(env.device),
                           torch.tensor([float(sum(int(mb["attention_mask"].sum()) for mb in mbs)),
                                         float(sum(mb["num_units"] for mb in mbs))],
                                        dtype=torch.float64, device=env.device)])
        glob = _all_sum(local, env)
        g_counts, (n_tok, n_units) = glob[:len(LOSS_CLASSES)], glob[len(LOSS_CLASSES):].tolist()
        n_loss = float(g_counts.sum())
        denom = float((weights * g_counts).sum())
        if denom == 0:
            raise TrainError(f"step {step}: the global batch has no loss-bearing tokens with a weight > 0")
        class_loss = torch.zeros(len(LOSS_CLASSES), dtype=torch.float64, device=env.device)
        for a, mb in enumerate(mbs):
            b = _to(mb, env.device)
            ctx = torch.autocast("cuda", dtype=torch.bfloat16) if bf16_autocast else contextlib.nullcontext()
            with grad_sync(model, mode, sync=a == len(mbs) - 1 or not t.defer_grad_sync):
                with ctx:
                    parts = model(**b)
                (parts.weighted_sum * (env.world / denom)).backward()
            class_loss += parts.class_loss
        grad_norm = torch.nn.utils.clip_grad_norm_(model.parameters(), t.grad_clip)
        if hasattr(grad_norm, "full_tensor"):
            grad_norm = grad_norm.full_tensor()
        lr = lr_at(step, spec)
        for g in opt.param_groups:
            g["lr"] = lr
        opt.step()
        opt.zero_grad(set_to_none=True)
        class_loss = _all_sum(class_loss, env)
        loss = float((weights * class_loss).sum()) / denom
        consumed += per_step
        rec = {"step": step, "loss": loss, "lr": lr, "grad_norm": float(grad_norm), "loss_tokens": int(n_loss),
               "tokens": int(n_tok), "units": int(n_units), "samples": per_step}
        rec.update(_class_metrics("", class_loss, g_counts))
        dt = time.perf_counter() - t0
        rec.update(step_s=round(dt, 4), tokens_per_s=round(n_tok / dt, 1), epoch=consumed // len(split),
                   samples_consumed=consumed)
        if not math.isfinite(loss):
            raise TrainError(f"step {step}: loss is {loss}")
        if val is not None and (step % t.val_every == 0 or step == t.max_steps):
            rec.update(validation_loss(model, val, spec, env, bf16_autocast))
            _log(env, f"step {step}/{t.max_steps} val loss {rec['val_loss']:.4f} ({rec['val_samples']} samples)")
        log.write(rec)
        if step % t.log_every == 0 or step == t.max_steps:
            _log(env, f"step {step}/{t.max_steps} loss {loss:.4f} lr {lr:.2e} gnorm {float(grad_norm):.3f} "
                      f"{rec['tokens_per_s']:.0f} tok/s")
        saved: Path | None = None
        if step % t.save_every == 0 or step == t.max_steps:
            state = {"step": step, "cursor": split.cursor(consumed), "world_size": env.world,
                     "micro_batch_size": t.micro_batch_size, "grad_accum": t.grad_accum, "config": spec.name,
                     "data": str(split.dir), "last": rec, "saved_unix": int(time.time())}
            last_ckpt = saved = save_checkpoint(out, step, model, opt, spec, state, protocol_path, env)
            _log(env, f"checkpoint {last_ckpt}")
        if reporter is not None and (step % t.log_every == 0 or step == t.max_steps or saved):
            reporter({**rec, "checkpoint": str(last_ckpt) if last_ckpt else ""}, saved)
        summary = rec
        if args.hang_after_step is not None and step == args.hang_after_step:
            _log(env, f"hang_after_step={step}: waiting to be killed")
            while True:
                time.sleep(3600)
    log.close()
    if hooks.on_done:
        hooks.on_done(model, mode)
    summary.update(out=str(out), checkpoint=str(last_ckpt) if last_ckpt else None)
    return summary


def _check_resumable(ckpt: Path, spec: RunSpec, protocol_path: Path) -> None:
    """Refuse to resume into a different model or a different tokenizer extension."""

    saved = read_yaml_mapping(ckpt / "config.yaml")
    try:   # defaults filled in, so a checkpoint from before a new model field (loss_weights) still resumes
        saved_model = ModelConfig.model_validate(saved.get("model")).model_dump(mode="json")
    except ValueError:
        saved_model = saved.get("model")
    if saved_model != spec.model.model_dump(mode="json"):
        raise TrainError(f"{ckpt} was trained with a different model config than {spec.name}; "
                         "resume with the config stored beside it (config.yaml)")
    if json.loads((ckpt / "protocol.json").read_text())["ids"] != json.loads(protocol_path.read_text())["ids"]:
        raise TrainError(f"{ckpt} used a different tokenizer extension than the data in {protocol_path.parent}")


def _check_layout(spec: RunSpec, split: TrainSplit) -> None:
    """The export's layout must match what the model produces per unit."""
    lay = split.layout
    audio_cfg = spec.model.audio.config or {}
    frames_per_unit = int(round(100 * split.unit_s))
    per_unit = frames_per_unit // 2 // spec.model.audio.pool
    if lay.get("audio_embeds_per_unit") not in (None, per_unit):
        raise TrainError(f"export lays out {lay['audio_embeds_per_unit']} audio embeddings per unit, the model "
                         f"produces {per_unit} (unit_s={split.unit_s}, pool={spec.model.audio.pool})")
    if audio_cfg.get("num_mel_bins", split.n_mels) != split.n_mels:
        raise TrainError(f"export computes {split.n_mels} mel bins, the audio encoder expects {audio_cfg['num_mel_bins']}")
    if lay.get("has_frames"):
        if spec.model.vision is None:
            raise TrainError("the export has video frames (Omni); use an Omni config such as venus-omni-9b")
        if lay.get("image_tokens_per_frame") != spec.model.vision.tokens_per_frame:
            raise TrainError(f"export lays out {lay.get('image_tokens_per_frame')} image tokens per frame, the "
                             f"model pools to {spec.model.vision.tokens_per_frame} (re-export with --image-tokens)")


# ----------------------------------------------------------------------------- launchers
def torchrun_argv(ns: argparse.Namespace, nproc: int) -> list[str]:
    """Re-run this `train` command under torch.distributed.run with `nproc` local processes."""
    argv = [sys.executable, "-m", "torch.distributed.run", "--standalone", f"--nproc-per-node={nproc}",
            "-m", "jobs.cli", "train", "--config", ns.config, "--data", ns.data, "--out", ns.out]
    for flag, val in (("--resume", ns.resume), ("--max-steps", ns.max_steps), ("--save-every", ns.save_every),
                      ("--hang-after-step", getattr(ns, "hang_after_step", None))):
        if val is not None:
            argv += [flag, str(val)]
    return argv


def _ray_loop(config: dict[str, Any]) -> None:
    """Runs in every Ray Train worker; Ray has already created the torch process group."""
    import ray.train
    import ray.train.torch

    def report(rec: dict[str, Any], saved: Path | None) -> None:
        metrics = {k: v for k, v in rec.items() if isinstance(v, (int, float, str))}
        if saved is not None and ray.train.get_context().get_world_rank() == 0:
            # Register our DCP checkpoint with Ray in place: it already sits on the shared OUT
            # folder, so the "upload" returns it unchanged instead of copying ~16 B/param.
            ray.train.report(metrics, checkpoint=ray.train.Checkpoint(str(saved)),
                             checkpoint_upload_fn=lambda ckpt, _name: ckpt,
                             delete_local_checkpoint_after_upload=False)
        else:
            ray.train.report(metrics)

    train(TrainArgs(**config["args"]), reporter=report, device=ray.train.torch.get_device())


def run_ray(args: TrainArgs, *, num_workers: int, address: str | None, use_gpu: bool | None = None) -> dict[str, Any]:
    """Train with Ray Train's TorchTrainer. OUT must be on storage every worker can reach."""
    import ray
    from ray.train import RunConfig, ScalingConfig
    from ray.train.torch import TorchTrainer

    if not ray.is_initialized():
        ray.init(address=address)
    if use_gpu is None:
        use_gpu = ray.cluster_resources().get("GPU", 0) >= num_workers
    out = Path(args.out).resolve()
    payload = {**args.__dict__, "out": str(out), "data": str(Path(args.data).resolve()),
               "config": str(Path(args.config).resolve()) if Path(args.config).is_file() else args.config}
    trainer = TorchTrainer(
        _ray_loop, train_loop_config={"args": payload},
        scaling_config=ScalingConfig(num_workers=num_workers, use_gpu=use_gpu),
        # The experiment folder *is* OUT, so our checkpoints (OUT/checkpoints/...) can be registered
        # with Ray in place; OUT must be storage every worker can reach (NFS, Lustre, ...).
        run_config=RunConfig(name=out.name, storage_path=str(out.parent)),
    )
    result = trainer.fit()
    if result.error:
        raise TrainError(f"Ray Train run failed: {result.error}")
    return {**(result.metrics or {}), "ray_checkpoint": result.checkpoint.path if result.checkpoint else None}


def launch(ns: argparse.Namespace) -> int:
    """Entry point of `duplexsynth train`."""
    import subprocess

    args = TrainArgs.from_namespace(ns)
    try:
        if ns.ray_address:   # Ray retries an address nothing answers at without end: a bounded connect first
            reachable(ns.ray_address, "--ray-address")
        resolve_split_dir(args.data)
        if ns.ray_address or ns.ray_workers:
            m = run_ray(args, num_workers=ns.ray_workers or 2, address=ns.ray_address)
            print(json.dumps({k: m.get(k) for k in ("step", "loss", "checkpoint", "ray_checkpoint")}))
            return 0
        if ns.nproc_per_node > 1 and "LOCAL_RANK" not in os.environ:
            return subprocess.call(torchrun_argv(ns, ns.nproc_per_node))
        summary = train(args)
    except (TrainError, DataError, ValueError) as err:
        print(f"train failed: {err}", file=sys.stderr)
        return 2
    finally:
        if dist.is_initialized():
            dist.destroy_process_group()
    if int(os.environ.get("RANK", "0")) == 0:
        print(json.dumps({k: summary.get(k) for k in ("step", "loss", "checkpoint")}))
    return 0
