"""`duplexsynth eval-duplex CHECKPOINT --data TRAIN_DIR/val`: the model run as a duplex agent, scored.

Every held-out trajectory of the split is fed unit by unit to model/duplex_runtime.py (the user's
audio of unit k, its frame for Omni rows, backend results from the unit their row says they are
readable; the model's own decisions, text, speech tokens and delegates are what it reads back),
then scored by model/duplex_metrics.py against the gold of the stored trajectory row. The unit
inputs are the exported row's own tokens (so backend text is tokenised as in training); the gold
labels and events come from the trajectory row it was exported from (`source.dir` of
TRAIN_DIR/manifest.json, or `--source DIR`), checked by shard sha256, row id and unit count.

Backend results arrive when the row says they are ready, whether or not the model delegated:
the harness is replayed, not simulated.
"""
from __future__ import annotations

import argparse
import contextlib
import json
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow.parquet as pq
import torch

from model.dataset import DataError, Item, TrainSplit
from model.duplex_metrics import GROUPS, PROACTIVE, RELAY, RESPONSE, UNITS, gold_from_row, merge, score, summarize
from model.duplex_runtime import DuplexRuntime
from schemas.safe_paths import refuse_unsafe_target
from model.eval_decisions import emit_report, load_model, resolve_checkpoint, val_split
from model.protocol import LISTEN, SPEAK, UNIT, ProtocolVocab
from schemas.protocol import SPEECH_CODEBOOK, SPEECH_TOKENS_PER_SECOND
from schemas.vocab import OVERLAY_KINDS, Decision, EventKind


class EvalError(DataError):
    """Inputs eval-duplex cannot score: the message names the file or field."""


def _sha256(path: Path) -> str:
    import hashlib

    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _source_dir(split: TrainSplit, source: str | Path | None) -> tuple[Path, dict[str, str]]:
    """The trajectory folder the split was exported from, and the sha256 the export recorded per shard."""
    manifest = split.dir.parent / "manifest.json"
    if not manifest.is_file():
        raise EvalError(f"{manifest} not found: eval-duplex needs the export's manifest to find the gold rows")
    m = json.loads(manifest.read_text())
    src = m.get("source") or {}
    digests = {s["path"]: s["sha256"] for s in src.get("shards") or []}
    root = Path(source) if source else Path(src.get("dir") or "")
    if not root.is_dir():
        raise EvalError(f"source folder {root} (source.dir of {manifest}) not found; pass --source DIR")
    return root, digests


def _unit_inputs(ids: np.ndarray, vocab: ProtocolVocab) -> list[list[int]]:
    """Per unit, its input tokens: from <unit> up to (not including) the decision token."""
    starts = np.flatnonzero(ids == vocab[UNIT]).tolist()
    out = []
    for k, a in enumerate(starts):
        b = starts[k + 1] if k + 1 < len(starts) else len(ids)
        seg = ids[a:b]
        at = np.flatnonzero((seg == vocab[LISTEN]) | (seg == vocab[SPEAK]))
        if not len(at):
            raise EvalError(f"unit {k} has no decision token")
        out.append(seg[:int(at[0])].astype(np.int64).tolist())
    return out


def _decisions(units: list[Any]) -> str:
    """A one-line picture of a unit sequence: S speak, . listen."""
    return "".join("S" if u.decision == Decision.SPEAK else "." for u in units)


@torch.no_grad()
def evaluate(ckpt: str | Path, data: str | Path, *, source: str | Path | None = None, max_samples: int | None = None,
             use_cache: bool = True, max_text_tokens: int = 24, max_delegate_tokens: int = 48) -> dict[str, Any]:
    ckpt = resolve_checkpoint(ckpt)

    from model.config import load_checkpoint_spec

    # the inputs are checked before the model is built: a wrong folder fails in a second
    spec = load_checkpoint_spec(ckpt)
    split = val_split(data, spec, ProtocolVocab.load(ckpt / "protocol.json"))
    src_root, digests = _source_dir(split, source)
    # every row's gold first (shard sha256, id, unit count), so a wrong source fails before any model work
    todo: list[tuple[int, int, dict[str, Any], tuple[list[Any], list[Any]]]] = []
    checked: dict[str, Any] = {}
    for si, path in enumerate(split.paths):
        light = pq.read_table(path, columns=["id", "scenario", "source_shard", "source_row", "num_units", "input_ids"])
        for ri, r in enumerate(light.to_pylist()):
            if max_samples is not None and len(todo) >= max_samples:
                break
            g = _gold_row(src_root, digests, checked, r, where=f"{path.name} row {ri}")
            if len(g["units"]) != int(r["num_units"]):
                raise EvalError(f"{path.name} row {ri}: {r['num_units']} units in the training row, "
                                f"{len(g['units'])} in its source row")
            todo.append((si, ri, r, gold_from_row(g["units"], g["events"], float(g["unit_s"]), int(g["sample_rate"]))))
    if not todo:
        raise EvalError(f"{split.dir}: no rows to evaluate")

    device = torch.device("cuda") if torch.cuda.is_available() else torch.device("cpu")
    model, vocab, meta = load_model(ckpt, device)
    speech_per_unit = int(split.layout.get("speech_tokens_per_unit") or round(SPEECH_TOKENS_PER_SECOND * split.unit_s))
    rt = DuplexRuntime(model, vocab, speech_per_unit=speech_per_unit, use_cache=use_cache,
                       max_text_tokens=max_text_tokens, max_delegate_tokens=max_delegate_tokens,
                       max_context=spec.train.max_seq_len)
    bf16 = torch.autocast("cuda", dtype=torch.bfloat16) if device.type == "cuda" else contextlib.nullcontext()

    per: dict[str, dict[str, Counter]] = {}
    rows_out: list[dict[str, Any]] = []
    for si, ri, r, (gold, events) in todo:
        s = split.load(Item(si, ri, 0, int(r["num_units"])))
        inputs = _unit_inputs(s["input_ids"], vocab)
        raw = np.asarray(r["input_ids"])
        has_speech = bool(((raw >= vocab.speech_offset) & (raw < vocab.speech_offset + SPEECH_CODEBOOK)).any())
        with bf16:
            outs = rt.run(inputs, s["audio_features"], s["pixel_values"], emit_speech=has_speech)
        model_units = [o.unit for o in outs]
        merge(per.setdefault(r["scenario"], {}), score(gold, events, model_units))
        rows_out.append({"id": r["id"], "scenario": r["scenario"], "units": len(gold),
                         "gold": _decisions(gold), "model": _decisions(model_units),
                         "gold_delegates": [k for k, u in enumerate(gold) if u.delegate],
                         "model_delegates": [k for k, u in enumerate(model_units) if u.delegate],
                         "events": dict(Counter(str(e.kind) for e in events))})
    total: dict[str, Counter] = {}
    for c in per.values():
        merge(total, c)
    st = rt.stats
    runtime = {"context": "kv_cache" if use_cache else "recompute_prefix", "units": st.units,
               "tokens_in": st.tokens_in, "tokens_generated": st.tokens_generated, "decoder_calls": st.decoder_calls,
               "context_resets": st.context_resets, "seconds": round(st.seconds, 3),
               "units_per_s": round(st.units / st.seconds, 2) if st.seconds else None, "device": device.type}
    return {"checkpoint": str(ckpt), "step": meta["state"]["step"], "data": str(split.dir), "source": str(src_root),
            "recipe": spec.model.recipe, "runtime": runtime,
            "families": {k: summarize(per[k]) for k in sorted(per)}, "all": summarize(total), "rows": rows_out}


def _gold_row(root: Path, digests: dict[str, str], cache: dict[str, Any], r: dict[str, Any], where: str) -> dict[str, Any]:
    """The source trajectory row of training row `r`, its shard's sha256 checked once."""
    name = r["source_shard"]
    if name not in cache:
        p = root / name
        if not p.is_file():
            raise EvalError(f"{where}: source shard {p} not found")
        want = digests.get(name)
        if want is None or _sha256(p) != want:
            raise EvalError(f"{p}: sha256 differs from the one the export recorded (the source changed since)")
        cache[name] = pq.read_table(p, columns=["id", "unit_s", "sample_rate", "units", "events"])
    t = cache[name]
    i = int(r["source_row"])
    if not 0 <= i < t.num_rows or t.column("id")[i].as_py() != r["id"]:
        raise EvalError(f"{where}: source row {name}#{i} is not trajectory {r['id']}")
    return {c: t.column(c)[i].as_py() for c in t.column_names}


# ----------------------------------------------------------------------------- CLI
def run(args: argparse.Namespace) -> int:
    if args.out is not None:
        refuse_unsafe_target(args.out)   # before the evaluation, not after an hour of it
    try:
        rep = evaluate(args.checkpoint, args.data, source=args.source, max_samples=args.max_samples,
                       use_cache=not args.recompute, max_text_tokens=args.max_text_tokens,
                       max_delegate_tokens=args.max_delegate_tokens)
    except (FileNotFoundError, ValueError) as err:
        print(f"eval-duplex failed: {str(err).splitlines()[0]}", file=sys.stderr)
        return 2
    _print_table(rep)
    emit_report(rep, args.out)
    return 0


# (report group, metric, column title) of the printed table
COLUMNS: tuple[tuple[str, str, str], ...] = (
    *((k, "continuation_rate", f"{k} cont") for k in OVERLAY_KINDS),
    (EventKind.INTERRUPTION, "response_rate", "intr resp"),
    (EventKind.INTERRUPTION, "stop_latency_mean", "stop lat"),
    (EventKind.PAUSE, "no_takeover_rate", "pause hold"),
    (RESPONSE, "response_rate", "reply"),
    (RESPONSE, "latency_mean", "reply lat"),
    (EventKind.DELEGATE, "routing_rate", "deleg route"),
    (RELAY, "relay_rate", "relays"),
    (RELAY, "latency_mean", "relay lat"),
    (PROACTIVE, "proactive_rate", "unprompted"),
    (UNITS, "agreement", "agree"),
)
assert {g for g, _, _ in COLUMNS} <= set(GROUPS)


def _cell(r: dict[str, Any], group: str, key: str) -> str:
    g = r.get(group)
    if not g or g.get(key) is None:
        return "-"
    n = g.get("events", g.get("gold", g.get("units")))
    return f"{g[key]:.2f} ({n})"


def _print_table(rep: dict[str, Any]) -> None:
    from rich.console import Console
    from rich.table import Table

    rt = rep["runtime"]
    t = Table(title=f"closed-loop duplex @ step {rep['step']} ({rt['context']}, {rt['units_per_s']} units/s); "
                    "value (events)")
    t.add_column("family")
    for _, _, title in COLUMNS:
        t.add_column(title)
    for name, r in list(rep["families"].items()) + [("ALL", rep["all"])]:
        t.add_row(name, *(_cell(r, g, k) for g, k, _ in COLUMNS))
    Console(stderr=True, width=200).print(t)
