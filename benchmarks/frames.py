"""Omni frames: render speed against a reference, and the Omni pipeline against the audio-only one, in one run.

    python benchmarks/frames.py [--num 8] [--size 448]

Prints, all in CPU seconds of this process (what a loaded, shared machine measures fairly):

* frames per CPU-s: the scenes of `--num` planned visual_qa trajectories rendered by
  pipeline/frames.py (12 frames each) at `--size`, beside the reference measured in the same run,
  a blank frame of that size encoded to JPEG (the floor any renderer pays), and their ratio;
* video frames per CPU-s (this process and its ffmpeg children): `--num` segments of 12 frames
  decoded by pipeline/video.py (scene_source kind video) from a 1280x720 30 fps H.264 clip made
  with ffmpeg's testsrc2 in the same run, beside the procedural frames above, and their ratio;
* audio-s per CPU-s of the full pipeline (plan, TTS, compose, acoustics, FLAC, frames, units, row)
  for `--num` visual_qa trajectories and for `--num` audio-only ones (the default mix's first
  families by the run's own family sequence), and their ratio; plus the frames' share of the
  visual_qa pipeline's time.
"""
from __future__ import annotations

import argparse
import io
import resource
import subprocess
import tempfile
import time
from pathlib import Path

from PIL import Image

from generators.registry import plan_trajectory, scenario_for, trajectory_seed
from generators.scenes.video import ffmpeg_exe, file_sha256
from pipeline.frames import render_frames
from pipeline.video import decode_frames
from pipeline.render import render_trajectory
from pipeline.tts.espeak import EspeakBackend
from schemas.config import ESPEAK_CAST, RunConfig, Scenario, VoicesConfig
from schemas.scene import VideoClip

FRAMES_PER_SCENE = 12
REFERENCE_QUALITY = 80


def _blank_encode(size: int, n: int) -> float:
    """CPU seconds to encode `n` blank frames of `size` to JPEG."""
    t0 = time.process_time()
    for _ in range(n):
        Image.new("RGB", (size, size), (128, 128, 128)).save(io.BytesIO(), format="JPEG", quality=REFERENCE_QUALITY)
    return time.process_time() - t0


def report_frame_rates(render_cpu: float, n_frames: int, size: int, note: str = "") -> None:
    """Print scene frames per CPU-s beside the blank-frame JPEG encode measured now, and their ratio
    (the figures this benchmark and benchmarks/omni.py both report)."""
    fps, ref = n_frames / render_cpu, n_frames / _blank_encode(size, n_frames)
    print(f"scene frames           {fps:8.1f} frames per CPU-s{note}")
    print(f"blank JPEG encode      {ref:8.1f} frames per CPU-s (reference)")
    print(f"ratio scene / blank    {fps / ref:.3f}")


def _cpu_with_children() -> float:
    """CPU seconds of this process and of its waited-for children (ffmpeg decodes in a child)."""
    me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


def video_decode_cpu(num: int, size: int, seconds: int = 60) -> float:
    """CPU seconds to decode `num` segments of FRAMES_PER_SCENE frames (1 fps) from a 720p 30 fps clip."""
    with tempfile.TemporaryDirectory(prefix="duplexsynth-bench-video-") as tmp:
        clip = Path(tmp) / "clip.mp4"
        src = f"testsrc2=size=1280x720:rate=30:d={seconds}"
        subprocess.run([ffmpeg_exe(), "-loglevel", "error", "-f", "lavfi", "-i", src, "-c:v", "libx264",
                        "-preset", "veryfast", "-g", "60", "-pix_fmt", "yuv420p", str(clip)], check=True)
        sha = file_sha256(clip)
        t0 = _cpu_with_children()
        for j in range(num):
            start = float(j * 7 % (seconds - FRAMES_PER_SCENE))
            decode_frames(VideoClip(file=clip.name, sha256=sha, start_s=start, duration_s=seconds), Path(tmp),
                          FRAMES_PER_SCENE, size, 1.0)
        return _cpu_with_children() - t0


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--num", type=int, default=8)
    ap.add_argument("--size", type=int, default=448)
    args = ap.parse_args()
    cfg = RunConfig(num=args.num, vision={"frame_size": args.size}, voices=VoicesConfig(cast=ESPEAK_CAST))
    seeds = [trajectory_seed(cfg.seed, j) for j in range(args.num)]
    visual = [plan_trajectory(cfg, Scenario.VISUAL_QA, s) for s in seeds]

    n_frames = args.num * FRAMES_PER_SCENE
    t0 = time.process_time()
    for script in visual:
        render_frames(script.scene, FRAMES_PER_SCENE, args.size, script.seed)
    render_cpu = time.process_time() - t0
    print(f"frames {args.size}x{args.size}      {n_frames} frames of {args.num} scenes")
    report_frame_rates(render_cpu, n_frames, args.size)
    decode = n_frames / video_decode_cpu(args.num, args.size)
    print(f"video frames (720p)    {decode:8.1f} frames per CPU-s (ffmpeg decode + scale + JPEG, children included)")
    print(f"ratio video / scene    {decode / (n_frames / render_cpu):.3f}")

    tts = EspeakBackend()
    audio_only = [plan_trajectory(cfg, sc, s) for j, s in enumerate(seeds)
                  for sc in [scenario_for(j, cfg.seed, cfg.scenarios)]]
    rates: dict[str, float] = {}
    frame_cpu = 0.0
    for name, scripts in (("visual_qa", visual), ("audio-only", audio_only)):
        t0 = time.process_time()
        audio_s, units = 0.0, []
        for j, script in enumerate(scripts):
            row = render_trajectory(cfg=cfg, traj_id=str(j), script=script, tts=tts)
            audio_s += row.duration_s
            units.append(len(row.units))
        cpu = time.process_time() - t0
        if name == "visual_qa":   # the frames these rows hold, rendered again on their own
            t1 = time.process_time()
            for script, n in zip(scripts, units):
                render_frames(script.scene, n, args.size, script.seed)
            frame_cpu = time.process_time() - t1
            visual_cpu = cpu
        rates[name] = audio_s / cpu
        print(f"{name:22} {audio_s:8.1f} audio-s in {cpu:6.2f} CPU-s = {rates[name]:7.1f} audio-s per CPU-s")
    print(f"ratio visual_qa / audio-only = {rates['visual_qa'] / rates['audio-only']:.3f}")
    print(f"frames' share of the visual_qa pipeline ~ {frame_cpu / visual_cpu:.1%}")


if __name__ == "__main__":
    main()
