"""Issue #30 items 10 and 11: set-up inside a virtualenv, and Ray start-up on a busy host.

- .venv-cosyvoice sees the packages of the interpreter that ran setup.sh (a virtualenv's, not the
  base Python's), its own pins first; CI runs README's test command inside a fresh `python3 -m venv`.
- An embedded Ray that times out at start-up (Ray's "The current node timed out during startup")
  is ended, named in one line and started once more; a second timeout is one line naming the
  setting to raise, exit 2.
"""
from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from jobs import ray_cluster
from jobs.ray_cluster import EMBED_ENV, STATE_DIR_ENV
from tests.generated import FAST_VOICES_YAML

ROOT = Path(__file__).resolve().parents[1]
PYVER = f"python{sys.version_info[0]}.{sys.version_info[1]}"
START_WAIT_ENV = "RAY_raylet_start_wait_time_s"   # Ray's own name: what a user sets (jobs.ray_cluster.START_WAIT_ENV)
START_WAIT_DEFAULT_S = 240   # the documented default (jobs.ray_cluster.START_WAIT_DEFAULT_S)
RAY_TIMEOUT = ("The current node timed out during startup. This could happen because some of the raylet "
               "failed to startup or the GCS has become overloaded.")


# ------------------------------------------------------------------ item 10: set-up in a virtualenv

def _venv(path: Path, *flags: str) -> Path:
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", *flags, str(path)], check=True, timeout=120)
    return path


def _plant(venv: Path, name: str, text: str = "") -> None:
    pkg = venv / "lib" / PYVER / "site-packages" / name
    pkg.mkdir(parents=True, exist_ok=True)
    (pkg / "__init__.py").write_text(f"WHO = {text!r}\n")


def _run_py(py: Path, code: str) -> subprocess.CompletedProcess:
    return subprocess.run([str(py), "-c", code], capture_output=True, text=True, timeout=120)


def _make_cosy(parent: Path, target: Path) -> None:
    proc = subprocess.run([str(parent / "bin" / "python"), str(ROOT / "scripts" / "cosyvoice_env.py"), str(target),
                           "--without-pip"], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr


def test_cosyvoice_env_sees_the_running_venvs_packages_own_pins_first(tmp_path):
    """Made from inside a virtualenv, the CosyVoice venv imports that virtualenv's packages (torch
    was one: `No module named 'torch'` with --system-site-packages, which links the base Python)."""
    outer = _venv(tmp_path / "outer")
    _plant(outer, "hs_outer_only", "outer")
    _plant(outer, "hs_both", "outer")
    cosy = tmp_path / "cosy"
    _make_cosy(outer, cosy)
    _plant(cosy, "hs_both", "cosy")   # a package CosyVoice pins itself
    got = _run_py(cosy / "bin" / "python", "import hs_outer_only, hs_both; print(hs_outer_only.WHO, hs_both.WHO)")
    assert got.returncode == 0, got.stderr
    assert got.stdout.split() == ["outer", "cosy"], got.stdout
    assert "include-system-site-packages = false" in (cosy / "pyvenv.cfg").read_text()

    # rerun from another virtualenv: the link follows the interpreter that runs set-up, nothing else
    other = _venv(tmp_path / "other")
    _plant(other, "hs_other_only", "other")
    _make_cosy(other, cosy)
    got = _run_py(cosy / "bin" / "python", "import hs_other_only, hs_both; print(hs_other_only.WHO, hs_both.WHO)")
    assert got.stdout.split() == ["other", "cosy"], got.stderr
    assert _run_py(cosy / "bin" / "python", "import hs_outer_only").returncode != 0


def test_cosyvoice_env_of_the_old_kind_is_rebuilt(tmp_path):
    """A .venv-cosyvoice an older setup.sh made (--system-site-packages: the base's packages) is
    rebuilt isolated, with the link."""
    outer = _venv(tmp_path / "outer")
    _plant(outer, "hs_outer_only", "outer")
    cosy = _venv(tmp_path / "cosy", "--system-site-packages")
    _make_cosy(outer, cosy)
    assert "include-system-site-packages = false" in (cosy / "pyvenv.cfg").read_text()
    assert _run_py(cosy / "bin" / "python", "import hs_outer_only").returncode == 0


def test_setup_sh_makes_the_cosyvoice_env_with_the_running_interpreter():
    text = (ROOT / "scripts" / "setup.sh").read_text()
    assert '"$PY" scripts/cosyvoice_env.py "$venv"' in text
    assert "-m venv" not in text   # the base interpreter's venv is what hid a virtualenv's torch


def _readme_test_command() -> str:
    lines = (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("Run the tests"))
    return next(line.strip() for line in lines[start + 1:] if line.startswith("    "))


def test_ci_runs_readmes_test_command_inside_a_fresh_venv(tmp_path):
    """.ci/run itself, with set-up and pytest replaced by stand-ins that record which Python runs
    them: both must be the fresh venv's."""
    command = _readme_test_command()
    assert command == "bash scripts/setup.sh --test && python3 -m pytest -q -n 2 --dist loadfile"
    ci = (ROOT / ".ci" / "run").read_text()
    assert command in ci
    repo = tmp_path / "repo"
    (repo / ".ci").mkdir(parents=True)
    shutil.copy(ROOT / ".ci" / "run", repo / ".ci" / "run")
    (repo / "scripts").mkdir()
    (repo / "scripts" / "setup.sh").write_text('python3 -c "import sys; print(sys.prefix)" > setup.prefix\n')
    (repo / "pytest").mkdir()   # `python3 -m pytest` finds this one first (the current folder)
    (repo / "pytest" / "__main__.py").write_text(
        "import sys\nopen('pytest.prefix', 'w').write(sys.prefix + '\\n' + ' '.join(sys.argv[1:]))\n")
    venv = tmp_path / "ci-venv"
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONHOME")}
    env["DUPLEXSYNTH_CI_VENV"] = str(venv)
    proc = subprocess.run(["bash", ".ci/run"], cwd=repo, env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert (repo / "setup.prefix").read_text().strip() == str(venv)
    prefix, args = (repo / "pytest.prefix").read_text().split("\n")
    assert prefix == str(venv) and args == "-q -n 2 --dist loadfile"


# --------------------------------------------------------------- item 11: Ray start-up under load

@pytest.fixture
def ray_start(monkeypatch, tmp_path):
    """ray.init replaced by a stand-in that times out as Ray does for the first `fail` calls; the
    first failed try leaves a process tagged as the embedded Ray's are (a stand-in raylet)."""
    import ray

    monkeypatch.delenv(START_WAIT_ENV, raising=False)
    monkeypatch.setenv(STATE_DIR_ENV, str(tmp_path / "ray-state"))
    state = {"calls": 0, "fail": 1, "wait_seen": [], "leftover": None, "leftover_alive": []}

    def fake_init(*args, **kwargs):
        state["calls"] += 1
        state["wait_seen"].append(os.environ.get(START_WAIT_ENV))
        if state["leftover"] is not None:
            state["leftover_alive"].append(state["leftover"].poll() is None)
        if state["calls"] <= state["fail"]:
            if state["leftover"] is None:   # inherits EMBED_ENV=<tag>, as Ray's processes do
                assert os.environ.get(EMBED_ENV)
                state["leftover"] = subprocess.Popen(["sleep", "60"])
            raise Exception(RAY_TIMEOUT)   # what ray/_private/node.py raises

    monkeypatch.setattr(ray, "init", fake_init)
    monkeypatch.setattr(ray, "is_initialized", lambda: False)
    monkeypatch.setattr(ray, "shutdown", lambda *a, **k: None)
    yield state
    if state["leftover"] is not None and state["leftover"].poll() is None:
        os.kill(state["leftover"].pid, signal.SIGKILL)
        state["leftover"].wait(timeout=10)


def test_ray_start_timeout_is_retried_once_and_said_in_one_line(ray_start, capsys):
    from jobs.runner import _init_ray
    assert _init_ray(None, 1) == (True, 1)
    assert ray_start["calls"] == 2
    assert ray_start["wait_seen"] == [str(START_WAIT_DEFAULT_S)] * 2   # a wait fit for a busy host, by default
    assert ray_start["leftover_alive"] == [False]   # the failed try's processes were ended before the retry
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1, err
    assert err[0].startswith("note: Ray did not start within 240 s") and START_WAIT_ENV in err[0], err


def _generate(tmp_path: Path) -> list[str]:
    return ["generate", "--num", "2", "--config", str(FAST_VOICES_YAML), "--out", str(tmp_path / "ds"),
            "--workers", "1", "--no-progress"]


def test_second_ray_start_timeout_exits_2_naming_the_setting(ray_start, tmp_path, capsys, monkeypatch):
    from jobs.cli import main
    ray_start["fail"] = 2
    monkeypatch.setenv(START_WAIT_ENV, "300")   # the user's own wait is kept and named
    assert main(_generate(tmp_path)) == 2
    assert ray_start["calls"] == 2 and ray_start["wait_seen"] == ["300", "300"]
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 2, err
    assert err[0].startswith("note: Ray did not start within 300 s")
    assert re.fullmatch(rf"error: Ray did not start within 300 s, twice .*set {START_WAIT_ENV} above 300 .*", err[1]), err
    assert "unexpected" not in err[1] and "Traceback" not in err[1]


def test_other_ray_start_errors_are_not_retried(ray_start, monkeypatch):
    import ray

    from jobs.runner import _init_ray
    calls = []

    def broken(*a, **k):
        calls.append(1)
        raise ValueError("object_store_memory too small")
    monkeypatch.setattr(ray, "init", broken)
    with pytest.raises(ValueError):
        _init_ray(None, 1)
    assert calls == [1]


@pytest.mark.parametrize("bad", ["abc", "0", "-5", "1.5", ""])
def test_a_bad_start_wait_is_refused_before_ray_starts(ray_start, tmp_path, capsys, monkeypatch, bad):
    """Ray aborts the whole process on a start-up wait it cannot parse: refused here, in one line."""
    from jobs.cli import main
    monkeypatch.setenv(START_WAIT_ENV, bad)
    assert main(_generate(tmp_path)) == 2
    assert ray_start["calls"] == 0
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith(f"error: {START_WAIT_ENV}=") and "whole number" in err[0], err


def test_start_wait_names_match_the_module():
    assert (ray_cluster.START_WAIT_ENV, ray_cluster.START_WAIT_DEFAULT_S) == (START_WAIT_ENV, START_WAIT_DEFAULT_S)


def test_local_head_gets_the_start_wait(monkeypatch):
    """`ray start --head` (the test suite's session head, benchmarks) is given the same wait."""
    seen = {}

    def popen(cmd, env, **kwargs):
        seen.update(env)
        raise RuntimeError("not started: the environment is what this test reads")
    monkeypatch.delenv(START_WAIT_ENV, raising=False)
    monkeypatch.setattr(ray_cluster.subprocess, "Popen", popen)
    head = ray_cluster.LocalHead()
    with pytest.raises(RuntimeError, match="not started"):
        head.start()
    shutil.rmtree(head.temp_dir, ignore_errors=True)
    assert seen[START_WAIT_ENV] == str(START_WAIT_DEFAULT_S)
