"""Render one planned trajectory: Script -> compose -> microphone scene -> tokens -> units -> row.

Planning is a generator's job (generators/registry.plan_script, called from jobs/shards.py):
this module realises the `Script` it is given and never imports the planner. The row's
meta["timeline"] holds the whole description (tracks and the mic scene, schemas/timeline.py),
so pipeline/mixer.render_audio re-renders the row's audio from it. An Omni row's `script` holds
its camera scene as composition placed it (a visual_change's change at the frame that cuts the
answer), which is what its frames show and its visual events record.
"""
from __future__ import annotations

import json
from typing import Any

import numpy as np

from generators.version import GENERATOR_VERSION
from pipeline import mixer, rooms
from pipeline.compose import Synthesizer, Timeline, compose
from pipeline.frames import render_frames
from pipeline.io import encode_flac
from pipeline.native_tokens import overlay_native
from pipeline.scene import draw_scene, noise_events, snr_masks
from pipeline.units import slice_units
from pipeline.video import decode_frames
from schemas.decode_budget import DECODE_META_KEY, DECODE_MS_PER_STEP
from schemas.config import RunConfig
from schemas.language import language
from schemas.protocol import SPEECH_TOKEN_SOURCE_KEY
from schemas.provenance import SOURCE_META_KEY
from schemas.replace import replace
from schemas.script import Script
from schemas.timeline import META_KEY, MicScene, Stem
from schemas.trajectory import AudioBlob, Event, TrajectoryRow

def render_mic(tl: Timeline, cfg: RunConfig, rng: np.random.Generator, assistant: np.ndarray,
               tts: Any = None, language: str = "en") -> tuple[np.ndarray, MicScene, list[Event]]:
    """Draw the mic scene, level its noises and mix the user channel; returns (samples, scene, noise events).

    Each noise is set to its drawn SNR against the user's own speech *as the mic hears it* (after
    the room) over `snr_masks`' speech mask; the whole channel is then scaled by its gain and,
    if its peak would pass 0.95, scaled down as a whole, which leaves every SNR unchanged.
    """
    n, sr = tl.n_samples, tl.sample_rate
    scene = draw_scene(cfg.acoustics, rng, sr, language)
    own = mixer.room_speech(scene, tl.render_stem(Stem.USER), sr)
    signals: dict[str, np.ndarray] = {}
    if scene.noises:
        scene, signals = mixer.level_scene(scene, own, snr_masks(tl.events, n, sr)[0], sr, tts)
    comps = mixer.mic_components(scene, n, sr, rooms.quantise_like_flac(assistant), tts, signals)
    mix = mixer.premix(scene, own, tl.render_stem(Stem.OVERLAY), comps)
    scene = replace(scene, clip_guard_scale=mixer.clip_guard(mix))
    return mixer.finish_mic(mix, scene.clip_guard_scale), scene, noise_events(scene, n / sr)


def scene_frames(script: Script, num_units: int, cfg: RunConfig) -> list[bytes]:
    """One JPEG per unit of an Omni row: drawn from a procedural scene, or decoded from a video scene's
    clip in the run's video folder (scene_source.path); none for an audio-only row."""
    scene = script.scene
    if scene is None:
        return []
    if scene.video is not None:
        if cfg.scene_source.path is None:
            raise ValueError(f"the scene of {script.scenario} is a segment of {scene.video.file}, and the run "
                             "names no video folder (scene_source.path)")
        return decode_frames(scene.video, cfg.scene_source.path, num_units, cfg.vision.frame_size, cfg.unit_s)
    return render_frames(scene, num_units, cfg.vision.frame_size, script.seed)


def render_trajectory(*, cfg: RunConfig, traj_id: str, script: Script, tts: Synthesizer,
                      tokenizer: Any | None = None, source: dict[str, Any] | None = None) -> TrajectoryRow:
    """Realise a planned script as a row. `source`: the script's provenance (schemas/provenance.py),
    stored in meta; None (the procedural planners) leaves meta as it was.

    Every random draw comes from the script's own seed: the planner drew from `script.seed`, and
    the acoustics draw from the stream [script.seed, 1], so the row depends on the script alone.
    """
    seed, scenario = script.seed, script.scenario
    tl = compose(script, tts, cfg.sample_rate, cfg.unit_s, cfg.decode_budget.ms_per_step)
    if tl.scene != script.scene:   # a visual_change's change now sits at the frame composition placed it in
        script = replace(script, scene=tl.scene)
    assistant = tl.render_stem(Stem.ASSISTANT)
    user, scene, noise_evs = render_mic(tl, cfg, np.random.default_rng([seed, 1]), assistant, tts, script.language)
    events = tl.events + noise_evs
    tokens = tokenizer.tokenize(assistant, cfg.sample_rate) if tokenizer is not None else None
    token_source: dict[str, str] = {}
    if tokens is not None and tl.speak is not None:   # an engine's own tokens (CosyVoice) where it speaks
        tokens, token_source = overlay_native(tokens, tl.spec.tracks, tl.speak, cfg.sample_rate)
    units = slice_units(events, tl.words, tl.num_units, cfg.unit_s, cfg.sample_rate, tokens, language(script.language))
    frames = scene_frames(script, tl.num_units, cfg)
    meta = {
        "generator_version": GENERATOR_VERSION,
        "config_hash": cfg.config_hash(),
        "domain": script.domain,
        "voices": sorted({json.dumps(v.model_dump(), sort_keys=True)   # every speaker, overlays' included
                          for t in script.turns for v in (t.voice, *(o.voice for o in t.overlays))}),
        META_KEY: replace(tl.spec, mic=scene).model_dump(mode="json"),
        "timing": {"num_units": tl.num_units, **tl.stats},
        "speech_tokenizer": tokenizer.identity() if tokenizer is not None else None,
        "tts": tts.identity() if hasattr(tts, "identity") else None,
    }
    if source is not None:
        meta[SOURCE_META_KEY] = source
    if cfg.voices.cosyvoice is not None and tokens is not None:   # other runs' meta stays as it was
        meta[SPEECH_TOKEN_SOURCE_KEY] = token_source
    if cfg.decode_budget.ms_per_step != DECODE_MS_PER_STEP:   # the default rate is recorded nowhere (bytes as before)
        meta[DECODE_META_KEY] = {"ms_per_step": cfg.decode_budget.ms_per_step}
    return TrajectoryRow(
        id=traj_id, seed=seed, scenario=scenario, language=script.language, unit_s=cfg.unit_s,
        duration_s=tl.num_units * cfg.unit_s, sample_rate=cfg.sample_rate,
        user_audio=AudioBlob(bytes=encode_flac(user, cfg.sample_rate, cfg.flac_compression)),
        assistant_audio=AudioBlob(bytes=encode_flac(assistant, cfg.sample_rate, cfg.flac_compression)),
        events=events, words=tl.words, units=units, frames=frames,
        script=script.model_dump_json(), meta=json.dumps(meta, sort_keys=True),
    )
