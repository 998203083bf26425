"""`duplexsynth submit` and `duplexsynth jobs` against a real Ray head (issue 4).

One head per module: `ray start --head --block` on 127.0.0.1 with the dashboard, in a temp dir of its
own, every process it starts tagged in its environment and killed by id at the end (never `ray stop`,
which would end every Ray process on the host). The head and the CLI get an environment without
RAY_AUTH_MODE: when ~/.ray/auth_token exists the head turns token auth on, and the CLI must cope.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from jobs.ray_cluster import (TAG_ENV, ClusterError, LocalHead, job_client, kill_tree, stage_job_package,
                              tagged_processes)
from schemas.config import RunConfig, dump_config
from tests.generated import FAST_VOICES

REPO = Path(__file__).resolve().parent.parent
FAMILIES = {"turn_taking": 1.0, "pause": 1.0, "backchannel": 1.0}
NUM, SHARD = 8, 2
ENV = {k: v for k, v in os.environ.items() if k not in ("RAY_AUTH_MODE", "RAY_ADDRESS", "RAY_API_SERVER_ADDRESS")}


def _cli(*args: str, env: dict[str, str] | None = None, timeout: float = 300) -> subprocess.CompletedProcess:
    tag = uuid.uuid4().hex
    proc = subprocess.run([sys.executable, "-m", "jobs.cli", *args], cwd=REPO, capture_output=True, text=True,
                          timeout=timeout, env={**ENV, **(env or {}), TAG_ENV: tag})
    assert kill_tree(None, tag, grace_s=10.0) == [], "a CLI run left processes behind"
    return proc


@pytest.fixture(scope="module")
def head():
    h = LocalHead(num_cpus=2, env=ENV).start()
    try:
        yield h
    finally:
        tag = h.tag
        h.stop()
        assert tagged_processes(tag) == [], "processes of the test head survived"


@pytest.fixture(scope="module")
def submitted(head, tmp_path_factory):
    root = tmp_path_factory.mktemp("cluster")
    cfg = root / "job.yaml"
    cfg.write_text(dump_config(RunConfig(seed=5, num=NUM, shard_size=SHARD, scenarios=FAMILIES, voices=FAST_VOICES)))
    job_id = f"dsx-test-{uuid.uuid4().hex[:8]}"
    out = root / "out"
    proc = _cli("submit", "--address", head.dashboard_url, "--config", str(cfg), "--out", str(out),
                "--job-id", job_id, "--progress-interval", "0", "--timeout", "240")
    return root, cfg, out, job_id, proc


def test_submit_follows_the_job_to_completion_and_the_output_validates(submitted):
    _, _, out, job_id, proc = submitted
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-3000:]
    assert f"submitted job {job_id}" in proc.stdout
    assert "--address auto" in proc.stdout                       # the same job code, attached to the cluster
    progress = [ln for ln in proc.stdout.splitlines() if ln.startswith("progress ")]
    assert progress and f"{NUM}/{NUM} trajectories" in progress[-1] and "ETA" in progress[-1], proc.stdout
    assert f"rows written     {NUM}" in proc.stdout                # the job's summary, followed from its logs
    assert f"job {job_id} SUCCEEDED" in proc.stdout
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["rows"] == NUM and len(manifest["shards"]) == NUM // SHARD
    val = _cli("validate", str(out))
    assert val.returncode == 0 and f"OK: {NUM} rows" in val.stdout, val.stdout + val.stderr


def test_jobs_status_logs_and_list(head, submitted):
    _, _, out, job_id, _ = submitted
    st = _cli("jobs", "status", job_id, "--address", head.dashboard_url)
    assert st.returncode == 0 and "SUCCEEDED" in st.stdout and f"out={out}" in st.stdout, st.stdout + st.stderr
    logs = _cli("jobs", "logs", job_id, "--address", head.dashboard_url)
    assert logs.returncode == 0 and f"rows written     {NUM}" in logs.stdout
    listing = _cli("jobs", "list", "--address", head.dashboard_url)
    assert job_id in listing.stdout
    missing = _cli("jobs", "status", "no-such-job", "--address", head.dashboard_url)
    assert missing.returncode == 2 and "error" in missing.stderr


def test_generate_attached_to_the_cluster_writes_the_same_bytes_as_the_job(head, submitted):
    root, cfg, out, _, _ = submitted
    local = root / "attached"
    proc = _cli("generate", "--config", str(cfg), "--out", str(local), "--address", "auto", "--no-progress",
                env={"RAY_ADDRESS": head.gcs_address})
    assert proc.returncode == 0, proc.stderr[-3000:]
    a, b = (json.loads((o / "manifest.json").read_text()) for o in (out, local))
    assert [s["sha256"] for s in a["shards"]] == [s["sha256"] for s in b["shards"]]


def test_jobs_stop_stops_a_running_job(head, tmp_path):
    cfg = tmp_path / "big.yaml"
    cfg.write_text(dump_config(RunConfig(seed=6, num=400, shard_size=2, scenarios=FAMILIES, voices=FAST_VOICES)))
    job_id = f"dsx-stop-{uuid.uuid4().hex[:8]}"
    proc = _cli("submit", "--address", head.dashboard_url, "--config", str(cfg), "--out", str(tmp_path / "o"),
                "--job-id", job_id, "--no-wait")
    assert proc.returncode == 0 and "jobs stop" in proc.stdout, proc.stdout + proc.stderr
    client = job_client(head.dashboard_url)
    deadline = time.monotonic() + 120
    while str(client.get_job_status(job_id).value) == "PENDING":
        assert time.monotonic() < deadline
        time.sleep(0.5)
    stop = _cli("jobs", "stop", job_id, "--address", head.dashboard_url)
    assert stop.returncode == 0 and "STOPPED" in stop.stdout, stop.stdout + stop.stderr
    assert str(client.get_job_status(job_id).value) == "STOPPED"
    assert not (tmp_path / "o" / "manifest.json").exists()


def test_submit_checks_the_config_before_contacting_the_cluster(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("num: 0\nscenarios: {nope: 1}\n")
    proc = _cli("submit", "--address", "http://127.0.0.1:9", "--config", str(bad), "--out", str(tmp_path / "o"))
    assert proc.returncode == 2 and "num:" in proc.stderr and "scenarios:" in proc.stderr, proc.stderr
    proc = _cli("submit", "--address", "http://127.0.0.1:9", "--out", str(tmp_path / "o"), "--num", "2",
                env={"DUPLEXSYNTH_CLUSTER_TIMEOUT": "1"}, timeout=120)
    assert proc.returncode == 2 and "cannot reach the Ray dashboard" in proc.stderr, proc.stderr


def test_job_package_carries_the_packages_and_stays_lean(tmp_path):
    pkg = stage_job_package(tmp_path / "pkg", "seed: 1\n")
    names = {str(p.relative_to(pkg.path)) for p in pkg.path.rglob("*") if p.is_file()}
    for need in ("job.yaml", "jobs/cli.py", "jobs/runner.py", "schemas/config.py", "pipeline/io.py",
                 "generators/registry.py"):
        assert need in names, need
    assert not any("__pycache__" in n or n.endswith((".pyc", ".parquet")) or n.startswith(("tests/", ".git"))
                   for n in names)
    assert pkg.bytes < 20 * 2**20, pkg.largest
    # a project with a huge file inside a package is refused before any upload
    fake = tmp_path / "fake"
    (fake / "jobs").mkdir(parents=True)
    with open(fake / "jobs" / "weights.bin", "wb") as f:
        f.truncate(60 * 2**20)
    with pytest.raises(ClusterError, match="weights.bin"):
        stage_job_package(tmp_path / "pkg2", "seed: 1\n", root=fake)


def test_client_auth_follows_the_token_on_disk(tmp_path):
    code = ("import os, sys; from jobs.ray_cluster import prepare_client_auth; "
            "print(prepare_client_auth(), os.environ.get('RAY_AUTH_MODE'))")
    token = tmp_path / "token"
    token.write_text("x" * 32)
    base = {k: v for k, v in ENV.items() if not k.startswith("RAY_AUTH")}
    cases = [({"RAY_AUTH_TOKEN_PATH": str(token)}, "token token"),
             ({"HOME": str(tmp_path / "nohome")}, "None None"),
             ({"RAY_AUTH_MODE": "disabled", "RAY_AUTH_TOKEN_PATH": str(token)}, "disabled disabled")]
    for extra, want in cases:
        out = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True,
                             env={**base, **extra})
        assert out.stdout.strip() == want, (extra, out.stdout, out.stderr)


def test_head_demands_the_token_when_one_exists(head):
    """The trap this module guards against: with a token on disk the head turns token auth on."""
    if not (Path.home() / ".ray" / "auth_token").exists():
        pytest.skip("no ~/.ray/auth_token here: the head runs without auth")
    code = ("from ray.job_submission import JobSubmissionClient as C\n"
            f"try:\n    C('{head.dashboard_url}').list_jobs(); print('open')\n"
            "except Exception as e:\n    print('refused' if 'auth' in str(e).lower() else repr(e))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                         env={**ENV, "RAY_AUTH_MODE": "disabled"})
    assert out.stdout.strip() == "refused", out.stdout + out.stderr[-2000:]
