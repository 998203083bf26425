"""`duplexsynth train` and `duplexsynth eval-decisions`."""
from __future__ import annotations

import argparse


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "train", help="train a DuplexModel on exported training shards",
        description="Train on TRAIN_DIR (from `duplexsynth export`). One process, torchrun "
                    "(--nproc-per-node or an outer torchrun), or Ray Train (--ray-address/--ray-workers); "
                    "FSDP2 whenever there is more than one process.")
    p.add_argument("--config", required=True, help="model/configs/X.yaml or a bare name (tiny, venus-audio-9b, ...)")
    p.add_argument("--data", required=True, help="TRAIN_DIR (its train split is used) or a split folder")
    p.add_argument("--out", default="runs/train", help="output folder: checkpoints/, metrics.jsonl (default runs/train)")
    p.add_argument("--resume", default=None, help="'auto' (latest checkpoint in --out, if any) or a checkpoint folder")
    p.add_argument("--max-steps", type=int, default=None, help="override train.max_steps (also the LR schedule length)")
    p.add_argument("--save-every", type=int, default=None, help="override train.save_every")
    p.add_argument("--nproc-per-node", type=int, default=1, help="re-launch under torchrun with N local processes")
    p.add_argument("--ray-address", default=None, help="train with Ray Train on this cluster ('auto' or ray://...)")
    p.add_argument("--ray-workers", type=int, default=None, help="Ray Train workers (default 2 with --ray-address)")
    p.add_argument("--hang-after-step", type=int, default=None, help=argparse.SUPPRESS)   # test hook
    p.set_defaults(func=_train)

    e = subparsers.add_parser(
        "eval-decisions", help="listen/speak/turn_eos accuracy and F1 per scenario family",
        description="Teacher-forced decision metrics of a checkpoint on an exported split.")
    e.add_argument("checkpoint", help="checkpoint folder (OUT/checkpoints/step-...) or a run OUT (uses latest)")
    e.add_argument("--data", required=True, help="TRAIN_DIR/val (or any split folder)")
    e.add_argument("--out", default=None, help="also write the report as JSON here")
    e.add_argument("--max-samples", type=int, default=None)
    e.set_defaults(func=_eval)


def _train(args: argparse.Namespace) -> int:
    from model.train import launch

    return launch(args)


def _eval(args: argparse.Namespace) -> int:
    from model.eval_decisions import run

    return run(args)
