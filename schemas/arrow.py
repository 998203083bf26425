"""Arrow schema of a trajectory shard (DESIGN §3), with Hugging Face feature metadata.

Both are derived from the pydantic models of schemas/trajectory.py (field order, names and
types), so a field is declared once. Storage widths other than the defaults ride on the field
annotations (`Float32`, `Int32`, `Int16`). The metadata lets `datasets.load_dataset("parquet", ...)`
type the audio columns as `Audio` with no custom code, without runtime code needing `datasets`.

The feature metadata is written in the vocabulary datasets 3.x writes itself (`Sequence` for a list of
values, `[ {...} ]` for a list of structs), which datasets 4 and 5 still read for backward
compatibility; datasets 4's own `List` is unknown to 3.x ("Feature type 'List' not found"). Measured:
datasets 3.6.0 and 5.2.0 both load a generated folder with the same Arrow types. `hf_yaml_features` is
the same features in a dataset card's YAML form (jobs/card.py).
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


_VALUE_DTYPES: dict[pa.DataType, str] = {
    pa.string(): "string", pa.int64(): "int64", pa.int32(): "int32", pa.int16(): "int16", pa.int8(): "int8",
    pa.float32(): "float32", pa.float64(): "float64", pa.bool_(): "bool", pa.binary(): "binary",
}


def _hf_feature(t: pa.DataType) -> Any:
    """The `datasets` feature of an Arrow type, as datasets 3.x serialises it (read by 3.x, 4.x and 5.x):
    Value, Audio, a struct as a dict, a list of structs as `[struct]`, any other list as `Sequence`."""
    if t == AUDIO_TYPE:
        return {"_type": "Audio"}
    if pa.types.is_list(t):
        item = _hf_feature(t.value_type)
        return [item] if pa.types.is_struct(t.value_type) else {"feature": item, "_type": "Sequence"}
    if pa.types.is_struct(t):
        return {f.name: _hf_feature(f.type) for f in t}
    return {"dtype": _VALUE_DTYPES[t], "_type": "Value"}


def hf_features(schema: pa.Schema) -> dict[str, Any]:
    """The `datasets` features (JSON form) of every column of `schema`, in column order."""
    return {f.name: _hf_feature(f.type) for f in schema}


def _yaml_feature(feature: Any) -> dict[str, Any]:
    """One feature in the card YAML form datasets 3.x writes (`dtype:`, `sequence:`, `list:`, `struct:`)."""
    if isinstance(feature, list):
        return {"list": _yaml_fields(feature[0])}
    kind = feature.get("_type")
    if kind == "Audio":
        return {"dtype": "audio"}
    if kind == "Value":
        return {"dtype": feature["dtype"]}
    if kind == "Sequence":
        inner = _yaml_feature(feature["feature"])
        return {"sequence": inner["dtype"] if list(inner) == ["dtype"] else inner}
    return {"struct": _yaml_fields(feature)}


def _yaml_fields(features: dict[str, Any]) -> list[dict[str, Any]]:
    return [{"name": name, **_yaml_feature(f)} for name, f in features.items()]


def hf_yaml_features(schema: pa.Schema) -> list[dict[str, Any]]:
    """`dataset_info.features` of a dataset card for `schema` (the same features as `hf_features`)."""
    return _yaml_fields(hf_features(schema))


def with_hf_metadata(fields: list[tuple[str, pa.DataType]]) -> pa.Schema:
    """An Arrow schema whose `huggingface` metadata types its columns for `datasets` (Audio included)."""
    schema = pa.schema(fields)
    meta = {b"huggingface": json.dumps({"info": {"features": hf_features(schema)}}).encode()}
    return schema.with_metadata(meta)


TRAJECTORY_SCHEMA: pa.Schema = with_hf_metadata(fields_of(TrajectoryRow))
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
