"""The unit clock of DESIGN §2: unit k is the window [k*U, (k+1)*U) of integer samples.

Every stage that asks "which window is this in" (composition placing turns, unit slicing,
validation) uses these helpers, so the rules are computed one way. Arithmetic is on integer
samples: a time is rounded to its sample once, so t = k*u lands in window k exactly, whatever
float error t carries (11 * 0.48 s is 5.279999... s: 84479.99999999999 samples at 16 kHz, window 11,
not 10). Numbers only, so generators and pipeline can both import it.
"""
from __future__ import annotations


def to_samples(t_s: float, sample_rate: int) -> int:
    """The sample index of time t_s (seconds), rounded to the nearest sample."""
    return int(round(t_s * sample_rate))


def unit_samples(unit_s: float, sample_rate: int) -> int:
    """U: samples per unit."""
    return to_samples(unit_s, sample_rate)


def window_of(sample: int, unit: int) -> int:
    """The window holding `sample`."""
    return sample // unit


def last_window_of(end: int, unit: int) -> int:
    """The window holding the last sample of a span that ends (exclusive) at `end`."""
    return (end - 1) // unit


def window_start(k: int, unit: int) -> int:
    """The first sample of window k."""
    return k * unit


def next_window(sample: int, unit: int) -> int:
    """The first window whose output can act on what was heard by `sample`: floor(t/u) + 1 (rules 2, 3, 5)."""
    return sample // unit + 1


def units_covering(n_samples: int, unit: int) -> int:
    """How many whole units it takes to hold `n_samples` samples: ceil(n / U)."""
    return -(-n_samples // unit)


def window_at(t_s: float, unit_s: float, sample_rate: int) -> int:
    """The window holding the sample at time t_s."""
    return window_of(to_samples(t_s, sample_rate), unit_samples(unit_s, sample_rate))


def last_window_at(t_end_s: float, unit_s: float, sample_rate: int) -> int:
    """The window holding the last sample of a span that ends (exclusive) at time t_end_s."""
    return last_window_of(to_samples(t_end_s, sample_rate), unit_samples(unit_s, sample_rate))
