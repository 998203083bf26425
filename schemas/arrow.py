"""Arrow schema of a trajectory shard (DESIGN §3), with Hugging Face feature metadata.

Both are derived from the pydantic models of schemas/trajectory.py (field order, names and
types), so a field is declared once. Storage widths other than the defaults ride on the field
annotations (`Float32`, `Int32`, `Int16`). The metadata lets `datasets.load_dataset("parquet", ...)`
type the audio columns as `Audio` with no custom code, without runtime code needing `datasets`.
"""
from __future__ import annotations

import json
import types
from enum import Enum
from typing import Any, Union, get_args, get_origin

import pyarrow as pa
from pydantic import BaseModel
from pydantic.fields import FieldInfo

from schemas.trajectory import ArrowType, AudioBlob, FailedRecord, TrajectoryRow

AUDIO_COLUMNS: tuple[str, ...] = ("user_audio", "assistant_audio")
HEAVY_COLUMNS: tuple[str, ...] = ("user_audio", "assistant_audio", "frames")

# Python annotation -> Arrow type, where the field carries no ArrowType.
_DEFAULT_TYPES: dict[type, pa.DataType] = {
    str: pa.string(), int: pa.int64(), float: pa.float64(), bool: pa.bool_(), bytes: pa.binary(),
}


def _arrow_of(annotation: Any, metadata: list[Any]) -> pa.DataType:
    """The Arrow type of one field annotation (Optional is nullable storage of the inner type)."""
    for m in metadata:
        if isinstance(m, ArrowType):
            return getattr(pa, m.name)()
    origin = get_origin(annotation)
    if origin in (Union, types.UnionType):
        inner = [a for a in get_args(annotation) if a is not type(None)]
        if len(inner) != 1:
            raise TypeError(f"no Arrow type for the union {annotation}")
        return _arrow_of(inner[0], [])
    if origin is list:
        (item,) = get_args(annotation)
        item_meta: list[Any] = []
        if get_origin(item) is not None and hasattr(item, "__metadata__"):   # Annotated[...]
            item_meta, item = list(item.__metadata__), get_args(item)[0]
        return pa.list_(_arrow_of(item, item_meta))
    if hasattr(annotation, "__metadata__"):   # Annotated at top level (pydantic usually unwraps it)
        return _arrow_of(get_args(annotation)[0], list(annotation.__metadata__))
    if isinstance(annotation, type) and issubclass(annotation, Enum):
        return pa.string()   # StrEnum: stored as its value
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return struct_of(annotation)
    if annotation in _DEFAULT_TYPES:
        return _DEFAULT_TYPES[annotation]
    raise TypeError(f"no Arrow type for {annotation!r}")


def _field_type(info: FieldInfo) -> pa.DataType:
    return _arrow_of(info.annotation, list(info.metadata))


def fields_of(model: type[BaseModel]) -> list[tuple[str, pa.DataType]]:
    """(name, Arrow type) of every field of `model`, in declaration order."""
    return [(name, _field_type(info)) for name, info in model.model_fields.items()]


def struct_of(model: type[BaseModel]) -> pa.DataType:
    return pa.struct(fields_of(model))


AUDIO_TYPE = struct_of(AudioBlob)


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


TRAJECTORY_SCHEMA: pa.Schema = _with_hf_metadata(fields_of(TrajectoryRow))
FAILED_SCHEMA: pa.Schema = pa.schema(fields_of(FailedRecord))


def rows_to_table(rows: list[TrajectoryRow]) -> pa.Table:
    """Build a shard table from validated rows (column order and types from the schema)."""
    dicts = [r.model_dump() for r in rows]
    return pa.Table.from_pylist(dicts, schema=TRAJECTORY_SCHEMA)


def failures_to_table(failures: list[FailedRecord]) -> pa.Table:
    return pa.Table.from_pylist([f.model_dump() for f in failures], schema=FAILED_SCHEMA)


def row_from_dict(d: dict[str, Any]) -> TrajectoryRow:
    """Parse a row read back from Parquet (pyarrow `to_pylist`) into the pydantic model."""
    return TrajectoryRow.model_validate(d)
