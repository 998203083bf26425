"""The user's microphone scene: drawn from the acoustics config, measured against events.

`draw_scene` makes the description (schemas/timeline.MicScene) from the trajectory's acoustics
stream; pipeline/mixer.py renders it. `snr_masks` is the one definition of where the user's own
speech is (for setting SNRs) and where the mic holds noise only; `realised_snrs` measures each
noise of a stored row through the renderer's own rebuilt components.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from pipeline import acoustics as ac
from pipeline import mixer, noises, rooms
from schemas.attrs import NoiseAttrs
from schemas.config import AcousticsConfig
from schemas.timeline import ColourNoise, Echo, MicScene, noise_event_id
from schemas.trajectory import Event, make_event
from schemas.vocab import EventKind, Role

FOREGROUND = (EventKind.USER_TURN, EventKind.INTERRUPTION, EventKind.BACKCHANNEL)   # the user's own voice, for SNR
OTHER_TALKERS = (EventKind.OTHER_DIRECTED, EventKind.BACKGROUND_SPEECH)
USER_CHANNEL_SPEECH = FOREGROUND + OTHER_TALKERS
EFFECT_TAIL_S = 0.3   # reflections / echoes of the FD-Bench recipes ring on after the speech


def snr_masks(events: list[Event], n: int, sample_rate: int) -> tuple[np.ndarray, np.ndarray]:
    """(speech mask, noise-only mask) of the user channel, from events alone.

    Speech: the user's own voice, minus anything overlapping other talkers. Noise-only: nowhere
    near any user-channel speech. Rendering sets the SNR over the first; validation measures the
    realised SNR over it too, so both sides use this one definition.
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


def draw_scene(a: AcousticsConfig, rng: np.random.Generator, sample_rate: int, language: str = "en") -> MicScene:
    """Every draw of the mic scene, in a fixed order (the gain and coloured noise first, as they
    always were); a component switched off (probability 0) draws nothing, so configs without the
    newer components draw exactly what they always did. Noise levels are set later (`level_scene`).
    `language` is the row's: babble talkers speak it (it draws nothing)."""
    gain_db = float(round(rng.uniform(a.user_gain_db.lo, a.user_gain_db.hi), 3))
    found: list[Any] = []
    if rng.random() < a.noise_prob:
        color = str(a.noise_colors[int(rng.integers(len(a.noise_colors)))])
        snr = float(round(rng.uniform(a.snr_db.lo, a.snr_db.hi), 3))
        found.append(ColourNoise(color=color, snr_db=snr, seed=int(rng.integers(2**31))))   # type: ignore[arg-type]
    gain_applied = True
    if a.gain_prob < 1.0 and rng.random() >= a.gain_prob:
        gain_applied, gain_db = False, 0.0
    room = None
    if a.reverb_prob > 0 and rng.random() < a.reverb_prob:
        room = rooms.draw_room(rng, a, sample_rate)
    echo = None
    if a.echo_prob > 0 and rng.random() < a.echo_prob:
        gain, delay = _uniform(rng, a.echo_gain, 4), _uniform(rng, a.echo_delay_s, 4)
        echo = Echo(gain=gain, delay_s=delay, room=rooms.echo_room(rng, room, sample_rate) if room else None)
    for kind, prob, snr_range in (("babble", a.babble_prob, a.babble_snr_db), ("hum", a.hum_prob, a.hum_snr_db),
                                  ("file", a.noise_file_prob, a.noise_file_snr_db)):
        if prob > 0 and rng.random() < prob:
            found.append(noises.draw_noise(kind, rng, a, sample_rate, snr_range, language))
    return MicScene(gain_db=gain_db, gain_applied=gain_applied, noises=tuple(found), room=room, echo=echo)


def noise_events(scene: MicScene, duration_s: float) -> list[Event]:
    """One `noise` event per noise of the scene, over the whole session."""
    out = []
    for x in scene.noises:
        attrs = (NoiseAttrs(color=x.color, snr_db=x.snr_db) if isinstance(x, ColourNoise)
                 else NoiseAttrs(component=x.kind, snr_db=x.snr_db))
        out.append(make_event(noise_event_id(x), EventKind.NOISE, Role.BACKGROUND, 0.0, duration_s,
                              "" if isinstance(x, ColourNoise) else x.kind, attrs))
    return out


def measure_snrs(speech: np.ndarray, components: dict[str, np.ndarray], events: list[Event], scene: MicScene,
                 sample_rate: int) -> dict[str, tuple[float, float]]:
    """{noise: (drawn SNR, realised SNR)} given the own speech and the rebuilt components of a mic."""
    mask, _ = snr_masks(events, len(speech), sample_rate)
    return {noise_event_id(x): (float(x.snr_db), ac.snr_db(speech, components[noise_event_id(x)], mask))
            for x in scene.noises}


def realised_snrs(user: np.ndarray, events: list[Event], scene: MicScene, sample_rate: int,
                  assistant: np.ndarray | None = None, tts: Any = None) -> dict[str, tuple[float, float]]:
    """{noise: (drawn SNR, realised SNR)} of a stored user channel.

    Every non-speech component is rebuilt by the renderer (pipeline/mixer.mic_components) and
    removed from the channel undone by its gain; the own speech left is compared with each noise
    over the speech mask. Exact to FLAC quantisation whatever the noise, and it checks that the mix
    really holds each component at its recorded level, which an estimate from silences could not.
    """
    if not scene.noises:
        return {}
    speech, comps = mixer.own_speech(user, assistant, scene, sample_rate, tts)
    return measure_snrs(speech, comps, events, scene, sample_rate)
