"""`duplexsynth eval-decisions CHECKPOINT --data TRAIN_DIR/val`: turn-taking decisions of a model.

Teacher-forced on the reference context (the standard offline duplex metric): at every unit the
model's choice between ``<|listen|>`` and ``<|speak|>`` is the larger of those two logits at the
decision slot; on every speak unit its turn-end choice is ``<|turn_eos|>`` against the best
alternative that may follow the speech (``<|chunk_eos|>`` or ``<delegate>``) at the slot after the
unit's speech. Reported per scenario family and overall: decision accuracy, F1 of listen and of
speak, turn_eos accuracy and F1 (positive = turn ends), with counts; and proactive-speak accuracy:
on the units labelled ``proactive`` (the output that starts speaking unprompted: a timer fired, the
frame showing a watched change arrived), the share where the model chose ``<|speak|>``. The labels
come from the export's `unit_labels` column; an export without it reports no proactive units.
"""
from __future__ import annotations

import argparse
import contextlib
import json
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

import torch

from model.config import load_checkpoint_spec
from model.dataset import TrainSplit, collate
from model.modeling import DuplexModel
from schemas.safe_paths import atomic_write_bytes, refuse_unsafe_target
from model.protocol import CHUNK_EOS, DELEGATE, LISTEN, SPEAK, TURN_EOS, ProtocolVocab
from schemas.vocab import Label


def _f1(tp: int, fp: int, fn: int) -> float:
    return 0.0 if tp == 0 else 2 * tp / (2 * tp + fp + fn)


class _Counts:
    def __init__(self) -> None:
        self.dec: list[tuple[int, int]] = []      # (truth, pred): 1 = speak
        self.eos: list[tuple[int, int]] = []      # (truth, pred): 1 = turn_eos
        self.proactive: list[int] = []            # pred on units labelled proactive: 1 = speak

    def report(self) -> dict[str, Any]:
        out: dict[str, Any] = {"units": len(self.dec), "speak_units": sum(t for t, _ in self.dec)}
        if self.dec:
            acc = sum(t == p for t, p in self.dec) / len(self.dec)
            tp = sum(t == 1 and p == 1 for t, p in self.dec)
            fp = sum(t == 0 and p == 1 for t, p in self.dec)
            fn = sum(t == 1 and p == 0 for t, p in self.dec)
            tn = len(self.dec) - tp - fp - fn
            out.update(decision_accuracy=acc, speak_f1=_f1(tp, fp, fn), listen_f1=_f1(tn, fn, fp))
        if self.eos:
            tp = sum(t == 1 and p == 1 for t, p in self.eos)
            fp = sum(t == 0 and p == 1 for t, p in self.eos)
            fn = sum(t == 1 and p == 0 for t, p in self.eos)
            out.update(turn_eos_slots=len(self.eos), turn_eos_true=sum(t for t, _ in self.eos),
                       turn_eos_accuracy=sum(t == p for t, p in self.eos) / len(self.eos),
                       turn_eos_f1=_f1(tp, fp, fn))
        out["proactive_units"] = len(self.proactive)
        if self.proactive:
            out["proactive_speak_accuracy"] = sum(self.proactive) / len(self.proactive)
        return out


def decision_slots(ids: list[int], v: ProtocolVocab) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
    """(decision slots, turn-end slots) as (position of the target token, truth) pairs."""
    listen, speak, eos, chunk, deleg = v[LISTEN], v[SPEAK], v[TURN_EOS], v[CHUNK_EOS], v[DELEGATE]
    dec, ends = [], []
    i = 0
    while i < len(ids):
        tok = ids[i]
        if tok in (listen, speak):
            dec.append((i, int(tok == speak)))
            if tok == speak:
                j = i + 1
                while j < len(ids) and ids[j] not in (eos, chunk, deleg):
                    j += 1
                if j < len(ids):
                    ends.append((j, int(ids[j] == eos)))
                i = j
        i += 1
    return dec, ends


def proactive_preds(labels: list[list[str]] | None, pred: list[int]) -> list[int]:
    """The predictions (1 = speak) at the units labelled proactive. Each unit has exactly one decision
    slot, so slot i is unit i of the sample; labels that do not line up with the slots are not used."""
    if labels is None or len(labels) != len(pred):
        return []
    return [int(p) for lab, p in zip(labels, pred) if Label.PROACTIVE in lab]


def load_model(ckpt: Path, device: torch.device | None = None) -> tuple[DuplexModel, ProtocolVocab, dict[str, Any]]:
    """Rebuild the model from the config and protocol stored beside the checkpoint, then load weights."""

    from model.train import Env, load_checkpoint

    spec = load_checkpoint_spec(ckpt)
    vocab = ProtocolVocab.load(ckpt / "protocol.json")
    if spec.train.cpu_threads and not torch.cuda.is_available():
        torch.set_num_threads(spec.train.cpu_threads)
    model = DuplexModel(spec.model, vocab)
    state = load_checkpoint(ckpt, model, None, Env())
    model.eval()
    if device is not None:
        model.to(device)
    return model, vocab, {"spec": spec, "state": state}


def resolve_checkpoint(ckpt: str | Path) -> Path:
    """A checkpoint folder as given, or the latest checkpoint of a run folder."""
    from model.train import find_resume

    ckpt = Path(ckpt)
    if (ckpt / "trainer_state.json").is_file():
        return ckpt
    found = find_resume(ckpt, "auto")
    if found is None:
        raise FileNotFoundError(f"{ckpt} is neither a checkpoint nor a run folder with checkpoints")
    return found


def val_split(data: str | Path, spec: Any, vocab: ProtocolVocab) -> TrainSplit:
    """The val split of an export, read as the checkpoint's config reads it, refused when it was
    exported with another tokenizer extension than the checkpoint's."""
    image_size = (spec.model.vision.config or {}).get("image_size", 384) if spec.model.vision else None
    split = TrainSplit(data, max_seq_len=spec.train.max_seq_len, split="val", image_size=image_size,
                       recipe=spec.model.recipe)
    if split.vocab.to_json()["ids"] != vocab.to_json()["ids"] or split.vocab.speech_offset != vocab.speech_offset:
        raise ValueError("the data was exported with a different tokenizer extension than the checkpoint's")
    return split


@torch.no_grad()
def evaluate(ckpt: str | Path, data: str | Path, max_samples: int | None = None) -> dict[str, Any]:
    device = torch.device("cuda") if torch.cuda.is_available() else torch.device("cpu")
    model, vocab, meta = load_model(resolve_checkpoint(ckpt), device)
    bf16 = torch.autocast("cuda", dtype=torch.bfloat16) if device.type == "cuda" else contextlib.nullcontext()
    split = val_split(data, meta["spec"], vocab)
    per: dict[str, _Counts] = defaultdict(_Counts)
    seen = set()
    cand_dec = torch.tensor([vocab[LISTEN], vocab[SPEAK]], device=device)
    for item in split.items:
        if item in seen:          # the val split is never repeated, but be safe with mixes
            continue
        seen.add(item)
        if max_samples is not None and len(seen) > max_samples:
            break
        s = split.load(item)
        b = {k: (v.to(device) if isinstance(v, torch.Tensor) else v) for k, v in collate([s]).items()}
        with bf16:
            h = model.hidden_states(b["input_ids"], b["attention_mask"], b["audio_features"], b["pixel_values"])[0]
        ids = b["input_ids"][0].tolist()
        dec, ends = decision_slots(ids, vocab)
        c = per[s["scenario"]]
        if dec:
            lg = model.logits(h[[p - 1 for p, _ in dec]])
            pred = lg[:, cand_dec].argmax(-1).tolist()
            c.dec.extend((t, int(p)) for (_, t), p in zip(dec, pred))
            c.proactive.extend(proactive_preds(split.unit_labels(item), pred))
        if ends:
            lg = model.logits(h[[p - 1 for p, _ in ends]])
            yes = lg[:, vocab[TURN_EOS]]
            no = torch.maximum(lg[:, vocab[CHUNK_EOS]], lg[:, vocab[DELEGATE]])
            c.eos.extend((t, int(y > n)) for (_, t), y, n in zip(ends, yes.tolist(), no.tolist()))
    total = _Counts()
    for c in per.values():
        total.dec += c.dec
        total.eos += c.eos
        total.proactive += c.proactive
    return {"checkpoint": str(ckpt), "step": meta["state"]["step"], "data": str(split.dir),
            "families": {k: per[k].report() for k in sorted(per)}, "all": total.report()}


def run(args: argparse.Namespace) -> int:
    if args.out is not None:
        refuse_unsafe_target(args.out)   # before the evaluation, not after an hour of it
    try:
        rep = evaluate(args.checkpoint, args.data, args.max_samples)
    except (FileNotFoundError, ValueError) as err:
        print(f"eval-decisions failed: {err}", file=sys.stderr)
        return 2
    _print_table(rep)
    emit_report(rep, args.out)
    return 0


def emit_report(rep: dict[str, Any], out: str | None) -> None:
    """Print the report as JSON and, with `--out`, write it there too (`atomic_write_bytes`: a FIFO, a
    device or a symlink at --out, or at a temp name, is refused, never written through)."""
    text = json.dumps(rep, indent=2)
    if out is not None:
        atomic_write_bytes(out, text.encode("utf-8"), "--out")
    print(text)


def _print_table(rep: dict[str, Any]) -> None:
    from rich.console import Console
    from rich.table import Table

    t = Table(title=f"decisions @ step {rep['step']}")
    for col in ("family", "units", "acc", "F1 speak", "F1 listen", "eos slots", "eos acc", "F1 eos", "proactive units",
                "proactive speak"):
        t.add_column(col)
    rows = list(rep["families"].items()) + [("ALL", rep["all"])]
    for name, r in rows:
        f = lambda k: f"{r[k]:.3f}" if k in r else "-"   # noqa: E731
        t.add_row(name, str(r["units"]), f("decision_accuracy"), f("speak_f1"), f("listen_f1"),
                  str(r.get("turn_eos_slots", 0)), f("turn_eos_accuracy"), f("turn_eos_f1"),
                  str(r.get("proactive_units", 0)), f("proactive_speak_accuracy"))
    Console(stderr=True).print(t)
