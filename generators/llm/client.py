"""A small OpenAI-compatible chat-completions client (vLLM, SGLang, hosted APIs) on the standard library.

Bounded by construction: every request has a deadline (`timeout_s`, the whole request: connect,
headers and body, so a server that drips a byte a second is cut off), a body is read to at most
MAX_LLM_REPLY_BYTES, 429 / 5xx / network errors are retried at most
`max_http_retries` times with exponential backoff, and anything else fails at once, so a slow or
dead endpoint makes a trajectory fail explicitly instead of hanging the job. The API key is read from
the environment at call time and lives only in the request header.
"""
from __future__ import annotations

import http.client
import json
import os
import socket
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Mapping
from contextlib import AbstractContextManager, nullcontext
from dataclasses import asdict, dataclass, fields
from typing import Any

from schemas.bounds import MAX_LLM_REPLY_BYTES
from schemas.config import ScriptSourceConfig

MAX_BACKOFF_S = 30.0
MAX_RAW_CHARS = 4000   # of a response body quoted in an error
# A job-wide bound on requests in flight: called around each HTTP request (never around a backoff
# sleep), it returns a context manager that holds one permit. jobs/llm_gate.py makes one from a Ray
# actor (generators/ cannot import Ray); None: no bound beyond the shard task's script threads.
CallGate = Callable[[], AbstractContextManager[Any]]


@dataclass
class LLMFigures:
    """What a job's LLM use came to: requests sent (retries included), those that gave no completion
    (429, 5xx, 4xx, timeout, a garbled body), and responses read from the cache instead of asked for.
    Summed per shard task and on the driver; `text` is the tail of the progress line."""

    calls: int = 0
    errors: int = 0
    cache_hits: int = 0

    def add(self, other: "LLMFigures | Mapping[str, int]") -> None:
        more = asdict(other) if isinstance(other, LLMFigures) else other
        for f in fields(self):
            setattr(self, f.name, getattr(self, f.name) + int(more.get(f.name, 0)))

    def text(self, elapsed_s: float) -> str:
        return (f", llm {self.calls} calls ({self.calls / max(elapsed_s, 1e-9):.2f}/s), {self.errors} failed, "
                f"{self.cache_hits} cache hits")


class LLMCallError(RuntimeError):
    """The endpoint gave no usable response; `raw` is the last body it sent (may be empty)."""

    def __init__(self, message: str, raw: str = ""):
        super().__init__(f"{message}; raw response: {raw[:MAX_RAW_CHARS]!r}" if raw else message)
        self.raw = raw


class _Deadline:
    """A whole-request deadline: when it passes, every socket the request opened is shut down, so
    a read blocked on a server that sends a byte at a time returns at once (a socket timeout only
    bounds each read)."""

    def __init__(self, seconds: float):
        self.expired = False
        self._socks: list[socket.socket] = []
        self._lock = threading.Lock()
        self._timer = threading.Timer(seconds, self._expire)
        self._timer.daemon = True

    def __enter__(self) -> _Deadline:
        self._timer.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._timer.cancel()

    def watch(self, sock: socket.socket) -> None:
        with self._lock:
            self._socks.append(sock)
            if self.expired:
                _shut(sock)

    def _expire(self) -> None:
        with self._lock:
            self.expired = True
            for sock in self._socks:
                _shut(sock)

    def opener(self) -> urllib.request.OpenerDirector:
        """A urllib opener whose HTTP(S) connections register their sockets with this deadline."""
        deadline = self

        class Conn(http.client.HTTPConnection):
            def connect(self) -> None:
                super().connect()
                deadline.watch(self.sock)

        class TLSConn(http.client.HTTPSConnection):
            def connect(self) -> None:
                super().connect()
                deadline.watch(self.sock)

        class Handler(urllib.request.HTTPHandler):
            def do_open(self, http_class: Any, req: urllib.request.Request, **kw: Any) -> Any:
                return super().do_open(Conn, req, **kw)

        class TLSHandler(urllib.request.HTTPSHandler):
            def do_open(self, http_class: Any, req: urllib.request.Request, **kw: Any) -> Any:
                return super().do_open(TLSConn, req, **kw)

        return urllib.request.build_opener(Handler(), TLSHandler())


def _shut(sock: socket.socket) -> None:
    try:
        sock.shutdown(socket.SHUT_RDWR)
    except OSError:   # already closed
        pass


def _read_bounded(resp: Any) -> str:
    """The body, refused past MAX_LLM_REPLY_BYTES (a reply of max_tokens tokens is far smaller)."""
    blob = resp.read(MAX_LLM_REPLY_BYTES + 1)
    if len(blob) > MAX_LLM_REPLY_BYTES:
        raise _TooLarge()
    return blob.decode("utf-8", "replace")


class _TooLarge(Exception):
    pass


def _refuses_response_format(code: int, body: str) -> bool:
    """A 400/422 that names response_format / json_schema: the server has no structured output."""
    return code in (400, 422) and any(k in body.lower() for k in ("response_format", "json_schema", "guided"))


class ChatClient:
    """POST {base_url}/chat/completions for one run's `script_source`. `sleep` is injectable for tests."""

    def __init__(self, src: ScriptSourceConfig, sleep: Callable[[float], None] = time.sleep,
                 gate: CallGate | None = None):
        if src.kind != "llm" or src.base_url is None or src.model is None:
            raise ValueError("ChatClient needs a script_source of kind llm with base_url and model")
        self.src = src
        self.sleep = sleep
        self.gate: CallGate = gate if gate is not None else nullcontext
        self.structured = src.structured_output != "off"   # turned off once the server refuses it (auto)
        self.calls = 0    # HTTP requests sent, retries included
        self.errors = 0   # of those, the ones that gave no completion (429, 5xx, 4xx, timeout, a garbled body)
        self._count = threading.Lock()

    def _counted(self, field: str) -> None:
        with self._count:
            setattr(self, field, getattr(self, field) + 1)

    def _headers(self) -> dict[str, str]:
        headers = {"Content-Type": "application/json"}
        env = self.src.api_key_env
        if env is not None:
            key = os.environ.get(env)
            if not key:
                raise LLMCallError(f"script_source.api_key_env: environment variable {env} is not set")
            headers["Authorization"] = f"Bearer {key}"
        return headers

    def _body(self, messages: list[dict[str, str]], schema_name: str, schema: dict[str, Any], seed: int) -> bytes:
        body: dict[str, Any] = {"model": self.src.model, "messages": messages, "temperature": self.src.temperature,
                                "max_tokens": self.src.max_tokens, "seed": seed}
        if self.structured:
            body["response_format"] = {"type": "json_schema",
                                       "json_schema": {"name": schema_name, "schema": schema, "strict": True}}
        return json.dumps(body).encode()

    def _post(self, req: urllib.request.Request) -> tuple[int, str]:
        """(HTTP status, body) of one request, all of it (an error's body too) within timeout_s."""
        deadline = _Deadline(self.src.timeout_s)
        with self.gate(), deadline:
            try:
                resp = deadline.opener().open(req, timeout=self.src.timeout_s)
            except urllib.error.HTTPError as err:
                status, raw = err.code, err.read(MAX_RAW_CHARS).decode("utf-8", "replace")
            except OSError:
                if deadline.expired:
                    raise TimeoutError(self._late()) from None
                raise
            else:
                with resp:
                    try:
                        status, raw = 200, _read_bounded(resp)
                    except (OSError, http.client.HTTPException):
                        if deadline.expired:
                            raise TimeoutError(self._late()) from None
                        raise
        if deadline.expired:   # the socket was shut mid-body: what came is not the whole reply
            raise TimeoutError(self._late())
        return status, raw

    def _late(self) -> str:
        return f"no whole reply within timeout_s {self.src.timeout_s:g} s (the deadline of one request)"

    def complete(self, messages: list[dict[str, str]], schema_name: str, schema: dict[str, Any], seed: int) -> str:
        """The assistant message text of one completion (what the model wrote, unparsed)."""
        url = f"{self.src.base_url}/chat/completions"
        failures = 0
        while True:
            req = urllib.request.Request(url, data=self._body(messages, schema_name, schema, seed),
                                         headers=self._headers(), method="POST")
            self._counted("calls")
            try:
                status, raw = self._post(req)
            except _TooLarge:
                self._counted("errors")
                raw, why = "", f"a reply larger than {MAX_LLM_REPLY_BYTES:,} bytes (MAX_LLM_REPLY_BYTES)"
            except (urllib.error.URLError, TimeoutError, ConnectionError, http.client.HTTPException, OSError) as err:
                self._counted("errors")
                raw, why = "", f"{type(err).__name__}: {getattr(err, 'reason', err)}"
            else:
                if status == 200:
                    try:
                        return str(json.loads(raw)["choices"][0]["message"]["content"] or "")
                    except (ValueError, KeyError, IndexError, TypeError):
                        self._counted("errors")
                        why = "a body that is not a chat completion"
                else:
                    self._counted("errors")
                    if self.structured and self.src.structured_output == "auto" and _refuses_response_format(status, raw):
                        self.structured = False   # parse and repair from here on (the schema is in the prompt)
                        continue
                    if status != 429 and status < 500:
                        raise LLMCallError(f"{url} answered HTTP {status}", raw) from None
                    why = f"HTTP {status}"
            failures += 1
            if failures > self.src.max_http_retries:
                raise LLMCallError(f"{url}: {why}, {failures} time(s) (max_http_retries {self.src.max_http_retries})",
                                   raw)
            self.sleep(min(self.src.backoff_s * 2 ** (failures - 1), MAX_BACKOFF_S))
