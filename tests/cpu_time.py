"""CPU time, for speed checks that must hold on a busy host.

Wall-clock real-time factors grow with the host's load (at load 30 on 2 cores a process gets a
fifteenth of a core), so a test asserting one fails on a busy CI box while nothing got slower. The
CPU seconds a synthesis costs (the engine worker's plus ours) do not grow with load, and still grow
when the engine does more work per second of audio.
"""
from __future__ import annotations

import os
import time
from collections.abc import Callable
from typing import Any

CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


def process_cpu_s(pid: int) -> float:
    """User + system CPU seconds a live process has used (Linux /proc), all its threads included."""
    with open(f"/proc/{pid}/stat", "rb") as f:
        fields = f.read().rpartition(b")")[2].split()
    return (int(fields[11]) + int(fields[12])) / CLOCK_TICKS   # utime, stime (fields 14 and 15)


def engine_rtf(backend: Any, run: Callable[[], float]) -> tuple[float, float]:
    """(CPU, wall) seconds per audio second of `run()` (which returns the audio seconds it made) on
    a backend whose engine worker is already running (`backend._engine.proc`)."""
    pid = backend._engine.proc.pid
    worker0, ours0, wall0 = process_cpu_s(pid), time.process_time(), time.perf_counter()
    audio_s = run()
    assert backend._engine.proc is not None and backend._engine.proc.pid == pid, "the worker was restarted"
    cpu = process_cpu_s(pid) - worker0 + time.process_time() - ours0
    return cpu / audio_s, (time.perf_counter() - wall0) / audio_s
