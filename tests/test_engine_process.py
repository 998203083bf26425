"""An engine worker that stops answering is killed by its pid, the request fails with a message that
says so, and the next request gets a fresh worker (pipeline/tts/worker.py EngineProcess)."""
from __future__ import annotations

import os
import textwrap
import time
from pathlib import Path

import numpy as np
import pytest

from pipeline.tts.worker import EngineProcess

# The worker protocol (one JSON line in, one JSON line out, then 4*n bytes of float32), with a request
# that makes it hang the way a stuck C engine does: it never replies.
FAKE_WORKER = textwrap.dedent('''
    import json, sys, time
    import numpy as np
    for line in sys.stdin.buffer:
        req = json.loads(line)
        if req.get("hang"):
            time.sleep(3600)
        audio = np.full(int(req["n"]), 0.25, dtype="<f4")
        sys.stdout.buffer.write(json.dumps({"ok": True, "n": len(audio)}).encode() + b"\\n")
        sys.stdout.buffer.write(audio.tobytes())
        sys.stdout.buffer.flush()
''')


START_S = 120.0   # a (re)started worker's first request: its start, on however busy a host
TIMEOUT_S = 1.0   # the watchdog under test, once the worker is up


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


@pytest.fixture
def engine(tmp_path: Path):
    script = tmp_path / "fake_worker.py"
    script.write_text(FAKE_WORKER)
    # A worker's start (python + numpy) counts against its first request's timeout: at load 30 on
    # 2 cores it took over 1 s. So each test starts its worker under a wait no load reaches and
    # sets the 1 s it tests once the worker is up.
    eng = EngineProcess(script, "the fake worker", timeout_s=START_S)
    yield eng
    eng.close()


def test_a_hung_worker_is_killed_and_the_next_request_gets_a_new_one(engine):
    head, audio = engine.ask({"n": 5})
    assert head["ok"] and np.array_equal(audio, np.full(5, 0.25, np.float32))
    first = engine.proc.pid

    engine.timeout_s = TIMEOUT_S
    t0 = time.monotonic()
    with pytest.raises(RuntimeError, match=r"the fake worker died \(no reply in 1 s, killed\)"):
        engine.ask({"n": 5, "hang": True})
    assert time.monotonic() - t0 < 60          # the timeout (plus a kill on a busy host), not the hour the worker sleeps
    assert not _alive(first)                   # ended by its pid, and reaped
    assert engine.proc is None

    engine.timeout_s = START_S
    head, audio = engine.ask({"n": 3})         # a fresh worker answers
    assert head["ok"] and len(audio) == 3 and engine.proc.pid != first


def test_a_reply_within_the_timeout_is_not_cut(engine):
    """The watchdog is per request: many quick requests in a row take longer than one timeout in total."""
    engine.ask({"n": 1})                       # the worker is up
    engine.timeout_s = TIMEOUT_S
    t0 = time.monotonic()
    pid = None
    while time.monotonic() - t0 < 1.5:
        head, audio = engine.ask({"n": 16_000})
        assert head["ok"] and len(audio) == 16_000
        pid = pid or engine.proc.pid
        assert engine.proc.pid == pid          # never restarted
