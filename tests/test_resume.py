"""Resume and failure handling of `duplexsynth generate` on real local Ray (issue 4).

- a driver killed with SIGKILL mid-run, then rerun, ends byte-identical to an uninterrupted run;
- a corrupt shard, a shard without its sidecar and a stale temp file are detected and redone;
- a changed config is refused unless --force-new-run;
- a planted trajectory failure is an explicit failed record while every other trajectory is there;
- a worker that dies is retried by Ray; a shard that fails every attempt is reported, exit code 3;
- output to an fsspec URI (file://, memory://) is the same bytes as a local folder.

Every process a test starts carries a tag in its environment and is killed by id (never `ray stop`,
never by name); each test checks that nothing it started is still running.
"""
from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from jobs.ray_cluster import TAG_ENV, kill_tree, tagged_processes
from jobs.runner import RunRefused, generate
from jobs.shards import (ShardPlan, check_shard, iter_plans, num_shards, run_shard, shard_paths, shard_plan,
                         trajectory_id)
from pipeline.io import Store
from schemas.config import RunConfig, dump_config
from tests.generated import FAST_VOICES

REPO = Path(__file__).resolve().parent.parent
# cheap, stable families: these tests are about orchestration, not content
FAMILIES = {"turn_taking": 1.0, "pause": 1.0, "backchannel": 1.0}
NUM, SHARD = 20, 2          # 10 shards: the kill comes at 2 done, with at most 4 more in flight


def _cfg(**kw) -> RunConfig:
    return RunConfig(**{"seed": 7, "num": NUM, "shard_size": SHARD, "scenarios": FAMILIES, "voices": FAST_VOICES, **kw})


def _cli(*args: str, tag: str, env: dict[str, str] | None = None, timeout: float = 300) -> subprocess.CompletedProcess:
    """Run `python -m jobs.cli ...` to completion; then nothing it started may still run."""
    proc = subprocess.run([sys.executable, "-m", "jobs.cli", *args], cwd=REPO, capture_output=True, text=True,
                          timeout=timeout, env={**os.environ, **(env or {}), TAG_ENV: tag})
    stragglers = kill_tree(None, tag, grace_s=10.0)
    assert stragglers == [], f"processes of a finished run still alive: {stragglers}"
    return proc


def _ids(out: Path) -> list[str]:
    ids = []
    for sub in ("shards", "failed"):
        for p in sorted((out / sub).glob("*.parquet")):
            ids += pq.read_table(p, columns=["id"]).column("id").to_pylist()
    return ids


def _same_dataset(a: Path, b: Path) -> None:
    ma, mb = (json.loads((o / "manifest.json").read_text()) for o in (a, b))
    assert [(s["path"], s["sha256"], s["rows"], s["failed"]) for s in ma["shards"]] == \
           [(s["path"], s["sha256"], s["rows"], s["failed"]) for s in mb["shards"]]
    for sub in ("shards", "failed"):
        names_a = sorted(p.name for p in (a / sub).glob("*")) if (a / sub).exists() else []
        names_b = sorted(p.name for p in (b / sub).glob("*")) if (b / sub).exists() else []
        assert names_a == names_b, f"{sub}: {names_a} != {names_b} (stray or missing files)"
        for name in names_a:
            assert (a / sub / name).read_bytes() == (b / sub / name).read_bytes(), f"{sub}/{name} differs"


def _expected_ids(cfg: RunConfig) -> list[str]:
    return [trajectory_id(cfg.seed, p.index, j) for p in iter_plans(cfg.num, cfg.shard_size)
            for j in range(p.start, p.stop)]


@pytest.fixture(scope="module")
def local_ray():
    """One local Ray for this module's in-process runs (and CLI runs attached with --address):
    starting Ray is most of the cost of a small run. The SIGKILL test starts its own, embedded."""
    import ray
    assert not ray.is_initialized()
    ray.init(address="local", num_cpus=2, include_dashboard=False, log_to_driver=False,
             object_store_memory=200 * 1024 * 1024)
    try:
        yield ray.get_runtime_context().gcs_address
    finally:
        ray.shutdown()


@pytest.fixture(scope="module")
def reference(tmp_path_factory, local_ray):
    """An uninterrupted run, in-process, to a plain local folder (the fast path)."""
    root = tmp_path_factory.mktemp("resume")
    cfg = _cfg()
    (root / "cfg.yaml").write_text(dump_config(cfg))
    res = generate(cfg, root / "ref", workers=2, progress=False)
    assert res.ok and res.rows + res.failed == NUM and res.shards_done == NUM // SHARD
    return root, cfg, root / "ref"


def test_sigkill_driver_mid_run_then_rerun_is_byte_identical(reference, tmp_path):
    root, cfg, ref = reference
    out = tmp_path / "killed"
    uri = f"file://{out}"            # the rerun goes through the fsspec path; the reference did not
    tag = uuid.uuid4().hex
    args = [sys.executable, "-m", "jobs.cli", "generate", "--config", str(root / "cfg.yaml"), "--out", uri,
            "--workers", "2", "--progress-interval", "0"]
    driver = subprocess.Popen(args, cwd=REPO, env={**os.environ, TAG_ENV: tag}, start_new_session=True,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 240
        while len(list((out / "summaries").glob("*.json"))) < 2:
            assert driver.poll() is None, "the run ended before it could be killed"
            assert time.monotonic() < deadline, "no shard finished in time"
            time.sleep(0.05)
        ray_procs = tagged_processes(tag)
        os.killpg(driver.pid, signal.SIGKILL)
        driver.wait(timeout=30)
        done_when_killed = len(list((out / "summaries").glob("*.json")))
    finally:
        stragglers = kill_tree(driver.pid, tag, grace_s=10.0)
    assert len(ray_procs) > 3, "expected the driver's local Ray (gcs, raylet, workers) to be running"
    assert stragglers == [], f"Ray processes outlived their SIGKILLed driver: {stragglers}"
    assert 0 < done_when_killed < NUM // SHARD, f"killed with {done_when_killed} shards done: not mid-run"
    assert not (out / "manifest.json").exists()

    proc = _cli("generate", "--config", str(root / "cfg.yaml"), "--out", uri, "--workers", "2",
                "--progress-interval", "0", tag=tag)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "already complete, verified and skipped" in proc.stdout, proc.stdout
    progress = [ln for ln in proc.stderr.splitlines() if ln.startswith("progress ")]
    assert progress and f"{NUM}/{NUM} trajectories" in progress[-1]
    for key in ("failed", "audio", " h,", "audio-s/s", "traj/s", "ETA"):
        assert key in progress[-1], progress[-1]

    _same_dataset(out, ref)
    ids = _ids(out)
    assert len(ids) == len(set(ids)), "duplicate ids"
    assert sorted(ids) == sorted(_expected_ids(cfg)), "missing or unexpected ids"


def test_corrupt_and_interrupted_shards_are_redone_with_the_same_bytes(reference, tmp_path):
    root, cfg, ref = reference
    out = tmp_path / "damaged"
    shutil.copytree(ref, out)
    shard = out / "shards" / "shard-00003.parquet"
    blob = bytearray(shard.read_bytes())
    blob[len(blob) // 2] ^= 0xFF                                   # one flipped byte
    shard.write_bytes(bytes(blob))
    (out / "summaries" / "shard-00005.json").unlink()              # a shard cut before its sidecar
    (out / "shards" / ".shard-00007.parquet.tmp-4242").write_bytes(b"half a shard")   # an aborted write

    res = generate(cfg, out, workers=2, progress=False)
    assert res.ok
    assert set(res.shards_redone) == {3, 5}, res.shards_redone
    assert "corrupt" in res.shards_redone[3] and "sidecar" in res.shards_redone[5]
    assert res.shards_skipped == NUM // SHARD - 2 and res.shards_done == 2
    _same_dataset(out, ref)


def test_changed_config_is_refused_unless_force_new_run(reference, tmp_path):
    root, cfg, ref = reference
    out = tmp_path / "other"
    shutil.copytree(ref, out)
    before = {p.name: p.read_bytes() for p in (out / "shards").glob("*.parquet")}
    tag = uuid.uuid4().hex
    proc = _cli("generate", "--config", str(root / "cfg.yaml"), "--out", str(out), "--seed", "8", "--num", "4",
                tag=tag)
    assert proc.returncode == 2
    assert "different config" in proc.stderr and "--force-new-run" in proc.stderr, proc.stderr
    assert {p.name: p.read_bytes() for p in (out / "shards").glob("*.parquet")} == before   # untouched

    with pytest.raises(RunRefused, match="different config"):
        generate(_cfg(seed=8, num=4), out, progress=False)
    res = generate(_cfg(seed=8, num=4), out, force_new_run=True, progress=False)
    assert res.ok and res.shards_done == 2 and res.shards_skipped == 0
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["config"]["seed"] == 8 and len(manifest["shards"]) == 2
    assert sorted(p.name for p in (out / "shards").glob("*")) == ["shard-00000.parquet", "shard-00001.parquet"]
    assert sorted(_ids(out)) == sorted(_expected_ids(_cfg(seed=8, num=4)))


@pytest.fixture(scope="module")
def faulty_run(tmp_path_factory, local_ray):
    """One CLI run with a planted trajectory failure (DUPLEXSYNTH_FAULTS row:ID), a worker that dies on its
    first attempt (shard 1) and a shard that raises on every attempt (2); then the same command again without the faults. Both attach to the module's
    Ray with --address, as `duplexsynth generate --address auto` does on a cluster."""
    root = tmp_path_factory.mktemp("faults")
    planted = trajectory_id(7, 0, 1)
    cfg = _cfg(num=8, max_shard_attempts=2)
    (root / "cfg.yaml").write_text(dump_config(cfg))
    out = root / "out"
    tag = uuid.uuid4().hex
    faults = {"DUPLEXSYNTH_FAULTS": f"exit-once:1,raise:2,row:{planted}", "DUPLEXSYNTH_FAULTS_DIR": str(root / "markers")}
    first = _cli("generate", "--config", str(root / "cfg.yaml"), "--out", str(out), "--progress-interval", "0",
                 "--address", local_ray, tag=tag, env=faults)
    state = {"manifest": (out / "manifest.json").exists(),
             "summaries": sorted(p.name for p in (out / "summaries").glob("*.json"))}
    second = _cli("generate", "--config", str(root / "cfg.yaml"), "--out", str(out), "--progress-interval", "0",
                  "--address", local_ray, tag=tag, env={"DUPLEXSYNTH_FAULTS": ""})
    return cfg, planted, out, first, state, second


def test_shard_failing_every_attempt_is_reported_and_the_exit_code_says_incomplete(faulty_run):
    cfg, _, out, first, state, second = faulty_run
    assert first.returncode == 3, first.stdout + first.stderr[-3000:]
    assert "INCOMPLETE" in first.stdout and "1 of 4 shards failed every attempt" in first.stdout, first.stdout
    assert "shard 2: RuntimeError: planted failure of shard 2" in first.stdout
    assert "shard 2 failed all 2 attempts" in first.stderr
    assert not state["manifest"], "an incomplete run must not write a manifest"
    assert state["summaries"] == ["shard-00000.json", "shard-00001.json", "shard-00003.json"]
    # the same command without the faults finishes only what is missing
    assert second.returncode == 0, second.stderr[-3000:]
    assert "1 shard rendered, 3 already complete" in second.stdout, second.stdout
    ids = _ids(out)
    assert sorted(ids) == sorted(_expected_ids(cfg)) and len(ids) == len(set(ids))


def test_worker_killed_mid_shard_is_retried_by_ray(faulty_run, tmp_path, espeak):
    cfg, _, out, first, _, _ = faulty_run
    assert (out.parent / "markers" / "exit-once-1").exists(), "the worker of shard 1 never died"
    assert (out / "summaries" / "shard-00001.json").exists()
    assert "shard 1" not in first.stdout.split("INCOMPLETE")[1]
    # the retried shard is exactly what a single uninterrupted attempt writes
    s = run_shard(cfg, shard_plan(1, cfg.num, cfg.shard_size), tmp_path, tts=espeak)
    assert (out / s.path).read_bytes() == (tmp_path / s.path).read_bytes()


def test_planted_trajectory_failure_is_an_explicit_record_and_the_rest_is_present(faulty_run):
    cfg, planted, out, first, _, second = faulty_run
    failed = pq.read_table(out / "failed" / "shard-00000.parquet").to_pylist()
    assert [f["id"] for f in failed] == [planted]
    rec = failed[0]
    assert rec["scenario"] and rec["seed"] is not None and "planted failure" in rec["error"]
    assert "Traceback" in rec["traceback"]
    rows = [i for p in sorted((out / "shards").glob("*.parquet"))
            for i in pq.read_table(p, columns=["id"]).column("id").to_pylist()]
    assert sorted(rows) == sorted(set(_expected_ids(cfg)) - {planted})
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["failed"] == 1 and manifest["rows"] == cfg.num - 1
    assert manifest["shards"][0]["failed_path"] == "failed/shard-00000.parquet"
    assert f"failed record    {planted}" in first.stdout


def test_memory_uri_store_round_trip_and_corruption(espeak):
    """A true non-local fsspec filesystem (memory:// lives in this process, so no Ray here)."""
    cfg = _cfg(num=2)
    store = Store(f"memory://ds-{uuid.uuid4().hex}/run")
    plan = ShardPlan(0, 0, 2)
    s = run_shard(cfg, plan, store, tts=espeak)
    assert store.listdir("shards") == ["shard-00000.parquet"] and store.listdir("summaries") == ["shard-00000.json"]
    sidecar = json.loads(store.read_bytes(shard_paths(plan)["summary"]))
    assert sidecar["sha256"] == s.sha256 and sidecar["config_hash"] == cfg.config_hash()
    assert check_shard(store, plan, cfg.config_hash()) == (sidecar, "")
    assert check_shard(store, plan, "another-config")[1] == "made with another config"
    data = bytearray(store.read_bytes(s.path))
    data[100] ^= 1
    store.fs.pipe_file(store.path(s.path), bytes(data))
    assert "corrupt" in check_shard(store, plan)[1]
    store.fs.pipe_file(store.path("shards/.shard-00001.parquet.tmp-1"), b"x")
    assert store.remove_temp_files("shards") == [".shard-00001.parquet.tmp-1"]
    assert not any(".tmp-" in n for n in store.fs.find(store.root))   # atomic puts leave no temp names


def test_planning_is_deterministic_and_lazy():
    assert num_shards(10, 4) == 3
    assert [shard_plan(i, 10, 4) for i in range(3)] == [ShardPlan(0, 0, 4), ShardPlan(1, 4, 8), ShardPlan(2, 8, 10)]
    plans = iter_plans(10_000 * 8, 8)
    assert not isinstance(plans, list)
    assert next(plans) == ShardPlan(0, 0, 8)
    assert shard_plan(9_999, 80_000, 8) == ShardPlan(9_999, 79_992, 80_000)
    with pytest.raises(IndexError):
        shard_plan(3, 10, 4)
