"""Timing distributions: one draw of a `Range` or `Dist`, its support and its mean.

`sample(rng, d)` draws one value of a `Range` (uniform, as the planners always did) or a `Dist`
(normal, lognormal, ex-Gaussian, empirical quantiles), truncated to its support by rejection;
`exgauss` is the one ex-Gaussian sampler (Dist draws and backchannel onsets both use it). A
pure function of the RNG it is given: every draw comes from the trajectory's own seed.
"""
from __future__ import annotations

import numpy as np

from schemas.config import Dist, Range

REJECT_TRIES = 64


def exgauss(rng: np.random.Generator, mu: float, sigma: float, tau: float, *, skip_zero_tau: bool = False) -> float:
    """The one ex-Gaussian draw: normal(mu, sigma) + exponential(tau), the normal drawn first.

    numpy's `exponential(0)` still consumes a draw. A `Dist` has always skipped it when tau is 0
    (`skip_zero_tau=True`); the backchannel onset (Planner.exgauss) has always drawn it. Both
    behaviours are kept so every caller's draw sequence, and a fixed seed's bytes, stay the same.
    """
    x = rng.normal(mu, sigma)
    return float(x + (0.0 if skip_zero_tau and tau <= 0 else rng.exponential(tau)))


def _raw(rng: np.random.Generator, d: Dist) -> float:
    if d.kind == "uniform":
        assert d.lo is not None and d.hi is not None
        return float(rng.uniform(d.lo, d.hi))
    if d.kind == "normal":
        return float(rng.normal(d.mu, d.sigma))
    if d.kind == "lognormal":
        return float(rng.lognormal(d.mu, d.sigma))
    if d.kind == "exgauss":
        return exgauss(rng, d.mu, d.sigma, d.tau, skip_zero_tau=True)
    q = np.asarray(d.q, dtype=np.float64)
    return float(np.interp(rng.random(), np.linspace(0.0, 1.0, len(q)), q))


def sample(rng: np.random.Generator, d: Range | Dist) -> float:
    """One draw, rounded to 0.1 ms (what scripts store). A Range draws exactly as planners always did."""
    if isinstance(d, Range):
        return float(round(rng.uniform(d.lo, d.hi), 4))
    lo, hi = d.support()
    x = _raw(rng, d)
    for _ in range(REJECT_TRIES - 1):
        if lo <= x <= hi:
            break
        x = _raw(rng, d)
    return float(round(min(max(x, lo), hi), 4))


def support(d: Range | Dist) -> tuple[float, float]:
    return (d.lo, d.hi) if isinstance(d, Range) else d.support()


def mean_of(d: Range | Dist, n: int = 20000, seed: int = 0) -> float:
    """Monte-Carlo mean of a draw (truncation included); for reports and tests."""
    rng = np.random.default_rng(seed)
    return float(np.mean([sample(rng, d) for _ in range(n)]))
