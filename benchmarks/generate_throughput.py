"""Pipeline throughput against raw espeak synthesis of the same texts, side by side in one run.

    python benchmarks/generate_throughput.py [--num 40]

Prints audio-seconds per wall-second for (a) raw TTS of every utterance the trajectories contain
and (b) the full pipeline (plan, TTS, compose, acoustics, FLAC, units, row) in one process, and
their ratio. The pipeline's audio seconds are session seconds (with silences), the natural unit for
a dataset; raw TTS seconds count speech only.
"""
from __future__ import annotations

import argparse
import time

from generators.registry import plan_trajectory, scenario_for, trajectory_seed
from pipeline.render import render_trajectory
from pipeline.tts.espeak import EspeakBackend
from schemas.config import RunConfig


def utterances(script):
    for t in script.turns:
        yield t.text, t.voice
        if t.interruption:
            yield t.interruption.text, t.voice
        for o in t.overlays:
            yield o.text, o.voice


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--num", type=int, default=40)
    args = ap.parse_args()
    cfg = RunConfig(num=args.num)
    tts = EspeakBackend()
    jobs = [(j, trajectory_seed(cfg.seed, j), scenario_for(j, cfg.seed, cfg.scenarios)) for j in range(args.num)]
    texts = [u for _, seed, sc in jobs for u in utterances(plan_trajectory(cfg, sc, seed)) if u[0].strip()]

    t0 = time.perf_counter()
    raw_audio = sum(len(tts.synthesize(text, voice, cfg.sample_rate).audio) for text, voice in texts) / cfg.sample_rate
    raw_s = time.perf_counter() - t0

    t0 = time.perf_counter()
    session_audio = sum(render_trajectory(cfg=cfg, traj_id=str(j), script=plan_trajectory(cfg, sc, seed),
                                          tts=tts).duration_s for j, seed, sc in jobs)
    pipe_s = time.perf_counter() - t0

    raw_rate, pipe_rate = raw_audio / raw_s, session_audio / pipe_s
    print(f"trajectories           {args.num} ({len(texts)} utterances)")
    print(f"raw espeak TTS         {raw_audio:8.1f} audio-s in {raw_s:6.2f} s = {raw_rate:8.1f} audio-s/s")
    print(f"full pipeline (1 proc) {session_audio:8.1f} audio-s in {pipe_s:6.2f} s = {pipe_rate:8.1f} audio-s/s")
    print(f"ratio pipeline / raw TTS = {pipe_rate / raw_rate:.3f}")


if __name__ == "__main__":
    main()
