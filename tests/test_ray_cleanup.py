"""A SIGKILLed `duplexsynth generate` leaves Ray agents behind; the next run ends exactly those.

`ray.init(address="local")` makes gcs, raylet, dashboard ... children of the driver, and they die
with it; the raylet's own children (ray::DashboardAgent, ray::RuntimeEnvAgent) do not. This test
finds a session's processes without the project's tagging: by the session folder Ray names after
the driver's pid (`/tmp/ray/session_<date>_<n>_<pid>`), in their command line or their open files
(the agents rename themselves). Everything it starts is ended by pid in a finally.
"""
from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

from jobs.ray_cluster import STATE_DIR_ENV, _alive, _pids, _proc_stat, terminate
from tests.generated import FAST_VOICES_YAML

REPO = Path(__file__).resolve().parent.parent


def _session_procs(driver_pid: int) -> dict[int, tuple[int, int]]:
    """pid -> (start time, parent pid) of the live processes of the Ray session `driver_pid` started."""
    names = re.compile(rf"/session_[0-9_-]+_{driver_pid}(?:/|\b)".encode())
    found: dict[int, tuple[int, int]] = {}
    for p in _pids():
        if p in (os.getpid(), driver_pid):
            continue
        try:
            with open(f"/proc/{p}/cmdline", "rb") as f:
                hit = bool(names.search(f.read()))
            if not hit:
                fd_dir = f"/proc/{p}/fd"
                for fd in os.listdir(fd_dir):
                    with_target = os.readlink(f"{fd_dir}/{fd}")
                    if names.search(with_target.encode()):
                        hit = True
                        break
        except OSError:
            continue
        st = _proc_stat(p)
        if hit and st is not None and _alive(p):
            found[p] = (st[2], st[1])
    return found


def _wait(cond, timeout: float, what: str, poll: float = 0.2):
    deadline = time.monotonic() + timeout
    while True:
        value = cond()
        if value:
            return value
        assert time.monotonic() < deadline, f"timed out after {timeout:.0f} s waiting for {what}"
        time.sleep(poll)


def test_next_generate_ends_the_ray_agents_a_killed_driver_left(tmp_path):
    env = {**os.environ, STATE_DIR_ENV: str(tmp_path / "state")}
    log = tmp_path / "first.log"
    seen: dict[int, int] = {}            # every session process observed: pid -> start time
    cmd = [sys.executable, "-m", "jobs.cli", "generate", "--config", str(FAST_VOICES_YAML), "--workers", "1", "--progress-interval", "0"]
    with open(log, "wb") as f:
        driver = subprocess.Popen([*cmd, "--num", "40", "--shard-size", "4", "--out", str(tmp_path / "D")],
                                  cwd=REPO, env=env, stdout=f,
                                  stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    try:
        def agents_up() -> dict[int, tuple[int, int]]:
            assert driver.poll() is None, log.read_text(errors="replace")[-3000:]
            procs = _session_procs(driver.pid)
            # the raylet's children (its agents) are there: not every process is the driver's own child
            return procs if any(ppid != driver.pid for _, ppid in procs.values()) else {}

        before = _wait(agents_up, 180, "the driver's Ray agents")
        seen.update({p: t for p, (t, _) in before.items()})
        driver.send_signal(signal.SIGKILL)           # the driver only: not its group
        driver.wait(timeout=30)

        def own_children_gone() -> bool:
            return not any(_alive(p, t) for p, (t, ppid) in before.items() if ppid == driver.pid)

        _wait(own_children_gone, 30, "the driver's own children (gcs, raylet) to share its fate")
        orphans = {p: t for p, t in seen.items() if _alive(p, t)}
        assert orphans, "no Ray process outlived the SIGKILLed driver: nothing left to clean up"
        assert all(_proc_stat(p)[1] != driver.pid for p in orphans)

        second = subprocess.run([*cmd, "--num", "4", "--shard-size", "2", "--out", str(tmp_path / "D2")],
                                cwd=REPO, env=env, capture_output=True, text=True, timeout=300)
        assert second.returncode == 0, second.stderr[-3000:]
        assert (tmp_path / "D2" / "manifest.json").is_file()
        survivors = [p for p, t in orphans.items() if _alive(p, t)]
        assert survivors == [], f"orphans of the killed run still alive after the next run: {survivors}"
        assert f"left by an embedded Ray whose driver (pid {driver.pid}) was killed" in second.stderr
        records = [json.loads(p.read_text()) for p in (tmp_path / "state").glob("*.json")]
        assert driver.pid not in [r["driver_pid"] for r in records], "the killed session's record was kept"
    finally:
        if driver.poll() is None:
            driver.kill()
            driver.wait(timeout=30)
        seen.update({p: t for p, (t, _) in _session_procs(driver.pid).items()})
        terminate([p for p, t in seen.items() if _alive(p, t)], grace_s=1.0)
