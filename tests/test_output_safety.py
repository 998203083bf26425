"""Nothing is ever lost in an output folder: one writer at a time, deletions only of our own files.

Each test drives the real CLI in a subprocess (real Ray for the runs that get past the checks: the
session's, attached with --address, where the test is not about concurrent runs) and asserts on
what is left on disk, byte for byte.
"""
from __future__ import annotations

import hashlib
import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.generated import FAST_VOICES_YAML

ROOT = Path(__file__).resolve().parents[1]


def cli(*args: str, timeout: float = 240) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "jobs.cli", *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=timeout)


def gen(out: Path, *extra: str, num: int = 2, address: str | None = None) -> subprocess.CompletedProcess:
    """`duplexsynth generate` into `out`; attached to the Ray at `address` if given, else its own."""
    attach = ["--address", address] if address else ["--workers", "1"]
    return cli("generate", "--config", str(FAST_VOICES_YAML), "--num", str(num), "--shard-size", "2", *attach, "--no-progress", "--out", str(out), *extra)


@pytest.fixture
def ray_address(ray_head):
    """The session's Ray (conftest `ray_head`) for the runs whose subject is the folder, not Ray: each
    CLI run attaches to it (`--address`) instead of starting its own, which is most of the cost of a 2-row run."""
    return ray_head


def digests(folder: Path) -> dict[str, str]:
    """sha256 of every regular file under `folder` (the lock file aside), by relative path."""
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file() and p.name != ".duplexsynth.lock"}


def one_error_line(proc: subprocess.CompletedProcess) -> str:
    lines = [ln for ln in proc.stderr.splitlines() if ln.strip()]
    assert "Traceback" not in proc.stderr, proc.stderr
    assert len(lines) == 1 and lines[0].startswith("error: "), proc.stderr
    return lines[0]


def test_force_new_run_deletes_only_our_files_and_never_follows_a_symlink(tmp_path, ray_address):
    out = tmp_path / "run"
    assert gen(out, "--seed", "1", address=ray_address).returncode == 0
    mine = {"shards/notes.txt": b"my notes", "summaries/keep.json": b"{}", "failed/mine.parquet": b"x",
            "README.txt": b"hello", "shards/shard-1.parquet": b"not ours: 1 digit"}
    for rel, data in mine.items():
        (out / rel).parent.mkdir(exist_ok=True)
        (out / rel).write_bytes(data)
    proc = gen(out, "--seed", "2", "--force-new-run", address=ray_address)
    assert proc.returncode == 0, proc.stderr
    for rel, data in mine.items():
        assert (out / rel).read_bytes() == data, rel
    assert json.loads((out / "manifest.json").read_text())["config"]["seed"] == 2

    # a symlinked output folder pointing outside the root: refused, the outside untouched
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (outside / "shard-00000.parquet").write_bytes(b"precious")
    (outside / "other.bin").write_bytes(b"also precious")
    for p in (out / "summaries").iterdir():
        p.unlink()
    (out / "summaries").rmdir()
    (out / "summaries").symlink_to(outside, target_is_directory=True)
    before = digests(out / "shards")
    proc = gen(out, "--seed", "3", "--force-new-run")
    assert proc.returncode == 2
    assert "summaries" in one_error_line(proc) and "symlink" in proc.stderr
    assert digests(outside) == {"shard-00000.parquet": hashlib.sha256(b"precious").hexdigest(),
                                "other.bin": hashlib.sha256(b"also precious").hexdigest()}
    assert digests(out / "shards") == before


def test_two_concurrent_runs_one_refused_the_other_intact(tmp_path):
    shared, solo = tmp_path / "shared", tmp_path / "solo"
    args = ["generate", "--config", str(FAST_VOICES_YAML), "--num", "8", "--shard-size", "2", "--workers", "1", "--no-progress", "--seed", "5"]
    first = subprocess.Popen([sys.executable, "-m", "jobs.cli", *args, "--out", str(shared)], cwd=ROOT,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    # the same run into a folder of its own, at the same time (another folder: another lock; 2 cores)
    alone = subprocess.Popen([sys.executable, "-m", "jobs.cli", *args, "--out", str(solo)], cwd=ROOT,
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        lock = shared / ".duplexsynth.lock"
        deadline = time.monotonic() + 60
        while not (lock.is_file() and lock.stat().st_size > 0):
            assert first.poll() is None, first.communicate()
            assert time.monotonic() < deadline, "the first run never took the lock"
            time.sleep(0.1)
        second = gen(shared, "--seed", "6", num=8)
        assert second.returncode == 2
        line = one_error_line(second)
        assert "in use by another run" in line and f"pid {first.pid}" in line and socket.gethostname() in line
        out, err = first.communicate(timeout=240)
        assert first.returncode == 0, err
        _, err = alone.communicate(timeout=240)
        assert alone.returncode == 0, err
    finally:
        for proc in (first, alone):
            if proc.poll() is None:
                proc.kill()
                proc.wait()
    # shards, failure tables, manifest and config byte for byte; sidecars differ only in their wall time
    same = {k: v for k, v in digests(shared).items() if not k.startswith("summaries/")}
    assert same == {k: v for k, v in digests(solo).items() if not k.startswith("summaries/")}
    # 4 shards, config.yaml, manifest.json and the dataset card (README.md: no path of its folder in it)
    assert len(same) == 7 and (shared / "manifest.json").is_file() and (shared / "README.md").is_file()
    for p in (solo / "summaries").iterdir():
        want = {k: v for k, v in json.loads(p.read_text()).items() if k != "wall_s"}
        got = json.loads((shared / "summaries" / p.name).read_text())
        assert {k: v for k, v in got.items() if k != "wall_s"} == want
    assert cli("validate", str(shared)).returncode == 0


@pytest.mark.parametrize("case", ["file", "memory", "readonly", "full"])
def test_unusable_output_locations_refused_in_one_line(tmp_path, case):
    mounted = tmp_path / "mnt"
    needle = {"file": "not a folder", "memory": "memory://", "readonly": "Read-only", "full": "No space left"}[case]
    try:
        if case == "file":
            (tmp_path / "a-file").write_text("x")
            out = str(tmp_path / "a-file")
        elif case == "memory":
            out = "memory://bucket/run"
        else:
            mounted.mkdir()
            opts = "size=64k" + (",ro" if case == "readonly" else "")
            if subprocess.run(["mount", "-t", "tmpfs", "-o", opts, "tmpfs", str(mounted)]).returncode != 0:
                pytest.skip("needs root to mount a tmpfs")   # CI and our machines run as root
            if case == "full":
                try:
                    with open(mounted / "filler", "wb", buffering=0) as f:
                        while True:
                            f.write(b"\0" * 4096)
                except OSError:
                    pass   # the disk is full
            out = str(mounted / "run")
        proc = cli("generate", "--config", str(FAST_VOICES_YAML), "--num", "2", "--workers", "1", "--no-progress", "--out", out)
        assert proc.returncode == 2
        line = one_error_line(proc)
        assert needle in line and (out in line or case == "memory")
        if case == "full":
            run = mounted / "run"
            assert not (run / "config.yaml").exists() and not list(run.glob("shards/*.parquet"))
    finally:
        if mounted.is_mount():
            subprocess.run(["umount", str(mounted)])


def test_kill_9_of_a_lock_holder_leaves_a_stale_lock_and_litter_the_next_run_cleans(tmp_path, ray_address):
    """A run killed by kill -9 while holding the lock and writing: the next run is not refused (the
    flock died with its holder), says it took over a stale lock, and removes the temp files of
    writes cut short, but no file of the user's."""
    out = tmp_path / "run"
    out.mkdir()
    holder = subprocess.Popen(
        [sys.executable, "-c", "import sys, time; from jobs.lock import output_lock; from pipeline.io import Store\n"
         "with output_lock(Store(sys.argv[1]), 'test holder'):\n print('held', flush=True); time.sleep(600)",
         str(out)], cwd=ROOT, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        refused = gen(out)
        assert refused.returncode == 2 and f"pid {holder.pid}" in one_error_line(refused)
    finally:
        os.kill(holder.pid, signal.SIGKILL)
        holder.wait()
    litter = [".manifest.json.tmp-123", ".config.yaml.tmp-9", "shards/.shard-00000.parquet.tmp-77-ab12cd34",
              "summaries/.shard-00000.json.tmp-5", "failed/.shard-00003.parquet.tmp-8"]
    kept = [".notes.txt.tmp-1", "shards/.my.parquet.tmp-2"]
    for rel in litter + kept:
        (out / rel).parent.mkdir(exist_ok=True)
        (out / rel).write_bytes(b"partial")
    proc = gen(out, address=ray_address)
    assert proc.returncode == 0, proc.stderr
    assert f"pid {holder.pid}" in proc.stderr and "stale lock" in proc.stderr
    assert (out / ".duplexsynth.lock").stat().st_size == 0   # free again after the run
    assert [rel for rel in litter if (out / rel).exists()] == []
    assert all((out / rel).exists() for rel in kept)
