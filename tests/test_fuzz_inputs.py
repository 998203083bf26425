"""Seeded fuzz of issue #10 ("Lose nothing, refuse clearly"): bad configs and corrupt datasets.

Every case runs the real CLI in-process (`jobs.cli.main`) and must be refused: a non-zero exit, one
line on stderr that names the field (configs: its dotted path, e.g. `timing.eot_s`) or the file
(datasets: the broken shard's basename or `manifest.json`), no traceback, no "error: unexpected"
(the catch-all that marks a defect of ours), and nothing written that a reader would take for data.

- Bad configs: each is the embedded defaults with one field broken (the file sets only that field;
  the control test writes the whole default tree and sees it accepted). The fields come from a
  walk of the `RunConfig` model tree, so a field added later is fuzzed too; a hand-written list
  adds the cases a walk cannot guess (unsupported values, folders without audio, malformed files,
  CLI flags). Every one must be refused before Ray starts: `ray.init` is replaced by a trap here.
- Corrupt inputs: one small real dataset (and a real export of it, the control that the readers
  work on intact data) is made once; each case copies it, breaks one thing and runs `validate`,
  `stats`, `preview` and `export` on the copy.

All randomness comes from `random.Random` seeded with SEED (per case for the datasets, so running
one case alone breaks the same bytes). Cases are built when the module is imported; ids name them.
"""
from __future__ import annotations

import json
import math
import random
import re
import shutil
import signal
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from types import NoneType, UnionType
from typing import Annotated, Any, Literal, Union, get_args, get_origin

import annotated_types as at
import pytest
import yaml
from pydantic import BaseModel
from pydantic.fields import FieldInfo

from jobs.cli import main
from schemas.config import (
    SCENARIOS,
    DecodeBudgetConfig,
    Dist,
    Range,
    RunConfig,
    ScriptSourceConfig,
    ToolConfig,
    TwinsConfig,
    VisionConfig,
)

SEED = 1234
CONFIG_LIMIT_S = 5.0       # a refusal is pydantic + a few stats; longer means something started Ray
HARD_LIMIT_S = 90.0        # a case still running after this is stopped (a hang must not stall CI)
CFG_NAME = "run.yaml"      # not config.yaml: that is the name generate writes into --out


class _RayStarted(BaseException):
    """Raised by the trap that replaces ray.init: the config got past every check."""


class _TooSlow(BaseException):
    """Raised by the SIGALRM deadline of one case."""


# ============================================================================ shared checks

@dataclass(frozen=True)
class Outcome:
    rc: int
    out: str
    err: str
    argparse: bool      # argparse refused the command line (SystemExit)
    seconds: float


def _run(argv: list[str], capfd: pytest.CaptureFixture[str], limit_s: float = HARD_LIMIT_S) -> Outcome:
    """main(argv) in this process; argparse's SystemExit(2) counts as its exit status."""
    capfd.readouterr()   # drop anything printed before the case
    t0 = time.monotonic()
    is_argparse = False
    hung: str | None = None
    try:
        with _deadline(limit_s, " ".join(argv[:2])):
            try:
                rc = main(argv)
            except SystemExit as exc:
                is_argparse = True
                rc = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    except _TooSlow as exc:
        hung = str(exc)
    if hung is not None:
        pytest.fail(f"{hung}: it hangs, or does real work instead of refusing")
    seconds = time.monotonic() - t0
    out, err = capfd.readouterr()
    return Outcome(int(rc), out, err, is_argparse, seconds)


@contextmanager
def _deadline(seconds: float, what: str) -> Iterator[None]:
    """Stop a case that hangs (SIGALRM interrupts waits on locks and futures)."""
    def fire(signum: int, frame: Any) -> None:
        raise _TooSlow(f"{what}: still running after {seconds:.0f} s")

    old = signal.signal(signal.SIGALRM, fire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


def _mentions(text: str, name: str) -> bool:
    """True when `text` names `name`: verbatim, or a dotted path as its parent plus its last part
    as a word (e.g. "acoustics: noise_file_prob > 0 needs noise_dir" names acoustics.noise_dir)."""
    if name in text:
        return True
    parent, _, last = name.rpartition(".")
    if "." not in name or (parent and parent not in text):
        return False
    return re.search(rf"(?<![\w.-]){re.escape(last)}(?![\w-])", text) is not None


def _refusal_problems(o: Outcome, names: tuple[str, ...], *, one_line: bool = True,
                      scrub: tuple[str, ...] = ()) -> list[str]:
    """What is wrong with a refusal: each problem as a short sentence (empty: a good refusal).

    scrub: strings removed before looking for `names` (the config file's own path, so a field
    name can never be matched inside a folder name).
    """
    problems: list[str] = []
    err = o.err.strip()
    lines = err.splitlines()
    if o.rc == 0:
        problems.append("exit status 0 (accepted)")
    if "Traceback" in o.err or "Traceback" in o.out:
        problems.append("a traceback was printed")
    if "error: unexpected" in o.err or "error: unexpected" in o.out:
        problems.append("fell through to the catch-all 'error: unexpected' (no deliberate refusal)")
    message = err
    if o.argparse:
        # argparse: a usage block, then "prog: error: argument --x: ..." as the one message line
        message = lines[-1] if lines else ""
        if one_line and (not lines or ": error: " not in message
                         or not all(ln.startswith("usage:") or ln.startswith(" ") for ln in lines[:-1])):
            problems.append(f"argparse output is not usage + one 'error:' line ({len(lines)} lines)")
    elif one_line and len(lines) != 1:
        problems.append(f"stderr has {len(lines)} lines, not one")
    if not o.argparse and not one_line:
        message = o.out + "\n" + o.err     # validate lists its findings on stdout
    for s in scrub:
        message = message.replace(s, "<path>")
    if not any(_mentions(message, n) for n in names):
        problems.append(f"the message names none of {list(names)}")
    return problems


def _report(case_id: str, o: Outcome | None, problems: list[str]) -> str:
    text = f"{case_id}: " + "; ".join(problems)
    if o is not None:
        text += f"\n--- exit {o.rc} after {o.seconds:.1f} s; stderr:\n{o.err[-2000:]}\n--- stdout tail:\n{o.out[-800:]}"
    return text


def _data_files(folder: Path, layout: tuple[str, ...]) -> list[str]:
    """Files under `folder` a reader would take for data (shards or a manifest), relative paths."""
    if not folder.exists():
        return []
    found = [p for pattern in layout for p in folder.glob(pattern)]
    return sorted(str(p.relative_to(folder)) for p in found)


def test_refusal_check_rejects_what_the_issue_forbids() -> None:
    """The checker itself: each forbidden form is caught, a good refusal passes."""
    def o(rc: int, err: str, out: str = "", argparse: bool = False) -> Outcome:
        return Outcome(rc, out, err, argparse, 0.1)

    names = ("timing.eot_s",)
    assert _refusal_problems(o(2, "error: invalid config (run.yaml): timing.eot_s: too low\n"), names) == []
    assert _refusal_problems(o(2, "error: timing: eot_s must be >= 0.2\n"), names) == []   # parent + field
    usage = "usage: duplexsynth generate [-h]\n       [--num NUM]\nduplexsynth generate: error: argument --num: bad\n"
    assert _refusal_problems(o(2, usage, argparse=True), ("--num",)) == []
    assert _refusal_problems(o(0, "error: timing.eot_s: x\n"), names) == ["exit status 0 (accepted)"]
    assert "stderr has 2 lines, not one" in _refusal_problems(o(2, "error: timing.eot_s\n  more\n"), names)
    assert "a traceback was printed" in _refusal_problems(o(1, "Traceback (most recent call last):\n"), names)
    assert any("catch-all" in p for p in _refusal_problems(o(1, "error: unexpected KeyError: timing.eot_s\n"), names))
    assert any("names none" in p for p in _refusal_problems(o(2, "error: invalid config\n"), names))
    assert any("names none" in p for p in _refusal_problems(o(2, "error: timing_eot_s\n"), names))
    scrubbed = _refusal_problems(o(2, "error: /x/run.yaml: bad\n"), ("x",), scrub=("/x/run.yaml",))
    assert any("names none" in p for p in scrubbed)
    assert _refusal_problems(o(1, "FAILED: 1 violation\n", out="d/shards/shard-00001.parquet: sha\n"),
                             ("shard-00001.parquet",), one_line=False) == []


# ============================================================================ bad configs

@dataclass(frozen=True)
class _Tmp:
    """A filesystem object a case needs, made in the case's own folder at run time."""

    kind: Literal["empty_dir", "txt_dir", "text_file", "missing"]


@dataclass(frozen=True)
class CfgCase:
    id: str
    names: tuple[str, ...]           # the message must name one of these (field path, option, file)
    doc: Any = None                  # the config document, dumped as YAML (None: see raw / config)
    raw: bytes | None = None         # the config file's bytes as they are
    argv: tuple[str, ...] = ()       # extra generate flags (after the defaults, so they win)
    config: Literal["file", "none", "dir", "missing"] = "file"


DEFAULTS: dict[str, Any] = RunConfig().model_dump(mode="json")
# sections left out of the dump while at their default (so old configs hash as before) still have defaults
# (a source dumps only its own kind's fields, so the defaults of every field are read off the model)
DEFAULTS.setdefault("script_source", {k: getattr(ScriptSourceConfig(), k) for k in ScriptSourceConfig.model_fields})
DEFAULTS.setdefault("vision", VisionConfig().model_dump(mode="json"))
DEFAULTS.setdefault("twins", TwinsConfig().model_dump(mode="json"))
DEFAULTS.setdefault("decode_budget", DecodeBudgetConfig().model_dump(mode="json"))


def _unwrap(ann: Any) -> Any:
    while get_origin(ann) is Annotated:
        ann = get_args(ann)[0]
    return ann


def _members(ann: Any) -> set[Any]:
    """The types of a union (unwrapped), or {the type}."""
    ann = _unwrap(ann)
    if get_origin(ann) in (Union, UnionType):
        return {_unwrap(a) for a in get_args(ann)}
    return {ann}


def _bounds(info: FieldInfo) -> tuple[float | None, float | None]:
    """(lower, upper) bound of a number field from its Field(ge/gt/le/lt) metadata."""
    lo = hi = None
    for m in info.metadata:
        if isinstance(m, (at.Ge, at.Gt)):
            lo = float(getattr(m, "ge", getattr(m, "gt", None)))
        if isinstance(m, (at.Le, at.Lt)):
            hi = float(getattr(m, "le", getattr(m, "lt", None)))
    return lo, hi


def _kind(ann: Any) -> str:
    members = _members(ann)
    base = _unwrap(ann)
    if members == {Range, Dist}:
        return "draw"
    if base is Range:
        return "range"
    if members == {Path, NoneType} or base is Path:
        return "path"
    if base in (int, float):
        return base.__name__
    if base is str:
        return "str"
    if get_origin(base) is Literal:
        return "literal"
    if get_origin(base) is tuple:
        args = [_unwrap(a) for a in get_args(base)]
        if len(args) == 2 and args[1] is Ellipsis:
            return "literal_tuple" if get_origin(args[0]) is Literal else "str_tuple"
        if args and all(a in (int, float) for a in args):
            return "num_tuple"
    if get_origin(base) is dict:
        return "tools" if _unwrap(get_args(base)[1]) is ToolConfig else "weights"
    if isinstance(base, type) and issubclass(base, BaseModel):
        return "model"
    return "other"


def _get(doc: dict[str, Any], path: tuple[str, ...]) -> Any:
    for k in path:
        doc = doc[k]
    return doc


def _with(path: tuple[str, ...], value: Any, **also: Any) -> dict[str, Any]:
    """A config document that sets `path` to `value` (and each `a__b` of `also`), nothing else.

    Everything it leaves out takes the embedded default, so the document is the defaults with one
    field broken; writing only that field keeps each case a few ms of YAML instead of ~40 ms for
    the whole tree (test_default_config_reaches_ray checks the full dump once).
    """
    doc: dict[str, Any] = {}
    for p, v in [(path, value), *((tuple(k.split("__")), v) for k, v in also.items())]:
        node = doc
        for k in p[:-1]:
            node = node.setdefault(k, {})
        node[p[-1]] = v
    return doc


def _typo(name: str, taken: set[str], rng: random.Random) -> str:
    """A plausible misspelling of a field name that is no field."""
    options = [name.replace("_", "-"), name + "s", name.upper(), name[:-1], name.replace("_", ""), name + "_ms"]
    options = [o for o in options if o and o not in taken]
    return rng.choice(options)


def _number_cases(path: tuple[str, ...], info: FieldInfo, is_int: bool, rng: random.Random) -> Iterator[tuple[str, Any]]:
    default = _get(DEFAULTS, path)
    lo, hi = _bounds(info)
    yield "nan", math.nan
    yield "inf", math.inf
    yield "-inf", -math.inf
    yield "bool", rng.choice([True, False])
    yield "string", rng.choice(["abc", "ten", "1,5", "n/a", "0x10"])
    yield "list", [default, default]
    if (lo is not None and lo >= 0) or default > 0 or path[-1] == "seed":
        yield "negative", -rng.randint(1, 1000) if is_int else -round(rng.uniform(0.001, 100.0), 3)
    if hi is not None:
        yield "above_max", int(hi) + rng.randint(1, 100) if is_int else round(hi * rng.uniform(1.5, 20.0) + 0.01, 3)
    if is_int:
        yield "fraction", default + 0.5


def _range_cases(path: tuple[str, ...], draw: bool, rng: random.Random) -> Iterator[tuple[str, Any]]:
    r = _get(DEFAULTS, path)
    lo, hi = r.get("lo"), r.get("hi")
    if lo is None or hi is None:   # a Dist default without bounds: any ordered pair will do
        lo, hi = 0.1, 1.0
    if hi > lo:
        yield "reversed", [hi, lo]
    yield "nan_lo", [math.nan, hi]
    yield "inf_hi", [lo, math.inf]
    yield "string", rng.choice(["abc", f"{lo}-{hi}", "wide"])
    yield "one_number", [lo]
    yield "unknown_key", {"lo": lo, "hi": hi, rng.choice(["mid", "step", "Lo", "high"]): 1.0}
    if draw:
        yield "dist_bad_kind", {"kind": rng.choice(["gaussian", "poisson", "Normal"]), "lo": lo, "hi": hi}
        yield "dist_nan_mu", {"kind": "normal", "mu": math.nan, "sigma": 0.1, "lo": lo, "hi": hi}
        yield "dist_negative_sigma", {"kind": "normal", "mu": (lo + hi) / 2, "sigma": -rng.uniform(0.01, 1.0),
                                      "lo": lo, "hi": hi}


def _tuple_cases(path: tuple[str, ...], rng: random.Random) -> Iterator[tuple[str, Any]]:
    v = list(_get(DEFAULTS, path))
    yield "nan_first", [math.nan, *v[1:]]
    yield "bool_first", [True, *v[1:]]
    yield "string", rng.choice(["5-8", "abc"])
    yield "too_short", v[:1]
    if len(v) == 2:
        if v[1] > v[0]:
            yield "reversed", [v[1], v[0]]
        yield "huge_hi", [v[0], rng.choice([10**6, 10**9])]


def _walk(model: type[BaseModel], prefix: tuple[str, ...], rng: random.Random) -> Iterator[CfgCase]:
    """One case per (field, kind of damage) of `model` and every model below it."""
    fields = model.model_fields
    where = ".".join(prefix)
    key = _typo(rng.choice(sorted(fields)), set(fields), rng)
    yield CfgCase(f"{where or 'root'}-unknown_key", (".".join((*prefix, key)),), _with((*prefix, key), 1))
    if prefix:
        yield CfgCase(f"{where}-list_not_mapping", (where,), _with(prefix, [1, 2]))
        yield CfgCase(f"{where}-scalar_not_mapping", (where,), _with(prefix, rng.choice([5, "yes", 0.5])))
    for name, info in fields.items():
        path = (*prefix, name)
        dotted = ".".join(path)
        kind = _kind(info.annotation)
        damage: list[tuple[str, Any]] = []
        if kind in ("int", "float"):
            damage = list(_number_cases(path, info, kind == "int", rng))
        elif kind in ("range", "draw"):
            damage = list(_range_cases(path, kind == "draw", rng))
        elif kind == "num_tuple":
            damage = list(_tuple_cases(path, rng))
        elif kind == "literal_tuple":
            damage = [("unknown_member", [rng.choice(["purple", "grey", "WHITE", "none"])]),
                      ("string_not_list", _get(DEFAULTS, path)[0] if _get(DEFAULTS, path) else "x")]
        elif kind == "literal":
            damage = [("unknown", rng.choice(["festival", "coqui", "ESPEAK"])), ("number", 3)]
        elif kind == "str":
            damage = [("unsupported", "xx"), ("empty", ""), ("number", rng.randint(1, 99))]
        elif kind == "path":
            damage = [("missing", _Tmp("missing"))]
        elif kind == "weights":
            s = rng.choice(SCENARIOS)
            damage = [("unknown_name", {rng.choice(["smalltalk", "turn-taking", "Pause", "barge_in"]): 1.0}),
                      ("negative_weight", {s: -rng.uniform(0.1, 5.0)}),
                      ("all_zero", {x: 0.0 for x in rng.sample(SCENARIOS, 3)}),
                      ("nan_weight", {s: math.nan}), ("inf_weight", {s: math.inf}), ("bool_weight", {s: True}),
                      ("string_weight", {s: "high"}), ("list_not_mapping", rng.sample(SCENARIOS, 2)),
                      ("empty", {})]
        elif kind == "tools":
            damage = [("unknown_tool", {**_get(DEFAULTS, path), rng.choice(["email", "shell", "Search"]): {}}),
                      ("list_not_mapping", sorted(_get(DEFAULTS, path))[:2])]
            tool = rng.choice(sorted(_get(DEFAULTS, path)))
            yield from _walk(ToolConfig, (*path, tool), rng)
        elif kind == "model":
            yield from _walk(_unwrap(info.annotation), path, rng)
        for label, value in damage:
            yield CfgCase(f"{dotted}-{label}", (dotted,), _with(path, value))


def _hand_cases(rng: random.Random) -> list[CfgCase]:
    """What a walk of the types cannot guess: limits of the pipeline, folders, files, flags."""
    t, a = ("timing",), ("acoustics",)
    nested = "[" * 5000 + "]" * 5000
    junk = bytes(rng.randrange(256) for _ in range(512))
    return [
        CfgCase("num-1e12", ("num",), _with(("num",), 1e12)),
        CfgCase("num-10**12", ("num",), _with(("num",), 10**12)),
        CfgCase("seed-over_int64", ("seed",), _with(("seed",), 2**64 + rng.randrange(1000))),
        CfgCase("timing.exchanges-million", ("timing.exchanges",), _with((*t, "exchanges"), [1_000_000, 1_000_000])),
        CfgCase("timing.pause_s-0_to_1e9", ("timing.pause_s",), _with((*t, "pause_s"), [0, 1e9])),
        CfgCase("timing.pause_s-hi_1e9", ("timing.pause_s",), _with((*t, "pause_s"), [0.8, 1e9])),
        CfgCase("timing.tail_s-hi_1e9", ("timing.tail_s",), _with((*t, "tail_s"), [0.5, 1e9])),
        CfgCase("timing.lead_in_s-hi_1e9", ("timing.lead_in_s",), _with((*t, "lead_in_s"), [0.3, 1e9])),
        CfgCase("timing.backchannel_onset-negative_sigma", ("timing.backchannel_onset",),
                _with((*t, "backchannel_onset"), [-0.32, -0.18, 0.2])),
        CfgCase("language-xx", ("language",), _with(("language",), "xx")),
        CfgCase("unit_s-0.04", ("unit_s",), _with(("unit_s",), 0.04)),
        CfgCase("unit_s-0.013", ("unit_s",), _with(("unit_s",), 0.013)),
        CfgCase("unit_s-0", ("unit_s",), _with(("unit_s",), 0.0)),
        CfgCase("sample_rate-7", ("sample_rate",), _with(("sample_rate",), 7)),
        CfgCase("acoustics.snr_db-nan_5", ("acoustics.snr_db",), _with((*a, "snr_db"), [math.nan, 5])),
        CfgCase("acoustics.noise_colors-empty", ("acoustics.noise_colors",), _with((*a, "noise_colors"), [])),
        # the folder/file is the one bad field: the feature that reads it is switched on
        CfgCase("acoustics.noise_dir-empty_folder", ("acoustics.noise_dir",),
                _with((*a, "noise_dir"), _Tmp("empty_dir"), acoustics__noise_file_prob=0.5)),
        CfgCase("acoustics.noise_dir-txt_only", ("acoustics.noise_dir",),
                _with((*a, "noise_dir"), _Tmp("txt_dir"), acoustics__noise_file_prob=0.5)),
        CfgCase("acoustics.noise_dir-a_file", ("acoustics.noise_dir",),
                _with((*a, "noise_dir"), _Tmp("text_file"), acoustics__noise_file_prob=0.5)),
        CfgCase("acoustics.rir_dir-empty_folder", ("acoustics.rir_dir",),
                _with((*a, "rir_dir"), _Tmp("empty_dir"), acoustics__reverb_prob=0.5, acoustics__reverb_kinds=["file"])),
        CfgCase("acoustics.rir_dir-txt_only", ("acoustics.rir_dir",),
                _with((*a, "rir_dir"), _Tmp("txt_dir"), acoustics__reverb_prob=0.5, acoustics__reverb_kinds=["file"])),
        CfgCase("speech_tokenizer.onnx_path-text_file", ("speech_tokenizer.onnx_path", "tokenizer.onnx"),
                _with(("speech_tokenizer", "onnx_path"), _Tmp("text_file"))),
        CfgCase("speech_tokenizer.onnx_path-a_folder", ("speech_tokenizer.onnx_path",),
                _with(("speech_tokenizer", "onnx_path"), _Tmp("empty_dir"))),
        # malformed files: the message names the file (or the duplicated key)
        CfgCase("file-binary", (CFG_NAME,), raw=b"\x00\x01PK\x03\x04" + junk),
        CfgCase("file-invalid_utf8", (CFG_NAME,), raw=b"num: 4\nlanguage: \xff\xfe\xfa\n"),
        CfgCase("file-deeply_nested", (CFG_NAME,), raw=nested.encode()),
        CfgCase("file-deeply_nested_mapping", (CFG_NAME,), raw=("{a: " * 3000 + "1" + "}" * 3000).encode()),
        CfgCase("file-duplicate_key", ("num",), raw=b"num: 4\nseed: 1\nnum: 5\n"),
        CfgCase("file-duplicate_nested_key", ("eot_s",), raw=b"timing:\n  eot_s: [0.2, 0.6]\n  eot_s: [0.3, 0.5]\n"),
        CfgCase("file-yaml_syntax", (CFG_NAME,), raw=b"timing:\n  eot_s: [0.2, 0.6\n  tail_s: [0.5, 1.5]\n"),
        CfgCase("file-tab_indent", (CFG_NAME,), raw=b"timing:\n\teot_s: [0.2, 0.6]\n"),
        CfgCase("file-python_tag", (CFG_NAME,), raw=b"num: !!python/object/apply:os.getcwd []\n"),
        CfgCase("file-top_level_list", (CFG_NAME,), raw=b"- num: 4\n- seed: 1\n"),
        CfgCase("file-top_level_scalar", (CFG_NAME,), raw=b"42\n"),
        CfgCase("file-is_a_directory", ("confdir",), config="dir"),
        CfgCase("file-missing", ("missing.yaml",), config="missing"),
        # command-line flags over the defaults
        CfgCase("flag-workers_-1", ("--workers",), argv=("--workers", "-1"), config="none"),
        CfgCase("flag-workers_0", ("--workers",), argv=("--workers", "0"), config="none"),
        CfgCase("flag-num_0", ("--num", "num"), argv=("--num", "0"), config="none"),
        CfgCase("flag-num_abc", ("--num",), argv=("--num", "abc"), config="none"),
        CfgCase("flag-num_huge", ("--num", "num"), argv=("--num", str(10**12)), config="none"),
        CfgCase("flag-seed_-1", ("--seed", "seed"), argv=("--seed", "-1"), config="none"),
        CfgCase("flag-shard_size_0", ("--shard-size", "shard_size"), argv=("--shard-size", "0"), config="none"),
        CfgCase("flag-max_in_flight_0", ("--max-in-flight",), argv=("--max-in-flight", "0"), config="none"),
        CfgCase("flag-max_in_flight_-3", ("--max-in-flight",), argv=("--max-in-flight", "-3"), config="none"),
        CfgCase("flag-scenario_unknown", ("bogus_family",), argv=("--scenario", "bogus_family"), config="none"),
        CfgCase("flag-preset_unknown", ("preset", "no_such_preset"), argv=("--preset", "no_such_preset"), config="none"),
    ]


def _config_cases() -> list[CfgCase]:
    rng = random.Random(SEED)
    cases = [*_walk(RunConfig, (), rng), *_hand_cases(rng)]
    ids = [c.id for c in cases]
    dup = sorted({i for i in ids if ids.count(i) > 1})
    assert not dup, f"duplicate case ids {dup}"
    return cases


CONFIG_CASES = _config_cases()


def _materialise(value: Any, work: Path) -> Any:
    """Replace every _Tmp in a document by a real path under `work`."""
    if isinstance(value, _Tmp):
        path = work / {"empty_dir": "empty", "txt_dir": "notes", "text_file": "tokenizer.onnx",
                       "missing": "no_such_thing"}[value.kind]
        if value.kind == "empty_dir":
            path.mkdir(exist_ok=True)
        elif value.kind == "txt_dir":
            path.mkdir(exist_ok=True)
            (path / "readme.txt").write_text("no audio in here\n")
        elif value.kind == "text_file":
            path.write_text("this is a text file, not an ONNX model\n")
        return str(path)
    if isinstance(value, dict):
        return {k: _materialise(v, work) for k, v in value.items()}
    if isinstance(value, list):
        return [_materialise(v, work) for v in value]
    return value


@pytest.fixture
def ray_trap(monkeypatch: pytest.MonkeyPatch) -> None:
    """ray.init raises _RayStarted: a case that gets that far was accepted (and would be slow)."""
    import ray

    def trap(*args: Any, **kwargs: Any) -> None:
        raise _RayStarted("ray.init was called")

    monkeypatch.setattr(ray, "init", trap)
    monkeypatch.setattr(ray, "is_initialized", lambda: False)   # never reuse a Ray left running


def test_case_counts_meet_the_issue() -> None:
    """Issue #10: at least 100 bad configs and 30 corrupt inputs, over every config section."""
    assert len(CONFIG_CASES) >= 100
    assert len(CORRUPTIONS) * len(READERS) >= 30
    sections = {c.names[0].split(".")[0] for c in CONFIG_CASES if c.doc is not None}
    assert {"timing", "acoustics", "harness", "tts", "speech_tokenizer", "scenarios", "num", "seed"} <= sections


def test_default_config_reaches_ray(tmp_path_factory: pytest.TempPathFactory, ray_trap: None) -> None:
    """The control: the defaults as a file pass every check, so each refusal below is its mutation's."""
    work = tmp_path_factory.mktemp("c")
    (work / CFG_NAME).write_text(yaml.safe_dump(DEFAULTS, sort_keys=False))
    with pytest.raises(_RayStarted):
        main(["generate", "--config", str(work / CFG_NAME), "--out", str(work / "out"), "--workers", "1",
              "--no-progress"])


@pytest.mark.parametrize("case", CONFIG_CASES, ids=lambda c: c.id)
def test_bad_config_is_refused_before_ray(case: CfgCase, tmp_path_factory: pytest.TempPathFactory,
                                          capfd: pytest.CaptureFixture[str], ray_trap: None) -> None:
    work = tmp_path_factory.mktemp("c")
    cfg = work / CFG_NAME
    config_argv: list[str] = []
    if case.config == "file":
        if case.raw is not None:
            cfg.write_bytes(case.raw)
        else:
            cfg.write_text(yaml.safe_dump(_materialise(case.doc, work), sort_keys=False))
        config_argv = ["--config", str(cfg)]
    elif case.config == "dir":
        (work / "confdir").mkdir()
        config_argv = ["--config", str(work / "confdir")]
    elif case.config == "missing":
        config_argv = ["--config", str(work / "missing.yaml")]
    out = work / "out"
    argv = ["generate", *config_argv, "--out", str(out), "--workers", "1", "--no-progress", *case.argv]
    o: Outcome | None = None
    try:
        o = _run(argv, capfd, limit_s=4 * CONFIG_LIMIT_S)
    except _RayStarted:
        pass
    if o is None:
        pytest.fail(_report(case.id, None, ["accepted: generate went on to start Ray "
                                            "(a bad config must be refused before)"]
                            + [f"wrote {f}" for f in _data_files(out, ("**/*.parquet", "manifest.json"))]))
    # the config file's own path cannot name a field: drop it before looking for the field
    problems = _refusal_problems(o, case.names, scrub=(str(cfg),) if case.names[0] != CFG_NAME else ())
    if o.seconds > CONFIG_LIMIT_S:
        problems.append(f"took {o.seconds:.1f} s (> {CONFIG_LIMIT_S:.0f} s: something started Ray)")
    problems += [f"wrote {f}" for f in _data_files(out, ("**/*.parquet", "manifest.json"))]
    assert not problems, _report(case.id, o, problems)


# ============================================================================ corrupt datasets

@dataclass(frozen=True)
class Broken:
    """What a corruption did: the names a refusal must mention (any one of them)."""

    names: tuple[str, ...]


def _shard(root: Path, rng: random.Random) -> Path:
    return rng.choice(sorted((root / "shards").glob("shard-*.parquet")))


def _manifest(root: Path) -> dict[str, Any]:
    return json.loads((root / "manifest.json").read_text())


def _write_manifest(root: Path, m: Any) -> None:
    (root / "manifest.json").write_text(json.dumps(m, indent=2))


def _truncate(root: Path, rng: random.Random, pristine: Path) -> Broken:
    p = _shard(root, rng)
    data = p.read_bytes()
    p.write_bytes(data[: rng.randrange(1, len(data))])
    return Broken((p.name,))


def _truncate_footer(root: Path, rng: random.Random, pristine: Path) -> Broken:
    p = _shard(root, rng)
    data = p.read_bytes()
    p.write_bytes(data[: len(data) - rng.randrange(1, 9)])   # the footer length / PAR1 magic
    return Broken((p.name,))


def _flip(root: Path, rng: random.Random, pristine: Path, region: str) -> Broken:
    p = _shard(root, rng)
    data = bytearray(p.read_bytes())
    lo, hi = (4, len(data) // 2) if region == "data" else (len(data) - 1024, len(data) - 8)
    for _ in range(rng.randint(1, 16)):
        data[rng.randrange(lo, hi)] ^= rng.randrange(1, 256)
    p.write_bytes(bytes(data))
    return Broken((p.name,))


def _delete_shard(root: Path, rng: random.Random, pristine: Path) -> Broken:
    p = _shard(root, rng)
    p.unlink()
    return Broken((p.name,))


def _delete_manifest(root: Path, rng: random.Random, pristine: Path) -> Broken:
    (root / "manifest.json").unlink()
    return Broken(("manifest.json",))


def _manifest_cut(root: Path, rng: random.Random, pristine: Path) -> Broken:
    text = (root / "manifest.json").read_text()
    (root / "manifest.json").write_text(text[: rng.randrange(1, text.rindex("}"))])
    return Broken(("manifest.json",))


def _manifest_list(root: Path, rng: random.Random, pristine: Path) -> Broken:
    _write_manifest(root, _manifest(root)["shards"])
    return Broken(("manifest.json",))


def _manifest_not_utf8(root: Path, rng: random.Random, pristine: Path) -> Broken:
    (root / "manifest.json").write_bytes(b"\xff\xfe{" + bytes(rng.randrange(128, 256) for _ in range(64)))
    return Broken(("manifest.json",))


def _manifest_no_shards(root: Path, rng: random.Random, pristine: Path) -> Broken:
    m = _manifest(root)
    del m["shards"]
    _write_manifest(root, m)
    return Broken(("manifest.json",))


def _entry(root: Path, rng: random.Random, change: Callable[[dict[str, Any]], Any]) -> dict[str, Any]:
    m = _manifest(root)
    entry = rng.choice(m["shards"])
    change(entry)
    _write_manifest(root, m)
    return entry


def _manifest_escape(root: Path, rng: random.Random, pristine: Path) -> Broken:
    _entry(root, rng, lambda e: e.update(path="../../etc/passwd"))
    return Broken(("manifest.json", "../../etc/passwd"))


def _manifest_absolute(root: Path, rng: random.Random, pristine: Path) -> Broken:
    """An absolute path to a real, intact shard outside the folder (the pristine dataset's)."""
    outside = str(pristine / "shards" / "shard-00000.parquet")
    _entry(root, rng, lambda e: e.update(path=outside))
    return Broken(("manifest.json", outside))


def _manifest_wrong_sha(root: Path, rng: random.Random, pristine: Path) -> Broken:
    entry = _entry(root, rng, lambda e: e.update(sha256="".join(rng.choice("0123456789abcdef") for _ in range(64))))
    return Broken((Path(entry["path"]).name,))


def _manifest_rows_type(root: Path, rng: random.Random, pristine: Path) -> Broken:
    entry = _entry(root, rng, lambda e: e.update(rows=rng.choice(["two", None, [2], {"n": 2}])))
    return Broken(("manifest.json", Path(entry["path"]).name))


def _shard_text(root: Path, rng: random.Random, pristine: Path) -> Broken:
    p = _shard(root, rng)
    p.write_text("id,scenario\nnot,parquet\n")
    return Broken((p.name,))


def _shard_empty(root: Path, rng: random.Random, pristine: Path) -> Broken:
    p = _shard(root, rng)
    p.write_bytes(b"")
    return Broken((p.name,))


def _shards_is_file(root: Path, rng: random.Random, pristine: Path) -> Broken:
    shutil.rmtree(root / "shards")
    (root / "shards").write_text("not a folder\n")
    return Broken((str(root / "shards"), "shard-00000.parquet", "shard-00001.parquet"))


def _export_of(pristine: Path) -> Path:
    """Where the `dataset` fixture exports the pristine dataset."""
    return pristine.parent / "e"


def _vouch(root: Path, shard: Path) -> None:
    """Make manifest.json agree with a broken shard (its sha256), as a writer that hashed a bad file
    would: the readers' own Parquet checks must catch it, not only the hash."""
    import hashlib

    m = _manifest(root)
    for e in m["shards"]:
        if Path(e["path"]).name == shard.name:
            e["sha256"] = hashlib.sha256(shard.read_bytes()).hexdigest()
    _write_manifest(root, m)


def _vouched(corrupt: Callable[[Path, random.Random, Path], Broken]) -> Callable[[Path, random.Random, Path], Broken]:
    def run(root: Path, rng: random.Random, pristine: Path) -> Broken:
        broken = corrupt(root, rng, pristine)
        _vouch(root, root / "shards" / broken.names[0])
        return broken
    return run


def _other_parquet(root: Path, rng: random.Random, pristine: Path) -> Broken:
    """A real Parquet file of another kind (training rows of the export) in a shard's place, with
    the shard's row count and a manifest that vouches for it: only a schema check can catch it."""
    import pyarrow.parquet as pq

    p = _shard(root, rng)
    rows = pq.ParquetFile(p).metadata.num_rows
    train = pq.read_table(next((_export_of(pristine) / "train").glob("*.parquet")))
    pq.write_table(train.slice(0, rows), p)
    _vouch(root, p)
    return Broken((p.name,))


def _manifest_rows_wrong_count(root: Path, rng: random.Random, pristine: Path) -> Broken:
    entry = _entry(root, rng, lambda e: e.update(rows=e["rows"] + rng.randint(1, 5)))
    return Broken(("manifest.json", Path(entry["path"]).name))


CORRUPTIONS: dict[str, Callable[[Path, random.Random, Path], Broken]] = {
    "truncate": _truncate,
    "truncate_footer": _truncate_footer,
    "flip_data_bytes": lambda r, g, p: _flip(r, g, p, "data"),
    "flip_footer_bytes": lambda r, g, p: _flip(r, g, p, "footer"),
    "delete_shard": _delete_shard,
    "delete_manifest": _delete_manifest,
    "manifest_invalid_json": _manifest_cut,
    "manifest_json_list": _manifest_list,
    "manifest_not_utf8": _manifest_not_utf8,
    "manifest_no_shards": _manifest_no_shards,
    "manifest_path_escapes": _manifest_escape,
    "manifest_absolute_path": _manifest_absolute,
    "manifest_wrong_sha256": _manifest_wrong_sha,
    "manifest_rows_wrong_type": _manifest_rows_type,
    "shard_is_text": _shard_text,
    "shard_empty": _shard_empty,
    "shards_dir_is_a_file": _shards_is_file,
    # the manifest vouches for the broken shard (its sha256 matches): Parquet-level checks must refuse
    "vouched_truncate": _vouched(_truncate),
    "vouched_shard_is_text": _vouched(_shard_text),
    "vouched_shard_empty": _vouched(_shard_empty),
    "vouched_other_parquet": _other_parquet,
    "manifest_rows_wrong_count": _manifest_rows_wrong_count,
}
READERS = ("validate", "stats", "preview", "export")


@pytest.fixture(scope="module")
def dataset(cli_dataset: Path) -> tuple[Path, Path]:
    """One small real dataset (2 shards of 2 rows, local Ray: the session's `cli_dataset`, generated
    by the CLI with --num 4 --shard-size 2) and a real export of it. Cases copy it before breaking it."""
    d = cli_dataset
    e = _export_of(d)
    assert len(_manifest(d)["shards"]) == 2
    assert main(["export", str(d), "--out", str(e)]) == 0
    return d, e


def _reader_argv(cmd: str, d: Path, work: Path) -> tuple[list[str], Path]:
    """(argv, the output it may write) of one reader over dataset copy `d`."""
    if cmd == "preview":
        return ["preview", str(d), "--out", str(work / "page.html")], work / "page.html"
    if cmd == "export":
        return ["export", str(d), "--out", str(work / "train")], work / "train"
    return [cmd, str(d)], work / "nothing"


def test_intact_export_is_training_data(dataset: tuple[Path, Path]) -> None:
    """The control for export: the intact dataset exports (so each refusal below is its corruption's)."""
    _, e = dataset
    assert (e / "manifest.json").is_file() and list((e / "train").glob("*.parquet"))


@pytest.mark.parametrize("cmd", ("validate", "stats", "preview"))
def test_intact_copy_is_accepted(cmd: str, dataset: tuple[Path, Path], tmp_path_factory: pytest.TempPathFactory,
                                 capfd: pytest.CaptureFixture[str]) -> None:
    """The control for the readers: an untouched copy reads fine (stats in-process: a pool of
    spawned workers costs seconds and checks nothing more)."""
    work = tmp_path_factory.mktemp("ds")
    d = work / "d"
    shutil.copytree(dataset[0], d)
    argv, wrote = _reader_argv(cmd, d, work)
    if cmd == "stats":
        argv += ["--workers", "1"]
    o = _run(argv, capfd)
    assert o.rc == 0, _report(f"intact-{cmd}", o, ["refused an intact dataset"])
    assert cmd != "preview" or wrote.is_file()


@pytest.mark.parametrize("cmd", READERS)
@pytest.mark.parametrize("corruption", sorted(CORRUPTIONS))
def test_corrupt_dataset_is_refused(corruption: str, cmd: str, dataset: tuple[Path, Path],
                                    tmp_path_factory: pytest.TempPathFactory,
                                    capfd: pytest.CaptureFixture[str]) -> None:
    work = tmp_path_factory.mktemp("ds")
    d = work / "d"
    shutil.copytree(dataset[0], d)
    broken = CORRUPTIONS[corruption](d, random.Random(f"{SEED}:{corruption}"), dataset[0])
    argv, wrote = _reader_argv(cmd, d, work)
    o = _run(argv, capfd)
    # validate lists its findings on stdout and ends with a FAILED line: one line is not its form
    problems = _refusal_problems(o, broken.names, one_line=cmd != "validate")
    if cmd == "preview" and wrote.exists():
        problems.append(f"wrote {wrote.name}")
    if cmd == "export":
        problems += [f"wrote {f}" for f in _data_files(wrote, ("**/*.parquet", "manifest.json"))]
    assert not problems, _report(f"{corruption}-{cmd}", o, problems)
