"""`duplexsynth export DIR [--format trainer|moshi|lhotse] --out OUT`: the dataset in a consumer's layout.

`trainer` (default): training shards for the bundled trainer (jobs/export.py). `moshi`:
moshi-finetune's stereo wavs, alignments and index (jobs/export_moshi.py). `lhotse`: a Lhotse Shar
CutSet and a NeMo manifest (jobs/export_lhotse.py). `nemo-s2s`: the same module's Lhotse Shar cuts for
NeMo speechlm2's duplex S2S dataset (user channel in, assistant channel as target_audio at the codec's
rate, --target-sample-rate). `minicpm-o`: the MiniCPM-o protocol SDK's
O5DuplexTrainingData, checked by the SDK itself (jobs/export_minicpmo.py). Each format has its own module.
"""
from __future__ import annotations

import argparse
import json
import sys

from schemas.argtypes import MAX_WORKERS, whole_number
from schemas.protocol import CHUNK_EOS
from schemas.thresholds import NEMO_S2S_TARGET_RATE

FORMATS = ("trainer", "moshi", "lhotse", "nemo-s2s", "minicpm-o", "fdb")
# The trainer format's own options and their defaults (None on the parser, so a given one is seen).
TRAINER_DEFAULTS = {"tokenizer": "minicpm-o45", "mix": None, "val_fraction": 0.05, "seed": 0, "audio": "flac",
                    "image_tokens": 64, "no_chunk_eos_loss": False, "workers": 1}
ROWS_PER_SHARD = 256
SHARDED_FORMATS = ("trainer", "lhotse", "nemo-s2s")   # the formats --rows-per-shard applies to


def register(subparsers: argparse._SubParsersAction) -> None:
    from jobs.dataset_reader import ALLOW_INCOMPLETE_HELP

    p = subparsers.add_parser(
        "export", help="export trajectory shards for a trainer: ours (default), moshi-finetune, Lhotse/NeMo",
        description="--format trainer (default): tokenise trajectories into the trainer's unit layout "
                    "(DESIGN §3) with a per-token loss mask and 16 kHz user audio; writes TRAIN_DIR/{train,val}, "
                    "the extended tokenizer and a manifest. --format moshi: moshi-finetune's stereo 24 kHz wavs, "
                    "word alignments and jsonl index. --format lhotse: a Lhotse Shar CutSet (two-channel cuts, "
                    "supervisions with word alignments) and a NeMo manifest. --format nemo-s2s: Lhotse Shar cuts for NeMo's "
                    "speechlm2 DuplexS2SDataset (user channel as the recording, the assistant's as target_audio "
                    "at --target-sample-rate, speakers user/agent). --format minicpm-o: one MiniCPM-o "
                    "O5DuplexTrainingData case per row, validated, arranged and tokenized by minicpm-o5-sdk. The options from --tokenizer to "
                    "--no-chunk-eos-loss and --workers are the trainer format's.")
    p.add_argument("dir", help="generator output folder (manifest.json + shards)")
    p.add_argument("--format", choices=FORMATS, default="trainer",
                   help="trainer (default): our training shards; moshi: moshi-finetune; lhotse: Lhotse Shar + NeMo; "
                        "nemo-s2s: NeMo duplex S2S cuts (Lhotse Shar); minicpm-o: MiniCPM-o protocol SDK training data; "
                        "fdb: Full-Duplex-Bench v1.5 samples (rows made with twins: {kinds: [clean]})")
    p.add_argument("--tokenizer", default=None,
                   help="tokenizer.json (or its folder), or 'minicpm-o45' for the MiniCPM-o 4.5 tokenizer "
                        "bundled in minicpm-o5-sdk (default)")
    p.add_argument("--out", required=True, help="output TRAIN_DIR")
    p.add_argument("--mix", default=None,
                   help="family=weight,... expected training copies per trajectory (0 drops a family; "
                        "unnamed families keep 1)")
    p.add_argument("--val-fraction", type=float, default=None, help="per-family validation share (default 0.05)")
    p.add_argument("--seed", type=whole_number(0), default=None, help="seed of the split and the mix (default 0)")
    p.add_argument("--rows-per-shard", type=whole_number(1), default=None,
                   help="rows per training shard, or cuts per Shar shard with --format lhotse/nemo-s2s (default 256)")
    p.add_argument("--audio", choices=("flac", "mel"), default=None,
                   help="flac: 16 kHz FLAC, features in the loader (default); mel: precomputed fp16 log-mel")
    p.add_argument("--image-tokens", type=whole_number(1), default=None, help="image embeddings per frame (Omni rows)")
    p.add_argument("--no-chunk-eos-loss", action="store_true", default=None,
                   help=f"no loss on {CHUNK_EOS} (the literal DESIGN §3 list; see model/protocol.py)")
    p.add_argument("--target-sample-rate", type=int, default=None, metavar="HZ",
                   help=f"--format nemo-s2s: rate of target_audio, the assistant channel resampled with soxr; set it "
                        f"to your codec's rate (default {NEMO_S2S_TARGET_RATE}, NeMo's duplex S2S recipe)")
    p.add_argument("--workers", type=whole_number(1, MAX_WORKERS), default=None, help="processes converting shards in parallel")
    p.add_argument("--reply-latency", default=None, metavar="TARGET",
                   help="--format moshi only: human (default): bring each reply to the user forward to a latency "
                        "drawn per reply from the row's seed (the natural preset's human turn offsets, p50 0.22 s, "
                        "at least one 80 ms frame) by removing silence from both channels; clock: the unit clock's "
                        "timeline unchanged (replies p50 ~0.8 s); or a draw in seconds, [lo, hi] or "
                        "'{kind: lognormal, mu: -1.6, sigma: 0.5, hi: 1.5}'")
    p.add_argument("--overwrite", action="store_true",
                   help="replace a non-empty --out that holds an earlier export (never another folder)")
    p.add_argument("--allow-incomplete", action="store_true", help=ALLOW_INCOMPLETE_HELP)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    if args.target_sample_rate is not None and (args.format != "nemo-s2s" or args.target_sample_rate < 1):
        why = "must be >= 1 (Hz)" if args.format == "nemo-s2s" else "applies to --format nemo-s2s only"
        print(f"error: export refused: --target-sample-rate {why}", file=sys.stderr)
        return 2
    if args.reply_latency is not None and args.format != "moshi":
        print(f"error: export refused: --reply-latency applies to --format moshi only, not {args.format}",
              file=sys.stderr)
        return 2
    given = [k for k in TRAINER_DEFAULTS if getattr(args, k) is not None]
    if args.format != "trainer" and given:
        flags = ", ".join("--" + k.replace("_", "-") for k in given)
        print(f"error: export refused: {flags} applies to --format trainer only, not {args.format}", file=sys.stderr)
        return 2
    if args.rows_per_shard is not None and args.format not in SHARDED_FORMATS:
        print(f"error: export refused: --rows-per-shard applies to --format {'/'.join(SHARDED_FORMATS)} only, "
              f"not {args.format}", file=sys.stderr)
        return 2
    if args.rows_per_shard is None:
        args.rows_per_shard = ROWS_PER_SHARD
    if args.format != "trainer":
        return run_consumer(args)
    for k, v in TRAINER_DEFAULTS.items():
        if getattr(args, k) is None:
            setattr(args, k, v)
    from jobs.cli import one_line
    from jobs.export import ExportError, ExportOptions, export, parse_mix
    from model.protocol import ProtocolError

    try:
        opts = ExportOptions(tokenizer=args.tokenizer, mix=parse_mix(args.mix), val_fraction=args.val_fraction,
                             seed=args.seed, rows_per_shard=args.rows_per_shard, audio_format=args.audio,
                             image_tokens=args.image_tokens, chunk_eos_loss=not args.no_chunk_eos_loss,
                             workers=args.workers, overwrite=args.overwrite,
                             allow_incomplete=args.allow_incomplete)
        m = export(args.dir, args.out, opts, progress=sys.stderr.isatty())
    except (ExportError, ProtocolError) as err:
        print(f"error: export refused: {one_line(str(err))}", file=sys.stderr)
        return 2
    skipped = m["source"].get("skipped")
    if skipped:
        rows = f"{'' if skipped['rows_exact'] else 'at least '}{skipped['rows']}"
        more = skipped["problems_total"] - 3
        print(f"warning: {args.dir} is incomplete or corrupt; exported {len(m['source']['shards'])} shard(s), "
              f"skipped {skipped['shards']} shard(s) ({rows} rows): {'; '.join(skipped['problems'][:3])}"
              + (f"; ... and {more} more problem(s)" if more > 0 else ""), file=sys.stderr)
    failed = m.get("failed") or {}
    if failed.get("rows"):
        shown = "; ".join(f"{f['id']}: {f['error']}" for f in failed["first"])
        more = failed["rows"] - len(failed["first"])
        print(f"warning: {failed['rows']} row(s) could not be converted (listed in {args.out}/{failed['path']}): "
              f"{shown}" + (f"; ... and {more} more" if more > 0 else ""), file=sys.stderr)
    sp = m["split"]
    print(json.dumps({"out": args.out, "train_rows": sp["train"].get("rows", 0), "train_samples": sp["train"].get("samples", 0),
                      "val_rows": sp["val"].get("rows", 0), "vocab_size": m["tokenizer"]["vocab_size"],
                      "tokens": sp["train"].get("tokens", 0), "elapsed_s": m["elapsed_s"]}))
    return 0


def run_consumer(args: argparse.Namespace) -> int:
    """--format moshi|lhotse|minicpm-o: convert row by row; a row that cannot be converted is a failure record."""
    from jobs.cli import one_line
    from jobs.export import ExportError
    from jobs.export_common import FAILED_NAME, export_format

    if args.rows_per_shard < 1:
        print("error: export refused: --rows-per-shard must be >= 1", file=sys.stderr)
        return 2
    if args.format == "moshi":
        from jobs.export_moshi import FORMAT, MoshiWriter, reply_target
        from jobs.reply_latency import HUMAN, ReplyLatencyError

        try:
            target = reply_target(HUMAN if args.reply_latency is None else args.reply_latency)
        except ReplyLatencyError as err:
            print(f"error: export refused: {one_line(str(err))}", file=sys.stderr)
            return 2
        fmt, make_writer = FORMAT, lambda stage: MoshiWriter(stage, target)
    elif args.format == "minicpm-o":
        import importlib.util

        if importlib.util.find_spec("minicpm_o5_sdk") is None:
            print("error: export refused: --format minicpm-o needs the minicpm-o5-sdk package: "
                  "pip install 'duplexsynth[train]' (or scripts/setup.sh)", file=sys.stderr)
            return 2
        from jobs.export_minicpmo import FORMAT, MiniCPMOWriter
        fmt, make_writer = FORMAT, MiniCPMOWriter
    elif args.format == "fdb":   # Full-Duplex-Bench v1.5: needs rows made with clean twins
        from jobs.export_fdb import FORMAT, FdbWriter
        fmt, make_writer = FORMAT, FdbWriter
    else:
        import importlib.util

        if importlib.util.find_spec("lhotse") is None:
            print(f"error: export refused: --format {args.format} needs the lhotse package: "
                  "pip install 'duplexsynth[export]' (or scripts/setup.sh)", file=sys.stderr)
            return 2
        from jobs.export_lhotse import (
            FORMAT,
            NEMO_S2S_FORMAT,
            LhotseWriter,
            NemoS2SWriter,
        )
        if args.format == "nemo-s2s":   # NeMo speechlm2's duplex S2S layout of the same cuts
            rate = args.target_sample_rate or NEMO_S2S_TARGET_RATE
            fmt, make_writer = NEMO_S2S_FORMAT, lambda stage: NemoS2SWriter(stage, args.rows_per_shard, rate)
        else:
            fmt, make_writer = FORMAT, lambda stage: LhotseWriter(stage, args.rows_per_shard)
    try:
        summary = export_format(args.dir, args.out, fmt=fmt, make_writer=make_writer, overwrite=args.overwrite,
                                allow_incomplete=args.allow_incomplete, progress=sys.stderr.isatty())
    except ExportError as err:
        print(f"error: export refused: {one_line(str(err))}", file=sys.stderr)
        return 2
    if summary.skipped_line:
        print(summary.skipped_line, file=sys.stderr)
    if summary.frames_dropped:
        print(f"warning: --format {args.format} drops the frames of {summary.frames_dropped} Omni row(s): its "
              "consumer reads audio and text only (README, Exports)", file=sys.stderr)
    if summary.failed:
        shown = "; ".join(f"{f['id']}: {f['error']}" for f in summary.failed[:3])
        more = len(summary.failed) - 3
        print(f"warning: {len(summary.failed)} row(s) could not be converted (listed in {args.out}/{FAILED_NAME}): "
              f"{shown}" + (f"; ... and {more} more" if more > 0 else ""), file=sys.stderr)
    print(json.dumps(summary.as_json()))
    return 0
