"""`duplexsynth train`, `eval-decisions`, `eval-duplex` and `export-checkpoint`."""
from __future__ import annotations

import argparse

from schemas.argtypes import MAX_WORKERS, finite_number, ray_address, whole_number


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "train", help="train a DuplexModel on exported training shards",
        description="Train on TRAIN_DIR (from `duplexsynth export`). One process, torchrun "
                    "(--nproc-per-node or an outer torchrun), or Ray Train (--ray-address/--ray-workers); "
                    "FSDP2 whenever there is more than one process.")
    p.add_argument("--config", required=True, help="model/configs/X.yaml or a bare name (tiny, venus-audio-9b, ...)")
    p.add_argument("--data", default=None, help="TRAIN_DIR (its train split is used) or a split folder (required "
                   "unless --estimate-memory)")
    p.add_argument("--out", default="runs/train", help="output folder: checkpoints/, metrics.jsonl (default runs/train)")
    p.add_argument("--resume", default=None, help="'auto' (latest checkpoint in --out, if any) or a checkpoint folder")
    p.add_argument("--max-steps", type=whole_number(1), default=None, help="override train.max_steps (also the LR schedule length)")
    p.add_argument("--save-every", type=whole_number(1), default=None, help="override train.save_every")
    p.add_argument("--nproc-per-node", type=whole_number(1, MAX_WORKERS), default=1, help="re-launch under torchrun with N local processes")
    p.add_argument("--ray-address", type=ray_address, default=None, help="train with Ray Train on this cluster ('auto' or ray://...)")
    p.add_argument("--ray-workers", type=whole_number(1, MAX_WORKERS), default=None, help="Ray Train workers (default 2 with --ray-address)")
    p.add_argument("--hang-after-step", type=int, default=None, help=argparse.SUPPRESS)   # test hook
    p.add_argument("--estimate-memory", action="store_true",
                   help="print the per-GPU memory estimate (params, grads, optimizer, activations) and exit")
    p.add_argument("--gpus", type=whole_number(1, MAX_WORKERS), default=8, help="with --estimate-memory: GPUs (FSDP world size), default 8")
    p.add_argument("--gpu-mem-gb", type=finite_number(0.001, 1e6, "a number of GiB"), default=None,
                   help="with --estimate-memory: memory per GPU as sold, in GiB (80 for an 80 GB H100/A100)")
    p.set_defaults(func=_train)

    e = subparsers.add_parser(
        "eval-decisions", help="listen/speak/turn_eos accuracy and F1 per scenario family",
        description="Teacher-forced decision metrics of a checkpoint on an exported split.")
    e.add_argument("checkpoint", help="checkpoint folder (OUT/checkpoints/step-...) or a run OUT (uses latest)")
    e.add_argument("--data", required=True, help="TRAIN_DIR/val (or any split folder)")
    e.add_argument("--out", default=None, help="also write the report as JSON here")
    e.add_argument("--max-samples", type=whole_number(1), default=None)
    e.set_defaults(func=_eval)

    d = subparsers.add_parser(
        "eval-duplex", help="closed-loop duplex metrics (continuation, interruption, pause, latency, delegation)",
        description="Run the model as a streaming duplex agent on every held-out trajectory (unit by unit, its "
                    "own decisions, text and speech fed back) and score what Full-Duplex-Bench scores, per "
                    "scenario family.")
    d.add_argument("checkpoint", help="checkpoint folder (OUT/checkpoints/step-...) or a run OUT (uses latest)")
    d.add_argument("--data", required=True, help="TRAIN_DIR/val (or any split folder of an export)")
    d.add_argument("--source", default=None, help="the trajectory folder the export was made from (default: "
                   "source.dir of TRAIN_DIR/manifest.json)")
    d.add_argument("--out", default=None, help="also write the report as JSON here")
    d.add_argument("--max-samples", type=whole_number(1), default=None, help="evaluate only the first N rows")
    d.add_argument("--max-text-tokens", type=whole_number(1), default=24,
                   help="most text tokens the model may say per unit (default 24; gold units hold ~2-3 words)")
    d.add_argument("--max-delegate-tokens", type=whole_number(1), default=48, help="most tokens of one delegate request "
                   "(default 48; a request the model has not closed by then is closed for it)")
    d.add_argument("--recompute", action="store_true",
                   help="recompute the whole prefix for every token instead of the KV cache (a check, quadratic)")
    d.set_defaults(func=_eval_duplex)

    x = subparsers.add_parser(
        "export-checkpoint", help="a trained checkpoint as safetensors that transformers loads",
        description="Consolidate a DCP checkpoint on the CPU: config.json + model.safetensors "
                    "(AutoModelForCausalLM loads the LLM), one safetensors file per other component "
                    "(name map in duplexsynth_components.json), and the run's tokenizer.")
    x.add_argument("checkpoint", help="checkpoint folder (OUT/checkpoints/step-...) or a run OUT (uses latest)")
    x.add_argument("--out", required=True, help="output folder (must not exist or be empty)")
    x.set_defaults(func=_export_checkpoint)


def _train(args: argparse.Namespace) -> int:
    import sys

    if args.estimate_memory:
        return _estimate(args)
    if not args.data:
        print("train failed: --data is required (TRAIN_DIR from `duplexsynth export`)", file=sys.stderr)
        return 2
    from model.train import launch

    return launch(args)


def _estimate(args: argparse.Namespace) -> int:
    """`train --estimate-memory`: the estimate on one line, nothing trained."""
    import sys

    from model.memory import GIB, estimate_offline, format_estimate
    from schemas.errors import UsageError

    if args.gpus < 1 or (args.gpu_mem_gb is not None and args.gpu_mem_gb <= 0):
        print("train --estimate-memory failed: --gpus must be >= 1 and --gpu-mem-gb > 0", file=sys.stderr)
        return 2
    try:
        est = estimate_offline(args.config, args.gpus, args.data)
    except (UsageError, ValueError, OSError) as err:
        print(f"train --estimate-memory failed: {str(err).splitlines()[0]}", file=sys.stderr)
        return 2
    device = int(args.gpu_mem_gb * GIB) if args.gpu_mem_gb else None
    print(format_estimate(est, device) + (f" (on {args.gpus} x {args.gpu_mem_gb:g} GB)" if device else ""))
    if device and est.total > device:
        print("warning: the estimate exceeds the GPU's memory", file=sys.stderr)
    return 0


def _eval(args: argparse.Namespace) -> int:
    from model.eval_decisions import run

    return run(args)


def _eval_duplex(args: argparse.Namespace) -> int:
    from model.eval_duplex import run

    return run(args)


def _export_checkpoint(args: argparse.Namespace) -> int:
    from model.export_hf import run

    return run(args.checkpoint, args.out)
