"""Load a text-bank folder (``generators/banks/<lang>/``), lint it, and build what the planners use.

:func:`load_bank` reads every YAML file of the folder against :mod:`generators.banks.model`
and lints it as it loads. Any problem raises one :class:`BankError` naming the file and the
entry: unknown keys, duplicate entries (mapping keys, templates in one list, table keys,
names defined in two files), unbalanced ``[ ]`` / ``{ }``, a template slot the entry does
not have, a derive or sample function the language's registry lacks, a template that does
not render with the entry's slots; for delegated requests also a relay part needing a fact its
reader does not declare, a reader argument the function does not take, a call the harness refuses
and a reader returning an undeclared fact; and an answer saying a fact its request does not give
(:mod:`.facts`: a coupon the user never mentioned, a forecast without a lookup). The language package (``generators.banks.<lang>``)
supplies the registry: ``FUNCTIONS`` (derive, sample and read functions, by name), ``LISTS``
(value lists other code owns, e.g. the day names the harness understands) and ``SAY_TIME``.

Loading is cached per process by (folder, language) with :func:`functools.cache`.
"""

from __future__ import annotations

import functools
import importlib
import inspect
import re
from collections import namedtuple
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any, Callable, Iterator, Mapping, Sequence

import numpy as np
import pydantic
import yaml

from generators.harness import HarnessState, execute

from . import model
from .delegations import Delegations, Part, Phrases, Result, Revision, Spec
from .facts import correction_says, hidden_facts, unrestated_facts, unsaid_facts
from .rules import Rules
from .engine import (
    Correction,
    Rng,
    Scenario,
    Slots,
    SlotSampler,
    cents_between,
    choice_of,
    draw_slots,
    expansions,
    int_between,
    render,
    seed_slot,
)

BANKS_DIR = Path(__file__).resolve().parent
# visual.yaml (the Omni families' lines) is read and linted by generators/scenes/bank.py, not here.
FIXED_FILES = ("language.yaml", "common.yaml", "chatter.yaml", "delegation.yaml", "visual.yaml", "babble.yaml")
# slots every correction phrase may use besides the entry's own (and their old_ forms)
_CORRECTION_SLOTS = ("new", "old")
# slots every delegation phrase may use: the task's topic, a short name for it, the service answering it
_TASK_SLOTS = frozenset({"topic", "short", "service"})
_CLASH_SLOTS = frozenset({"c_day", "c_time", "c_title"})
_REVISION_SLOTS = frozenset({"new", "old", "verb"})
_SLOT_NAME = re.compile(r"\{(\w+)\}")
# samples drawn per entry to check that its templates render
_LINT_DRAWS = 2


class BankError(ValueError):
    """A text-bank file that does not load or does not lint; the message names file and entry."""


# =========================================================================== runtime data


@dataclass(frozen=True)
class Table:
    """Rows (named tuples) looked up by their key field."""

    name: str
    key: str
    rows: tuple[Any, ...]
    _index: Mapping[object, Any] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_index", MappingProxyType({getattr(r, self.key): r for r in self.rows}))

    def __getitem__(self, key: object) -> Any:
        return self._index[key]

    def __iter__(self) -> Iterator[Any]:
        return iter(self.rows)

    def __len__(self) -> int:
        return len(self.rows)

    def keys(self) -> tuple[Any, ...]:
        return tuple(getattr(r, self.key) for r in self.rows)


@dataclass(frozen=True)
class BankData:
    """The named lists and tables of one language folder: what derive and sample functions read."""

    lists: Mapping[str, tuple[Any, ...]]
    tables: Mapping[str, Table]


@dataclass(frozen=True)
class SlotDraw:
    """Slots drawn in order plus an optional derive step (chatter entries)."""

    slots: Mapping[str, SlotSampler]
    derive: Callable[[Slots], Slots] | None = None

    def draw(self, rng: Rng) -> Slots:
        out = draw_slots(rng, self.slots)
        if self.derive is not None:
            out.update(self.derive(dict(out)))
        return out


@dataclass(frozen=True)
class Chatter:
    resume: tuple[str, ...]
    discard: tuple[str, ...]
    park_drop: tuple[str, ...]
    stop: tuple[str, ...]
    backchannels: tuple[str, ...]
    hesitations: tuple[str, ...]
    other_slots: SlotDraw
    other_directed: tuple[str, ...]
    background: tuple[str, ...]
    smalltalk_slots: SlotDraw
    smalltalk: tuple[tuple[tuple[str, ...], tuple[str, ...]], ...]   # (user lines, replies)
    timer_slots: SlotDraw
    timer_request: tuple[str, ...]
    timer_ack: tuple[str, ...]
    timer_announce: tuple[str, ...]
    acks: tuple[str, ...]                        # said as written
    closings: tuple[tuple[str, str], ...]        # (user line, reply), said as written


@dataclass(frozen=True)
class Bank:
    """Everything one language folder provides to :mod:`generators.text_bank`."""

    language: str
    domains: tuple[str, ...]                 # in the order of language.yaml
    domain_topics: Mapping[str, str]
    scenarios: tuple[Scenario, ...]          # file by file, in file order
    generic_user_corrections: tuple[str, ...]
    generic_acks: tuple[str, ...]
    chatter: Chatter
    delegations: Delegations
    data: BankData
    rules: Rules                              # how its templates become text (the folder's RULES)


# =========================================================================== YAML reading


# libyaml's parser when PyYAML was built with it (ten times faster), else the pure Python one
_SafeLoader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class _UniqueKeyLoader(_SafeLoader):  # type: ignore[misc, valid-type]
    """Safe loader that refuses a mapping key given twice (plain PyYAML keeps the last one)."""


def _construct_mapping(loader: _UniqueKeyLoader, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
    seen: set[Any] = set()
    for key_node, _ in node.value:
        key = loader.construct_object(key_node, deep=True)
        if key in seen:
            raise BankError(f"duplicate key {key!r} (line {key_node.start_mark.line + 1})")
        seen.add(key)
    return dict(loader.construct_pairs(node, deep=deep))


_UniqueKeyLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)


def _read(path: Path, schema: type[pydantic.BaseModel]) -> Any:
    try:
        raw = yaml.load(path.read_text(encoding="utf-8"), Loader=_UniqueKeyLoader)
    except BankError as exc:
        raise BankError(f"{path.name}: {exc}") from None
    except yaml.YAMLError as exc:
        raise BankError(f"{path.name}: not valid YAML: {exc}") from None
    try:
        return schema.model_validate(raw)
    except pydantic.ValidationError as exc:
        first = exc.errors()[0]
        raise BankError(f"{path.name}: {_location(raw, first['loc'])}: {first['msg']}") from None


def _location(raw: Any, loc: Sequence[int | str]) -> str:
    """A pydantic error location with named entries spelt out: ``scenarios[3] 'recipe'.weigth``."""
    out = ""
    node = raw
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
            node = node[part] if isinstance(node, list) and part < len(node) else None
            if isinstance(node, dict) and isinstance(node.get("name"), str):
                out += f" {node['name']!r}"
        else:
            out += ("." if out else "") + part
            node = node.get(part) if isinstance(node, dict) else None
    return out or "top level"


# =========================================================================== freezing values


def _freeze(value: Any, classes: dict[tuple[str, ...], type]) -> Any:
    """YAML lists become tuples and mappings named tuples, so values are hashable and immutable."""
    if isinstance(value, list | tuple):
        return tuple(_freeze(v, classes) for v in value)
    if isinstance(value, dict):
        fields = tuple(value)
        if fields not in classes:
            classes[fields] = namedtuple("Row", fields)  # type: ignore[misc]
        return classes[fields](*(_freeze(v, classes) for v in value.values()))
    return value


def _table(where: str, name: str, spec: model.Table, classes: dict[tuple[str, ...], type]) -> Table:
    fields = tuple(spec.rows[0])
    if spec.key not in fields:
        raise BankError(f"{where}: table {name!r}: key field {spec.key!r} is not a field of its rows")
    for i, row in enumerate(spec.rows):
        if tuple(row) != fields:
            raise BankError(f"{where}: table {name!r} row {i}: fields {list(row)} differ from the first row's {list(fields)}")
    rows = tuple(_freeze(row, classes) for row in spec.rows)
    _no_duplicates(f"{where}: table {name!r}", [getattr(r, spec.key) for r in rows], "key")
    return Table(name, spec.key, rows)


def _no_duplicates(where: str, items: Sequence[Any], what: str = "entry") -> None:
    seen: set[Any] = set()
    for i, item in enumerate(items):
        if item in seen:
            raise BankError(f"{where}: duplicate {what} {item!r} (item {i})")
        seen.add(item)


# =========================================================================== template lint


def check_template(where: str, template: str, allowed: frozenset[str] | None) -> None:
    """Balanced ``[ ]`` / ``{ }``, no ``|`` outside an alternation, every ``{slot}`` in ``allowed``.

    ``allowed=None`` means a plain phrase said as written: no alternations and no slots at all.
    """
    if allowed is None:
        bad = sorted(set(template) & set("[]{}|"))
        if bad:
            raise BankError(f"{where}: {template!r} is said as written but contains {''.join(bad)}")
        return
    depth = 0
    i = 0
    while i < len(template):
        ch = template[i]
        if ch == "[":
            depth += 1
        elif ch == "]":
            depth -= 1
            if depth < 0:
                raise BankError(f"{where}: unbalanced ']' at column {i} in {template!r}")
        elif ch == "|" and depth == 0:
            raise BankError(f"{where}: '|' outside [ ] at column {i} in {template!r}")
        elif ch == "{":
            m = _SLOT_NAME.match(template, i)
            if m is None:
                raise BankError(f"{where}: unbalanced '{{' at column {i} in {template!r}")
            if m.group(1) not in allowed:
                raise BankError(f"{where}: unknown slot {{{m.group(1)}}} in {template!r}")
            i = m.end()
            continue
        elif ch == "}":
            raise BankError(f"{where}: unbalanced '}}' at column {i} in {template!r}")
        i += 1
    if depth != 0:
        raise BankError(f"{where}: unbalanced '[' ({depth} not closed) in {template!r}")


def _check_list(where: str, templates: Sequence[str], allowed: frozenset[str] | None) -> None:
    _no_duplicates(where, templates, "template")
    for i, t in enumerate(templates):
        check_template(f"{where}[{i}]", t, allowed)


def _check_renders(where: str, templates: Sequence[str], slots: Mapping[str, object]) -> None:
    """Render each template (alternations drawn by its index): no error, no syntax left in the text."""
    for i, t in enumerate(templates):
        try:
            text = render(t, slots, i)
        except (KeyError, ValueError, IndexError) as exc:
            raise BankError(f"{where}[{i}]: does not render ({exc}) with slots {sorted(slots)}: {t!r}") from None
        if any(c in text for c in "[]{}|") or not text.strip():
            raise BankError(f"{where}[{i}]: renders to {text!r}: {t!r}")


# =========================================================================== building


@dataclass(frozen=True)
class _Registry:
    functions: Mapping[str, Callable[..., Any]]
    lists: Mapping[str, tuple[Any, ...]]
    say_time: Callable[[Rng, str], str]
    say_day: Callable[[str], str]
    rules: Rules


def _registry(language: str) -> _Registry:
    module = importlib.import_module(f"generators.banks.{language}")
    functions: dict[str, Callable[..., Any]] = {}
    for fn in module.FUNCTIONS:
        if fn.__name__ in functions:
            raise BankError(f"generators.banks.{language}: two functions named {fn.__name__!r}")
        functions[fn.__name__] = fn
    return _Registry(MappingProxyType(functions), MappingProxyType(dict(module.LISTS)), module.SAY_TIME,
                     getattr(module, "SAY_DAY", str), module.RULES)


class _Builder:
    """Turns validated file models into runtime objects, linting as it goes."""

    def __init__(self, registry: _Registry) -> None:
        self.registry = registry
        self.lists: dict[str, tuple[Any, ...]] = {}
        self.tables: dict[str, Table] = {}
        self.defined_in: dict[str, str] = {name: "the language's LISTS registry" for name in registry.lists}
        self.lists.update(registry.lists)
        self.classes: dict[tuple[str, ...], type] = {}
        self.data = BankData(MappingProxyType(self.lists), MappingProxyType(self.tables))

    def add_data(self, where: str, data: model.Data) -> None:
        for name, values in data.lists.items():
            self._define(where, name)
            if not values:
                raise BankError(f"{where}: list {name!r} is empty")
            frozen = _freeze(values, self.classes)
            _no_duplicates(f"{where}: list {name!r}", frozen, "value")
            self.lists[name] = frozen
        for name, spec in data.tables.items():
            self._define(where, name)
            self.tables[name] = _table(where, name, spec, self.classes)

    def _define(self, where: str, name: str) -> None:
        if name in self.defined_in:
            raise BankError(f"{where}: list or table {name!r} is already defined in {self.defined_in[name]}")
        self.defined_in[name] = where

    def function(self, where: str, name: str) -> Callable[..., Any]:
        if name not in self.registry.functions:
            raise BankError(f"{where}: unknown function {name!r} (not in the language's FUNCTIONS registry)")
        return self.registry.functions[name]

    def sampler(self, where: str, spec: model.SlotSpec) -> SlotSampler:
        if spec.list_ is not None:
            if spec.list_ not in self.lists:
                raise BankError(f"{where}: unknown list {spec.list_!r}")
            return choice_of(self.lists[spec.list_])
        if spec.values is not None:
            return choice_of(_freeze(spec.values, self.classes))
        if spec.table is not None or spec.keys is not None:
            name = spec.table if spec.table is not None else spec.keys
            if name not in self.tables:
                raise BankError(f"{where}: unknown table {name!r}")
            table = self.tables[name]
            return choice_of(table.rows if spec.table is not None else table.keys())
        if spec.int_ is not None:
            lo, hi, step = (*spec.int_, 1)[:3]
            if hi < lo or step < 1:
                raise BankError(f"{where}: int range {list(spec.int_)} is empty")
            return int_between(lo, hi, step)
        if spec.cents is not None:
            if spec.cents[1] < spec.cents[0]:
                raise BankError(f"{where}: cents range {list(spec.cents)} is empty")
            return cents_between(*spec.cents)
        if spec.seed:
            return seed_slot
        fn = self.function(where, str(spec.sample))
        data = self.data
        return lambda rng, slots: fn(rng, slots, data)

    def slot_set(self, where: str, spec: model.SlotSet) -> tuple[dict[str, SlotSampler], Callable[[Slots], Slots] | None]:
        samplers = {name: self.sampler(f"{where} slot {name!r}", s) for name, s in spec.slots.items()}
        derive = None
        if spec.derive is not None:
            fn = self.function(f"{where} derive", spec.derive)
            derive = functools.partial(fn, data=self.data)
        _no_duplicates(f"{where} derived", spec.derived, "slot")
        return samplers, derive

    def check_derived(self, where: str, spec: model.SlotSet, samplers: Mapping[str, SlotSampler],
                      derive: Callable[[Slots], Slots] | None) -> list[Slots]:
        """Draw a few slot sets; the derive function returns only declared slots."""
        views = []
        rng = np.random.default_rng(20240611)
        for _ in range(_LINT_DRAWS):
            base = draw_slots(rng, samplers)
            view = dict(base)
            if derive is not None:
                try:
                    extra = derive(dict(base))
                except Exception as exc:
                    raise BankError(f"{where}: derive {spec.derive!r} fails on {base}: {exc!r}") from None
                undeclared = sorted(set(extra) - set(spec.derived))
                if undeclared:
                    raise BankError(f"{where}: derive {spec.derive!r} returns undeclared slots {undeclared}")
                view.update(extra)
            views.append(view)
        return views


def _names(spec: model.SlotSet) -> frozenset[str]:
    return frozenset(spec.slots) | frozenset(spec.derived)


def _scenario(b: _Builder, file: str, domain: str, sc: model.Scenario) -> Scenario:
    where = f"{file}: scenario {sc.name!r}"
    samplers, derive = b.slot_set(where, sc)
    names = _names(sc)
    corr_names = names | {f"old_{n}" for n in names} | frozenset(_CORRECTION_SLOTS)
    _check_list(f"{where} request", sc.request, names)
    for i, options in enumerate(sc.answer):
        _check_list(f"{where} answer[{i}]", options, names)
    _check_list(f"{where} topic", sc.topic, names)
    _no_duplicates(f"{where} corrections", [c.slot for c in sc.corrections], "correction slot")
    for c in sc.corrections:
        cw = f"{where} correction {c.slot!r}"
        if c.slot not in sc.slots:
            raise BankError(f"{cw}: corrects {c.slot!r}, which is not one of the drawn slots {list(sc.slots)}")
        check_template(f"{cw} show", c.show, names)
        _check_list(f"{cw} user", c.user, corr_names)
        _check_list(f"{cw} ack", c.ack, corr_names)
        if not c.generic and not (c.user and c.ack):
            raise BankError(f"{cw}: generic: false needs its own user and ack phrases")
    for view in b.check_derived(where, sc, samplers, derive):
        _check_renders(f"{where} request", sc.request, view)
        for i, options in enumerate(sc.answer):
            _check_renders(f"{where} answer[{i}]", options, view)
        _check_renders(f"{where} topic", sc.topic, view)
        ctx = {**view, **{f"old_{k}": v for k, v in view.items()}, "new": "x", "old": "y"}
        for c in sc.corrections:
            cw = f"{where} correction {c.slot!r}"
            _check_renders(f"{cw} show", (c.show,), view)
            _check_renders(f"{cw} user", c.user, ctx)
            _check_renders(f"{cw} ack", c.ack, ctx)
    dependent = [n for n, spec in sc.slots.items() if spec.sample is not None]
    unsaid = unsaid_facts(samplers, derive, sc.request, sc.answer, sc.own, dependent)
    seeds = [n for n, spec in sc.slots.items() if spec.seed and n not in sc.own]
    if seeds and not unsaid:   # a seed changes the request with the answer: search for two draws that read the same
        unsaid = hidden_facts(samplers, derive, sc.request, sc.answer, seeds, dependent)
    if unsaid:
        template, slot, drawn = unsaid[0]
        raise BankError(f"{where} answer: says {{{slot}}}, which follows {drawn!r}, but the request {template!r} "
                        f"does not say it (a fact the user never gave; {len(unsaid)} such pairs)")
    for c in sc.corrections:
        stale = unrestated_facts(samplers, derive, sc.request, c.slot, correction_says(c.show, c.user, c.generic),
                                 c.forms)
        if stale:
            raise BankError(f"{where} correction {c.slot!r}: changes {', '.join('{' + n + '}' for n in stale)}, which "
                            f"the request states, but its phrases do not say the new value (say it in its user "
                            f"phrases with generic: false, or list a form of the slot under forms)")
    corrections = tuple(Correction(c.slot, c.show, c.user, c.ack, c.generic) for c in sc.corrections)
    return Scenario(domain=domain, slots=MappingProxyType(samplers), request=sc.request, answer=sc.answer,
                    corrections=corrections, topic=sc.topic, derive=derive, weight=sc.weight, keep=sc.keep)


def _slot_draw(b: _Builder, where: str, spec: model.SlotSet,
               lists: Mapping[str, Sequence[str]]) -> SlotDraw:
    """A chatter slot set whose template lists (``lists``) are linted against its slots."""
    samplers, derive = b.slot_set(where, spec)
    names = _names(spec)
    for key, templates in lists.items():
        _check_list(f"{where} {key}", templates, names)
    for view in b.check_derived(where, spec, samplers, derive):
        for key, templates in lists.items():
            _check_renders(f"{where} {key}", templates, view)
    return SlotDraw(MappingProxyType(samplers), derive)


def _smalltalk_fits(where: str, st: model.Smalltalk) -> None:
    """A small-talk reply says nothing about the user that one of its pair's user lines leaves out
    ("feeling tired because work was long" after "I'm so tired today"; "Paris in May" after "Have you
    heard good things about Paris?"): its slots are in every user line, or the assistant's ``own``."""
    for i, pair in enumerate(st.pairs):
        said = frozenset.intersection(*(frozenset(_SLOT_NAME.findall(u)) for u in pair.user))
        if all(any(x.rstrip().endswith(("?", "？")) for x in expansions(r)) for r in pair.reply):
            raise BankError(f"{where} pairs[{i}]: every reply can end on a question; one that cannot is "
                            f"needed where the assistant speaks next unprompted (DESIGN §2 rule 7)")
        for r in pair.reply:
            extra = sorted(set(_SLOT_NAME.findall(r)) - said - set(st.own))
            if extra:
                raise BankError(f"{where} pairs[{i}] reply {r!r} says {extra}, which not every user line of "
                                f"the pair says (a reply may add only the slots in `own`)")


def _chatter(b: _Builder, file: str, c: model.ChatterFile) -> Chatter:
    topic = frozenset({"topic"})
    for key, templates, allowed in (("resume", c.resume, topic), ("discard", c.discard, topic),
                                    ("park_drop", c.park_drop, topic),
                                    ("stop", c.stop, frozenset()), ("backchannels", c.backchannels, None),
                                    ("hesitations", c.hesitations, None), ("acks", c.acks, None),
                                    ("closings user", tuple(x.user for x in c.closings), None),
                                    ("closings reply", tuple(x.reply for x in c.closings), None)):
        _check_list(f"{file}: {key}", templates, allowed)
        if allowed is not None:
            _check_renders(f"{file}: {key}", templates, {"topic": "the plan"})
    other = _slot_draw(b, f"{file}: other_people", c.other_people,
                       {"other_directed": c.other_people.other_directed, "background": c.other_people.background})
    pairs = {}
    for i, pair in enumerate(c.smalltalk.pairs):
        pairs[f"pairs[{i}] user"] = pair.user
        pairs[f"pairs[{i}] reply"] = pair.reply
    smalltalk = _slot_draw(b, f"{file}: smalltalk", c.smalltalk, pairs)
    _smalltalk_fits(f"{file}: smalltalk", c.smalltalk)
    _no_duplicates(f"{file}: smalltalk pairs", [p.user for p in c.smalltalk.pairs], "pair")
    timer = _slot_draw(b, f"{file}: timer", c.timer,
                       {"request": c.timer.request, "ack": c.timer.ack, "announce": c.timer.announce})
    return Chatter(
        resume=c.resume, discard=c.discard, park_drop=c.park_drop, stop=c.stop, backchannels=c.backchannels, hesitations=c.hesitations,
        other_slots=other, other_directed=c.other_people.other_directed, background=c.other_people.background,
        smalltalk_slots=smalltalk, smalltalk=tuple((p.user, p.reply) for p in c.smalltalk.pairs),
        timer_slots=timer, timer_request=c.timer.request, timer_ack=c.timer.ack, timer_announce=c.timer.announce,
        acks=c.acks, closings=tuple((x.user, x.reply) for x in c.closings),
    )


def _args_template(where: str, template: str, allowed: frozenset[str]) -> None:
    """A harness argument is filled with slots only: no alternations."""
    bad = sorted(set(template) & set("[]|"))
    if bad:
        raise BankError(f"{where}: {template!r} is a harness argument but contains {''.join(bad)}")
    check_template(where, template, allowed)


def _no_varied_arguments(b: _Builder, where: str, sp: model.DelegationSpec) -> None:
    """A slot a harness argument names takes one value: its variants ("[a|b]") are for speech only."""
    used = {m.group(1) for t in (*sp.args.values(), *(sp.undo or {}).values()) for m in re.finditer(r"\{(\w+)\}", t)}
    for name in sorted(used & set(sp.slots)):
        s = sp.slots[name]
        values = b.lists.get(s.list_, ()) if s.list_ is not None else s.values or ()
        varied = [v for v in values if isinstance(v, str) and set(v) & set("[]|")]
        if varied:
            raise BankError(f"{where}: harness arguments ['{name}'] take slot {name!r}, whose value {varied[0]!r} "
                            "has alternations (a harness argument takes one value)")


def _reader(b: _Builder, where: str, spec: model.DelegationSpec) -> Callable[[Rng, Result, Slots], dict[str, object]]:
    read = spec.read if isinstance(spec.read, model.Reader) else model.Reader(fn=spec.read)
    fn = b.function(f"{where} read", read.fn)
    try:
        inspect.signature(fn).bind(None, None, {}, b.data, **read.with_)
    except TypeError as exc:
        raise BankError(f"{where} read: {read.fn}({', '.join(read.with_)}): {exc}") from None
    return functools.partial(fn, data=b.data, **read.with_)


def _delegation_spec(b: _Builder, file: str, df: model.DelegationFile, sp: model.DelegationSpec) -> Spec:
    where = f"{file}: spec {sp.name!r}"
    samplers, derive = b.slot_set(where, sp)
    names = _names(sp) | {"service"}
    task = names | _TASK_SLOTS
    facts = frozenset(sp.facts)
    _no_duplicates(f"{where} facts", sp.facts, "fact")
    for key, t in sp.args.items():
        _args_template(f"{where} args {key!r}", t, names)
    for key, t in (sp.undo or {}).items():
        _args_template(f"{where} undo {key!r}", t, names)
    _no_varied_arguments(b, where, sp)
    _check_list(f"{where} user", sp.user, names)
    _check_list(f"{where} ack", sp.ack, names)
    _check_list(f"{where} short", sp.short, names)
    check_template(f"{where} topic", sp.topic, names)
    check_template(f"{where} request", sp.request, names)
    fallback = df.fallback if sp.fallback is None else sp.fallback
    _check_list(f"{where} fallback", fallback, task)
    for i, part in enumerate(sp.relay):
        pw = f"{where} relay[{i}]"
        unknown = sorted(set(part.needs) - facts)
        if unknown:
            raise BankError(f"{pw}: needs {unknown}, which are not among the reader's facts {list(sp.facts)}")
        _check_list(f"{pw} say", part.say, task | facts)
    if not any(part.main for part in sp.relay):
        raise BankError(f"{where}: relay has no main part (nothing answers the question)")
    _no_duplicates(f"{where} relay", [(p.needs, p.say) for p in sp.relay], "relay part")
    _no_duplicates(f"{where} revisions", [r.slot for r in sp.revisions], "revision slot")
    rev_names = names | {f"old_{n}" for n in names} | _REVISION_SLOTS
    revisions = []
    for r in sp.revisions:
        rw = f"{where} revision {r.slot!r}"
        if r.slot not in sp.slots:
            raise BankError(f"{rw}: revises {r.slot!r}, which is not one of the drawn slots {list(sp.slots)}")
        check_template(f"{rw} show", r.show, names)
        _check_list(f"{rw} user", r.user, rev_names)
        _check_list(f"{rw} ack", r.ack, rev_names)
        revisions.append(Revision(r.slot, r.show, b.sampler(f"{rw} draw", r.draw), r.verb, r.user, r.ack))
    _call_says_only_the_request(where, sp, samplers, derive)
    spec = Spec(
        name=sp.name, domain=sp.domain, tool=df.tool, slots=MappingProxyType(samplers), args=MappingProxyType(dict(sp.args)),
        user=sp.user, ack=sp.ack, topic=sp.topic, short=sp.short, service=sp.service or df.service, request=sp.request,
        read=_reader(b, where, sp), relay=tuple(Part(p.needs, p.say, p.main is not None, p.note is not None) for p in sp.relay),
        derive=derive, revisions=tuple(revisions), fallback=fallback, weight=sp.weight,
        undo=None if sp.undo is None else MappingProxyType(dict(sp.undo)),
    )
    for base in b.check_derived(where, sp, samplers, derive):
        view = spec.view(base)
        ctx = {**view, "topic": "the plan", "short": "the check"}
        _check_renders(f"{where} user", sp.user, view)
        _check_renders(f"{where} ack", sp.ack, view)
        _check_renders(f"{where} short", sp.short, view)
        _check_renders(f"{where} topic", (sp.topic,), view)
        _check_renders(f"{where} request", (sp.request,), view)
        _check_renders(f"{where} fallback", fallback, ctx)
        for i, part in enumerate(sp.relay):
            _check_renders(f"{where} relay[{i}] say", part.say, {**ctx, **{f: "x" for f in sp.facts}})
        rev_ctx = {**view, **{f"old_{k}": v for k, v in view.items()}, "new": "x", "old": "y", "verb": "checking"}
        for r in sp.revisions:
            _check_renders(f"{where} revision {r.slot!r} user", r.user, rev_ctx)
            _check_renders(f"{where} revision {r.slot!r} ack", r.ack, rev_ctx)
        # the call runs on a fresh harness, and its reader finds only declared facts, enough for a main part
        call = spec.call(base)
        varied = sorted(k for k, v in call.args.items() if set(v) & set("[]|"))
        if varied:   # a slot value's variants are for speech; the harness takes one value
            raise BankError(f"{where}: harness arguments {varied} take a slot value with alternations: {dict(call.args)}")
        state = HarnessState()
        status, text, fields = execute(call, state)
        if status != "ok":
            raise BankError(f"{where}: the harness refuses the call {dict(call.args)}: {text}")
        undo = spec.undo_call(base)
        if undo is not None:   # run right after the call, the undo takes its effect back
            u_status, u_text, _ = execute(undo, state)
            if u_status != "ok":
                raise BankError(f"{where}: the harness refuses the undo call {dict(undo.args)}: {u_text}")
        found = spec.read(np.random.default_rng(0), Result(text.rstrip("."), fields, True), base)
        undeclared = sorted(set(found) - facts)
        if undeclared:
            raise BankError(f"{where}: read {sp.read!r} returns undeclared facts {undeclared}")
        if not any(p.main and set(p.needs) <= set(found) for p in spec.relay):
            raise BankError(f"{where}: no main relay part can say the result {text!r} (facts {sorted(found)})")
    return spec


def _call_says_only_the_request(where: str, sp: model.DelegationSpec, samplers: Mapping[str, SlotSampler],
                                derive: Callable[[Slots], Slots] | None) -> None:
    """The harness call and the private request carry only what every user line says (a booking's length the
    user never gave is a default the assistant made up, and its relay would then state it). ``seed`` slots are
    exempt: they stand for the world the service knows (tomorrow's weather), not for something the user says."""
    world = [n for n, spec in sp.slots.items() if spec.seed]
    call = (*sp.args.values(), *(sp.undo or {}).values(), sp.request)
    unsaid = unsaid_facts(samplers, derive, sp.user, (call,), world,
                          [n for n, spec in sp.slots.items() if spec.sample is not None])
    if unsaid:
        template, slot, drawn = unsaid[0]
        raise BankError(f"{where}: the harness call says {{{slot}}}, which follows {drawn!r}, but the user line "
                        f"{template!r} does not say it (a value the user never gave; {len(unsaid)} such pairs)")


def _phrases(file: str, p: model.DelegationPhrasesFile) -> Phrases:
    task, clash = _TASK_SLOTS, _TASK_SLOTS | _CLASH_SLOTS
    lists = {
        "partial.open": (p.partial.open, task), "partial.nothing": (p.partial.nothing, task),
        "partial.offer": (p.partial.offer, task), "failure.timeout": (p.failure.timeout, task),
        "failure.down": (p.failure.down, task), "failure.clash": (p.failure.clash, clash),
        "failure.refused": (p.failure.refused, task), "next.retry": (p.next.retry, task),
        "next.clash": (p.next.clash, clash), "retry.error": (p.retry.error, task), "retry.timeout": (p.retry.timeout, task),
        "cancel.user": (p.cancel.user, task), "cancel.ack": (p.cancel.ack, task),
        "cancel.undo_ack": (p.cancel.undo_ack, task), "cancel.undo_done": (p.cancel.undo_done, task),
        "cancel.late_ack": (p.cancel.late_ack, task), "cancel.late_undo_ack": (p.cancel.late_undo_ack, task),
        "revise.user": (p.revise.user, _REVISION_SLOTS), "revise.ack": (p.revise.ack, _REVISION_SLOTS),
    }
    sample = {"topic": "the plan", "short": "the check", "service": "the service", "c_day": "Monday",
              "c_time": "noon", "c_title": "yoga class", "new": "x", "old": "y", "verb": "checking"}
    for key, (templates, allowed) in lists.items():
        _check_list(f"{file}: {key}", templates, allowed)
        _check_renders(f"{file}: {key}", templates, sample)
    _args_template(f"{file}: cancel.request", p.cancel.request, frozenset({"topic"}))
    _args_template(f"{file}: cancel.undo_request", p.cancel.undo_request, frozenset({"topic"}))
    _args_template(f"{file}: cancel.late_request", p.cancel.late_request, frozenset({"topic"}))
    _args_template(f"{file}: cancel.late_undo_request", p.cancel.late_undo_request, frozenset({"topic"}))
    return Phrases(
        partial_open=p.partial.open, partial_nothing=p.partial.nothing, partial_offer=p.partial.offer,
        fail_timeout=p.failure.timeout, fail_down=p.failure.down, fail_clash=p.failure.clash,
        fail_refused=p.failure.refused, next_retry=p.next.retry, next_clash=p.next.clash,
        retry_error=p.retry.error, retry_timeout=p.retry.timeout, cancel_user=p.cancel.user,
        cancel_ack=p.cancel.ack, cancel_request=p.cancel.request, undo_ack=p.cancel.undo_ack,
        undo_request=p.cancel.undo_request, undo_done=p.cancel.undo_done, late_ack=p.cancel.late_ack,
        late_request=p.cancel.late_request, late_undo_ack=p.cancel.late_undo_ack,
        late_undo_request=p.cancel.late_undo_request, revise_user=p.revise.user, revise_ack=p.revise.ack,
    )


@functools.cache
def load_bank(folder: Path, language: str) -> Bank:
    """Load and lint the bank in ``folder``; ``language`` names the package with its registry."""
    folder = Path(folder)
    registry = _registry(language)
    index: model.LanguageFile = _read(folder / "language.yaml", model.LanguageFile)
    _no_duplicates("language.yaml: domains", index.domains, "domain")
    _no_duplicates("language.yaml: delegations", index.delegations, "tool")
    on_disk = {p.name for p in folder.glob("*.yaml")}
    listed = {f"{d}.yaml" for d in index.domains} | {f"delegation_{t}.yaml" for t in index.delegations}
    for name in sorted(listed - on_disk):
        kind = "delegation" if name in {f"delegation_{t}.yaml" for t in index.delegations} else "domain"
        raise BankError(f"language.yaml: {kind} file {name} does not exist")
    for name in sorted(on_disk - listed - set(FIXED_FILES)):
        raise BankError(f"{name}: not listed in language.yaml and not one of {', '.join(FIXED_FILES)}")

    b = _Builder(registry)
    common: model.CommonFile = _read(folder / "common.yaml", model.CommonFile)
    b.add_data("common.yaml", common)
    chatter_file: model.ChatterFile = _read(folder / "chatter.yaml", model.ChatterFile)
    b.add_data("chatter.yaml", chatter_file)
    domain_files: list[tuple[str, model.DomainFile]] = []
    for domain in index.domains:
        file = f"{domain}.yaml"
        df: model.DomainFile = _read(folder / file, model.DomainFile)
        if df.domain != domain:
            raise BankError(f"{file}: domain: {df.domain!r} does not match the file name")
        b.add_data(file, df)
        domain_files.append((file, df))
    delegation_files: list[tuple[str, model.DelegationFile]] = []
    for tool in index.delegations:
        file = f"delegation_{tool}.yaml"
        dlf: model.DelegationFile = _read(folder / file, model.DelegationFile)
        if dlf.tool != tool:
            raise BankError(f"{file}: tool: {dlf.tool!r} does not match the file name")
        b.add_data(file, dlf)
        delegation_files.append((file, dlf))
    # the shared delegation phrases are needed (and read) only when the folder has delegated requests
    phrases = (_phrases("delegation.yaml", _read(folder / "delegation.yaml", model.DelegationPhrasesFile))
               if index.delegations else None)

    generic = frozenset(_CORRECTION_SLOTS)
    _check_list("common.yaml: corrections user", common.corrections.user, generic)
    _check_list("common.yaml: corrections ack", common.corrections.ack, generic)
    _check_renders("common.yaml: corrections user", common.corrections.user, {"new": "x", "old": "y"})
    _check_renders("common.yaml: corrections ack", common.corrections.ack, {"new": "x", "old": "y"})

    scenarios: list[Scenario] = []
    for file, df in domain_files:
        _no_duplicates(f"{file}: scenarios", [sc.name for sc in df.scenarios], "scenario name")
        scenarios.extend(_scenario(b, file, df.domain, sc) for sc in df.scenarios)
    chatter = _chatter(b, "chatter.yaml", chatter_file)
    _no_duplicates("delegation files: specs", [sp.name for _, f in delegation_files for sp in f.specs], "spec name")
    specs: list[Spec] = []
    for file, dlf in delegation_files:
        for sp in dlf.specs:
            if sp.domain not in index.domains:
                raise BankError(f"{file}: spec {sp.name!r}: domain {sp.domain!r} is not one of language.yaml's domains")
            specs.append(_delegation_spec(b, file, dlf, sp))
    return Bank(
        language=language,
        domains=index.domains,
        domain_topics=MappingProxyType({df.domain: df.topic for _, df in domain_files}),
        scenarios=tuple(scenarios),
        generic_user_corrections=common.corrections.user,
        generic_acks=common.corrections.ack,
        chatter=chatter,
        delegations=Delegations(tuple(specs), phrases, registry.say_time, registry.say_day, registry.rules.tidy),
        rules=registry.rules,
        data=b.data,
    )


def bank_languages() -> tuple[str, ...]:
    """The languages with a bank folder (``generators/banks/<code>/language.yaml``)."""
    return tuple(sorted(p.parent.name for p in BANKS_DIR.glob("*/language.yaml")))


def load_language(language: str = "en") -> Bank:
    """The shipped bank of ``language`` (``generators/banks/<language>/``)."""
    if language not in bank_languages():
        raise BankError(f"no text bank for language {language!r} (banks exist for: {', '.join(bank_languages())})")
    return load_bank(BANKS_DIR / language, language)


@functools.lru_cache(maxsize=None)
def babble_sentences(language: str) -> tuple[str, ...]:
    """The sentences `language`'s babble talkers read (`generators/banks/<language>/babble.yaml`),
    in order; a language without the file is refused by name."""
    path = BANKS_DIR / language / "babble.yaml"
    if not path.is_file():
        have = sorted(p.parent.name for p in BANKS_DIR.glob("*/babble.yaml"))
        raise ValueError(f"no babble sentences for language {language!r} (have: {', '.join(have)})")
    spec = _read(path, model.BabbleFile)
    _no_duplicates(f"{language}/babble.yaml", spec.sentences, "sentence")
    return tuple(spec.sentences)
