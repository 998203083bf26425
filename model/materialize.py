"""Start-up without a full model per rank: meta-device skeleton, per-shard init, rank-0 weights.

Why: a 9B DuplexModel is ~35 GB in fp32. Building it whole on every rank (CPU or GPU) before
FSDP2 shards it needs that much memory per rank, and with local weights every rank would read the
checkpoint itself. Here:

- `skeleton()` builds the module tree with parameters on the meta device (no memory) and buffers
  real (rotary `inv_freq`, position ids: small, computed by the modules' own code, and not in a
  state_dict, so nothing else could restore them).
- `materialize()` allocates each rank's parameters where they live (`to_empty`: after
  `fully_shard`, only the local shard), puts the buffers back, and with random init fills every
  parameter by `init_parameters`.
- `init_parameters()` is a pure function of (seed, parameter name, shape, device type): each full
  parameter is drawn from its own generator and this rank copies its shard, so a sharded model is
  bit-identical to the same seed's unsharded one on any number of ranks, and only one full
  parameter is ever in memory at a time. Rule (transformers' own for these models): weights
  N(0, 0.02), biases 0, norm scales 1, Whisper's positions its sinusoids.
- `broadcast_full_state()` hands rank 0's full state (the only rank that read the files) to every
  rank's shards with `set_model_state_dict(..., full_state_dict=True, broadcast_from_rank0=True)`,
  one tensor at a time.
- `StartupBytes` records the parameter storage bytes this rank holds at each start-up phase.
"""
from __future__ import annotations

import contextlib
import hashlib
from collections.abc import Iterator
from dataclasses import dataclass, field

import torch
from torch import nn

INIT_STD = 0.02          # transformers' initializer_range / init_std default for Qwen3, Whisper, SigLIP


@contextlib.contextmanager
def skeleton() -> Iterator[None]:
    """Modules built inside get their parameters on the meta device and keep real buffers."""
    register = nn.Module.register_parameter

    def on_meta(module: nn.Module, name: str, param: nn.Parameter | None) -> None:
        if param is not None and not param.is_meta:
            param = nn.Parameter(param.to("meta"), requires_grad=param.requires_grad)
        register(module, name, param)

    nn.Module.register_parameter = on_meta  # type: ignore[method-assign]
    try:
        yield
    finally:
        nn.Module.register_parameter = register  # type: ignore[method-assign]


def saved_buffers(model: nn.Module) -> dict[str, torch.Tensor]:
    """Copies of the real buffers, to restore after `to_empty` (which re-allocates them empty)."""
    return {k: b.detach().clone() for k, b in model.named_buffers() if not b.is_meta}


def param_seed(seed: int, name: str) -> int:
    """The generator seed of one parameter: independent of build order, world size and sharding."""
    return int.from_bytes(hashlib.sha256(f"{seed}:{name}".encode()).digest()[:8], "little") & (2**63 - 1)


def _full_value(owner: nn.Module, pname: str, fqn: str, shape: torch.Size, dtype: torch.dtype,
                device: torch.device, seed: int) -> torch.Tensor:
    if fqn.endswith("embed_positions.weight") and type(owner).__name__ == "Embedding" and fqn.startswith("audio."):
        from transformers.models.whisper.modeling_whisper import sinusoids

        return sinusoids(shape[0], shape[1]).to(device=device, dtype=dtype)
    if "Norm" in type(owner).__name__:
        return (torch.ones if pname == "weight" else torch.zeros)(shape, dtype=dtype, device=device)
    if pname == "bias" or pname.endswith("_bias"):
        return torch.zeros(shape, dtype=dtype, device=device)
    g = torch.Generator(device=device).manual_seed(param_seed(seed, fqn))
    return torch.empty(shape, dtype=dtype, device=device).normal_(0.0, INIT_STD, generator=g)


@torch.no_grad()
def init_parameters(model: nn.Module, seed: int, track: StartupBytes | None = None) -> None:
    """Fill every (materialised, possibly FSDP2-sharded) parameter from its own seeded draw."""
    from torch.distributed.tensor import DTensor, distribute_tensor

    owners = {f"{m}.{n}" if m else n: (mod, n) for m, mod in model.named_modules()
              for n, _ in mod.named_parameters(recurse=False)}
    for fqn, p in model.named_parameters():
        owner, pname = owners[fqn]
        local = p.to_local() if isinstance(p, DTensor) else p
        full = _full_value(owner, pname, fqn, p.shape, p.dtype, local.device, seed)
        if track is not None:
            track.transient(full.numel() * full.element_size())
        if isinstance(p, DTensor):   # this rank's shard of the full draw (split here, no communication)
            local.copy_(distribute_tensor(full, p.device_mesh, p.placements, src_data_rank=None).to_local())
        else:
            p.copy_(full)
        del full


def materialize(model: nn.Module, device: torch.device, buffers: dict[str, torch.Tensor]) -> None:
    """Allocate the (local shards of the) parameters on `device` and restore the saved buffers."""
    model.to_empty(device=device)
    with torch.no_grad():
        for k, b in model.named_buffers():
            if k in buffers:
                b.copy_(buffers[k].to(b.device))


def broadcast_full_state(model: nn.Module, full: dict[str, torch.Tensor] | None) -> None:
    """Rank 0 gives `full` (its unsharded state_dict); every rank receives into its own shards."""
    from torch.distributed.checkpoint.state_dict import StateDictOptions, set_model_state_dict

    set_model_state_dict(model, full or {}, options=StateDictOptions(full_state_dict=True,
                                                                     broadcast_from_rank0=True))


def storage_bytes(*modules: nn.Module | None) -> int:
    """Bytes of the distinct non-meta storages behind these modules' parameters (local shards only)."""
    from torch.distributed.tensor import DTensor

    seen: dict[int, int] = {}
    for m in modules:
        if m is None:
            continue
        for p in m.parameters():
            t = p.to_local() if isinstance(p, DTensor) else p
            if t.is_meta:
                continue
            s = t.untyped_storage()
            seen[s.data_ptr()] = s.nbytes()
    return sum(seen.values())


@dataclass
class StartupBytes:
    """Parameter bytes this rank holds at each start-up phase; `peak` is the most at any one time.

    A phase's figure is the storage of every model built so far on this rank (the sharded target
    and, on rank 0 with local weights, the full source model) plus the largest temporary made
    while initialising (one full parameter)."""

    phases: dict[str, int] = field(default_factory=dict)
    _transient: int = 0

    def transient(self, nbytes: int) -> None:
        self._transient = max(self._transient, nbytes)

    def record(self, phase: str, *modules: nn.Module | None) -> None:
        self.phases[phase] = storage_bytes(*modules) + self._transient
        self._transient = 0

    @property
    def peak(self) -> int:
        return max(self.phases.values(), default=0)

    def describe(self, device: torch.device) -> str:
        """One line: the peak and the phase it was reached in (and the CUDA allocator's peak on GPU)."""
        gib = 1024 ** 3
        worst = max(self.phases, key=self.phases.__getitem__) if self.phases else "-"
        line = f"parameter bytes on rank 0: peak {self.peak / gib:.2f} GiB ({worst})"
        if device.type == "cuda":
            line += f"; CUDA peak allocated {torch.cuda.max_memory_allocated(device) / gib:.2f} GiB"
        return line
