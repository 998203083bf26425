"""`duplexsynth export`: trajectory shards -> training shards for the bundled trainer (DESIGN §3).

Input: a generator output folder DIR, checked as a whole by jobs/dataset_reader.check_dataset
(manifest present and well formed, every shard inside DIR with its sha256). An incomplete or corrupt
DIR is refused unless `allow_incomplete` (`--allow-incomplete`), which exports only the shards that
pass and records what was skipped under `source.skipped`. Output TRAIN_DIR (never the source, inside
it, or a folder holding it; `--overwrite` replaces only an earlier export):

    TRAIN_DIR/manifest.json          tokenizer identity, mix, split, source manifest hash, counts
    TRAIN_DIR/README.md              dataset card: `datasets.load_dataset(TRAIN_DIR)` gives splits train, validation
    TRAIN_DIR/tokenizer/             protocol.json (every protocol/speech id) + extended tokenizer.json
    TRAIN_DIR/train/split.json       shard list of the split (so TRAIN_DIR/val works on its own)
    TRAIN_DIR/train/shard-00000.parquet ...
    TRAIN_DIR/val/...

One training row per kept trajectory: the unit sequence (`input_ids`), its per-token `loss_mask`,
the offset of every ``<unit>``, a `repeat` count (the mix), the user audio, the frames of an Omni
row (one JPEG per unit, laid out as ``<image>`` + image placeholders + ``</image>`` before the unit's
audio embeds, DESIGN §3) and each unit's labels (`unit_labels`, what eval-decisions slices by).

Audio is stored as **16 kHz FLAC** (the generator's bytes, passed through when already 16 kHz) and
turned into per-unit Whisper log-mel by the loader. Why not precomputed features: the loader
benchmark (benchmarks/loader_throughput.py, on its synthetic fixtures) delivers ~1,400-1,800 collated
units/s per core from FLAC (seek + decode + log-mel + collate), 3.5-4.4x the 400 units/s/core target and ~10x what one
GPU of a 9B run consumes (~160 units/s at 40% MFU), while FLAC costs about the same bytes per unit
as fp16 80-bin mel (~16-18 KB/s) and keeps the shards independent of the encoder's front end
(80 vs 128 mel bins, unit size, augmentation) and the export a byte copy. Precomputed mel
(``--audio mel``, ~30,000 units/s/core) is there for CPU-starved hosts.
"""
from __future__ import annotations

import io
import json
import random
import shutil
import sys
import time
from collections import Counter, defaultdict
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Iterator, Literal

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from jobs.card import CARD, export_card
from jobs.dataset_reader import DatasetCheck, DatasetError, open_dataset
from jobs.lock import LOCK_NAME, export_output, source_lock
from model import audio as fe
from model.protocol import (
    ProtocolError,
    TextTokenizer,
    UnitEncoder,
    extend_vocab,
    load_text_tokenizer,
    write_extended_tokenizer,
)
from pipeline.io import atomic_write_bytes, sha256_file
from schemas.argtypes import MAX_MIX_WEIGHT, parse_finite
from schemas.arrow import AUDIO_TYPE, with_hf_metadata
from schemas.errors import UsageError
from schemas.language import language
from schemas.protocol import (
    AUDIO_EMBEDS_PER_SECOND,
    CHUNK_EOS,
    DELEGATE,
    DELEGATE_END,
    SPEECH_TOKENS_PER_SECOND,
    TURN_EOS,
)
from schemas.trajectory import row_field_problem

FORMAT = "duplexsynth-train-v1"
# `audio` typed as a datasets Audio feature by the schema's metadata (schemas/arrow.py); readers that use
# pyarrow (model/dataset.py) see the same struct<bytes, path> as before
TRAIN_SCHEMA = with_hf_metadata([
    ("id", pa.string()), ("scenario", pa.string()), ("language", pa.string()),
    ("source_shard", pa.string()), ("source_row", pa.int32()),
    ("unit_s", pa.float32()), ("num_units", pa.int32()), ("num_tokens", pa.int32()), ("repeat", pa.int32()),
    ("input_ids", pa.list_(pa.int32())), ("loss_mask", pa.list_(pa.int8())), ("unit_offsets", pa.list_(pa.int32())),
    ("audio", AUDIO_TYPE),                      # 16 kHz FLAC (audio format "flac"), else null
    ("mel", pa.binary()), ("mel_shape", pa.list_(pa.int32())),   # fp16 [U, 80, frames] (format "mel")
    ("frames", pa.list_(pa.binary())),          # Omni: one JPEG per unit, as generated
    ("unit_labels", pa.list_(pa.list_(pa.string()))),   # per unit, the row's labels (schemas/vocab.py Label): for
                                                        # label-sliced metrics (eval-decisions' proactive speak), not a model input
])
LIGHT_COLUMNS = ("id", "scenario", "unit_s", "sample_rate")
AUDIO_WHY = ("16 kHz FLAC at about the bytes per unit of fp16 mel; it keeps the shards independent of the "
             "encoder front end (mel bins, unit size, augmentation). The loader's speed on this export was not "
             "measured: run benchmarks/loader_throughput.py on it")


class ExportError(UsageError, ValueError):
    """The source folder or the options cannot be exported; the message says what to fix."""


@dataclass
class ExportOptions:
    tokenizer: str = "minicpm-o45"
    mix: dict[str, float] = field(default_factory=dict)
    val_fraction: float = 0.05
    seed: int = 0
    rows_per_shard: int = 256
    audio_format: Literal["flac", "mel"] = "flac"
    n_mels: int = 80
    image_tokens: int = 64
    chunk_eos_loss: bool = True
    workers: int = 1
    overwrite: bool = False
    allow_incomplete: bool = False   # export only the shards that pass (jobs/dataset_reader.py)


# ----------------------------------------------------------------------------- source folder
def list_source_shards(root: Path, allow_incomplete: bool = False) -> DatasetCheck:
    """The source folder checked by jobs/dataset_reader.open_dataset (its `.shards` are the ones to export).

    Strict unless `allow_incomplete`: a missing manifest, a missing or corrupt shard, or a manifest
    that does not add up is refused (ExportError, one line naming the files).
    """
    if not root.is_dir():
        raise ExportError(f"source folder not found: {root}")
    try:
        return open_dataset(root, allow_incomplete)
    except DatasetError as err:
        raise ExportError(str(err)) from None


def check_output_folder(src: Path, out: Path, overwrite: bool, fmt: str = FORMAT) -> None:
    """Refuse an --out that would destroy or mix with the source, or an arbitrary folder to overwrite.

    Compared on real paths (symlinks resolved): --out may not be the source, lie inside it, or hold
    it. An existing non-empty --out is replaced only with `overwrite` and only when it is an earlier
    export of the same kind (manifest.json whose format is `fmt`: FORMAT for training shards, the consumer
    exports pass theirs); nothing is deleted or written before these checks.
    """
    real_src, real_out = src.resolve(), out.resolve()
    if real_out == real_src:
        raise ExportError(f"--out {out} is the source folder {src}; choose an output folder outside it")
    if real_out in real_src.parents:
        raise ExportError(f"--out {out} contains the source folder {src}; choose an output folder outside it")
    if real_src in real_out.parents:
        raise ExportError(f"--out {out} lies inside the source folder {src}; choose an output folder outside it")
    if not out.exists():
        return
    if not out.is_dir():
        raise ExportError(f"--out {out} exists and is not a folder")
    if not any(p.name != LOCK_NAME for p in out.iterdir()):
        return   # empty, or only the free lock file an earlier export left
    if not overwrite:
        raise ExportError(f"{out} exists and is not empty (pass --overwrite to replace an earlier export)")
    if not _is_export_folder(out, fmt):
        raise ExportError(f"--overwrite refuses to delete {out}: it is not an export folder (no manifest.json "
                          f"with format {fmt!r}); empty it yourself or choose another --out")


def _is_export_folder(path: Path, fmt: str = FORMAT) -> bool:
    """True when `path` holds the manifest of an earlier `duplexsynth export` of format `fmt`."""
    try:
        manifest = json.loads((path / "manifest.json").read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        return False
    return isinstance(manifest, dict) and manifest.get("format") == fmt


FAILED_NAME = "failed.json"   # the rows an export could not convert, beside its manifest (every format)


def parse_mix(text: str | None) -> dict[str, float]:
    """`family=weight,...` -> dict. Weight = expected training copies per trajectory of the family."""
    if not text:
        return {}
    out: dict[str, float] = {}
    for part in text.split(","):
        part = part.strip()
        if not part:
            continue
        if "=" not in part:
            raise ExportError(f"--mix entry {part!r} is not family=weight")
        name, w = part.split("=", 1)
        weight = parse_finite(w.strip(), 0.0, MAX_MIX_WEIGHT, "a number of copies")
        if isinstance(weight, str):
            raise ExportError(f"--mix weight for {name.strip()!r} {weight}")
        out[name.strip()] = weight
    return out


# ----------------------------------------------------------------------------- split and mix plan
@dataclass
class RowPlan:
    split: str        # "train" | "val"
    repeat: int


def plan_rows(light: list[dict[str, Any]], mix: dict[str, float], val_fraction: float,
              seed: int) -> tuple[dict[str, RowPlan], dict[str, dict[str, Any]]]:
    """Deterministic stratified split and mix, by trajectory id (never by read order).

    Per family: the ids are shuffled with (seed, family) and the first n_val go to val, where the
    n_val add up to round(N * val_fraction) over the N rows of the exported families: each family
    gets floor(n * val_fraction), and the rows left over go to the families with the largest
    remainders (ties by name), never a family's last row. So the val share is the requested one up
    to rounding however small the families; a family left without a val row is named by
    `split_warnings`. The train rows then get
    round(n_train * weight) copies in total: floor per row plus one more for a seeded subset, so
    weight 0.5 keeps half the rows and 2 repeats each twice. Weight 0 drops the family from both
    splits. Families not named in the mix keep weight 1.
    """
    if not 0.0 <= val_fraction < 1.0:
        raise ExportError("--val-fraction must be in [0, 1)")
    by_family: dict[str, list[str]] = defaultdict(list)
    for r in light:
        by_family[r["scenario"]].append(r["id"])
    unknown = sorted(set(mix) - set(by_family))
    if unknown:
        raise ExportError(f"--mix names famil{'y' if len(unknown) == 1 else 'ies'} {unknown} absent from the "
                          f"dataset; present: {sorted(by_family)}")
    dup = [i for i, c in Counter(r["id"] for r in light).items() if c > 1]
    if dup:
        raise ExportError(f"duplicate trajectory ids in the source: {dup[:5]}")
    plan: dict[str, RowPlan] = {}
    stats: dict[str, dict[str, Any]] = {}
    n_val_of = _val_counts({f: len(v) for f, v in by_family.items() if mix.get(f, 1.0) != 0}, val_fraction)
    for fam in sorted(by_family):
        ids = sorted(by_family[fam])
        w = mix.get(fam, 1.0)
        stats[fam] = {"source_rows": len(ids), "weight": w, "train_rows": 0, "train_samples": 0, "val_rows": 0}
        if w == 0:
            continue
        rng = random.Random(f"{seed}:split:{fam}")
        rng.shuffle(ids)
        n_val = n_val_of[fam]
        val, train = ids[:n_val], ids[n_val:]
        for i in val:
            plan[i] = RowPlan("val", 1)
        total = int(round(len(train) * w))
        base, extra = divmod(total, len(train)) if train else (0, 0)
        lucky = set(random.Random(f"{seed}:mix:{fam}").sample(train, extra)) if train else set()
        for i in train:
            rep = base + (1 if i in lucky else 0)
            if rep > 0:
                plan[i] = RowPlan("train", rep)
        stats[fam].update(val_rows=len(val), train_rows=sum(1 for i in train if i in plan),
                          train_samples=sum(plan[i].repeat for i in train if i in plan))
    return plan, stats


def _val_counts(sizes: dict[str, int], val_fraction: float) -> dict[str, int]:
    """Val rows per family: floor of each quota, then the largest remainders up to round(N * fraction)."""
    quota = {f: n * val_fraction for f, n in sizes.items()}
    counts = {f: min(int(q), max(0, sizes[f] - 1)) for f, q in quota.items()}
    left = int(round(sum(sizes.values()) * val_fraction)) - sum(counts.values())
    for f in sorted(quota, key=lambda f: (-(quota[f] - int(quota[f])), f)):
        if left <= 0:
            break
        if counts[f] < sizes[f] - 1:
            counts[f] += 1
            left -= 1
    return counts


def split_warnings(stats: dict[str, dict[str, Any]], val_fraction: float) -> list[str]:
    """One line per exported family that the split left without a val row although one was asked for."""
    if val_fraction <= 0:
        return []
    return [f"family {fam!r} has {st['source_rows']} row(s), too few for a val row at val_fraction "
            f"{val_fraction} (its share would be {st['source_rows'] * val_fraction:.2f}); it is not validated"
            for fam, st in sorted(stats.items()) if st["weight"] != 0 and st["val_rows"] == 0]


def val_share(stats: dict[str, dict[str, Any]]) -> float:
    """The realised val share: val rows over the source rows of the exported families."""
    rows = sum(st["source_rows"] for st in stats.values() if st["weight"] != 0)
    return sum(st["val_rows"] for st in stats.values()) / rows if rows else 0.0


# ----------------------------------------------------------------------------- row conversion
_WORKER: dict[str, Any] = {}


def _worker_init(tokenizer_spec: str, vocab_json: dict[str, Any], opts: dict[str, Any]) -> None:
    from model.protocol import ProtocolVocab

    tok = load_text_tokenizer(tokenizer_spec)
    _WORKER.clear()          # never reuse an encoder built for another export in this process
    _WORKER.update(tok=tok, vocab=ProtocolVocab.from_json(vocab_json), opts=opts)


def _encoder(unit_s: float) -> UnitEncoder:
    key = f"enc:{unit_s}"
    if key not in _WORKER:
        o = _WORKER["opts"]
        _WORKER[key] = UnitEncoder(_WORKER["tok"], _WORKER["vocab"], unit_s=unit_s,
                                   image_tokens_per_frame=o["image_tokens"], chunk_eos_loss=o["chunk_eos_loss"])
    return _WORKER[key]


def convert_row(row: dict[str, Any], where: str) -> dict[str, Any]:
    """One trajectory row (pyarrow dict) -> one training row (without split/repeat)."""
    o = _WORKER["opts"]
    units = row["units"]
    n = len(units)
    unit_s = float(row["unit_s"])
    sr = int(row["sample_rate"])
    if n == 0:
        raise ExportError(f"{where}: trajectory has no units")
    frames = row.get("frames") or []
    if frames and len(frames) != n:
        raise ExportError(f"{where}: {len(frames)} frames for {n} units (Omni rows need one per unit)")
    enc = _encoder(unit_s).encode(units, has_frames=bool(frames), where=where,
                                  word_separator=language(row.get("language") or "en").word_separator)
    blob = (row.get("user_audio") or {}).get("bytes")
    if not blob:
        raise ExportError(f"{where}: user_audio has no bytes")
    import soundfile as sf

    expect = int(round(n * unit_s * sr))
    info = sf.info(io.BytesIO(blob))
    if info.frames != expect or info.samplerate != sr:
        raise ExportError(f"{where}: user_audio has {info.frames} samples at {info.samplerate} Hz, expected "
                          f"{expect} at {sr} Hz ({n} units x {unit_s} s)")
    audio, mel, mel_shape = None, None, None
    if o["audio_format"] == "flac":
        if sr == fe.SAMPLE_RATE and info.format == "FLAC" and info.channels == 1:
            audio = {"bytes": blob, "path": None}          # pass-through: no decode, no re-encode
        else:
            x, _ = fe.decode_audio(blob)
            audio = {"bytes": fe.encode_flac(fe.to_16k(x, sr)), "path": None}
    else:
        x, _ = fe.decode_audio(blob)
        feats = fe.unit_log_mel(fe.to_16k(x, sr), n, unit_s, o["n_mels"]).numpy().astype(np.float16)
        mel, mel_shape = feats.tobytes(), list(feats.shape)
    return {
        "id": row["id"], "scenario": row["scenario"], "language": row.get("language") or "",
        "unit_s": unit_s, "num_units": n, "num_tokens": len(enc.input_ids),
        "input_ids": enc.input_ids, "loss_mask": enc.loss_mask, "unit_offsets": enc.unit_offsets,
        "audio": audio, "mel": mel, "mel_shape": mel_shape, "frames": list(frames),
        "unit_labels": [list(u.get("labels") or []) for u in units],
        "_loss_tokens": int(sum(enc.loss_mask)),
    }


def convert_shard(path: str, wanted: dict[str, tuple[str, int]], shard_name: str) -> list[dict[str, Any]]:
    """Convert the rows of one source shard that the plan keeps (runs in a worker process)."""
    cols = ["id", "scenario", "language", "unit_s", "sample_rate", "duration_s", "words", "events", "user_audio",
            "units", "frames"]
    pf = pq.ParquetFile(path)
    have = set(pf.schema_arrow.names)
    missing = [c for c in cols if c not in have and c != "frames"]
    if missing:
        raise ExportError(f"{path}: missing column(s) {missing}; is this a trajectory shard (DESIGN §3)?")
    out = []
    index = 0
    for batch in pf.iter_batches(batch_size=64, columns=[c for c in cols if c in have]):
        for row in batch.to_pylist():
            idx, index = index, index + 1
            if row["id"] not in wanted:
                continue
            split, repeat = wanted[row["id"]]
            try:
                why = row_field_problem(row)
                if why:
                    raise ExportError(f"{shard_name} row {idx}: {why}")
                r = convert_row(row, f"{shard_name} row {idx} ({row['id']})")
            except (ExportError, ProtocolError, ValueError, RuntimeError) as err:  # LibsndfileError: RuntimeError
                # one row that cannot be converted (garbage FLAC under a matching sha256) is a failure
                # record, as in the consumer formats, not the end of the export
                first = (str(err).splitlines() or [""])[0]
                out.append({"_failed": {"id": row["id"], "source_shard": shard_name, "source_row": idx,
                                        "error": f"{type(err).__name__}: {first}"}})
                continue
            r.update(source_shard=shard_name, source_row=idx, repeat=repeat, _split=split)
            out.append(r)
    return out


# ----------------------------------------------------------------------------- writing
class _SplitWriter:
    """Accumulates rows of one split and writes fixed-size shards (temp name, then rename)."""

    def __init__(self, out: Path, name: str, rows_per_shard: int):
        self.dir = out / name
        self.dir.mkdir(parents=True, exist_ok=True)
        self.name, self.rows_per_shard = name, rows_per_shard
        self.buf: list[dict[str, Any]] = []
        self.shards: list[dict[str, Any]] = []
        self.totals = Counter()

    def add(self, row: dict[str, Any]) -> None:
        self.totals.update(rows=1, samples=row["repeat"], units=row["num_units"], tokens=row["num_tokens"],
                           loss_tokens=row["_loss_tokens"])
        self.buf.append({k: v for k, v in row.items() if not k.startswith("_")})
        if len(self.buf) >= self.rows_per_shard:
            self.flush()

    def flush(self) -> None:
        if not self.buf:
            return
        path = self.dir / f"shard-{len(self.shards):05d}.parquet"
        tmp = path.with_name(path.name + ".tmp")
        pq.write_table(pa.Table.from_pylist(self.buf, schema=TRAIN_SCHEMA), tmp, row_group_size=32)
        tmp.replace(path)
        self.shards.append({"path": path.name, "rows": len(self.buf), "sha256": sha256_file(path)})
        self.buf = []

    def finish(self, meta: dict[str, Any]) -> dict[str, Any]:
        self.flush()
        info = {"split": self.name, "shards": self.shards, **dict(self.totals), **meta}
        _atomic_json(self.dir / "split.json", info)
        return info


def _atomic_json(path: Path, obj: Any) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(obj, indent=2))
    tmp.replace(path)


def export(src: str | Path, out: str | Path, opts: ExportOptions, progress: bool = True) -> dict[str, Any]:
    """Run the export; returns the manifest written to OUT/manifest.json."""
    src, out = Path(src).resolve(), Path(out).resolve()
    t0 = time.time()
    if opts.audio_format not in ("flac", "mel"):
        raise ExportError("--audio must be flac or mel")
    if opts.rows_per_shard < 1:
        raise ExportError("--rows-per-shard must be >= 1")
    check_output_folder(src, out, opts.overwrite)
    # the source is held (shared) from its listing to the last row read: no --force-new-run under us
    with source_lock(src, "export", opts.allow_incomplete):
        source = list_source_shards(src, opts.allow_incomplete)
        tok: TextTokenizer = load_text_tokenizer(opts.tokenizer)   # a bad --tokenizer is refused before --out exists
        with export_output(out, "duplexsynth export"):
            check_output_folder(src, out, opts.overwrite)   # again, now that no other export can write here
            clear_folder(out)      # an earlier export (check_output_folder), never another folder
            try:
                return _export(src, out, opts, source, tok, t0, progress)
            except BaseException:
                clear_folder(out)  # no half export a trainer could take for data; it held nothing else
                raise


def clear_folder(out: Path) -> None:
    """Everything in `out` but the lock file (held by this process)."""
    for p in out.iterdir():
        if p.name == LOCK_NAME:
            continue
        if p.is_dir() and not p.is_symlink():
            shutil.rmtree(p)
        else:
            p.unlink()


def _export(src: Path, out: Path, opts: ExportOptions, source: Any, tok: TextTokenizer, t0: float,
            progress: bool) -> dict[str, Any]:
    """The body of `export`, run while the output lock is held on an empty `out`."""
    paths, src_manifest, src_digest = source.shards, source.manifest, source.manifest_sha256
    light: list[dict[str, Any]] = []
    for p in paths:
        try:
            t = pq.read_table(p, columns=list(LIGHT_COLUMNS))
        except Exception as err:  # noqa: BLE001 - named file, reason kept
            raise ExportError(f"cannot read {p} as a trajectory shard: {err}") from None
        light.extend(t.to_pylist())
    unit_sizes = sorted({round(float(r["unit_s"]), 6) for r in light})
    if len(unit_sizes) != 1:
        raise ExportError(f"rows mix unit sizes {unit_sizes}; the trainer needs one unit_s per export")
    plan, fam_stats = plan_rows(light, opts.mix, opts.val_fraction, opts.seed)
    for line in split_warnings(fam_stats, opts.val_fraction):
        print(f"warning: {line}", file=sys.stderr)

    vocab = extend_vocab(tok)
    write_extended_tokenizer(tok, vocab, out / "tokenizer")
    wopts = {"audio_format": opts.audio_format, "n_mels": opts.n_mels, "image_tokens": opts.image_tokens,
             "chunk_eos_loss": opts.chunk_eos_loss}

    writers = {s: _SplitWriter(out, s, opts.rows_per_shard) for s in ("train", "val")}
    shard_names = [str(p.relative_to(src)) for p in paths]
    jobs = []
    for p, name in zip(paths, shard_names):
        ids = set(pq.read_table(p, columns=["id"]).column("id").to_pylist())
        wanted = {i: (plan[i].split, plan[i].repeat) for i in ids if i in plan}
        jobs.append((str(p), wanted, name))

    has_frames = False
    languages: set[str] = set()
    failed: list[dict[str, Any]] = []
    for rows in _run_jobs(jobs, opts, vocab, wopts, progress):
        for r in rows:
            if "_failed" in r:
                failed.append(r["_failed"])
                continue
            has_frames |= bool(r["frames"])
            languages.add(r["language"])
            writers[r.pop("_split")].add(r)
    rel_tok = "../tokenizer/protocol.json"
    layout = {
        "unit_s": unit_sizes[0], "audio_embeds_per_unit": int(round(AUDIO_EMBEDS_PER_SECOND * unit_sizes[0])),
        "speech_tokens_per_unit": int(round(SPEECH_TOKENS_PER_SECOND * unit_sizes[0])), "image_tokens_per_frame": opts.image_tokens,
        "has_frames": has_frames, "chunk_eos_loss": opts.chunk_eos_loss,
        "loss_rule": f"decision, spoken text, speech tokens, {TURN_EOS}, {DELEGATE} request {DELEGATE_END}"
                     + (f", {CHUNK_EOS}" if opts.chunk_eos_loss else "") + "; nothing else",
    }
    split_meta = {"tokenizer": rel_tok, "audio_format": opts.audio_format, "n_mels": opts.n_mels, "layout": layout}
    splits = {s: w.finish(split_meta) for s, w in writers.items()}
    if not splits["train"]["shards"]:
        why = (f": every planned row failed to convert ({len(failed)}; first: {failed[0]['id']}: {failed[0]['error']})"
               if failed else "")
        raise ExportError(f"the mix and split left no training rows{why}")
    if failed:
        _atomic_json(out / FAILED_NAME, failed)
    has_speech = _any_speech(out / "train", splits["train"]["shards"], set(vocab.speech_range))
    layout["speech_tokens"] = has_speech
    manifest = {
        "format": FORMAT,
        "created_unix": int(time.time()),
        "source": {"dir": str(src), "manifest_sha256": src_digest,
                   "generator_version": (src_manifest or {}).get("generator_version"),
                   "speech_tokenizer": (src_manifest or {}).get("speech_tokenizer"),
                   "shards": [{"path": n, "sha256": source.digests.get(p) or sha256_file(p)}   # verified once
                              for p, n in zip(paths, shard_names)],
                   "skipped": None if source.complete else {
                       "shards": source.shards_skipped, "rows": source.rows_skipped,
                       "rows_exact": source.rows_skipped_exact, "problems_total": len(source.problems),
                       "problems": source.problems[:50]}},
        "tokenizer": {**vocab.tokenizer, "vocab_size": vocab.vocab_size, "speech_offset": vocab.speech_offset,
                      "protocol": "tokenizer/protocol.json", "tokenizer_json": "tokenizer/tokenizer.json",
                      "reused": {k: v for k, v in vocab.sources.items() if v != "added"}},
        "mix": {"weights": opts.mix, "default_weight": 1.0, "families": fam_stats},
        "split": {"val_fraction": opts.val_fraction, "val_share": val_share(fam_stats),
                  "warnings": split_warnings(fam_stats, opts.val_fraction), "seed": opts.seed,
                  **{s: {k: v for k, v in info.items() if k not in ("tokenizer", "layout")}
                     for s, info in splits.items()}},
        "audio": {"format": opts.audio_format, "sample_rate": fe.SAMPLE_RATE, "n_mels": opts.n_mels,
                  "why": AUDIO_WHY},
        "layout": layout,
        "failed": {"rows": len(failed), "path": FAILED_NAME if failed else None, "first": failed[:3]},
        "options": asdict(opts),
        "elapsed_s": round(time.time() - t0, 2),
    }
    atomic_write_bytes(out / CARD, export_card(manifest, TRAIN_SCHEMA, sorted(languages - {""})).encode("utf-8"))
    _atomic_json(out / "manifest.json", manifest)   # last: its presence means the export finished
    return manifest


def _any_speech(split_dir: Path, shards: list[dict[str, Any]], speech_ids: set[int]) -> bool:
    lo, hi = min(speech_ids), max(speech_ids)
    for s in shards:
        ids = pq.read_table(split_dir / s["path"], columns=["input_ids"]).column("input_ids")
        flat = np.asarray(ids.combine_chunks().flatten())
        if ((flat >= lo) & (flat <= hi)).any():
            return True
    return False


def _run_jobs(jobs: list[tuple[str, dict, str]], opts: ExportOptions, vocab, wopts: dict[str, Any],
              progress: bool) -> Iterator[list[dict[str, Any]]]:
    """Convert shards in order (in-process, or a process pool with --workers > 1)."""
    from rich.progress import Progress

    with Progress(disable=not progress, transient=True) as bar:
        task = bar.add_task("export", total=len(jobs))
        if opts.workers <= 1:
            _worker_init(opts.tokenizer, vocab.to_json(), wopts)
            for j in jobs:
                yield convert_shard(*j)
                bar.advance(task)
            return
        with ProcessPoolExecutor(opts.workers, initializer=_worker_init,
                                 initargs=(opts.tokenizer, vocab.to_json(), wopts)) as pool:
            for rows in pool.map(convert_shard, *zip(*jobs)):
                yield rows
                bar.advance(task)


__all__ = ["ExportError", "ExportOptions", "export", "parse_mix", "plan_rows", "list_source_shards",
           "TRAIN_SCHEMA", "FORMAT", "ProtocolError"]
