"""The client side of an engine that runs in a process of its own (Piper, flite, RHVoice).

Why processes: an engine whose licence must stay at arm's length (Piper, GPL-3.0) or whose C
state must not be shared (flite draws from libc ``rand``) runs as a script with the same Python,
spoken to over stdin/stdout: one JSON request line, one JSON reply line, then ``4*n`` bytes of
little-endian float32 audio when the reply says ``"ok": true`` (``*_worker.py`` beside this file).

An :class:`EngineProcess` starts its worker lazily, once per OS process that uses it (a pickled
backend in a Ray worker starts its own), and ends it by its pid: on ``close()``, when the owner
is collected, or when this process exits (the worker reads EOF on its stdin and returns).

A request that gets no whole reply in ``timeout_s`` kills the worker by its pid and raises, so the
trajectory becomes a failed record and the next request starts a fresh worker: an engine stuck inside
its C code (seen once: RHVoice in ``HTS_Vocoder_synthesize`` for 17 minutes) must not hang a shard.
"""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import weakref
from pathlib import Path
from typing import IO, Any

import numpy as np

__all__ = ["EngineProcess", "NATIVE_WORKER", "NativeEngineBackend", "end_process"]

NATIVE_WORKER = Path(__file__).with_name("native_worker.py")   # hosts flite and RHVoice over their C APIs
# A line is synthesised in about a second on one core; two minutes is a stuck engine, not a slow one.
REPLY_TIMEOUT_S = 120.0


class EngineProcess:
    """One worker script's process for this OS process; calls are serialised by a lock."""

    def __init__(self, script: Path, what: str, timeout_s: float = REPLY_TIMEOUT_S) -> None:
        self.script = Path(script)
        self.what = what              # for messages: "the Piper worker"
        self.timeout_s = float(timeout_s)
        self._lock = threading.Lock()
        self.proc: subprocess.Popen[bytes] | None = None
        self._owner: int | None = None
        self._err: IO[bytes] | None = None

    def _running(self) -> subprocess.Popen[bytes]:
        """This process's worker, started on first use. Caller holds the lock."""
        if self.proc is not None and self._owner == os.getpid() and self.proc.poll() is None:
            return self.proc
        err = tempfile.TemporaryFile()
        proc = subprocess.Popen([sys.executable, str(self.script)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                stderr=err, env={**os.environ, "OMP_NUM_THREADS": "1"})
        self.proc, self._owner, self._err = proc, os.getpid(), err
        weakref.finalize(self, end_process, proc)
        return proc

    def ask(self, request: dict[str, Any]) -> tuple[dict[str, Any], np.ndarray | None]:
        """Send one request; (reply head, float32 audio or None when the reply is not ok).
        Raises RuntimeError (with the worker's stderr tail) when the worker died, or when no whole reply
        came in ``timeout_s`` (the worker is then killed; the next request starts a new one)."""
        with self._lock:
            proc = self._running()
            assert proc.stdin is not None and proc.stdout is not None
            why = ""
            expired = threading.Event()

            def expire() -> None:
                expired.set()
                _kill(proc)

            watchdog = threading.Timer(self.timeout_s, expire)
            watchdog.daemon = True
            watchdog.start()
            try:
                proc.stdin.write(json.dumps(request).encode() + b"\n")
                proc.stdin.flush()
                line = proc.stdout.readline()
                head = json.loads(line) if line else None
                audio = (np.frombuffer(_read_exact(proc.stdout, 4 * int(head["n"])), dtype="<f4")
                         if head and head.get("ok") else None)
            except (BrokenPipeError, OSError, ValueError) as err:
                head, audio, why = None, None, str(err)
            finally:
                watchdog.cancel()
            if expired.is_set():
                head, audio, why = None, None, f"no reply in {self.timeout_s:g} s, killed"
            if head is None:
                tail = ""
                if self._err is not None:
                    self._err.seek(0)
                    tail = self._err.read()[-800:].decode(errors="replace").strip()
                end_process(proc)
                self.proc = None
                raise RuntimeError(f"{self.what} died ({why or 'no reply'}): {tail}")
        return head, (np.asarray(audio, dtype=np.float32) if audio is not None else None)

    def close(self) -> None:
        """End this process's worker (by its pid); the next request starts a new one."""
        with self._lock:
            if self.proc is not None and self._owner == os.getpid():
                end_process(self.proc)
            self.proc = None


def _read_exact(stream: Any, n: int) -> bytes:
    data = bytearray()
    while len(data) < n:
        chunk = stream.read(n - len(data))
        if not chunk:
            raise OSError(f"worker reply cut short ({len(data)} of {n} bytes)")
        data += chunk
    return bytes(data)


def end_process(proc: subprocess.Popen[bytes]) -> None:
    """End one worker process by its pid: close its stdin (it exits), else kill it."""
    if proc.poll() is not None:
        return
    try:
        if proc.stdin is not None:
            proc.stdin.close()
        proc.wait(timeout=5)
    except (OSError, subprocess.TimeoutExpired):
        _kill(proc)


def _kill(proc: subprocess.Popen[bytes]) -> None:
    """SIGKILL one worker by its pid (a stuck engine does not read its stdin) and reap it."""
    try:
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=5)
    except (OSError, subprocess.TimeoutExpired):
        pass


class NativeEngineBackend:
    """What the backends hosted by ``native_worker.py`` share (flite, RHVoice): only their settings are
    pickled (each OS process starts its own worker), and a request is checked the same way before it
    is sent. A subclass names its engine, its voices and how to say it is not installed."""

    name: str = ""                 # the engine prefix of its voice ids ("flite" in "flite:slt")
    voices: tuple[str, ...] = ()
    label: str = ""                # for errors: "a flite", "an RHVoice"
    worker_name: str = ""          # "the flite worker"
    rate_range: tuple[int, int] = (80, 450)   # VoiceSpec.rate in wpm

    def __init__(self, target_rms_dbfs: float = -20.0, peak_limit: float = 0.9) -> None:
        self.target_rms_dbfs = float(target_rms_dbfs)
        self.peak_limit = float(peak_limit)
        self._engine = EngineProcess(NATIVE_WORKER, self.worker_name)

    def __getstate__(self) -> dict[str, Any]:
        return {"target_rms_dbfs": self.target_rms_dbfs, "peak_limit": self.peak_limit}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__init__(**state)  # type: ignore[misc]

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"

    def close(self) -> None:
        """End this process's worker (by its pid); the next synthesis starts a new one."""
        self._engine.close()

    def require_installed(self) -> None:
        """Raise the engine's own error when its library or voices are missing."""
        raise NotImplementedError

    def voice_of(self, text: str, voice: Any) -> str:
        """The engine's voice name for ``voice.name`` ("flite:slt" -> "slt"), after checking the request."""
        if not isinstance(text, str) or not text.strip():
            raise ValueError(f"text to synthesize is empty or whitespace only: {text!r}")
        engine, sep, name = voice.name.partition(":")
        if engine != self.name or not sep or name not in self.voices:
            raise ValueError(f"voice {voice.name!r} is not {self.label} voice (expected {self.name}:<{'|'.join(self.voices)}>)")
        lo, hi = self.rate_range
        if not lo <= voice.rate <= hi:
            raise ValueError(f"voice rate {voice.rate} wpm outside {lo}..{hi}")
        self.require_installed()
        return name
