"""The one renderer of a timeline description (schemas/timeline.py): tracks to stems, stems to the mic.

Composition renders each track through `track_audio` while it places it; `render_trajectory` mixes
the stems and the microphone scene through `mic_components` / `mix_mic`; validate and stats rebuild
the non-speech components of a stored row through the same `mic_components`; `render_audio`
re-renders a whole row from its stored description. There is no second copy of any of it.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from pipeline import acoustics as ac
from pipeline import noises, rooms
from pipeline.tts.base import CachedTTS
from schemas.replace import replace
from schemas.script import VoiceSpec
from schemas.timeline import (Cut, Echo, FileSource, Gain, HighShelf, LowPass, MicScene, Op, Reflections, Source,
                              SpeechSource, Stem, TimelineSpec, Track, noise_event_id)

CLIP_GUARD_PEAK = 0.95   # the mic is scaled down as a whole if its peak would pass this
ECHO = "echo"            # the echo's component name (noises are named by schemas.timeline.noise_event_id)

# What the renderer needs to speak a SpeechSource: (text, voice) -> a pipeline.tts.base.Synthesis.
Speak = Callable[[str, VoiceSpec], Any]


def cached_speaker(tts: Any, sample_rate: int) -> Speak:
    """A speaker that synthesises each (text, voice) once: composition asks for the same line twice
    (for its word timings, then for its track), and a re-render asks again."""
    cached = tts if isinstance(tts, CachedTTS) else CachedTTS(tts)
    return lambda text, voice: cached.synthesize(text, voice, sample_rate)


# ----------------------------------------------------------------------------- tracks and stems

def source_audio(source: Source, speak: Speak, sample_rate: int) -> np.ndarray:
    """The raw samples of a track's source, before its operations."""
    if isinstance(source, SpeechSource):
        return speak(source.text, source.voice).audio
    assert isinstance(source, FileSource)
    x, sha = rooms.load_audio(source.path, sample_rate)
    if sha != source.sha256:
        raise ValueError(f"track source {source.path} changed since rendering (sha256 {sha} != {source.sha256})")
    return x.astype(np.float32)


def apply_op(x: np.ndarray, op: Op, sample_rate: int) -> np.ndarray:
    """One operation of a track (schemas/timeline.Op); float32 in, float32 out."""
    if isinstance(op, Cut):
        return ac.cut_and_fade_out(x, op.at, op.fade)
    if isinstance(op, HighShelf):
        return ac.high_shelf(x, sample_rate, op.freq_hz, op.gain_db, op.q)
    if isinstance(op, LowPass):
        return ac.lowpass(x, sample_rate, op.cutoff_hz, op.order)
    if isinstance(op, Reflections):
        return ac.add_reflections(x, sample_rate, op.taps)
    assert isinstance(op, Gain)
    return (ac.db_to_amp(op.db) * x).astype(np.float32)


def apply_ops(x: np.ndarray, ops: Sequence[Op], sample_rate: int) -> np.ndarray:
    for op in ops:
        x = apply_op(x, op, sample_rate)
    return x


def track_audio(track: Track, speak: Speak, sample_rate: int) -> np.ndarray:
    """A track as it is placed: its source through its operations, at its gain."""
    x = apply_ops(source_audio(track.source, speak, sample_rate), track.ops, sample_rate)
    if track.gain_db:
        x = (ac.db_to_amp(track.gain_db) * x).astype(np.float32)
    return x


def mix_stem(tracks: Sequence[Track], audio: Sequence[np.ndarray], stem: Stem, n_samples: int) -> np.ndarray:
    """The sum of one stem's tracks at their offsets, cut to the session length."""
    out = np.zeros(n_samples, dtype=np.float32)
    for t, x in zip(tracks, audio):
        if t.stem == stem:
            seg = x[: max(0, n_samples - t.offset)]
            out[t.offset: t.offset + len(seg)] += seg
    return out


# ----------------------------------------------------------------------------- the microphone

def room_speech(scene: MicScene, own: np.ndarray, sample_rate: int) -> np.ndarray:
    """The user's own voice as the mic hears it: through the room, if the scene has one."""
    if scene.room is None:
        return own
    return rooms.apply_rir(own, rooms.room_rir(scene.room, sample_rate))


def echo_component(echo: Echo, assistant_stored: np.ndarray, sample_rate: int) -> np.ndarray:
    """The assistant's voice leaking back, from the assistant channel as stored (16-bit FLAC)."""
    rir = rooms.room_rir(echo.room, sample_rate) if echo.room is not None else None
    return rooms.echo_signal(np.asarray(assistant_stored, dtype=np.float64), sample_rate, echo.gain, echo.delay_s, rir)


def level_scene(scene: MicScene, own_heard: np.ndarray, speech_mask: np.ndarray, sample_rate: int,
                tts: Any = None) -> tuple[MicScene, dict[str, np.ndarray]]:
    """Set every noise's gain to its drawn SNR against the user's own speech over `speech_mask`.

    `own_heard` is the user stem after the room (`room_speech`), so a whole-channel gain or the
    clip guard leaves every SNR unchanged. Records the realised SNR beside the draw. Also returns
    each noise's unit signal by name, so `mic_components` need not build it a second time.
    """
    levelled, signals = [], {}
    for noise in scene.noises:
        sig = signals[noise_event_id(noise)] = noises.noise_signal(noise, len(own_heard), sample_rate, tts)
        g = ac.noise_gain_for_snr(own_heard, sig, speech_mask, noise.snr_db)
        levelled.append(replace(noise, gain=g,
                                realised_snr_db=round(ac.snr_db(own_heard, g * sig, speech_mask), 4)))
    return replace(scene, noises=tuple(levelled)), signals


def mic_components(scene: MicScene, n_samples: int, sample_rate: int, assistant_stored: np.ndarray | None,
                   tts: Any = None, signals: dict[str, np.ndarray] | None = None) -> dict[str, np.ndarray]:
    """Every non-speech component of the mic at its level, before the channel gain: noises, echo.

    Keys: `noise_event_id` of each noise, then "echo". `tts` is needed only for babble;
    `signals` are unit signals already built (by `level_scene`), by the same keys.
    """
    out: dict[str, np.ndarray] = {}
    for noise in scene.noises:
        if noise.gain is None:
            raise ValueError(f"{noise_event_id(noise)} has no level: level the scene first")
        name = noise_event_id(noise)
        sig = (signals or {}).get(name)
        out[name] = noise.gain * (sig if sig is not None else noises.noise_signal(noise, n_samples, sample_rate, tts))
    if scene.echo is not None:
        if assistant_stored is None:
            raise ValueError("the echo needs the assistant channel")
        out[ECHO] = echo_component(scene.echo, assistant_stored, sample_rate)
    return out


def premix(scene: MicScene, own_heard: np.ndarray, overlay: np.ndarray, components: dict[str, np.ndarray]) -> np.ndarray:
    """gain * (room(own speech) + other talkers + every component), before the clip guard."""
    mix = own_heard + overlay
    for x in components.values():
        mix = mix + x
    return mix * ac.db_to_amp(scene.gain_db)


def clip_guard(mix: np.ndarray) -> float:
    """The whole-channel factor that keeps the peak at CLIP_GUARD_PEAK (1.0 if it is already below)."""
    peak = float(np.max(np.abs(mix))) if len(mix) else 0.0
    return CLIP_GUARD_PEAK / peak if peak > CLIP_GUARD_PEAK else 1.0


def finish_mic(mix: np.ndarray, scale: float) -> np.ndarray:
    """The stored mic samples: scaling the whole channel leaves every SNR unchanged."""
    return (mix * scale if scale != 1.0 else mix).astype(np.float32)


def mic_scale(scene: MicScene) -> float:
    """The whole-channel factor between the mixed sources and the stored user channel."""
    return ac.db_to_amp(scene.gain_db) * scene.clip_guard_scale


def own_speech(user: np.ndarray, assistant: np.ndarray | None, scene: MicScene, sample_rate: int,
               tts: Any = None) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """(the speech left in a stored mic once every component is rebuilt and removed, the components).

    Exact to FLAC quantisation: the mic is undone by its gain and each component subtracted.
    """
    comps = mic_components(scene, len(user), sample_rate, assistant, tts)
    speech = user.astype(np.float64) / mic_scale(scene)
    return (speech - sum(comps.values()) if comps else speech), comps


# ----------------------------------------------------------------------------- a whole row

def render_audio(spec: TimelineSpec, tts: Any) -> tuple[np.ndarray, np.ndarray]:
    """(user mic, assistant channel) of a stored description, as float32 before FLAC.

    What `render_trajectory` stored, re-rendered from the description alone (and the same TTS).
    """
    if spec.mic is None:
        raise ValueError("the timeline has no microphone scene")
    sr, n = spec.sample_rate, spec.n_samples
    speak = cached_speaker(tts, sr)
    audio = [track_audio(t, speak, sr) for t in spec.tracks]
    assistant = mix_stem(spec.tracks, audio, Stem.ASSISTANT, n)
    own = room_speech(spec.mic, mix_stem(spec.tracks, audio, Stem.USER, n), sr)
    comps = mic_components(spec.mic, n, sr, rooms.quantise_like_flac(assistant), tts)
    mix = premix(spec.mic, own, mix_stem(spec.tracks, audio, Stem.OVERLAY, n), comps)
    return finish_mic(mix, spec.mic.clip_guard_scale), assistant
