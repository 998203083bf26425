"""Dataset cards: the README.md that makes a generated folder (and a training export) load as a Hub dataset.

`datasets.load_dataset(DIR)` with no card reads every data-like file of DIR (manifest.json and the
summaries/*.json sidecars too) as one table and fails. The card's YAML front matter names what is
data: config `default` is `shards/shard-*.parquet` (one `train` split), config `failed` the failure
tables when the run has any (loadable by name, never the default). `dataset_info` repeats the
shards' own feature metadata (schemas/arrow.py) in the card's YAML form. It gives no `splits`: datasets
5.2 ignores a split without `num_bytes` (the size of the Arrow data it would build, which the run does
not know), so the row counts are in the card's text.

The card is a function of the run's config and of the shards' contents alone: no time, host, path or
invocation detail, so the same config and seed write the same bytes, on a resume too. Per-shard
counts (`Counts`) are made where the shard is (the Ray task: rendered rows, or a verified shard's
columns) and summed by the driver as integers (milliseconds of audio), so the order shards finish
in changes no byte. The runner writes it just before the manifest (temp name, then rename).
"""
from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import pyarrow as pa
import yaml

from generators.version import GENERATOR_VERSION
from generators.voice_bank import (
    COSYVOICE,
    ESPEAK,
    FLITE,
    PIPER,
    RHVOICE,
    by_id,
    cast_for,
)
from pipeline.io import Store
from schemas.arrow import FAILED_SCHEMA, TRAJECTORY_SCHEMA, hf_yaml_features
from schemas.config import ESPEAK_CAST, RunConfig
from schemas.protocol import CHUNK_EOS, UNIT

CARD = "README.md"
# The first line after the front matter: a README.md without it is someone else's, never overwritten.
CARD_MARK = "<!-- duplexsynth dataset card: rewritten by every run into this folder; edit a copy -->"
ROWS_CONFIG, FAILED_CONFIG = "default", "failed"
ROWS_GLOB, FAILED_GLOB = "shards/shard-*.parquet", "failed/shard-*.parquet"
TRAIN_SPLIT = "train"
# datasets versions a generated folder and a training export were loaded with, which the card tells its
# reader (tests/test_dataset_card.py runs the installed one; the 3.x were run by hand in venvs of their own)
DATASETS_TESTED = "3.0.0, 3.6.0 and 5.2.0"
COUNT_COLUMNS = ["scenario", "language", "duration_s", "meta"]

# What is known of each engine's licence, from generators/voice_bank.yaml and pipeline/tts/ (nothing more).
ENGINE_NOTES: dict[str, str] = {
    ESPEAK: ("espeak-ng formant synthesis; the program and its voice data are GPL-3.0-or-later. The GPL covers "
             "the program, not what it outputs: the FSF's GPL FAQ says the output of a program is not, in general, "
             "covered by the program's copyright."),
    PIPER: ("Piper neural voices (piper-tts, GPL-3.0, run in a process of its own); each voice has its own licence, "
            "in its model card: the bank records it for its built-in voice, a voice from a `voices.piper_dirs` "
            "folder says `see model card` (the card beside its .onnx)."),
    FLITE: ("CMU flite clustergen voices (CMU ARCTIC speakers; Debian libflite1, main), under CMU's BSD-style "
            "flite licence."),
    RHVOICE: ("RHVoice HTS voices (CMU ARCTIC speakers; Debian rhvoice-english, non-free component); the bank holds "
              "only its LGPL-2.1-or-later voices (evgeniy-eng and lyubov are non-commercial and left out)."),
    COSYVOICE: ("CosyVoice zero-shot voices, cloned from the prompt recordings of the run's model folder: the "
                "model's licence and the rights of the prompt speakers apply (see the model card)."),
}


@dataclass
class Counts:
    """What a card counts, for one shard or summed over a run (all integers: sums are order-free)."""

    rows: Counter[tuple[str, str]] = field(default_factory=Counter)   # (scenario, language) -> rows
    ms: Counter[tuple[str, str]] = field(default_factory=Counter)     # (scenario, language) -> audio, ms
    failed: Counter[str] = field(default_factory=Counter)             # scenario -> failed records
    voices: Counter[str] = field(default_factory=Counter)             # voice id -> rows it speaks in

    def add(self, other: Counts) -> None:
        for mine, theirs in ((self.rows, other.rows), (self.ms, other.ms), (self.failed, other.failed),
                             (self.voices, other.voices)):
            mine.update(theirs)


def count_tables(rows: pa.Table, failed: pa.Table | None) -> Counts:
    """The counts of one shard: its rows (COUNT_COLUMNS) and its failure table (`scenario`), if any."""
    c = Counts()
    for scenario, lang, dur, meta in zip(*(rows.column(n).to_pylist() for n in COUNT_COLUMNS)):
        c.rows[(scenario, lang)] += 1
        c.ms[(scenario, lang)] += round(float(dur) * 1000)
        for v in json.loads(meta).get("voices", []):
            c.voices[json.loads(v)["name"]] += 1
    if failed is not None:
        c.failed.update(failed.column("scenario").to_pylist())
    return c


def count_shard(store: Store, rows_path: str, failed_path: str | None) -> Counts:
    """The counts of a shard already on disk (read: COUNT_COLUMNS of its rows, `scenario` of its failures)."""
    failed = store.read_table(failed_path, ["scenario"]) if failed_path else None
    return count_tables(store.read_table(rows_path, COUNT_COLUMNS), failed)


# ----------------------------------------------------------------------------- writing
class CardRefused(ValueError):
    """The folder's README.md is not a card this project wrote; the message says what to do."""


def check_card_slot(store: Store) -> None:
    """Refuse, before a run writes anything, a README.md of someone else's (it would be overwritten)."""
    if store.exists(CARD) and CARD_MARK not in store.read_bytes(CARD).decode("utf-8", "replace"):
        raise CardRefused(f"{store.display(CARD)} exists and is not a duplexsynth dataset card (no line "
                          f"{CARD_MARK!r}); the run writes its card there: move that file, or choose another --out")


def front_matter(meta: dict[str, Any]) -> str:
    """`---` YAML `---`, keys in the order given (PyYAML's dump of the same data is the same bytes)."""
    return "---\n" + yaml.safe_dump(meta, sort_keys=False, allow_unicode=True, width=120) + "---\n"


def _table(head: list[str], rows: list[list[Any]]) -> list[str]:
    out = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    return out + ["| " + " | ".join(str(x) for x in r) + " |" for r in rows]


def _hours(ms: int) -> str:
    return f"{ms / 3_600_000:.3f}"


def dataset_card(cfg: RunConfig, rows: int, failed: int, counts: Counts, speech_tokens: str) -> str:
    """The card of a generated folder: `rows`/`failed` are the manifest's, `counts` the shards' own."""
    langs = list(cfg.language_weights())
    configs: list[dict[str, Any]] = [{"config_name": ROWS_CONFIG,
                                      "data_files": [{"split": TRAIN_SPLIT, "path": ROWS_GLOB}]}]
    info: list[dict[str, Any]] = [{"config_name": ROWS_CONFIG, "features": hf_yaml_features(TRAJECTORY_SCHEMA)}]
    if failed:
        configs.append({"config_name": FAILED_CONFIG, "data_files": [{"split": TRAIN_SPLIT, "path": FAILED_GLOB}]})
        info.append({"config_name": FAILED_CONFIG, "features": hf_yaml_features(FAILED_SCHEMA)})
    head = front_matter({"configs": configs, "dataset_info": info, "language": langs,
                         "pretty_name": "duplexsynth full-duplex trajectories",
                         "tags": ["synthetic", "audio", "full-duplex", "duplexsynth"]})
    total_ms = sum(counts.ms.values())
    lines = [CARD_MARK, "", f"# duplexsynth trajectories: {rows} rows, {_hours(total_ms)} h", "",
             ("Synthetic full-duplex voice-assistant sessions made by duplexsynth: one Parquet row per session, "
              "with the microphone and assistant audio, the event stream, word timings and the per-unit decisions "
              "(the columns are the project's DESIGN.md §3)."), "",
             "## Loading", "", "```python", "import datasets",
             f'ds = datasets.load_dataset("DIR")   # config "{ROWS_CONFIG}": shards/, split "{TRAIN_SPLIT}"']
    if failed:
        lines.append(f'failed = datasets.load_dataset("DIR", "{FAILED_CONFIG}")   # the trajectories that raised')
    lines += ['ds = ds.cast_column("user_audio", datasets.Audio(decode=False))   # FLAC bytes', "```", "",
              (f"`user_audio` and `assistant_audio` are `Audio` features: 16-bit FLAC at {cfg.sample_rate} Hz. "
               "Decoding them through datasets needs torchcodec (datasets 4 and later) or soundfile and librosa "
               "(datasets 3); with `Audio(decode=False)` they are the FLAC bytes, which soundfile reads. "
               f"The shards' feature metadata is in the form datasets 3 writes; datasets {DATASETS_TESTED} "
               "load this folder. pyarrow, pandas and duckdb read `shards/*.parquet` as they are."), "",
              "## Counts", "",
              (f"{rows} rows, {failed} failed trajectories, {_hours(total_ms)} h of audio "
               f"({total_ms / 1000:.0f} s)."), ""]
    if sum(counts.rows.values()) == rows:
        lines += _table(["scenario", "language", "rows", "hours"],
                        [[s, lang, n, _hours(counts.ms[(s, lang)])] for (s, lang), n in sorted(counts.rows.items())])
        by_lang: Counter[str] = Counter()
        by_lang_ms: Counter[str] = Counter()
        for (s, lang), n in counts.rows.items():
            by_lang[lang] += n
            by_lang_ms[lang] += counts.ms[(s, lang)]
        lines += ["", *_table(["language", "rows", "hours"],
                              [[lang, by_lang[lang], _hours(by_lang_ms[lang])] for lang in sorted(by_lang)])]
    else:
        lines.append("(per-scenario counts were not gathered by this run)")
    if failed and sum(counts.failed.values()) == failed:
        lines += ["", f"Failed trajectories (config `{FAILED_CONFIG}`: id, seed, scenario, error, traceback):", "",
                  *_table(["scenario", "failed"], [[s or "(unknown)", n] for s, n in sorted(counts.failed.items())])]
    lines += ["", *_made_section(cfg, speech_tokens), "", *_voices_section(cfg, counts)]
    return head + "\n".join(lines) + "\n"


def _made_section(cfg: RunConfig, speech_tokens: str) -> list[str]:
    scen = ", ".join(f"{s} {w:g}" for s, w in cfg.scenarios.items() if w > 0)
    sources = ", ".join(dict.fromkeys(e.kind for e in cfg.source_entries()))
    return ["## How it was made", "",
            f"- generator: duplexsynth {GENERATOR_VERSION}; config hash `{cfg.config_hash()}`",
            (f"- seed {cfg.seed}, {cfg.num} trajectories planned in shards of {cfg.shard_size}; "
             f"unit {cfg.unit_s:g} s, {cfg.sample_rate} Hz"),
            f"- languages: {', '.join(f'{c} {w:g}' for c, w in cfg.language_weights().items())}",
            f"- scenario weights: {scen}",
            f"- scripts: {sources}; voices: cast `{cfg.voices.cast}`",
            f"- speech tokens: {speech_tokens}",
            ("- `config.yaml` beside this card is the resolved config: `duplexsynth generate --config config.yaml "
             "--out DIR` makes the same bytes; `manifest.json` has every shard's sha256.")]


def _voices_section(cfg: RunConfig, counts: Counts) -> list[str]:
    known = by_id(cfg.voices)
    rows = []
    for vid, n in sorted(counts.voices.items()):
        v = known.get(vid)
        rows.append([f"`{vid}`", v.engine if v else "?", v.language if v else "?", n,
                     v.licence if v else "unknown (not in the voice bank)", (v.source if v else "") or "-"])
    engines = {v.engine for vid in counts.voices if (v := known.get(vid)) is not None}
    out = ["## Voices and licences", "",
           ("The voices heard in the rows (every speaker named in a row's `meta.voices`), with the licence the "
            "project's voice bank (generators/voice_bank.yaml) records for each. These are the licences of the "
            "voices and engines, not a licence of this dataset: whoever publishes it decides that."), ""]
    out += _table(["voice", "engine", "language", "rows", "licence", "source"], rows) if rows else ["(no rows)"]
    if cfg.acoustics.babble_prob > 0:
        engines.add(ESPEAK)
        babble = sorted({vid for code in cfg.language_weights() for vid in cast_for(ESPEAK_CAST, code).people})
        out += ["", (f"Babble noise (drawn with probability {cfg.acoustics.babble_prob:g}) is spoken by talkers drawn from the espeak-ng "
                f"voices of the row's language: {', '.join(f'`{v}`' for v in babble)}.")]
    out += ["", *[f"- {e}: {ENGINE_NOTES[e]}" for e in sorted(engines) if e in ENGINE_NOTES]]
    return out


def write_card(store: Store, text: str) -> None:
    """The card, atomically (temp name, then rename)."""
    store.write_bytes(CARD, text.encode("utf-8"))


# ----------------------------------------------------------------------------- training export (jobs/export.py)
VAL_SPLIT = "validation"   # the Hub's name for the export's val/ folder


def export_card(manifest: dict[str, Any], schema: pa.Schema, languages: list[str]) -> str:
    """The card of a training export (TRAIN_DIR), from its manifest less what is not the data's own
    (time, elapsed, the source's path, worker count): the same source and options give the same bytes."""
    split = manifest["split"]
    data_files = [{"split": hub, "path": f"{name}/shard-*.parquet"}
                  for hub, name in ((TRAIN_SPLIT, "train"), (VAL_SPLIT, "val")) if split[name]["shards"]]
    head = front_matter({"configs": [{"config_name": ROWS_CONFIG, "data_files": data_files}],
                         "dataset_info": [{"config_name": ROWS_CONFIG, "features": hf_yaml_features(schema)}],
                         "language": languages, "pretty_name": "duplexsynth training rows",
                         "tags": ["synthetic", "audio", "full-duplex", "duplexsynth"]})
    tok = manifest["tokenizer"]
    ident = {k: v for k, v in tok.items() if k not in ("reused", "protocol", "tokenizer_json")
             and not (k == "spec" and "/" in str(v))}   # a tokenizer file's path is the machine's, its sha256 is the data's
    src, opts, audio = manifest["source"], manifest["options"], manifest["audio"]
    lines = [CARD_MARK, "", f"# duplexsynth training rows ({manifest['format']})", "",
             ("One row per kept trajectory of a duplexsynth dataset, laid out for the bundled trainer: the unit "
              f"sequence (`input_ids`), its `loss_mask`, the offset of every `{UNIT}`, the user audio, Omni frames "
              "and each unit's labels. `repeat` is the mix: the trainer takes a row `repeat` times; here each row "
              "is once."), "",
             "## Loading", "", "```python", "import datasets",
             f'ds = datasets.load_dataset("TRAIN_DIR")   # splits: {", ".join(d["split"] for d in data_files)}',
             'ds = ds.cast_column("audio", datasets.Audio(decode=False))   # FLAC bytes', "```", "",
             (f"`audio` is an `Audio` feature: 16 kHz FLAC (null with `--audio mel`: then `mel` holds fp16 "
              f"[units, {audio['n_mels']}, frames] and `mel_shape` its shape). Split `{VAL_SPLIT}` is the `val/` "
              "folder. `tokenizer/` holds the extended tokenizer and every protocol and speech id (protocol.json). "
              f"Decoding audio through datasets needs torchcodec (datasets 4 and later) or soundfile and librosa "
              f"(datasets 3); datasets {DATASETS_TESTED} load this folder."), "",
             "## Counts", ""]
    lines += _table(["split", "rows", "samples (with repeat)", "units", "tokens", "loss tokens"],
                    [[hub, split[name].get("rows", 0), split[name].get("samples", 0), split[name].get("units", 0),
                      split[name].get("tokens", 0), split[name].get("loss_tokens", 0)]
                     for hub, name in ((TRAIN_SPLIT, "train"), (VAL_SPLIT, "val"))])
    lines += ["", *_table(["family", "source rows", "weight", "train rows", "train samples", "val rows"],
                          [[f, st["source_rows"], f"{st['weight']:g}", st["train_rows"], st["train_samples"],
                            st["val_rows"]] for f, st in sorted(manifest["mix"]["families"].items())])]
    skipped = src.get("skipped")
    lines += ["", "## How it was made", "",
              f"- `duplexsynth export` of a dataset made by duplexsynth {src.get('generator_version')} "
              f"(its manifest.json sha256 `{src['manifest_sha256']}`, {len(src['shards'])} shards)"
              + (f"; {skipped['shards']} damaged shards skipped (`--allow-incomplete`)" if skipped else ""),
              f"- tokenizer: {json.dumps(ident, sort_keys=True)}",
              (f"- split: val fraction {split['val_fraction']:g} (realised {split['val_share']:.4f}), seed {split['seed']}; "
               f"mix weights {json.dumps(manifest['mix']['weights'], sort_keys=True)} (others 1)"),
              (f"- audio {audio['format']}; image tokens per frame {opts['image_tokens']}; "
               f"`{CHUNK_EOS}` loss {opts['chunk_eos_loss']}; rows per shard {opts['rows_per_shard']}"),
              ("- `manifest.json` has the layout, loss rule and every shard's sha256; the source dataset's own "
               "README.md lists the voices its audio was made with and their licences.")]
    return head + "\n".join(lines) + "\n"
