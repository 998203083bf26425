"""`duplexsynth jobs status|logs|stop|list`: look after jobs sent by `duplexsynth submit`."""
from __future__ import annotations

import argparse
import sys


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("jobs", help="status, logs, stop or list Ray Jobs on a cluster")
    jsub = p.add_subparsers(dest="action", required=True)
    for name, help_ in (("status", "the job's status and, when it ended, why"),
                        ("logs", "the job's logs (driver output, progress lines, summary)"),
                        ("stop", "stop a running job"), ("list", "every job the cluster knows")):
        q = jsub.add_parser(name, help=help_)
        q.add_argument("--address", help="Ray dashboard address, e.g. http://HOST:8265 (default: $RAY_API_SERVER_ADDRESS)")
        if name != "list":
            q.add_argument("job_id")
        if name == "logs":
            q.add_argument("--follow", "-f", action="store_true", help="keep printing until the job ends")
        if name == "stop":
            q.add_argument("--no-wait", action="store_true", help="do not wait for the job to stop")
        q.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from jobs.ray_cluster import ClusterError, follow_job, job_client, job_exit_code

    try:
        client = job_client(args.address)
        if args.action == "list":
            for j in sorted(client.list_jobs(), key=lambda j: j.start_time or 0):
                status = getattr(j.status, "value", j.status)
                print(f"{j.submission_id or j.job_id}  {status:<9}  {j.entrypoint}")
            return 0
        info = client.get_job_info(args.job_id)
        if args.action == "status":
            status = getattr(info.status, "value", info.status)
            print(f"{args.job_id}  {status}")
            if info.message:
                print(f"message    {info.message}")
            if getattr(info, "driver_exit_code", None) is not None:
                print(f"exit code  {info.driver_exit_code}")
            if info.metadata:
                print("metadata   " + ", ".join(f"{k}={v}" for k, v in sorted(info.metadata.items())))
            return 0
        if args.action == "logs":
            if args.follow:
                return job_exit_code(follow_job(client, args.job_id))
            sys.stdout.write(client.get_job_logs(args.job_id))
            return 0
        # stop
        stopped = client.stop_job(args.job_id)
        if not stopped:
            print(f"{args.job_id} was not running ({getattr(info.status, 'value', info.status)})")
            return 0
        if args.no_wait:
            print(f"stop requested for {args.job_id}")
            return 0
        import time
        for _ in range(120):
            status = client.get_job_status(args.job_id)
            if status.is_terminal():
                break
            time.sleep(0.5)
        print(f"{args.job_id}  {getattr(status, 'value', status)}")
        return 0
    except ClusterError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    except RuntimeError as err:   # the SDK's errors (unknown job id, HTTP errors)
        print(f"error: {err}", file=sys.stderr)
        return 2
