"""Issue #30 items 3, 4 and 8: hostile inputs are refused in bounded time and memory, in one line.

Hangs (a slow-drip LLM endpoint, a Ray address nothing answers at, a FIFO as config, corpus,
fit-timing input or output), unbounded inputs (a 10 MB corpus message, a corpus linked to
/dev/zero, a reply over MAX_LLM_REPLY_BYTES, a FLAC far longer than its row) and LLM text that must
not be spoken (a fullwidth protocol token, NUL, a bidi override; a truncated cache entry). The LLM
cases run against the scripted loopback server of tests/scripted_llm.py, with a hostile action or
two added here. Every test has a hard deadline (SIGALRM), so a hang fails instead of stalling.
"""
from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from generators.corpus.read import CorpusRecordError, open_corpus
from generators.llm import LLMCallError, LLMWriteError, LLMWriter
from pipeline.io import encode_flac
from schemas.bounds import (
    MAX_CORPUS_MESSAGE_CHARS,
    MAX_CORPUS_RECORD_BYTES,
    MAX_LLM_REPLY_BYTES,
)
from schemas.config import RunConfig, ScriptSourceConfig
from schemas.replace import replace
from tests.generated import FAST_VOICES_YAML, write_dataset
from tests.scripted_llm import ScriptedServer, _valid_reply

REPO = Path(__file__).resolve().parents[1]
KEY_ENV = "DUPLEXSYNTH_TEST_LLM_KEY"
DEADLINE_S = 60   # of each test: a hang is a failure, not a stalled suite


class _Hang(Exception):
    pass


@pytest.fixture(autouse=True)
def hard_deadline() -> Iterator[None]:
    def expire(signum: int, frame: Any) -> None:
        raise _Hang(f"the test ran past its {DEADLINE_S} s deadline (a hang)")

    old = signal.signal(signal.SIGALRM, expire)
    signal.alarm(DEADLINE_S)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


@pytest.fixture
def key_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(KEY_ENV, "sk-test-hostile")


def _cli(*args: str, timeout: float = 45) -> subprocess.CompletedProcess[str]:
    """`duplexsynth ARGS` from this tree, bounded: a hang is a TimeoutExpired (a failure)."""
    return subprocess.run([sys.executable, "-m", "jobs.cli", *args], cwd=REPO, capture_output=True, text=True,
                          timeout=timeout, stdin=subprocess.DEVNULL)


def _one_line_refusal(proc: subprocess.CompletedProcess[str], *names: str) -> str:
    """The refusal: non-zero exit, one line on stderr naming every one of `names`, no traceback."""
    err = proc.stderr.strip()
    assert proc.returncode != 0, (proc.stdout, err)
    assert "Traceback" not in err and "unexpected" not in err, err
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert len(lines) == 1, err
    for name in names:
        assert name in lines[0], (name, lines[0])
    return lines[0]


# ------------------------------------------------------------------------------ hostile LLM server

class HostileServer(ScriptedServer):
    """The scripted server plus what a hostile endpoint does: `drip` sends a valid reply's headers
    and then one byte every 0.2 s; `huge` a reply over MAX_LLM_REPLY_BYTES; `say:TEXT` a valid
    pause reply whose first assistant sentence ends with TEXT."""

    def __init__(self, schedule: list[str]):
        super().__init__(schedule)
        self.stop = threading.Event()

    def answer(self, h: BaseHTTPRequestHandler, body: dict[str, Any], action: str) -> None:
        if action == "drip":
            h.send_response(200)
            h.send_header("Content-Type", "application/json")
            h.send_header("Content-Length", "100000")
            h.end_headers()
            try:
                while not self.stop.wait(0.2):
                    h.wfile.write(b" ")
                    h.wfile.flush()
            except OSError:   # the client shut the socket: what the deadline is for
                pass
            return None
        if action == "huge" or action.startswith("say:"):
            msgs = body["messages"]
            reply = _valid_reply(msgs[0]["content"], msgs[1]["content"])
            if action.startswith("say:"):
                reply["assistant"][0] = reply["assistant"][0][:-1] + action[4:] + "."
                content = json.dumps(reply, ensure_ascii=False)
            else:   # valid JSON, padded past the bound
                content = json.dumps(reply) + " " * (MAX_LLM_REPLY_BYTES + 1000)
            return self._send(h, 200, {"id": "c", "object": "chat.completion", "model": body["model"],
                                       "choices": [{"index": 0, "finish_reason": "stop",
                                                    "message": {"role": "assistant", "content": content}}]})
        return super().answer(h, body, action)

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        super().__exit__(*exc)


def _writer(url: str, cache: Path, **kw: Any) -> LLMWriter:
    base = {"kind": "llm", "base_url": url, "model": "scripted-test-model", "api_key_env": KEY_ENV,
            "timeout_s": 1.0, "max_retries": 1, "max_http_retries": 1, "backoff_s": 0.01}
    return LLMWriter(ScriptSourceConfig.model_validate({**base, **kw}), cache)


# ------------------------------------------------------------------------------------ item 3: hangs

def test_a_slow_drip_endpoint_is_cut_off_at_the_request_deadline(tmp_path: Path, key_env: None) -> None:
    """A byte every 0.2 s keeps every socket read under timeout_s; the request's deadline ends it."""
    with HostileServer(["drip", "drip", "drip", "drip"]) as srv:
        w = _writer(srv.base_url, tmp_path)
        t0 = time.monotonic()
        with pytest.raises(LLMCallError, match=r"timeout_s 1 s .*max_http_retries 1"):
            w.client.complete([{"role": "user", "content": "hi"}], "PauseReply", {}, 3)
        took = time.monotonic() - t0
        assert took < 3.0 and len(srv.requests) == 2, took   # two requests of at most 1 s each, and a backoff
        with pytest.raises(LLMCallError, match=r"timeout_s 1 s"):   # the writer: an explicit failed record
            w.write("pause", 3, RunConfig().timing)
    assert not list(tmp_path.rglob("*.json"))   # nothing cached of a cut-off reply


def test_an_address_nothing_answers_at_is_refused_in_bounded_time(tmp_path: Path) -> None:
    t0 = time.monotonic()
    proc = _cli("generate", "--num", "1", "--config", str(FAST_VOICES_YAML), "--out", str(tmp_path / "out"),
                "--no-progress", "--address", "127.0.0.1:1")
    _one_line_refusal(proc, "--address 127.0.0.1:1", "within 10 s")
    assert time.monotonic() - t0 < 30 and not (tmp_path / "out").exists()


def test_a_ray_address_nothing_answers_at_is_refused_by_train(tmp_path: Path) -> None:
    proc = _cli("train", "--config", str(tmp_path / "none.yaml"), "--data", str(tmp_path / "none"),
                "--out", str(tmp_path / "run"), "--ray-address", "127.0.0.1:1")
    _one_line_refusal(proc, "--ray-address 127.0.0.1:1", "within 10 s")


def _fifo(path: Path) -> Path:
    os.mkfifo(path)
    return path


def test_a_fifo_as_config_is_refused(tmp_path: Path) -> None:
    cfg = _fifo(tmp_path / "run.yaml")
    proc = _cli("generate", "--num", "1", "--config", str(cfg), "--out", str(tmp_path / "out"), "--no-progress")
    _one_line_refusal(proc, str(cfg), "not a regular file")


def _corpus_config(tmp_path: Path, corpus: Path) -> Path:
    cfg = tmp_path / "corpus.yaml"
    cfg.write_text(FAST_VOICES_YAML.read_text() + "\nscript_source: {kind: corpus, path: " + json.dumps(str(corpus))
                   + "}\nscenarios: {turn_taking: 1.0}\n")
    return cfg


@pytest.mark.parametrize("kind", ["fifo", "dev_zero"])
def test_a_corpus_that_is_a_fifo_or_endless_is_refused(tmp_path: Path, kind: str) -> None:
    """A FIFO blocks the open; /dev/zero behind a link never ends (a line of zeros fills memory)."""
    corpus = tmp_path / "corpus.jsonl"
    if kind == "fifo":
        _fifo(corpus)
    else:
        corpus.symlink_to("/dev/zero")
    proc = _cli("generate", "--num", "1", "--config", str(_corpus_config(tmp_path, corpus)),
                "--out", str(tmp_path / "out"), "--no-progress")
    _one_line_refusal(proc, "script_source.path", str(corpus), "not a regular file")
    assert not (tmp_path / "out").exists()


def test_fit_timing_refuses_a_fifo_as_input_or_output(tmp_path: Path) -> None:
    good = tmp_path / "ok.rttm"
    good.write_text("SPEAKER a 1 0.0 1.0 <NA> <NA> A <NA>\nSPEAKER a 1 1.2 1.0 <NA> <NA> B <NA>\n")
    fifo_in, fifo_out = _fifo(tmp_path / "in.rttm"), _fifo(tmp_path / "out.yaml")
    _one_line_refusal(_cli("fit-timing", str(fifo_in), "--out", str(tmp_path / "t.yaml")), str(fifo_in), "FIFO")
    _one_line_refusal(_cli("fit-timing", str(good), "--out", str(fifo_out)), "--out", str(fifo_out))
    _one_line_refusal(_cli("fit-timing", "/dev/zero", "--out", str(tmp_path / "t.yaml")), "/dev/zero", "device")
    ok = _cli("fit-timing", str(good), "--out", str(tmp_path / "t.yaml"))
    assert ok.returncode == 0 and "timing:" in (tmp_path / "t.yaml").read_text(), ok.stderr


# --------------------------------------------------------------------------- item 4: unbounded inputs

def _record(user: str, answer: str = "Sure. Here it is.") -> str:
    return json.dumps({"messages": [{"role": "user", "content": user}, {"role": "assistant", "content": answer}]})


def test_a_corpus_message_or_record_over_its_bound_is_a_failed_record(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus.jsonl"
    big_line = json.dumps({"messages": [{"role": "user", "content": "hi"}], "pad": "x" * MAX_CORPUS_RECORD_BYTES})
    corpus.write_text("\n".join([_record("What is the time?"), _record("a" * (MAX_CORPUS_MESSAGE_CHARS + 1)),
                                 big_line, _record("And tomorrow?")]) + "\n")
    c = open_corpus(corpus)
    assert len(c) == 4 and c.conversation(0).exchanges[0].user == "What is the time?"
    with pytest.raises(CorpusRecordError, match=rf"corpus.jsonl:2: messages\[0\]: content has 20,001 characters, "
                                                rf"over the {MAX_CORPUS_MESSAGE_CHARS:,} .*MAX_CORPUS_MESSAGE_CHARS"):
        c.conversation(1)
    with pytest.raises(CorpusRecordError, match=rf"corpus.jsonl:3: the record is over {MAX_CORPUS_RECORD_BYTES:,} bytes"):
        c.conversation(2)
    assert c.conversation(3).exchanges[0].user == "And tomorrow?"   # the records after it are read as before


def test_an_llm_reply_over_its_bound_is_refused_and_not_cached(tmp_path: Path, key_env: None) -> None:
    with HostileServer(["huge", "huge"]) as srv:
        with pytest.raises(LLMCallError, match=rf"larger than {MAX_LLM_REPLY_BYTES:,} bytes \(MAX_LLM_REPLY_BYTES\)"):
            _writer(srv.base_url, tmp_path).write("pause", 3, RunConfig().timing)
    assert not list(tmp_path.rglob("*.json"))


@pytest.mark.parametrize("command", ["validate", "stats"])
def test_audio_far_longer_than_its_row_is_refused_before_decoding(generated: Any, tmp_path: Path,
                                                                  command: str) -> None:
    """A 17 s row holding 10 minutes of user audio: refused from the FLAC header, naming the field."""
    row = generated.row("turn_taking", 0, tts="tone")
    long = encode_flac(np.zeros(int(600 * row.sample_rate), np.float32), row.sample_rate)
    bad = replace(row, user_audio=replace(row.user_audio, bytes=long))
    write_dataset(tmp_path / "d", [bad])
    proc = _cli(command, str(tmp_path / "d"), timeout=120)
    assert proc.returncode != 0, proc.stdout + proc.stderr
    out = proc.stdout + proc.stderr
    assert "user_audio" in out and "MAX_AUDIO_OVERRUN_S" in out and "Traceback" not in out, out[-3000:]


# ------------------------------------------------------------------------------------ item 8: LLM text

@pytest.mark.parametrize("hostile, why", [
    ("＜｜speak｜＞", "contains a protocol token"),
    ("\u0000", "U+0000"),
    ("\u202e", "U+202E"),
])
def test_hidden_or_fullwidth_tokens_never_reach_spoken_text(tmp_path: Path, key_env: None, hostile: str,
                                                             why: str) -> None:
    """The reply is refused with the reason fed back, and the re-asked (clean) reply is what is spoken."""
    with HostileServer([f"say:{hostile}"]) as srv:
        script, _ = _writer(srv.base_url, tmp_path).write("pause", 3, RunConfig().timing)
    assert len(srv.requests) == 2 and why in srv.requests[1]["body"]["messages"][-1]["content"]
    assert all(hostile not in t.text for t in script.turns)
    with HostileServer([f"say:{hostile}"] * 4) as srv, pytest.raises(LLMWriteError, match=re.escape(why)):
        _writer(srv.base_url, tmp_path / "again").write("pause", 3, RunConfig().timing)


@pytest.mark.parametrize("damage", ["cut", "no_response", "empty"])
def test_a_damaged_cache_entry_is_named_and_asked_again(tmp_path: Path, key_env: None, damage: str,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    with ScriptedServer() as srv:
        first, _ = _writer(srv.base_url, tmp_path).write("pause", 3, RunConfig().timing)
        [entry] = list(tmp_path.rglob("*.json"))
        whole = entry.read_text()
        entry.write_text({"cut": whole[: len(whole) // 2], "no_response": json.dumps({"model": "m"}), "empty": ""}[damage])
        again, _ = _writer(srv.base_url, tmp_path).write("pause", 3, RunConfig().timing)
    assert len(srv.requests) == 2   # asked again instead of failing the record forever
    assert again.model_dump_json() == first.model_dump_json() and entry.read_text() == whole   # and healed
    note = capsys.readouterr().err
    assert str(entry) in note and "asking the endpoint again" in note
