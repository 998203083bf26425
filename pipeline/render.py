"""Render one trajectory: plan -> compose -> acoustics -> tokens -> units -> row."""
from __future__ import annotations

import json
from typing import Any

import numpy as np

from generators.registry import GENERATOR_VERSION, plan_script
from pipeline import acoustics as ac
from pipeline.compose import Synthesizer, Timeline, compose
from pipeline.io import encode_flac
from pipeline.units import slice_units
from schemas.config import RunConfig
from schemas.script import Script
from schemas.trajectory import AudioBlob, Event, TrajectoryRow

FOREGROUND = ("user_turn", "interruption", "backchannel")   # the user's own voice, for SNR
USER_CHANNEL_SPEECH = FOREGROUND + ("other_directed", "background_speech")
EFFECT_TAIL_S = 0.3   # reflections / echoes of the FD-Bench recipes ring on after the speech


def snr_masks(events: list[Event], n: int, sample_rate: int) -> tuple[np.ndarray, np.ndarray]:
    """(speech mask, noise-only mask) of the user channel, from events alone.

    Speech: the user's own voice, minus anything overlapping other talkers. Noise-only: nowhere
    near any user-channel speech. Composition sets the SNR over the first; validation measures the
    realised SNR from the second, so both sides use this one definition.
    """
    s = lambda t: int(round(t * sample_rate))  # noqa: E731
    fg = ac.mask_from_intervals([(s(e.start_s), s(e.end_s)) for e in events if e.kind in FOREGROUND], n)
    others = ac.mask_from_intervals([(s(e.start_s), s(e.end_s + EFFECT_TAIL_S)) for e in events
                                     if e.kind in ("other_directed", "background_speech")], n)
    busy = ac.mask_from_intervals([(s(e.start_s) - s(0.05), s(e.end_s + EFFECT_TAIL_S)) for e in events
                                   if e.kind in USER_CHANNEL_SPEECH], n)
    return fg & ~others, ~busy


def render_user_channel(tl: Timeline, cfg: RunConfig, rng: np.random.Generator) -> tuple[np.ndarray, dict[str, Any], Event | None]:
    """Mix the user microphone: own speech (gain) + other talkers + noise at a drawn SNR, clip-safe."""
    a = cfg.acoustics
    gain_db = float(round(rng.uniform(a.user_gain_db.lo, a.user_gain_db.hi), 3))
    own = tl.render_stem("user")
    mix = own + tl.render_stem("overlay")
    meta: dict[str, Any] = {"user_gain_db": gain_db, "noise": None}
    noise_event = None
    if rng.random() < a.noise_prob:
        color = str(a.noise_colors[int(rng.integers(len(a.noise_colors)))])
        snr = float(round(rng.uniform(a.snr_db.lo, a.snr_db.hi), 3))
        noise_seed = int(rng.integers(2**31))
        noise = ac.colored_noise(np.random.default_rng(noise_seed), tl.n_samples, color, tl.sample_rate)
        speech_mask, _ = snr_masks(tl.events, tl.n_samples, tl.sample_rate)
        g = ac.noise_gain_for_snr(own, noise, speech_mask, snr)
        mix = mix + g * noise
        meta["noise"] = {"color": color, "snr_db": snr, "seed": noise_seed, "gain": g,
                         "realised_snr_db": round(ac.snr_db(own, g * noise, speech_mask), 4)}
        noise_event = Event(id="noise", kind="noise", role="background", start_s=0.0, end_s=tl.n_samples / tl.sample_rate,
                            text="", attrs=json.dumps({"color": color, "snr_db": snr}, sort_keys=True))
    mix = mix * ac.db_to_amp(gain_db)
    peak = float(np.max(np.abs(mix))) if len(mix) else 0.0
    meta["clip_guard_scale"] = 1.0
    if peak > 0.95:   # clip-safe: scale the whole channel, which leaves every SNR unchanged
        meta["clip_guard_scale"] = round(0.95 / peak, 6)
        mix = mix * (0.95 / peak)
    return mix.astype(np.float32), meta, noise_event


def realised_snr_db(user: np.ndarray, events: list[Event], meta: dict[str, Any], sample_rate: int) -> float | None:
    """Realised SNR of a stored user channel: regenerate the recorded noise, subtract it, compare energies.

    Exact (to FLAC quantisation) whatever the noise colour, and it checks the mix really holds
    the noise at the recorded level, which an estimate from silences could not.
    """
    noise_meta = meta.get("noise")
    if not noise_meta:
        return None
    scale = ac.db_to_amp(meta["user_gain_db"]) * meta["clip_guard_scale"]
    noise = noise_meta["gain"] * ac.colored_noise(np.random.default_rng(noise_meta["seed"]), len(user),
                                                  noise_meta["color"], sample_rate)
    mask, _ = snr_masks(events, len(user), sample_rate)
    return ac.snr_db(user / scale - noise, noise, mask)


def timing_stats(tl: Timeline) -> dict[str, Any]:
    """Realised timing of this session (seconds), recorded in meta for `stats` and audits."""
    return {"num_units": tl.num_units, **tl.stats}


def render_trajectory(*, cfg: RunConfig, traj_id: str, seed: int, scenario: str, tts: Synthesizer,
                      tokenizer: Any | None = None) -> TrajectoryRow:
    """Every random draw below comes from `seed` (planning stream and acoustics stream)."""
    script: Script = plan_script(scenario, seed, cfg.timing, cfg.language, cfg.harness)
    tl = compose(script, tts, cfg.sample_rate, cfg.unit_s)
    assistant = tl.render_stem("assistant")
    user, acoustic_meta, noise_event = render_user_channel(tl, cfg, np.random.default_rng([seed, 1]))
    events = tl.events + ([noise_event] if noise_event else [])
    tokens = tokenizer.tokenize(assistant, cfg.sample_rate) if tokenizer is not None else None
    units = slice_units(events, tl.words, tl.num_units, cfg.unit_s, cfg.sample_rate, tokens)
    meta = {
        "generator_version": GENERATOR_VERSION,
        "config_hash": cfg.config_hash(),
        "domain": script.domain,
        "voices": sorted({json.dumps(t.voice.model_dump(), sort_keys=True) for t in script.turns}),
        "acoustics": acoustic_meta,
        "timing": timing_stats(tl),
        "speech_tokenizer": tokenizer.identity() if tokenizer is not None else None,
        "tts": tts.identity() if hasattr(tts, "identity") else None,
    }
    return TrajectoryRow(
        id=traj_id, seed=seed, scenario=scenario, language=cfg.language, unit_s=cfg.unit_s,
        duration_s=tl.num_units * cfg.unit_s, sample_rate=cfg.sample_rate,
        user_audio=AudioBlob(bytes=encode_flac(user, cfg.sample_rate, cfg.flac_compression)),
        assistant_audio=AudioBlob(bytes=encode_flac(assistant, cfg.sample_rate, cfg.flac_compression)),
        events=events, words=tl.words, units=units, frames=[],
        script=script.model_dump_json(), meta=json.dumps(meta, sort_keys=True),
    )
