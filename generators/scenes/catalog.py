"""The object catalogue (scenes.yaml): what each scene kind can show, read and checked once.

Content is data: labels, colours, sizes, texts and states live in scenes.yaml; this module only
gives them a schema and refuses a file that breaks it, naming the entry.
"""
from __future__ import annotations

import functools
import re
from pathlib import Path

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from schemas.scene import RGB, SceneKind, Shape

CATALOG_FILE = Path(__file__).with_name("scenes.yaml")
_LABEL = re.compile(r"^[a-z]+$")


class CatalogError(ValueError):
    """scenes.yaml does not load or does not check; the message names the file and the entry."""


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class ObjectSpec(_Strict):
    label: str
    shape: Shape
    size: tuple[float, float]              # width, height as frame fractions
    colours: tuple[str, ...] = Field(min_length=1)
    texts: tuple[str, ...] = ()
    states: tuple[str, ...] = ()            # initial state first

    @model_validator(mode="after")
    def _check(self) -> "ObjectSpec":
        if not _LABEL.match(self.label):
            raise ValueError(f"label {self.label!r} must be one lowercase word")
        if not all(0.0 < s <= 0.6 for s in self.size):
            raise ValueError(f"{self.label}: size {self.size} outside (0, 0.6]")
        if len(self.states) == 1:
            raise ValueError(f"{self.label}: states need an initial one and at least one to change to")
        return self


class KindSpec(_Strict):
    place: str
    walls: tuple[RGB, ...] = Field(min_length=1)
    surfaces: tuple[RGB, ...] = Field(min_length=1)
    objects: tuple[ObjectSpec, ...] = Field(min_length=3)


class RenderRanges(_Strict):
    jitter_px: tuple[float, float]
    light_start: tuple[float, float]
    light_drift: tuple[float, float]
    flicker: tuple[float, float]
    blur: tuple[float, float]
    noise: tuple[float, float]
    jpeg_quality: tuple[int, int]
    occluder_prob: float = Field(ge=0.0, le=1.0)


class Catalog(_Strict):
    colours: dict[str, RGB]
    states: dict[str, RGB]
    render: RenderRanges
    kinds: dict[SceneKind, KindSpec]
    # objects a planner puts in a scene on purpose, with a text it chooses (never drawn at random,
    # so adding one changes no seed's scene): visual_delegation's ticket, showing a flight code
    props: dict[str, ObjectSpec] = {}

    @model_validator(mode="after")
    def _references(self) -> "Catalog":
        if set(self.kinds) != set(SceneKind):
            raise ValueError(f"kinds must be exactly {[k.value for k in SceneKind]}")
        for kind, spec in self.kinds.items():
            labels = [o.label for o in spec.objects]
            if len(set(labels)) != len(labels):
                raise ValueError(f"kinds.{kind}: an object label is used twice")
            for o in spec.objects:
                for c in o.colours:
                    if c not in self.colours:
                        raise ValueError(f"kinds.{kind}.{o.label}: colour {c!r} is not in colours")
                for s in o.states:
                    if s not in self.states:
                        raise ValueError(f"kinds.{kind}.{o.label}: state {s!r} is not in states")
        for name, o in self.props.items():
            if o.label != name or any(c not in self.colours for c in o.colours):
                raise ValueError(f"props.{name}: its label must be its name and its colours in colours")
        return self


def read_catalog(path: Path) -> Catalog:
    """The catalogue at `path`, checked (CatalogError names the file and the bad entry)."""
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        return Catalog.model_validate(data)
    except (OSError, yaml.YAMLError) as err:
        raise CatalogError(f"{path.name}: {err}") from None
    except ValidationError as err:
        e = err.errors()[0]
        where = ".".join(str(p) for p in e["loc"])
        raise CatalogError(f"{path.name}: {where}: {str(e['msg']).removeprefix('Value error, ')}") from None


@functools.cache
def catalog() -> Catalog:
    """The shipped catalogue, read once per process."""
    return read_catalog(CATALOG_FILE)
