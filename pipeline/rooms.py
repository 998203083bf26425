"""Rooms and echo for the user channel: room impulse responses and the assistant's own voice leaking back.

Convolution and resampling use scipy.signal (`oaconvolve`, `resample_poly`), like every filter
in pipeline/acoustics.py: one kept library, float64, deterministic, inspectable designs.
Room impulse responses come from one of three sources, each regenerable from its record in the
microphone scene (schemas/timeline.Room):

* `exp`: a synthetic RIR: unit direct path at sample 0, then a Gaussian tail whose energy decays
  60 dB in `rt60_s` and whose energy relative to the direct path is `-drr_db` (Polack's model).
  Needs nothing but numpy; its RT60 is exact by construction, so tests can measure it.
* `shoebox`: pyroomacoustics' image-source model of a drawn shoebox room (optional dependency;
  imported only when configured). The RIR is shifted so its direct path is sample 0.
* `file`: a real RIR from a folder (wav/flac), resampled, direct path (peak) moved to sample 0.

Every RIR is normalised so its direct path is 1.0: reverb adds the room, it does not move the
speech in time or change its direct level, so event timings stay exact.
"""
from __future__ import annotations

import functools
import hashlib
from math import gcd
from pathlib import Path
from typing import Any

import numpy as np
from scipy import signal

from schemas.replace import replace
from schemas.timeline import ExpRoom, FileRoom, Room, ShoeboxRoom

AUDIO_EXTS = (".wav", ".flac")
DECAY_60DB = np.log(1000.0)   # amplitude factor of a 60 dB energy decay, natural log


def list_audio(folder: str | Path) -> list[str]:
    """Audio files under `folder`, recursively, as sorted POSIX paths relative to it."""
    root = Path(folder)
    return sorted(p.relative_to(root).as_posix() for p in root.rglob("*")
                  if p.is_file() and p.suffix.lower() in AUDIO_EXTS)


@functools.lru_cache(maxsize=64)
def load_audio(path: str, sample_rate: int) -> tuple[np.ndarray, str]:
    """Mono float64 samples of a file at `sample_rate` (polyphase resampling) and its sha256 prefix."""
    import soundfile as sf

    data, sr = sf.read(path, dtype="float64", always_2d=True)
    x = data.mean(axis=1)
    if sr != sample_rate:
        g = gcd(int(sr), int(sample_rate))
        x = signal.resample_poly(x, sample_rate // g, int(sr) // g)
    sha = hashlib.sha256(Path(path).read_bytes()).hexdigest()[:16]
    return x, sha


def exp_rir(seed: int, sample_rate: int, rt60_s: float, drr_db: float, predelay_s: float = 0.003) -> np.ndarray:
    """Synthetic RIR: 1.0 at sample 0, then exponentially decaying Gaussian noise (RT60, DRR)."""
    rng = np.random.default_rng(seed)
    n = int(np.ceil((rt60_s * 1.1 + predelay_s) * sample_rate))
    t = np.arange(n) / sample_rate
    tail = rng.standard_normal(n) * np.exp(-DECAY_60DB * t / rt60_s)
    k0 = int(round(predelay_s * sample_rate))
    tail[:k0] = 0.0
    tail[k0:k0 + 16] *= np.linspace(0.0, 1.0, 16)[: len(tail[k0:k0 + 16])]
    energy = float(np.sum(tail**2))
    tail *= np.sqrt(10 ** (-drr_db / 10) / energy)
    h = tail
    h[0] = 1.0
    return h


def shoebox_rir(seed: int, sample_rate: int, rt60_s: float) -> tuple[np.ndarray, dict[str, Any]]:
    """Image-source RIR of a shoebox room drawn from `seed` (pyroomacoustics), direct path at 0 = 1.0."""
    try:
        import pyroomacoustics as pra
    except ImportError as err:  # pragma: no cover - depends on the environment
        raise RuntimeError("reverb kind 'shoebox' needs pyroomacoustics (pip install pyroomacoustics)") from err
    rng = np.random.default_rng(seed)
    dims = [float(round(rng.uniform(3.0, 8.0), 3)), float(round(rng.uniform(2.5, 6.0), 3)),
            float(round(rng.uniform(2.4, 3.2), 3))]
    src = [float(round(rng.uniform(0.5, d - 0.5), 3)) for d in dims]
    mic = [float(round(rng.uniform(0.5, d - 0.5), 3)) for d in dims]
    e_abs, max_order = pra.inverse_sabine(rt60_s, dims)
    room = pra.ShoeBox(dims, fs=sample_rate, materials=pra.Material(e_abs), max_order=min(max_order, 60),
                       air_absorption=False, use_rand_ism=False)
    room.add_source(src)
    room.add_microphone(mic)
    room.compute_rir()
    h = np.asarray(room.rir[0][0], dtype=np.float64)
    k = int(np.argmax(np.abs(h)))
    h = h[k:] / h[k]
    info = {"dims": dims, "source": src, "mic": mic, "absorption": float(e_abs), "max_order": int(min(max_order, 60)),
            "pyroomacoustics": getattr(pra, "__version__", "?")}
    return h, info


def file_rir(path: str, sample_rate: int) -> tuple[np.ndarray, str]:
    x, sha = load_audio(path, sample_rate)
    k = int(np.argmax(np.abs(x)))
    if x[k] == 0:
        raise ValueError(f"RIR file {path} is silent")
    return x[k:] / x[k], sha


def room_rir(room: Room, sample_rate: int) -> np.ndarray:
    """The RIR a room of the microphone scene describes (what `draw_room` drew)."""
    if isinstance(room, ExpRoom):
        return exp_rir(room.seed, sample_rate, room.rt60_s, room.drr_db)
    if isinstance(room, ShoeboxRoom):
        return shoebox_rir(room.seed, sample_rate, room.rt60_s)[0]
    h, sha = file_rir(str(Path(room.root) / room.path), sample_rate)
    if sha != room.sha256:
        raise ValueError(f"RIR file {room.path} changed since rendering (sha256 {sha} != {room.sha256})")
    return h


def _shoebox(seed: int, sample_rate: int, rt60_s: float) -> ShoeboxRoom:
    info = shoebox_rir(seed, sample_rate, rt60_s)[1]
    return ShoeboxRoom(seed=seed, rt60_s=rt60_s, **info)


def draw_room(rng: np.random.Generator, cfg: Any, sample_rate: int) -> Room:
    """Draw a room from the acoustics config."""
    kind = str(cfg.reverb_kinds[int(rng.integers(len(cfg.reverb_kinds)))])
    seed = int(rng.integers(2**31))
    rt60 = float(round(rng.uniform(cfg.rt60_s.lo, cfg.rt60_s.hi), 4))
    if kind == "exp":
        return ExpRoom(seed=seed, rt60_s=rt60, drr_db=float(round(rng.uniform(cfg.drr_db.lo, cfg.drr_db.hi), 3)))
    if kind == "shoebox":
        return _shoebox(seed, sample_rate, rt60)
    files = list_audio(cfg.rir_dir)
    if not files:
        raise ValueError(f"no wav/flac RIRs under {cfg.rir_dir}")
    rel = files[int(rng.integers(len(files)))]
    sha = file_rir(str(Path(cfg.rir_dir) / rel), sample_rate)[1]
    return FileRoom(root=str(Path(cfg.rir_dir).resolve()), path=rel, sha256=sha)


def echo_room(rng: np.random.Generator, room: Room, sample_rate: int) -> Room:
    """The loudspeaker's path to the mic: the same room, another position (own seed); a measured
    RIR stays the one file (there is no other position to draw)."""
    if isinstance(room, ExpRoom):
        return replace(room, seed=int(rng.integers(2**31)))
    if isinstance(room, ShoeboxRoom):
        return _shoebox(int(rng.integers(2**31)), sample_rate, room.rt60_s)
    return room


def apply_rir(x: np.ndarray, h: np.ndarray) -> np.ndarray:
    """x convolved with h, cut to len(x) (the session's tail silence holds the decay)."""
    if len(h) == 1:
        return x.astype(np.float32) * np.float32(h[0])
    return signal.oaconvolve(x.astype(np.float64), h)[: len(x)].astype(np.float32)


def quantise_like_flac(x: np.ndarray) -> np.ndarray:
    """The samples a 16-bit FLAC round trip returns (encode x*32767, decode /32768), as float64.

    Echo is computed from the assistant channel *as stored*, so validation and `stats` can
    regenerate it exactly from the row.
    """
    return np.clip(np.round(x.astype(np.float64) * 32767.0), -32768, 32767) / 32768.0


def echo_signal(assistant_stored: np.ndarray, sample_rate: int, gain: float, delay_s: float,
                rir: np.ndarray | None = None) -> np.ndarray:
    """The assistant's voice as the mic hears it: delayed, scaled, through the echo-path room if any."""
    n = len(assistant_stored)
    d = int(round(delay_s * sample_rate))
    y = np.zeros(n, dtype=np.float64)
    if d < n:
        y[d:] = assistant_stored[: n - d] * gain
    if rir is not None:
        y = signal.oaconvolve(y, rir)[:n]
    return y


def schroeder_rt60(h: np.ndarray, sample_rate: int, lo_db: float = -5.0, hi_db: float = -25.0) -> float:
    """RT60 of an impulse response by Schroeder backward integration, T20 (-5..-25 dB) extrapolated."""
    e = np.cumsum((h.astype(np.float64) ** 2)[::-1])[::-1]
    edc = 10 * np.log10(e / e[0] + 1e-300)
    i0 = int(np.argmax(edc <= lo_db))
    i1 = int(np.argmax(edc <= hi_db))
    if i1 <= i0:
        raise ValueError("decay range not reached")
    t = np.arange(i0, i1) / sample_rate
    slope = np.polyfit(t, edc[i0:i1], 1)[0]
    return float(-60.0 / slope)
