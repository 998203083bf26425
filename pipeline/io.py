"""Parquet and audio I/O: FLAC bytes in HF Audio structs, shards written to a temp name then renamed."""
from __future__ import annotations

import hashlib
import io
import json
import os
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import soundfile as sf

from schemas.arrow import HEAVY_COLUMNS

ROW_GROUP_SIZE = 2   # 1-4 rows per group: reading one trajectory reads only that trajectory


def encode_flac(audio: np.ndarray, sample_rate: int, compression: int = 5) -> bytes:
    """16-bit FLAC bytes. Deterministic: same samples give the same bytes."""
    buf = io.BytesIO()
    pcm = np.clip(np.round(audio.astype(np.float64) * 32767.0), -32768, 32767).astype(np.int16)
    sf.write(buf, pcm, sample_rate, format="FLAC", subtype="PCM_16",
             compression_level=compression / 8.0)
    return buf.getvalue()


def decode_audio(blob: bytes) -> tuple[np.ndarray, int]:
    """Float32 samples and rate from encoded bytes (FLAC/WAV)."""
    data, sr = sf.read(io.BytesIO(blob), dtype="float32")
    return data, int(sr)


def sha256_file(path: str | Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def atomic_write_bytes(path: str | Path, data: bytes) -> None:
    """Write to a temp name in the same folder, fsync, rename: readers never see half a file."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    with open(tmp, "wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


def atomic_write_json(path: str | Path, obj: Any) -> None:
    atomic_write_bytes(path, (json.dumps(obj, indent=2, sort_keys=True) + "\n").encode())


def write_parquet(table: pa.Table, path: str | Path) -> str:
    """Write a shard atomically; heavy columns uncompressed, no statistics, no dictionary. Returns sha256."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    light = [c for c in table.column_names if c not in HEAVY_COLUMNS]
    compression = {c: ("NONE" if c in HEAVY_COLUMNS else "ZSTD") for c in table.column_names}
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    pq.write_table(table, tmp, row_group_size=ROW_GROUP_SIZE, compression=compression,
                   use_dictionary=light, write_statistics=light, store_schema=True)
    with open(tmp, "rb+") as f:
        os.fsync(f.fileno())
    digest = sha256_file(tmp)
    os.replace(tmp, path)
    return digest
