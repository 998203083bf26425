"""Render one planned trajectory: Script -> compose -> acoustics -> tokens -> units -> row.

Planning is a generator's job (generators/registry.plan_script, called from jobs/shards.py):
this module realises the `Script` it is given and never imports the planner.
"""
from __future__ import annotations

import json
from typing import Any

import numpy as np

from generators.version import GENERATOR_VERSION
from pipeline import acoustics as ac
from pipeline import noises, rooms
from pipeline.compose import Synthesizer, Timeline, compose
from pipeline.io import encode_flac
from pipeline.units import slice_units
from schemas.config import RunConfig
from schemas.script import Script
from schemas.attrs import NoiseAttrs
from schemas.trajectory import AudioBlob, Event, TrajectoryRow, make_event
from schemas.vocab import EventKind, Role

FOREGROUND = (EventKind.USER_TURN, EventKind.INTERRUPTION, EventKind.BACKCHANNEL)   # the user's own voice, for SNR
OTHER_TALKERS = (EventKind.OTHER_DIRECTED, EventKind.BACKGROUND_SPEECH)
USER_CHANNEL_SPEECH = FOREGROUND + OTHER_TALKERS
# The coloured noise: its event id, its component name and its key in meta["acoustics"]; the other
# noises are "<NOISE>.<kind>" (babble, hum, file).
NOISE = EventKind.NOISE.value
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
                                     if e.kind in OTHER_TALKERS], n)
    busy = ac.mask_from_intervals([(s(e.start_s) - s(0.05), s(e.end_s + EFFECT_TAIL_S)) for e in events
                                   if e.kind in USER_CHANNEL_SPEECH], n)
    return fg & ~others, ~busy


def _uniform(rng: np.random.Generator, r: Any, nd: int = 3) -> float:
    return float(round(rng.uniform(r.lo, r.hi), nd))


def render_user_channel(tl: Timeline, cfg: RunConfig, rng: np.random.Generator, assistant: np.ndarray | None = None,
                        tts: Any = None) -> tuple[np.ndarray, dict[str, Any], list[Event]]:
    """Mix the user microphone, clip-safe; returns (samples, meta["acoustics"], noise events).

    mic = gain * (room(own speech) + other talkers + echo(assistant) + sum of noises), then scaled
    down as a whole if its peak would pass 0.95. Each noise is set to its drawn SNR against the
    user's own speech *as the mic hears it* (after the room) over `snr_masks`' speech mask, so a
    whole-channel gain or clip guard leaves every SNR unchanged. Draws are taken in a fixed order
    (the original gain and coloured noise first), and a component switched off (probability 0)
    draws nothing, so configs without the newer components render exactly what they always did.
    """
    a = cfg.acoustics
    n, sr = tl.n_samples, tl.sample_rate
    gain_db = float(round(rng.uniform(a.user_gain_db.lo, a.user_gain_db.hi), 3))
    colour = None
    if rng.random() < a.noise_prob:
        color = str(a.noise_colors[int(rng.integers(len(a.noise_colors)))])
        colour = (color, float(round(rng.uniform(a.snr_db.lo, a.snr_db.hi), 3)), int(rng.integers(2**31)))
    gain_applied = True
    if a.gain_prob < 1.0 and rng.random() >= a.gain_prob:
        gain_applied, gain_db = False, 0.0
    rir = reverb = None
    if a.reverb_prob > 0 and rng.random() < a.reverb_prob:
        rir, reverb = rooms.draw_rir(rng, a, sr)
    echo = echo_rir = None
    if a.echo_prob > 0 and rng.random() < a.echo_prob:
        echo = {"gain": _uniform(rng, a.echo_gain, 4), "delay_s": _uniform(rng, a.echo_delay_s, 4), "rir": None}
        if reverb is not None:   # the loudspeaker is in the same room, somewhere else: same kind, own seed
            echo["rir"] = {**reverb, "seed": int(rng.integers(2**31))} if "seed" in reverb else dict(reverb)
            echo_rir = rooms.rir_from_meta(echo["rir"], sr)
    extras: list[dict[str, Any]] = []
    for kind, prob, snr_range in (("babble", a.babble_prob, a.babble_snr_db), ("hum", a.hum_prob, a.hum_snr_db),
                                  ("file", a.noise_file_prob, a.noise_file_snr_db)):
        if prob > 0 and rng.random() < prob:
            m = noises.draw_component(kind, rng, a, n, sr)
            m["snr_db"] = _uniform(rng, snr_range)
            extras.append(m)

    own = tl.render_stem("user")
    if rir is not None:
        own = rooms.apply_rir(own, rir)
    mix = own + tl.render_stem("overlay")
    meta: dict[str, Any] = {"user_gain_db": gain_db, NOISE: None}
    events: list[Event] = []
    speech_mask = snr_masks(tl.events, n, sr)[0] if (colour or extras) else None
    if colour is not None:
        color, snr, noise_seed = colour
        noise = ac.colored_noise(np.random.default_rng(noise_seed), n, color, sr)
        g = ac.noise_gain_for_snr(own, noise, speech_mask, snr)
        mix = mix + g * noise
        meta[NOISE] = {"color": color, "snr_db": snr, "seed": noise_seed, "gain": g,
                       "realised_snr_db": round(ac.snr_db(own, g * noise, speech_mask), 4)}
        events.append(make_event(NOISE, EventKind.NOISE, Role.BACKGROUND, 0.0, n / sr, "",
                                 NoiseAttrs(color=color, snr_db=snr)))
    for m in extras:
        sig = noises.component_signal(m, n, sr, tts)
        g = ac.noise_gain_for_snr(own, sig, speech_mask, m["snr_db"])
        mix = mix + g * sig
        m.update(gain=g, realised_snr_db=round(ac.snr_db(own, g * sig, speech_mask), 4))
        events.append(make_event(f"{NOISE}.{m['kind']}", EventKind.NOISE, Role.BACKGROUND, 0.0, n / sr, m["kind"],
                                 NoiseAttrs(component=m["kind"], snr_db=m["snr_db"])))
    if echo is not None:
        if assistant is None:
            raise ValueError("echo needs the assistant channel")
        mix = mix + rooms.echo_signal(rooms.quantise_like_flac(assistant), sr, echo, echo_rir)
    if extras or echo is not None or reverb is not None or not gain_applied:
        meta.update(gain_applied=gain_applied, noises=extras, reverb=reverb, echo=echo)
    mix = mix * ac.db_to_amp(gain_db)
    peak = float(np.max(np.abs(mix))) if len(mix) else 0.0
    meta["clip_guard_scale"] = 1.0
    if peak > 0.95:   # clip-safe: scale the whole channel, which leaves every SNR unchanged
        meta["clip_guard_scale"] = round(0.95 / peak, 6)
        mix = mix * (0.95 / peak)
    return mix.astype(np.float32), meta, events


def mic_scale(meta: dict[str, Any]) -> float:
    """The whole-channel factor between the mixed sources and the stored user channel."""
    return ac.db_to_amp(meta["user_gain_db"]) * meta["clip_guard_scale"]


def _tts_from_identity(identity: dict[str, Any] | None) -> Any:
    if identity and identity.get("backend") == "espeak-ng":
        from pipeline.tts.espeak import EspeakBackend
        return EspeakBackend(target_rms_dbfs=identity.get("target_rms_dbfs", -20.0),
                             peak_limit=identity.get("peak_limit", 0.9))
    return None


def nonspeech_components(n: int, assistant: np.ndarray | None, meta: dict[str, Any], sample_rate: int,
                         tts: Any = None, tts_identity: dict[str, Any] | None = None) -> dict[str, np.ndarray]:
    """Every non-speech component of a stored user channel, rebuilt from meta, before gain and guard.

    Keys: "noise" (coloured), "noise.<kind>" (babble, hum, file) and "echo". `assistant` is the
    stored (decoded) assistant channel; `tts` (or one built from `tts_identity`) is needed only to
    rebuild babble.
    """
    out: dict[str, np.ndarray] = {}
    nm = meta.get(NOISE)
    if nm:
        out[NOISE] = nm["gain"] * ac.colored_noise(np.random.default_rng(nm["seed"]), n, nm["color"], sample_rate)
    for m in meta.get("noises") or []:
        if m["kind"] == "babble" and tts is None:
            tts = _tts_from_identity(tts_identity)
        out[f"{NOISE}.{m['kind']}"] = m["gain"] * noises.component_signal(m, n, sample_rate, tts)
    echo = meta.get("echo")
    if echo:
        if assistant is None:
            raise ValueError("rebuilding the echo needs the assistant channel")
        rir = rooms.rir_from_meta(echo["rir"], sample_rate) if echo.get("rir") else None
        out["echo"] = rooms.echo_signal(np.asarray(assistant, dtype=np.float64), sample_rate, echo, rir)
    return out


def realised_snrs(user: np.ndarray, events: list[Event], meta: dict[str, Any], sample_rate: int,
                  assistant: np.ndarray | None = None, tts: Any = None,
                  tts_identity: dict[str, Any] | None = None) -> dict[str, tuple[float, float]]:
    """{component: (drawn SNR, realised SNR)} of a stored user channel.

    Rebuild every non-speech component from meta (noises, echo), subtract them all from the
    channel undone by its gain, and compare the remaining own speech with each noise over the
    speech mask. Exact to FLAC quantisation whatever the noise, and it checks that the mix really
    holds each component at its recorded level, which an estimate from silences could not.
    """
    comps = nonspeech_components(len(user), assistant, meta, sample_rate, tts, tts_identity)
    noise_keys = [k for k in comps if k.startswith(NOISE)]
    if not noise_keys:
        return {}
    speech = user.astype(np.float64) / mic_scale(meta) - sum(comps.values())
    mask, _ = snr_masks(events, len(user), sample_rate)
    drawn = {NOISE: (meta.get(NOISE) or {}).get("snr_db")}
    drawn.update({f"{NOISE}.{m['kind']}": m["snr_db"] for m in meta.get("noises") or []})
    return {k: (float(drawn[k]), ac.snr_db(speech, comps[k], mask)) for k in noise_keys}


def timing_stats(tl: Timeline) -> dict[str, Any]:
    """Realised timing of this session (seconds), recorded in meta for `stats` and audits."""
    return {"num_units": tl.num_units, **tl.stats}


def render_trajectory(*, cfg: RunConfig, traj_id: str, script: Script, tts: Synthesizer,
                      tokenizer: Any | None = None) -> TrajectoryRow:
    """Realise a planned script as a row.

    Every random draw comes from the script's own seed: the planner drew from `script.seed`, and
    the acoustics draw from the stream [script.seed, 1], so the row depends on the script alone.
    """
    seed, scenario = script.seed, script.scenario
    tl = compose(script, tts, cfg.sample_rate, cfg.unit_s)
    assistant = tl.render_stem("assistant")
    user, acoustic_meta, noise_events = render_user_channel(tl, cfg, np.random.default_rng([seed, 1]), assistant, tts)
    events = tl.events + noise_events
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
        id=traj_id, seed=seed, scenario=scenario, language=script.language, unit_s=cfg.unit_s,
        duration_s=tl.num_units * cfg.unit_s, sample_rate=cfg.sample_rate,
        user_audio=AudioBlob(bytes=encode_flac(user, cfg.sample_rate, cfg.flac_compression)),
        assistant_audio=AudioBlob(bytes=encode_flac(assistant, cfg.sample_rate, cfg.flac_compression)),
        events=events, words=tl.words, units=units, frames=[],
        script=script.model_dump_json(), meta=json.dumps(meta, sort_keys=True),
    )
