"""The one fixture set: trajectory rows from the real planners and composer, validated before use.

Rows are made exactly as `jobs/shards.run_shard` makes them (generators.registry.plan_trajectory,
then pipeline.render.render_trajectory) with a test TTS: `ToneTTS` (tests/conftest.py) where word
content does not matter, espeak-ng where it does. Every row is checked with
pipeline.validate.validate_row (rule 4 by re-composition included) before a test sees it; a row
that fails stops the session loudly, so no test runs on data the generator would not write.

`Generated` (the session fixture `generated` in conftest) caches by (scenario, seed, tts, tokens),
so each row is made once per session however many tests use it. `write_dataset` lays rows out as
the generator's output folder (shards/, summaries/, manifest.json) with the real manifest writer.

Where a test needs a situation (an interruption whose cut reaches a word, a result arriving while
the user talks...) it names the (scenario, seed) that produces it in `SITUATIONS` and asserts the
situation holds in the row (`find_*` below), so the test cannot silently stop testing it.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq

from generators.registry import plan_trajectory
from pipeline.render import render_trajectory
from pipeline.validate import validate_row
from schemas.arrow import FAILED_SCHEMA, rows_to_table
from schemas.config import ESPEAK_CAST, RunConfig, VoicesConfig
from schemas.trajectory import TrajectoryRow

# The fast voice choice of tests that do not test voices: the `espeak` cast (espeak-ng formant
# voices, hundreds of times real time, drawn as every run was before the natural default). In a
# config: FIXTURE_CONFIG / `RunConfig(voices=FAST_VOICES)`; on a command line: `--config
# FAST_VOICES_YAML` (or merged into the test's own config). tests/test_voice_default.py runs the
# real default (natural) voices end to end.
FAST_VOICES = VoicesConfig(cast=ESPEAK_CAST)
FAST_VOICES_YAML = Path(__file__).with_name("fast_voices.yaml")

# The generator's default config with the fast voices: the rows are what `duplexsynth generate
# --config tests/fast_voices.yaml` would write.
FIXTURE_CONFIG = RunConfig(seed=0, num=1, voices=FAST_VOICES)

# (scenario, seed) per situation a test needs; `find_*` asserts the situation holds in the row.
SITUATIONS: dict[str, tuple[str, int]] = {
    "turn_taking": ("turn_taking", 1),
    "backchannel": ("backchannel", 1),
    "interruption_discard": ("interruption_discard", 1),
    "interruption_repair": ("interruption_repair", 1),
    "interruption_park": ("interruption_park", 1),
    "delegation": ("delegation", 1),
    "delegation_multi": ("delegation_multi", 1),
    "proactive_timer": ("proactive_timer", 1),
    "pause": ("pause", 1),
    "other_directed": ("other_directed", 1),
    "background_speech": ("background_speech", 1),
    # an assistant turn that asks the user something, then the user speaks ("Should I compare a few laptop models
    # under 1520 dollars?"); a timer's small talk no longer asks, as its announcement follows unprompted
    "assistant_question": ("turn_taking", 11),
    # a short timer with small talk in it: the reply ends a few seconds before the announcement
    "timer_smalltalk": ("proactive_timer", 157),
}
DATASET_FAMILIES: tuple[str, ...] = ("turn_taking", "backchannel", "interruption_discard", "delegation")


class FixtureRowInvalid(AssertionError):
    """A generated fixture row broke a rule: the generator (or validate) is wrong, not the test."""


@dataclass
class Generated:
    """Session cache of generated rows. `tts`: {"tone": ToneTTS(), "espeak": EspeakBackend()}."""

    tts: dict[str, Any]
    onnx_path: Path | None = None          # tiny S3 tokenizer for rows with speech tokens
    cfg: RunConfig = FIXTURE_CONFIG
    _rows: dict[tuple[str, int, str, bool, int | None, str | None], TrajectoryRow] = field(default_factory=dict)
    _tokenizer: Any = None

    def tokenizer(self) -> Any:
        if self._tokenizer is None:
            if self.onnx_path is None:
                raise ValueError("Generated(onnx_path=...) is needed for rows with speech tokens")
            from pipeline.speech_tokens import S3SpeechTokenizer
            self._tokenizer = S3SpeechTokenizer(str(self.onnx_path))
        return self._tokenizer

    def row(self, scenario: str, seed: int, *, tts: str = "espeak", tokens: bool = False,
            row_id: str | None = None, sample_rate: int | None = None, language: str | None = None) -> TrajectoryRow:
        """The row the generator makes for (scenario, seed), validated. Returns a fresh copy (tests may edit it)."""
        key = (scenario, seed, tts, tokens, sample_rate, language)
        if key not in self._rows:
            cfg = self.cfg if sample_rate is None else self.cfg.model_copy(update={"sample_rate": sample_rate})
            if language is not None:   # a run of that language (`--language zh`)
                cfg = RunConfig.model_validate({**cfg.model_dump(mode="json"), "language": language})
            script = plan_trajectory(cfg, scenario, seed)
            row = render_trajectory(cfg=cfg, traj_id=f"g-{scenario}-{seed}-{tts}", script=script,
                                    tts=self.tts[tts], tokenizer=self.tokenizer() if tokens else None)
            bad = validate_row(row, expect_tokens=tokens, recompose=True, tts=self.tts[tts])
            if bad:
                raise FixtureRowInvalid(f"generated fixture ({scenario}, {seed}, {tts}) fails validation:\n"
                                        + "\n".join(map(str, bad)))
            self._rows[key] = row
        row = self._rows[key].model_copy(deep=True)
        if row_id is not None:
            row.id = row_id
        return row

    def situation(self, name: str, **kw: Any) -> TrajectoryRow:
        scenario, seed = SITUATIONS[name]
        return self.row(scenario, seed, **kw)

    def rows(self, n: int, *, families: tuple[str, ...] = DATASET_FAMILIES, seed: int = 0, tts: str = "tone",
             tokens: bool = False) -> list[TrajectoryRow]:
        """`n` rows cycling through `families`, seeds seed, seed+1, ...; ids as the generator names them."""
        return [self.row(families[i % len(families)], seed + i, tts=tts, tokens=tokens,
                         row_id=f"s{seed}-{i // 4:05d}-{i:07d}") for i in range(n)]


# ----------------------------------------------------------------------------- situations

def attrs(ev: Any) -> dict[str, Any]:
    return json.loads(ev.attrs)


def find_event(row: TrajectoryRow, kind: str, **want: Any) -> Any:
    """The first event of `kind` whose attrs hold `want`; fails the test if the row has none."""
    for e in row.events:
        a = attrs(e)
        if e.kind == kind and all(a.get(k) == v for k, v in want.items()):
            return e
    raise AssertionError(f"{row.id}: no {kind} event with {want}: the fixture no longer has its situation")


def find_truncated_turn(row: TrajectoryRow) -> Any:
    """An interrupted assistant turn whose cut reaches a voiced word (rule 8's situation)."""
    for e in row.events:
        a = attrs(e)
        if e.kind == "assistant_turn" and a.get("interrupted") and a.get("truncated"):
            return e
    raise AssertionError(f"{row.id}: no interrupted turn whose cut reaches a word")


def find_relay(row: TrajectoryRow) -> tuple[Any, Any]:
    """(backend event, its relay turn) of a result that is relayed."""
    turns = {e.id: e for e in row.events if e.kind == "assistant_turn"}
    for e in row.events:
        a = attrs(e)
        if e.kind == "backend" and a.get("relay_turn") in turns:
            return e, turns[a["relay_turn"]]
    raise AssertionError(f"{row.id}: no relayed backend result")


# ----------------------------------------------------------------------------- output folders

def write_dataset(root: str | Path, rows: list[TrajectoryRow], *, rows_per_shard: int = 4,
                  manifest: bool = True, failed_shard: bool = False, cfg: RunConfig = FIXTURE_CONFIG,
                  onnx_path: str | Path | None = None) -> Path:
    """Write rows as the generator's output folder: shards/, summaries/ sidecars and manifest.json.

    The manifest is written by the runner's own writer (jobs.runner._write_manifest) with the
    config's `num` set to len(rows). `failed_shard` also writes an empty failure table under
    failed/ and one named shards/failed-00000.parquet, both of which readers must skip.
    """
    from jobs.runner import RunResult, _write_manifest
    from pipeline.io import Store

    root = Path(root)
    store = Store(str(root))
    entries = []
    for i in range(0, len(rows), rows_per_shard):
        part = rows[i:i + rows_per_shard]
        rel = f"shards/shard-{i // rows_per_shard:05d}.parquet"
        sha = store.write_parquet(rows_to_table(part), rel)
        entries.append({"shard": i // rows_per_shard, "path": rel, "rows": len(part), "failed": 0, "sha256": sha,
                        "failed_path": None, "failed_sha256": None,
                        "audio_s": float(sum(r.duration_s for r in part))})
        store.write_json(f"summaries/shard-{i // rows_per_shard:05d}.json", {"path": rel, "sha256": sha})
    if failed_shard:
        (root / "failed").mkdir(parents=True, exist_ok=True)
        pq.write_table(FAILED_SCHEMA.empty_table(), root / "failed" / "shard-00000.parquet")
        pq.write_table(FAILED_SCHEMA.empty_table(), root / "shards" / "failed-00000.parquet")
    if manifest:
        run_cfg = cfg.model_copy(update={"num": len(rows)})
        if onnx_path is not None:
            run_cfg = RunConfig.model_validate({**run_cfg.model_dump(mode="json"),
                                                "speech_tokenizer": {"onnx_path": str(onnx_path)}})
        res = RunResult(out=str(root), rows=len(rows), audio_s=float(sum(r.duration_s for r in rows)))
        _write_manifest(run_cfg, store, entries, res)
    return root


def read_rows(root: str | Path) -> list[TrajectoryRow]:
    from schemas.arrow import row_from_dict
    return [row_from_dict(d) for p in sorted(Path(root, "shards").glob("shard-*.parquet"))
            for d in pq.read_table(p).to_pylist()]


def train_tokenizer(path: str | Path, texts: list[str], vocab_size: int = 400,
                    special: tuple[str, ...] = ("<unit>", "<|listen|>", "<|speak|>", "<|turn_eos|>", "<|chunk_eos|>"),
                    ) -> Path:
    """Train a small byte-level BPE on `texts` (generated rows' own words; no download), save tokenizer.json.

    The special tokens get ids 0..len(special)-1, as a target tokenizer that already owns some
    protocol tokens would; export must reuse exactly those ids.
    """
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=vocab_size, special_tokens=list(special),
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), show_progress=False)
    tok.train_from_iterator(list(texts) * 5, trainer=trainer)
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tok.save(str(path))
    return path


def row_texts(rows: list[TrajectoryRow]) -> list[str]:
    """Every text a tokenizer will see in an export of `rows`: speech, requests, results."""
    return [e.text for r in rows for e in r.events if e.text] + ["[backend t1] [timer] 0123456789 < > | / ! ? , . ' \""]


def export_dataset(root: str | Path, generated: Generated, *, rows: int = 8, val_fraction: float = 0.25,
                   tokens: bool = True, tokenizer: str = "trained", families: tuple[str, ...] = DATASET_FAMILIES,
                   frames: bool = False, **opts: Any) -> Path:
    """Generated rows under root/src, exported to root/train (the trainer's input). `frames`: see with_frames."""
    from jobs.export import ExportOptions, export

    root = Path(root)
    data = generated.rows(rows, families=families, tokens=tokens)
    if frames:
        data = [with_frames(r) for r in data]
    src = write_dataset(root / "src", data, onnx_path=generated.onnx_path if tokens else None)
    if tokenizer == "trained":
        tokenizer = str(train_tokenizer(root / "tok" / "tokenizer.json", row_texts(data)))
    elif tokenizer == "sdk":
        tokenizer = "minicpm-o45"
    out = root / "train"
    export(src, out, ExportOptions(tokenizer=tokenizer, val_fraction=val_fraction, **opts), progress=False)
    return out


def with_frames(row: TrajectoryRow) -> TrajectoryRow:
    """The row plus one small JPEG per unit (the `frames` column of an Omni row).

    For tests of the trainer's vision path on the audio families' rows (seeded noise images, one
    per unit); tests of Omni data itself use the visual families' real rows (tests/test_omni*.py).
    """
    import io

    import numpy as np
    from PIL import Image

    frames = []
    for k in range(len(row.units)):
        rng = np.random.default_rng([row.seed % 2**32, k])
        buf = io.BytesIO()
        Image.fromarray((rng.random((32, 32, 3)) * 255).astype(np.uint8)).save(buf, format="JPEG", quality=80)
        frames.append(buf.getvalue())
    return row.model_copy(update={"frames": frames})
