"""The job-wide bound on LLM requests in flight (`script_source.max_concurrency`), as a Ray actor.

Each shard task writes several scripts at once (jobs/shards.py), so without a bound a job sends up
to that many requests per shard task running: a 500-CPU cluster would put thousands of requests on
an endpoint sized (or rate limited) for 16. The driver starts one small async actor per llm source with a bound; every request
of every shard task takes a permit from it first and gives it back when the response is read (never
during a backoff sleep, so a retrying worker does not hold a permit idle).

A permit is a lease: one not given back within `lease_s` (a worker killed mid-request) is reclaimed,
so a dead worker can slow the job for a lease but never hang it. generators/ cannot import Ray:
the client takes a plain `CallGate` (a context-manager factory), which `gate_of` builds from the actor.
"""
from __future__ import annotations

import asyncio
import itertools
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from generators.llm import CallGate
from schemas.config import LLM_KIND, RunConfig

LEASE_SLACK_S = 10.0   # beyond the request timeout (x2: urllib's timeout is per socket read)
MAX_WAIT_S = 1.0       # a waiter looks for expired leases at least this often


class Permits:
    """`limit` permits as leases: taken with a token, given back by it, reclaimed after `lease_s`."""

    def __init__(self, limit: int, lease_s: float):
        self.limit, self.lease_s = limit, lease_s
        self.held: dict[int, float] = {}   # token -> deadline
        self.tokens = itertools.count(1)
        self.peak = 0          # most permits held at once
        self.reclaimed = 0     # leases that ran out (their holder died or hung)

    def take(self, now: float) -> int | None:
        """A token, or None when every permit is held (after reclaiming leases past their deadline)."""
        for token in [t for t, deadline in self.held.items() if deadline <= now]:
            del self.held[token]
            self.reclaimed += 1
        if len(self.held) >= self.limit:
            return None
        token = next(self.tokens)
        self.held[token] = now + self.lease_s
        self.peak = max(self.peak, len(self.held))
        return token

    def give_back(self, token: int) -> None:
        self.held.pop(token, None)   # a reclaimed lease given back late: nothing to do

    def wait_s(self, now: float) -> float:
        """How long a waiter may sleep before a lease can run out."""
        soonest = min(self.held.values(), default=now + MAX_WAIT_S)
        return min(max(soonest - now, 0.01), MAX_WAIT_S)


class GateActor:
    """The async actor around Permits: waiting acquires yield the event loop, so releases always run."""

    def __init__(self, limit: int, lease_s: float):
        self.permits = Permits(limit, lease_s)
        self.cond: asyncio.Condition | None = None

    def _cond(self) -> asyncio.Condition:
        if self.cond is None:   # made inside the actor's event loop
            self.cond = asyncio.Condition()
        return self.cond

    async def acquire(self) -> int:
        cond = self._cond()
        async with cond:
            while (token := self.permits.take(time.monotonic())) is None:
                try:
                    await asyncio.wait_for(cond.wait(), timeout=self.permits.wait_s(time.monotonic()))
                except asyncio.TimeoutError:
                    pass
            return token

    async def release(self, token: int) -> None:
        cond = self._cond()
        async with cond:
            self.permits.give_back(token)
            cond.notify()

    async def figures(self) -> dict[str, int]:
        return {"limit": self.permits.limit, "peak": self.permits.peak, "reclaimed": self.permits.reclaimed}


def start_gates(cfg: RunConfig) -> list[Any]:
    """One gate actor per llm source of the run (or corpus source's `llm`) with a `max_concurrency`
    (None for every other entry)."""
    import ray
    remote = ray.remote(num_cpus=0, max_restarts=-1, max_task_retries=-1)(GateActor)
    out: list[Any] = []
    for entry in cfg.source_entries():
        src = entry.llm if entry.llm is not None else entry   # a corpus's llm is bounded as an llm source is
        bounded = src.kind == LLM_KIND and src.max_concurrency > 0
        out.append(remote.remote(src.max_concurrency, 2 * src.timeout_s + LEASE_SLACK_S) if bounded else None)
    return out


def gate_of(actor: Any) -> CallGate:
    """The CallGate of a gate actor, for generators.llm.ChatClient inside a shard task."""
    import ray

    @contextmanager
    def gate() -> Iterator[None]:
        token = ray.get(actor.acquire.remote())
        try:
            yield
        finally:
            actor.release.remote(token)
    return gate
