"""Arrow schema of a trajectory shard (DESIGN §3), with Hugging Face feature metadata.

The metadata lets `datasets.load_dataset("parquet", ...)` type the audio columns as `Audio` with
no custom code; it is written by hand so that runtime code does not need `datasets` installed.
"""
from __future__ import annotations

import json
from typing import Any

import pyarrow as pa

from schemas.trajectory import FailedRecord, TrajectoryRow

AUDIO_COLUMNS: tuple[str, ...] = ("user_audio", "assistant_audio")
HEAVY_COLUMNS: tuple[str, ...] = ("user_audio", "assistant_audio", "frames")

AUDIO_TYPE = pa.struct([("bytes", pa.binary()), ("path", pa.string())])
EVENT_TYPE = pa.struct([
    ("id", pa.string()), ("kind", pa.string()), ("role", pa.string()),
    ("start_s", pa.float64()), ("end_s", pa.float64()), ("text", pa.string()), ("attrs", pa.string()),
])
WORD_TYPE = pa.struct([
    ("role", pa.string()), ("word", pa.string()), ("start_s", pa.float64()),
    ("end_s", pa.float64()), ("event_id", pa.string()),
])
INPUT_EVENT_TYPE = pa.struct([("kind", pa.string()), ("task_id", pa.string()), ("text", pa.string())])
UNIT_TYPE = pa.struct([
    ("index", pa.int32()), ("user_text", pa.string()), ("input_events", pa.list_(INPUT_EVENT_TYPE)),
    ("decision", pa.string()), ("spoken_text", pa.string()), ("speech_tokens", pa.list_(pa.int16())),
    ("turn_eos", pa.bool_()), ("delegate", pa.string()), ("task_id", pa.string()),
    ("labels", pa.list_(pa.string())),
])

_FIELDS: list[tuple[str, pa.DataType]] = [
    ("id", pa.string()), ("seed", pa.int64()), ("scenario", pa.string()), ("language", pa.string()),
    ("unit_s", pa.float32()), ("duration_s", pa.float32()), ("sample_rate", pa.int32()),
    ("user_audio", AUDIO_TYPE), ("assistant_audio", AUDIO_TYPE),
    ("events", pa.list_(EVENT_TYPE)), ("words", pa.list_(WORD_TYPE)), ("units", pa.list_(UNIT_TYPE)),
    ("frames", pa.list_(pa.binary())), ("script", pa.string()), ("meta", pa.string()),
]


def _hf_feature(t: pa.DataType) -> dict[str, Any]:
    """The `datasets` feature dict of an Arrow type (Value / List / struct-as-dict)."""
    if t == AUDIO_TYPE:
        return {"_type": "Audio"}
    if pa.types.is_list(t):
        return {"feature": _hf_feature(t.value_type), "_type": "List"}
    if pa.types.is_struct(t):
        return {f.name: _hf_feature(f.type) for f in t}
    names = {pa.string(): "string", pa.int64(): "int64", pa.int32(): "int32", pa.int16(): "int16",
             pa.float32(): "float32", pa.float64(): "float64", pa.bool_(): "bool", pa.binary(): "binary"}
    return {"dtype": names[t], "_type": "Value"}


def _with_hf_metadata(fields: list[tuple[str, pa.DataType]]) -> pa.Schema:
    features = {name: _hf_feature(t) for name, t in fields}
    meta = {b"huggingface": json.dumps({"info": {"features": features}}).encode()}
    return pa.schema(fields, metadata=meta)


TRAJECTORY_SCHEMA: pa.Schema = _with_hf_metadata(_FIELDS)

FAILED_SCHEMA: pa.Schema = pa.schema([
    ("id", pa.string()), ("seed", pa.int64()), ("scenario", pa.string()), ("shard", pa.int32()),
    ("index", pa.int32()), ("error", pa.string()), ("traceback", pa.string()),
])


def rows_to_table(rows: list[TrajectoryRow]) -> pa.Table:
    """Build a shard table from validated rows (column order and types from the schema)."""
    dicts = [r.model_dump() for r in rows]
    return pa.Table.from_pylist(dicts, schema=TRAJECTORY_SCHEMA)


def failures_to_table(failures: list[FailedRecord]) -> pa.Table:
    return pa.Table.from_pylist([f.model_dump() for f in failures], schema=FAILED_SCHEMA)


def row_from_dict(d: dict[str, Any]) -> TrajectoryRow:
    """Parse a row read back from Parquet (pyarrow `to_pylist`) into the pydantic model."""
    return TrajectoryRow.model_validate(d)
