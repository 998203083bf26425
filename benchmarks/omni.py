"""The Omni pipeline end to end against the audio-only one, side by side in one run.

    python benchmarks/omni.py [--num 12] [--size 448]

Every figure is in CPU seconds of this process (espeak-ng runs in-process through ctypes; torch on one
thread; one untimed warm-up row per mix), which a loaded, shared machine measures fairly. The same `--num` trajectory seeds (run seed 0) are planned
twice: as the Omni mix (every family of generators/registry.VISUAL_FAMILIES, chosen per index by the
run's own family sequence) and as the default audio-only mix. Rows of the two are realised
alternately (Omni row j, audio row j, ...), so both see the same machine load. Printed:

* frames per CPU-s: the Omni rows' own frames (one per unit, at `--size`) rendered again by
  pipeline/frames.py, beside the reference measured in the same run (a blank frame of that size
  encoded to JPEG, the floor any renderer pays; benchmarks/frames.py) and their ratio;
* audio-s per CPU-s of the whole pipeline with the espeak-ng cast (plan, TTS, compose, acoustics, FLAC, frames, units, row),
  Omni mix against audio-only mix and their ratio, per Omni family, and the frames' share of the
  Omni pipeline's time;
* the trainer loader's per-unit inputs: a frame decoded and preprocessed for SigLIP at `--size`
  (model/dataset.py) against a unit of audio turned into log-mel (model/audio.py), units per CPU-s.
"""
from __future__ import annotations

import argparse
import sys
import time
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from frames import report_frame_rates  # noqa: E402 - the sibling benchmark's figures

from generators.registry import VISUAL_FAMILIES, plan_trajectory, scenario_for, trajectory_seed  # noqa: E402
from pipeline.frames import render_frames  # noqa: E402
from pipeline.render import render_trajectory  # noqa: E402
from pipeline.tts.espeak import EspeakBackend  # noqa: E402
from schemas.config import ESPEAK_CAST, RunConfig, VoicesConfig  # noqa: E402
from schemas.replace import replace  # noqa: E402


def _cpu(fn):
    t0 = time.process_time()
    out = fn()
    return out, time.process_time() - t0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--num", type=int, default=12)
    ap.add_argument("--size", type=int, default=448)
    args = ap.parse_args()
    audio_cfg = RunConfig(num=args.num, vision={"frame_size": args.size}, voices=VoicesConfig(cast=ESPEAK_CAST))
    omni_mix = {s: 1.0 for s in sorted(VISUAL_FAMILIES)}
    omni_cfg = replace(audio_cfg, scenarios=omni_mix)
    seeds = [trajectory_seed(0, j) for j in range(args.num)]
    tts = EspeakBackend()
    import torch

    torch.set_num_threads(1)   # CPU time of one thread, as a loader worker runs (no spinning pool threads)
    for cfg in (omni_cfg, audio_cfg):   # warm-up, untimed: bank loading, fonts, first-call costs
        render_trajectory(cfg=cfg, traj_id="warm", script=plan_trajectory(cfg, scenario_for(0, 0, cfg.scenarios),
                                                                          trajectory_seed(0, args.num)), tts=tts)

    cpu: dict[str, float] = defaultdict(float)
    audio_s: dict[str, float] = defaultdict(float)
    omni_rows = []
    for j, seed in enumerate(seeds):
        for name, cfg in (("omni", omni_cfg), ("audio-only", audio_cfg)):
            family = scenario_for(j, 0, cfg.scenarios)
            row, t = _cpu(lambda: render_trajectory(cfg=cfg, traj_id=str(j), script=plan_trajectory(cfg, family, seed),
                                                    tts=tts))
            for key in (name, f"{name}:{family}" if name == "omni" else None):
                if key:
                    cpu[key] += t
                    audio_s[key] += row.duration_s
            if name == "omni":
                omni_rows.append((row, plan_trajectory(cfg, family, seed)))

    n_frames = sum(len(r.frames) for r, _ in omni_rows)
    _, render_cpu = _cpu(lambda: [render_frames(s.scene, len(r.units), args.size, s.seed) for r, s in omni_rows])
    print(f"Omni mix: {', '.join(sorted(VISUAL_FAMILIES))}; {args.num} trajectories per mix; frames {args.size}x{args.size}")
    report_frame_rates(render_cpu, n_frames, args.size, note=f" ({n_frames} frames)")
    for key in ["omni", *sorted(k for k in cpu if k.startswith("omni:")), "audio-only"]:
        print(f"{key:22} {audio_s[key]:8.1f} audio-s in {cpu[key]:6.2f} CPU-s = "
              f"{audio_s[key] / cpu[key]:7.1f} audio-s per CPU-s")
    rate = {k: audio_s[k] / cpu[k] for k in ("omni", "audio-only")}
    print(f"ratio omni / audio-only = {rate['omni'] / rate['audio-only']:.3f}")
    print(f"frames' share of the omni pipeline ~ {render_cpu / cpu['omni']:.1%}")

    import numpy as np

    from model import audio as fe
    from model.dataset import _pixels
    from pipeline.io import decode_audio

    frames = [f for r, _ in omni_rows for f in r.frames]
    _pixels(frames[0], args.size)
    fe.unit_log_mel(np.zeros(16000, np.float32), 1, 1.0)   # warm-up: the mel filterbank
    _, pix_cpu = _cpu(lambda: [_pixels(f, args.size) for f in frames])
    mic = [(decode_audio(r.user_audio.bytes), len(r.units), r.unit_s) for r, _ in omni_rows]
    units = sum(n for _, n, _ in mic)
    _, mel_cpu = _cpu(lambda: [fe.unit_log_mel(fe.to_16k(np.asarray(x, np.float32), sr), n, u)
                               for (x, sr), n, u in mic])
    print(f"loader: frame -> SigLIP pixels {len(frames) / pix_cpu:8.1f} units per CPU-s; "
          f"audio -> log-mel {units / mel_cpu:8.1f} units per CPU-s (reference); ratio {mel_cpu / units / (pix_cpu / len(frames)):.3f}")


if __name__ == "__main__":
    main()
