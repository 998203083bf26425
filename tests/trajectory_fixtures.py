"""Small, valid trajectory datasets for trainer and export tests (no generator needed).

The real generator is built elsewhere; these fixtures follow DESIGN §2 by hand so the export and the
trainer can be tested on their own: unit k's output is played in window k+1, speech tokens are
exactly ``25 * unit_s`` per speak unit and absent on listen units, interrupted turns have no
``turn_eos``, backend results are readable from the unit whose window holds ``ready_s``.

Audio is synthetic (harmonic "voices" amplitude-modulated at a syllable rate over low noise), stored
as FLAC through soundfile, like the generator does. Speech tokens follow a learnable pattern from
the spoken text (real S3 tokens are far from uniform too), so a tiny model can fit a few rows.

The folder layout is the generator's: ``DIR/manifest.json`` (sha256 per shard) and
``DIR/shards/shard-00000.parquet``...
"""
from __future__ import annotations

import hashlib
import io
import json
import zlib
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq
import soundfile as sf

from schemas.arrow import rows_to_table
from schemas.trajectory import AudioBlob, Event, InputEvent, TrajectoryRow, Unit, Word

TOKENS_PER_SECOND = 25
CODEBOOK = 6561
SCENARIO_NAMES: tuple[str, ...] = ("turn_taking", "backchannel", "interruption_discard", "delegation")


@dataclass
class _Speech:
    """One stretch of speech on some channel: words with start times, spread over [start, end)."""

    role: str
    text: str
    start_s: float
    end_s: float
    event_id: str
    kind: str
    attrs: dict = field(default_factory=dict)

    def words(self) -> list[Word]:
        toks = self.text.split()
        span = (self.end_s - self.start_s) / max(len(toks), 1)
        return [Word(role=self.role, word=w, start_s=round(self.start_s + i * span, 3),
                     end_s=round(self.start_s + (i + 1) * span - 0.02, 3), event_id=self.event_id)
                for i, w in enumerate(toks)]


def _speech_tokens(key: str, n: int) -> list[int]:
    """A deterministic, learnable token run: a short arithmetic walk over 48 codes picked by `key`."""
    base = zlib.crc32(key.encode()) % 48
    return [int((base + 3 * j) % 48) * 131 % CODEBOOK for j in range(n)]


def _voice(n: int, sr: int, spans: list[tuple[float, float, float]], rng: np.random.Generator) -> np.ndarray:
    """Harmonic tones with a 4 Hz syllable envelope inside each (start, end, f0) span."""
    t = np.arange(n) / sr
    out = np.zeros(n, np.float32)
    for start, end, f0 in spans:
        a, b = int(start * sr), min(int(end * sr), n)
        if b <= a:
            continue
        tt = t[a:b]
        env = 0.5 * (1 - np.cos(2 * np.pi * 4.0 * (tt - start))) * 0.25
        sig = sum(np.sin(2 * np.pi * f0 * h * tt + rng.uniform(0, 6.28)) / h for h in (1, 2, 3))
        out[a:b] += (env * sig).astype(np.float32)
    return out


def _flac(x: np.ndarray, sr: int) -> bytes:
    buf = io.BytesIO()
    sf.write(buf, np.clip(x, -1, 1), sr, format="FLAC", subtype="PCM_16")
    return buf.getvalue()


def _jpeg(seed: int, k: int) -> bytes:
    """A tiny synthetic 1 fps frame (only for Omni fixtures)."""
    from PIL import Image

    rng = np.random.default_rng(seed * 1000 + k)
    arr = (rng.random((32, 32, 3)) * 255).astype(np.uint8)
    buf = io.BytesIO()
    Image.fromarray(arr).save(buf, format="JPEG", quality=80)
    return buf.getvalue()


def _plan(scenario: str, inject: str) -> tuple[int, list[_Speech], list[dict], list[dict]]:
    """Return (num_units, speech stretches, per-unit outputs, input events) for one scenario.

    Per-unit outputs list dicts: unit, text, turn_eos, delegate, task_id (unit = output unit k, whose
    audio plays in window k+1). `inject` is appended to assistant text, delegate and backend text so
    protocol tests can smuggle literal protocol strings through every text slot.
    """
    sp: list[_Speech] = []
    outs: list[dict] = []
    ins: list[dict] = []
    if scenario == "turn_taking":
        # DESIGN §2 worked example: user 0.30-1.90, eot 0.40 -> earliest reply window 3.
        n = 7
        sp.append(_Speech("user", "what's the weather in Paris", 0.30, 1.90, "e0", "user_turn"))
        sp.append(_Speech("assistant", "It's sunny and twenty degrees" + inject, 3.10, 5.05, "e1", "assistant_turn"))
        outs = [dict(unit=2, text="It's sunny and"), dict(unit=3, text="twenty degrees" + inject),
                dict(unit=4, text="", turn_eos=True)]
    elif scenario == "backchannel":
        # The "mm-hmm" at 4.20-4.60 leaves every output unchanged (rule 4).
        n = 8
        sp.append(_Speech("user", "tell me about the museum", 0.40, 1.80, "e0", "user_turn"))
        sp.append(_Speech("assistant", "It opens at nine and closes at six every day" + inject,
                          3.05, 6.90, "e1", "assistant_turn"))
        sp.append(_Speech("user", "mm-hmm", 4.20, 4.60, "e2", "backchannel"))
        outs = [dict(unit=2, text="It opens at"), dict(unit=3, text="nine and closes"),
                dict(unit=4, text="at six"), dict(unit=5, text="every day" + inject, turn_eos=True)]
    elif scenario == "interruption_discard":
        # DESIGN §2 worked example: assistant from 3.10, user "wait, stop" 5.40-6.10, detect 0.50 ->
        # unit 5 outputs listen, audio cut at 6.00; reply after 6.10 + eot -> window 7.
        n = 9
        sp.append(_Speech("user", "read me the news", 0.30, 1.50, "e0", "user_turn"))
        sp.append(_Speech("assistant", "Here are today's headlines first the weather", 3.10, 5.95, "e1",
                          "assistant_turn", {"unspoken_text": "then sports and markets"}))
        sp.append(_Speech("user", "wait, stop", 5.40, 6.10, "e2", "interruption", {"action": "discard"}))
        sp.append(_Speech("assistant", "Okay, stopped." + inject, 7.10, 7.80, "e3", "assistant_turn"))
        outs = [dict(unit=2, text="Here are today's"), dict(unit=3, text="headlines first"),
                dict(unit=4, text="the weather"), dict(unit=5, text="", labels=["interruption_onset", "stop_discard"]),
                dict(unit=6, text="Okay, stopped." + inject, turn_eos=True)]
    elif scenario == "delegation":
        # Delegate at unit 2, result ready at 5.50 (readable from unit 5), relayed from window 6.
        n = 9
        sp.append(_Speech("user", "book a table for two", 0.30, 1.70, "e0", "user_turn"))
        sp.append(_Speech("assistant", "Let me check.", 3.10, 3.80, "e1", "assistant_turn"))
        sp.append(_Speech("assistant", "Your table is booked for eight pm" + inject, 6.10, 7.90, "e4", "assistant_turn"))
        outs = [dict(unit=2, text="Let me check.", turn_eos=True,
                     delegate="Find a table for two tonight near the user" + inject, task_id="t1"),
                dict(unit=5, text="Your table is booked"), dict(unit=6, text="for eight pm" + inject, turn_eos=True)]
        ins = [dict(unit=5, kind="backend", task_id="t1", text="Table booked at 8 pm for two" + inject)]
    else:
        raise ValueError(f"fixture has no plan for scenario {scenario!r}; known: {SCENARIO_NAMES}")
    return n, sp, outs, ins


def make_row(scenario: str, seed: int, *, unit_s: float = 1.0, sample_rate: int = 16_000,
             speech_tokens: bool = True, frames: bool = False, inject: str = "",
             row_id: str | None = None) -> TrajectoryRow:
    """One valid trajectory row of `scenario` (see `_plan`), fully determined by `seed`."""
    if unit_s != 1.0:
        raise ValueError("fixtures are laid out for unit_s = 1.0")
    rng = np.random.default_rng(seed)
    n, speech, outs, ins = _plan(scenario, inject)
    samples = int(n * unit_s * sample_rate)
    f_user, f_asst = 140.0 + 40 * rng.random(), 200.0 + 40 * rng.random()
    user_spans = [(s.start_s, s.end_s, f_user) for s in speech if s.role == "user"]
    asst_spans = [(s.start_s, s.end_s, f_asst) for s in speech if s.role == "assistant"]
    noise = (rng.standard_normal(samples) * 0.003).astype(np.float32)
    user = _voice(samples, sample_rate, user_spans, rng) + noise
    asst = _voice(samples, sample_rate, asst_spans, rng)

    by_unit = {o["unit"]: o for o in outs}
    asst_speaking = {k for k in range(n)
                     if any(s.start_s < (k + 2) * unit_s and s.end_s > (k + 1) * unit_s for s in speech
                            if s.role == "assistant")}
    units: list[Unit] = []
    per_tok = int(round(TOKENS_PER_SECOND * unit_s))
    for k in range(n):
        o = by_unit.get(k, {})
        speak = k in asst_speaking
        user_text = " ".join(w.word for s in speech if s.role != "assistant" for w in s.words()
                             if k * unit_s <= w.start_s < (k + 1) * unit_s)
        labels = list(o.get("labels", []))
        if any(s.role == "user" and s.start_s < (k + 1) * unit_s and s.end_s > k * unit_s for s in speech
               if s.kind in ("user_turn", "interruption")):
            labels.append("user_speech")
        if any(s.kind == "backchannel" and s.start_s < (k + 1) * unit_s and s.end_s > k * unit_s for s in speech):
            labels.append("backchannel")
        if o.get("turn_eos"):
            labels.append("turn_eos")
        if o.get("delegate"):
            labels.append("delegate")
        in_ev = [InputEvent(kind=e["kind"], task_id=e["task_id"], text=e["text"]) for e in ins if e["unit"] == k]
        if in_ev:
            labels.append("backend_result")
        units.append(Unit(
            index=k, user_text=user_text, input_events=in_ev,
            decision="speak" if speak else "listen",
            spoken_text=o.get("text", "") if speak else "",
            speech_tokens=_speech_tokens(f"{scenario}:{k}:{o.get('text', '')}", per_tok)
            if (speak and speech_tokens) else [],
            turn_eos=bool(o.get("turn_eos", False)) and speak,
            delegate=o.get("delegate"), task_id=o.get("task_id"), labels=labels))
    events = [Event(id=s.event_id, kind=s.kind, role=s.role, start_s=s.start_s, end_s=s.end_s,
                    text=s.text, attrs=json.dumps(s.attrs)) for s in speech]
    for o in outs:
        if o.get("delegate"):
            events.append(Event(id=f"d-{o['task_id']}", kind="delegate", role="assistant",
                                start_s=(o["unit"] + 1) * unit_s, end_s=(o["unit"] + 1) * unit_s,
                                text=o["delegate"], attrs=json.dumps({"task_id": o["task_id"]})))
    for e in ins:
        events.append(Event(id=f"b-{e['task_id']}", kind="backend", role="harness", start_s=e["unit"] + 0.5,
                            end_s=e["unit"] + 0.5, text=e["text"], attrs=json.dumps({"task_id": e["task_id"]})))
    words = sorted((w for s in speech for w in s.words()), key=lambda w: w.start_s)
    return TrajectoryRow(
        id=row_id or f"fx-{scenario}-{seed}", seed=seed, scenario=scenario, language="en", unit_s=unit_s,
        duration_s=n * unit_s, sample_rate=sample_rate,
        user_audio=AudioBlob(bytes=_flac(user, sample_rate)),
        assistant_audio=AudioBlob(bytes=_flac(asst, sample_rate)),
        events=events, words=words, units=units,
        frames=[_jpeg(seed, k) for k in range(n)] if frames else [],
        script=json.dumps({"scenario": scenario, "seed": seed}),
        meta=json.dumps({"generator": "tests.trajectory_fixtures", "speech_tokenizer": "fixture" if speech_tokens else None}))


def make_rows(n: int, *, seed: int = 0, scenarios: tuple[str, ...] = SCENARIO_NAMES, **kw) -> list[TrajectoryRow]:
    """`n` rows cycling through `scenarios`, seeds seed, seed+1, ..."""
    return [make_row(scenarios[i % len(scenarios)], seed + i, **kw) for i in range(n)]


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def write_dataset(root: str | Path, rows: list[TrajectoryRow], *, rows_per_shard: int = 4,
                  manifest: bool = True, failed_shard: bool = True) -> Path:
    """Write `rows` as the generator would: shards/shard-NNNNN.parquet plus manifest.json.

    `failed_shard` also writes failure-record files as the generator does (failed/shard-00000.parquet)
    plus one named shards/failed-00000.parquet; readers must skip both.
    """
    import pyarrow as pa

    root = Path(root)
    (root / "shards").mkdir(parents=True, exist_ok=True)
    entries = []
    for i in range(0, len(rows), rows_per_shard):
        path = root / "shards" / f"shard-{i // rows_per_shard:05d}.parquet"
        tmp = path.with_suffix(".tmp")
        pq.write_table(rows_to_table(rows[i:i + rows_per_shard]), tmp)
        tmp.rename(path)
        entries.append({"path": str(path.relative_to(root)), "rows": len(rows[i:i + rows_per_shard]),
                        "sha256": _sha256(path)})
    if failed_shard:
        empty = pa.table({"id": pa.array([], pa.string()), "error": pa.array([], pa.string())})
        (root / "failed").mkdir(exist_ok=True)
        pq.write_table(empty, root / "failed" / "shard-00000.parquet")
        pq.write_table(empty, root / "shards" / "failed-00000.parquet")
    if manifest:
        has_tokens = any(u.speech_tokens for r in rows for u in r.units)
        (root / "manifest.json").write_text(json.dumps({
            "generator_version": "fixtures-1", "shards": entries, "num_rows": len(rows),
            "speech_tokenizer": {"identity": "fixture-pattern"} if has_tokens else None,
        }, indent=2))
    return root


CORPUS: tuple[str, ...] = (
    "what's the weather in Paris", "It's sunny and twenty degrees", "tell me about the museum",
    "It opens at nine and closes at six every day", "read me the news", "Here are today's headlines first the weather",
    "then sports and markets", "wait, stop", "Okay, stopped.", "book a table for two", "Let me check.",
    "Your table is booked for eight pm", "Find a table for two tonight near the user", "Table booked at 8 pm for two",
    "[backend t1] [timer] the quick brown fox jumps over the lazy dog 0123456789 < > | / ! ? , . ' \" : ; -",
)


def train_tokenizer(path: str | Path, vocab_size: int = 400,
                    special: tuple[str, ...] = ("<unit>", "<|listen|>", "<|speak|>", "<|turn_eos|>", "<|chunk_eos|>"),
                    ) -> Path:
    """Train a small byte-level BPE tokenizer (no download) and save it as tokenizer.json.

    The special tokens get ids 0..len(special)-1, as a target tokenizer that already owns some protocol
    tokens would; export must reuse exactly those ids.
    """
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=vocab_size, special_tokens=list(special),
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), show_progress=False)
    tok.train_from_iterator(list(CORPUS) * 20, trainer=trainer)
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tok.save(str(path))
    return path


def export_fixture(root: str | Path, *, tokenizer: str = "trained", rows: int = 8, val_fraction: float = 0.25,
                   make_kw: dict | None = None, **opts) -> Path:
    """Write `rows` fixture trajectories under root/src and export them to root/train.

    tokenizer: "trained" (a BPE trained here, small vocabulary: fast training tests), "sdk" (the
    MiniCPM-o 4.5 tokenizer from minicpm-o5-sdk, real ids) or a path.
    """
    from jobs.export import ExportOptions, export

    root = Path(root)
    src = write_dataset(root / "src", make_rows(rows, **(make_kw or {})))
    if tokenizer == "trained":
        tokenizer = str(train_tokenizer(root / "tok" / "tokenizer.json"))
    elif tokenizer == "sdk":
        tokenizer = "minicpm-o45"
    out = root / "train"
    export(src, out, ExportOptions(tokenizer=tokenizer, val_fraction=val_fraction, **opts), progress=False)
    return out
