"""Ray cluster plumbing for `duplexsynth submit` / `duplexsynth jobs`: client auth, the job package,
and a local head that can be stopped by its own process ids (tests, benchmarks, trying things out).

Traps this module exists for (Ray 2.60):
- once `~/.ray/auth_token` exists, `ray start` turns token auth on and every client needs
  `RAY_AUTH_MODE=token` before Ray reads its config; `prepare_client_auth` sets it;
- `ray stop` ends every Ray process on the host, so a head is stopped by the ids of the processes it
  started (all tagged with an environment marker), never by name;
- Ray Jobs rejects a working_dir over 100 MiB (HTTP 413): the job package is an allow-list of the
  project's top-level packages plus the job's config, and its size is checked before upload.
"""
from __future__ import annotations

import contextlib
import fnmatch
import json
import os
import shutil
import signal
import socket
import stat
import subprocess
import sys
import tempfile
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from schemas.argtypes import env_number
from schemas.errors import UsageError

PACKAGES = ("schemas", "generators", "pipeline", "jobs", "model")   # the project's top-level packages
PACKAGE_EXCLUDES = ("__pycache__", "*.pyc", "*.pyo", ".pytest_cache", ".mypy_cache", ".ruff_cache",
                    "*.egg-info", ".git", ".ipynb_checkpoints", "*.parquet", ".*.tmp-*", "*.log")
PACKAGE_LIMIT = 100 * 1024 * 1024   # Ray Jobs refuses a bigger working_dir (HTTP 413)
PACKAGE_BUDGET = 50 * 1024 * 1024   # we refuse well before that
JOB_CONFIG = "job.yaml"
TAG_ENV = "DUPLEXSYNTH_PROCESS_TAG"


class ClusterError(UsageError, RuntimeError):
    """The cluster cannot be reached or refused a request; the message says what to check."""


# ------------------------------------------------------------------------------------------ auth

def token_available(env: dict[str, str] | None = None) -> bool:
    env = os.environ if env is None else env
    if env.get("RAY_AUTH_TOKEN"):
        return True
    path = env.get("RAY_AUTH_TOKEN_PATH") or str(Path.home() / ".ray" / "auth_token")
    return os.path.isfile(path)


def prepare_client_auth() -> str | None:
    """Make this process present Ray's auth token when one exists and no mode was chosen.

    A head started by `ray start` with a token on disk requires it; a head without auth ignores it.
    Returns the mode now in effect (None: left to Ray).
    """
    mode = os.environ.get("RAY_AUTH_MODE")
    if mode is None and token_available():
        os.environ["RAY_AUTH_MODE"] = mode = "token"
        if "ray" in sys.modules:   # Ray caches its config at import; refresh it
            with contextlib.suppress(Exception):
                from ray._raylet import Config
                Config.initialize("")
    return mode


# ------------------------------------------------------------------------------ job submission

def normalize_dashboard_address(address: str) -> str:
    address = address.strip().rstrip("/")
    if "://" not in address:
        address = f"http://{address}"
    return address


def job_client(address: str | None, timeout: float | None = None) -> Any:
    """A JobSubmissionClient for the dashboard at `address`, retrying while the dashboard starts
    (for `timeout` s; default $DUPLEXSYNTH_CLUSTER_TIMEOUT or 60)."""
    if timeout is None:
        timeout = env_number("DUPLEXSYNTH_CLUSTER_TIMEOUT", 60.0, 0.0, 86400.0)
    address = address or os.environ.get("RAY_API_SERVER_ADDRESS") or os.environ.get("RAY_ADDRESS")
    if not address:
        raise ClusterError("no cluster address: pass --address http://HOST:8265 (the Ray dashboard) "
                           "or set RAY_API_SERVER_ADDRESS")
    prepare_client_auth()
    from ray.job_submission import JobSubmissionClient
    url = normalize_dashboard_address(address)
    deadline = time.monotonic() + timeout
    while True:
        try:
            return JobSubmissionClient(url)
        except Exception as err:  # noqa: BLE001 - connection refused while starting, auth, ...
            if "auth" in str(err).lower() or time.monotonic() > deadline:
                raise ClusterError(f"cannot reach the Ray dashboard at {url}: {err}") from err
            time.sleep(1.0)


def _is_transient(err: Exception) -> bool:
    text = str(err).lower()
    return any(s in text for s in ("no available agent", "try again", "503", "502", "connection"))


def submit_job(client: Any, entrypoint: str, runtime_env: dict[str, Any], submission_id: str | None = None,
               metadata: dict[str, str] | None = None, timeout: float = 120.0) -> str:
    """Submit, retrying while the cluster's job agent is not up yet ("No available agent")."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            return client.submit_job(entrypoint=entrypoint, runtime_env=runtime_env,
                                     submission_id=submission_id, metadata=metadata or {},
                                     entrypoint_num_cpus=0)
        except Exception as err:  # noqa: BLE001
            if "413" in str(err):
                raise ClusterError(f"the cluster refused the job package as too large: {err}") from err
            if not _is_transient(err) or time.monotonic() > deadline:
                raise ClusterError(f"job submission failed: {err}") from err
            time.sleep(2.0)


def follow_job(client: Any, job_id: str, stream: Any = None, poll_s: float = 1.0,
               timeout: float | None = None) -> Any:
    """Print the job's logs as they grow until it ends; returns its final JobDetails."""
    stream = stream or sys.stdout
    seen = 0
    deadline = None if timeout is None else time.monotonic() + timeout
    while True:
        status = client.get_job_status(job_id)
        logs = client.get_job_logs(job_id)
        if len(logs) > seen:
            stream.write(logs[seen:])
            stream.flush()
            seen = len(logs)
        if status.is_terminal():
            return client.get_job_info(job_id)
        if deadline is not None and time.monotonic() > deadline:
            raise ClusterError(f"job {job_id} still {status} after {timeout:.0f} s")
        time.sleep(poll_s)


def job_exit_code(info: Any) -> int:
    """0 when the job succeeded, else the driver's exit code (3: incomplete shards), else 1."""
    status = str(getattr(info.status, "value", info.status))
    if status == "SUCCEEDED":
        return 0
    code = getattr(info, "driver_exit_code", None)
    return code if isinstance(code, int) and code > 0 else 1


# ------------------------------------------------------------------------------- job package

def project_root() -> Path:
    """The folder that holds the top-level packages (the repo root, or site-packages)."""
    import jobs
    return Path(jobs.__file__).resolve().parent.parent


def _ignore(directory: str, names: list[str]) -> set[str]:
    return {n for n in names if any(fnmatch.fnmatch(n, pat) for pat in PACKAGE_EXCLUDES)}


@dataclass
class JobPackage:
    path: Path
    bytes: int
    files: int
    largest: list[tuple[str, int]] = field(default_factory=list)


def stage_job_package(dest: Path, config_yaml: str, root: Path | None = None,
                      budget: int = PACKAGE_BUDGET) -> JobPackage:
    """Build the job's working_dir: the top-level packages (no caches, outputs or Parquet) and job.yaml."""
    root = root or project_root()
    dest.mkdir(parents=True, exist_ok=True)
    for name in PACKAGES:
        if (root / name).is_dir():
            shutil.copytree(root / name, dest / name, ignore=_ignore, dirs_exist_ok=True)
    (dest / JOB_CONFIG).write_text(config_yaml)
    sizes = [(str(p.relative_to(dest)), p.stat().st_size) for p in dest.rglob("*") if p.is_file()]
    total = sum(s for _, s in sizes)
    pkg = JobPackage(dest, total, len(sizes), sorted(sizes, key=lambda t: -t[1])[:5])
    if total > budget:
        top = ", ".join(f"{n} ({s / 2**20:.1f} MiB)" for n, s in pkg.largest)
        raise ClusterError(f"the job package is {total / 2**20:.1f} MiB (limit {budget / 2**20:.0f} MiB; Ray "
                           f"refuses {PACKAGE_LIMIT / 2**20:.0f} MiB); largest files: {top}")
    return pkg


# -------------------------------------------------------------------- a local head, by its pids

def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _proc_stat(pid: int) -> tuple[str, int, int] | None:
    """(state, parent pid, start time) of a process from /proc, None when it is gone."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            fields = f.read().rpartition(b")")[2].split()
        return fields[0].decode(), int(fields[1]), int(fields[19])
    except (OSError, IndexError, ValueError):
        return None


def _alive(pid: int, started: int | None = None) -> bool:
    """Running (a zombie has already died) and, when `started` is given, still the same process."""
    st = _proc_stat(pid)
    return st is not None and st[0] not in ("Z", "X") and (started is None or st[2] == started)


def _pids() -> list[int]:
    return [int(n) for n in os.listdir("/proc") if n.isdigit()]


def descendants(pid: int) -> list[int]:
    """Every live process below `pid` in the process tree (Linux /proc)."""
    children: dict[int, list[int]] = {}
    for p in _pids():
        st = _proc_stat(p)
        if st is not None:
            children.setdefault(st[1], []).append(p)
    out, todo = [], [pid]
    while todo:
        for c in children.get(todo.pop(), []):
            out.append(c)
            todo.append(c)
    return out


def tagged_processes(tag: str, env_name: str = TAG_ENV) -> list[int]:
    """Live processes whose environment carries env_name=tag: everything a tagged process started,
    including the ones Ray moves into sessions of their own (workers, job drivers)."""
    return tagged_by(env_name, {tag}).get(tag, [])


def tagged_by(env_name: str, tags: set[str]) -> dict[str, list[int]]:
    """For each of `tags`, the live processes whose environment carries env_name=tag (one /proc scan)."""
    needles = {f"{env_name}={t}".encode(): t for t in tags}
    found: dict[str, list[int]] = {}
    for p in _pids():
        if p == os.getpid():
            continue
        try:
            with open(f"/proc/{p}/environ", "rb") as f:
                env = f.read().split(b"\0")
        except OSError:
            continue
        for entry in env:
            if entry in needles and _alive(p):
                found.setdefault(needles[entry], []).append(p)
                break
    return found


def kill_tree(root_pid: int | None, tag: str | None, grace_s: float = 2.0, timeout_s: float = 20.0
              ) -> list[int]:
    """SIGKILL a process group we created, its descendants and every process carrying `tag`.

    After killing the group, waits up to `grace_s` for the rest to exit on their own (Ray's fate
    sharing), then kills the stragglers by id. Returns the stragglers' ids. Never matches by name.
    """
    def snapshot(found: list[int]) -> None:
        for p in found:
            st = _proc_stat(p)
            if st is not None:
                pids.setdefault(p, st[2])   # pid -> start time: a reused pid is never mistaken for ours

    pids: dict[int, int] = {}
    if root_pid is not None:
        snapshot([root_pid, *descendants(root_pid)])
    if tag is not None:
        snapshot(tagged_processes(tag))
    if root_pid is not None:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(root_pid, signal.SIGKILL)
    deadline = time.monotonic() + grace_s
    while time.monotonic() < deadline and any(_alive(p, t) for p, t in pids.items()):
        time.sleep(0.1)
    if tag is not None:   # anything started since the snapshot
        snapshot(tagged_processes(tag))
    killed = []
    for p, t in sorted(pids.items()):
        if _alive(p, t):
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(p, signal.SIGKILL)
                killed.append(p)
    deadline = time.monotonic() + timeout_s
    while any(_alive(p, t) for p, t in pids.items()):
        if time.monotonic() > deadline:
            raise RuntimeError(f"processes survived SIGKILL: {[p for p, t in pids.items() if _alive(p, t)]}")
        time.sleep(0.1)
    return killed


AGENT_PORT_FLAGS = ("dashboard-agent-listen-port", "dashboard-agent-grpc-port", "runtime-env-agent-port",
                    "metrics-export-port", "ray-client-server-port")


class LocalHead:
    """`ray start --head --block` on 127.0.0.1 with the dashboard, owned by this process.

    Every process it starts inherits TAG_ENV, so `stop()` ends exactly those (group, descendants,
    tagged stragglers such as job drivers and workers, which Ray puts in sessions of their own).
    """

    def __init__(self, num_cpus: int = 2, temp_root: str = "/tmp", env: dict[str, str] | None = None) -> None:
        self.num_cpus = num_cpus
        self.env = dict(os.environ if env is None else env)
        # short: Ray's unix socket paths live under it and must stay under ~107 bytes
        self.temp_dir = tempfile.mkdtemp(prefix="dsr-", dir=temp_root)
        self.tag = uuid.uuid4().hex
        self.gcs_port, self.dashboard_port = free_port(), free_port()
        # every other port a head binds by default at a fixed number (the job agent's 52365, Ray
        # client's 10001) or per agent: a second head on the same machine (another test worker,
        # another user's run) would lose its job agent ("No available agent to submit job")
        self.agent_ports = {flag: free_port() for flag in AGENT_PORT_FLAGS}
        self.proc: subprocess.Popen | None = None
        self.log_path = Path(self.temp_dir) / "head.log"

    @property
    def gcs_address(self) -> str:
        return f"127.0.0.1:{self.gcs_port}"

    @property
    def dashboard_url(self) -> str:
        return f"http://127.0.0.1:{self.dashboard_port}"

    def start(self, timeout: float = 120.0) -> "LocalHead":
        ray_bin = shutil.which("ray") or str(Path(sys.executable).with_name("ray"))
        cmd = [ray_bin, "start", "--head", "--block", "--node-ip-address=127.0.0.1", f"--port={self.gcs_port}",
               "--dashboard-host=127.0.0.1", f"--dashboard-port={self.dashboard_port}", "--include-dashboard=true",
               f"--num-cpus={self.num_cpus}", f"--temp-dir={self.temp_dir}", "--disable-usage-stats",
               *(f"--{flag}={port}" for flag, port in self.agent_ports.items())]
        env = {**self.env, TAG_ENV: self.tag}
        env[START_WAIT_ENV] = str(start_wait_s(env))   # a busy host's head registers late
        with open(self.log_path, "wb") as log:
            self.proc = subprocess.Popen(cmd, env=env, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                         start_new_session=True)
        try:
            deadline = time.monotonic() + timeout
            while True:
                if self.proc.poll() is not None:
                    raise ClusterError(f"ray start exited with {self.proc.returncode}: {self.log_tail()}")
                try:
                    job_client(self.dashboard_url, timeout=1.0).list_jobs()
                    return self
                except ClusterError:
                    if time.monotonic() > deadline:
                        raise ClusterError(f"dashboard not up after {timeout:.0f} s: {self.log_tail()}") from None
                    time.sleep(0.5)
        except BaseException:
            self.stop()
            raise

    def log_tail(self, n: int = 3000) -> str:
        try:
            return self.log_path.read_text(errors="replace")[-n:]
        except OSError:
            return ""

    def stop(self) -> list[int]:
        """Kill the head's processes by id; returns the stragglers that needed a kill of their own."""
        if self.proc is None:
            return []
        killed = kill_tree(self.proc.pid, self.tag, grace_s=2.0)
        with contextlib.suppress(Exception):
            self.proc.wait(timeout=10)
        self.proc = None
        shutil.rmtree(self.temp_dir, ignore_errors=True)
        return killed

    def __enter__(self) -> "LocalHead":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


# ------------------------------------------------------------- an embedded Ray, after its driver
#
# `ray.init(address="local")` starts gcs, raylet, dashboard, ... as children of the driver; they
# share its fate, but the raylet's own children (ray::DashboardAgent, ray::RuntimeEnvAgent) outlive
# a SIGKILLed driver, reparented to init, with no session name in their command line. So before
# starting one, the driver tags the environment every Ray process inherits (EMBED_ENV=<uuid>) and
# records the tag with its own pid and start time in a state file of ours. The next run ends the
# tagged processes of every recorded session whose driver is gone, by pid: never a live session's,
# never a `ray start` cluster's (not tagged so), never by name.

EMBED_ENV = "DUPLEXSYNTH_EMBEDDED_RAY"
STATE_DIR_ENV = "DUPLEXSYNTH_RAY_STATE_DIR"   # tests: a record folder of their own

# Ray's own setting (C++ RayConfig, read by the driver, GCS and raylet): how long the driver waits
# for the new node to register. Ray's default (10 s per try, 30 s in all in ray/_private/node.py)
# fails on a busy host ("The current node timed out during startup"); 240 s passed at load 30 on
# 2 cores. It is only an upper bound: an idle host starts in a second or two.
START_WAIT_ENV = "RAY_raylet_start_wait_time_s"
START_WAIT_DEFAULT_S = 240
START_TIMEOUT_MARKS = ("timed out during startup", "node registration may not be complete")


def embedded_state_dir() -> Path:
    """Our per-user folder of embedded-session records (not Ray's /tmp/ray, which we never touch)."""
    override = os.environ.get(STATE_DIR_ENV)
    return Path(override) if override else Path(tempfile.gettempdir()) / f"duplexsynth-ray-{os.getuid()}"


def _own_dir(path: Path) -> bool:
    """Create `path` (0700) if needed; True only when it is a real folder owned by us, private."""
    try:
        with contextlib.suppress(FileExistsError):
            path.mkdir(mode=0o700)
        st = os.lstat(path)
    except OSError:
        return False
    return stat.S_ISDIR(st.st_mode) and st.st_uid == os.getuid() and not st.st_mode & 0o022


def _pid_namespace() -> str:
    try:
        return os.readlink("/proc/self/ns/pid")
    except OSError:
        return ""


@dataclass
class EmbeddedSession:
    """The record of one embedded Ray: its tag, and the driver that owns it."""
    tag: str
    driver_pid: int
    driver_start: int
    pid_ns: str
    path: Path

    def driver_alive(self) -> bool:
        return _alive(self.driver_pid, self.driver_start)


def _read_session(path: Path) -> EmbeddedSession | None:
    try:
        d = json.loads(path.read_text())
        return EmbeddedSession(str(d["tag"]), int(d["driver_pid"]), int(d["driver_start"]), str(d["pid_ns"]), path)
    except (OSError, ValueError, KeyError, TypeError):
        return None


@contextlib.contextmanager
def embedded_ray_tag(state_dir: Path | None = None):
    """Tag the Ray processes started inside this block and record them with this driver's pid.

    Yields the tag. The environment change lasts only for the block (Ray's processes copy it when
    they start); the record stays: it is removed by the first run that finds its driver gone.
    """
    state_dir = state_dir or embedded_state_dir()
    tag = uuid.uuid4().hex
    me = _proc_stat(os.getpid())
    if me is not None and _own_dir(state_dir):
        rec = {"tag": tag, "driver_pid": os.getpid(), "driver_start": me[2], "pid_ns": _pid_namespace(),
               "created_unix": int(time.time())}
        tmp = state_dir / f".{tag}.tmp"
        with contextlib.suppress(OSError):    # best effort: a full /tmp must not stop the run
            tmp.write_text(json.dumps(rec))
            tmp.replace(state_dir / f"{tag}.json")
    previous = os.environ.get(EMBED_ENV)
    os.environ[EMBED_ENV] = tag
    try:
        yield tag
    finally:
        if previous is None:
            os.environ.pop(EMBED_ENV, None)
        else:
            os.environ[EMBED_ENV] = previous


def terminate(pids: list[int], grace_s: float = 3.0, timeout_s: float = 10.0) -> list[int]:
    """SIGTERM `pids`, SIGKILL those still running after `grace_s`; returns the ones still alive after
    `timeout_s` more (none, normally). A pid is followed by its start time, so a reused one is spared."""
    procs: dict[int, int] = {}
    for p in pids:
        st = _proc_stat(p)
        if st is not None:
            procs[p] = st[2]
    for sig, wait_s in ((signal.SIGTERM, grace_s), (signal.SIGKILL, timeout_s)):
        for p, t in procs.items():
            if _alive(p, t):
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.kill(p, sig)
        deadline = time.monotonic() + wait_s
        while time.monotonic() < deadline and any(_alive(p, t) for p, t in procs.items()):
            time.sleep(0.1)
    return [p for p, t in procs.items() if _alive(p, t)]


def reap_orphaned_embedded(state_dir: Path | None = None, grace_s: float = 3.0) -> dict[int, list[int]]:
    """End the processes of recorded embedded Ray sessions whose driver is gone.

    Returns {dead driver pid: the pids ended}. Records of live drivers are left alone; records of
    another pid namespace (a container sharing /tmp) too, as their pids mean nothing here. A record
    is removed once none of its processes is left.
    """
    state_dir = state_dir or embedded_state_dir()
    if not state_dir.is_dir() or not _own_dir(state_dir):
        return {}
    ns = _pid_namespace()
    dead: list[EmbeddedSession] = []
    for path in sorted(state_dir.glob("*.json")):
        sess = _read_session(path)
        if sess is None:
            with contextlib.suppress(OSError):
                path.unlink()          # ours, written atomically: unreadable means garbage
            continue
        if sess.pid_ns == ns and not sess.driver_alive():
            dead.append(sess)
    if not dead:
        return {}
    found = tagged_by(EMBED_ENV, {s.tag for s in dead})
    ended: dict[int, list[int]] = {}
    for sess in dead:
        pids = found.get(sess.tag, [])
        left = terminate(pids, grace_s=grace_s) if pids else []
        if pids:
            ended[sess.driver_pid] = [p for p in pids if p not in left]
        if not left:
            with contextlib.suppress(OSError):
                sess.path.unlink()
    return ended


# ---------------------------------------------------------- starting an embedded Ray on a busy host

def start_wait_s(env: dict[str, str] | None = None) -> int:
    """The start-up wait in effect: $RAY_raylet_start_wait_time_s when set (a whole number of
    seconds; Ray aborts the process on anything else, so it is refused here), else ours."""
    env = os.environ if env is None else env
    raw = env.get(START_WAIT_ENV)
    if raw is None:
        return START_WAIT_DEFAULT_S
    if not raw.strip().isdigit() or not 0 < int(raw) < 2**32:
        raise ClusterError(f"{START_WAIT_ENV}={raw!r}: give a whole number of seconds above 0 "
                           f"(default {START_WAIT_DEFAULT_S})")
    return int(raw)


def apply_start_wait() -> int:
    """Give this process (and the Ray processes it starts) the start-up wait: the user's, or ours
    when none is set. Ray caches its config at import, so a loaded Ray re-reads it."""
    wait = start_wait_s()
    os.environ[START_WAIT_ENV] = str(wait)
    if "ray" in sys.modules:
        with contextlib.suppress(Exception):
            from ray._raylet import Config
            Config.initialize("")
    return wait


def is_startup_timeout(err: BaseException) -> bool:
    """Ray's "the node did not register in time" (a slow host), not a bad argument or a crash."""
    text = str(err).lower()
    return any(mark in text for mark in START_TIMEOUT_MARKS)


def start_local_ray(init: Any, tag: str | None, stream: Any = None) -> None:
    """Run `init` (an embedded ``ray.init``) with a start-up wait fit for a busy host; after Ray's
    start-up timeout, end what the failed try had started (its processes carry EMBED_ENV=`tag`),
    say so in one line and try once more. A second timeout is one line naming the setting to raise."""
    import ray
    stream = stream or sys.stderr
    wait = apply_start_wait()
    for attempt in (1, 2):
        try:
            init()
            return
        except Exception as err:  # noqa: BLE001 - Ray raises a bare Exception for this
            if not is_startup_timeout(err):
                raise
            with contextlib.suppress(Exception):
                ray.shutdown()
            if tag is not None:
                terminate(tagged_processes(tag, EMBED_ENV), grace_s=2.0)
            if attempt == 2:
                raise ClusterError(f"Ray did not start within {wait} s, twice (a busy host?): set {START_WAIT_ENV} "
                                   f"above {wait} (seconds) or rerun when the host is less loaded") from None
            print(f"note: Ray did not start within {wait} s ({START_WAIT_ENV}; a busy host?): ended what it had "
                  "started, trying once more", file=stream, flush=True)
