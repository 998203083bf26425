"""`duplexsynth submit`: run a generation as a Ray Job on a cluster (Ray Job Submission SDK).

The config is resolved and validated here, so a bad field fails before anything is uploaded. The
job's working_dir carries the project's top-level packages and the resolved config as job.yaml; its
entrypoint is `python -m jobs.cli generate --config job.yaml --out OUT --address auto`, the same job
code as a local run. `--out` must be a location the cluster can write: a shared folder (made
absolute here) or a URI such as s3://bucket/run.
"""
from __future__ import annotations

import argparse
import os
import shlex
import sys
import tempfile
import time
import uuid
from pathlib import Path


def register(sub: argparse._SubParsersAction) -> None:
    from jobs.generate_cmd import add_run_args
    from schemas.argtypes import MAX_WORKERS, seconds, whole_number
    p = sub.add_parser("submit", help="submit a generation to a Ray cluster as a Ray Job")
    p.add_argument("--address", help="Ray dashboard address, e.g. http://HOST:8265 (default: $RAY_API_SERVER_ADDRESS)")
    add_run_args(p)
    p.add_argument("--out", required=True, help="output folder on storage the cluster shares, or an fsspec URI")
    p.add_argument("--workers", type=whole_number(1, MAX_WORKERS), help="shard tasks to keep busy (default: every CPU of the cluster)")
    p.add_argument("--max-in-flight", type=whole_number(1), help="shard tasks submitted at once (default 2 x workers)")
    p.add_argument("--job-id", help="submission id (default: duplexsynth-<time>-<random>)")
    p.add_argument("--progress-interval", type=seconds, default=10.0,
                   help="seconds between progress lines in the job log")
    p.add_argument("--no-wait", action="store_true", help="print the job id and return; do not follow the logs")
    p.add_argument("--timeout", type=seconds, help="give up following after this many seconds (the job keeps running)")
    p.set_defaults(func=run)


def build_entrypoint(args: argparse.Namespace, out: str) -> str:
    cmd = ["python", "-m", "jobs.cli", "generate", "--config", "job.yaml", "--out", out, "--address", "auto",
           "--progress-interval", str(args.progress_interval)]
    if args.workers:
        cmd += ["--workers", str(args.workers)]
    if args.max_in_flight:
        cmd += ["--max-in-flight", str(args.max_in_flight)]
    if args.force_new_run:
        cmd.append("--force-new-run")
    return shlex.join(cmd)


def run(args: argparse.Namespace) -> int:
    from jobs.generate_cmd import resolve_config
    from jobs.ray_cluster import ClusterError, follow_job, job_client, job_exit_code, stage_job_package, submit_job
    from jobs.shards import preflight
    from pipeline.io import is_uri
    from schemas.config import dump_config

    # Every config check runs here, before anything is uploaded: pydantic's, then those that read
    # files (tokenizer ONNX, noise/RIR folders). A refusal is a UsageError: jobs.cli prints one line.
    from generators.corpus import pin_corpus
    from generators.scenes.video import pin_videos

    cfg = resolve_config(args)
    preflight(cfg)
    cfg = pin_corpus(cfg)   # the cluster's run must read the corpus this machine read, or refuse
    cfg = pin_videos(cfg)   # and the videos
    out = args.out if is_uri(args.out) else str(Path(args.out).absolute())
    job_id = args.job_id or f"duplexsynth-{time.strftime('%Y%m%d-%H%M%S')}-{uuid.uuid4().hex[:6]}"
    try:
        client = job_client(args.address)
        with tempfile.TemporaryDirectory(prefix="duplexsynth-job-") as staging:
            pkg = stage_job_package(Path(staging) / "pkg", dump_config(cfg))
            runtime_env = {"working_dir": str(pkg.path), "env_vars": {"PYTHONUNBUFFERED": "1"}}
            entrypoint = build_entrypoint(args, out)
            job_id = submit_job(client, entrypoint, runtime_env, submission_id=job_id,
                                metadata={"tool": "duplexsynth", "out": out, "config_hash": cfg.config_hash(),
                                          "num": str(cfg.num)})
    except ClusterError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    print(f"submitted job {job_id} ({pkg.files} files, {pkg.bytes / 2**20:.2f} MiB package) "
          f"to {args.address or os.environ.get('RAY_API_SERVER_ADDRESS')}", flush=True)
    print(f"entrypoint: {entrypoint}", flush=True)
    if args.no_wait:
        print(f"follow it with: duplexsynth jobs logs --follow {job_id}   (stop: duplexsynth jobs stop {job_id})")
        return 0
    try:
        info = follow_job(client, job_id, timeout=args.timeout)
    except KeyboardInterrupt:
        print(f"\nstopped following; job {job_id} keeps running (duplexsynth jobs stop {job_id})", file=sys.stderr)
        return 130
    except ClusterError as err:
        print(f"error: {err}", file=sys.stderr)
        return 1
    status = getattr(info.status, "value", info.status)
    print(f"job {job_id} {status}" + (f": {info.message}" if info.message and status != "SUCCEEDED" else ""))
    return job_exit_code(info)
