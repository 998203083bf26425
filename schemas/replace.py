"""A validated copy of a pydantic model with some fields changed: the one way stage code updates a model.

pydantic's `model.model_copy(update={...})` validates nothing: a misspelt key is stored as a stray
attribute, a string lands in a float field, a detect_s of 5 s passes its `le=0.8` bound (issue #28).
`replace` builds the copy the way construction would, so the same checks run:

- a key that is not a field of the model raises `pydantic.ValidationError` (`extra_forbidden`),
  whatever the model's `extra` setting;
- the changed values go through the field's type, bounds and validators (a string for a float is
  coerced or refused exactly as the constructor would; a strict config field refuses it);
- the model's own `model_validator`s run again over the result.

Only the fields the original was given (`model_fields_set`) and the changes are passed, so what was
left to its default stays a default (a `RunConfig` made with `languages` still has no `language`, and
`exclude_unset` dumps read as before). Nested model instances that did not change are passed through
as they are (pydantic does not re-validate an instance of the field's own class), so the cost is one
shallow validation of the changed model; values in fields pydantic cannot validate (a numpy array
under `arbitrary_types_allowed`) are checked by `isinstance`, as at construction.
"""
from __future__ import annotations

from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

M = TypeVar("M", bound=BaseModel)


def replace(model: M, /, **changes: Any) -> M:
    """A copy of `model` with `changes` applied and validated as construction would validate them.

    Raises pydantic.ValidationError naming the field when a key is not a field of the model or a
    value does not fit it (or the model's validators refuse the result)."""
    cls = type(model)
    unknown = [k for k in changes if k not in cls.model_fields]
    if unknown:
        raise ValidationError.from_exception_data(cls.__name__, [
            {"type": "extra_forbidden", "loc": (k,), "input": changes[k]} for k in unknown])
    data: dict[str, Any] = {k: getattr(model, k) for k in model.model_fields_set}
    if model.__pydantic_extra__:
        data.update(model.__pydantic_extra__)
    data.update(changes)
    return cls.model_validate(data)
