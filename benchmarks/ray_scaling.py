"""Ray scaling of `generate`: throughput with 1 and 2 workers, and driver memory for 10,000 shards.

    python benchmarks/ray_scaling.py [--num 32] [--shard-size 2] [--shards 10000]

1. The same run (cheap scenario families, 2-trajectory shards) on a local Ray with 1 CPU and then
   with 2, each after Ray is up and its workers warm, so the figures are the job loop's own: audio
   seconds per wall second, trajectories per second, and the ratio 2 workers / 1 worker. The two
   outputs must be byte-identical (output does not depend on worker count).
2. The driver's peak RSS (ru_maxrss) when it plans, schedules and collects 1,000 and 10,000 shards,
   each in a fresh process: the real job loop and manifest, with the per-shard work replaced by a
   task that returns a realistic summary without rendering. Flat figures mean driver memory does
   not grow with the number of shards.
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from schemas.config import Scenario  # noqa: E402 - after the path insert

FAMILIES = {Scenario.TURN_TAKING.value: 1.0, Scenario.PAUSE.value: 1.0, Scenario.BACKCHANNEL.value: 1.0}


def _init(cpus: int) -> None:
    import ray
    ray.init(address="local", num_cpus=cpus, include_dashboard=False, log_to_driver=False,
             object_store_memory=200 * 1024 * 1024)

    @ray.remote(num_cpus=1)
    def warm() -> int:   # start every worker and import the pipeline before the clock starts
        import jobs.shards  # noqa: F401
        import pipeline.render  # noqa: F401
        time.sleep(0.5)
        return os.getpid()

    ray.get([warm.remote() for _ in range(cpus)])


def throughput(num: int, shard_size: int, repeat: int) -> dict[int, dict[str, float]]:
    import ray

    from jobs.runner import generate
    from schemas.config import RunConfig
    cfg = RunConfig(seed=1, num=num, shard_size=shard_size, scenarios=FAMILIES)
    out: dict[int, dict[str, float]] = {}
    shas = {}
    with tempfile.TemporaryDirectory(prefix="ray-scaling-") as tmp:
        for rep in range(repeat):              # interleaved, best of `repeat`: the host is shared
            for workers in (1, 2):
                dest = Path(tmp) / f"w{workers}-{rep}"
                _init(workers)
                try:
                    res = generate(cfg, dest, workers=workers, progress=False)
                finally:
                    ray.shutdown()
                assert res.ok and res.shards_done == res.shards
                manifest = json.loads((dest / "manifest.json").read_text())
                shas.setdefault(workers, [s["sha256"] for s in manifest["shards"]])
                if workers not in out or res.wall_s < out[workers]["wall_s"]:
                    out[workers] = {"wall_s": res.wall_s, "audio_s": res.new_audio_s,
                                    "audio_rate": res.new_audio_s / res.wall_s, "traj_rate": num / res.wall_s}
    out["identical"] = shas[1] == shas[2]   # type: ignore[index]
    return out


def _tiny_task(cfg_json: str, plan: tuple[int, int, int], out: str, faults: dict) -> dict:
    """Stands in for the shard work: a summary shaped like a real one, nothing rendered."""
    index, start, stop = plan
    name = f"shard-{index:05d}"
    return {"shard": index, "path": f"shards/{name}.parquet", "rows": stop - start, "failed": 0,
            "sha256": f"{index:064x}", "failed_path": None, "failed_sha256": None, "audio_s": 40.0 * (stop - start),
            "skipped": False, "redo_reason": "missing", "failures": [], "assistant_text": []}


def driver_memory(shards: int) -> dict[str, float]:
    """Run in a fresh process: plan, schedule and collect `shards` tiny shard tasks; report RSS."""
    import ray

    from jobs.runner import generate
    from jobs.shards import iter_plans
    from schemas.config import RunConfig

    def rss_mib() -> float:
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024

    cfg = RunConfig(seed=1, num=shards, shard_size=1, scenarios=FAMILIES)
    before_plan = rss_mib()
    n = sum(1 for _ in iter_plans(cfg.num, cfg.shard_size))
    after_plan = rss_mib()
    _init(2)
    after_init = rss_mib()
    with tempfile.TemporaryDirectory(prefix="ray-scaling-") as tmp:
        t0 = time.perf_counter()
        res = generate(cfg, tmp, workers=2, progress=False, shard_task=_tiny_task, max_in_flight=64)
        wall = time.perf_counter() - t0
        manifest_kib = os.path.getsize(Path(tmp) / "manifest.json") / 1024
    ray.shutdown()
    assert res.ok and res.shards_done == n == shards
    return {"shards": shards, "plan_delta_mib": after_plan - before_plan, "after_init_mib": after_init,
            "peak_mib": rss_mib(), "wall_s": wall, "manifest_kib": manifest_kib}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--num", type=int, default=32, help="trajectories in the throughput run")
    ap.add_argument("--shard-size", type=int, default=2)
    ap.add_argument("--shards", type=int, default=10_000, help="shards in the driver-memory run")
    ap.add_argument("--repeat", type=int, default=2, help="throughput runs per worker count (best is kept)")
    ap.add_argument("--memory-only", type=int, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.memory_only:
        print(json.dumps(driver_memory(args.memory_only)))
        return

    print(f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f} at start")
    t = throughput(args.num, args.shard_size, args.repeat)
    for w in (1, 2):
        r = t[w]
        print(f"{w} worker{'s' if w > 1 else ' '}  {args.num} trajectories in {r['wall_s']:6.2f} s (best of {args.repeat}) = "
              f"{r['traj_rate']:5.2f} traj/s, {r['audio_rate']:7.1f} audio-s/s")
    print(f"scaling ratio 2 workers / 1 worker = {t[2]['audio_rate'] / t[1]['audio_rate']:.2f} "
          f"(ideal 2.00 on 2 cores); outputs byte-identical: {t['identical']}")

    for n in sorted({1_000, args.shards}):
        proc = subprocess.run([sys.executable, __file__, "--memory-only", str(n)], capture_output=True, text=True)
        if proc.returncode != 0:
            sys.exit(proc.stderr[-3000:])
        m = json.loads(proc.stdout.strip().splitlines()[-1])
        print(f"driver, {n:>6} shards: peak RSS {m['peak_mib']:6.1f} MiB (after ray.init {m['after_init_mib']:6.1f} MiB, "
              f"planning alone +{m['plan_delta_mib']:.1f} MiB), {m['wall_s']:.1f} s to schedule and collect, "
              f"manifest {m['manifest_kib']:.0f} KiB")
    print(f"load average {os.getloadavg()[0]:.2f} at the end")


if __name__ == "__main__":
    main()
