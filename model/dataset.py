"""Training-shard reader and collator, with an exactly resumable sample order.

A *sample* is a window of whole units of one exported row (long sessions are cut at unit
boundaries to fit `max_seq_len`), repeated `repeat` times (the export's mix). The sample stream is
the concatenation of epochs; epoch e is a block shuffle seeded by (seed, e): shards are permuted,
then the samples of each group of `shuffle_shard_group` shards are permuted together. So a loader
only holds a few shards in memory, and sample i of the stream is a pure function of (seed, i):
the data cursor is just the number of samples consumed, and resuming reproduces the order exactly
on any number of loader workers.

Per optimizer step the global batch is `world * grad_accum * micro_batch_size` consecutive samples;
micro-step a of rank r takes slice `(a * world + r)`, so one rank with grad_accum 2 sees the same
global batch as two ranks with grad_accum 1.
"""
from __future__ import annotations

import io
import json
import os
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow.parquet as pq
import torch

from model import audio as fe
from model.config import RECIPE_UNIFIED, RECIPE_VENUS
from model.protocol import NOT_A_TARGET, ProtocolVocab, loss_classes
from model.recipes import collate_speech, split_speech
from schemas.errors import UsageError
from schemas.safe_paths import UnsafePath, contained


class DataError(UsageError, ValueError):
    """Training shards that cannot be read or do not fit the model."""


@dataclass(frozen=True)
class Item:
    shard: int
    row: int
    lo: int           # first unit of the window
    hi: int           # one past the last unit


def resolve_split_dir(path: str | Path, split: str = "train") -> Path:
    """TRAIN_DIR -> TRAIN_DIR/<split>; a split folder (with split.json) is returned as is."""
    p = Path(path)
    if (p / "split.json").is_file():
        return p
    if (p / split / "split.json").is_file():
        return p / split
    raise DataError(f"{p} holds no training split (expected {p}/split.json or {p}/{split}/split.json; "
                    "create one with `duplexsynth export`)")


def read_split_info(split_dir: Path) -> dict[str, Any]:
    """SPLIT/split.json as a mapping with a `shards` list; a refusal names the file and the field."""
    path = split_dir / "split.json"
    try:
        info = json.loads(path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as err:
        raise DataError(f"{path}: not JSON ({err})") from None
    if not isinstance(info, dict) or not isinstance(info.get("shards"), list) \
            or not all(isinstance(s, dict) for s in info["shards"]):
        raise DataError(f"{path}: expected an object with a 'shards' list of objects (write it with `duplexsynth export`)")
    return info


def split_file(split_dir: Path, entry: dict[str, Any], key: str, field: str | None = None,
               root: Path | None = None) -> Path:
    """A file split.json names (a shard; its tokenizer), refused unless it lies inside `root`: the split's
    folder, or for the tokenizer the export folder its splits share (split.json says '../tokenizer/...')."""
    where = f"{split_dir / 'split.json'}: {field or key}"
    if key not in entry:
        raise DataError(f"{where} is missing")
    rel = entry[key]
    if root is not None and isinstance(rel, str) and rel.strip() and not Path(rel).is_absolute():
        rel = os.path.relpath(split_dir / rel, root)   # still relative; climbing out of root stays '..'
    try:
        return contained(root if root is not None else split_dir, rel, where)
    except UnsafePath as err:
        raise DataError(str(err)) from None


class TrainSplit:
    """The light index of one exported split plus lazy, cached access to its rows."""

    LIGHT = ["id", "scenario", "num_units", "num_tokens", "repeat", "unit_offsets"]

    def __init__(self, path: str | Path, *, max_seq_len: int = 8192, seed: int = 0, shuffle_shard_group: int = 4,
                 split: str = "train", cache_shards: int | None = None, image_size: int | None = None,
                 recipe: str = RECIPE_UNIFIED):
        self.dir = resolve_split_dir(path, split).resolve()
        self.info = read_split_info(self.dir)
        self.paths = [split_file(self.dir, s, "path", f"shards[{i}].path") for i, s in enumerate(self.info["shards"])]
        self.vocab = ProtocolVocab.load(split_file(self.dir, self.info, "tokenizer", root=self.dir.parent))
        self.audio_format = self.info.get("audio_format", "flac")
        self.n_mels = int(self.info.get("n_mels", 80))
        self.layout = self.info.get("layout", {})
        self.unit_s = float(self.layout.get("unit_s", 1.0))
        if not self.paths:
            raise DataError(f"{self.dir}: split has no shards")
        self.max_seq_len, self.seed, self.group = max_seq_len, seed, max(1, shuffle_shard_group)
        self.cache_shards = cache_shards or self.group + 1
        self.image_size = image_size
        self.recipe = recipe      # venus: speech tokens leave the LLM sequence at load (model/recipes.py)
        self.items: list[Item] = []
        self.scenarios: list[list[str]] = []
        self.by_shard: list[np.ndarray] = []
        for si, p in enumerate(self.paths):
            if not p.is_file():
                raise DataError(f"{p} listed in {self.dir / 'split.json'} is missing")
            t = pq.read_table(p, columns=self.LIGHT).to_pylist()
            self.scenarios.append([r["scenario"] for r in t])
            start = len(self.items)
            for ri, r in enumerate(t):
                for lo, hi in self._windows(r, where=f"{p.name} row {ri}"):
                    self.items.extend([Item(si, ri, lo, hi)] * int(r["repeat"]))
            self.by_shard.append(np.arange(start, len(self.items)))
        if not self.items:
            raise DataError(f"{self.dir}: no samples")
        self._tables: OrderedDict[int, Any] = OrderedDict()
        self._orders: OrderedDict[int, np.ndarray] = OrderedDict()

    def _windows(self, r: dict[str, Any], where: str) -> list[tuple[int, int]]:
        """Greedy windows of whole units with at most max_seq_len tokens each."""
        offs = list(r["unit_offsets"]) + [int(r["num_tokens"])]
        out, lo = [], 0
        n = int(r["num_units"])
        while lo < n:
            hi = lo + 1
            if offs[hi] - offs[lo] > self.max_seq_len:
                raise DataError(f"{where}: unit {lo} alone has {offs[hi] - offs[lo]} tokens > max_seq_len "
                                f"{self.max_seq_len}")
            while hi < n and offs[hi + 1] - offs[lo] <= self.max_seq_len:
                hi += 1
            out.append((lo, hi))
            lo = hi
        return out

    def __len__(self) -> int:
        return len(self.items)

    # ------------------------------------------------------------------ order
    def epoch_seed(self, epoch: int) -> int:
        return int(np.random.SeedSequence([self.seed, epoch]).generate_state(1)[0])

    def epoch_order(self, epoch: int) -> np.ndarray:
        if epoch not in self._orders:
            rng = np.random.Generator(np.random.PCG64(self.epoch_seed(epoch)))
            shards = rng.permutation(len(self.paths))
            parts = []
            for g in range(0, len(shards), self.group):
                idx = np.concatenate([self.by_shard[s] for s in shards[g:g + self.group]])
                parts.append(idx[rng.permutation(len(idx))])
            self._orders[epoch] = np.concatenate(parts)
            while len(self._orders) > 2:
                self._orders.popitem(last=False)
        return self._orders[epoch]

    def item_at(self, position: int) -> Item:
        """The sample at global stream position `position` (epochs concatenated)."""
        epoch, pos = divmod(int(position), len(self.items))
        return self.items[int(self.epoch_order(epoch)[pos])]

    def cursor(self, consumed: int) -> dict[str, Any]:
        """The data cursor after `consumed` samples: enough to verify and restore the order."""
        epoch, pos = divmod(int(consumed), len(self.items))
        nxt = self.item_at(consumed)
        return {"samples_consumed": int(consumed), "epoch": epoch, "position": pos, "seed": self.seed,
                "epoch_seed": self.epoch_seed(epoch), "shard": self.paths[nxt.shard].name, "row": nxt.row,
                "unit": nxt.lo, "samples_per_epoch": len(self.items)}

    def check_cursor(self, cur: dict[str, Any]) -> int:
        """Validate a saved cursor against this split; return samples consumed."""
        consumed = int(cur["samples_consumed"])
        if int(cur.get("seed", self.seed)) != self.seed:
            raise DataError(f"checkpoint data seed {cur.get('seed')} != config seed {self.seed}")
        if int(cur.get("samples_per_epoch", len(self.items))) != len(self.items):
            raise DataError("the training data changed since the checkpoint "
                            f"({cur.get('samples_per_epoch')} samples per epoch then, {len(self.items)} now)")
        now = self.cursor(consumed)
        if (now["shard"], now["row"], now["unit"]) != (cur.get("shard"), cur.get("row"), cur.get("unit")):
            raise DataError(f"data cursor mismatch: checkpoint expects {cur.get('shard')} row {cur.get('row')} "
                            f"next, this split gives {now['shard']} row {now['row']} (shards changed?)")
        return consumed

    # ------------------------------------------------------------------ rows
    def _table(self, shard: int):
        t = self._tables.get(shard)
        if t is None:
            t = pq.read_table(self.paths[shard], memory_map=True)
            self._tables[shard] = t
            while len(self._tables) > self.cache_shards:
                self._tables.popitem(last=False)
        else:
            self._tables.move_to_end(shard)
        return t

    def unit_labels(self, item: Item) -> list[list[str]] | None:
        """The labels of the sample's units (schemas/vocab.py Label), None for an export made before
        training shards carried them. For label-sliced metrics only; never a model input."""
        t = self._table(item.shard)
        if "unit_labels" not in t.column_names:
            return None
        labels = t.column("unit_labels")[item.row].as_py() or []
        return [list(x or []) for x in labels[item.lo:item.hi]]

    def load(self, item: Item) -> dict[str, Any]:
        """One sample as numpy/torch pieces (not yet padded)."""
        t = self._table(item.shard)
        r = item.row
        offs = t.column("unit_offsets")[r].values.to_numpy()
        n_tok = int(t.column("num_tokens")[r].as_py())
        a = int(offs[item.lo])
        b = int(offs[item.hi]) if item.hi < len(offs) else n_tok
        ids = t.column("input_ids")[r].values.to_numpy()[a:b]
        if ids.size and (int(ids.min()) < 0 or int(ids.max()) >= self.vocab.vocab_size):
            bad = int(ids.max()) if int(ids.max()) >= self.vocab.vocab_size else int(ids.min())
            raise DataError(f"{self.paths[item.shard]} row {r}: input_ids holds {bad}, outside the vocabulary "
                            f"[0, {self.vocab.vocab_size}) of {self.info['tokenizer']}")
        mask = t.column("loss_mask")[r].values.to_numpy()[a:b]
        speech = None
        if self.recipe == RECIPE_VENUS:
            ids, mask, speech = split_speech(ids, mask, self.vocab)
        n_units = item.hi - item.lo
        if self.audio_format == "mel":
            shape = t.column("mel_shape")[r].as_py()
            mel = np.frombuffer(t.column("mel")[r].as_py(), np.float16).reshape(shape)[item.lo:item.hi]
            feats = torch.from_numpy(mel.astype(np.float32))
        else:
            blob = t.column("audio")[r].as_py()["bytes"]
            feats = fe.unit_log_mel(_read_units(blob, item.lo, n_units, self.unit_s), n_units, self.unit_s, self.n_mels)
        frames = t.column("frames")[r].as_py() or []
        pixels = None
        if frames:
            if self.image_size is None:
                raise DataError("these shards carry video frames but the model has no vision encoder "
                                "(train an Omni config, or export rows without frames)")
            pixels = torch.stack([_pixels(f, self.image_size) for f in frames[item.lo:item.hi]])
        out = {"input_ids": ids, "loss_mask": mask, "loss_class": loss_classes(ids, mask, self.vocab),
               "audio_features": feats, "pixel_values": pixels,
               "num_units": n_units, "scenario": self.scenarios[item.shard][r], "item": item}
        if speech is not None:
            out["speech"] = speech
        return out


def _read_units(blob: bytes, lo: int, n: int, unit_s: float) -> np.ndarray:
    """Samples of units [lo, lo+n) of a 16 kHz FLAC, seeking instead of decoding the whole file."""
    import soundfile as sf

    spu = int(round(unit_s * fe.SAMPLE_RATE))
    with sf.SoundFile(io.BytesIO(blob)) as f:
        if f.samplerate != fe.SAMPLE_RATE:
            raise DataError(f"training audio must be 16 kHz, got {f.samplerate}")
        if lo:
            f.seek(lo * spu)
        x = f.read(n * spu, dtype="float32", always_2d=True)
    return x.mean(axis=1) if x.shape[1] > 1 else x[:, 0]


def _pixels(jpeg: bytes, size: int) -> torch.Tensor:
    """SigLIP preprocessing: RGB, resize to size x size (bicubic), scale to [-1, 1]."""
    from PIL import Image

    img = Image.open(io.BytesIO(jpeg)).convert("RGB").resize((size, size), Image.BICUBIC)
    x = torch.from_numpy(np.asarray(img, dtype=np.float32) / 255.0).permute(2, 0, 1)
    return (x - 0.5) / 0.5        # SigLIP image mean = std = 0.5


def collate(samples: list[dict[str, Any]], pad_id: int = 0) -> dict[str, Any]:
    """Right-pad token rows; concatenate audio units (and frames) in row-major order."""
    T = max(len(s["input_ids"]) for s in samples)
    B = len(samples)
    ids = torch.full((B, T), pad_id, dtype=torch.long)
    att = torch.zeros((B, T), dtype=torch.long)
    mask = torch.zeros((B, T), dtype=torch.bool)
    cls = torch.full((B, T), NOT_A_TARGET, dtype=torch.int8)
    for i, s in enumerate(samples):
        n = len(s["input_ids"])
        ids[i, :n] = torch.from_numpy(s["input_ids"].astype(np.int64))
        att[i, :n] = 1
        mask[i, :n] = torch.from_numpy(s["loss_mask"].astype(bool))
        cls[i, :n] = torch.from_numpy(s["loss_class"])
    pix = [s["pixel_values"] for s in samples if s["pixel_values"] is not None]
    speech = collate_speech(samples, T) if any("speech" in s for s in samples) else {}
    return {**speech,
        "input_ids": ids, "attention_mask": att, "loss_mask": mask, "loss_class": cls,
        "audio_features": torch.cat([s["audio_features"] for s in samples]),
        "pixel_values": torch.cat(pix) if pix else None,
        "num_units": sum(s["num_units"] for s in samples),
        "scenarios": [s["scenario"] for s in samples],
        "items": [s["item"] for s in samples],
    }


class MicroBatches(torch.utils.data.Dataset):
    """Map-style view of this rank's micro-batches from a start position: item j is micro-step
    j % accum of step j // accum. Being a pure function of j, any number of DataLoader workers
    yields the same batches in the same order."""

    def __init__(self, split: TrainSplit, start: int, steps: int, *, world: int, rank: int,
                 micro_batch_size: int, grad_accum: int):
        self.split, self.start, self.steps = split, start, steps
        self.world, self.rank, self.mb, self.accum = world, rank, micro_batch_size, grad_accum

    def samples_per_step(self) -> int:
        return self.world * self.accum * self.mb

    def __len__(self) -> int:
        return self.steps * self.accum

    def __getitem__(self, j: int) -> dict[str, Any]:
        step, a = divmod(j, self.accum)
        base = self.start + step * self.samples_per_step() + (a * self.world + self.rank) * self.mb
        return collate([self.split.load(self.split.item_at(base + i)) for i in range(self.mb)])


def _worker_init(_: int) -> None:
    torch.set_num_threads(1)


def make_loader(ds: MicroBatches, workers: int) -> torch.utils.data.DataLoader:
    return torch.utils.data.DataLoader(ds, batch_size=None, shuffle=False, num_workers=workers,
                                       worker_init_fn=_worker_init if workers else None,
                                       prefetch_factor=4 if workers else None, persistent_workers=False)
