"""Units per second per CPU core delivered by the training data loader, collated and model-ready.

What is timed is exactly what the trainer consumes: `MicroBatches[j]` -> sample lookup in the
resumable order, Parquet row access, 16 kHz FLAC seek+decode (or fp16 mel read), per-unit Whisper
log-mel, token/mask slicing and padding collation. One process, one torch thread; the figure is
units / CPU-seconds of this process, so it is per core and insensitive to other load on the
machine. Compared with the 400 units/s/core target.

    python benchmarks/loader_throughput.py                    # synthetic fixtures, both audio formats
    python benchmarks/loader_throughput.py --data TRAIN_DIR   # an existing export
"""
from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

TARGET = 400.0


def measure(data: Path, *, micro_batch_size: int = 4, batches: int = 60, warmup: int = 3) -> dict[str, float]:
    """Time `batches` micro-batches from the loader on one core."""
    import torch

    from model.dataset import MicroBatches, TrainSplit

    torch.set_num_threads(1)
    split = TrainSplit(data, max_seq_len=8192, seed=0)
    ds = MicroBatches(split, 0, batches + warmup, world=1, rank=0, micro_batch_size=micro_batch_size, grad_accum=1)
    for j in range(warmup):
        ds[j]
    units = tokens = 0
    c0, w0 = time.process_time(), time.perf_counter()
    for j in range(warmup, warmup + batches):
        b = ds[j]
        units += b["num_units"]
        tokens += int(b["attention_mask"].sum())
        assert b["audio_features"].shape[0] == b["num_units"]
    cpu, wall = time.process_time() - c0, time.perf_counter() - w0
    per_core = units / max(cpu, 1e-9)
    return {"units": units, "tokens": tokens, "cpu_s": round(cpu, 3), "wall_s": round(wall, 3),
            "units_per_s_per_core": round(per_core, 1), "units_per_s_wall": round(units / max(wall, 1e-9), 1),
            "ratio_to_target": round(per_core / TARGET, 2), "audio_format": split.audio_format}


def build_exports(tmp: Path, rows: int, tokenizer: str | None) -> dict[str, Path]:
    """Generated trajectories (tests/generated.py: real planners and composer, tone TTS) exported as flac and mel."""
    from jobs.export import ExportOptions, export
    from tests.conftest import ToneTTS
    from tests.generated import Generated, row_texts, train_tokenizer, write_dataset

    data = Generated(tts={"tone": ToneTTS()}).rows(rows)
    src = write_dataset(tmp / "src", data, rows_per_shard=16)
    tok = tokenizer or str(train_tokenizer(tmp / "tok" / "tokenizer.json", row_texts(data)))
    out = {}
    for fmt in ("flac", "mel"):
        out[fmt] = tmp / f"train-{fmt}"
        export(src, out[fmt], ExportOptions(tokenizer=tok, val_fraction=0.0, audio_format=fmt, rows_per_shard=32),
               progress=False)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", default=None, help="an export (TRAIN_DIR or split folder); default: synthesize")
    ap.add_argument("--rows", type=int, default=48, help="synthetic trajectories (default 48)")
    ap.add_argument("--tokenizer", default=None, help="tokenizer for the synthetic export (default: trained BPE)")
    ap.add_argument("--batches", type=int, default=60)
    ap.add_argument("--micro-batch-size", type=int, default=4)
    ap.add_argument("--json", action="store_true", help="print one JSON line per format only")
    args = ap.parse_args(argv)
    results = []
    with tempfile.TemporaryDirectory() as d:
        targets = {"given": Path(args.data)} if args.data else build_exports(Path(d), args.rows, args.tokenizer)
        for name, path in targets.items():
            r = measure(path, micro_batch_size=args.micro_batch_size, batches=args.batches)
            results.append(r)
            if args.json:
                print(json.dumps(r))
            else:
                print(f"loader [{r['audio_format']}]: {r['units_per_s_per_core']:.0f} units/s per core "
                      f"({r['ratio_to_target']:.2f}x the {TARGET:.0f} units/s/core target); "
                      f"{r['units']} units, {r['tokens']} tokens in {r['cpu_s']} CPU-s ({r['wall_s']} s wall)")
    return 0 if all(r["ratio_to_target"] >= 1.0 for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
