"""Does the MiniCPM-o SDK read our minicpm-o export as our trainer export reads the rows?

`python3 -m jobs.minicpmo_agreement DATASET EXPORT` loads every case of `EXPORT/cases` with the
SDK's own `O5DuplexTrainingData.load_structure`, arranges and tokenizes it with the SDK's 4.5
tokenizer, and compares, unit by unit, with our trainer layout (`model.protocol.UnitEncoder`) of the
same row: the decision (`<|listen|>` / `<|speak|>`), the spoken text ids, and the turn end.

One difference is by design and counted apart, not as a disagreement: the SDK closes every speech
run with `<|spoken_turn_eos|>` (it has no cut-off turn), while our interrupted turn has no
`turn_eos` (DESIGN §2 rule 3). A unit whose SDK turn end is the last unit of a cut turn is a
`cut_turn_end`; every other difference is a disagreement and makes the command exit 1.
"""
from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from jobs.dataset_reader import DatasetReader
from schemas.errors import UsageError
from schemas.language import language
from schemas.protocol import SPEAK
from schemas.trajectory import TrajectoryRow, attrs_of
from schemas.vocab import Decision, EventKind, Label
from schemas.windows import last_window_at

SDK_TRACK = "ai_spoken"                       # the SDK's provenance track of the spoken slot
SDK_TURN_EOS = "<|spoken_turn_eos|>"         # the SDK's name for our <|turn_eos|> (model/protocol.py ALIASES)


@dataclass
class UnitView:
    """What one unit outputs, as far as both layouts can say it."""

    decision: str = Decision.LISTEN
    text_ids: list[int] = field(default_factory=list)
    turn_eos: bool = False


@dataclass
class Agreement:
    rows: int = 0
    units: int = 0
    cut_turn_ends: int = 0
    disagreements: list[str] = field(default_factory=list)
    by_field: Counter = field(default_factory=Counter)

    def summary(self) -> dict[str, Any]:
        return {"rows": self.rows, "units": self.units, "agree_units": self.units - len(self.disagreements),
                "cut_turn_ends": self.cut_turn_ends, "disagreements": len(self.disagreements),
                "by_field": dict(self.by_field), "first": self.disagreements[:10]}


def ours(row: TrajectoryRow, enc: Any) -> list[UnitView]:
    """Per unit, our trainer's decision, spoken text ids and turn end."""
    units = [u.model_dump(mode="json") for u in row.units]
    spoken = enc.spoken_ids(units, language(row.language).word_separator)
    return [UnitView(u["decision"], spoken[k], bool(u["turn_eos"])) for k, u in enumerate(units)]


def theirs(result: Any, n_units: int, sdk_tok: Any) -> list[UnitView]:
    """Per unit, what the SDK's tokenization puts in the spoken slot."""
    vocab = int(sdk_tok.manifest.base_tokenizer_fingerprint.vocab_size)
    td = result.tokenized_data
    names = sdk_tok.convert_ids_to_tokens([int(i) for i in td.input_ids])
    out = [UnitView() for _ in range(n_units)]
    for tid, name, prov in zip(td.input_ids, names, td.token_provenance):
        k = prov.unit_index
        if prov.track != SDK_TRACK or k is None or not 0 <= k < n_units:
            continue
        if name == SPEAK:   # the SDK's display name is ours
            out[k].decision = Decision.SPEAK
        elif name == SDK_TURN_EOS:
            out[k].turn_eos = True
        elif int(tid) < vocab:
            out[k].text_ids.append(int(tid))
    return out


def cut_turn_last_units(row: TrajectoryRow) -> set[int]:
    """The output unit of each interrupted turn's last voiced window."""
    out = set()
    for e in row.events:
        if e.kind == EventKind.ASSISTANT_TURN and e.end_s > e.start_s and attrs_of(e).interrupted:
            out.add(last_window_at(e.end_s, row.unit_s, row.sample_rate) - 1)
    return out


def compare(dataset: Path, export: Path) -> Agreement:
    from minicpm_o5_sdk import O5DuplexTrainingData, O5TokenizerID, load_builtin_tokenizer

    from model.protocol import UnitEncoder, extend_vocab, load_text_tokenizer

    tok = load_text_tokenizer("minicpm-o45")
    sdk_tok = load_builtin_tokenizer(O5TokenizerID.O45_FC)
    cases = export / "cases"
    agg = Agreement()
    for row in DatasetReader(dataset).iter_trajectories():
        case = cases / f"{row.id}.json"
        if not case.is_file():
            continue   # a row the export refused: its failed record says why
        enc = UnitEncoder(tok, extend_vocab(tok), unit_s=row.unit_s)
        data = O5DuplexTrainingData.load_structure(json.loads(case.read_text(encoding="utf-8")), data_root=cases)
        a, b = ours(row, enc), theirs(data.tokenize(tokenizer=sdk_tok), len(row.units), sdk_tok)
        cut_units = cut_turn_last_units(row)
        agg.rows += 1
        for k, (x, y) in enumerate(zip(a, b)):
            agg.units += 1
            bad = [f for f in ("decision", "text_ids") if getattr(x, f) != getattr(y, f)]
            if x.turn_eos != y.turn_eos:
                if y.turn_eos and not x.turn_eos and k in cut_units:
                    agg.cut_turn_ends += 1
                else:
                    bad.append(Label.TURN_EOS)
            if bad:
                agg.by_field.update(bad)
                agg.disagreements.append(f"{row.id} unit {k}: {','.join(bad)} ours={tok.decode_ordinary(x.text_ids)!r}"
                                         f"{'+eos' if x.turn_eos else ''} sdk={tok.decode_ordinary(y.text_ids)!r}"
                                         f"{'+eos' if y.turn_eos else ''}")
    return agg


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python3 -m jobs.minicpmo_agreement", description=__doc__.split("\n\n")[0])
    p.add_argument("dataset", type=Path, help="a generated folder")
    p.add_argument("export", type=Path, help="its `duplexsynth export --format minicpm-o` folder")
    args = p.parse_args(argv)
    if not (args.export / "cases").is_dir():
        print(f"error: {args.export}: no cases/ folder (not a `duplexsynth export --format minicpm-o` output)",
              file=sys.stderr)
        return 2
    try:
        agg = compare(args.dataset, args.export)
    except UsageError as err:   # a missing or broken dataset folder: one line naming it
        print(f"error: {err}", file=sys.stderr)
        return 2
    print(json.dumps(agg.summary(), indent=1, ensure_ascii=False))
    return 0 if not agg.disagreements and agg.rows else 1


if __name__ == "__main__":
    sys.exit(main())
